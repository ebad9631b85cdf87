#!/bin/sh
# libportsort_mpi: test/ps_test_mpi under mpirun on 1, 2, 3, 4 and 7 ranks
# (oversubscribed: the point is the communication patterns, not speed).
# One mpirun per size, since starting one costs most of a second; the
# program loops over every case itself.  Skipped (77) where libportsort_mpi
# is not configured, no launcher is found, or in a sanitizer build (MPI
# libraries are not instrumented, and their reports drown ours).
build=$(cd "${top_builddir:-.}" && pwd) || exit 99
prog=$build/test/ps_test_mpi
if [ ! -x "$prog" ]; then
    echo "libportsort_mpi not configured (./configure --with-mpi): skipped"
    exit 77
fi
mpirun=${PS_MPIRUN:-}
[ -n "$mpirun" ] || mpirun=$(command -v mpirun || command -v mpiexec || true)
if [ -z "$mpirun" ]; then
    echo "no mpirun or mpiexec: skipped"
    exit 77
fi
lib=$build/lib/.libs/libportsort.so
if [ -f "$lib" ] && ldd "$lib" 2>/dev/null | grep -Eq 'lib(a|t|ub)san'; then
    echo "sanitizer build: MPI under a sanitizer is not tested here: skipped"
    exit 77
fi

# Open MPI refuses more ranks than cores, and root, unless told.
opts=
if "$mpirun" --version 2>&1 | grep -q 'Open MPI'; then
    opts=--oversubscribe
    if [ "$(id -u)" -eq 0 ]; then
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    fi
fi
# One thread per rank: the ranks already share the cores.
PORTSORT_THREADS=${PORTSORT_THREADS:-1}
export PORTSORT_THREADS

for np in ${PS_MPI_RANKS:-1 2 3 4 7}; do
    echo "== $np ranks"
    # shellcheck disable=SC2086
    timeout "${PS_TEST_TIMEOUT:-300}" "$mpirun" $opts -np "$np" "$prog"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "ps_test_mpi failed on $np ranks (exit $rc)"
        exit 1
    fi
done
