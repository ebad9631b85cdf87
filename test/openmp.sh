#!/bin/sh
# The backend-parametrised tests on the OpenMP backend, then its large
# sizes, then the differential test again on one thread: the MSD passes
# that one thread runs alone (solo, and the packed route's single-caller
# form) differ from the team's, and the default is one thread per core.
# On a CPU with AVX-512, 4-byte keys without values end their leaves in
# sorting networks; one more run turns those off, so that the LSD leaves
# they replace stay tested there too.
"$(dirname "$0")/run-backend.sh" openmp || exit $?
PORTSORT_BACKEND=openmp "${top_builddir:-.}/test/ps_test_openmp_large" || exit $?
echo "ps_test_diff again without the AVX-512 leaf networks, sizes up to 2^17 + 1"
PORTSORT_BACKEND=openmp PORTSORT_OPENMP_AVX512=0 PS_TEST_MAX_N=131073 \
    "${top_builddir:-.}/test/ps_test_diff" || exit $?
echo "ps_test_diff again on one thread, sizes up to 2^17 + 1"
PORTSORT_BACKEND=openmp PORTSORT_THREADS=1 PS_TEST_MAX_N=131073 \
    exec "${top_builddir:-.}/test/ps_test_diff"
