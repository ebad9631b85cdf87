/*
 * ps_mpi_cli_fail.c - how every part of portsort-mpi fails: together.
 * A failure that only some ranks see is agreed on with one reduction, so
 * that every rank takes the same way out, and said once, by the lowest
 * rank that saw it (ps_mpi_cli.h).
 */
#include <stdarg.h>

#include "ps_mpi_cli.h"

int ps_mpi_cli_rank, ps_mpi_cli_size;

int ps_mpi_cli_fail(int failed, const char *fmt, ...)
{
    int first = failed ? ps_mpi_cli_rank : ps_mpi_cli_size;

    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == ps_mpi_cli_rank && fmt != NULL) {
        va_list ap;
        fprintf(stderr, "%s: ", PS_CLI_NAME);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    return first < ps_mpi_cli_size;
}
