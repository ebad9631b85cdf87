#!/usr/bin/env bash
# bench/gpu-run.sh - build, test and time the CUDA backend on a machine with
# an NVIDIA GPU, in one call, and write what ran to doc/results-cuda.md.
#
# Usage, from the repository root on the GPU machine:
#   bash bench/gpu-run.sh [STEP...]
# STEPS (default: all, in this order):
#   build      configure --with-cuda for this GPU's arch only, make
#   test       make check's serial, modules and cuda tests: the differential
#              test with PORTSORT_BACKEND=cuda, then the device API test,
#              once per sort path (PORTSORT_GPU_ALGO=onesweep, =portable),
#              each checked to have really taken its path
#   sanitize   compute-sanitizer memcheck, racecheck and synccheck on small
#              cases, on each path
#   bench      bench/ps_cudabench: our device sort on both paths vs
#              cub::DeviceRadixSort, 2^20 .. 2^28 keys (PS_BENCH_MAX=24 for
#              a quicker run)
#   crossover  host-array sorts on cuda vs the CPU, 2^10 .. 2^24 keys, to
#              set the `auto` crossover (PORTSORT_GPU_MIN_N)
#   scale      test/ps_test_scale on cuda, each path, under a time limit:
#              2^32 + 5 u8 keys (refused), 2^32 - 1 u8 keys (the most the
#              kernels count, where 32-bit indices come closest to wrapping)
#              and 2^29 + 3 u32 keys (Onesweep over 3 portions)
#   devices    with two GPUs or more: the device API test on device 1
#              (PS_TEST_CUDA_DEVICE=1), which faults if the library launches
#              on another device than the caller's
#   fallback   the Onesweep look-back's fallback under real concurrency: the
#              kernels rebuilt to stop waiting at once (PS_OS_SPINS=0) with
#              tiles handed out odd first and last first (PS_OS_ORDER=2, 1),
#              then the differential test on each (the build is restored
#              after)
#   segments   the segmented sort: test/ps_test_segments on cuda (every size
#              class must show in the log), compute-sanitizer memcheck and
#              racecheck on it, then bench/ps_cudasegbench: ps_cuda_sort_segments
#              vs cub::DeviceSegmentedSort::SortKeys/SortPairs and vs
#              ps_cuda_sort_keys unsegmented, 10M keys, every shape of
#              `portsort bench --segments` (PS_SEGBENCH_N to change n)
#
# A GPU machine without autotools builds from a distribution tarball
# placed in .gpurun/ beforehand:
#   (cd build && make dist) && mkdir -p .gpurun && cp build/libportsort-*.tar.gz .gpurun/
# Without a tarball it builds from the tree (running autoreconf when there
# is no configure script).
#
# Output: doc/results-cuda.md (and results-cuda.csv) in this tree, plus
# those and the logs in $OUT when set, else in ./gpurun-out.  Exits non-zero when a test or a
# sanitizer run fails; the report says which.  Every test and sanitizer
# run has a time limit (PS_GPURUN_TIMEOUT seconds, default 240): a wrong
# Onesweep look-back hangs rather than fails, and must not eat the
# session's device time.
#
# Where a command has a time limit and all steps do not fit, run them as
# separate commands, e.g. "build test", then "sanitize", then "bench" (the
# build directory, PS_GPURUN_BUILD, survives between them).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$top/gpurun-out}
mkdir -p "$out" "$top/doc"
build=${PS_GPURUN_BUILD:-/tmp/ps-gpurun-build}
steps=${*:-build test sanitize bench crossover scale devices fallback segments}
report=$out/results-cuda.md
jobs=$(nproc 2>/dev/null || echo 4)
limit=${PS_GPURUN_TIMEOUT:-240}
status=0
export PATH="$PATH:/usr/local/cuda/bin"

note() { echo "$*" | tee -a "$report"; }
fail() { note "**FAILED: $***"; status=1; }

if [ ! -f "$report" ]; then
    {
        echo "# CUDA backend on a GPU: what ran"
        echo
        echo "Written by bench/gpu-run.sh ($steps), $(date -u '+%Y-%m-%d %H:%M UTC')."
        echo
        echo '```'
        nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1
        nvcc --version 2>&1 | tail -2
        echo '```'
        echo
    } > "$report"
fi

arch() {
    local cc
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
    if [ -n "$cc" ]; then echo "sm_$cc"; else echo default; fi
}

modpath() { echo "$build/backends/cuda/.libs"; }

for step in $steps; do
case $step in
build)
    note "## build"
    src=$top
    tarball=$(ls "$top"/.gpurun/libportsort-*.tar.gz 2>/dev/null | head -1)
    rm -rf "$build" && mkdir -p "$build"
    if [ -n "$tarball" ]; then
        tar -C "$build" -xzf "$tarball"
        src=$(ls -d "$build"/libportsort-*/ | head -1)
        note "from $(basename "$tarball")"
    elif [ ! -x "$top/configure" ]; then
        (cd "$top" && autoreconf -fi) > "$out/autoreconf.log" 2>&1 \
            || { fail "autoreconf (no tarball in .gpurun/ and no autotools?)"; exit 1; }
    fi
    a=${PS_CUDA_ARCH:-$(arch)}
    mkdir -p "$build/obj"
    cd "$build/obj" || exit 1
    note "configure --with-cuda --with-cuda-arch=$a"
    if ! "$src/configure" -q --with-cuda --with-cuda-arch="$a" > "$out/configure.log" 2>&1; then
        tail -20 "$out/configure.log"; fail "configure"; exit 1
    fi
    if ! { make -j"$jobs" && make -j"$jobs" check TESTS=; } > "$out/make.log" 2>&1; then
        tail -40 "$out/make.log"; fail "make"; exit 1
    fi
    note "built: $(ls backends/cuda/.libs/ps_cuda.so bench/ps_cudabench 2>&1 | tr '\n' ' ')"
    ;;
test)
    for algo in onesweep portable; do
        note "## tests, PORTSORT_GPU_ALGO=$algo"
        cd "$build/obj" || exit 1
        tests=test/cuda.sh
        [ "$algo" = onesweep ] && tests="test/serial.sh test/modules.sh $tests"
        PORTSORT_GPU_ALGO=$algo PS_TEST_TIMEOUT=$limit make -j"$jobs" check \
            TESTS="$tests" \
            > "$out/check-$algo.log" 2>&1 || fail "make check on $algo (see check-$algo.log, cuda.sh-$algo.log)"
        cp test/cuda.sh.log "$out/cuda.sh-$algo.log" 2>/dev/null
        { echo '```'; grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' "$out/check-$algo.log";
          grep -E 'passed|cases|backend cuda|timed out' test/cuda.sh.log | head -20; echo '```'; } | tee -a "$report"
        grep -q '^PASS: test/cuda.sh' "$out/check-$algo.log" || fail "test/cuda.sh did not pass on $algo (skipped = no usable GPU?)"
        # The switch must have selected the path: the backend logs it.
        PORTSORT_MODULE_PATH=$(modpath) PORTSORT_BACKEND=cuda PORTSORT_GPU_ALGO=$algo \
            PORTSORT_VERBOSE=1 PS_TEST_MAX_N=70000 timeout "$limit" ./test/ps_test_diff \
            > "$out/path-$algo.log" 2>&1
        want=$([ "$algo" = onesweep ] && echo onesweep || echo reduce-then-scan)
        note "- sorts that took the $want path: $(grep -c "cuda: $want, n=" "$out/path-$algo.log")"
        grep -q "cuda: $want, n=" "$out/path-$algo.log" || fail "PORTSORT_GPU_ALGO=$algo did not take the $want path"
    done
    ;;
sanitize)
    note "## compute-sanitizer"
    cd "$build/obj" || exit 1
    export PORTSORT_MODULE_PATH
    PORTSORT_MODULE_PATH=$(modpath)
    for algo in onesweep portable; do
        for t in "memcheck 70000 test/ps_test_cuda_device" "racecheck 20000 test/ps_test_cuda_device" \
                 "synccheck 20000 test/ps_test_cuda_device" "memcheck 5000 test/ps_test_diff"; do
            set -- $t
            log="$out/sanitize-$algo-$1-$(basename "$3").log"
            PORTSORT_GPU_ALGO=$algo PS_TEST_MAX_N=$2 PORTSORT_BACKEND=cuda \
                timeout "$limit" ./libtool --mode=execute \
                compute-sanitizer --tool "$1" --error-exitcode 9 "./$3" > "$log" 2>&1
            rc=$?
            note "- $algo: $1 on $3 (PS_TEST_MAX_N=$2): exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'); $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
            [ "$rc" -eq 0 ] || fail "$algo: $1 on $3"
        done
    done
    unset PORTSORT_MODULE_PATH
    ;;
bench)
    note "## device sort (Onesweep and reduce-then-scan) vs cub::DeviceRadixSort"
    cd "$build/obj" || exit 1
    cmd="bench/ps_cudabench --min 20 --max ${PS_BENCH_MAX:-28} --reps 7 --csv $out/results-cuda.csv"
    note "command: PORTSORT_MODULE_PATH=\$PWD/backends/cuda/.libs $cmd"
    { echo '```'; PORTSORT_MODULE_PATH=$(modpath) $cmd 2>&1; echo '```'; } \
        | tee "$out/bench.log" >> "$report"
    grep -q MISMATCH "$out/bench.log" && fail "ps_cudabench results differ from CUB ($(grep -o 'MISMATCH([a-z]*)' "$out/bench.log" | sort -u | tr '\n' ' '))"
    grep -q '^device:' "$out/bench.log" || fail "ps_cudabench did not run"
    ;;
crossover)
    note "## host arrays: cuda vs CPU (for the auto crossover)"
    cd "$build/obj" || exit 1
    cpu=serial
    grep -q '^#define PS_HAVE_OPENMP 1' config.h 2>/dev/null && cpu=openmp
    { echo '```';
      for lg in 10 12 14 16 17 18 20 22 24; do
          n=$((1 << lg))
          for b in cuda $cpu; do
              PORTSORT_MODULE_PATH=$(modpath) ./tools/portsort bench \
                  --backends "$b" --types u32 --sizes "$n" --repeats 7 \
                  --peers none 2>&1 | grep -E "^u32 +$b +portsort "
          done
      done; echo '```'; } | tee "$out/crossover.log" >> "$report"
    ;;
scale)
    note "## 2^32 - 1 keys and Onesweep portions (test/ps_test_scale)"
    cd "$build/obj" || exit 1
    for algo in onesweep portable; do
        log="$out/scale-$algo.log"
        PORTSORT_MODULE_PATH=$(modpath) PORTSORT_BACKEND=cuda PORTSORT_GPU_ALGO=$algo \
            PORTSORT_VERBOSE=1 timeout "${PS_GPURUN_SCALE_TIMEOUT:-540}" \
            ./test/ps_test_scale > "$log" 2>&1
        rc=$?
        note "- $algo: exit $rc$([ $rc -eq 124 ] && echo ' (timed out: a hang)'); $(grep -v '^portsort:' "$log" | tail -1)"
        [ "$algo" = onesweep ] && note "  portions: $(grep -o 'cuda: onesweep, n=[0-9]*.*portions of [0-9]* tiles' "$log" | sort -u | tr '\n' ';')"
        [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || fail "ps_test_scale on $algo"
    done
    ;;
devices)
    note "## device API on the second GPU"
    cd "$build/obj" || exit 1
    ngpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
    if [ "$ngpu" -lt 2 ]; then
        note "- $ngpu GPU(s): skipped (needs two)"
    else
        PORTSORT_MODULE_PATH=$(modpath) PS_TEST_CUDA_DEVICE=1 PS_TEST_MAX_N=70000 \
            timeout "$limit" ./test/ps_test_cuda_device > "$out/devices.log" 2>&1
        rc=$?
        note "- device 1 of $ngpu: exit $rc; $(tail -1 "$out/devices.log")"
        [ "$rc" -eq 0 ] || fail "device API on device 1"
    fi
    ;;
fallback)
    note "## Onesweep look-back fallback, forced (PS_OS_SPINS=0)"
    cd "$build/obj" || exit 1
    flags=$(sed -n 's/^PS_NVCC_FLAGS = //p' Makefile)
    for order in 2 1; do
        rm -f backends/cuda/ps_cuda_k*.lo
        if ! make PS_NVCC_FLAGS="$flags -DPS_OS_SPINS=0u -DPS_OS_ORDER=${order}u" \
                backends/cuda/ps_cuda.la > "$out/fallback-make-$order.log" 2>&1; then
            fail "build with PS_OS_ORDER=$order"; continue
        fi
        mkdir -p "$build/fallback-$order"
        cp backends/cuda/.libs/ps_cuda.so "$build/fallback-$order/"
        PORTSORT_MODULE_PATH=$build/fallback-$order PORTSORT_BACKEND=cuda \
            PORTSORT_GPU_ALGO=onesweep PS_TEST_MAX_N=70000 timeout "$limit" \
            ./test/ps_test_diff > "$out/fallback-$order.log" 2>&1
        rc=$?
        note "- PS_OS_ORDER=$order: exit $rc$([ $rc -eq 124 ] && echo ' (timed out: a hang)'); $(tail -1 "$out/fallback-$order.log")"
        [ "$rc" -eq 0 ] || fail "look-back fallback, PS_OS_ORDER=$order"
    done
    rm -f backends/cuda/ps_cuda_k*.lo
    make backends/cuda/ps_cuda.la > "$out/fallback-restore.log" 2>&1 || fail "rebuilding the module"
    ;;
segments)
    note "## segmented sort: ps_cuda_sort_segments vs cub::DeviceSegmentedSort"
    cd "$build/obj" || exit 1
    log="$out/segments-test.log"
    PORTSORT_MODULE_PATH=$(modpath) PORTSORT_BACKEND=cuda PORTSORT_VERBOSE=1 \
        timeout "$limit" ./test/ps_test_segments > "$log" 2>&1
    rc=$?
    note "- ps_test_segments on cuda: exit $rc; $(grep -v '^portsort:' "$log" | tail -1)"
    [ "$rc" -eq 0 ] || fail "ps_test_segments on cuda"
    note "- $(awk -f "$top/test/seg-classes.awk" "$log" | head -1)"
    awk -f "$top/test/seg-classes.awk" "$log" > /dev/null || fail "the segmented device path missed a size class"
    for tool in memcheck racecheck; do
        log="$out/sanitize-segments-$tool.log"
        PS_TEST_MAX_N=20000 PORTSORT_BACKEND=cuda PORTSORT_MODULE_PATH=$(modpath) \
            timeout "$limit" ./libtool --mode=execute compute-sanitizer --tool $tool \
            --error-exitcode 9 ./test/ps_test_segments > "$log" 2>&1
        rc=$?
        note "- $tool on ps_test_segments (PS_TEST_MAX_N=20000): exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
        [ "$rc" -eq 0 ] || fail "$tool on ps_test_segments"
    done
    cmd="bench/ps_cudasegbench -n ${PS_SEGBENCH_N:-10000000} --reps 7 --csv $out/results-cuda-segments.csv csr uniform uniform:1000 power-law equal:4 equal:64"
    note "command: PORTSORT_MODULE_PATH=\$PWD/backends/cuda/.libs $cmd"
    { echo '```'; PORTSORT_MODULE_PATH=$(modpath) timeout "${PS_GPURUN_SCALE_TIMEOUT:-540}" $cmd 2>&1; echo '```'; } \
        | tee "$out/segbench.log" >> "$report"
    grep -q MISMATCH "$out/segbench.log" && fail "ps_cudasegbench results differ from CUB's"
    grep -q '^device:' "$out/segbench.log" || fail "ps_cudasegbench did not run"
    ;;
*)
    echo "unknown step $step (build test sanitize bench crossover scale devices fallback segments)" >&2
    exit 2
    ;;
esac
done
note "gpu-run.sh: $([ $status -eq 0 ] && echo all steps passed || echo some steps FAILED)"
cp "$report" "$top/doc/results-cuda.md"
[ -f "$out/results-cuda.csv" ] && cp "$out/results-cuda.csv" "$top/doc/results-cuda.csv"
[ -f "$out/results-cuda-segments.csv" ] && cp "$out/results-cuda-segments.csv" "$top/doc/results-cuda-segments.csv"
exit $status
