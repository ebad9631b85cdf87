#!/bin/sh
# ps_external_text_bench.sh - portsort sort -S on text without --type
# (sort(1)'s keys, doc/cli-sort.md) against GNU sort with the same options
# and the same -S: a CSV of LINES lines (an index, a word of 1-12 random
# letters, an integer of up to 12 digits), median wall time of RUNS runs
# each, peak memory (/usr/bin/time's %M, the largest of the runs), and the
# two outputs compared byte for byte.  Prints one Markdown table row.
#
# Usage: bench/ps_external_text_bench.sh [PORTSORT]  (default ./tools/portsort)
# Environment: LINES (default 10000000: about 288 MB), SIZE (-S, default
# 64M), OPTS (the sort options, default "-s -t, -k2,2"), RUNS (default 3),
# DIR (scratch files, default a new directory under /tmp; it needs about
# 5x the input's size).
set -eu
PORTSORT=${1:-./tools/portsort}
LINES=${LINES:-10000000}
SIZE=${SIZE:-64M}
OPTS=${OPTS:--s -t, -k2,2}
RUNS=${RUNS:-3}
DIR=${DIR:-$(mktemp -d "${TMPDIR:-/tmp}/ps-external-text.XXXXXX")}
# shellcheck source=bench/ps_external_common.sh
. "$(dirname "$0")/ps_external_common.sh"

# perl: the same lines on every machine (awk's rand differs between awks).
[ -s "$DIR/text.csv" ] || perl -e '
    srand(44); my $n = shift;
    for my $i (0 .. $n - 1) {
        my $w = join "", map { chr(97 + int(rand(26))) } 1 .. 1 + int(rand(12));
        printf "%d,%s,%.0f\n", $i, $w, int(rand(2e12)) - 1e12 }' \
    "$LINES" >"$DIR/text.csv"

# measure OUT CMD...: "MEDIAN_SECONDS MAX_KB" of RUNS runs writing OUT.
measure() {
    out=$1
    shift
    i=0
    while [ $i -lt "$RUNS" ]; do
        /usr/bin/time -f "%e %M" -o "$DIR/time" "$@" -o "$out" "$DIR/text.csv"
        cat "$DIR/time"
        i=$((i + 1))
    done | sort -n | awk '{ t[NR] = $1; if ($2 > m) m = $2 }
        END { printf "%s %d\n", t[int((NR + 1) / 2)], m }'
}

# shellcheck disable=SC2086
ps=$(measure "$DIR/out.ps" "$PORTSORT" sort $OPTS -S "$SIZE" -T "$DIR/tmp")
# shellcheck disable=SC2086
gnu=$(measure "$DIR/out.gnu" sort $OPTS --parallel=2 -S "$SIZE" -T "$DIR/tmp")
cmp -s "$DIR/out.ps" "$DIR/out.gnu" && same="the same bytes" || same="OUTPUTS DIFFER"
mb=$(($(wc -c <"$DIR/text.csv") / 1000000))
echo "| text.csv ($LINES lines, $mb MB), $same | \`portsort sort $OPTS -S $SIZE\` |" \
    "$(echo "$ps" | awk '{ printf "%.2f s, %.0f MiB", $1, $2 / 1024 }') |" \
    "\`sort $OPTS --parallel=2 -S $SIZE\` |" \
    "$(echo "$gnu" | awk '{ printf "%.2f s, %.0f MiB", $1, $2 / 1024 }') |" \
    "$(echo "$ps $gnu" | awk '{ printf "%.1fx", $3 / $1 }') |"
