#!/bin/sh
# ps_cli_vs_sort.sh - portsort sort against GNU sort on the same files, both
# writing to /dev/null: lines of one number, and CSV sorted by its third
# field, as floats (sort -g) and as integers (sort -n) with --type; then
# text sorted as sort(1) sorts it (no --type): random words of 1-20 bytes,
# URL-like lines with long shared prefixes, 1000 distinct lines repeated,
# distinct lines behind 1000 prefixes ("line-N-" and random letters: what
# the duplicates' file held before 2026-11-27, when the generator lost
# its tables), and CSV by a word field.  Prints a Markdown table of the median wall time
# of RUNS runs and the lines per second.
#
# Usage: bench/ps_cli_vs_sort.sh [PORTSORT] [SET]   SET: numbers, text or
# all (default).
#
# Usage: bench/ps_cli_vs_sort.sh [PORTSORT]   (default: ./tools/portsort)
# Environment: LINES_N (default 10000000), RUNS (default 3), DIR (scratch
# directory for the generated files, default a new one under /tmp).
set -eu
PORTSORT=${1:-./tools/portsort}
SET=${2:-all}
N=${LINES_N:-10000000}
RUNS=${RUNS:-3}
DIR=${DIR:-$(mktemp -d "${TMPDIR:-/tmp}/ps-vs-sort.XXXXXX")}
LC_ALL=C
export LC_ALL
mkdir -p "$DIR"
[ -x "$PORTSORT" ] || { echo "portsort not found at $PORTSORT" >&2; exit 2; }
sort --version | grep -q GNU || { echo "GNU sort needed" >&2; exit 2; }

# Floats with exponents and signs, about 1 in 8 repeated (ties); integers
# of up to 12 digits, negative too.
gen() {
    [ -s "$DIR/$1" ] && return 0
    # One BEGIN: awk runs BEGIN blocks in order, so tables set up in a
    # second one were still empty while the first generated the lines.
    # Integers are printed with %.0f: mawk's %d stops at 2^31 - 1.
    awk -v n="$N" -v kind="$1" 'BEGIN { srand(42);
        split("books music films games garden kitchen tools toys", s0, " ");
        for (k = 0; k < 8; k++) sect[k] = s0[k + 1]
        for (k = 0; k < 1000; k++) dup[k] = "line-" k "-" word(8 + k % 3)
        for (i = 0; i < n; i++) {
            if (i % 8 == 0 && i > 0) { f = lastf; d = lastd }
            else { f = (rand() - 0.5) * 10 ^ int(rand() * 24 - 12);
                   d = int((rand() - 0.5) * 2e12) }
            lastf = f; lastd = d
            if (kind == "f64.txt") printf "%.15g\n", f
            else if (kind == "i64.txt") printf "%.0f\n", d
            else if (kind == "f64.csv") printf "%d,item%d,%.10g,x\n", i, i % 1000, f
            else if (kind == "i64.csv") printf "%d,item%d,%.0f,x\n", i, i % 1000, d
            else if (kind == "words.txt") print word(1 + int(rand() * 20))
            else if (kind == "urls.txt")
                printf "https://www.example.com/catalog/%s/%s/item-%d.html\n",
                       sect[int(rand() * 8)], word(6), int(rand() * 1e6)
            else if (kind == "dups.txt") print dup[int(rand() * 1000)]
            else if (kind == "prefixes.txt") print "line-" int(rand() * 1000) "-" word(8 + (i % 3))
            else printf "%d,%s,%.0f\n", i, word(1 + int(rand() * 12)), d } }
        function word(len,   w, j) { w = ""; for (j = 0; j < len; j++)
            w = w sprintf("%c", 97 + int(rand() * 26)); return w }' >"$DIR/$1"
}

# secs CMD...: "WALL CPU" seconds of one run (CPU: user + system, which
# a busy machine disturbs less than the wall time), output to /dev/null.
secs() {
    /usr/bin/time -f "%e %U %S" -o "$DIR/time" "$@" >/dev/null
    awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$DIR/time"
}

# median CMD...: the median of RUNS runs, by wall time.
median() {
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        secs "$@"
        i=$((i + 1))
    done | sort -g | awk '{ w[NR] = $1; c[NR] = $2 }
        END { m = int((NR + 1) / 2); print w[m], c[m] }'
}

echo "| input | portsort command | portsort s (CPU s) | GNU sort command | GNU sort s (CPU s) | speedup (CPU) |"
echo "|---|---|---:|---|---:|---:|"
row() {
    file=$1 ours=$2 theirs=$3
    gen "$file"
    # Outputs must agree before the times mean anything (-s: GNU sort
    # breaks ties by the whole line unless told to keep the input order).
    # shellcheck disable=SC2086
    $PORTSORT sort $ours "$DIR/$file" | cksum >"$DIR/a"
    # shellcheck disable=SC2086
    sort -s $theirs "$DIR/$file" | cksum >"$DIR/b"
    cmp -s "$DIR/a" "$DIR/b" || echo "WARNING: outputs differ for $file" >&2
    # shellcheck disable=SC2086
    a=$(median $PORTSORT sort $ours "$DIR/$file")
    # shellcheck disable=SC2086
    b=$(median sort $theirs "$DIR/$file")
    echo "$a $b" | awk -v f="$file ($N lines, $(du -m "$DIR/$file" | cut -f1) MB)" \
        -v o="portsort sort $ours" -v t="sort $theirs" '{
        printf "| %s | `%s` | %.2f (%.2f) | `%s` | %.2f (%.2f) | %.1fx (%.1fx) |\n",
               f, o, $1, $2, t, $3, $4, $3 / $1, $4 / $2 }'
}
SORTOPT="-S 50% --parallel=$(nproc)"
if [ "$SET" != text ]; then
    row f64.txt "--type f64" "-g $SORTOPT"
    row f64.csv "--type f64 -t, -k3" "-t, -k3,3g $SORTOPT"
    row i64.txt "--type i64" "-n $SORTOPT"
    row i64.csv "--type i64 -t, -k3" "-t, -k3,3n $SORTOPT"
fi
if [ "$SET" != numbers ]; then
    row words.txt "" "$SORTOPT"
    row urls.txt "" "$SORTOPT"
    row dups.txt "" "$SORTOPT"
    row prefixes.txt "" "$SORTOPT"
    row words.csv "-s -t, -k2,2" "-s -t, -k2,2 $SORTOPT"
fi
echo
echo "backend: $($PORTSORT info 2>/dev/null | grep -i 'chosen' | head -1)"
echo "$(lscpu | grep 'Model name' | sed 's/  */ /g'), $(nproc) CPUs; $(date -u +%Y-%m-%d); runs: $RUNS, median"
