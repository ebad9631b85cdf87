#!/bin/sh
# The backend-parametrised tests (differential, errors, threads, fork) on
# the CUDA backend, then the device API test, with the module of this build
# tree.  Skipped (77) where CUDA cannot run, i.e. on every machine without
# a GPU (CI): there test/gpu-refused.sh checks the refusal instead.
top=$(cd "${top_builddir:-.}" && pwd)
PORTSORT_MODULE_PATH="${PORTSORT_MODULE_PATH:+$PORTSORT_MODULE_PATH:}$top/backends/cuda/.libs"
export PORTSORT_MODULE_PATH
"$(dirname "$0")/run-backend.sh" cuda || exit $?
# Time-limited like run-backend.sh's programs: a broken Onesweep look-back
# hangs rather than fails.
if [ -x "$top/test/ps_test_cuda_device" ]; then
    timeout "${PS_TEST_TIMEOUT:-1200}" "$top/test/ps_test_cuda_device"
    rc=$?
    [ "$rc" -eq 124 ] && echo "ps_test_cuda_device timed out"
    exit $rc
fi
