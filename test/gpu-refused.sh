#!/bin/sh
# The CUDA and HIP modules of this build, on a machine where they cannot
# run (CI has no GPU): each is refused cleanly (ps_test_gpu_refused), and
# with both modules on the module path the serial backend, and auto,
# still sort.  Skipped (77) when neither module is built or a GPU is here.
top=$(cd "${top_builddir:-.}" && pwd)
PORTSORT_MODULE_PATH="$top/backends/cuda/.libs:$top/backends/hip/.libs:$top/backends/opencl/.libs"
export PORTSORT_MODULE_PATH
ran=0
for b in cuda hip; do
    if [ ! -f "$top/backends/$b/.libs/ps_$b.so" ]; then
        echo "ps_$b.so not built: skipping $b"
        continue
    fi
    PORTSORT_BACKEND=$b "$top/test/ps_test_gpu_refused" "$b"
    rc=$?
    case $rc in
        0) ran=$((ran + 1)) ;;
        77) ;;
        *) echo "$b was not refused cleanly (exit $rc)"; exit 1 ;;
    esac
done
if [ "$ran" -eq 0 ]; then
    exit 77
fi
# Every other backend keeps working beside the refused modules.
for b in serial auto; do
    PS_TEST_MAX_N=4097 PORTSORT_BACKEND=$b "$top/test/ps_test_diff" >/dev/null \
        || { echo "ps_test_diff failed on $b beside the GPU modules"; exit 1; }
    echo "backend $b still sorts beside the refused GPU modules"
done
exit 0
