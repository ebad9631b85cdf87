#!/bin/sh
# ps_test_shapes (the shapes of real data, issue 16) on the CPU backends:
# serial; openmp on 2, 1, 3 and 8 threads (PS_SHAPES_THREADS; the team's recursion and the
# single thread's differ, and 3 splits unevenly); then openmp with the AVX2
# networks and with none, at sizes up to 2^17 + 1, since the leaves take
# separate code there.  Each run under a timeout: a hang must fail.
bin=${top_builddir:-.}/test/ps_test_shapes
limit=${PS_TEST_TIMEOUT:-1200}
run() {
    echo "--- $*${PS_SHAPES_MAX_N:+ (PS_SHAPES_MAX_N=$PS_SHAPES_MAX_N)}"
    env "$@" timeout "$limit" "$bin"
    rc=$?
    [ "$rc" -eq 124 ] && echo "timed out: $*"
    [ "$rc" -eq 0 ] || exit 1
}
# 4M keys (about 40 s of the oracle's merge sorts a run) on the default
# two threads only, 1M + 3 on 8 (a member per 128K keys); one thread (the
# solo recursion), three (uneven splits) and serial stop at 2^18 + 3,
# where a range still takes several MSD levels (CI's time,
# doc/reliability.md).
big=PS_TEST_MAX_N=1048579
mid=PS_TEST_MAX_N=262147
run PORTSORT_BACKEND=serial $mid
# PS_SHAPES_MAX_N caps every size (ps_test_shapes.c).
# PS_SHAPES_THREADS narrows the thread counts (the sanitizer builds, whose
# runs take several times longer, and distcheck use fewer).
for t in ${PS_SHAPES_THREADS:-2 1 3 8}; do
    case $t in
    2) run PORTSORT_BACKEND=openmp PORTSORT_THREADS=$t ;;
    8) run PORTSORT_BACKEND=openmp PORTSORT_THREADS=$t $big ;;
    *) run PORTSORT_BACKEND=openmp PORTSORT_THREADS=$t $mid ;;
    esac
done
for simd in avx2 none; do
    run PORTSORT_BACKEND=openmp PORTSORT_OPENMP_SIMD=$simd PS_TEST_MAX_N=131073
done
