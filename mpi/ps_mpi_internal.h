/*
 * ps_mpi_internal.h - what the parts of libportsort_mpi share: the state of
 * one collective call, and the steps that the drivers in ps_mpi_sort.c
 * chain (agreement, splitters, partition, exchange, redistribution).
 */
#ifndef PS_MPI_INTERNAL_H
#define PS_MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "portsort_mpi.h"
#include "ps_overlap.h"

/* Which public function a rank called: ranks must agree on it too, since
 * the three run different sequences of collectives. */
enum ps_mpi_op { PS_MPI_OP_KEYS = 1, PS_MPI_OP_PAIRS, PS_MPI_OP_KEYS_V };

/*
 * The order image of a key: an unsigned integer that compares as the keys
 * sort (integers by value, floats by totalOrder, inverted for
 * PS_DESCENDING), computed from the key's raw bits x as
 * x ^ c0 ^ (c1 if the sign bit of x is set) (ps_mpi_order.c).
 */
typedef struct ps_mpi_order {
    size_t key_size;
    unsigned sign_shift;    /* 8 * key_size - 1 */
    uint64_t c0, c1;
} ps_mpi_order;

void ps_mpi_order_init(ps_mpi_order *o, ps_type type, unsigned flags);

/* The raw bits of the key at p, zero-extended (keys are little-endian in
 * memory only as far as this library is concerned: it never reads them as
 * anything but integers of their own width). */
static inline uint64_t ps_mpi_key_bits(const unsigned char *p, size_t key_size)
{
    switch (key_size) {
    case 1: return *p;
    case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
    case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
    default: { uint64_t x; memcpy(&x, p, 8); return x; }
    }
}

static inline uint64_t ps_mpi_image(const ps_mpi_order *o, uint64_t bits)
{
    return bits ^ o->c0 ^ (o->c1 & (uint64_t)-(int64_t)(bits >> o->sign_shift));
}

/* A sample of the global order: (order image, rank, index in the rank's
 * input).  The triple is unique and sorts exactly as the global stable
 * order. */
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
    ps_mpi_order order;
    size_t key_size;
    size_t max_msg;        /* most bytes in one block of a message */
    uint64_t *n_all;       /* every rank's input count */
    uint64_t *m_all;       /* every rank's bucket count (after the exchange) */
    uint64_t *gather;      /* 2 * size words, scratch of the agreements */
    size_t *scount, *sdispl, *rcount, *rdispl;  /* in elements */
    int *icount[4];        /* the same in bytes, for MPI_Alltoallv */
    int *wcount[2];        /* MPI_Alltoallw: per-peer counts, send/recv */
    int *wzero;            /* MPI_Alltoallw: all-zero displacements */
    MPI_Datatype *wtype[2];
    ps_mpi_sample *samples;  /* room for ps_mpi_sample_room() samples */
    size_t sample_room;
    uint64_t *sample_keys;   /* the same room: the samples' keys, sorted */
    uint32_t *sample_at;     /* the same room: where each came from */
    /* The size - 1 splitters as this rank compares with them, in an
     * implicit binary tree of 2^tree_levels leaves (nodes 1 ..
     * 2^tree_levels - 1, 2 size entries allocated), thresholds in order
     * (ps_mpi_splitters.c says what they hold, ps_mpi_partition.c how they
     * are walked). */
    uint64_t *tree_hi, *tree_lo;
    unsigned tree_levels;
    int tree_narrow;
    unsigned char **dkeys, **dvalues;  /* partition: where each bucket goes */
} ps_mpi_ctx;

/* ps_mpi_cache.c: at least `bytes` of work memory, 64-byte aligned: the
 * block kept from an earlier call when there is one big enough, or NULL;
 * and its return, to be kept or freed. */
void *ps_mpi_cache_take(size_t bytes);
void ps_mpi_cache_put(void *p);

/* ps_mpi_agree.c.  A status is reduced across ranks by MPI_MAX of its
 * rank (the smallest non-zero status wins: a bad argument explains more
 * than the allocation that followed it). */
int64_t ps_mpi_status_rank(int status);
int ps_mpi_status_of_rank(int64_t rank);
/* Agree on the call's parameters and this rank's status so far.  Returns
 * the common status: PS_ERR_INVALID_ARG when op, type, flags, value_size
 * or the message limit differ between ranks, else the highest-ranked
 * local status, PS_OK when all are fine.  PS_ERR_DEVICE on an MPI error.
 * Needs no memory of the context, so a rank that could not allocate it
 * still takes part. */
int ps_mpi_agree_args(ps_mpi_ctx *c, int op, size_t value_size, int local_status);
/* MPI_Allreduce(MPI_MAX) of v[0..n) in place; v[0] is a status rank.
 * Returns the common status or PS_ERR_DEVICE. */
int ps_mpi_agree_max(ps_mpi_ctx *c, int64_t *v, int n);
/* Allgather of (count, status) from every rank: fills out[] with the
 * counts and returns the common status. */
int ps_mpi_agree_counts(ps_mpi_ctx *c, size_t count, int local_status, uint64_t *out);

/* ps_mpi_splitters.c */
size_t ps_mpi_sample_room(int size);
/* Samples over all ranks that ps_mpi_split draws for `total` keys: one in
 * each stride of ceil(total / target) keys of every rank. */
uint64_t ps_mpi_sample_step(int size, uint64_t total);
/* Choose size - 1 splitters from a sample of every rank's keys (n_all
 * must be filled) and build this rank's splitter tree. */
int ps_mpi_split(ps_mpi_ctx *c, const void *keys, size_t n);

/* ps_mpi_partition.c: scount[d] = how many of this rank's n keys belong
 * to rank d's bucket; then write each key (and value) to dkeys[d]
 * (dvalues[d]), in input order within each bucket. */
void ps_mpi_count(ps_mpi_ctx *c, const void *keys, size_t n);
void ps_mpi_scatter(ps_mpi_ctx *c, const void *keys, const void *values, size_t value_size,
                    size_t n);

/* ps_mpi_exchange.c: send scount[d] elements of elem_size bytes from
 * send + sdispl[d] to every rank d, and receive rcount[s] elements at
 * recv + rdispl[s] from every rank s.  largest is the largest element
 * count any rank sends or receives in total, the same on every rank: it
 * picks MPI_Alltoallv when every byte count fits in an int (and in
 * max_msg), and MPI_Alltoallw with derived datatypes otherwise. */
int ps_mpi_exchange(ps_mpi_ctx *c, const void *send, void *recv, size_t elem_size,
                    uint64_t largest);

/* ps_mpi_redistribute.c: from n_all and m_all, the counts that send this
 * rank's sorted bucket to the ranks owning its global positions. */
void ps_mpi_redistribution(ps_mpi_ctx *c);

/* ps_mpi_sort.c: the largest count any rank sends or receives in an
 * exchange (at most its input or its bucket), for ps_mpi_exchange. */
uint64_t ps_mpi_largest(const ps_mpi_ctx *c);

#endif
