#!/bin/sh
# The environment variables of the library, through the tool: the library
# is silent on stderr unless PORTSORT_VERBOSE=1, which then says which
# backends were tried and why each was skipped; PORTSORT_THREADS sets the
# OpenMP backend's thread count.
. "${srcdir:-.}/test/cli/cli-common.sh"

printf '3\n1\n2\n' >"$work/in.txt"

# Silent by default, even when a backend is refused.
"$PORTSORT" sort --text --type u32 -o "$work/out.txt" "$work/in.txt" 2>"$work/err" ||
    fail "a serial sort succeeds"
[ -s "$work/err" ] && { fail "the library printed without PORTSORT_VERBOSE"; cat "$work/err"; }
PORTSORT_BACKEND=cuda PORTSORT_MODULE_PATH="$work" "$PORTSORT" sort --text --type u32 \
    -o "$work/out2.txt" "$work/in.txt" 2>"$work/err"
# The tool says why it failed (one line); the library adds nothing.
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "module ps_cuda.so not found" "$work/err" ||
    fail "a refused backend gives the tool's one-line reason"
grep -q "not available\|trying module\|using backend" "$work/err" &&
    fail "the library printed on a refused backend without PORTSORT_VERBOSE"

# PORTSORT_VERBOSE=1 explains the choice and every skip.
PORTSORT_VERBOSE=1 PORTSORT_BACKEND=auto PORTSORT_MODULE_PATH="$work" \
    "$PORTSORT" sort --text --type u32 -o "$work/out3.txt" "$work/in.txt" 2>"$work/err" ||
    fail "an auto sort succeeds"
for want in "cuda: not available: module ps_cuda.so not found" \
            "hip: not available" "opencl: not available" "using backend"; do
    grep -q "portsort: $want" "$work/err" || fail "PORTSORT_VERBOSE=1 says '$want'"
done
[ -s "$work/out3.txt" ] || fail "the verbose run still sorted"

# PORTSORT_THREADS, when the OpenMP backend is built.
if "$PORTSORT" info | grep -q '^  openmp *usable'; then
    for t in 1 3; do
        PORTSORT_THREADS=$t "$PORTSORT" info | grep -q "openmp .*host CPU, $t thread" ||
            fail "PORTSORT_THREADS=$t sets the OpenMP thread count"
    done
    PORTSORT_THREADS=bogus PORTSORT_VERBOSE=1 PORTSORT_BACKEND=openmp \
        "$PORTSORT" info >/dev/null 2>"$work/err"
    grep -q "ignoring PORTSORT_THREADS=bogus" "$work/err" ||
        fail "a bad PORTSORT_THREADS is reported under PORTSORT_VERBOSE"
else
    echo "openmp not built: PORTSORT_THREADS not tested"
fi

finish
