#!/bin/sh
# portsort sort --binary -S SIZE: inputs many times the buffer sorted in
# runs through temporary files and merged (tools/cli/ps_cli_external.c),
# checked byte for byte against the in-memory sort of the same input (which
# cli-sort-binary.sh checks against an oracle): every type, both
# directions, merges of 16, 3 and 2 runs at a time, several -T
# directories, keys with --values (stable), several inputs with a key
# across two of them, standard input, the output as an input; text with
# --type (CSV fields, -z, --skip-bad, -u, a bad key's line number, inputs
# without a last newline, a line longer than a run); text with --type and
# --values (the value lines with their keys, stable, mismatched counts as
# in memory); text without --type
# (sort(1)'s keys: whole lines, -k sets with b n g r, -t, -s, -u, -r, -z,
# several inputs, merges of 2); -c and -C checked a block at a time;
# --head K through the external sort.  The temporary files never outlive
# a run, and a failure (a write error, a signal, a missing directory)
# leaves the output as it was.
. "${srcdir:-.}/test/cli/cli-common.sh"
need_cmd perl

# 2 MiB of deterministic random bits: 64 runs of a 64K buffer (32K each).
perl -e 'srand(2026); print pack("L<", int(rand(2**32))) for 1 .. 524288' \
    >"$work/in.bin"
t1=$work/t1; t2=$work/t2
mkdir "$t1" "$t2"

empty_tmp() {   # WHAT
    [ -z "$(ls -A "$t1")$(ls -A "$t2")" ] || fail "$1: temporary files left behind"
}

for ty in u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64; do
    for dir in "" -r; do
        "$PORTSORT" sort --binary --type $ty $dir -o "$work/want" "$work/in.bin" ||
            fail "$ty $dir: the in-memory sort failed"
        "$PORTSORT" sort --binary --type $ty $dir -S 64K -T "$t1" \
            -o "$work/got" "$work/in.bin" || fail "$ty $dir -S 64K: exit $?"
        same "$work/want" "$work/got" "$ty $dir: -S 64K as in memory"
    done
done
empty_tmp "every type"

# Two runs a merge (six passes) over two directories taken in turn.
"$PORTSORT" sort --binary --type f64 -o "$work/want" "$work/in.bin"
"$PORTSORT" sort --binary --type f64 -S 64K -T "$t1" -T "$t2" --batch-size 2 \
    -o "$work/got" "$work/in.bin" || fail "--batch-size 2: exit $?"
same "$work/want" "$work/got" "f64 --batch-size 2, two -T"
empty_tmp "--batch-size 2"

# With --values: i16 keys (many equal: the order of their values shows
# whether the runs and the merges are stable), values of 8 bytes (moved
# by the library natively) and 5 (its index route), both directions.
perl -e 'srand(7); print pack("C*", map { int(rand(256)) } 1 .. 4194320)' \
    >"$work/vals.bin"
for vs in 8 5; do
    head -c $((524288 * 2)) "$work/in.bin" >"$work/k16.bin"
    head -c $((524288 * vs)) "$work/vals.bin" >"$work/v.bin"
    for dir in "" -r; do
        "$PORTSORT" sort --binary --type i16 $dir --values "$work/v.bin" \
            --value-size $vs --values-out "$work/vwant" -o "$work/want" \
            "$work/k16.bin" || fail "i16 values $vs $dir: in memory, exit $?"
        "$PORTSORT" sort --binary --type i16 $dir --values "$work/v.bin" \
            --value-size $vs --values-out "$work/vgot" -o "$work/got" \
            -S 64K -T "$t1" --batch-size 3 "$work/k16.bin" ||
            fail "i16 values $vs $dir -S 64K: exit $?"
        same "$work/want" "$work/got" "i16 $dir with $vs-byte values: keys"
        same "$work/vwant" "$work/vgot" "i16 $dir with $vs-byte values: values, stable"
    done
done
empty_tmp "--values"
# Values that do not match the keys' count: refused, outputs kept.
printf 'old output\n' >"$work/vout"
cp "$work/vout" "$work/vout.was"
for cut in -1 +1; do
    head -c $((524288 * 8 $cut)) "$work/vals.bin" >"$work/v.bin"
    "$PORTSORT" sort --binary --type i16 --values "$work/v.bin" --value-size 8 \
        --values-out "$work/vout" -o "$work/vout2" -S 64K -T "$t1" \
        "$work/k16.bin" 2>"$work/err" && fail "values $cut bytes: exit 0"
    grep -q "values than there are keys" "$work/err" ||
        { cat "$work/err"; fail "values $cut bytes: not said"; }
    same "$work/vout.was" "$work/vout" "values $cut bytes: the values' output kept"
    [ -e "$work/vout2" ] && fail "values $cut bytes: a keys' output written"
done
empty_tmp "mismatched values"

# Several inputs, the second from standard input, a key across the cut;
# then the output replacing one of its inputs.
head -c 1000001 "$work/in.bin" >"$work/a.bin"
tail -c +1000002 "$work/in.bin" >"$work/b.bin"
"$PORTSORT" sort --binary --type u64 -o "$work/want" "$work/in.bin"
"$PORTSORT" sort --binary --type u64 -S 100K -T "$t1" -o "$work/got" \
    "$work/a.bin" - <"$work/b.bin" || fail "two inputs: exit $?"
same "$work/want" "$work/got" "u64 from a file and standard input, a key across them"
cp "$work/in.bin" "$work/self.bin"
"$PORTSORT" sort --binary --type u64 -S 100K -T "$t1" -o "$work/self.bin" \
    "$work/self.bin" || fail "-o an input: exit $?"
same "$work/want" "$work/self.bin" "u64 -o its own input"

# Failures leave the output as it was and no temporary file.
printf 'old output\n' >"$work/out"
cp "$work/out" "$work/out.was"
"$PORTSORT" sort --binary --type u32 -S 64K -T "$work/missing" -o "$work/out" \
    "$work/in.bin" 2>"$work/err" && fail "a missing -T directory: exit 0"
grep -q "cannot create a temporary file in $work/missing" "$work/err" ||
    { cat "$work/err"; fail "a missing -T directory: not said"; }
same "$work/out.was" "$work/out" "a missing -T directory: the output kept"
for fault in write:3 write:40 write:3:TERM write:40:INT; do
    PORTSORT_TEST_FAIL_IO=$fault $sigdefault "$PORTSORT" sort --binary --type u32 -S 64K \
        -T "$t1" -o "$work/out" "$work/in.bin" 2>"$work/err" &&
        fail "$fault: exit 0"
    same "$work/out.was" "$work/out" "$fault: the output kept"
    empty_tmp "$fault"
done
head -c 4099 "$work/in.bin" | "$PORTSORT" sort --binary --type u64 -S 64K \
    -T "$t1" -o "$work/out" 2>"$work/err" && fail "a partial key: exit 0"
grep -q "not a multiple of 8" "$work/err" || fail "a partial key: not said"
same "$work/out.was" "$work/out" "a partial key: the output kept"

# Text with --type: CSV by a float field, both directions, runs of 16K
# (about 40 of them) merged 3 at a time, against the in-memory sort.
awk 'BEGIN { srand(5); for (i = 0; i < 30000; i++)
    printf "%d,%s,%.6g\n", i, (i % 7 ? "x" : "y"), (rand() - 0.5) * 1e6 }' \
    >"$work/t.csv"
for dir in "" -r; do
    "$PORTSORT" sort --type f64 -t, -k3 $dir -o "$work/want" "$work/t.csv" ||
        fail "csv $dir: in memory, exit $?"
    "$PORTSORT" sort --type f64 -t, -k3 $dir -S 64K -T "$t1" --batch-size 3 \
        -o "$work/got" "$work/t.csv" || fail "csv $dir -S 64K: exit $?"
    same "$work/want" "$work/got" "text f64 -t, -k3 $dir: -S 64K as in memory"
done
# A line without a valid key far into the input: refused at the same line
# as in memory; with --skip-bad put last, as in memory; -z lines.
awk 'BEGIN { srand(6); for (i = 1; i <= 30000; i++)
    if (i == 25000) print "bad,zz"; else printf "%d,%d\n", i, int((rand() - 0.5) * 1e9) }' \
    >"$work/t2.csv"
"$PORTSORT" sort --type i32 -t, -k2 -o "$work/want" "$work/t2.csv" 2>"$work/err1"
"$PORTSORT" sort --type i32 -t, -k2 -S 64K -T "$t1" -o "$work/got" \
    "$work/t2.csv" 2>"$work/err2" && fail "a bad key with -S: exit 0"
grep -q ":25000: " "$work/err2" || fail "a bad key with -S: not at line 25000"
same "$work/err1" "$work/err2" "a bad key at line 25000: the same message with -S"
"$PORTSORT" sort --type i32 -t, -k2 --skip-bad -r -o "$work/want" "$work/t2.csv" \
    2>/dev/null
"$PORTSORT" sort --type i32 -t, -k2 --skip-bad -r -S 64K -T "$t1" -o "$work/got" \
    "$work/t2.csv" 2>"$work/err" || fail "--skip-bad -S: exit $?"
same "$work/want" "$work/got" "--skip-bad -r: the bad line last, as in memory"
grep -q "1 line without a valid i32 key was put at the end" "$work/err" ||
    fail "--skip-bad -S: the bad line not reported once"
# -u: 500 distinct keys among 30000 lines (and, with --skip-bad, lines
# without a key, all kept): the first line of each key, as in memory,
# though equal keys meet across runs.
awk 'BEGIN { srand(8); for (i = 0; i < 30000; i++)
    if (i % 1000 == 7) print "bad"; else printf "%d,%d\n", i, int(rand() * 500) }' \
    >"$work/u.csv"
for dir in "" -r; do
    "$PORTSORT" sort --type i32 -t, -k2 -u --skip-bad $dir -o "$work/want" \
        "$work/u.csv" 2>/dev/null
    "$PORTSORT" sort --type i32 -t, -k2 -u --skip-bad $dir -S 64K -T "$t1" \
        --batch-size 3 -o "$work/got" "$work/u.csv" 2>/dev/null ||
        fail "-u $dir -S: exit $?"
    same "$work/want" "$work/got" "-u --skip-bad $dir: -S 64K as in memory"
done
tr '\n' '\0' <"$work/t.csv" >"$work/tz"
"$PORTSORT" sort -z --type f64 -t, -k3 -o "$work/want" "$work/tz"
"$PORTSORT" sort -z --type f64 -t, -k3 -S 64K -T "$t1" -o "$work/got" "$work/tz" ||
    fail "-z -S: exit $?"
same "$work/want" "$work/got" "-z text: -S 64K as in memory"
# Inputs whose last lines lack their newline, one from standard input.
printf '5\n3' >"$work/n1"
printf '4\n1\n2' >"$work/n2"
"$PORTSORT" sort --type u8 -o "$work/want" "$work/n1" "$work/n2"
"$PORTSORT" sort --type u8 -S 64K -T "$t1" -o "$work/got" "$work/n1" - \
    <"$work/n2" || fail "two text inputs: exit $?"
same "$work/want" "$work/got" "text from a file and standard input, no last newlines"
# A line longer than a run (a quarter of -S) is refused with its place.
{ echo 1; head -c 20000 /dev/zero | tr '\0' 7; echo; echo 2; } >"$work/long"
"$PORTSORT" sort --type u64 -S 64K -T "$t1" -o "$work/got" "$work/long" \
    2>"$work/err" && fail "a line longer than a run: exit 0"
grep -q "line 2 is longer than a run" "$work/err" ||
    { cat "$work/err"; fail "a line longer than a run: not said"; }
empty_tmp "text"

# Text with --values: the value lines travel with their keys' lines into
# --values-out.  60000 lines of 300 keys (the order of equal keys' lines
# and values shows stability) with values of 3 to 60 bytes: 1.9 MB, 29
# times -S 64K, cut into runs of at most 512 lines (SIZE / 128) and runs
# whose values fill a quarter of SIZE, merged 16, 3 and 2 at a time; the
# in-memory sort of the same files is what both outputs must be.
awk 'BEGIN { srand(11); for (i = 1; i <= 60000; i++)
    printf "%d,%d\n", i, int(rand() * 300) - 150 }' >"$work/tv.csv"
awk 'BEGIN { srand(12); for (i = 1; i <= 60000; i++)
    printf "v%d %.*s\n", i, int(rand() * 50), "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz" }' \
    >"$work/tv.txt"
# values_s WHAT KEYS VALUES OPTIONS...: -S 64K against in memory, both outputs.
values_s() {
    vwhat=$1 vkeys=$2 vvals=$3
    shift 3
    "$PORTSORT" sort "$@" --values "$vvals" --values-out "$work/vwant" \
        -o "$work/want" "$vkeys" || fail "$vwhat: in memory, exit $?"
    "$PORTSORT" sort "$@" --values "$vvals" --values-out "$work/vgot" \
        -o "$work/got" -S 64K -T "$t1" "$vkeys" || fail "$vwhat -S 64K: exit $?"
    same "$work/want" "$work/got" "$vwhat: -S 64K as in memory, keys"
    same "$work/vwant" "$work/vgot" "$vwhat: -S 64K as in memory, values"
}
values_s "text --values i32 -t, -k2" "$work/tv.csv" "$work/tv.txt" --type i32 -t, -k2
values_s "text --values -r, merges of 3" "$work/tv.csv" "$work/tv.txt" \
    --type i32 -t, -k2 -r --batch-size 3
values_s "text --values f32, merges of 2" "$work/tv.csv" "$work/tv.txt" \
    --type f32 -t, -k2 --batch-size 2
for k in 0 1 700 70000; do
    values_s "text --values --head $k -r" "$work/tv.csv" "$work/tv.txt" \
        --type i32 -t, -k2 -r --head $k
done
# The values with their keys, stable: each output line's number (its
# first field) is its value's.
paste -d' ' "$work/got" "$work/vgot" | awk '{ split($1, f, ","); if ("v" f[1] != $2) bad++ }
    END { exit bad > 0 }' || fail "text --values -S: a value away from its key"
# CRLF lines, neither file with its last end of line; -z.
perl -pe 's/\n/\r\n/' "$work/tv.csv" | head -c -2 >"$work/tvc.csv"
head -c -1 "$work/tv.txt" >"$work/tvn.txt"
values_s "text --values, CRLF, no last newlines" "$work/tvc.csv" "$work/tvn.txt" \
    --type i32 -t, -k2
tr '\n' '\0' <"$work/tv.csv" >"$work/tvz"
tr '\n' '\0' <"$work/tv.txt" >"$work/tvvz"
values_s "text --values -z" "$work/tvz" "$work/tvvz" -z --type i32 -t, -k2 -r
# Two inputs, the second standard input; then the values from it.
head -n 25000 "$work/tv.csv" >"$work/tva.csv"
tail -n +25001 "$work/tv.csv" >"$work/tvb.csv"
"$PORTSORT" sort --type i32 -t, -k2 --values "$work/tv.txt" \
    --values-out "$work/vwant" -o "$work/want" "$work/tv.csv"
"$PORTSORT" sort --type i32 -t, -k2 --values "$work/tv.txt" --values-out \
    "$work/vgot" -o "$work/got" -S 64K -T "$t1" "$work/tva.csv" - \
    <"$work/tvb.csv" || fail "text --values, two inputs: exit $?"
same "$work/want" "$work/got" "text --values, two inputs: keys"
same "$work/vwant" "$work/vgot" "text --values, two inputs: values"
"$PORTSORT" sort --type i32 -t, -k2 --values - --values-out "$work/vgot" \
    -o "$work/got" -S 64K -T "$t1" "$work/tv.csv" <"$work/tv.txt" ||
    fail "text --values from standard input: exit $?"
same "$work/vwant" "$work/vgot" "text --values from standard input"
# Without -S, files that would not fit take the external sort too.
PORTSORT_TEST_AVAIL_MEMORY=1000000 "$PORTSORT" sort --type i32 -t, -k2 \
    --values "$work/tv.txt" --values-out "$work/vgot" -o "$work/got" \
    -T "$work/missing" "$work/tv.csv" 2>/dev/null &&
    fail "text --values, 1 MB available: not sorted through -T"
PORTSORT_TEST_AVAIL_MEMORY=1000000 "$PORTSORT" sort --type i32 -t, -k2 \
    --values "$work/tv.txt" --values-out "$work/vgot" -o "$work/got" \
    -T "$t1" "$work/tv.csv" || fail "text --values, automatic -S: exit $?"
same "$work/want" "$work/got" "text --values, automatic -S: keys"
same "$work/vwant" "$work/vgot" "text --values, automatic -S: values"
empty_tmp "text --values"
# Failures: the in-memory message for counts that differ (one short, two
# over, the last without its newline; a bad key before the values run
# out is still the bad key), a values file that is not there, a value
# line longer than its share of -S, a temporary file that cannot be
# written or made, a signal; the outputs as they were, no temporary file.
printf 'old output\n' >"$work/out"
cp "$work/out" "$work/out.was"
cp "$work/out" "$work/vout"
head -n 59999 "$work/tv.txt" >"$work/tvs.txt"
{ cat "$work/tv.txt"; printf 'more\nmore'; } >"$work/tvl.txt"
awk 'NR == 45000 { print "x,bad"; next } { print }' "$work/tv.csv" >"$work/tvbad.csv"
for case in "tv.csv tvs.txt" "tv.csv tvl.txt" "tvbad.csv tvs.txt" \
            "tv.csv missing.txt"; do
    set -- $case
    "$PORTSORT" sort --type i32 -t, -k2 --values "$work/$2" --values-out \
        "$work/vout" -o "$work/out" "$work/$1" 2>"$work/err1"
    rc1=$?
    "$PORTSORT" sort --type i32 -t, -k2 --values "$work/$2" --values-out \
        "$work/vout" -o "$work/out" -S 64K -T "$t1" "$work/$1" 2>"$work/err2"
    rc2=$?
    [ $rc1 -eq 1 ] && [ $rc2 -eq 1 ] ||
        fail "text --values $case: exit $rc1 in memory, $rc2 with -S, not 1"
    [ "$2" = missing.txt ] || same "$work/err1" "$work/err2" \
        "text --values $case: -S says what memory says"
    same "$work/out.was" "$work/out" "text --values $case: the output kept"
    same "$work/out.was" "$work/vout" "text --values $case: the values' output kept"
    case $2 in
    tvs.txt) grep -q "tvs.txt has 59999 lines but .*$1 has 60000 keys\|$1:45000: " \
        "$work/err2" || { cat "$work/err2"; fail "text --values $case: not said"; } ;;
    tvl.txt) grep -q "tvl.txt has 60002 lines but" "$work/err2" ||
        { cat "$work/err2"; fail "text --values $case: not said"; } ;;
    esac
done
grep -q "missing.txt: No such file" "$work/err2" ||
    { cat "$work/err2"; fail "text --values, no values file: not said"; }
{ head -n 10 "$work/tv.txt"; head -c 20000 /dev/zero | tr '\0' 7; echo;
  tail -n +12 "$work/tv.txt"; } >"$work/tvlong.txt"
"$PORTSORT" sort --type i32 -t, -k2 --values "$work/tvlong.txt" --values-out \
    "$work/vout" -o "$work/out" -S 64K -T "$t1" "$work/tv.csv" 2>"$work/err" &&
    fail "text --values, a long value line: exit 0"
grep -q "tvlong.txt: line 11 is longer than a run" "$work/err" ||
    { cat "$work/err"; fail "text --values, a long value line: not said"; }
"$PORTSORT" sort --type i32 -t, -k2 --values "$work/tv.txt" --values-out \
    "$work/vout" -o "$work/out" -S 64K -T "$work/missing" "$work/tv.csv" \
    2>/dev/null && fail "text --values, a missing -T directory: exit 0"
for fault in write:3 write:60 write:3:TERM write:60:INT; do
    PORTSORT_TEST_FAIL_IO=$fault $sigdefault "$PORTSORT" sort --type i32 -t, -k2 \
        --values "$work/tv.txt" --values-out "$work/vout" -o "$work/out" \
        -S 64K -T "$t1" "$work/tv.csv" 2>/dev/null && fail "text --values $fault: exit 0"
    same "$work/out.was" "$work/out" "text --values $fault: the output kept"
    same "$work/out.was" "$work/vout" "text --values $fault: the values' output kept"
done
empty_tmp "text --values failures"

# Text without --type, sort(1)'s keys: 2.2 MiB of lines (with -S 64K,
# runs of 341 lines at most: about 200 of them, merged 16, 3 or 2 at a
# time) against the in-memory sort of the same input, which
# cli-sort-keys.sh checks against GNU sort.  The lines: a word with
# leading blanks (a tab, which sorts below the newline, too), numbers for
# -n with leading zeros, signs and fractions, values for -g (inf, nan,
# -0, exponents, junk), then a counter; one line in 7 is a copy from a
# pool of 40, so that whole lines and keys are equal across runs (the
# last resort, -s, -u and the order of ties show).
awk 'BEGIN { srand(11); split("pear apple fig kiwi lime plum", w, " ");
    split("inf -inf nan 0 -0 1e3 -2.5e-3 abc 7 .5", g, " ");
    for (i = 0; i < 40; i++)
        pool[i] = sprintf("%s%s,%03d,%s,%d", i % 3 ? " " : "", w[1 + i % 6],
                          i % 9, g[1 + i % 10], i % 4)
    for (i = 0; i < 70000; i++) {
        if (i % 7 == 3) { print pool[int(rand() * 40)]; continue }
        pad = substr("    \t", 1 + int(rand() * 5), int(rand() * 2))
        n = int((rand() - 0.5) * 2000); f = rand() < 0.5 ? "" : "." int(rand() * 100)
        printf "%s%s,%s%s,%s,%d\n", pad, w[1 + int(rand() * 6)],
               (rand() < 0.2 ? "00" : ""), n f,
               rand() < 0.3 ? g[1 + int(rand() * 10)] : (rand() - 0.5) * 10 ^ int(rand() * 8),
               int(rand() * 1000) }
}' >"$work/k.txt"
# sort_keys WHAT OPTIONS...: -S 64K against in memory, on k.txt.
sort_keys() {
    what=$1
    shift
    "$PORTSORT" sort "$@" -o "$work/want" "$work/k.txt" ||
        fail "$what: in memory, exit $?"
    "$PORTSORT" sort "$@" -S 64K -T "$t1" -o "$work/got" "$work/k.txt" ||
        fail "$what -S 64K: exit $?"
    same "$work/want" "$work/got" "text $what: -S 64K as in memory"
}
sort_keys "whole lines"
sort_keys "whole lines -r" -r
sort_keys "whole lines -u" -u
sort_keys "-s -t, -k1,1" -s -t, -k1,1
sort_keys "-k1,1 -k2,2n (blanks)" -k1,1 -k2,2n
sort_keys "-t, -k2,2n -k1,1b" -t, -k2,2n -k1,1b
sort_keys "-t, -k3,3g -k4,4nr" -t, -k3,3g -k4,4nr
sort_keys "-t, -k3g -s -r" -t, -k3g -s -r
sort_keys "-t, -k2,2 -n -u -r" -t, -k2,2 -n -u -r
sort_keys "-t, -k1.2,1.3b -k4,4rn -u" -t, -k1.2,1.3b -k4,4rn -u
sort_keys "-b -k2" -b -k2
sort_keys "-r -t, -k2,2n (the last resort reversed)" -r -t, -k2,2n
# -z: the lines end with NUL, and the newlines of k.txt are inside them.
tr '\n' '\0' <"$work/k.txt" >"$work/kz"
for args in "-t, -k1,1 -k2,2n" "-u -r"; do
    # shellcheck disable=SC2086
    "$PORTSORT" sort -z $args -o "$work/want" "$work/kz"
    # shellcheck disable=SC2086
    "$PORTSORT" sort -z $args -S 64K -T "$t1" -o "$work/got" "$work/kz" ||
        fail "-z $args -S 64K: exit $?"
    same "$work/want" "$work/got" "text -z $args: -S 64K as in memory"
done
# Three inputs, the second standard input, the last without its newline;
# merges of 2 runs over two directories.
head -n 20000 "$work/k.txt" >"$work/k1"
sed -n '20001,45000p' "$work/k.txt" >"$work/k2"
tail -n +45001 "$work/k.txt" | perl -pe 'chomp if eof' >"$work/k3"
"$PORTSORT" sort -t, -k2,2n -u -o "$work/want" "$work/k1" "$work/k2" "$work/k3"
"$PORTSORT" sort -t, -k2,2n -u -S 64K -T "$t1" -T "$t2" --batch-size 2 \
    -o "$work/got" "$work/k1" - "$work/k3" <"$work/k2" ||
    fail "three text inputs: exit $?"
same "$work/want" "$work/got" "text -u from files and standard input, --batch-size 2, two -T"
"$PORTSORT" sort -o "$work/want" "$work/k1" "$work/k2" "$work/k3"
"$PORTSORT" sort -S 64K -T "$t1" -T "$t2" --batch-size 2 -o "$work/got" \
    "$work/k1" - "$work/k3" <"$work/k2" || fail "three text inputs, whole: exit $?"
same "$work/want" "$work/got" "whole lines from three inputs, --batch-size 2, two -T"
cp "$work/k.txt" "$work/kself"
"$PORTSORT" sort -t, -k3,3g -o "$work/want" "$work/k.txt"
"$PORTSORT" sort -t, -k3,3g -S 64K -T "$t1" -o "$work/kself" "$work/kself" ||
    fail "keys, -o an input: exit $?"
same "$work/want" "$work/kself" "text -t, -k3,3g -S 64K -o its own input"
empty_tmp "text without --type"
# A failure leaves the output as it was: a missing -T directory, a write
# that fails, a signal.
"$PORTSORT" sort -t, -k2,2n -S 64K -T "$work/missing" -o "$work/out" \
    "$work/k.txt" 2>"$work/err" && fail "keys, a missing -T directory: exit 0"
grep -q "cannot create a temporary file in $work/missing" "$work/err" ||
    { cat "$work/err"; fail "keys, a missing -T directory: not said"; }
same "$work/out.was" "$work/out" "keys, a missing -T directory: the output kept"
for fault in write:30 write:30:TERM; do
    PORTSORT_TEST_FAIL_IO=$fault $sigdefault "$PORTSORT" sort -k2 -S 64K -T "$t1" \
        -o "$work/out" "$work/k.txt" 2>"$work/err" && fail "keys $fault: exit 0"
    same "$work/out.was" "$work/out" "keys $fault: the output kept"
done
empty_tmp "text without --type, failures"
# A line longer than a run is refused with its place.
"$PORTSORT" sort -k2 -S 64K -T "$t1" -o "$work/got" "$work/long" \
    2>"$work/err" && fail "keys, a line longer than a run: exit 0"
grep -q "long: line 2 is longer than a run" "$work/err" ||
    { cat "$work/err"; fail "keys, a line longer than a run: not said"; }
same "$work/out.was" "$work/out" "keys, a line longer than a run: the output kept"

# -c and -C with -S: the input read a block at a time (64K: a block of 32K,
# about 60 of them for k.txt), each line compared with the one before it
# across blocks and inputs; the exit status and the message must be the
# in-memory check's (which cli-sort-keys.sh holds to GNU sort's), and
# GNU sort's own where it is here.  -T and --batch-size do nothing there:
# a missing -T directory must not matter.
gnu_sort=
LC_ALL=C sort --version 2>/dev/null | grep -q GNU && gnu_sort=sort
# check_c WHAT WANT-RC FILE OPTIONS...: -c through -S 64K against in memory.
check_c() {
    cwhat=$1 want=$2 file=$3
    shift 3
    "$PORTSORT" sort "$@" "$file" >/dev/null 2>"$work/cwant"
    rc=$?
    [ "$rc" -eq "$want" ] || fail "$cwhat: in memory, exit $rc, not $want"
    "$PORTSORT" sort "$@" -S 64K -T "$work/missing" --batch-size 2 "$file" \
        >/dev/null 2>"$work/cgot"
    rc=$?
    [ "$rc" -eq "$want" ] || fail "$cwhat -S 64K: exit $rc, not $want"
    same "$work/cwant" "$work/cgot" "$cwhat: -S 64K says what the in-memory check says"
    # (GNU's -z message ends the line with its NUL: not compared.)
    case " $* " in *" --type "*|*" -z "*) return ;; esac
    if [ -n "$gnu_sort" ]; then
        LC_ALL=C $gnu_sort "$@" "$file" 2>&1 >/dev/null |
            sed 's/^sort:/portsort:/' >"$work/cgnu"
        same "$work/cgnu" "$work/cgot" "$cwhat: -S 64K says what GNU sort says"
    fi
}
# sorted_c WHAT OPTIONS...: k.txt sorted by OPTIONS passes -c and -C; with
# its first line put back after line 50000, -c names line 50001 and -C
# says nothing.
sorted_c() {
    what=$1
    shift
    "$PORTSORT" sort "$@" -o "$work/cs" "$work/k.txt"
    check_c "-c $what, sorted" 0 "$work/cs" -c "$@"
    check_c "-C $what, sorted" 0 "$work/cs" -C "$@"
    awk 'NR == 1 { first = $0 } { print } NR == 50000 { print first }' \
        "$work/cs" >"$work/cd"
    check_c "-c $what, line 50001 out of order" 1 "$work/cd" -c "$@"
    grep -q "cd:50001: disorder: " "$work/cgot" ||
        { cat "$work/cgot"; fail "-c $what: not line 50001"; }
    check_c "-C $what, out of order" 1 "$work/cd" -C "$@"
    [ -s "$work/cgot" ] && fail "-C $what: not silent"
}
sorted_c "whole lines"
sorted_c "-r" -r
sorted_c "-t, -k2,2n -k1,1b" -t, -k2,2n -k1,1b
sorted_c "-t, -k3,3g -k4,4nr" -t, -k3,3g -k4,4nr
sorted_c "-s -t, -k1,1" -s -t, -k1,1
sorted_c "-b -k2" -b -k2
# -c -u: a line equal to the one before it is out of order (line 40001
# repeats 40000), and for -c alone it is not.
"$PORTSORT" sort -u -o "$work/cs" "$work/k.txt"
awk '{ print } NR == 40000 { print }' "$work/cs" >"$work/cd"
check_c "-c -u, a repeated line" 1 "$work/cd" -c -u
grep -q "cd:40001: disorder: " "$work/cgot" ||
    { cat "$work/cgot"; fail "-c -u: not line 40001"; }
check_c "-c, a repeated line" 0 "$work/cd" -c
# Several inputs are one: the disorder between the last line of one and
# the first of the next is found, and named by the second one's line 1;
# the last input without its newline.
"$PORTSORT" sort -t, -k2,2n -o "$work/cs" "$work/k.txt"
head -n 30000 "$work/cs" >"$work/c1"
{ head -n 1 "$work/cs"; sed -n '30001,60000p' "$work/cs"; } >"$work/c2"
tail -n +60001 "$work/cs" | perl -pe 'chomp if eof' >"$work/c3"
for args in "-c -t, -k2,2n" "-C -t, -k2,2n"; do
    # shellcheck disable=SC2086
    "$PORTSORT" sort $args "$work/c1" "$work/c2" "$work/c3" 2>"$work/cwant"
    # shellcheck disable=SC2086
    "$PORTSORT" sort $args -S 64K "$work/c1" "$work/c2" "$work/c3" 2>"$work/cgot"
    [ $? -eq 1 ] || fail "$args, three inputs -S 64K: not exit 1"
    same "$work/cwant" "$work/cgot" "$args, three inputs: -S 64K as in memory"
done
grep -q "c2:1: disorder: " "$work/cgot" && fail "-C, three inputs: not silent"
"$PORTSORT" sort -c -t, -k2,2n -S 64K "$work/c1" "$work/c2" "$work/c3" 2>&1 |
    grep -q "c2:1: disorder: " || fail "-c, three inputs -S 64K: not c2:1"
{ head -n 1 "$work/cs"; tail -n +30001 "$work/cs"; } >"$work/c2"
{ cat "$work/c1"; head -n 1 "$work/cs" | perl -pe 'chomp'; } >"$work/c3"
check_c "-c, the last line without its newline" 1 "$work/c3" -c -t, -k2,2n
# -z: the newlines of k.txt are inside the lines.
"$PORTSORT" sort -z -t, -k1,1 -o "$work/cs" "$work/kz"
check_c "-c -z -t, -k1,1, sorted" 0 "$work/cs" -c -z -t, -k1,1
check_c "-c -z, unsorted" 1 "$work/kz" -c -z -t, -k1,1
# --type: the parsed keys compared, the carry across blocks too.
for dir in "" -r; do
    "$PORTSORT" sort --type f64 -t, -k3 $dir -o "$work/cs" "$work/t.csv"
    check_c "--type f64 -c $dir, sorted" 0 "$work/cs" --type f64 -t, -k3 $dir -c
    awk 'NR == 1 { first = $0 } { print } NR == 20000 { print first }' \
        "$work/cs" >"$work/cd"
    check_c "--type f64 -c $dir, line 20001" 1 "$work/cd" --type f64 -t, -k3 $dir -c
    grep -q "cd:20001: disorder: " "$work/cgot" ||
        { cat "$work/cgot"; fail "--type -c $dir: not line 20001"; }
    check_c "--type f64 -C $dir -u" 1 "$work/cs" --type f64 -t, -k3 $dir -C -u
    # Across two inputs: the second one's line 1.
    head -n 15000 "$work/cs" >"$work/c1"
    { head -n 1 "$work/cs"; tail -n +15001 "$work/cs"; } >"$work/c2"
    "$PORTSORT" sort --type f64 -t, -k3 $dir -c -S 64K "$work/c1" "$work/c2" \
        2>&1 | grep -q "c2:1: disorder: " || fail "--type -c $dir, two inputs: not c2:1"
done
# Without -S, files larger than the memory available are checked a block
# at a time too: a line longer than a block says so.
"$PORTSORT" sort --type f64 -t, -k3 -r -c "$work/cd" 2>"$work/cwant"
PORTSORT_TEST_AVAIL_MEMORY=1000000 "$PORTSORT" sort --type f64 -t, -k3 -r -c \
    "$work/cd" 2>"$work/cgot"
[ $? -eq 1 ] || fail "--type -c, automatic -S: not exit 1"
same "$work/cwant" "$work/cgot" "--type -c, automatic -S: as in memory"
{ echo 1; head -c 40000 /dev/zero | tr '\0' 7; echo; echo 2; } >"$work/clong"
PORTSORT_TEST_AVAIL_MEMORY=60000 "$PORTSORT" sort -c -k2 "$work/clong" \
    2>"$work/err" && fail "-c, 60 kB available, a line longer than a block: exit 0"
grep -q "clong: line 2 is longer than a run" "$work/err" ||
    { cat "$work/err"; fail "-c, 60 kB available: not checked a block at a time"; }

# --head K with -S: the external sort whose last merge stops after K
# lines, byte for byte the in-memory --head (ps_topk, stable): K of 0, 1,
# less than a run, more than a run and more than the input; sort(1)'s
# keys, --type (ties, -r, --skip-bad), binary keys with values; merges of
# 2 on one form, and without -S for a file larger than the memory
# available.
# head_s WHAT FILE OPTIONS...: every K, -S 64K against in memory.
head_s() {
    hwhat=$1 file=$2
    shift 2
    for k in 0 1 700 5000 500000; do
        "$PORTSORT" sort "$@" --head $k -o "$work/want" "$file" 2>"$work/hwant" ||
            fail "$hwhat --head $k: in memory, exit $?"
        "$PORTSORT" sort "$@" --head $k -S 64K -T "$t1" -o "$work/got" "$file" \
            2>"$work/hgot" || fail "$hwhat --head $k -S 64K: exit $?"
        same "$work/want" "$work/got" "$hwhat --head $k: -S 64K as in memory"
        same "$work/hwant" "$work/hgot" "$hwhat --head $k: -S 64K says the same"
    done
}
head_s "whole lines" "$work/k.txt"
head_s "-t, -k2,2n -k1,1b -r" "$work/k.txt" -t, -k2,2n -k1,1b -r
head_s "-s -t, -k4,4n, merges of 2" "$work/k.txt" -s -t, -k4,4n --batch-size 2
head_s "--type i16 -t, -k4 (ties)" "$work/k.txt" --type i16 -t, -k4
head_s "--type f64 -t, -k3 -r" "$work/t.csv" --type f64 -t, -k3 -r
awk '{ print } NR % 500 == 3 { print "bad," $0 }' "$work/t.csv" >"$work/tb.csv"
head_s "--type f64 -t, -k3 --skip-bad" "$work/tb.csv" --type f64 -t, -k3 --skip-bad
[ "$(wc -l <"$work/got")" -eq 30060 ] && tail -n 1 "$work/got" | grep -q "^bad," ||
    fail "--skip-bad --head 500000 -S 64K: not every line, the bad ones last"
head -c $((524288 * 2)) "$work/in.bin" >"$work/k16.bin"
head -c $((524288 * 8)) "$work/vals.bin" >"$work/v.bin"
for k in 0 1 5000 300000; do
    "$PORTSORT" sort --binary --type u16 --head $k --values "$work/v.bin" \
        --value-size 8 --values-out "$work/vwant" -o "$work/want" "$work/k16.bin"
    "$PORTSORT" sort --binary --type u16 --head $k --values "$work/v.bin" \
        --value-size 8 --values-out "$work/vgot" -o "$work/got" -S 64K \
        -T "$t1" "$work/k16.bin" || fail "binary --head $k -S 64K: exit $?"
    same "$work/want" "$work/got" "binary u16 --head $k: -S 64K as in memory"
    same "$work/vwant" "$work/vgot" "binary u16 --head $k: the values as in memory"
done
"$PORTSORT" sort -t, -k3,3g --head 100 -o "$work/want" "$work/k.txt"
PORTSORT_TEST_AVAIL_MEMORY=1000000 "$PORTSORT" sort -t, -k3,3g --head 100 \
    -T "$work/missing" -o "$work/got" "$work/k.txt" 2>/dev/null &&
    fail "--head, 1 MB available: not sorted through -T"
PORTSORT_TEST_AVAIL_MEMORY=1000000 "$PORTSORT" sort -t, -k3,3g --head 100 \
    -T "$t1" -o "$work/got" "$work/k.txt" || fail "--head, automatic -S: exit $?"
same "$work/want" "$work/got" "--head 100, automatic -S"
empty_tmp "--head"

# Without -S, input files that would not fit in the available memory
# (PORTSORT_TEST_AVAIL_MEMORY plays a small machine) take the external sort
# with a quarter of it: seen through -T naming no directory, then checked
# against the in-memory sort; files that fit, and standard input (its size
# unknown), are sorted in memory whatever -T says.
"$PORTSORT" sort --binary --type u32 -o "$work/want" "$work/in.bin"
PORTSORT_TEST_AVAIL_MEMORY=1000000 "$PORTSORT" sort --binary --type u32 \
    -T "$work/missing" -o "$work/got" "$work/in.bin" 2>"$work/err" &&
    fail "2 MiB of keys, 1 MB available: not sorted through -T"
grep -q "cannot create a temporary file" "$work/err" ||
    { cat "$work/err"; fail "2 MiB of keys, 1 MB available: no temporary file tried"; }
PORTSORT_TEST_AVAIL_MEMORY=1000000 "$PORTSORT" sort --binary --type u32 \
    -T "$t1" -o "$work/got" "$work/in.bin" || fail "automatic -S: exit $?"
same "$work/want" "$work/got" "binary, automatic -S (a quarter of 1 MB)"
"$PORTSORT" sort --type f64 -t, -k3 -o "$work/want" "$work/t.csv"
PORTSORT_TEST_AVAIL_MEMORY=2000000 "$PORTSORT" sort --type f64 -t, -k3 \
    -T "$t1" -o "$work/got" "$work/t.csv" || fail "text, automatic -S: exit $?"
same "$work/want" "$work/got" "text, automatic -S (a quarter of 2 MB)"
"$PORTSORT" sort -t, -k3,3g -o "$work/want" "$work/k.txt"
PORTSORT_TEST_AVAIL_MEMORY=1000000 "$PORTSORT" sort -t, -k3,3g \
    -T "$work/missing" -o "$work/got" "$work/k.txt" 2>/dev/null &&
    fail "text keys, 1 MB available: not sorted through -T"
PORTSORT_TEST_AVAIL_MEMORY=1000000 "$PORTSORT" sort -t, -k3,3g -T "$t1" \
    -o "$work/got" "$work/k.txt" || fail "text keys, automatic -S: exit $?"
same "$work/want" "$work/got" "text keys, automatic -S (a quarter of 1 MB)"
PORTSORT_TEST_AVAIL_MEMORY=100000000 "$PORTSORT" sort --binary --type u32 \
    -T "$work/missing" -o "$work/got" "$work/in.bin" ||
    fail "keys that fit: not sorted in memory (exit $?)"
PORTSORT_TEST_AVAIL_MEMORY=1000 "$PORTSORT" sort --binary --type u32 \
    -T "$work/missing" <"$work/in.bin" >"$work/got" ||
    fail "standard input: not sorted in memory (exit $?)"
"$PORTSORT" sort --binary --type u32 -o "$work/want" "$work/in.bin"
same "$work/want" "$work/got" "standard input in memory, -T unused"
empty_tmp "automatic -S"

# Usage: refused with exit 2 and a reason.
for args in "--binary --type u32 -c -S 1M" "--binary --type u32 -u -S 1M" \
            "--binary --type u32 -S 10" \
            "--binary --type u32 -S 1x" \
            "--binary --type u32 -S 1M --batch-size 1" \
            "--binary --type u32 -S 1M --head 3 -u"; do
    # shellcheck disable=SC2086
    "$PORTSORT" sort $args "$work/in.bin" >/dev/null 2>"$work/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ -s "$work/err" ] ||
        fail "sort $args: exit $rc, not 2 with a reason"
done

finish
