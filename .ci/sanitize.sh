#!/usr/bin/env bash
# The sanitizer runs CI makes besides the plain make check:
#  1. an ASan + UBSan build (build-asan/) running make check but for the
#     tests named in asan_skip below (their C code runs under ASan in the
#     tests kept: see there);
#  2. valgrind memcheck on the backend tests of the CPU backends;
#  3. a ThreadSanitizer build (build-tsan/) running the thread, fork and
#     error tests on the CPU backends.
# SANITIZE_STEPS selects some of "asan valgrind tsan" (default: all three).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
jobs=$(nproc 2>/dev/null || echo 2)
steps=${SANITIZE_STEPS:-asan valgrind tsan}
[ -x configure ] || autoreconf -fi

# CPU backends built into this tree (openmp only when configured in).
cpu_backends() {
    echo serial
    grep -q '^#define PS_HAVE_OPENMP 1' "$1/config.h" && echo openmp || true
}

configure_in() {   # dir, CFLAGS
    mkdir -p "$1"
    if [ ! -f "$1/Makefile" ]; then
        (cd "$1" && "$top/configure" -q --disable-static --enable-werror --disable-benchmarks \
            CFLAGS="$2" CXXFLAGS="$2" LDFLAGS="$2")
    fi
    make -C "$1" -j"$jobs" >/dev/null
    make -C "$1" -j"$jobs" check TESTS= >/dev/null   # build the test programs
}

for step in $steps; do
t0=$SECONDS
case $step in
asan)
    echo "== ASan + UBSan: make check"
    flags="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
    configure_in build-asan "$flags"
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=23
    export LSAN_OPTIONS=suppressions=$top/test/lsan.supp:print_suppressions=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    # The shapes tests (test/shapes-*.sh) on two thread counts, not four,
    # and at sizes up to 2^17 + 1: under ASan a run at 1M keys takes
    # minutes, and the plain build has just run them all at 1M and 4M.
    export PS_SHAPES_THREADS="2 3" PS_SHAPES_MAX_N=131073
    # Every test but these few, and the differential tests up to 2^16 + 1
    # keys, where every path of every backend already runs (the plain
    # build has just run them all at full size):
    #  - opencl.sh, opencl-onesweep.sh, shapes-gpu.sh: pocl running our
    #    kernels through thousands of launches, minutes each even without
    #    ASan; the OpenCL host code they share runs under ASan in
    #    opencl-api.sh, opencl-cache.sh, opencl-devfault.sh and
    #    opencl-select.sh, kept;
    #  - python.sh, cmake.sh and relocate.sh test packaging (a venv and
    #    pip, a CMake project, a moved install), not the library's memory
    #    (static.sh skips itself: -static cannot link a sanitizer runtime);
    #  - cli-manpages.sh reads the man pages;
    #  - cpubench.sh runs the benchmark's peers, other projects' code
    #    (Boost's spreadsort overflows a signed int, which UBSan stops).
    asan_skip="test/opencl.sh test/opencl-onesweep.sh test/shapes-gpu.sh
        test/python.sh test/cmake.sh test/relocate.sh test/cli/cli-manpages.sh
        test/cpubench.sh"
    asan_tests=$(make -s -C build-asan list-tests | grep -E '^[A-Za-z0-9_./-]+$' |
        grep -vxF -f <(printf '%s\n' $asan_skip) | tr '\n' ' ')
    # An empty list would make `make check TESTS=` pass having run nothing.
    [ -n "${asan_tests// /}" ] || { echo "ASan: no tests listed by make list-tests" >&2; exit 1; }
    # One type of each width and order transform (unsigned, signed, half,
    # float): the plain build checks all twelve, ASan looks for memory
    # errors, which follow the widths' code.
    # The CUDA stand-in without its one segmented case of 140000 keys
    # (test/gpu-fake.sh says why).
    # Its look-back and no-pools runs up to 20000 keys (they test kernels
    # and allocation, not sizes; test/gpu-fake.sh says more).
    export PS_TEST_MAX_N=65537 PS_TEST_TYPES=u8,i16,f16,f32,u64 PS_GPU_FAKE_SEG_BIG=0
    export PS_GPU_FAKE_KERNEL_MAX_N=20000
    if ! make -C build-asan -j"$jobs" check TESTS="$asan_tests"; then
        # LeakSanitizer's stop-the-world tracer sometimes crashes on a
        # loaded host ("Tracer caught signal 11", then "LeakSanitizer has
        # encountered a fatal error"): no leak was found, none was looked
        # for.  Tests that failed only that way run once more; any other
        # failure, or a second one, fails the step.
        retry=""
        for trs in build-asan/test/*.trs build-asan/test/cli/*.trs; do
            grep -q '^:test-result: FAIL' "$trs" || continue
            log=${trs%.trs}.log
            if grep -q 'LeakSanitizer has encountered a fatal error' "$log" &&
               ! grep -Eq 'detected memory leaks|ERROR: AddressSanitizer|runtime error' "$log"
            then
                t=${trs#build-asan/}
                retry="$retry ${t%.trs}"
            else
                cat build-asan/test-suite.log
                exit 1
            fi
        done
        [ -n "$retry" ] || { cat build-asan/test-suite.log; exit 1; }
        echo "   LeakSanitizer's tracer crashed in:$retry; once more"
        make -C build-asan check TESTS="${retry# }" ||
            { cat build-asan/test-suite.log; exit 1; }
    fi
    unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS PS_TEST_MAX_N PS_TEST_TYPES PS_GPU_FAKE_SEG_BIG
    unset PS_GPU_FAKE_KERNEL_MAX_N
    ;;
valgrind)
    echo "== valgrind memcheck: CPU backends"
    command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 1; }
    configure_in build "-O2 -g"
    cd build
    for b in $(cpu_backends .); do
        for t in ps_test_diff ps_test_errors ps_test_fork; do
            echo "   $t on $b"
            # PS_TEST_FORK_ROUNDS=0: a child forked while other threads
            # sort inherits their scratch, referenced from stacks it does
            # not have, which memcheck reports as definitely lost there.
            # --fair-sched=yes and OMP_WAIT_POLICY=passive: valgrind runs
            # one thread at a time, and by default hands the CPU to
            # whichever thread grabs its lock, so a thread that polls (the
            # openmp pool's idle members, which poll yielding for up to
            # 10 ms; libgomp's threads after ps_test_fork's own OpenMP
            # region, an application's) starved the one sorting:
            # ps_test_fork on openmp took 473 s and more (Intel Xeon VM,
            # 2 cores; CI's whole step 1397 s, then 257 s with libgomp
            # passive alone), 3-9 s with both.  Valgrind's manual
            # recommends the fair lock for programs whose threads spin.
            OMP_WAIT_POLICY=passive \
            PS_TEST_MAX_N=4097 PS_TEST_NO_FAULTS=1 PS_TEST_FORK_ROUNDS=0 \
                PORTSORT_BACKEND=$b top_builddir=. \
                ./libtool --mode=execute valgrind -q --fair-sched=yes --error-exitcode=9 \
                --leak-check=full --errors-for-leak-kinds=definite \
                --trace-children=no ./test/$t >/dev/null
        done
    done
    cd "$top"
    ;;
tsan)
    echo "== ThreadSanitizer: threads, fork, errors and segments on CPU backends"
    configure_in build-tsan "-O1 -g -fsanitize=thread"
    # The openmp backend's pool (ps_openmp_team.c) is our code, instrumented:
    # three members, so that TSan sees its phases and claims, beside the
    # races between calling threads (the choice of backend, cached scratch,
    # error details).  Applications' OpenMP regions (ps_test_fork plays
    # one) run on libgomp, which is not built with TSan: one thread there.
    # die_after_fork=0: a forked child starts a pool of its own, which TSan
    # refuses by default.
    for b in $(cpu_backends build-tsan); do
        for t in ps_test_threads ps_test_fork ps_test_errors ps_test_segments; do
            echo "   $t on $b"
            (cd build-tsan && OMP_NUM_THREADS=1 PORTSORT_THREADS=3 \
                PORTSORT_BACKEND=$b PS_TEST_MAX_N=100000 \
                TSAN_OPTIONS=halt_on_error=1:exitcode=24:die_after_fork=0 \
                top_builddir=. ./test/$t >/dev/null)
        done
    done
    # The top-k select's jobs (chunks writing at offsets their counts give,
    # packing, writing the outputs) on the pool: on openmp only, whose
    # pool it is (about 45 s here).
    echo "   ps_test_topk on openmp"
    (cd build-tsan && OMP_NUM_THREADS=1 PORTSORT_THREADS=3 \
        PORTSORT_BACKEND=openmp \
        TSAN_OPTIONS=halt_on_error=1:exitcode=24:die_after_fork=0 \
        top_builddir=. ./test/ps_test_topk >/dev/null)
    # The in-place sort's buckets as jobs on the pool (keys under a memory
    # limit, reference/ps_inplace.c), up to 70001 keys (a few seconds).
    echo "   ps_test_memory on openmp"
    (cd build-tsan && OMP_NUM_THREADS=1 PORTSORT_THREADS=3 \
        PORTSORT_BACKEND=openmp PS_TEST_MAX_N=100000 PS_TEST_NO_RLIMIT=1 \
        TSAN_OPTIONS=halt_on_error=1:exitcode=24:die_after_fork=0 \
        top_builddir=. ./test/ps_test_memory >/dev/null)
    ;;
esac
echo "--- sanitize.sh: $step took $((SECONDS - t0)) s"
done
echo "sanitizers: all clean"
