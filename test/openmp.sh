#!/bin/sh
# The backend-parametrised tests on the OpenMP backend, then its large
# sizes, then the differential test again on one thread: the MSD passes
# that one thread runs alone (solo, and the packed route's single-caller
# form) differ from the team's, and the default is one thread per core.
# On a CPU with AVX-512 (or AVX2), leaves end in sorting networks; two more
# runs take the AVX2 networks and none, so that every path a CPU may take
# is tested on this one.
"$(dirname "$0")/run-backend.sh" openmp || exit $?
PORTSORT_BACKEND=openmp "${top_builddir:-.}/test/ps_test_openmp_large" || exit $?
for simd in avx2 none; do
    echo "ps_test_diff again with PORTSORT_OPENMP_SIMD=$simd, sizes up to 2^17 + 1"
    PORTSORT_BACKEND=openmp PORTSORT_OPENMP_SIMD=$simd PS_TEST_MAX_N=131073 \
        "${top_builddir:-.}/test/ps_test_diff" || exit $?
done
# The top-k select runs its chunks, segments, packing and writing as jobs
# on the pool (lib/ps_topk.c): one thread runs them in order, eight more
# members than this machine has CPUs.  The vector column bound of short
# segments (lib/ps_topk_vec.h) runs in its best form in the make check
# run; the one-thread run turns it off, the eight-thread run takes its
# AVX2 form (on a CPU with AVX2: else both are off).
for t in 1 8; do
    simd=avx2
    test "$t" = 1 && simd=none
    echo "ps_test_topk again on $t threads${simd:+, PORTSORT_OPENMP_SIMD=$simd}"
    PORTSORT_BACKEND=openmp PORTSORT_THREADS=$t PORTSORT_OPENMP_SIMD=$simd \
        "${top_builddir:-.}/test/ps_test_topk" || exit $?
done
echo "ps_test_diff again on one thread, sizes up to 2^17 + 1"
PORTSORT_BACKEND=openmp PORTSORT_THREADS=1 PS_TEST_MAX_N=131073 \
    exec "${top_builddir:-.}/test/ps_test_diff"
