#!/bin/sh
# ps_external_values_bench.sh - portsort sort --type with a --values file,
# through -S and in memory, against GNU sort on the one file GNU sort can
# sort instead (each key line and its value line joined by a comma: GNU
# sort cannot carry a second file).  Keys: LINES lines "index,integer"
# (integers from 10^6 distinct ones, so that many are equal and the sort's
# stability shows in the values); values: "v<index> " and 1-30 letters.
# Median wall time of RUNS runs each, peak memory (/usr/bin/time's %M, the
# largest of the runs), and the outputs compared byte for byte (the -S
# form's against the in-memory form's, and the keys and values joined
# against GNU sort's lines).  Prints Markdown table rows.
#
# Usage: bench/ps_external_values_bench.sh [PORTSORT]  (default ./tools/portsort)
# Environment: LINES (default 10000000: about 160 MB of keys and 230 MB of
# values), SIZE (-S, default 64M), RUNS (default 3), DIR (scratch files,
# default a new directory under /tmp; it needs about 6x the inputs' size).
set -eu
PORTSORT=${1:-./tools/portsort}
LINES=${LINES:-10000000}
SIZE=${SIZE:-64M}
RUNS=${RUNS:-3}
DIR=${DIR:-$(mktemp -d "${TMPDIR:-/tmp}/ps-external-values.XXXXXX")}
# shellcheck source=bench/ps_external_common.sh
. "$(dirname "$0")/ps_external_common.sh"

# perl: the same lines on every machine.
[ -s "$DIR/keys.csv" ] || perl -e '
    srand(45); my ($n, $d) = @ARGV;
    open my $k, ">", "$d/keys.csv" or die; open my $v, ">", "$d/vals.txt" or die;
    for my $i (0 .. $n - 1) {
        printf $k "%d,%d\n", $i, int(rand(1e6)) - 500000;
        printf $v "v%d %s\n", $i,
            join "", map { chr(97 + int(rand(26))) } 1 .. 1 + int(rand(30)) }' \
    "$LINES" "$DIR"
[ -s "$DIR/joined.csv" ] || paste -d, "$DIR/keys.csv" "$DIR/vals.txt" >"$DIR/joined.csv"

# timed NAME CMD...: RUNS runs of CMD, "MEDIAN_SECONDS MAX_KB" into $DIR/NAME.
timed() {
    name=$1
    shift
    i=0
    while [ $i -lt "$RUNS" ]; do
        /usr/bin/time -f "%e %M" -o "$DIR/time" "$@"
        cat "$DIR/time"
        i=$((i + 1))
    done | sort -n | awk '{ t[NR] = $1; if ($2 > m) m = $2 }
        END { printf "%s %d\n", t[int((NR + 1) / 2)], m }' >"$DIR/$name"
}

ps_sort="$PORTSORT sort --type i64 -t, -k2 --values $DIR/vals.txt"
# shellcheck disable=SC2086
timed mem $ps_sort --values-out "$DIR/v.mem" -o "$DIR/k.mem" "$DIR/keys.csv"
# shellcheck disable=SC2086
timed ext $ps_sort --values-out "$DIR/v.ext" -o "$DIR/k.ext" -S "$SIZE" \
    -T "$DIR/tmp" "$DIR/keys.csv"
timed gnu sort -s -t, -k2,2n --parallel=2 -S "$SIZE" -T "$DIR/tmp" \
    -o "$DIR/gnu.csv" "$DIR/joined.csv"
cmp -s "$DIR/k.mem" "$DIR/k.ext" && cmp -s "$DIR/v.mem" "$DIR/v.ext" &&
    paste -d, "$DIR/k.ext" "$DIR/v.ext" | cmp -s - "$DIR/gnu.csv" &&
    same="the same bytes" || same="OUTPUTS DIFFER"
mb=$(($(wc -c <"$DIR/keys.csv") / 1000000))
vmb=$(($(wc -c <"$DIR/vals.txt") / 1000000))
row() {     # WHAT COMMAND NAME
    echo "| $1 | \`$2\` | $(awk '{ printf "%.2f s, %.0f MiB", $1, $2 / 1024 }' "$DIR/$3") |"
}
echo "keys.csv ($LINES lines, $mb MB) with vals.txt ($vmb MB), outputs $same:"
echo
echo "| form | command | time, peak RSS |"
echo "|---|---|---:|"
row "portsort, in memory" "portsort sort --type i64 -t, -k2 --values vals.txt --values-out VOUT" mem
row "portsort, through -S" "portsort sort --type i64 -t, -k2 --values vals.txt --values-out VOUT -S $SIZE" ext
row "GNU sort, keys and values joined" "sort -s -t, -k2,2n --parallel=2 -S $SIZE" gnu
