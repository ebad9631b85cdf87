#!/bin/sh
# The Onesweep kernels (backends/kernels/ps_kernel_onesweep.cl, the CUDA
# backend's default path) on pocl, through the OpenCL backend forced onto
# them with PORTSORT_OPENCL_ALGO=onesweep: the backend-parametrised tests
# with pocl's own tuning (one work-item per work-group, tiles of 2048 keys)
# and with a GPU-shaped one (work-groups of 64 items ranking in local
# memory, tiles of 256 keys, so a 16385-key sort is 65 tiles looking back
# over each other on pocl's worker threads).  Skipped without the module.
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
PORTSORT_BACKEND=opencl PORTSORT_VERBOSE=1 PS_TEST_MAX_N=4097 \
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
"$(dirname "$0")/run-backend.sh" opencl || exit $?
echo "--- onesweep, GPU-shaped tuning"
PORTSORT_OPENCL_TUNE="wg=64,items=4,bits=4,blocks=5" PS_TEST_MAX_N=16385 \
    "$(dirname "$0")/run-backend.sh" opencl
