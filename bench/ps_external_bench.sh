#!/bin/sh
# ps_external_bench.sh - portsort sort -S (the external merge sort,
# doc/cli-sort.md) on a file of u64 keys several times the buffer, against
# the same keys sorted in memory, and against GNU sort -n with the same -S
# on the same numbers written as text (what GNU sort can read; issue 32's
# bar: 3x); then a CSV of KEYS lines sorted by its third field, an integer
# (portsort --type i64 -t, -k3 against GNU sort -t, -k3,3 -n), both with
# -S.  Prints a Markdown table of median wall times of RUNS runs, each
# writing to a file on the same disk (the merge's output is part of the
# work).
#
# Usage: bench/ps_external_bench.sh [PORTSORT]   (default ./tools/portsort)
# Environment: KEYS (default 33554432: 256 MiB of u64), CSV_LINES (the
# CSV's lines, default KEYS), SIZE (-S, default 64M), RUNS (default 3),
# DIR (scratch files, default a new directory under /tmp; it needs about
# 5x the binary file's size, and with GNU sort 2.5x more for the text
# form), GNU=0 to skip GNU sort, PARTS (default "binary csv": which of the
# two to run), MEMORY=0 to skip the in-memory binary sort (it holds the
# file twice).  Each row has the peak resident memory of its runs.
set -eu
PORTSORT=${1:-./tools/portsort}
KEYS=${KEYS:-33554432}
SIZE=${SIZE:-64M}
RUNS=${RUNS:-3}
CSV_LINES=${CSV_LINES:-$KEYS}
PARTS=${PARTS:-binary csv}
DIR=${DIR:-$(mktemp -d "${TMPDIR:-/tmp}/ps-external.XXXXXX")}
LC_ALL=C
export LC_ALL
[ -x "$PORTSORT" ] || { echo "portsort not found at $PORTSORT" >&2; exit 2; }
mkdir -p "$DIR/tmp"

has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
# Random u64 keys (perl: the same bits on every machine), and the same
# numbers as text lines for GNU sort.
has binary && [ ! -s "$DIR/keys.bin" ] && perl -e '
    srand(42); my $n = shift;
    for (1 .. $n) { print pack("Q<", int(rand(2**32)) << 32 | int(rand(2**32))) }' \
    "$KEYS" >"$DIR/keys.bin"
if has binary && [ "${GNU:-1}" != 0 ] && [ ! -s "$DIR/keys.txt" ]; then
    perl -e 'local $/ = \8; while (<STDIN>) { print unpack("Q<", $_), "\n" }' \
        <"$DIR/keys.bin" >"$DIR/keys.txt"
fi
has csv && [ ! -s "$DIR/data.csv" ] && perl -e '
    srand(43); my $n = shift; my @w = qw(books music films games garden);
    for my $i (1 .. $n) {
        printf "%d,%s,%d,%.3f\n", $i, $w[$i % 5],
            int(rand(2**31)) - 2**30 + int(rand(2**31)) * 2**20, rand(1000) }' \
    "$CSV_LINES" >"$DIR/data.csv"

median() {   # RUNS times "$@": "MEDIAN_SECONDS PEAK_KB" (wall time, largest RSS)
    i=0
    while [ $i -lt "$RUNS" ]; do
        /usr/bin/time -f "%e %M" -o "$DIR/time" "$@" >/dev/null
        cat "$DIR/time"
        i=$((i + 1))
    done | sort -n | awk '{ t[NR] = $1; if ($2 > m) m = $2 }
        END { printf "%s %d\n", t[int((NR + 1) / 2)], m }'
}

echo "-S $SIZE, median of $RUNS, $(nproc) CPUs"
echo
echo "| what | seconds | Mkeys/s | peak MiB |"
echo "| --- | ---: | ---: | ---: |"
row() {   # NAME KEYS "SECONDS PEAK_KB"
    echo "$1|$2|$3" | awk -F'|' '{ split($3, m, " ");
        printf "| %s | %s | %.1f | %.0f |\n", $1, m[1], $2 / m[1] / 1e6, m[2] / 1024 }'
}
if has binary; then
    what="$KEYS u64 keys, $(wc -c <"$DIR/keys.bin") bytes"
    [ "${MEMORY:-1}" = 0 ] ||
        row "portsort --binary, in memory ($what)" "$KEYS" \
            "$(median "$PORTSORT" sort --binary --type u64 -o "$DIR/out.bin" "$DIR/keys.bin")"
    row "portsort --binary -S $SIZE ($what)" "$KEYS" \
        "$(median "$PORTSORT" sort --binary --type u64 -S "$SIZE" -T "$DIR/tmp" \
            -o "$DIR/out.bin" "$DIR/keys.bin")"
    if [ "${GNU:-1}" != 0 ]; then
        row "GNU sort -n -s --parallel=$(nproc) -S $SIZE (the same keys as text)" "$KEYS" \
            "$(median sort -n -s --parallel="$(nproc)" -S "$SIZE" -T "$DIR/tmp" \
                -o "$DIR/out.txt" "$DIR/keys.txt")"
    fi
fi
if has csv; then
    what="CSV, $CSV_LINES lines, $(wc -c <"$DIR/data.csv") bytes"
    row "portsort --type i64 -t, -k3 -S $SIZE ($what)" "$CSV_LINES" \
        "$(median "$PORTSORT" sort --type i64 -t, -k3 -S "$SIZE" -T "$DIR/tmp" \
            -o "$DIR/out.csv" "$DIR/data.csv")"
    if [ "${GNU:-1}" != 0 ]; then
        row "GNU sort -t, -k3,3 -n -s --parallel=$(nproc) -S $SIZE ($what)" "$CSV_LINES" \
            "$(median sort -t, -k3,3 -n -s --parallel="$(nproc)" -S "$SIZE" \
                -T "$DIR/tmp" -o "$DIR/out2.csv" "$DIR/data.csv")"
        cmp -s "$DIR/out.csv" "$DIR/out2.csv" && echo "(the two CSV outputs: the same bytes)" ||
            echo "(the two CSV outputs DIFFER)"
    fi
fi
