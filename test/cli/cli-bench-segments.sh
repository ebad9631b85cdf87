#!/bin/sh
# portsort bench --segments: every segmentation shape, keys and pairs,
# gives verified rows for the segmented call, the loop of plain calls, the
# unsegmented reference and qsort per segment, also under --scratch-div;
# bad shapes and divisors are refused with a reason.
. "${srcdir:-.}/test/cli/cli-common.sh"

for shape in csr uniform:7 power-law:12 equal:3; do
    "$PORTSORT" bench --perf-csv-to-stdout --segments "$shape" --peers qsort \
        --types u32,f32 -n 5000 -r 1 >"$work/seg.csv" 2>"$work/err" ||
        { cat "$work/err"; fail "bench --segments $shape"; continue; }
    label=random/$shape
    for sorter in portsort portsort-loop portsort-whole qsort; do
        for type in u32 f32; do
            awk -F, -v s="$sorter" -v t="$type" -v d="$label" \
                '$1 == t && $4 == s && $5 == d && $6 == 5000 && $NF == 1 { found = 1 }
                 END { exit !found }' "$work/seg.csv" ||
                fail "--segments $shape: a verified $type row for $sorter ($label)"
        done
    done
done
echo "ok: --segments rows for every shape"

# Pairs: values move with their keys and stay in their segment.
"$PORTSORT" bench --perf-csv-to-stdout --segments uniform:50 --value-size 8 \
    --peers none --datasets root-dup -n 20000 -r 1 >"$work/pairs.csv" 2>"$work/err" ||
    { cat "$work/err"; fail "bench --segments --value-size 8"; }
awk -F, 'NR > 1 { rows++; if ($2 != 8 || $NF != 1) bad = 1 } END { exit bad || rows != 3 }' \
    "$work/pairs.csv" || fail "--segments with pairs: 3 verified rows with value_size 8"

# Under --scratch-div the segmented call with values runs in groups, its
# longest segments in pieces (lib/ps_seglimit.c), still verified stable.
# On serial: the OpenMP backend's fixed tables refuse the loop's calls on
# the shortest segments under the limit, and pairs of at most one piece
# (4096) have no route in pieces.
"$PORTSORT" bench --perf-csv-to-stdout --segments power-law:17 --value-size 4 \
    --peers none -b serial -n 200000 -r 1 --scratch-div 8 >"$work/lim.csv" \
    2>"$work/err" ||
    { cat "$work/err"; fail "bench --segments --value-size 4 --scratch-div 8"; }
awk -F, 'NR > 1 { rows++; if ($NF != 1) bad = 1 } END { exit bad || rows != 3 }' \
    "$work/lim.csv" || fail "--scratch-div 8: 3 verified rows"
"$PORTSORT" bench --scratch-div 0 -n 10 >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "scratch-div wants" "$work/err" ||
    fail "--scratch-div 0 is refused, with the range"

"$PORTSORT" bench --segments triangles -n 10 >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "unknown segment shape 'triangles'" "$work/err" ||
    fail "an unknown shape is refused, named"
"$PORTSORT" bench --segments uniform:0 -n 10 >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "bad parameter in --segments 'uniform:0'" "$work/err" ||
    fail "a zero parameter is refused, with the range"
finish
