#!/bin/sh
# The stand-in backend in backends/sample is found by the module scan
# (no edit of the core names it), listed by portsort info, ranked by its
# priority, and sorts every type, keys, pairs and argsort correctly through
# the public API (the differential tests of test/run-backend.sh).
top=${top_builddir:-.}
src=${srcdir:-.}
dir=$(cd "$top/backends/sample/.libs" 2>/dev/null && pwd) ||
    { echo "ps_sample.so not built: skipped"; exit 77; }
[ -f "$dir/ps_sample.so" ] || { echo "ps_sample.so not built: skipped"; exit 77; }
PORTSORT_MODULE_PATH=$dir
export PORTSORT_MODULE_PATH
unset PORTSORT_BACKEND

info=$("$top/tools/portsort" info 2>&1) || { echo "$info"; echo "FAIL: portsort info"; exit 1; }
echo "$info"
echo "$info" | grep -q '^  sample *usable (CPU) *stand-in' ||
    { echo "FAIL: info does not list the sample backend as usable"; exit 1; }
# Priority 1: below serial (10), so auto never prefers it.
echo "$info" | awk '$1 == "serial" { s = NR } $1 == "sample" { t = NR }
    END { exit !(s && t && s < t) }' ||
    { echo "FAIL: info does not rank sample (priority 1) after serial (10)"; exit 1; }
echo "$info" | grep -q '^chosen: *openmp\|^chosen: *serial' ||
    { echo "FAIL: auto chose a backend other than the CPU ones"; exit 1; }
msg=$(PORTSORT_BACKEND=nosuch "$top/tools/portsort" info 2>&1)
echo "$msg" | grep -q 'known: auto, .*sample' ||
    { echo "FAIL: the unknown-backend message does not list sample: $msg"; exit 1; }

# Up to 2^16 + 1 keys: the stand-in sorts with the reference code the
# serial backend's run checks at every size; what is tested here is the
# module's path through the core (CI's time, doc/reliability.md).
PS_TEST_MAX_N=${PS_TEST_MAX_N:-65537}
export PS_TEST_MAX_N
exec sh "$src/test/run-backend.sh" sample
