#!/bin/sh
# The cl_mem API of <portsort_opencl.h> on the OpenCL device (pocl in CI),
# then the device records sorts under a failed device allocation.
. "$(dirname "$0")/opencl-env.sh"
"$top/test/ps_test_opencl" api || exit 1
# The device records sorts' own scratch allocation failing (the first
# device allocation of the process: sort_records'; the second:
# argsort_records'): refused with the buffers unchanged, then nothing hit.
for k in 1 2 3; do
    out=$(PORTSORT_TEST_FAIL_DEVICE_ALLOC=$k "$top/test/ps_test_opencl" records-fault) ||
        fail "records-fault k=$k: $out"
    echo "records-fault k=$k: $out"
    case $k:$out in
        3:*injected*|[12]:*"no failure"*) fail "records-fault k=$k: $out" ;;
    esac
done
