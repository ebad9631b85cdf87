#!/bin/sh
# portsort sort as a filter in the manner of sort(1): standard input and
# output, several inputs, -o naming an input, whole lines sorted by a field
# (-t, -k) against GNU sort, -c, -u, --skip-bad, and the refusals.
. "${srcdir:-.}/test/cli/cli-common.sh"
need_cmd awk
sort --version 2>/dev/null | grep -q GNU || { echo "GNU sort not found: skipped"; exit 77; }

# Pipes: no FILE reads standard input, the output is standard output.
printf '3\n1\n2\n' | "$PORTSORT" sort --text --type u32 >"$work/got"
printf '1\n2\n3\n' >"$work/want"
same "$work/want" "$work/got" "a pipe in, standard output out"

# Several inputs are concatenated, "-" among them; a last line without its
# newline does not run into the next input's first line.
printf '5\n-2' >"$work/a"
printf '7\n0\n' >"$work/b"
printf '4\n-9\n' >"$work/c"
printf -- '-9\n-2\n0\n4\n5\n7\n' >"$work/want"
"$PORTSORT" sort --text --type i8 "$work/a" - "$work/b" <"$work/c" >"$work/got"
same "$work/want" "$work/got" "FILE - FILE: concatenated"
# -o naming one of the inputs: it is read whole before it is replaced.
"$PORTSORT" sort --text --type i8 -o "$work/b" "$work/a" "$work/b" "$work/c"
printf -- '-9\n-2\n0\n4\n5\n7\n' >"$work/want"
same "$work/want" "$work/b" "-o naming an input"

# CSV of 120000 lines (several MiB, so the parse and the output are split
# across threads): negative numbers, exponents, a leading +, blanks, ties,
# CRLF lines, and the key as the last field of some lines.
awk 'BEGIN { srand(21); for (i = 0; i < 120000; i++) {
        if (i % 5 == 0) f = int(rand() * 50) - 25;       # ties
        else if (i % 5 == 1) f = sprintf("%.6e", (rand() - 0.5) * 1e6);
        else if (i % 5 == 2) f = sprintf("%.4g", (rand() - 0.5) * 1e-3);
        else if (i % 5 == 3) f = sprintf("+%.3f", rand() * 100);
        else f = sprintf(" %.9g", (rand() - 0.5) * 1e12);
        d = int((rand() - 0.5) * 2e9); if (i % 7 == 0) d = int(rand() * 10);
        if (i % 3 == 0) printf "%d,n%d,%s\r\n", i, i % 97, f;
        else printf "%d,n%d,%s,%d,tail\n", i, i % 97, f, d } }' >"$work/f.csv"
sort -s -t, -k3,3g "$work/f.csv" >"$work/want"
"$PORTSORT" sort --type f64 -t, -k3 "$work/f.csv" >"$work/got"
same "$work/want" "$work/got" "CSV by field 3 as f64 = sort -s -t, -k3,3g"
sort -s -t, -k3,3gr "$work/f.csv" >"$work/want"
"$PORTSORT" sort --type f64 -t, -k3,3 -r "$work/f.csv" >"$work/got"
same "$work/want" "$work/got" "CSV by field 3, -r: stable descending = sort -s -k3,3gr"
sort -u -t, -k3,3g "$work/f.csv" >"$work/want"
"$PORTSORT" sort --type f64 -t, -k3 -u "$work/f.csv" >"$work/got"
same "$work/want" "$work/got" "CSV -u: first of each run of equal keys = sort -u"
# Integers (field 4, on the lines that have it) against sort -n.
grep tail "$work/f.csv" >"$work/i.csv"
sort -s -t, -k4,4n "$work/i.csv" >"$work/want"
"$PORTSORT" sort --type i32 --field-separator=, --key=4 "$work/i.csv" >"$work/got"
same "$work/want" "$work/got" "CSV by field 4 as i32 = sort -s -t, -k4,4n"
"$PORTSORT" sort --type i64 -t, -k4 -o "$work/i.csv" "$work/i.csv" &&
    same "$work/want" "$work/i.csv" "CSV sorted in place with -o FILE FILE"
# Without -t, fields are separated by runs of blanks, as in sort(1).
awk -F, '{ printf "  %s\t %s  %s\n", $2, $3, $1 }' "$work/f.csv" | tr -d '\r' >"$work/blank"
sort -s -k2,2g "$work/blank" >"$work/want"
"$PORTSORT" sort --type f64 -k 2 "$work/blank" >"$work/got"
same "$work/want" "$work/got" "fields split at blanks = sort -s -k2,2g"

# -c: sorted, and not; the message is sort(1)'s.
"$PORTSORT" sort --type f64 -t, -k3 -c "$work/got" 2>/dev/null &&
    fail "-c on unsorted input exits 0"
"$PORTSORT" sort --type f64 -k2 -c "$work/got" && echo "ok: -c on sorted input" ||
    fail "-c on sorted input"
printf '1\n2\n2\n10\n3\n' >"$work/c1"
"$PORTSORT" sort --type u32 -c <"$work/c1" 2>"$work/err"
rc=$?
sort -g -c <"$work/c1" 2>&1 | sed 's/^sort/portsort/' >"$work/want"
[ "$rc" -eq 1 ] && same "$work/want" "$work/err" "-c: exit 1 and sort's message" ||
    fail "-c exit status $rc"
"$PORTSORT" sort --type u32 -c -u -o /dev/null "$work/c1" 2>/dev/null
[ $? -eq 2 ] || fail "-c -o is refused as bad usage"
printf '1\n2\n2\n' | "$PORTSORT" sort --type u32 -cu 2>"$work/err"
[ $? -eq 1 ] && grep -q ':3: disorder: 2' "$work/err" && echo "ok: -cu: a repeat is disorder" ||
    fail "-cu: a repeated key is disorder"
printf '3\n2\n2\n' | "$PORTSORT" sort --type u32 -c -r && echo "ok: -c -r" || fail "-c -r"

# Refusals name the input and its line; --skip-bad keeps those lines, in
# order, at the end.
printf '1,a,2.5\n2,b,oops\n3,c\n4,d,-1\n' >"$work/bad.csv"
printf '9,z,1\n' >"$work/ok.csv"
"$PORTSORT" sort --type f64 -t, -k3 "$work/ok.csv" "$work/bad.csv" >"$work/got" 2>"$work/err"
[ $? -eq 1 ] && grep -q 'bad.csv:2: field 3 is not a valid f64 key (not a number): "2,b,oops"' \
    "$work/err" && [ ! -s "$work/got" ] && echo "ok: refused with the file and line" ||
    fail "bad field refused: $(cat "$work/err")"
printf '4,d,-1\n9,z,1\n1,a,2.5\n2,b,oops\n3,c\n' >"$work/want"
"$PORTSORT" sort --type f64 -t, -k3 --skip-bad "$work/ok.csv" - <"$work/bad.csv" \
    >"$work/got" 2>"$work/err"
same "$work/want" "$work/got" "--skip-bad: bad lines last, in input order"
grep -q '2 lines without a valid f64 key were put at the end' "$work/err" ||
    fail "--skip-bad counts the lines on stderr: $(cat "$work/err")"
printf '1\n2\n' | "$PORTSORT" sort --type u8 -k2 2>"$work/err"
grep -q -- '-:1: field 2 is not a valid u8 key (no such field)' "$work/err" ||
    fail "a missing field is refused: $(cat "$work/err")"

# Nothing written on failure, even with -o naming the input.
cp "$work/bad.csv" "$work/bad.orig"
"$PORTSORT" sort --type f64 -t, -k3 -o "$work/bad.csv" "$work/bad.csv" 2>/dev/null
cmp -s "$work/bad.orig" "$work/bad.csv" && [ -z "$(ls -A "$work" | grep '^\.')" ] &&
    echo "ok: a failed -o FILE FILE leaves FILE alone" || fail "failed run changed FILE"
"$PORTSORT" sort --type f64 -t, -k3 -o "$work/new" "$work/bad.csv" 2>/dev/null
[ -e "$work/new" ] && fail "a failed run created its output"
if [ -w /dev/full ]; then
    "$PORTSORT" sort --type u8 -o /dev/full "$work/c1" 2>"$work/err"
    [ $? -eq 1 ] && grep -q 'No space left' "$work/err" && echo "ok: /dev/full reported" ||
        fail "/dev/full: $(cat "$work/err")"
fi

# Bad usage: exit 2.
for args in "-k 2,3" "-k 0" "-t ab" "-k x"; do
    # shellcheck disable=SC2086
    "$PORTSORT" sort --type u8 $args "$work/c1" >/dev/null 2>&1
    [ $? -eq 2 ] || fail "'$args' is bad usage"
done
finish
