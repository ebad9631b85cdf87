#!/bin/sh
# The cl_mem API of <portsort_opencl.h> on the OpenCL device (pocl in CI).
. "$(dirname "$0")/opencl-env.sh"
"$top/test/ps_test_opencl" api
