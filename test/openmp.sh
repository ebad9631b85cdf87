#!/bin/sh
# The backend-parametrised tests on the OpenMP backend, then its large sizes.
"$(dirname "$0")/run-backend.sh" openmp || exit $?
PORTSORT_BACKEND=openmp exec "${top_builddir:-.}/test/ps_test_openmp_large"
