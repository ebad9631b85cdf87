#!/bin/sh
# Device failures on the OpenCL backend: fail the k-th device allocation
# (PORTSORT_TEST_FAIL_DEVICE_ALLOC), then the k-th read of a host-array
# result (PORTSORT_TEST_FAIL_DEVICE_READ: the values' read of a pair sort
# comes after the keys' one has succeeded), for k = 1, 2, ... until a run
# no longer hits one; every run must keep the caller's arrays intact.
# Skips (77) without OpenCL.
PORTSORT_BACKEND=opencl
PORTSORT_MODULE_PATH=${top_builddir:-.}/backends/opencl/.libs
XDG_CACHE_HOME=${TMPDIR:-/tmp}/ps-devfault-cache.$$
export PORTSORT_BACKEND PORTSORT_MODULE_PATH XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
for what in ALLOC READ; do
    k=1
    while :; do
        [ $k -le 40 ] || { echo "more than 40 device ${what}s"; exit 1; }
        out=$(env PORTSORT_TEST_FAIL_DEVICE_$what=$k "${top_builddir:-.}/test/ps_test_devfault")
        rc=$?
        [ $rc -eq 77 ] && { echo "$out"; exit 77; }
        [ $rc -ne 0 ] && { echo "$out"; echo "$what k=$k failed"; exit 1; }
        echo "$what k=$k: $(echo "$out" | tail -1)"
        case $out in
            *"no failure hit"*)
                [ $k -gt 1 ] || { echo "the first device $what was never hit"; exit 1; }
                break ;;
        esac
        k=$((k + 1))
    done
done
exit 0
