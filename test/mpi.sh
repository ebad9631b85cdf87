#!/bin/sh
# libportsort_mpi: test/ps_test_mpi under mpirun on 1, 2, 3, 4 and 7 ranks
# (oversubscribed: the point is the communication patterns, not speed).
# One mpirun per size, since starting one costs most of a second; the
# program loops over every case itself.
. "${srcdir:-.}/test/mpi-common.sh"
prog=$build/test/ps_test_mpi
[ -x "$prog" ] || { echo "test/ps_test_mpi not built"; exit 99; }

for np in ${PS_MPI_RANKS:-1 2 3 4 7}; do
    echo "== $np ranks"
    # shellcheck disable=SC2086
    PS_MPI_EXPECT_SIZE=$np timeout "${PS_TEST_TIMEOUT:-300}" \
        "$mpirun" $mpi_opts -np "$np" "$prog"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "ps_test_mpi failed on $np ranks (exit $rc)"
        exit 1
    fi
done
