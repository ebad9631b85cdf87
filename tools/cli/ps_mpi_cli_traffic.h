/*
 * ps_mpi_cli_traffic.h - the bytes this rank sends to the other ranks in
 * the collectives of libportsort_mpi, counted while counting is on, for
 * `portsort-mpi bench`.
 *
 * ps_mpi_cli_traffic.c defines the MPI collectives that the library calls
 * (the MPI profiling interface): each adds what it sends to the counts
 * when counting is on, then calls its PMPI_ entry point.  Counting is on
 * only between ps_mpi_cli_traffic_start and ps_mpi_cli_traffic_stop, so
 * that the tool brackets exactly the library call it measures and its own
 * reductions (timings, verdicts) stay out of the figures.
 */
#ifndef PS_MPI_CLI_TRAFFIC_H
#define PS_MPI_CLI_TRAFFIC_H

/* Bytes this rank sent to other ranks (never to itself). */
typedef struct ps_mpi_cli_traffic {
    double data;        /* the keys and values: MPI_Alltoallv, MPI_Alltoallw */
    double control;     /* the rest: counts, samples, agreements */
} ps_mpi_cli_traffic;

/* Zero the counts and start counting. */
void ps_mpi_cli_traffic_start(void);

/* Stop counting, and return what was counted since the start. */
ps_mpi_cli_traffic ps_mpi_cli_traffic_stop(void);

#endif /* PS_MPI_CLI_TRAFFIC_H */
