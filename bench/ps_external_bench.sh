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
# Environment: KEYS (default 33554432: 256 MiB of u64), SIZE (-S, default
# 64M), RUNS (default 3), DIR (scratch files, default a new directory under
# /tmp; it needs about 5x the binary file's size), GNU=0 to skip GNU sort.
set -eu
PORTSORT=${1:-./tools/portsort}
KEYS=${KEYS:-33554432}
SIZE=${SIZE:-64M}
RUNS=${RUNS:-3}
DIR=${DIR:-$(mktemp -d "${TMPDIR:-/tmp}/ps-external.XXXXXX")}
LC_ALL=C
export LC_ALL
[ -x "$PORTSORT" ] || { echo "portsort not found at $PORTSORT" >&2; exit 2; }
mkdir -p "$DIR/tmp"

# Random u64 keys (perl: the same bits on every machine), and the same
# numbers as text lines for GNU sort.
[ -s "$DIR/keys.bin" ] || perl -e '
    srand(42); my $n = shift;
    for (1 .. $n) { print pack("Q<", int(rand(2**32)) << 32 | int(rand(2**32))) }' \
    "$KEYS" >"$DIR/keys.bin"
if [ "${GNU:-1}" != 0 ] && [ ! -s "$DIR/keys.txt" ]; then
    perl -e 'local $/ = \8; while (<STDIN>) { print unpack("Q<", $_), "\n" }' \
        <"$DIR/keys.bin" >"$DIR/keys.txt"
fi
[ -s "$DIR/data.csv" ] || perl -e '
    srand(43); my $n = shift; my @w = qw(books music films games garden);
    for my $i (1 .. $n) {
        printf "%d,%s,%d,%.3f\n", $i, $w[$i % 5],
            int(rand(2**31)) - 2**30 + int(rand(2**31)) * 2**20, rand(1000) }' \
    "$KEYS" >"$DIR/data.csv"

median() {   # RUNS times, the median wall time in seconds of "$@"
    i=0
    while [ $i -lt "$RUNS" ]; do
        s=$(date +%s.%N)
        "$@" >/dev/null
        e=$(date +%s.%N)
        echo "$s $e" | awk '{ printf "%.3f\n", $2 - $1 }'
        i=$((i + 1))
    done | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'
}

bytes=$(wc -c <"$DIR/keys.bin")
echo "$KEYS u64 keys ($bytes bytes), -S $SIZE, median of $RUNS, $(nproc) CPUs"
echo
echo "| what | seconds | Mkeys/s |"
echo "| --- | ---: | ---: |"
row() {   # NAME SECONDS
    echo "| $1 | $2 | $(echo "$KEYS $2" | awk '{ printf "%.1f", $1 / $2 / 1e6 }') |"
}
row "portsort --binary, in memory" \
    "$(median "$PORTSORT" sort --binary --type u64 -o "$DIR/out.bin" "$DIR/keys.bin")"
row "portsort --binary -S $SIZE" \
    "$(median "$PORTSORT" sort --binary --type u64 -S "$SIZE" -T "$DIR/tmp" \
        -o "$DIR/out.bin" "$DIR/keys.bin")"
if [ "${GNU:-1}" != 0 ]; then
    row "GNU sort -n -s --parallel=$(nproc) -S $SIZE (text)" \
        "$(median sort -n -s --parallel="$(nproc)" -S "$SIZE" -T "$DIR/tmp" \
            -o "$DIR/out.txt" "$DIR/keys.txt")"
fi
row "portsort --type i64 -t, -k3 -S $SIZE (CSV, $(wc -c <"$DIR/data.csv") bytes)" \
    "$(median "$PORTSORT" sort --type i64 -t, -k3 -S "$SIZE" -T "$DIR/tmp" \
        -o "$DIR/out.csv" "$DIR/data.csv")"
if [ "${GNU:-1}" != 0 ]; then
    row "GNU sort -t, -k3,3 -n -s --parallel=$(nproc) -S $SIZE (CSV)" \
        "$(median sort -t, -k3,3 -n -s --parallel="$(nproc)" -S "$SIZE" \
            -T "$DIR/tmp" -o "$DIR/out2.csv" "$DIR/data.csv")"
fi
