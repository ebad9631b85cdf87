#!/bin/sh
# The backend-parametrised tests on the OpenCL backend (pocl in CI), with a
# private program cache.  Sizes are capped (PS_TEST_MAX_N) so the run stays
# within minutes on two cores: up to 2^16 + 1 covers the single-work-group
# path and the multi-block reduce-then-scan path.  A second run forces the
# GPU-shaped tuning (work-groups of 64, 4-bit digits) so the barrier and
# local-scan code that a GPU runs is tested on pocl too.
# The module of this build tree (Makefile.am's path has the test stubs).
PORTSORT_MODULE_PATH="${PORTSORT_MODULE_PATH:+$PORTSORT_MODULE_PATH:}$(cd "${top_builddir:-.}" && pwd)/backends/opencl/.libs"
export PORTSORT_MODULE_PATH
dir=$(mktemp -d "${TMPDIR:-/tmp}/ps-opencl.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
XDG_CACHE_HOME=$dir
export XDG_CACHE_HOME
PS_TEST_MAX_N=${PS_TEST_MAX_N:-65537}
export PS_TEST_MAX_N
"$(dirname "$0")/run-backend.sh" opencl || exit $?
# A GPU's shape: the padded counter matrix (PS_CNT, 32 items and more) and
# one key per item, as the HIP module's tiles of 16-byte pairs have (items
# 8, 4 and 2 run on the CUDA stand-in, gpu-fake.sh).
echo "--- GPU-shaped tuning"
# One type of each width, with each transform (unsigned, signed, float,
# half): the tuning changes the kernels' shape, not the order images that
# the first run checked on all twelve types (CI's time, doc/reliability.md).
# The thread and fork tests exercise the host code, which no tuning
# changes: the first run has them.
tune="wg=64,items=1,bits=4,blocks=5"
PORTSORT_OPENCL_TUNE=$tune PS_TEST_MAX_N=16385 PS_TEST_TYPES=u8,i16,f16,f32,u64 \
    PS_TEST_PROGRAMS="ps_test_diff ps_test_errors" \
    "$(dirname "$0")/run-backend.sh" opencl || exit $?
# The segmented sort with this tuning's tiles of 64 keys: every size class
# of the device's own path (small up to 32 keys, medium up to 64, large
# beyond: together in tiles below 300 keys, the plain sort from there)
# must have run, as the backend's log says.
echo "--- segmented sort, GPU-shaped tuning"
PORTSORT_OPENCL_TUNE="$tune,huge=300" PS_TEST_MAX_N=16385 PORTSORT_BACKEND=opencl \
    PORTSORT_VERBOSE=1 "${top_builddir:-.}/test/ps_test_segments" > "$dir/seg.log" 2>&1
rc=$?
grep -v '^portsort:' "$dir/seg.log"
[ "$rc" -eq 0 ] || exit 1
awk -v huge=1 -f "$(dirname "$0")/seg-classes.awk" "$dir/seg.log"
# A tuning with tiles of one key (wg=1,items=1) is raised to two: the
# segment kernels, built in the same program, need a small class of at
# least 2 keys, and a tile of 1 once failed the build of every sort.
PORTSORT_OPENCL_TUNE=wg=1,items=1 PS_TEST_MAX_N=2000 PORTSORT_BACKEND=opencl \
    "${top_builddir:-.}/test/ps_test_segments" || exit 1
