"""Text keys for `portsort sort --type f16|bf16 --text`, and the output it
must give, computed independently of the tool.

    python3 cli-half-oracle.py TYPE DIR

writes DIR/in (the lines), DIR/asc, DIR/desc and DIR/uniq (what sort, sort
-r and sort -u must print).  The rounding is exact: each line's number is a
fractions.Fraction, rounded to nearest, ties to even, with integer
arithmetic (no float on the way, so no double rounding).  Where the number
is exactly a double, the result is checked against struct's 'e' format
(CPython's binary16 packing) and, when it is importable, numpy.float16.

The lines hold every finite value of the type once (so that every rounded
key has a line to sit beside), then numbers chosen to be hard to round:
exact midpoints (ties to even), the shortest double text of a midpoint and
midpoints with digits beyond a double's precision (right only without
double rounding), subnormals, values near the overflow threshold, tiny
negatives (-0), hex floats, and short random decimals.  The lines with the
same rounded key come out in input order (the sort is stable), so a line
rounded to the wrong neighbour shows in a diff against asc.
"""

import random
import struct
import sys
from decimal import Decimal
from fractions import Fraction

FORMATS = {"f16": (10, 5), "bf16": (7, 8)}


def fields(kind):
    frac, ebits = FORMATS[kind]
    bias = (1 << (ebits - 1)) - 1
    return frac, ebits, bias


def value(kind, bits):
    """The exact value of a finite bit pattern, as a Fraction."""
    frac, ebits, bias = fields(kind)
    e = (bits >> frac) & ((1 << ebits) - 1)
    m = bits & ((1 << frac) - 1)
    if e == 0:
        v = Fraction(m, 1) * Fraction(2) ** (1 - bias - frac)
    else:
        v = Fraction(m + (1 << frac)) * Fraction(2) ** (e - bias - frac)
    return -v if bits >> 15 else v


def exponent(x):
    """floor(log2(x)) of a Fraction x > 0, exactly."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    if Fraction(2) ** (e + 1) <= x:
        e += 1
    return e


def round_bits(kind, text):
    """The bit pattern a line's number rounds to, or None beyond the
    largest finite value after rounding (refused)."""
    frac, ebits, bias = fields(kind)
    inf = ((1 << ebits) - 1) << frac
    body = text.strip()
    sign = 0x8000 if body.startswith("-") else 0
    body = body.lstrip("+-")
    if body.lower() in ("inf", "infinity"):
        return sign | inf
    if body.lower() == "nan":
        return sign | inf | (1 << (frac - 1))
    if body.lower().startswith("0x"):
        x = Fraction(float.fromhex(body))
    else:
        x = Fraction(body)
    if x == 0:
        return sign
    e = max(exponent(x), 1 - bias)          # subnormals share the least
    q = x / Fraction(2) ** (e - frac)       # significand, frac bits after
    n = q.numerator // q.denominator        # the point
    r = q - n
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2 == 1):
        n += 1
    if n == 1 << (frac + 1):                # carried into the next binade
        n >>= 1
        e += 1
    if e > bias:
        return None
    if n < 1 << frac:                       # subnormal (or zero)
        return sign | n
    return sign | ((e + bias) << frac) | (n - (1 << frac))


def cross_check(kind, pairs):
    """struct and NumPy agree on the (text, bits) pairs whose number is
    exactly a double (the others would be rounded twice)."""
    if kind != "f16":
        return
    exact = []
    for text, bits in pairs:
        body = text.strip()
        if "0x" in body.lower():
            d = float.fromhex(body)
        else:
            d = float(body)
            if (bits & 0x7c00) == 0x7c00 or Fraction(d) != Fraction(body):
                continue
        exact.append((text, d, bits))
        got = struct.unpack("<H", struct.pack("<e", d))[0]
        if got != bits:
            sys.exit("oracle: %r -> %#06x but struct says %#06x" % (text, bits, got))
    try:
        import numpy
    except ImportError:
        return
    got = numpy.array([d for _, d, _ in exact]).astype(numpy.float16).view(numpy.uint16)
    for (text, _, bits), g in zip(exact, got):
        if int(g) != bits:
            sys.exit("oracle: %r -> %#06x but numpy says %#06x" % (text, bits, g))


def order_key(bits):
    """totalOrder as an unsigned order (the sign-magnitude flip)."""
    return (~bits & 0xffff) if bits & 0x8000 else bits | 0x8000


def exact_text(x):
    """The exact decimal of a dyadic Fraction (finite)."""
    return format(Decimal(x.numerator) / Decimal(x.denominator), "f")


def tricky(kind, rng):
    frac, ebits, bias = fields(kind)
    top = ((1 << ebits) - 1) << frac        # +inf; below it, the finite ones
    lines = []
    picks = [rng.randrange(0, top - 1) for _ in range(300)]
    picks += [0, 1, 2, (1 << frac) - 1, 1 << frac, top - 2]
    for b in picks:
        lo, hi = value(kind, b), value(kind, b + 1)
        mid = (lo + hi) / 2
        tiny = (hi - lo) / 10 ** 30
        for sign in ("", "-"):
            lines.append(sign + exact_text(mid))                 # a tie
            lines.append(sign + repr(float(mid)))                # near it
            lines.append(sign + exact_text(mid + tiny))          # beyond a
            lines.append(sign + exact_text(mid - tiny))          # double
    largest = value(kind, top - 1)
    threshold = largest + (largest - value(kind, top - 2)) / 2
    lines += [exact_text(threshold - threshold / 10 ** 25),
              "-" + exact_text(threshold - threshold / 10 ** 25),
              repr(float(largest)), "-1e-300", "-0.0", "+0", "1e-300",
              "0x1p-3", "-0x1.8p1", "+2.5", "inf", "-inf", "nan", "-nan"]
    span = float(largest) if kind == "f16" else 1e6
    for _ in range(600):
        x = rng.uniform(-span, span) * 10.0 ** rng.randint(-12, 0)
        lines.append(rng.choice(["%.3g", "%.5g", "%.7e", "%.10f"]) % x)
    rng.shuffle(lines)
    return lines


def main():
    kind, out = sys.argv[1], sys.argv[2]
    rng = random.Random(20 if kind == "f16" else 21)
    frac, ebits, bias = fields(kind)
    top = ((1 << ebits) - 1) << frac
    every = [b for b in range(top)] + [b | 0x8000 for b in range(top)]
    rng.shuffle(every)
    lines = [repr(float(value(kind, b))) if b != 0x8000 else "-0.0" for b in every]
    lines += tricky(kind, rng)
    # The values themselves need no rounding: each line is their key.
    keyed = [(order_key(b), i, lines[i]) for i, b in enumerate(every)]
    checked = []
    for i in range(len(every), len(lines)):
        bits = round_bits(kind, lines[i])
        if bits is None:
            sys.exit("oracle: %r is out of range; it belongs in the refusals"
                     % lines[i])
        checked.append((lines[i], bits))
        keyed.append((order_key(bits), i, lines[i]))
    cross_check(kind, checked)
    asc = sorted(keyed)
    desc = sorted(keyed, key=lambda k: (-k[0], k[1]))
    uniq = [k for j, k in enumerate(asc) if j == 0 or asc[j - 1][0] != k[0]]
    for name, rows in (("in", [(0, 0, line) for line in lines]), ("asc", asc),
                       ("desc", desc), ("uniq", uniq)):
        with open("%s/%s" % (out, name), "w") as f:
            f.write("".join(row[2] + "\n" for row in rows))


if __name__ == "__main__":
    main()
