/*
 * ps_mpi_cli_traffic.c - the bytes libportsort_mpi sends between ranks,
 * counted, not computed: this file defines the collectives the library
 * calls (the MPI profiling interface), adds what each rank sends to the
 * other ranks while counting is on, and forwards to the PMPI_ entry
 * points.  Every MPI_ call of the program passes through here, the tool's
 * own too; ps_mpi_cli_traffic.h says why those are not counted.
 */
#include <mpi.h>

#include "ps_mpi_cli_traffic.h"

/* The wrappers must be exported to interpose the library's calls; the
 * build hides symbols by default, and only Open MPI's mpi.h makes its
 * declarations visible (MPICH's does not). */
#define PS_MPI_WRAP __attribute__((visibility("default")))

static ps_mpi_cli_traffic sent;
static int counting;

void ps_mpi_cli_traffic_start(void)
{
    sent.data = sent.control = 0;
    counting = 1;
}

ps_mpi_cli_traffic ps_mpi_cli_traffic_stop(void)
{
    counting = 0;
    return sent;
}

static double type_bytes(MPI_Datatype t, long long count)
{
    int s = 0;
    PMPI_Type_size(t, &s);
    return (double)s * (double)count;
}

static int peers(MPI_Comm c)
{
    int n = 1;
    PMPI_Comm_size(c, &n);
    return n - 1;
}

PS_MPI_WRAP int MPI_Alltoallv(const void *sb, const int sc[], const int sd[],
                              MPI_Datatype st, void *rb, const int rc[], const int rd[],
                              MPI_Datatype rt, MPI_Comm comm)
{
    if (counting) {
        int me = 0, n = 0;
        PMPI_Comm_rank(comm, &me);
        PMPI_Comm_size(comm, &n);
        for (int r = 0; r < n; r++)
            if (r != me)
                sent.data += type_bytes(st, sc[r]);
    }
    return PMPI_Alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

PS_MPI_WRAP int MPI_Alltoallw(const void *sb, const int sc[], const int sd[],
                              const MPI_Datatype st[], void *rb, const int rc[],
                              const int rd[], const MPI_Datatype rt[], MPI_Comm comm)
{
    if (counting) {
        int me = 0, n = 0;
        PMPI_Comm_rank(comm, &me);
        PMPI_Comm_size(comm, &n);
        for (int r = 0; r < n; r++) {
            MPI_Count s = 0;
            PMPI_Type_size_x(st[r], &s);
            if (r != me)
                sent.data += (double)s * sc[r];
        }
    }
    return PMPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

/* The library's sparse exchange: point-to-point messages of its data. */
PS_MPI_WRAP int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dest, int tag,
                          MPI_Comm comm, MPI_Request *req)
{
    if (counting) {
        MPI_Count s = 0;
        PMPI_Type_size_x(t, &s);
        sent.data += (double)s * count;
    }
    return PMPI_Isend(buf, count, t, dest, tag, comm, req);
}

PS_MPI_WRAP int MPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                             MPI_Datatype rt, MPI_Comm comm)
{
    if (counting)
        sent.control += type_bytes(st, sc) * peers(comm);
    return PMPI_Alltoall(sb, sc, st, rb, rc, rt, comm);
}

PS_MPI_WRAP int MPI_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                              MPI_Datatype rt, MPI_Comm comm)
{
    if (counting)
        sent.control += type_bytes(st, sc) * peers(comm);
    return PMPI_Allgather(sb, sc, st, rb, rc, rt, comm);
}

PS_MPI_WRAP int MPI_Allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb,
                               const int rc[], const int rd[], MPI_Datatype rt,
                               MPI_Comm comm)
{
    if (counting) {
        int me = 0;
        PMPI_Comm_rank(comm, &me);
        /* The library gathers in place: its share is its own slot. */
        sent.control += type_bytes(rt, rc[me]) * peers(comm);
    }
    return PMPI_Allgatherv(sb, sc, st, rb, rc, rd, rt, comm);
}

PS_MPI_WRAP int MPI_Allreduce(const void *sb, void *rb, int count, MPI_Datatype t,
                              MPI_Op op, MPI_Comm comm)
{
    if (counting)
        sent.control += type_bytes(t, count) * peers(comm);
    return PMPI_Allreduce(sb, rb, count, t, op, comm);
}

/* A scan sends at most its vector to each higher rank: counted as the
 * reductions are, an upper bound. */
PS_MPI_WRAP int MPI_Exscan(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op,
                           MPI_Comm comm)
{
    if (counting)
        sent.control += type_bytes(t, count) * peers(comm);
    return PMPI_Exscan(sb, rb, count, t, op, comm);
}
