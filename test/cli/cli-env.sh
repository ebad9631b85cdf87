#!/bin/sh
# The environment variables of the library, through the tool: the library
# is silent on stderr unless PORTSORT_VERBOSE=1, which then says which
# backends were tried and why each was skipped; PORTSORT_THREADS sets the
# OpenMP backend's thread count; malformed values are refused.
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
    # Without PORTSORT_THREADS, OMP_NUM_THREADS (its first number) sets it;
    # PORTSORT_THREADS wins over it; a malformed one is OpenMP's to judge,
    # so it is ignored, not refused.
    OMP_NUM_THREADS=3,2 "$PORTSORT" info | grep -q "openmp .*host CPU, 3 thread" ||
        fail "OMP_NUM_THREADS=3,2 sets the OpenMP thread count to 3"
    OMP_NUM_THREADS=3 PORTSORT_THREADS=1 "$PORTSORT" info |
        grep -q "openmp .*host CPU, 1 thread" ||
        fail "PORTSORT_THREADS=1 wins over OMP_NUM_THREADS=3"
    OMP_NUM_THREADS=bogus "$PORTSORT" info | grep -q '^  openmp *usable' ||
        fail "OMP_NUM_THREADS=bogus made the OpenMP backend unusable"
else
    echo "openmp not built: PORTSORT_THREADS not tested"
fi

# A malformed value is refused, whichever backend is chosen: the sort fails
# with the tool's one line naming the variable and what it accepts (the
# library itself prints nothing), and nothing is written.
for bad in PORTSORT_THREADS=bogus PORTSORT_VERBOSE=no PORTSORT_GPU_MIN_N=1e6 \
           PORTSORT_MEMORY_LIMIT=12X PORTSORT_MEMORY_LIMIT=-1 \
           PORTSORT_MEMORY_LIMIT=99999999999999999999G; do
    rm -f "$work/out4.txt"
    env "$bad" PORTSORT_BACKEND=serial "$PORTSORT" sort --text --type u32 \
        -o "$work/out4.txt" "$work/in.txt" 2>"$work/err" &&
        fail "$bad: the sort succeeded"
    [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "$bad: invalid value (accepted: " "$work/err" ||
        { cat "$work/err"; fail "$bad: not refused with the variable and what is accepted"; }
    [ -e "$work/out4.txt" ] && fail "$bad: an output was written"
done

# PORTSORT_MEMORY_LIMIT well-formed.  A binary array of 5000 keys under
# 1K (their scratch refused) is sorted in place: the same bytes as without
# a limit.  Text lines are sorted as (key, line) pairs, which need their
# scratch: under 1K the sort fails, saying the limit refused it, and
# writes nothing; 1m lets it run.
awk 'BEGIN { x = 12345; for (i = 0; i < 5000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648; print x } }' >"$work/in.txt"
PORTSORT_BACKEND=serial "$PORTSORT" sort --text --type u32 -o "$work/want.txt" \
    "$work/in.txt" || fail "the sort without a limit failed"
head -c 20000 /dev/urandom >"$work/in.bin"
PORTSORT_BACKEND=serial "$PORTSORT" sort --binary --type u32 -o "$work/want.bin" \
    "$work/in.bin" || fail "the binary sort without a limit failed"
for lim in 1K 64k 1m 4096; do
    PORTSORT_MEMORY_LIMIT=$lim PORTSORT_BACKEND=serial "$PORTSORT" sort \
        --binary --type u32 -o "$work/got.bin" "$work/in.bin" ||
        fail "PORTSORT_MEMORY_LIMIT=$lim: the binary sort failed"
    cmp -s "$work/got.bin" "$work/want.bin" ||
        fail "PORTSORT_MEMORY_LIMIT=$lim: a different binary output"
done
rm -f "$work/got.txt"
PORTSORT_MEMORY_LIMIT=1K PORTSORT_BACKEND=serial "$PORTSORT" sort --text \
    --type u32 -o "$work/got.txt" "$work/in.txt" 2>"$work/err" &&
    fail "PORTSORT_MEMORY_LIMIT=1K: the text sort (pairs) succeeded"
grep -q "memory limit, 1024 bytes" "$work/err" ||
    { cat "$work/err"; fail "PORTSORT_MEMORY_LIMIT=1K: the refusal does not name the limit"; }
[ -e "$work/got.txt" ] && fail "PORTSORT_MEMORY_LIMIT=1K: an output was written"
PORTSORT_MEMORY_LIMIT=1m PORTSORT_BACKEND=serial "$PORTSORT" sort --text \
    --type u32 -o "$work/got.txt" "$work/in.txt" ||
    fail "PORTSORT_MEMORY_LIMIT=1m: the text sort failed"
cmp -s "$work/got.txt" "$work/want.txt" ||
    fail "PORTSORT_MEMORY_LIMIT=1m: a different output"

finish
