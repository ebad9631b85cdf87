/*
 * ps_mpi_internal.h - what the parts of libportsort_mpi share: the state of
 * one collective call, and the steps that the drivers in ps_mpi_sort.c
 * chain (agreement, splitters, exchange, redistribution).
 */
#ifndef PS_MPI_INTERNAL_H
#define PS_MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "portsort_mpi.h"

/* Which public function a rank called: ranks must agree on it too, since
 * the three run different sequences of collectives. */
enum ps_mpi_op { PS_MPI_OP_KEYS = 1, PS_MPI_OP_PAIRS, PS_MPI_OP_KEYS_V };

/* A sample of the global order: (ordered key, rank, position in the rank's
 * locally sorted array).  Positions order equal keys as their input
 * indices do, because the local sort is stable, so the triple is unique
 * and sorts exactly as the global stable order. */
typedef struct ps_mpi_sample {
    uint64_t key;
    uint64_t rank;
    uint64_t pos;
} ps_mpi_sample;

/* State of one call; every per-rank array has `size` entries. */
typedef struct ps_mpi_ctx {
    MPI_Comm comm;
    int rank, size;
    ps_type type;
    unsigned flags;
    size_t key_size;
    size_t max_msg;        /* most bytes in one block of a message */
    uint64_t *n_all;       /* every rank's input count */
    uint64_t *m_all;       /* every rank's bucket count (after the exchange) */
    uint64_t *gather;      /* 2 * size, scratch of ps_mpi_agree_counts */
    size_t *scount, *sdispl, *rcount, *rdispl;  /* in elements */
    int *icount[4];        /* the same in bytes, for MPI_Alltoallv */
    int *wcount[2];        /* MPI_Alltoallw: per-peer counts, send/recv */
    int *wzero;            /* MPI_Alltoallw: all-zero displacements */
    MPI_Datatype *wtype[2];
    ps_mpi_sample *samples;  /* room for ps_mpi_sample_room() samples */
    size_t sample_room;
    ps_mpi_sample *splitters;  /* size - 1 of them */
} ps_mpi_ctx;

/* ps_mpi_order.c: the order-preserving map of key i of `keys` to an
 * unsigned 64-bit integer, inverted for PS_DESCENDING, so that comparing
 * the integers compares the keys in the requested order. */
uint64_t ps_mpi_ordered_key(const void *keys, size_t i, ps_type type, unsigned flags);

/* ps_mpi_agree.c.  A status is reduced across ranks by MPI_MAX of its
 * rank (the smallest non-zero status wins: a bad argument explains more
 * than the allocation that followed it). */
int64_t ps_mpi_status_rank(int status);
int ps_mpi_status_of_rank(int64_t rank);
/* Agree on the call's parameters and this rank's status so far.  Returns
 * the common status: PS_ERR_INVALID_ARG when op, type, flags, value_size
 * or the message limit differ between ranks, else the highest-ranked
 * local status, PS_OK when all are fine.  PS_ERR_DEVICE on an MPI error. */
int ps_mpi_agree_args(ps_mpi_ctx *c, int op, size_t value_size, int local_status);
/* MPI_Allreduce(MPI_MAX) of v[0..n) in place; v[0] is a status rank.
 * Returns the common status or PS_ERR_DEVICE. */
int ps_mpi_agree_max(ps_mpi_ctx *c, int64_t *v, int n);
/* Allgather of (count, status) from every rank: fills out[] with the
 * counts and returns the common status. */
int ps_mpi_agree_counts(ps_mpi_ctx *c, size_t count, int local_status, uint64_t *out);

/* ps_mpi_splitters.c */
size_t ps_mpi_sample_room(int size);
/* Choose size - 1 splitters by regular sampling of the locally sorted
 * keys of every rank (n_all must be filled), and set scount/sdispl to the
 * bucket of each destination rank in this rank's sorted keys. */
int ps_mpi_split(ps_mpi_ctx *c, const void *sorted_keys, size_t n);

/* ps_mpi_exchange.c: send scount[d] elements of elem_size bytes from
 * send + sdispl[d] to every rank d, and receive rcount[s] elements at
 * recv + rdispl[s] from every rank s.  largest is the largest element
 * count any rank sends or receives in total, the same on every rank: it
 * picks MPI_Alltoallv when every byte count fits in an int (and in
 * max_msg), and MPI_Alltoallw with derived datatypes otherwise. */
int ps_mpi_exchange(ps_mpi_ctx *c, const void *send, void *recv, size_t elem_size,
                    uint64_t largest);

/* ps_mpi_redistribute.c: from n_all and m_all, the counts that send this
 * rank's sorted bucket to the ranks owning its global positions, and
 * returns the largest count any rank sends or receives. */
uint64_t ps_mpi_redistribution(ps_mpi_ctx *c);

#endif
