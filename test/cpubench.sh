#!/bin/sh
# bench/ps_cpubench, the benchmark of issue 34, on stand-in peers
# (test/standin/ps_bench_peer_stub.c) loaded through PS_BENCH_PEERS: every
# result is checked (a peer that sorts wrongly, or claims stable pairs and
# is not, is reported WRONG and the run exits 1; one that fails is
# reported failed), a shared object that declines, is missing or names a
# sorter badly is reported and left out, and the busy processes and
# ours-1t's process are gone after the run and after SIGINT.
. "${srcdir:-.}/test/cli/cli-common.sh"
# Ours on the backend auto picks here (openmp where it is built): the
# benchmark forks ours-1t's process before libportsort starts a thread.
PORTSORT_BACKEND=auto
top=${top_builddir:-.}
bench=$top/bench/ps_cpubench
stubs=$top/test/.libs
if [ ! -x "$bench" ] || [ ! -f "$stubs/ps_bench_stub_peers.so" ]; then
    echo "ps_cpubench or the stand-in peers not built"
    exit 99
fi

# gone PID...: none of these processes is left.
gone() {
    for p in "$@"; do
        if kill -0 "$p" 2>/dev/null; then
            return 1
        fi
    done
    return 0
}

# The pids a run printed: its spinning processes and ours-1t's process.
children() {
    sed -n -e 's/.*spinning process[es]* (pid \([0-9 ]*\)).*/\1/p' \
        -e 's/.*in child process \([0-9]*\).*/\1/p' "$1"
}

PS_BENCH_PEERS="$stubs/ps_bench_stub_peers.so:$stubs/ps_bench_stub_declines.so:$work/none.so"
export PS_BENCH_PEERS

# Few distinct keys, so that pairs have ties and stability shows.
"$bench" --both=1 -r 2 --gap 0 --batch-keys 2000 -s 1000,3000 -d few-spread --csv "$work/rows.csv" \
    >"$work/out" 2>"$work/err"
rc=$?
cat "$work/err"
[ "$rc" -eq 1 ] || fail "a run with wrong peers exits 1 (got $rc)"
grep -q "stub-wrong sorted wrongly" "$work/err" || fail "stub-wrong's results are reported"
grep -q "declined: stand-in: this CPU lacks" "$work/out" || fail "a declining peer says why"
grep -q "none.so: not loaded" "$work/out" || fail "a missing shared object is reported"
grep -q "sorter 5 left out" "$work/out" || fail "a sorter with a too long name is left out"
grep -q "^| n | ours | ours-1t |.*| fastest peer | ours/fastest |" "$work/out" ||
    fail "the summary tables are printed"
awk -F, '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
    s = $col["sorter"]; t = $col["type"]; st = $col["status"]
    pairs = t ~ /\+/
    rows[$col["load"] "/" t "/" $col["n"]]++
    if (s == "stub-wrong" || (s == "stub-liar" && pairs)) want = "wrong"
    else if (s == "stub-fail") want = "failed"
    else want = "ok"
    if (s == "stub-keys" && pairs) { print "stub-keys ran pairs"; bad = 1 }
    if (s ~ /much-too-long/) { print "the long name ran"; bad = 1 }
    if (st != want) { print s " on " t " n=" $col["n"] " " $col["load"] ": " st ", want " want; bad = 1 }
    if (st == "ok" && $col["mkeys_per_s"] + 0 <= 0) { print s ": no rate"; bad = 1 }
    if (s == "ours" && $col["bytes_per_key"] + 0 <= 0) { print "ours: no bytes per key"; bad = 1 }
    seen[s]++
}
END {
    n = 0
    for (k in rows) n++
    if (n != 24) { print n " (load, type, n) groups, want 24"; bad = 1 }
    split("ours ours-1t plain-lsd std-sort-1t std-stable-1t stub-sort stub-liar stub-fail stub-wrong stub-keys memcpy memcpy-1t", need, " ")
    for (i in need) if (seen[need[i]] == 0) { print "no rows for " need[i]; bad = 1 }
    exit bad
}' "$work/rows.csv" || fail "every sorter's rows have the right status"
pids=$(children "$work/out")
[ -n "$pids" ] || fail "the run names its child processes"
# shellcheck disable=SC2086
gone $pids || fail "no spinning process or ours-1t process outlives the run"

# Interrupted in the middle: the children go too, and the signal is not
# swallowed.
"$bench" --busy=2 -r 100000 --gap 0 --batch-keys 1 -s 2^14 -T u32 -p none >"$work/int" 2>&1 &
bpid=$!
i=0
while ! grep -qs "spinning processes" "$work/int" && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
sleep 0.2
kill -INT "$bpid"
wait "$bpid"
rc=$?
[ "$rc" -eq 130 ] || fail "SIGINT ends the run by SIGINT (status $rc, want 130)"
pids=$(children "$work/int")
[ "$(echo $pids | wc -w)" -eq 3 ] || fail "the interrupted run named 2 spinners and ours-1t ($pids)"
sleep 0.2
# shellcheck disable=SC2086
gone $pids || fail "SIGINT kills the spinning processes and ours-1t's process"

"$bench" --no-such-option >/dev/null 2>&1
[ $? -eq 2 ] || fail "a bad option exits 2"
"$bench" -T u33 >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown type exits 2"

finish
