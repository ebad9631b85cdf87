#!/bin/sh
# Every bad input to portsort sort: the exit status, the message, no output
# file (not even a temporary one), and FILE exactly as it was.
. "${srcdir:-.}/test/cli/cli-common.sh"

# expect_fail STATUS MESSAGE-REGEX WHAT -- portsort-arguments...
# Runs portsort with the arguments; $work/d/in is FILE and $work/d/out the
# output, which must not appear.
expect_fail() {
    status=$1 msg=$2 what=$3
    shift 4
    cp "$work/d/in" "$work/in.orig"
    "$PORTSORT" "$@" >"$work/stdout" 2>"$work/stderr"
    rc=$?
    if [ "$rc" -ne "$status" ]; then
        fail "$what: exit status $rc, expected $status"
    elif ! grep -Eq "$msg" "$work/stderr"; then
        fail "$what: message '$(cat "$work/stderr")' does not match '$msg'"
    elif [ -e "$work/d/out" ] || [ -e "$work/d/vout" ]; then
        fail "$what: an output file appeared"
    elif ls -A "$work/d" | grep -q '^\.'; then
        fail "$what: a temporary file was left behind"
    elif ! cmp -s "$work/in.orig" "$work/d/in"; then
        fail "$what: FILE was changed"
    else
        echo "ok: $what ($(cat "$work/stderr"))"
    fi
}

mkdir "$work/d"
in=$work/d/in out=$work/d/out

printf '\001\002\003\004\005\006\007' >"$in"
expect_fail 1 'in: size 7 bytes is not a multiple of 4' "binary size not a multiple" -- \
    sort --binary --type u32 -o "$out" "$in"
expect_fail 1 'in: size 7 bytes is not a multiple of 4' "... also in place" -- \
    sort --binary --type f32 "$in"

expect_fail 1 'cannot open .*nosuch: No such file' "unreadable file" -- \
    sort --type u32 -o "$out" "$work/d/nosuch"
mkdir "$work/d/dir"
expect_fail 1 'dir: not a regular file' "a directory as FILE" -- \
    sort --type u32 -o "$out" "$work/d/dir"
rmdir "$work/d/dir"

printf '1\n2\nthree\n4\n' >"$in"
expect_fail 1 'in:3: not a valid i32 key \(not a number\): "three"' "unparsable line" -- \
    sort --text --type i32 -o "$out" "$in"
expect_fail 1 'in:3: not a valid i32 key' "unparsable line, in place" -- \
    sort --text --type i32 "$in"
printf '1\n\n2\n' >"$in"
expect_fail 1 'in:2: not a valid u32 key \(empty line\)' "empty line" -- \
    sort --text --type u32 "$in"
printf '1\n2 3\n' >"$in"
expect_fail 1 'in:2: not a valid f64 key \(not a number\)' "two numbers on a line" -- \
    sort --text --type f64 "$in"
printf '255\n256\n' >"$in"
expect_fail 1 'in:2: not a valid u8 key \(out of range' "out of range for u8" -- \
    sort --text --type u8 -o "$out" "$in"
printf '5\n-1\n' >"$in"
expect_fail 1 'in:2: not a valid u64 key \(out of range' "negative for an unsigned type" -- \
    sort --text --type u64 "$in"
printf '1\n9223372036854775808\n' >"$in"
expect_fail 1 'in:2: not a valid i64 key \(out of range' "beyond i64" -- \
    sort --text --type i64 "$in"
printf '1e39\n' >"$in"
expect_fail 1 'in:1: not a valid f32 key \(out of range' "beyond f32" -- \
    sort --text --type f32 "$in"
# Half precision: beyond the largest finite value after rounding (65504
# for f16: 65520 is the midpoint to the next power of two, which rounds up
# to infinity; about 3.3962e38 for bf16) is refused, inf itself is not.
# refused LINES MESSAGE-REGEX WHAT -- portsort-arguments: FILE holds LINES.
refused() {
    printf '%b' "$1" >"$in"
    shift
    expect_fail 1 "$@"
}
refused '1\ninf\n65519.99\n65520\n' \
    'in:4: not a valid f16 key \(out of range for the type\): "65520"' \
    "beyond f16 after rounding" -- sort --text --type f16 -o "$out" "$in"
refused '1\n-3.3895e38\n-3.3962e38\n' 'in:3: not a valid bf16 key \(out of range' \
    "beyond bf16 after rounding" -- sort --text --type bf16 "$in"
refused '0,1\n1,1e5\n' 'in:2: field 2 is not a valid f16 key \(out of range' \
    "beyond f16, a field" -- sort --type f16 -t, -k2 "$in"
refused '1\n1.5x\n' 'in:2: not a valid bf16 key \(not a number\)' "bf16 not a number" -- \
    sort --text --type bf16 "$in"
refused '1\n1e9x\n' 'in:2: not a valid f16 key \(not a number\)' \
    "f16: trailing junk, not range" -- sort --text --type f16 "$in"
printf '\001\002\003' >"$in"
expect_fail 1 'in: size 3 bytes is not a multiple of 2 \(the size of a bf16 key\)' \
    "binary bf16 of odd size" -- sort --binary --type bf16 -o "$out" "$in"

printf '\001\000\002\000\003\000' >"$in"
printf '0123456789' >"$work/d/vals"
cp "$work/d/vals" "$work/vals.orig"
expect_fail 1 'vals: size 10 bytes does not hold 3 values of 4 bytes' \
    "value file of the wrong length" -- \
    sort --binary --type u16 --values "$work/d/vals" --value-size 4 -o "$out" \
    --values-out "$work/d/vout" "$in"
expect_fail 1 'vals: size 10 bytes does not hold 3 values of 4 bytes' \
    "value file of the wrong length, in place" -- \
    sort --binary --type u16 --values "$work/d/vals" --value-size 4 --values-out "$work/d/vals" \
    -o "$in" "$in"
cmp -s "$work/vals.orig" "$work/d/vals" || fail "the value file was changed"
printf '3\n1\n' >"$in"
printf 'a\nb\nc\n' >"$work/d/vals"
expect_fail 1 'vals has 3 lines but .*in has 2 keys' "text value file of the wrong length" -- \
    sort --text --type u8 --values "$work/d/vals" --values-out "$work/d/vout" "$in"
rm -f "$work/d/vals"

printf '3\n1\n' >"$in"
expect_fail 1 'backend unavailable.*nosuch' "unknown backend" -- \
    sort --text --type u8 --backend nosuch -o "$out" "$in"
expect_fail 1 'cannot create a temporary file for .*nodir/out' "output directory missing" -- \
    sort --text --type u8 -o "$work/d/nodir/out" "$in"

expect_fail 2 'needs --type' "no --type" -- sort --binary "$in"
expect_fail 2 'needs --type' "--values without --type" -- \
    sort --values "$in" --values-out "$out" "$in"
expect_fail 2 'is for text, not --binary' "-k with --binary" -- \
    sort --binary --type u8 -k1 "$in"
expect_fail 2 'names one whole field' "two keys with --type" -- \
    sort --type u8 -k1 -k2 "$in"
expect_fail 2 "invalid key '0'.*field number is zero" "-k0" -- sort -k0 "$in"
expect_fail 2 "invalid key '1.0'.*character offset is zero" "-k1.0" -- sort -k1.0 "$in"
expect_fail 2 "invalid key '1x'.*stray character" "-k1x" -- sort -k1x "$in"
expect_fail 2 "incompatible" "-k1ng" -- sort -k1ng "$in"
expect_fail 2 "unknown type 'u128'" "unknown type" -- sort --type u128 "$in"
expect_fail 2 'needs --value-size' "--values without --value-size" -- \
    sort --binary --type u8 --values "$in" -o "$out" "$in"
expect_fail 2 'with text each value is a line' "--value-size with --text" -- \
    sort --text --type u8 --values "$work/d/nosuch" --value-size 4 "$in"
expect_fail 2 'different files' "keys and values in one file" -- \
    sort --binary --type u8 --values "$in" --value-size 1 --values-out "$work/d/vout" "$in"

# Two outputs that name one file, which does not exist yet, are refused
# before anything is written: the same name spelled twice, through a
# dangling symbolic link, and in --text mode (keys and values both landing
# in $out would leave only the values there).
printf '\003\000\000\000\001\000\000\000' >"$in"
printf 'AAAAAAAABBBBBBBB' >"$work/d/vals"
printf '3\n1\n' >"$work/d/txt"
printf 'c\na\n' >"$work/d/tvals"
expect_fail 2 'different files.*same file' "-o and --values-out: one new file, two spellings" -- \
    sort --binary --type u32 --values "$work/d/vals" --value-size 8 -o "$out" \
    --values-out "$work/d/../d/./out" "$in"
ln -s out "$work/d/link"
expect_fail 2 'different files.*same file' "-o through a dangling link to --values-out" -- \
    sort --binary --type u32 --values "$work/d/vals" --value-size 8 -o "$work/d/link" \
    --values-out "$out" "$in"
ln -s "$work/d/link" "$work/d/link2"
expect_fail 2 'different files.*same file' "... through two links" -- \
    sort --binary --type u32 --values "$work/d/vals" --value-size 8 -o "$work/d/link2" \
    --values-out "$out" "$in"
expect_fail 2 'different files.*same file' "... in --text mode" -- \
    sort --text --type u32 --values "$work/d/tvals" -o "$out" --values-out "$work/d/link" \
    "$work/d/txt"
abs=$(cd "$(dirname "$PORTSORT")" && pwd)/portsort
(cd "$work/d" && "$abs" sort --text --type u32 --values tvals -o out \
    --values-out "$work/d/out" txt) 2>"$work/stderr"
rc=$?
if [ "$rc" -ne 2 ] || [ -e "$out" ]; then
    fail "a relative and an absolute name of one new file: exit $rc, $(cat "$work/stderr")"
else
    echo "ok: a relative and an absolute name of one new file"
fi
rm -f "$work/d/link" "$work/d/link2" "$work/d/vals" "$work/d/txt" "$work/d/tvals"
finish
