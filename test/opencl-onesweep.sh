#!/bin/sh
# The Onesweep kernels (backends/kernels/ps_kernel_onesweep.cl, the
# default path of CUDA, HIP and OpenCL GPUs) on pocl, through the OpenCL
# backend forced onto them with PORTSORT_OPENCL_ALGO=onesweep (pocl is a
# CPU device, which runs reduce-then-scan by default): the
# backend-parametrised tests with pocl's own tuning (one work-item per
# work-group, tiles of 2048 keys) and with a GPU-shaped one (work-groups
# of 64 items ranking in local memory, tiles of 256 keys, so a 4097-key
# sort is 17 tiles looking back over each other on pocl's worker threads,
# launched in portions of 3 tiles); then the look-back's fallback,
# forced.  Skipped without the module.
top=$(cd "${top_builddir:-.}" && pwd)
if [ ! -f "$top/backends/opencl/.libs/ps_opencl.so" ]; then
    echo "OpenCL backend not built: skipped"
    exit 77
fi
PORTSORT_MODULE_PATH="${PORTSORT_MODULE_PATH:+$PORTSORT_MODULE_PATH:}$top/backends/opencl/.libs"
dir=$(mktemp -d "${TMPDIR:-/tmp}/ps-onesweep.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
XDG_CACHE_HOME=$dir
PORTSORT_OPENCL_ALGO=onesweep
PS_TEST_MAX_N=${PS_TEST_MAX_N:-20000}
export PORTSORT_MODULE_PATH XDG_CACHE_HOME PORTSORT_OPENCL_ALGO PS_TEST_MAX_N

# The switch must really select the path, or the runs below prove nothing:
# a first run up to 4097 keys, with the backend's log.
PORTSORT_BACKEND=opencl PORTSORT_VERBOSE=1 PS_TEST_MAX_N=4097 PS_TEST_TYPES=u32 \
    "$top/test/ps_test_diff" > "$dir/probe.log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
    echo "OpenCL backend not usable here: skipped"
    exit 77
fi
if [ "$rc" -ne 0 ]; then
    grep -v '^portsort:' "$dir/probe.log" | tail -20
    echo "FAIL: ps_test_diff on the Onesweep path (exit $rc)"
    exit 1
fi
n=$(grep -c 'opencl: onesweep, n=' "$dir/probe.log")
if [ "$n" -eq 0 ]; then
    echo "FAIL: PORTSORT_OPENCL_ALGO=onesweep did not run the Onesweep path"
    exit 1
fi
echo "--- onesweep, pocl tuning ($n sorts took the path in the probe run)"
# Sizes of 1000 keys and more (tiles of 2048: one tile, two, ten), one type
# of each width and transform.  The arrays below a tile sort in one
# work-group, the kernel opencl.sh runs on all twelve types; the key
# types' order images are the dialect's, shared by both paths; the
# Onesweep kernels were run on a GPU at every size up to 2^32 - 1 keys
# (doc/results-cuda.md).  All of it at every size took 210 s of CI's 45
# minutes (doc/reliability.md, "CI's time budget").
# ps_test_topk is left out of these runs: opencl.sh runs it on pocl once,
# and its selection runs in the core; only its sort of the candidates is
# the backend's (9 s a run on pocl).
PS_TEST_PROGRAMS="ps_test_diff ps_test_segments ps_test_errors ps_test_threads ps_test_fork"
export PS_TEST_PROGRAMS
PS_TEST_MIN_N=1000 PS_TEST_TYPES=u8,i16,f16,f32,u64 \
    "$(dirname "$0")/run-backend.sh" opencl || exit $?
echo "--- onesweep, GPU-shaped tuning, portions of 3 tiles"
# The runs below change the kernels' shape, not the order images the run
# above checked on all twelve types: one type of each width and transform
# (CI's time, doc/reliability.md).
PS_TEST_TYPES=u8,i16,f16,f32,u64
export PS_TEST_TYPES
# Each launch covers at most 3 tiles (768 keys), so a 4097-key pass runs
# 6 portions, each starting from the positions the one before left: the
# path every sort of 2^28 keys or more takes on a GPU.
tune="wg=64,items=4,bits=4,blocks=5,portion=3"
PORTSORT_BACKEND=opencl PORTSORT_VERBOSE=1 PS_TEST_MAX_N=2000 PORTSORT_OPENCL_TUNE=$tune \
    "$top/test/ps_test_diff" > "$dir/portions.log" 2>&1 ||
    { tail -20 "$dir/portions.log"; echo "FAIL: Onesweep over portions"; exit 1; }
grep -q 'opencl: onesweep, n=.*portions of 3 tiles' "$dir/portions.log" ||
    { echo "FAIL: the portion=3 tuning did not cut the sorts into portions"; exit 1; }
# Tiles of 256 keys: 255 to 4097 keys are 1 to 17 tiles, 1 to 6 portions
# (pocl runs each 64-item work-group's barriers on its threads: the same
# sizes up to 16385 took over 4 minutes).
# The sorts and the segmented sort only: the thread, fork and error tests
# exercise the host code, which the first run checked on this path and
# which no tuning changes (CI's time, doc/reliability.md).
PORTSORT_OPENCL_TUNE=$tune PS_TEST_MAX_N=4097 PS_TEST_MIN_N=255 \
    PS_TEST_PROGRAMS="ps_test_diff ps_test_segments" \
    "$(dirname "$0")/run-backend.sh" opencl || exit $?
# The look-back where a predecessor cannot run (no forward progress): one
# pocl thread runs the work-groups one at a time, and the kernels are
# built to hand the tiles out last first (PS_OS_ORDER=1) and to stop
# waiting at once (PS_OS_SPINS=0), so every look-back of the first
# work-group counts its predecessors' keys itself; then two threads with
# odd tiles first, so fallbacks race the owners' own publishing.  (Built
# with PS_OS_SPINS=0xffffffffu, i.e. no fallback, the first of these
# hangs at its first sort of two tiles: doc/cuda.md.)
# The look-back's protocol is the same code for every key type: one of
# each kernel width (4- and 8-byte keys) is enough here, and keys alone
# (values ride along the same ranks; each value width would be one more
# pocl build of about half a minute per order).
for order in 1 2; do
    threads=$order
    echo "--- look-back fallback: tiles in order $order, $threads pocl thread(s)"
    POCL_MAX_PTHREAD_COUNT=$threads PS_TEST_MAX_N=1100 PS_TEST_TYPES=u32,u64 PS_TEST_OPS=keys \
        PORTSORT_OPENCL_OPTIONS="-DPS_OS_SPINS=0u -DPS_OS_ORDER=${order}u" \
        PORTSORT_OPENCL_TUNE="wg=64,items=4,bits=4,blocks=5,portion=64" \
        PORTSORT_BACKEND=opencl timeout "${PS_TEST_TIMEOUT:-1200}" \
        "$top/test/ps_test_diff" || { echo "FAIL: look-back fallback, order $order"; exit 1; }
done
