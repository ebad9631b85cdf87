#!/bin/sh
# The CUDA backend's host code on the CPU stand-in runtime: installs
# test/.libs/ps_gpu_fake.so as ps_cuda.so in a private module directory and
# runs ps_test_gpu_fake with PORTSORT_BACKEND=cuda (which also checks that
# a forked child is refused) on each path: the default, which must be
# Onesweep (its warp-level ranking runs on the stand-in's emulated warps),
# and reduce-then-scan forced with PORTSORT_GPU_ALGO=portable; Onesweep's
# look-back where a predecessor cannot run, and its ranking on 64-wide
# warps; then devices, faults and the refusal when there is no device.
top=$(cd "${top_builddir:-.}" && pwd)
so="$top/test/.libs/ps_gpu_fake.so"
if [ ! -f "$so" ]; then
    echo "no $so (shared libraries disabled?)"
    exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/ps-gpu-fake.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cp "$so" "$dir/ps_cuda.so" || exit 1
PORTSORT_MODULE_PATH=$dir
# LeakSanitizer's stop-the-world tracer crashed ("Tracer caught signal
# 11") walking the stand-in's work-items when they were threads; they are
# fibers now, whose stacks it does not know either; ASan's memory checks
# stay on.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
PORTSORT_BACKEND=cuda
export PORTSORT_MODULE_PATH PORTSORT_BACKEND
# run ALGO LOG-LINE [TOPK]: the test on one path, which the backend's log
# must show; TOPK 0 leaves the device top-k out (ps_test_gpu_fake.c).
run() {
    echo "--- PORTSORT_GPU_ALGO=${1:-(default)}"
    PS_GPU_FAKE_TOPK=${3:-1} PORTSORT_GPU_ALGO=$1 PORTSORT_VERBOSE=1 "$top/test/ps_test_gpu_fake" \
        > "$dir/log" 2>&1
    rc=$?
    grep -v '^portsort:' "$dir/log"
    [ "$rc" -eq 0 ] || exit 1
    if ! grep -q "cuda: $2, n=" "$dir/log"; then
        echo "FAIL: no sort took the $2 path"
        exit 1
    fi
}
run "" onesweep
# The device top-k on the default path only (ps_test_gpu_fake.c says why).
run portable reduce-then-scan 0
# The look-back without forward progress: the stand-in runs work-groups
# one at a time, and PS_FAKE_OS_ORDER hands the tiles out so that a
# work-group waits for one that has not run and cannot until it ends (1:
# last tile first, every look-back of the first work-group a chain of
# fallbacks; 2: odd tiles first, fallbacks mixed with published words).
# Portions of 8 tiles, so that the chains are long.  First the look-back
# without its fallback, which must never end (the stand-in aborts it
# after 1000 rounds), so the orders really do create that situation.
echo "--- look-back without fallback, last tile first: must wait for ever"
PS_FAKE_OS_ORDER=1 PS_FAKE_OS_SPINS=never "$top/test/ps_test_gpu_fake" onesweep \
    > "$dir/log" 2>&1
rc=$?
tail -1 "$dir/log"
if [ "$rc" -eq 0 ] || ! grep -q 'no forward progress' "$dir/log"; then
    echo "FAIL: the look-back without fallback ended (exit $rc)"
    exit 1
fi
# The second run also ranks on 64-wide warps, as HIP does on AMD's GCN and
# CDNA GPUs (gfx90a), with 64-bit ballots; every other run here has
# 32-wide warps, as CUDA and RDNA (gfx1100), with the same 64-bit ballots
# HIP has there (test/hip-wavesize.sh checks which width hipcc compiles
# for which target).
# The first keeps the stand-in's portions of 2 tiles (PS_GPU_OS_PORTION_TILES),
# so its sorts run each pass as several launches, each starting from the
# positions the one before left, as sorts of 2^29 keys and more do on a
# GPU: at least one sort must have taken that path.
# PS_GPU_FAKE_KERNEL_MAX_N caps the sizes of these runs and of the one
# without memory pools, which test the kernels' look-back and ranking and
# the scratch's allocation, not sizes: the ASan step sets it (20000: still
# more than the stand-in's portions of 2 tiles of up to 8192 keys), as
# the stand-in's work-items under ASan made this script its longest test
# (9-11 minutes; CI's time, doc/reliability.md).
kmax=${PS_GPU_FAKE_KERNEL_MAX_N:-}
limit=PS_GPU_FAKE_KERNEL_MAX_N=${kmax:-unset}    # a word for env, harmless
[ -n "$kmax" ] && limit=PS_TEST_MAX_N=$kmax
# The third is a GPU's common case: tiles in order, every look-back
# finding its predecessor's inclusive prefix, over portions of 8 tiles (of
# 2, as elsewhere, no tile ever reads an inclusive prefix published by a
# look-back, only tile 0's).  The last two hand the tiles out scrambled
# (order 3), so that chains of every length mix.  The fifth word is the
# warp ranking's form (PS_FAKE_MATCH): the ballots in C (HIP's), CUDA's
# one-bit matches (its default) or match-any (a variant).
for case in "1 8 32 0 ballot" "2 0 64 8 any" "0 0 32 8 bit" "3 2 32 8 ballot" \
    "3 0 64 0 bit"; do
    set -- $case
    echo "--- look-back with fallback, PS_FAKE_OS_ORDER=$1 PS_FAKE_OS_SPINS=$2," \
        "warps of $3, portions of ${4:-2} tiles, ranking by $5"
    PS_FAKE_OS_ORDER=$1 PS_FAKE_OS_SPINS=$2 PS_FAKE_WARP=$3 PS_FAKE_OS_PORTION_TILES=$4 \
        PS_FAKE_MATCH=$5 \
        env "$limit" PORTSORT_VERBOSE=1 "$top/test/ps_test_gpu_fake" onesweep \
        > "$dir/log" 2>&1
    rc=$?
    grep -v '^portsort:' "$dir/log"
    [ "$rc" -eq 0 ] || exit 1
    cat "$dir/log" >> "$dir/onesweep.log"
done
if ! grep 'cuda: onesweep, n=' "$dir/onesweep.log" |
    sed -n 's/.* \([0-9]*\) tiles of .*portions of \([0-9]*\) tiles.*/\1 \2/p' |
    awk '$1 > $2 { found = 1 } END { exit !found }'; then
    echo "FAIL: no Onesweep sort ran over several portions"
    exit 1
fi
# Segmented sorts through the backend's own sort_segments: every type,
# shape and direction up to 100 keys, a third of those combinations at
# 1000 keys, and one type case at 140000 keys.  Every size class must have
# run on the device, large segments both together and (from 20000 keys on
# the stand-in, PS_GPU_SEG_HUGE) one plain sort each.
# PS_GPU_FAKE_SEG_BIG=0 leaves out the case at 140000 keys (30 s here,
# minutes under ASan, whose step sets it: a huge segment's host code is
# the plain sort's, which the cases above run), and with it the huge class.
big=${PS_GPU_FAKE_SEG_BIG:-1}
echo "--- ps_test_segments"
PS_TEST_MAX_N=1000 PS_TEST_SEGMENTS_SAMPLE=3 PS_TEST_SEGMENTS_BIG=$big \
    PS_TEST_SEGMENTS_BIG_N=140000 \
    PORTSORT_VERBOSE=1 "$top/test/ps_test_segments" > "$dir/log" 2>&1
rc=$?
grep -v '^portsort:' "$dir/log"
[ "$rc" -eq 0 ] || exit 1
awk -v huge="$big" -f "$(dirname "$0")/seg-classes.awk" "$dir/log" || exit 1
# A device without memory pools: the device API's own scratch must come
# from plain allocations instead of failing.  Allocation does not depend
# on the key type: two types (4- and 8-byte keys), not the whole matrix
# again (CI's time budget).
(
    PS_FAKE_NO_POOLS=1 PS_TEST_TYPES=u32,f64
    export PS_FAKE_NO_POOLS PS_TEST_TYPES
    if [ -n "$kmax" ]; then
        PS_TEST_MAX_N=$kmax
        export PS_TEST_MAX_N
    fi
    # Capped (the ASan run of CI), the device top-k is left to the first
    # run above: its allocations without pools run in the plain build.
    run "" onesweep ${kmax:+0}
) || exit 1
# Devices and contexts (ps_test_gpu_ctx.c): two GPUs, the backend on one
# the application does not use, on the application's, on one without a
# kernel image; then a kernel fault, for a named backend and under auto.
ctx() {   # MODE [VAR=VALUE]...
    mode=$1
    shift
    echo "--- ps_test_gpu_ctx $mode $*"
    env PS_FAKE_DEVICES=2 "$@" "$top/test/ps_test_gpu_ctx" "$mode" || exit 1
}
ctx other-device PORTSORT_CUDA_DEVICE=1
ctx current
ctx no-image PS_FAKE_NO_IMAGE=0
ctx fault PS_FAKE_FAULT_LAUNCH=1
ctx fault-auto PS_FAKE_FAULT_LAUNCH=1 PORTSORT_BACKEND=auto PORTSORT_GPU_MIN_N=0
# ... and with a crossover, whose CPU backend takes over
ctx fault-auto PS_FAKE_FAULT_LAUNCH=1 PORTSORT_BACKEND=auto PORTSORT_GPU_MIN_N=100
ctx no-entry PORTSORT_CUDA_DEVICE=1 PS_FAKE_NO_ENTRY_POINTS=1
ctx no-entry-chosen PORTSORT_CUDA_DEVICE=1 PS_FAKE_NO_ENTRY_POINTS=1
ctx launch-limit PS_FAKE_MAX_ITEMS=1280
ctx alloc
ctx alloc PS_FAKE_POOL_FAILS=1
# No device: refused like the real module on a GPU-less machine.
PS_FAKE_DEVICES=0 "$top/test/ps_test_gpu_refused" cuda || exit 1
# A driver too old for the runtime the module links, and none at all: each
# refused with the reason in words a user acts on.
PS_FAKE_DRIVER_VERSION=12040 "$top/test/ps_test_gpu_refused" cuda > "$dir/log" 2>&1
rc=$?
cat "$dir/log"
[ "$rc" -eq 0 ] || exit 1
grep -q 'CUDA driver too old (needs >= 13.0, has 12.4)' "$dir/log" || {
    echo "FAIL: an old driver was not named as such"
    exit 1
}
PS_FAKE_DRIVER_VERSION=0 "$top/test/ps_test_gpu_refused" cuda > "$dir/log" 2>&1
rc=$?
cat "$dir/log"
[ "$rc" -eq 0 ] && grep -q 'no CUDA driver' "$dir/log" || {
    echo "FAIL: a missing driver was not named as such"
    exit 1
}
# The device lost while a sort copies its result back: the k-th copy to
# the host fails, for every k up to past the last copy of one sort.  The
# caller's arrays must come out unchanged (ps_test_gpu_copyfault checks),
# and some k must fail while the values come back, after the keys.
for op in keys pairs4 pairs8 argsort; do
    k=1
    while :; do
        out=$(PS_FAKE_FAIL_COPY_OUT=$k "$top/test/ps_test_gpu_copyfault" $op) || {
            echo "$out"
            echo "FAIL: ps_test_gpu_copyfault $op with copy $k failing"
            exit 1
        }
        case $out in *sorted) break ;; esac
        k=$((k + 1))
        if [ "$k" -gt 200 ]; then
            echo "FAIL: ps_test_gpu_copyfault $op never got past the copies"
            exit 1
        fi
    done
    echo "copy-back faults: $op failed cleanly at each of copies 1-$((k - 1))"
    case $op in keys|argsort) ;; *)
        # 3000 4-byte keys come back in 12 chunks of 1000 bytes: values
        # start at copy 13.
        [ "$k" -gt 13 ] || { echo "FAIL: no fault hit the values ($op)"; exit 1; } ;;
    esac
done
