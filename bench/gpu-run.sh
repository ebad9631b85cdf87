#!/usr/bin/env bash
# bench/gpu-run.sh - build, test and time the CUDA backend on a machine with
# an NVIDIA GPU, in one call, and write what ran to doc/results-cuda.md.
#
# Usage, from the repository root on the GPU machine:
#   bash bench/gpu-run.sh [STEP...]
# STEPS (default: all, in this order):
#   build      configure --with-cuda for this GPU's arch only, make
#   test       make check's modules and cuda tests: the differential
#              test with PORTSORT_BACKEND=cuda, then the device API test,
#              once per sort path (PORTSORT_GPU_ALGO=onesweep, =portable),
#              each checked to have really taken its path
#   quick      the default build's correctness in about a minute, for a
#              lease that has room for little more than the variants: the
#              device API test (top-k included) and the host-array tests
#              that the variants step does not run (segments, top-k,
#              strings, records, errors) on cuda, PS_TEST_MAX_N=70000
#   sanitize   compute-sanitizer memcheck, racecheck and synccheck on small
#              cases, on each path
#   bench      bench/ps_cudabench: our device sort on both paths vs
#              cub::DeviceRadixSort, 2^20 .. 2^28 keys (PS_BENCH_MAX=24 for
#              a quicker run)
#   traffic    DRAM bytes per key of each sort (ours on both paths, CUB)
#              at 2^24 keys (PS_TRAFFIC_LOG2), from Nsight Compute's
#              counters (ncu --clock-control none)
#   strings    bench/ps_strbench (qsort and ps_sort_strings) on cuda, whose
#              levels sort 8-byte prefixes with the strings' references on
#              the GPU, then on the CPU backend, 10M strings
#              (PS_STRBENCH_N) of each data set, median of 3
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
#   variants   Onesweep's compile-time variants against CUB (not in the
#              default list: name it): for each variant in
#              PS_GPURUN_VARIANTS (default below; NAME or NAME:FLAG,FLAG...)
#              the kernels are rebuilt with those -D flags added to
#              PS_NVCC_FLAGS (as for fallback), ptxas's registers and
#              spills of ps_onesweep noted (test/ptxas-report.sh), the
#              differential test run on it (PS_TEST_MAX_N=70000), then
#              bench/ps_cudabench --min 24 --max 28 --reps 5 --data random
#              --no-portable (PS_VARIANTS_BENCH) and one u32 sort of 2^28
#              narrow keys (top byte zero: every tile of the last pass
#              short-circuits); one table row per variant and case, each
#              with CUB timed in the same process; variants-NAME.csv in
#              $OUT.  A variant that does not fit before the deadline is
#              skipped and said so.  doc/cuda.md lists what each variant
#              changes and what it predicts.  The build is restored after.
#   profile    Nsight Compute's full set on one Onesweep pass of ours and
#              of CUB's (u32 keys, u32 pairs: PS_PROFILE_CASES; 2^24 keys:
#              PS_PROFILE_LOG2), side
#              by side (bench/ps_ncu_summary.py): stall reasons,
#              instructions, occupancy, bank conflicts; then every kernel's
#              time in one sort of each (not in the default list: name it)
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
# build directory, PS_GPURUN_BUILD, survives between them), or give the
# whole run a budget: PS_GPURUN_SECONDS=N stops every step's programs at
# the deadline and skips the steps that start with under 20 s left (the
# report says which), so a lease of a few minutes always returns its
# report.
#
# The report and the CSVs stay in $OUT; every log goes into $OUT/logs.tar.gz
# (a lent GPU machine returns a handful of files, not dozens).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$top/gpurun-out}
logs=${PS_GPURUN_BUILD:-/tmp/ps-gpurun-build}-logs
mkdir -p "$out" "$logs" "$top/doc"
build=${PS_GPURUN_BUILD:-/tmp/ps-gpurun-build}
steps=${*:-build test sanitize bench traffic crossover scale devices fallback segments strings}
report=$out/results-cuda.md
jobs=$(nproc 2>/dev/null || echo 4)
status=0
export PATH="$PATH:/usr/local/cuda/bin"
deadline=
[ -n "${PS_GPURUN_SECONDS:-}" ] && deadline=$(( $(date +%s) + PS_GPURUN_SECONDS ))

# Seconds left before the deadline (a large number without one).
left() { if [ -n "$deadline" ]; then echo $(( deadline - $(date +%s) )); else echo 999999; fi; }
# A program's time limit: $1 seconds, or what is left if that is less.
cap() { local l; l=$(left); [ "$l" -lt "$1" ] && echo $(( l > 1 ? l : 1 )) || echo "$1"; }
limit=$(cap "${PS_GPURUN_TIMEOUT:-240}")
note() { echo "$*" | tee -a "$report"; }
fail() { note "**FAILED: $***"; status=1; }
pack() { tar -C "$logs" -czf "$out/logs.tar.gz" . 2>/dev/null; }
trap pack EXIT

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

modpath() { echo "$build/obj/backends/cuda/.libs"; }
# The CPU backend the build has (run in $build/obj), to time beside cuda.
cpu_backend() { grep -q '^#define PS_HAVE_OPENMP 1' config.h 2>/dev/null && echo openmp || echo serial; }
# module_with DIR LOG FLAGS...: in $build/obj, the kernels rebuilt with
# FLAGS added to the configured PS_NVCC_FLAGS, the module copied into DIR;
# fails when the build does.  module_restore LOG: the configured build back.
module_with() {
    local dir=$1 log=$2 flags
    shift 2
    flags=$(sed -n 's/^PS_NVCC_FLAGS = //p' Makefile)
    rm -f backends/cuda/ps_cuda_k*.lo
    timeout "$(cap 300)" make -j"$jobs" PS_NVCC_FLAGS="$flags $*" \
        backends/cuda/ps_cuda.la > "$log" 2>&1 || return 1
    mkdir -p "$dir" && cp backends/cuda/.libs/ps_cuda.so "$dir/"
}
module_restore() {
    rm -f backends/cuda/ps_cuda_k*.lo
    make -j"$jobs" backends/cuda/ps_cuda.la > "$1" 2>&1 || fail "rebuilding the module"
}

for step in $steps; do
if [ "$(left)" -lt 20 ]; then
    note "## $step: skipped, $(left) s left of PS_GPURUN_SECONDS"
    continue
fi
limit=$(cap "${PS_GPURUN_TIMEOUT:-240}")
t0=$(date +%s)
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
        (cd "$top" && autoreconf -fi) > "$logs/autoreconf.log" 2>&1 \
            || { fail "autoreconf (no tarball in .gpurun/ and no autotools?)"; exit 1; }
    fi
    a=${PS_CUDA_ARCH:-$(arch)}
    mkdir -p "$build/obj"
    cd "$build/obj" || exit 1
    note "configure --with-cuda --with-cuda-arch=$a"
    if ! timeout "$(cap 300)" "$src/configure" -q --with-cuda --with-cuda-arch="$a" > "$logs/configure.log" 2>&1; then
        tail -20 "$logs/configure.log"; fail "configure"; exit 1
    fi
    if ! timeout "$(cap 900)" sh -c "make -j$jobs && make -j$jobs check TESTS=" > "$logs/make.log" 2>&1; then
        tail -40 "$logs/make.log"; fail "make"; exit 1
    fi
    note "built: $(ls backends/cuda/.libs/ps_cuda.so bench/ps_cudabench 2>&1 | tr '\n' ' ')"
    ;;
test)
    for algo in onesweep portable; do
        note "## tests, PORTSORT_GPU_ALGO=$algo"
        cd "$build/obj" || exit 1
        tests=test/cuda.sh
        [ "$algo" = onesweep ] && tests="test/modules.sh $tests"
        # The device test's oracle is a host merge sort: at its largest
        # size (2^21 + 1) it took over 90 s on the first lent H200, so the
        # suite stops at 2^20 + 3 unless PS_GPURUN_MAX_N says otherwise.
        PORTSORT_GPU_ALGO=$algo PS_TEST_TIMEOUT=$limit PS_TEST_MAX_N=${PS_GPURUN_MAX_N:-1048579} \
            timeout "$(cap 900)" make -j"$jobs" check \
            TESTS="$tests" \
            > "$logs/check-$algo.log" 2>&1 || fail "make check on $algo (see check-$algo.log, cuda.sh-$algo.log)"
        cp test/cuda.sh.log "$logs/cuda.sh-$algo.log" 2>/dev/null
        { echo '```'; grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' "$logs/check-$algo.log";
          grep -E 'passed|cases|backend cuda|timed out' test/cuda.sh.log | head -20; echo '```'; } | tee -a "$report"
        grep -q '^PASS: test/cuda.sh' "$logs/check-$algo.log" || fail "test/cuda.sh did not pass on $algo (skipped = no usable GPU?)"
        # The switch must have selected the path: the backend logs it.
        PORTSORT_MODULE_PATH=$(modpath) PORTSORT_BACKEND=cuda PORTSORT_GPU_ALGO=$algo \
            PORTSORT_VERBOSE=1 PS_TEST_MAX_N=70000 timeout "$(cap "$limit")" ./test/ps_test_diff \
            > "$logs/path-$algo.log" 2>&1
        want=$([ "$algo" = onesweep ] && echo onesweep || echo reduce-then-scan)
        note "- sorts that took the $want path: $(grep -c "cuda: $want, n=" "$logs/path-$algo.log")"
        grep -q "cuda: $want, n=" "$logs/path-$algo.log" || fail "PORTSORT_GPU_ALGO=$algo did not take the $want path"
    done
    ;;
quick)
    note "## quick correctness, default build (PS_TEST_MAX_N=70000)"
    cd "$build/obj" || exit 1
    PORTSORT_MODULE_PATH=$(modpath) PS_TEST_MAX_N=70000 timeout "$(cap "$limit")" \
        ./test/ps_test_cuda_device > "$logs/quick-device.log" 2>&1
    rc=$?
    note "- ps_test_cuda_device: exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'); $(grep -E '^top-k:' "$logs/quick-device.log"); $(tail -1 "$logs/quick-device.log")"
    [ "$rc" -eq 0 ] || fail "ps_test_cuda_device (quick)"
    PORTSORT_MODULE_PATH=$(modpath) PS_TEST_MAX_N=70000 PS_TEST_TIMEOUT=$(cap 60) \
        PS_TEST_PROGRAMS="ps_test_segments ps_test_topk ps_test_strings ps_test_records ps_test_errors" \
        top_builddir=. sh "$top/test/run-backend.sh" cuda > "$logs/quick-backend.log" 2>&1
    rc=$?
    { echo '```'; grep -E 'passed|failed|timed out|^\(' "$logs/quick-backend.log" | head -20; echo '```'; } | tee -a "$report"
    [ "$rc" -eq 0 ] || fail "host-array tests on cuda (quick, exit $rc)"
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
            log="$logs/sanitize-$algo-$1-$(basename "$3").log"
            PORTSORT_GPU_ALGO=$algo PS_TEST_MAX_N=$2 PORTSORT_BACKEND=cuda \
                timeout "$(cap "$limit")" ./libtool --mode=execute \
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
    { echo '```'; PORTSORT_MODULE_PATH=$(modpath) timeout "$(cap 600)" $cmd 2>&1
      [ $? -eq 124 ] && echo "ps_cudabench: stopped at the time limit"; echo '```'; } \
        | tee "$logs/bench.log" >> "$report"
    grep -q MISMATCH "$logs/bench.log" && fail "ps_cudabench results differ from CUB ($(grep -o 'MISMATCH([a-z]*)' "$logs/bench.log" | sort -u | tr '\n' ' '))"
    grep -q '^device:' "$logs/bench.log" || fail "ps_cudabench did not run"
    ;;
strings)
    note "## byte strings: ps_sort_strings on cuda (the levels' pair sorts on the GPU) vs the CPU"
    cd "$build/obj" || exit 1
    { echo '```';
      for b in cuda $(cpu_backend); do
          echo "PORTSORT_BACKEND=$b bench/ps_strbench ${PS_STRBENCH_N:-10000000} 3"
          PORTSORT_BACKEND=$b PORTSORT_MODULE_PATH=$(modpath) timeout "$(cap 240)" \
              ./bench/ps_strbench "${PS_STRBENCH_N:-10000000}" 3 2>&1
          echo "(exit $?)"
      done; echo '```'; } | tee "$logs/strings.log" >> "$report"
    # ps_strbench checks every result and exits non-zero (124: the limit)
    # when one is wrong or a sort fails.
    grep -q '^(exit [1-9]' "$logs/strings.log" && fail "ps_strbench ($(grep -c '^(exit [1-9]' "$logs/strings.log") of 2 runs failed or timed out)"
    ;;
crossover)
    note "## host arrays: cuda vs CPU (for the auto crossover)"
    cd "$build/obj" || exit 1
    cpu=$(cpu_backend)
    { echo '```';
      for lg in 10 12 14 16 17 18 20 22 24; do
          n=$((1 << lg))
          for b in cuda $cpu; do
              PORTSORT_MODULE_PATH=$(modpath) timeout "$(cap 60)" ./tools/portsort bench \
                  --backends "$b" --types u32 --sizes "$n" --repeats 7 \
                  --peers none 2>&1 | grep -E "^u32 +$b +portsort "
          done
      done; echo '```'; } | tee "$logs/crossover.log" >> "$report"
    ;;
scale)
    note "## 2^32 - 1 keys and Onesweep portions (test/ps_test_scale)"
    cd "$build/obj" || exit 1
    for algo in onesweep portable; do
        log="$logs/scale-$algo.log"
        PORTSORT_MODULE_PATH=$(modpath) PORTSORT_BACKEND=cuda PORTSORT_GPU_ALGO=$algo \
            PORTSORT_VERBOSE=1 timeout "$(cap "${PS_GPURUN_SCALE_TIMEOUT:-540}")" \
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
            timeout "$(cap "$limit")" ./test/ps_test_cuda_device > "$logs/devices.log" 2>&1
        rc=$?
        note "- device 1 of $ngpu: exit $rc; $(tail -1 "$logs/devices.log")"
        [ "$rc" -eq 0 ] || fail "device API on device 1"
    fi
    ;;
fallback)
    note "## Onesweep look-back fallback, forced (PS_OS_SPINS=0)"
    cd "$build/obj" || exit 1
    for order in 2 1; do
        if ! module_with "$build/fallback-$order" "$logs/fallback-make-$order.log" \
                -DPS_OS_SPINS=0u -DPS_OS_ORDER=${order}u; then
            fail "build with PS_OS_ORDER=$order"; continue
        fi
        PORTSORT_MODULE_PATH=$build/fallback-$order PORTSORT_BACKEND=cuda \
            PORTSORT_GPU_ALGO=onesweep PS_TEST_MAX_N=70000 timeout "$(cap "$limit")" \
            ./test/ps_test_diff > "$logs/fallback-$order.log" 2>&1
        rc=$?
        note "- PS_OS_ORDER=$order: exit $rc$([ $rc -eq 124 ] && echo ' (timed out: a hang)'); $(tail -1 "$logs/fallback-$order.log")"
        [ "$rc" -eq 0 ] || fail "look-back fallback, PS_OS_ORDER=$order"
    done
    module_restore "$logs/fallback-restore.log"
    ;;
variants)
    # Each variant is NAME or NAME:FLAG,FLAG,... (flags without spaces).
    # The defaults, most telling first: the current defaults; the
    # look-back reading 2, 4 or 8 predecessors a step; full tiles for u64
    # too; the match in C; the code the first lease measured (doc/cuda.md
    # has each one's prediction).
    first="-DPS_OS_EARLY=0,-DPS_OS_LOOKBACK=0,-DPS_OS_SHORTCUT=0,-DPS_OS_MATCH_ANY=1"
    first="$first,-DPS_GPU_OS_ITEMS_NARROW=32,-DPS_GPU_OS_ITEMS_WIDE=16,-DPS_GPU_OS_MIN_BLOCKS=2"
    list=${PS_GPURUN_VARIANTS:-"default lookback2:-DPS_OS_LB_WIDTH=2
        lookback4:-DPS_OS_LB_WIDTH=4 lookback8:-DPS_OS_LB_WIDTH=8
        u64-full:-DPS_OS_FULL_TILES=1 match-c:-DPS_OS_MATCH_BIT=0
        first-lease:$first"}
    bargs=${PS_VARIANTS_BENCH:---min 24 --max 28 --reps 5 --data random --no-portable}
    note "## Onesweep variants vs cub::DeviceRadixSort"
    note "bench: ps_cudabench $bargs; then --case u32-keys --data narrow --min 28 --max 28"
    cd "$build/obj" || exit 1
    note '```'
    note "$(printf '%-15s %-14s %-11s %10s %10s %10s %8s' variant case data n 'ours Gk/s' 'cub Gk/s' ratio)"
    for spec in $list; do
        name=${spec%%:*}
        defs=
        [ "$name" != "$spec" ] && defs=$(echo "${spec#*:}" | tr ',' ' ')
        # A build, the test and the bench take about half a minute.
        if [ "$(left)" -lt 45 ]; then
            note "$name: skipped, $(left) s left of PS_GPURUN_SECONDS"
            continue
        fi
        vlog=$logs/variant-$name
        # shellcheck disable=SC2086
        if ! module_with "$build/variant-$name" "$vlog-make.log" $defs; then
            fail "variant $name: build ($defs)"; continue
        fi
        cat backends/cuda/ps_cuda_k*.ptxas > "$vlog.ptxas"
        sh "$top/test/ptxas-report.sh" "$vlog.ptxas" > "$vlog-ptxas.txt" 2>&1
        prc=$?
        regs=$(grep -o 'ps_onesweep ([a-z_0-9]*): [0-9]* registers' "$vlog-ptxas.txt" \
               | sed 's/.*: //; s/ registers//' | sort -n | uniq | tr '\n' '/' | sed 's,/$,,')
        PORTSORT_MODULE_PATH=$build/variant-$name PORTSORT_BACKEND=cuda \
            PORTSORT_GPU_ALGO=onesweep PS_TEST_MAX_N=70000 timeout "$(cap 120)" \
            ./test/ps_test_diff > "$vlog-test.log" 2>&1
        trc=$?
        { PORTSORT_MODULE_PATH=$build/variant-$name timeout "$(cap 150)" \
              bench/ps_cudabench $bargs --csv "$out/variants-$name.csv"
          PORTSORT_MODULE_PATH=$build/variant-$name timeout "$(cap 60)" \
              bench/ps_cudabench --min 28 --max 28 --reps 5 --case u32-keys --data narrow \
              --no-portable; } > "$vlog-bench.log" 2>&1
        brc=$?
        awk -v v="$name" '$1 ~ /^[0-9]+$/ && NF >= 11 {
            printf "%-15s %-14s %-11s %10s %10s %10s %8s  %s\n", v, $2, $3, $1, $5, $9, $10,
                   (/MISMATCH/ ? "MISMATCH" : "") }' "$vlog-bench.log" | tee -a "$report"
        note "$(printf '%-15s ptxas: ps_onesweep %s registers%s; test exit %s; bench exit %s' \
                "$name" "${regs:-?}" "$([ $prc -eq 0 ] || echo ', FAILS the check (spills?)')" "$trc" "$brc")"
        note "$(printf '%-15s flags: %s' "$name" "${defs:-(none)}")"
        [ "$trc" -eq 0 ] || fail "variant $name: ps_test_diff exit $trc"
        grep -q MISMATCH "$vlog-bench.log" && fail "variant $name: results differ from CUB's"
    done
    note '```'
    module_restore "$logs/variants-restore.log"
    ;;
segments)
    note "## segmented sort: ps_cuda_sort_segments vs cub::DeviceSegmentedSort"
    cd "$build/obj" || exit 1
    log="$logs/segments-test.log"
    PORTSORT_MODULE_PATH=$(modpath) PORTSORT_BACKEND=cuda PORTSORT_VERBOSE=1 \
        timeout "$(cap "$limit")" ./test/ps_test_segments > "$log" 2>&1
    rc=$?
    note "- ps_test_segments on cuda: exit $rc; $(grep -v '^portsort:' "$log" | tail -1)"
    [ "$rc" -eq 0 ] || fail "ps_test_segments on cuda"
    note "- $(awk -f "$top/test/seg-classes.awk" "$log" | head -1)"
    awk -f "$top/test/seg-classes.awk" "$log" > /dev/null || fail "the segmented device path missed a size class"
    for tool in memcheck racecheck; do
        log="$logs/sanitize-segments-$tool.log"
        PS_TEST_MAX_N=20000 PORTSORT_BACKEND=cuda PORTSORT_MODULE_PATH=$(modpath) \
            timeout "$(cap "$limit")" ./libtool --mode=execute compute-sanitizer --tool $tool \
            --error-exitcode 9 ./test/ps_test_segments > "$log" 2>&1
        rc=$?
        note "- $tool on ps_test_segments (PS_TEST_MAX_N=20000): exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
        [ "$rc" -eq 0 ] || fail "$tool on ps_test_segments"
    done
    cmd="bench/ps_cudasegbench -n ${PS_SEGBENCH_N:-10000000} --reps 7 --csv $out/results-cuda-segments.csv csr uniform uniform:1000 power-law equal:4 equal:64"
    note "command: PORTSORT_MODULE_PATH=\$PWD/backends/cuda/.libs $cmd"
    { echo '```'; PORTSORT_MODULE_PATH=$(modpath) timeout "$(cap "${PS_GPURUN_SCALE_TIMEOUT:-540}")" $cmd 2>&1; echo '```'; } \
        | tee "$logs/segbench.log" >> "$report"
    grep -q MISMATCH "$logs/segbench.log" && fail "ps_cudasegbench results differ from CUB's"
    grep -q '^device:' "$logs/segbench.log" || fail "ps_cudasegbench did not run"
    ;;
traffic)
    # DRAM bytes per key, read by the hardware counters: one process per
    # case, each sorter run twice (warm-up and one timed run), kernels
    # told apart by name (ps_os_* and ps_onesweep: our Onesweep path; other
    # ps_*: reduce-then-scan; the rest: CUB).
    n=$((1 << ${PS_TRAFFIC_LOG2:-24}))
    note "## DRAM bytes per key, Nsight Compute, n = $n, random keys"
    cd "$build/obj" || exit 1
    if ! command -v ncu > /dev/null; then note "- ncu not found: skipped"; continue; fi
    note '```'
    note "$(printf '%-14s %12s %12s %12s' case onesweep portable cub)"
    for c in u32-keys u32/u32-pairs u64-keys; do
        f=$logs/ncu-$(echo "$c" | tr / _).csv
        PORTSORT_MODULE_PATH=$(modpath) timeout "$(cap 180)" ncu --clock-control none \
            --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base \
            --print-kernel-base function bench/ps_cudabench --min "${PS_TRAFFIC_LOG2:-24}" \
            --max "${PS_TRAFFIC_LOG2:-24}" --reps 1 --case "$c" --data random > "$f" 2>&1
        rc=$?
        row=$(python3 - "$f" "$n" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1], errors="replace")) if len(r) > 5]
heads = [i for i, r in enumerate(rows) if "Kernel Name" in r and "Metric Value" in r]
if not heads:
    print("no counters read"); sys.exit(0)
h = rows[heads[0]]; rows = rows[heads[0]:]; k = h.index("Kernel Name"); m = h.index("Metric Name"); v = h.index("Metric Value")
tot = {"onesweep": 0.0, "portable": 0.0, "cub": 0.0}
for r in rows[1:]:
    if not r[m].startswith("dram__bytes"):
        continue
    name = r[k]
    who = ("onesweep" if name.startswith(("ps_os_", "ps_onesweep")) else
           "portable" if name.startswith("ps_") else "cub")
    tot[who] += float(r[v].replace(",", ""))
n = float(sys.argv[2])
print(" ".join("%12.2f" % (tot[w] / 2 / n) for w in ("onesweep", "portable", "cub")))
PY
)
        note "$(printf '%-14s %s' "$c" "$row")$([ $rc -ne 0 ] && echo " (ncu exit $rc)")"
    done
    note '```'
    ;;
profile)
    # Where a Onesweep tile's time goes, ours against CUB's, from Nsight
    # Compute's full set on one pass (the second: random digits) of a
    # 2^PS_PROFILE_LOG2-key sort (default 24) of each case: stall reasons,
    # instructions, occupancy, shared-memory bank conflicts
    # (bench/ps_ncu_summary.py prints them side by side); then every
    # kernel's time in one sort of each library, to see what besides the
    # Onesweep passes costs.  Reports and CSVs go into the logs.
    lg=${PS_PROFILE_LOG2:-24}
    note "## where the time goes: Nsight Compute on one Onesweep pass, n = 2^$lg, random keys"
    cd "$build/obj" || exit 1
    if ! command -v ncu > /dev/null; then note "- ncu not found: skipped"; continue; fi
    for c in ${PS_PROFILE_CASES:-u32-keys u32/u32-pairs}; do
        cs=$(echo "$c" | tr / _)
        args="--min $lg --max $lg --reps 1 --case $c --data random --no-portable"
        cols=
        for who in ours:regex:ps_onesweep cub:regex:Onesweep; do
            w=${who%%:*} k=${who#*:}
            rep=$logs/prof-$cs-$w
            # shellcheck disable=SC2086
            PORTSORT_MODULE_PATH=$(modpath) timeout "$(cap 150)" ncu --clock-control none \
                --set full --import-source no -k "$k" --launch-skip 1 --launch-count 1 \
                -f -o "$rep" bench/ps_cudabench $args > "$rep.log" 2>&1 ||
                note "- ncu on $w $c: exit $? (see $(basename "$rep").log)"
            ncu --import "$rep.ncu-rep" --page raw --csv > "$rep-raw.csv" 2>> "$rep.log"
            ncu --import "$rep.ncu-rep" --page details --csv > "$rep-details.csv" 2>> "$rep.log"
            ncu --import "$rep.ncu-rep" --page source --csv --print-source sass \
                > "$rep-sass.csv" 2>> "$rep.log"
            cols="$cols $w=$rep-raw.csv"
        done
        note "### $c"
        note '```'
        # shellcheck disable=SC2086
        note "$(python3 "$top/bench/ps_ncu_summary.py" $cols 2>&1)"
        note '```'
    done
    note "every kernel of one sort, u32 keys, 2^$lg (ncu gpu__time_duration, warm-up then timed run):"
    note '```'
    PORTSORT_MODULE_PATH=$(modpath) timeout "$(cap 120)" ncu --clock-control none \
        --metrics gpu__time_duration.sum --csv --print-units base --print-kernel-base function \
        bench/ps_cudabench --min "$lg" --max "$lg" --reps 1 --case u32-keys --data random \
        --no-portable > "$logs/prof-kernels.csv" 2>&1
    note "$(python3 - "$logs/prof-kernels.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1], errors="replace")) if len(r) > 5]
heads = [i for i, r in enumerate(rows) if "Kernel Name" in r and "Metric Value" in r]
if not heads:
    print("no counters read"); sys.exit(0)
h = rows[heads[0]]; k = h.index("Kernel Name"); v = h.index("Metric Value")
for r in rows[heads[0] + 1:]:
    print("%-60s %10.1f us" % (r[k][:60], float(r[v].replace(",", "")) / 1e3))
PY
)"
    note '```'
    ;;
*)
    echo "unknown step $step (build quick test sanitize bench crossover scale devices fallback segments traffic variants strings profile)" >&2
    exit 2
    ;;
esac
note "($step: $(( $(date +%s) - t0 )) s)"
done
note "gpu-run.sh: $([ $status -eq 0 ] && echo all steps passed || echo some steps FAILED)"
cp "$report" "$top/doc/results-cuda.md"
[ -f "$out/results-cuda.csv" ] && cp "$out/results-cuda.csv" "$top/doc/results-cuda.csv"
[ -f "$out/results-cuda-segments.csv" ] && cp "$out/results-cuda-segments.csv" "$top/doc/results-cuda-segments.csv"
exit $status
