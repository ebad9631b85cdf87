/*
 * ps_mpi_cli.h - what the parts of the portsort-mpi command share: the
 * collective way of failing (ps_mpi_cli_fail.c), and the entry point of
 * each subcommand (ps_mpi_cli_sort.c, ps_mpi_cli_bench.c, whose byte
 * counters are in ps_mpi_cli_traffic.c).
 *
 * Every rank runs the same command line, so every decision taken from the
 * command line alone is the same everywhere; a failure that only some
 * ranks see (a file, memory, the backend) is agreed on with one reduction
 * before any rank acts on it, and reported once, by the lowest rank that
 * saw it.  The program uses only the public APIs (<portsort.h>,
 * <portsort_mpi.h>) and the pieces of the portsort command in ps_cli.h.
 */
#ifndef PS_MPI_CLI_H
#define PS_MPI_CLI_H

#include <mpi.h>

#include "ps_cli.h"
#include "portsort_mpi.h"

/* This process's rank and the size of MPI_COMM_WORLD (set by main, in
 * portsort_mpi.c). */
extern int ps_mpi_cli_rank, ps_mpi_cli_size;

/*
 * Agree on a failure: `failed` is this rank's verdict and, when it
 * failed, fmt... the message (NULL: it was already printed).  Every rank
 * returns 1 when any rank failed, and the lowest failing rank prints its
 * message as "portsort-mpi: ..." on standard error.  Collective over
 * MPI_COMM_WORLD.
 */
int ps_mpi_cli_fail(int failed, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Subcommands: argc/argv start at the subcommand's name; every rank calls
 * them.  They return the exit status, the same on every rank. */
int ps_mpi_cli_sort(int argc, char **argv);
int ps_mpi_cli_bench(int argc, char **argv);

#endif /* PS_MPI_CLI_H */
