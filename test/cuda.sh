#!/bin/sh
# The backend-parametrised tests (differential, errors, threads, fork) on
# the CUDA backend, then the device API test, with the module of this build
# tree.  Skipped (77) where CUDA cannot run, i.e. on every machine without
# a GPU (CI): there test/gpu-refused.sh checks the refusal instead.
top=$(cd "${top_builddir:-.}" && pwd)
PORTSORT_MODULE_PATH="${PORTSORT_MODULE_PATH:+$PORTSORT_MODULE_PATH:}$top/backends/cuda/.libs"
export PORTSORT_MODULE_PATH
"$(dirname "$0")/run-backend.sh" cuda || exit $?
if [ -x "$top/test/ps_test_cuda_device" ]; then
    "$top/test/ps_test_cuda_device" || exit $?
fi
