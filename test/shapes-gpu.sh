#!/bin/sh
# ps_test_shapes (the shapes of real data, issue 16) on the GPU code paths
# that run here: the OpenCL backend on pocl, on its default
# (reduce-then-scan) kernels and on the Onesweep ones, and the CUDA
# backend's host code on the CPU stand-in runtime (test/gpu-fake.sh), on
# both of its paths.  Sizes are capped (PS_TEST_MAX_N) for their speed:
# on pocl 32769 keys are 5-9 tiles of the GPU paths, several blocks.
# Exits 77 when neither can run.
top=$(cd "${top_builddir:-.}" && pwd)
bin=$top/test/ps_test_shapes
limit=${PS_TEST_TIMEOUT:-1200}
dir=$(mktemp -d "${TMPDIR:-/tmp}/ps-shapes.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
ran=0
# LeakSanitizer's stop-the-world tracer crashes ("Tracer caught signal
# 11") walking the stand-in's hundreds of work-item threads and their
# thread-local state in a dlopened module; ASan's memory checks stay on.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
run() {
    echo "--- $*${PS_SHAPES_MAX_N:+ (PS_SHAPES_MAX_N=$PS_SHAPES_MAX_N)}"
    env "$@" timeout "$limit" "$bin"
    rc=$?
    [ "$rc" -eq 124 ] && echo "timed out: $*"
    [ "$rc" -eq 77 ] && return 0
    [ "$rc" -eq 0 ] || exit 1
    ran=1
}
if [ -f "$top/backends/opencl/.libs/ps_opencl.so" ]; then
    m="PORTSORT_MODULE_PATH=$top/backends/opencl/.libs"
    # One type of each width and transform on both paths: the shapes meet
    # the digits, and the twelve types' order images are checked on pocl
    # by opencl.sh (all twelve at twice the size took 3 of CI's minutes).
    run $m XDG_CACHE_HOME="$dir" PORTSORT_BACKEND=opencl PS_TEST_MAX_N=32769 \
        PS_TEST_TYPES=u8,i16,f16,f32,u64
    # Onesweep likewise.
    run $m XDG_CACHE_HOME="$dir" PORTSORT_BACKEND=opencl PORTSORT_OPENCL_ALGO=onesweep \
        PS_TEST_MAX_N=32769 PS_TEST_TYPES=u8,i16,f16,f32,u64
fi
# The stand-in runs each work-group as 256 threads meeting at barriers,
# so slowly on two cores that the whole matrix at 16K keys took over 8
# minutes: it gets sizes up to one tile's worth (4097), u32 and f64, keys
# and 8-byte pairs, on the default (Onesweep) path, about a minute
# (gpu-fake.sh runs both paths at multi-tile sizes).
if [ -f "$top/test/.libs/ps_gpu_fake.so" ]; then
    mkdir -p "$dir/cuda" && cp "$top/test/.libs/ps_gpu_fake.so" "$dir/cuda/ps_cuda.so"
    q="PS_TEST_MAX_N=4097 PS_TEST_TYPES=u32,f64 PS_TEST_OPS=keys,pairs8"
    run PORTSORT_MODULE_PATH="$dir/cuda" PORTSORT_BACKEND=cuda $q
fi
[ "$ran" -eq 1 ] || { echo "no GPU code path can run here: skipped"; exit 77; }
