/* Sorts three ints per rank through the CMake-imported
 * portsort::portsort_mpi target; rank 0 prints all of them in rank order
 * and test/cmake.sh checks the output. */
#include <portsort_mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, keys[3], all[3 * 64];
    int st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64)
        MPI_Abort(MPI_COMM_WORLD, 1);
    keys[0] = 10 * rank - 7;
    keys[1] = 42 - rank;
    keys[2] = -rank;
    st = ps_mpi_sort_keys(MPI_COMM_WORLD, keys, 3, PS_I32, 0);
    if (st != PS_OK) {
        fprintf(stderr, "%s: %s\n", ps_strerror(st), ps_error_detail());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(keys, 3, MPI_INT, all, 3, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < 3 * size; i++)
            printf("%d%c", all[i], i + 1 < 3 * size ? ' ' : '\n');
    MPI_Finalize();
    return 0;
}
