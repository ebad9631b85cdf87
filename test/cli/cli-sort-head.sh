#!/bin/sh
# portsort sort --head K (ps_topk): the same bytes as the whole sort's
# output cut after K lines (text) or K keys and values (binary), on text
# with many ties at the K-th key (so stability decides which lines make the
# cut), descending, --skip-bad, --values, binary keys and pairs, K = 0,
# 1, n - 1, n and beyond; and the refusals.  On serial and, where built,
# openmp.
. "${srcdir:-.}/test/cli/cli-common.sh"
need_cmd awk
need_cmd head
need_cmd perl

# 50000 lines, keys from 0 to 99 (500 ties each), the line number after
# the key so that any reordering of ties shows; some lines without a key.
awk 'BEGIN { srand(7); for (i = 0; i < 50000; i++) {
        if (i % 997 == 0) printf "bad line %d\n", i;
        else printf "%d,line %d\n", int(rand() * 100) - 40, i } }' >"$work/t.csv"
# Binary: 30000 u64 keys with ties (300 values), and 12-byte values.
perl -e 'srand(9); print pack("Q<*", map { int(rand(300)) } 1 .. 30000)' >"$work/keys.bin"
head -c 360000 /dev/urandom >"$work/vals.bin"

backends=serial
"$PORTSORT" info 2>/dev/null | grep -Eq '^ *openmp +usable' && backends="serial openmp"
for b in $backends; do
    export PORTSORT_BACKEND=$b
    for k in 0 1 7 500 501 12345 49949 49950 100000; do
        for r in "" -r; do
            "$PORTSORT" sort --type i32 -t, -k1 $r --skip-bad "$work/t.csv" 2>/dev/null |
                head -n "$k" >"$work/want"
            "$PORTSORT" sort --type i32 -t, -k1 $r --skip-bad --head "$k" "$work/t.csv" \
                >"$work/got" 2>/dev/null
            same "$work/want" "$work/got" "$b: text --head $k $r (= the sort cut after $k lines)"
        done
    done
    grep -v bad "$work/t.csv" >"$work/g.csv"
    awk -F, '{ print "value of " $2 }' "$work/g.csv" >"$work/gv.txt"
    "$PORTSORT" sort --type i32 -t, -k1 -r "$work/g.csv" --values "$work/gv.txt" \
        --values-out "$work/vall" >"$work/all"
    head -n 777 "$work/all" >"$work/want"
    head -n 777 "$work/vall" >"$work/vwant"
    [ "$(wc -l <"$work/vwant")" -eq 777 ] || fail "$b: the whole sort with --values failed"
    "$PORTSORT" sort --type i32 -t, -k1 -r --head 777 "$work/g.csv" --values "$work/gv.txt" \
        --values-out "$work/vgot" >"$work/got"
    same "$work/want" "$work/got" "$b: text --head with --values: the keys' lines"
    same "$work/vwant" "$work/vgot" "$b: text --head with --values: the values' lines"
    for k in 0 1 299 3000 29999 30000 40000; do
        n=$k; [ "$n" -gt 30000 ] && n=30000
        "$PORTSORT" sort --binary --type u64 "$work/keys.bin" --values "$work/vals.bin" \
            --value-size 12 --values-out "$work/vall" >"$work/kall"
        head -c $((n * 8)) "$work/kall" >"$work/want"
        head -c $((n * 12)) "$work/vall" >"$work/vwant"
        "$PORTSORT" sort --binary --type u64 --head "$k" "$work/keys.bin" --values "$work/vals.bin" \
            --value-size 12 --values-out "$work/vgot" >"$work/got"
        same "$work/want" "$work/got" "$b: binary pairs --head $k: keys"
        same "$work/vwant" "$work/vgot" "$b: binary pairs --head $k: values"
    done
    "$PORTSORT" sort --binary --type u64 -r "$work/keys.bin" | head -c 800 >"$work/want"
    "$PORTSORT" sort --binary --type u64 -r --head 100 <"$work/keys.bin" >"$work/got"
    same "$work/want" "$work/got" "$b: binary keys -r --head 100 from a pipe"
done

# Refusals: exit 2 and a reason; nothing written.
for args in "--head" "--head x" "--head -1" "--head 3 -u" "--head 3 -c"; do
    # shellcheck disable=SC2086
    printf '1\n' | "$PORTSORT" sort --type u8 --text $args >"$work/got" 2>"$work/err"
    rc=$?
    if [ "$rc" -ne 2 ] || [ -s "$work/got" ] || ! [ -s "$work/err" ]; then
        fail "--head refusal '$args': exit $rc, $(head -c 200 "$work/err")"
    else
        echo "ok: '$args' refused: $(head -n 1 "$work/err")"
    fi
done
finish
