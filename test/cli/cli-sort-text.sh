#!/bin/sh
# portsort sort --text against GNU sort -n / sort -g on generated columns:
# integers, negative numbers, exponents, and the float corner cases.
. "${srcdir:-.}/test/cli/cli-common.sh"
need_cmd awk
need_cmd perl
sort --version 2>/dev/null | grep -q GNU || { echo "GNU sort not found: skipped"; exit 77; }

# check TYPE SORTFLAGS FILE [PORTSORT-FLAGS]: sort FILE both ways and compare.
check() {
    t=$1 flags=$2 f=$3
    shift 3
    sort $flags "$f" >"$work/want"
    if "$PORTSORT" sort --text --type "$t" "$@" -o "$work/got" "$f"; then
        same "$work/want" "$work/got" "$t $* $(basename "$f") = sort $flags"
    else
        fail "portsort sort --text --type $t $* $(basename "$f")"
    fi
}

# Signed integers, many negative, with duplicates (stability is invisible
# here: equal numbers are equal lines).
awk 'BEGIN { srand(7); for (i = 0; i < 3000; i++)
     printf "%d\n", int((rand() - 0.5) * 2e9) }' >"$work/i32"
check i32 -n "$work/i32"
check i64 -n "$work/i32"
check i32 -nr "$work/i32" --descending
awk 'BEGIN { srand(8); for (i = 0; i < 2000; i++) printf "%d\n", int(rand() * 256) - 128 }' \
    >"$work/i8"
check i8 -n "$work/i8"
awk 'BEGIN { srand(9); for (i = 0; i < 2000; i++) printf "%d\n", int(rand() * 65536) }' \
    >"$work/u16"
check u16 -n "$work/u16"
# 64-bit extremes, beyond what awk's doubles hold exactly.
perl -e 'srand(10); for (1..2000) { printf "%u\n", (int(rand(2**32)) << 32) | int(rand(2**32)) }
         print "0\n18446744073709551615\n9223372036854775808\n"' >"$work/u64"
check u64 -n "$work/u64"
perl -e 'srand(11); for (1..2000) { printf "%d\n", ((int(rand(2**32)) << 32) | int(rand(2**32))) }
         print "-9223372036854775808\n9223372036854775807\n0\n-1\n"' >"$work/i64"
check i64 -n "$work/i64"

# Floats with exponents, written as a person might; portsort writes each
# value back in its shortest %g form, so the reference is the input passed
# through the same printf.  15 (f64) or 6 (f32) significant digits at most,
# so that form is the one the input means.
awk 'BEGIN { srand(12); for (i = 0; i < 3000; i++) {
         m = int(rand() * 1e6) / 1e3; if (rand() < 0.5) m = -m;
         e = int(rand() * 600) - 300; if (m == 0) m = 1;
         if (i % 3 == 0) printf "%se%d\n", m, e;
         else if (i % 3 == 1) printf "%.4E\n", m * 10 ^ (e % 20);
         else printf "%s\n", m } }' >"$work/f64.raw"
awk '{ printf "%.15g\n", $1 }' "$work/f64.raw" >"$work/f64"
check f64 -g "$work/f64"
check f64 -gr "$work/f64" --descending
# The lines come out as they went in (sort -s keeps equal values in input
# order, as portsort always does).
sort -s -g "$work/f64.raw" >"$work/want"
"$PORTSORT" sort --text --type f64 -o "$work/got" "$work/f64.raw" &&
    same "$work/want" "$work/got" "f64 exponent forms read as sort -g reads them"
awk 'BEGIN { srand(13); for (i = 0; i < 3000; i++) {
         m = int(rand() * 1e5) / 1e2; if (rand() < 0.5) m = -m; if (m == 0) m = 2;
         printf "%se%d\n", m, int(rand() * 60) - 30 } }' >"$work/f32.raw"
awk '{ printf "%.6g\n", $1 }' "$work/f32.raw" >"$work/f32"
check f32 -g "$work/f32"

# Corner cases by hand: signed zeros (totalOrder: -0 before 0), infinities,
# NaNs at the ends by their sign, a denormal, hex floats, blanks, a CRLF line
# and a last line without its newline (which gets one).  The lines are
# written as they were read, not reformatted.
printf '0\n-0.0\n  2.5 \n-inf\nnan\n1e-310\n0x1p3\n-nan\ninf\n-1e308\r\n7' >"$work/corner"
printf -- '-nan\n-inf\n-1e308\r\n-0.0\n0\n1e-310\n  2.5 \n7\n0x1p3\ninf\nnan\n' >"$work/want"
"$PORTSORT" sort --text --type f64 -o "$work/got" "$work/corner" &&
    same "$work/want" "$work/got" "f64 corner cases in totalOrder"
printf -- 'nan\ninf\n0x1p3\n7\n  2.5 \n1e-310\n0\n-0.0\n-1e308\r\n-inf\n-nan\n' >"$work/want"
"$PORTSORT" sort --text --type f64 --descending -o "$work/got" "$work/corner" &&
    same "$work/want" "$work/got" "f64 corner cases, descending"
# f32 keys are rounded to f32: 16777217 is 16777216, the same key (-u keeps
# the first of the two).
printf '0.1\n16777217\n3.4028235e38\n1e-45\n16777216\n-0\n' >"$work/c32"
printf -- '-0\n1e-45\n0.1\n16777217\n16777216\n3.4028235e38\n' >"$work/want"
"$PORTSORT" sort --text --type f32 -o "$work/got" "$work/c32" &&
    same "$work/want" "$work/got" "f32 rounding, denormals and the largest float"
grep -v '^16777216$' "$work/want" >"$work/want.u"
"$PORTSORT" sort --type f32 -u "$work/c32" >"$work/got" &&
    same "$work/want.u" "$work/got" "f32 -u: keys equal after rounding are one"

# f16 and bf16: every finite value once, then numbers hard to round (ties,
# digits beyond a double's precision, subnormals, near the overflow
# threshold), against an exact oracle in Python that checks itself against
# struct and numpy.float16 where it can.  A line rounded to a neighbour of
# its key sits beside the wrong line, so the stable order shows it.
python=
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$p" ] && "$p" -c 'import fractions' >/dev/null 2>&1 || continue
    [ -z "$python" ] && python=$p
    "$p" -c 'import numpy' >/dev/null 2>&1 && { python=$p; break; }
done
if [ -n "$python" ]; then
    for t in f16 bf16; do
        mkdir -p "$work/$t"
        "$python" "${srcdir:-.}/test/cli/cli-half-oracle.py" "$t" "$work/$t" ||
            { fail "$t: the oracle"; continue; }
        "$PORTSORT" sort --text --type "$t" -o "$work/got" "$work/$t/in" &&
            same "$work/$t/asc" "$work/got" "$t: $(wc -l <"$work/$t/in") numbers rounded to nearest, ties to even"
        "$PORTSORT" sort --text --type "$t" -r -o "$work/got" "$work/$t/in" &&
            same "$work/$t/desc" "$work/got" "$t descending"
        "$PORTSORT" sort --type "$t" -u -o "$work/got" "$work/$t/in" &&
            same "$work/$t/uniq" "$work/got" "$t -u: one line per rounded key"
        "$PORTSORT" sort --type "$t" -c "$work/$t/asc" && "$PORTSORT" sort --type "$t" -c -u \
            "$work/$t/uniq" && ! "$PORTSORT" sort --type "$t" -c -u "$work/$t/asc" 2>/dev/null &&
            ! "$PORTSORT" sort --type "$t" -c "$work/$t/in" 2>/dev/null &&
            echo "ok: $t -c" || fail "$t -c: sorted and unsorted inputs told apart"
    done
else
    echo "no python3: the f16/bf16 rounding oracle is skipped"
fi
# By hand: 1 + 2^-11 ties to 1 in f16, a digit past a double's precision
# takes it up (a double rounding would not); 2^-25 ties to 0; 65519.99 is
# 65504, the largest f16.  Sorted stably, equal keys in input order.
printf '1.00048828125000000000001
1.00048828125
1
2.98023223876953125e-8
-0
65519.99
65504
3e-8
0
'     >"$work/h16"
printf -- '-0
2.98023223876953125e-8
0
3e-8
1.00048828125
1
1.00048828125000000000001
65519.99
65504
'     >"$work/want"
"$PORTSORT" sort --text --type f16 -o "$work/got" "$work/h16" &&
    same "$work/want" "$work/got" "f16 ties to even, and no double rounding"
# NaNs from text: quiet, their sign kept, a payload that fits kept (larger
# payloads further out), one that does not fit dropped.
printf 'nan(0x55)
nan
-nan(0x3)
-nan
nan(0xfffff)
' >"$work/hnan"
printf -- '-nan(0x3)
-nan
nan
nan(0xfffff)
nan(0x55)
' >"$work/want"
"$PORTSORT" sort --text --type f16 -o "$work/got" "$work/hnan" &&
    same "$work/want" "$work/got" "f16 NaNs from text, with payloads"
# --skip-bad: a number beyond the range is a bad line like any other.
printf '2
7e4
-1
1e5
' | "$PORTSORT" sort --type f16 -k1 --skip-bad >"$work/got" 2>"$work/err"
printf -- '-1
2
7e4
1e5
' >"$work/want"
same "$work/want" "$work/got" "f16 --skip-bad puts out-of-range lines last"
grep -q '2 lines without a valid f16 key were put at the end' "$work/err" ||
    fail "f16 --skip-bad counts them: $(cat "$work/err")"

# No -o: standard output, and FILE is only read (it used to be rewritten in
# place).  -o naming the input sorts it in place, safely.
printf '3\n1\n2\n' >"$work/inplace"
cp "$work/inplace" "$work/inplace.orig"
printf '1\n2\n3\n' >"$work/want"
"$PORTSORT" sort --text --type u8 "$work/inplace" >"$work/got" &&
    same "$work/want" "$work/got" "no -o: to standard output" &&
    same "$work/inplace.orig" "$work/inplace" "no -o: FILE left as it was"
"$PORTSORT" sort --text --type u8 -o "$work/inplace" "$work/inplace" &&
    same "$work/want" "$work/inplace" "sorting in place with -o FILE FILE"
# Through a symbolic link: the file it points to is replaced, the link stays.
printf '3\n1\n2\n' >"$work/target"
ln -s target "$work/link"
"$PORTSORT" sort --text --type u8 -o "$work/link" "$work/link" && [ -L "$work/link" ] &&
    same "$work/want" "$work/target" "sorting through a symlink keeps the link" ||
    fail "sorting through a symlink keeps the link"
# Standard output: "-", or a link into /proc such as /dev/stdout (made here,
# so that a regression cannot replace the system's /dev/stdout), is written
# straight through, never renamed over, even when stdout is a regular file.
ln -s /proc/self/fd/1 "$work/stdout-link"
"$PORTSORT" sort --text --type u8 -o - "$work/target" >"$work/got" &&
    same "$work/want" "$work/got" "-o - writes to standard output"
if [ -e /proc/self/fd/1 ]; then
    "$PORTSORT" sort --text --type u8 -o "$work/stdout-link" "$work/target" >"$work/got" &&
        [ -L "$work/stdout-link" ] && same "$work/want" "$work/got" "-o LINK-TO-/proc/self/fd/1" ||
        fail "-o through a link to /proc/self/fd/1 writes stdout and keeps the link"
fi
# An empty file is sorted too.
: >"$work/empty"
"$PORTSORT" sort --text --type u32 -o "$work/got" "$work/empty" && [ ! -s "$work/got" ] ||
    fail "an empty file sorts to an empty file"

# Text pairs: a line of the values file moves with its key, stably.
printf '2\n1\n2\n1\n0\n' >"$work/k"
printf 'b first\na first\nb second\na second\nzero\n' >"$work/v"
printf 'zero\na first\na second\nb first\nb second\n' >"$work/want"
"$PORTSORT" sort --text --type i16 --values "$work/v" --values-out "$work/vout" \
    -o "$work/kout" "$work/k" && same "$work/want" "$work/vout" "text pairs, stable"
printf '0
1
1
2
2
' >"$work/want"
same "$work/want" "$work/kout" "text pairs: the keys"
printf 'b first\nb second\na first\na second\nzero\n' >"$work/want"
"$PORTSORT" sort --text --type i16 --descending --values "$work/v" --values-out "$work/vout" \
    -o "$work/kout" "$work/k" && same "$work/want" "$work/vout" "text pairs, descending, stable"
finish
