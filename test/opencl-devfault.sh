#!/bin/sh
# Device allocation failures on the OpenCL backend: fail the k-th device
# allocation, for k = 1, 2, ... until a run no longer hits one; every run
# must keep the caller's arrays intact.  Skips (77) without OpenCL.
PORTSORT_BACKEND=opencl
PORTSORT_MODULE_PATH=${top_builddir:-.}/backends/opencl/.libs
XDG_CACHE_HOME=${TMPDIR:-/tmp}/ps-devfault-cache.$$
export PORTSORT_BACKEND PORTSORT_MODULE_PATH XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
k=1
while [ $k -le 40 ]; do
    out=$(PORTSORT_TEST_FAIL_DEVICE_ALLOC=$k "${top_builddir:-.}/test/ps_test_devfault")
    rc=$?
    [ $rc -eq 77 ] && { echo "$out"; exit 77; }
    [ $rc -ne 0 ] && { echo "$out"; echo "k=$k failed"; exit 1; }
    echo "k=$k: $(echo "$out" | tail -1)"
    case $out in
        *"no failure hit"*)
            [ $k -gt 1 ] || { echo "the first device allocation was never hit"; exit 1; }
            exit 0 ;;
    esac
    k=$((k + 1))
done
echo "more than 40 device allocations"
exit 1
