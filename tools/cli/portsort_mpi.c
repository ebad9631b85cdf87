/*
 * portsort_mpi.c - the portsort-mpi command: `mpirun -np P portsort-mpi
 * sort|bench ...`, the distributed sort of libportsort_mpi on files.
 *
 * Each subcommand lives in its own file (ps_mpi_cli_*.c); this one starts
 * MPI, learns the rank and size that all of them use, and picks the
 * subcommand.
 */
#include <signal.h>
#include <string.h>

#include "ps_mpi_cli.h"

static void usage(FILE *f)
{
    fprintf(f,
"Usage: mpirun -np P portsort-mpi COMMAND [OPTION]...\n"
"Sort numeric keys spread over the ranks of an MPI job with libportsort_mpi,\n"
"and measure it.\n"
"\n"
"Commands:\n"
"  sort     sort a binary file of keys (and one of values) with MPI-IO\n"
"  bench    strong and weak scaling of the distributed sort\n"
"\n"
"'portsort-mpi COMMAND --help' describes each; see also portsort-mpi(1).\n"
"PORTSORT_BACKEND picks the backend each rank sorts on.\n");
}

static int run(int argc, char **argv)
{
    int root = ps_mpi_cli_rank == 0;

    if (argc < 2) {
        if (root)
            usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "sort") == 0)
        return ps_mpi_cli_sort(argc - 1, argv + 1);
    if (strcmp(argv[1], "bench") == 0)
        return ps_mpi_cli_bench(argc - 1, argv + 1);
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        if (root)
            usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        if (root)
            printf("portsort-mpi (libportsort) %s\n", ps_version());
        return 0;
    }
    if (root) {
        fprintf(stderr, "%s: unknown command '%s'\n", PS_CLI_NAME, argv[1]);
        usage(stderr);
    }
    return 2;
}

/* Standard output's buffer, for the whole run (see main). */
static char stdout_buffer[BUFSIZ];

int main(int argc, char **argv)
{
    int rc;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &ps_mpi_cli_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ps_mpi_cli_size);
    /* MPICH's MPI_Init calls setbuf(stdout, NULL): every printf is then
     * a write(2) of its own, and one that fails only sets the stream's
     * error flag, the errno that says why (ENOSPC, EPIPE) being gone by
     * the time ps_cli_close_stdout() reports.  A buffer of our own (glibc
     * keeps the one-byte buffer of an unbuffered stream when setvbuf is
     * given NULL) makes the failure surface in our fflush(), errno
     * intact; the benchmark flushes its progress lines itself. */
    setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
    /* Past `ulimit -f`, a write fails with EFBIG instead of killing the
     * process, which would leave its temporary files behind. */
    signal(SIGXFSZ, SIG_IGN);
    rc = run(argc, argv);
    /* Output that never reached standard output (rank 0's, in practice)
     * is a failure, and the exit status stays the same on every rank. */
    if (ps_cli_close_stdout() != 0 && rc == 0)
        rc = 1;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
