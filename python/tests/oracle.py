"""Independent answers to compare portsort with: NumPy's stable argsort on
an unsigned key whose order is the order libportsort promises."""

import numpy as np

INT_TYPES = [np.uint8, np.uint16, np.uint32, np.uint64,
             np.int8, np.int16, np.int32, np.int64]
FLOAT_TYPES = [np.float32, np.float64]
HALF_TYPES = [np.float16]   # bfloat16 comes as uint16 words (bf16_words)
SIZES = [0, 1, 2, 17, 1000, 100003]
PATTERNS = ["random", "duplicated", "sorted", "reversed"]


def unsigned_of(dtype):
    return np.dtype("u%d" % np.dtype(dtype).itemsize)


def order_key(a, kind=None):
    """Unsigned integers in the same order as a's values: totalOrder for
    floats (flip every bit when the sign bit is set, else the sign bit
    only), value order for signed integers (flip the sign bit).  kind
    ("u", "i" or "f") overrides a.dtype.kind: "f" for bfloat16 words."""
    u = a.view(unsigned_of(a.dtype))
    sign = u.dtype.type(1) << u.dtype.type(8 * u.dtype.itemsize - 1)
    kind = kind or a.dtype.kind
    if kind == "u":
        return u.copy()
    if kind == "i":
        return u ^ sign
    return np.where(u & sign, ~u, u | sign).astype(u.dtype)


def stable_perm(a, descending=False, kind=None):
    """The stable sorting permutation: ~key reverses the order of keys
    without reversing ties, so equal keys keep their input order in both
    directions."""
    key = order_key(a, kind)
    return np.argsort(~key if descending else key, kind="stable")


def make_keys(dtype, n, pattern, seed=12345):
    """n keys of dtype shaped as pattern; deterministic."""
    rng = np.random.default_rng(seed + n)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        a = rng.standard_normal(n).astype(dtype) * 1000
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    if pattern == "duplicated":
        a = a[rng.integers(0, min(7, n), n)] if n else a
    elif pattern == "sorted":
        a = np.sort(a, kind="stable")
    elif pattern == "reversed":
        a = np.sort(a, kind="stable")[::-1].copy()
    return np.ascontiguousarray(a)


def float_specials(dtype):
    """NaNs of both signs (quiet, signalling, payloads), +-0, +-inf, the
    extremes and denormals, as a float array."""
    dtype = np.dtype(dtype)
    u = unsigned_of(dtype).type
    if dtype.itemsize == 2:
        bits = [0x7e00, 0xfe00, 0x7c01, 0xfc01, 0x7e55, 0xffff, 0x7c00,
                0xfc00, 0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x7bff,
                0xfbff, 0x3c00, 0xbc00]
    elif dtype.itemsize == 4:
        bits = [0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fc01234,
                0xffffffff, 0x7f800000, 0xff800000, 0x00000000, 0x80000000,
                0x00000001, 0x80000001, 0x7f7fffff, 0xff7fffff, 0x3f800000,
                0xbf800000]
    else:
        bits = [0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001,
                0xfff0000000000001, 0x7ff8000000001234, 0xffffffffffffffff,
                0x7ff0000000000000, 0xfff0000000000000, 0, 0x8000000000000000,
                1, 0x8000000000000001, 0x7fefffffffffffff,
                0xffefffffffffffff, 0x3ff0000000000000, 0xbff0000000000000]
    return np.array([u(b) for b in bits]).view(dtype)


def make_floats(dtype, n, pattern, seed=777):
    """Keys with the special values scattered through them."""
    a = make_keys(dtype, n, pattern, seed)
    if n:
        rng = np.random.default_rng(seed + 2 * n)
        specials = float_specials(dtype)
        where = rng.integers(0, n, max(1, n // 8))
        a[where] = specials[rng.integers(0, len(specials), len(where))]
    return a


BF16_SPECIALS = [0x7fc0, 0xffc0, 0x7f81, 0xff81, 0x7fd5, 0xffff, 0x7f80,
                 0xff80, 0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x7f7f,
                 0xff7f, 0x3f80, 0xbf80]


def bf16_words(n, pattern, seed=4242):
    """bfloat16 keys as uint16 words: the top halves of float32 keys of the
    pattern, with the bfloat16 specials scattered through them."""
    f = make_keys(np.float32, n, pattern, seed)
    words = (f.view(np.uint32) >> 16).astype(np.uint16)
    if n:
        rng = np.random.default_rng(seed + 2 * n)
        where = rng.integers(0, n, max(1, n // 8))
        words[where] = np.array(BF16_SPECIALS, np.uint16)[
            rng.integers(0, len(BF16_SPECIALS), len(where))]
    return words


def bf16_values(words):
    """The float32 values of bfloat16 words (exact: bfloat16 is the top
    half of a binary32)."""
    return (words.astype(np.uint32) << 16).view(np.float32)


def same_bits(x, y):
    """Equal as bytes (NaN payloads and -0.0 included)."""
    return x.shape == y.shape and x.tobytes() == y.tobytes()
