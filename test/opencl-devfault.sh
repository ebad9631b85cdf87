#!/bin/sh
# Device failures on the OpenCL backend: fail the k-th device allocation
# (PORTSORT_TEST_FAIL_DEVICE_ALLOC), then the k-th read of a host-array
# result (PORTSORT_TEST_FAIL_DEVICE_READ: the values' read of a pair sort
# comes after the keys' one has succeeded), for k = 1, 2, ... until a run
# no longer hits one; every run must keep the caller's arrays intact.
# Skips (77) without OpenCL.
PORTSORT_BACKEND=opencl
# Absolute: the library skips relative module directories (ps_module.c).
PORTSORT_MODULE_PATH=$(cd "${top_builddir:-.}" && pwd)/backends/opencl/.libs
XDG_CACHE_HOME=${TMPDIR:-/tmp}/ps-devfault-cache.$$
export PORTSORT_BACKEND PORTSORT_MODULE_PATH XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME" "$XDG_CACHE_HOME.log"' EXIT
for what in ALLOC READ; do
    k=1
    while :; do
        [ $k -le 40 ] || { echo "more than 40 device ${what}s"; exit 1; }
        out=$(env PORTSORT_TEST_FAIL_DEVICE_$what=$k PORTSORT_VERBOSE=1 \
              "${top_builddir:-.}/test/ps_test_devfault" 2>"$XDG_CACHE_HOME.log")
        rc=$?
        [ $rc -eq 77 ] && { echo "$out"; exit 77; }
        [ $rc -ne 0 ] && { echo "$out"; echo "$what k=$k failed"; exit 1; }
        # A failed allocation for a whole host array is absorbed: the core
        # sorts it in pieces (lib/ps_chunks.c), which the log says, and the
        # program checked the result.
        absorbed=no
        grep -q "merged on the host" "$XDG_CACHE_HOME.log" && absorbed=yes
        echo "$what k=$k: $(echo "$out" | tail -1) (absorbed in pieces: $absorbed)"
        case $out in
            *"no failure hit"*)
                if [ $absorbed = no ]; then
                    [ $k -gt 1 ] || { echo "the first device $what was never hit"; exit 1; }
                    break
                fi ;;
        esac
        k=$((k + 1))
    done
done
exit 0
