#!/bin/sh
# A short portsort bench run: its CSV parses, has one verified row per
# (type, sorter, dataset, n), and --perf-to-csv and --plot write files.
. "${srcdir:-.}/test/cli/cli-common.sh"
need_cmd awk

types=u8,i32,f64
sizes=2^10,3000
"$PORTSORT" bench --perf-csv-to-stdout --types "$types" --sizes "$sizes" --datasets all \
    --repeats 2 --perf-to-csv "$work/bench.csv" >"$work/out.csv" 2>"$work/err"
rc=$?
cat "$work/err"
[ "$rc" -eq 0 ] || fail "bench exits 0 (got $rc)"

# 3 types x 14 datasets x 2 sizes x 2 sorters (portsort and qsort), plus
# vqsort on i32 alone (no 1-byte or float keys) when libhwy was found.
awk -F, -v want=168 -v extra=28 '
NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    split("type backend sorter dataset n repeats median_s mkeys_per_s gb_per_s verified", need, " ")
    for (k in need) if (!(need[k] in col)) { print "missing column " need[k]; bad = 1 }
    nf = NF; next
}
{
    rows++
    if (NF != nf) { print "line " NR ": " NF " fields"; bad = 1 }
    if ($col["verified"] != 1) { print "line " NR ": not verified"; bad = 1 }
    if ($col["median_s"] + 0 <= 0 || $col["mkeys_per_s"] + 0 <= 0 || $col["gb_per_s"] + 0 <= 0) {
        print "line " NR ": no rate"; bad = 1
    }
    if ($col["n"] != 1024 && $col["n"] != 3000) { print "line " NR ": n " $col["n"]; bad = 1 }
    if ($col["repeats"] != 2) { print "line " NR ": repeats " $col["repeats"]; bad = 1 }
    if ($col["sorter"] == "portsort" && $col["backend"] != "serial") {
        print "line " NR ": backend " $col["backend"]; bad = 1
    }
    if ($col["sorter"] == "vqsort") {
        vq++
        if ($col["type"] != "i32") { print "line " NR ": vqsort on " $col["type"]; bad = 1 }
    }
    seen[$col["type"] "/" $col["sorter"] "/" $col["dataset"] "/" $col["n"]]++
}
END {
    for (k in seen) { keys++; if (seen[k] != 1) { print k " twice"; bad = 1 } }
    if (vq != 0 && vq != extra) { print vq " vqsort rows, want 0 or " extra; bad = 1 }
    want += vq
    if (rows != want || keys != want) { print rows " rows, " keys " distinct, want " want; bad = 1 }
    exit bad
}' "$work/out.csv" || fail "the CSV on stdout parses into 84 (+14 vqsort) verified rows"
cmp -s "$work/out.csv" "$work/bench.csv" || fail "--perf-to-csv writes the same CSV"
for ds in zeros random random-distributed range inverted-range low-entropy sparse-matrix; do
    grep -q ",$ds," "$work/out.csv" || fail "dataset $ds measured"
done

# Pairs: values travel with their keys, stably (the bench verifies that),
# and qsort sorts them too.
"$PORTSORT" bench --perf-csv-to-stdout --value-size 8 --types u16,f32 \
    --datasets zeros,random,sparse-matrix -n 3000 -r 1 >"$work/pairs.csv" 2>"$work/err" ||
    { cat "$work/err"; fail "bench --value-size 8"; }
awk -F, 'NR > 1 { rows++; if ($2 != 8 || $NF != 1) bad = 1 } END { exit bad || rows != 12 }' \
    "$work/pairs.csv" || fail "the pairs CSV has 12 verified rows with value_size 8"
"$PORTSORT" bench --value-size 3 -n 10 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--value-size under 4 exits 2"

# f16 and bf16: every dataset, keys and pairs, verified, beside qsort with
# its totalOrder comparison; vqsort orders floats otherwise and sits out.
"$PORTSORT" bench --perf-csv-to-stdout --types f16,bf16 --datasets all -n 3000 -r 1 \
    >"$work/half.csv" 2>"$work/err" || { cat "$work/err"; fail "bench --types f16,bf16"; }
"$PORTSORT" bench --perf-csv-to-stdout --types f16,bf16 --value-size 8 \
    --datasets random,log-uniform,few-spread -n 3000 -r 1 >>"$work/half.csv" 2>"$work/err" ||
    { cat "$work/err"; fail "bench --types f16,bf16 --value-size 8"; }
awk -F, '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$1 == "type" { next }
{
    if ($col["verified"] != 1) { print "line " NR ": not verified"; bad = 1 }
    if ($col["type"] != "f16" && $col["type"] != "bf16") { print "line " NR ": type " $col["type"]; bad = 1 }
    if ($col["sorter"] != "portsort" && $col["sorter"] != "qsort") { print "line " NR ": sorter " $col["sorter"]; bad = 1 }
    n[$col["value_size"] "/" $col["sorter"]]++
}
END {
    if (n["0/portsort"] != 28 || n["0/qsort"] != 28 || n["8/portsort"] != 6 || n["8/qsort"] != 6) {
        for (k in n) print k ": " n[k]; bad = 1
    }
    exit bad
}' "$work/half.csv" || fail "f16 and bf16: 28 + 6 verified rows each for portsort and qsort"

# The human table, with every run's phases.
"$PORTSORT" bench --perf-to-stdout -n 2000 -r 1 --peers none >"$work/table" 2>&1 ||
    fail "bench --perf-to-stdout"
grep -q '^u32  *serial  *portsort  *random  *2000 .* ok$' "$work/table" ||
    fail "the table has the portsort row"
grep -q 'phases: generate' "$work/table" || fail "--perf-to-stdout shows the phases"
grep -q '^u32 *- *qsort' "$work/table" && fail "--peers none runs no peer"

# Charts, or a clear word that gnuplot is missing.
"$PORTSORT" bench -n 4096 -r 1 --plot "$work/plots" >/dev/null 2>"$work/err" ||
    fail "bench --plot"
if command -v gnuplot >/dev/null 2>&1; then
    [ -s "$work/plots/u32-random.png" ] || fail "--plot draws u32-random.png"
else
    grep -q 'gnuplot is not installed' "$work/err" || fail "--plot says gnuplot is missing"
fi
[ -s "$work/plots/u32-random.gp" ] || fail "--plot leaves its gnuplot script"

# Errors: a backend that cannot run, and bad options.
"$PORTSORT" bench -n 100 --backends nosuch,serial >"$work/out" 2>"$work/err"
[ $? -eq 1 ] || fail "an unusable backend makes bench exit 1"
grep -q 'nosuch' "$work/err" || fail "bench says which backend failed"
grep -q '^u32 *serial *portsort' "$work/out" && grep -q '^u32 *- *qsort' "$work/out" ||
    fail "the next backend still runs, with the peers"
"$PORTSORT" bench --datasets nosuch >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown dataset exits 2"
"$PORTSORT" bench --sizes 9:3 >/dev/null 2>&1
[ $? -eq 2 ] || fail "a backwards size range exits 2"
# A 65th size is refused with a reason, not silently.
"$PORTSORT" bench --sizes "$(seq -s, 1 65)" >/dev/null 2>"$work/err"
[ $? -eq 2 ] || fail "a 65th size exits 2"
grep -q 'too many entries for --sizes (at most 64)' "$work/err" || fail "a 65th size says why"
"$PORTSORT" bench --sizes 0:63,5 >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q 'too many entries for --sizes' "$work/err" ||
    fail "a range of 64 sizes and one more says why"
# Every sorter runs once untimed before its timed runs, so -r 1 does not
# report a first call's setup (issue 35): with -v each says so, first.
"$PORTSORT" bench -r 1 -v -n 1000 --types u32 >/dev/null 2>"$work/err" ||
    fail "bench -r 1 -v"
awk '/ warm-up: sort / { w[$5 " " $6]++ }
     / run 1: sort / { if (!w[$5 " " $6]) bad = 1; r++ }
     END { exit bad || r == 0 }' "$work/err" ||
    { grep -E 'warm-up|run 1' "$work/err" | head; fail "each sorter warms up before run 1"; }
finish
