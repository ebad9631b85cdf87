/*
 * ps_mpi_bench.c - time libportsort_mpi (doc/mpi.md has the figures).
 *
 *   mpirun -np P tools/ps_mpi_bench [total_keys [repeats]]
 *
 * Sorts total_keys random u32 keys (16M by default) spread evenly over the
 * ranks, with ps_mpi_sort_keys and ps_mpi_sort_keys_v, and prints the best
 * time of `repeats` runs (each from the same input) and the bytes each key
 * moved between ranks; first, the time of ps_sort_keys on each rank's share
 * alone.  Key g of the global array is a function of g alone,
 * so every communicator size sorts the same data.
 *
 * The byte counts come from the MPI profiling interface: this program
 * defines the collectives libportsort_mpi calls, counts what each rank
 * sends to the other ranks, and forwards to the PMPI_ entry points.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portsort_mpi.h"

/* Bytes this rank sent to other ranks: the keys themselves (alltoallv,
 * alltoallw) and everything else (counts, samples, agreements). */
static double sent_data, sent_control;

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

int MPI_Alltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb,
                  const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    int me = 0, n = 0;
    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &n);
    for (int r = 0; r < n; r++)
        if (r != me)
            sent_data += type_bytes(st, sc[r]);
    return PMPI_Alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

int MPI_Alltoallw(const void *sb, const int sc[], const int sd[], const MPI_Datatype st[],
                  void *rb, const int rc[], const int rd[], const MPI_Datatype rt[],
                  MPI_Comm comm)
{
    int me = 0, n = 0;
    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &n);
    for (int r = 0; r < n; r++) {
        MPI_Count s = 0;
        PMPI_Type_size_x(st[r], &s);
        if (r != me)
            sent_data += (double)s * sc[r];
    }
    return PMPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

int MPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                 MPI_Comm comm)
{
    sent_control += type_bytes(st, sc) * peers(comm);
    return PMPI_Alltoall(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                  MPI_Comm comm)
{
    sent_control += type_bytes(st, sc) * peers(comm);
    return PMPI_Allgather(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rc[],
                   const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    /* The library gathers in place: its share is its own slot. */
    sent_control += type_bytes(rt, rc[me]) * peers(comm);
    return PMPI_Allgatherv(sb, sc, st, rb, rc, rd, rt, comm);
}

int MPI_Allreduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op,
                  MPI_Comm comm)
{
    sent_control += type_bytes(t, count) * peers(comm);
    return PMPI_Allreduce(sb, rb, count, t, op, comm);
}

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Local order and the boundary with the next rank: the result is sorted. */
static int check_sorted(const uint32_t *k, size_t n, int rank, int size)
{
    uint32_t edge[2] = { n ? k[0] : 0, n ? k[n - 1] : 0 }, prev_last = 0;
    int bad = 0, has = n > 0, prev_has = 0;
    for (size_t i = 1; i < n; i++)
        bad |= k[i - 1] > k[i];
    /* Pass the last key to the right neighbour (empty ranks pass on). */
    if (rank > 0) {
        MPI_Status s;
        uint32_t msg[2];
        PMPI_Recv(msg, 2, MPI_UINT32_T, rank - 1, 9, MPI_COMM_WORLD, &s);
        prev_has = (int)msg[0], prev_last = msg[1];
        if (prev_has && has && prev_last > edge[0])
            bad = 1;
    }
    if (rank + 1 < size) {
        uint32_t msg[2] = { (uint32_t)(has || prev_has), has ? edge[1] : prev_last };
        PMPI_Send(msg, 2, MPI_UINT32_T, rank + 1, 9, MPI_COMM_WORLD);
    }
    PMPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    size_t total = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 24;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    size_t lo = total * (size_t)rank / (size_t)size;
    size_t n = total * (size_t)(rank + 1) / (size_t)size - lo;
    uint32_t *input = malloc(n * 4 + 4), *keys = malloc(n * 4 + 4);
    uint32_t *out = malloc(total * 4 + 4);
    if (input == NULL || keys == NULL || out == NULL) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < n; i++)
        input[i] = (uint32_t)mix(lo + i);

    /* The local sort alone, each rank on its share at the same time: what
     * the ranks' computation costs when they share the machine, to read
     * the distributed times against. */
    double local = 1e30;
    for (int r = 0; r < reps; r++) {
        memcpy(keys, input, n * 4);
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int st = ps_sort_keys(keys, n, PS_U32, 0);
        double t = MPI_Wtime() - t0;
        PMPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (st != PS_OK)
            MPI_Abort(MPI_COMM_WORLD, 1);
        if (t < local)
            local = t;
    }
    if (rank == 0)
        printf("%-19s ranks %d  keys %zu  best of %d: %.3f s  (each rank its %zu keys)\n",
               "ps_sort_keys", size, total, reps, local, n);

    const char *names[2] = { "ps_mpi_sort_keys", "ps_mpi_sort_keys_v" };
    for (int form = 0; form < 2; form++) {
        double best = 1e30, data = 0, control = 0;
        for (int r = 0; r < reps; r++) {
            size_t n_out = 0;
            memcpy(keys, input, n * 4);
            sent_data = sent_control = 0;
            PMPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            int st = form == 0 ? ps_mpi_sort_keys(MPI_COMM_WORLD, keys, n, PS_U32, 0)
                               : ps_mpi_sort_keys_v(MPI_COMM_WORLD, keys, n, out, total,
                                                    &n_out, PS_U32, 0);
            double t = MPI_Wtime() - t0;
            PMPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (st != PS_OK) {
                fprintf(stderr, "rank %d: %s: %s\n", rank, names[form], ps_strerror(st));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (check_sorted(form == 0 ? keys : out, form == 0 ? n : n_out, rank, size)) {
                if (rank == 0)
                    fprintf(stderr, "%s: result not sorted\n", names[form]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (t < best)
                best = t;
            data = sent_data;
            control = sent_control;
        }
        PMPI_Allreduce(MPI_IN_PLACE, &data, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Allreduce(MPI_IN_PLACE, &control, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
            printf("%-19s ranks %d  keys %zu  best of %d: %.3f s  %.1f Mkeys/s  "
                   "bytes moved per key: data %.2f, control %.4f  backend %s\n",
                   names[form], size, total, reps, best, (double)total / best / 1e6,
                   data / (double)total, control / (double)total, ps_backend_name());
    }
    free(input);
    free(keys);
    free(out);
    MPI_Finalize();
    return 0;
}
