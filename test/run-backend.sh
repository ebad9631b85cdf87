#!/bin/sh
# Run every backend-parametrised test program with PORTSORT_BACKEND=$1
# (PS_TEST_PROGRAMS, if set, names the ones to run instead).
# Exits 77 (skipped) when all of them skip, i.e. the backend is not usable.
# Each program gets PS_TEST_TIMEOUT seconds (default 1200): a hang must fail
# the suite, not stall it.  Each prints the seconds it took, so that the
# log shows where CI's time goes (doc/reliability.md, "CI's time").
backend=$1
PORTSORT_BACKEND=$backend
export PORTSORT_BACKEND
bin=${top_builddir:-.}/test
skipped=0
ran=0
for t in ${PS_TEST_PROGRAMS:-ps_test_diff ps_test_segments ps_test_topk ps_test_strings ps_test_records ps_test_memory ps_test_errors ps_test_threads ps_test_fork}; do
    t0=$(date +%s)
    timeout "${PS_TEST_TIMEOUT:-1200}" "$bin/$t"
    rc=$?
    echo "($t on $backend: $(($(date +%s) - t0)) s)"
    [ "$rc" -eq 124 ] && echo "$t timed out on backend $backend"
    case $rc in
        0) ran=$((ran + 1)) ;;
        77) skipped=$((skipped + 1)) ;;
        *) echo "$t failed on backend $backend (exit $rc)"; exit 1 ;;
    esac
done
if [ "$ran" -eq 0 ]; then
    echo "backend $backend not usable here: skipped"
    exit 77
fi
echo "all tests passed on backend $backend"
