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

/* The raw bits of the key whose image is y: the image's sign bit, less
 * c0's, is the key's own (c1 never holds it). */
static inline uint64_t ps_mpi_key_of(const ps_mpi_order *o, uint64_t y)
{
    uint64_t s = ((y ^ o->c0) >> o->sign_shift) & 1;
    return y ^ o->c0 ^ (o->c1 & (uint64_t)-(int64_t)s);
}

/* The same for keys whose c1 is 0 (integers): one xor. */
static inline uint64_t ps_mpi_image_int(const ps_mpi_order *o, uint64_t bits)
{
    return bits ^ o->c0;
}

/* A sample of the global order: (order image, rank, index in the rank's
 * input).  The triple is unique and sorts exactly as the global stable
 * order. */
typedef struct ps_mpi_sample {
    uint64_t key;
    uint64_t rank;
    uint64_t pos;
} ps_mpi_sample;

/*
 * The split of the global order into buckets (ps_mpi_grid.c builds it,
 * ps_mpi_partition.c walks it): a tree of grids over the order images.
 * A grid (node) cuts [lo, lo + ncells << shift) into ncells cells of
 * 2^shift images; its cells' entries, in `entry` from `base` on, say
 * where a key of the cell goes:
 *   entry >= 0: that bucket (rank), for every key of the cell;
 *   entry < 0: s = -(entry + 1) names, by s & 3, a finer grid over the
 *   cell (PS_MPI_NODE, node s >> 2), a cell of one image whose keys are
 *   split by (rank, index) (PS_MPI_EQUAL, equal[s >> 2]), a cell split by
 *   gathered (image, rank, index) splitters (PS_MPI_SPLIT, split[s >> 2]),
 *   or, while the plan is being built, a cell still to be counted
 *   (PS_MPI_PENDING).
 */
enum { PS_MPI_NODE, PS_MPI_EQUAL, PS_MPI_SPLIT, PS_MPI_PENDING };

static inline int32_t ps_mpi_special(unsigned kind, size_t index)
{
    return (int32_t)(-1 - (int64_t)(index << 2 | kind));
}

typedef struct ps_mpi_node {
    uint64_t lo;           /* the image of the first cell's first key; the
                              first grid's edge cells also hold the keys
                              below and above it (ps_mpi_cell_at) */
    uint64_t hi;           /* the last image it was drawn over (its last
                              cell may reach past it) */
    uint64_t start;        /* global position of the node's first key */
    size_t base;           /* its first entry */
    uint32_t ncells;
    unsigned shift;
} ps_mpi_node;

/* The cell of image x in a grid from lo of ncells cells of 2^shift
 * images: images below the grid count in its first cell, above in its
 * last.  Only the first grid, drawn over a sample's range, meets them;
 * the finer ones cover their cells' keys exactly. */
static inline size_t ps_mpi_cell_at(uint64_t lo, unsigned shift, uint32_t ncells, uint64_t x)
{
    uint64_t k = x < lo ? 0 : (x - lo) >> shift;
    return (size_t)(k < ncells - 1 ? k : ncells - 1);
}

/* A cut inside a cell: for EQUAL cells, this rank's keys of the cell go
 * to `dest` from the one with ordinal `lo` on (hi unused); for SPLIT
 * cells, a key (image x, index i) goes to `dest` when x > hi or x == hi
 * and i >= lo (ps_mpi_grid.c, ps_mpi_split_cuts, says why). */
typedef struct ps_mpi_cut {
    uint64_t hi, lo;
    int dest;
} ps_mpi_cut;

/* A cell with cuts inside: its keys go to d0 until they pass cut[first],
 * then to that cut's dest, and so on.  EQUAL cells count this rank's keys
 * as the partition meets them (seen), with the next cut to pass at `at`
 * and the current bucket in `dest`. */
typedef struct ps_mpi_cell {
    uint64_t start;        /* global position of the cell's first key */
    uint64_t count;        /* the cell's keys on all ranks */
    uint64_t local;        /* ... on this rank */
    uint64_t seen;
    size_t first, ncuts, at;
    int d0, dest;
} ps_mpi_cell;

typedef struct ps_mpi_plan {
    ps_mpi_node *node;
    int32_t *entry;
    ps_mpi_cell *equal, *split;
    ps_mpi_cut *cut;
    size_t nnodes, nentries, nequal, nsplit, ncuts;
    size_t cap[5];         /* room of the five arrays above, in that order */
    size_t *cand;          /* this rank's keys in cells not yet resolved */
    size_t ncand;
    /* The SPLIT cells' cuts wait for the scatter, which lists their keys
     * in cand (ps_mpi_dest answers -1 for them); bad: that list could not
     * be allocated. */
    int deferred, bad;
    size_t ngathered;      /* triples gathered: samples, sample_at */
} ps_mpi_plan;

/* PORTSORT_MPI_TRACE=1: where a call's time went on each rank, printed to
 * standard error at its end (wall time, ms).  The count pass and the
 * passes over the listed keys are the plan's local work; "plan" is the
 * rest of building it (its reductions and gathers, waits included). */
enum { PS_MPI_T_SPLIT, PS_MPI_T_COUNT, PS_MPI_T_LIST, PS_MPI_T_SCATTER, PS_MPI_T_EXCHANGE,
       PS_MPI_T_WIDEN, PS_MPI_T_SORT, PS_MPI_T_BACK, PS_MPI_T_N };

#define PS_MPI_TIMED(c, slot, stmt)                                            \
    do {                                                                       \
        double t0_ = (c)->tracing ? MPI_Wtime() : 0.0;                         \
        stmt;                                                                  \
        if ((c)->tracing)                                                      \
            (c)->trace[slot] += MPI_Wtime() - t0_;                             \
    } while (0)

/* State of one call; every per-rank array has `size` entries. */
typedef struct ps_mpi_ctx {
    MPI_Comm comm;
    int rank, size;
    ps_type type;
    unsigned flags;
    ps_mpi_order order;
    size_t key_size;
    size_t max_msg;        /* most bytes in one block of a message */
    size_t gather_max;     /* most keys of cut cells to gather */
    uint64_t *n_all;       /* every rank's input count */
    uint64_t *m_all;       /* every rank's bucket count (after the exchange) */
    uint64_t *target;      /* size + 1 words: bucket r holds the global
                              positions [target[r], target[r + 1]) */
    uint64_t *gather;      /* 2 * size words, scratch of the agreements */
    size_t *scount, *sdispl, *rcount, *rdispl;  /* in elements */
    int *icount[4];        /* the same in bytes, for MPI_Alltoallv */
    int *wcount[2];        /* MPI_Alltoallw: per-peer counts, send/recv */
    int *wzero;            /* MPI_Alltoallw: all-zero displacements */
    MPI_Datatype *wtype[2];
    MPI_Request *req;      /* 2 * size: the sparse exchange's requests */
    /* The wire (ps_mpi_exchange.c, ps_mpi_wire_plan): every key of bucket
     * r has an image in [rlo[r], rhi[r]], which the plan knows; when the
     * span fits in width[r] < key_size bytes the keys travel as the low
     * width[r] bytes of their images, which rlo[r] completes (narrow = 1:
     * some bucket does).  sparse:
     * the exchanges post point-to-point messages for the non-empty
     * spans only, on a communicator of the library's own (sparse_comm). */
    uint64_t *rlo, *rhi;
    unsigned char *width;
    int narrow, sparse, bulk_sparse;
    unsigned wire_width;   /* width[rank], kept for the trace */
    int narrow_knob, sparse_knob;   /* PORTSORT_MPI_NARROW, _SPARSE */
    uint64_t kmin, kmax;   /* this rank's smallest and largest image */
    MPI_Comm sparse_comm;
    /* One counting round (ps_mpi_grid.c): hist_room cells and three words
     * (keys beyond the first grid, failures), this rank's and everyone's;
     * count32, the first round's per-cell counters. */
    uint64_t *hist_mine, *hist_all;
    uint32_t *count32;
    size_t hist_room;
    /* The gathered (image, rank, index) triples of the cells split by
     * splitters: room for PS_MPI_GATHER_MAX, their images and places. */
    ps_mpi_sample *samples;
    uint64_t *sample_keys;
    uint32_t *sample_at;
    ps_mpi_plan plan;
    unsigned char **dkeys, **dvalues;  /* partition: where each bucket goes */
    int tracing;
    double trace[PS_MPI_T_N];
} ps_mpi_ctx;

/* Cells of the first grid, and the most cells one counting round adds. */
#define PS_MPI_GRID_CELLS ((size_t)1 << 16)
/* Cells holding at most this many keys in all are split by gathering
 * their keys rather than by counting again. */
#define PS_MPI_GATHER_MAX ((size_t)1 << 16)

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
 * or the testing knobs differ between ranks, else the highest-ranked
 * local status, PS_OK when all are fine.  PS_ERR_DEVICE on an MPI error.
 * Needs no memory of the context, so a rank that could not allocate it
 * still takes part. */
int ps_mpi_agree_args(ps_mpi_ctx *c, int op, size_t value_size, int local_status);
/* MPI_Allreduce(MPI_MAX) of v[0..n) in place; v[0] is a status rank.
 * Returns the common status or PS_ERR_DEVICE. */
int ps_mpi_agree_max(ps_mpi_ctx *c, int64_t *v, int n);
/* MPI_MAX of n unsigned 64-bit words in place, sent as signed words with
 * the top bit flipped, which maps unsigned order onto signed order:
 * Debian 12's MPICH 4.0.2 compares MPI_UINT64_T as signed under MPI_MAX,
 * which put images of 2^63 and more below the others (CI's MPICH run).
 * PS_OK or PS_ERR_DEVICE. */
int ps_mpi_max_u64(ps_mpi_ctx *c, uint64_t *v, int n);
/* Allgather of (count, status, *extra) from every rank: fills out[] with
 * the counts, *extra (unless NULL) with the sum of the extras, and
 * returns the common status. */
int ps_mpi_agree_counts(ps_mpi_ctx *c, size_t count, int local_status, uint64_t *out,
                        uint64_t *extra);

/* ps_mpi_grid.c: the plan that cuts the global order at c->target, from
 * counting rounds over grids of the keys' images (every rank's n_all
 * filled); on PS_OK scount[d] is how many of this rank's keys go to rank
 * d.  Collective; the status is the same on every rank. */
int ps_mpi_split(ps_mpi_ctx *c, const void *keys, size_t n);
void ps_mpi_plan_free(ps_mpi_plan *p);
/* Gather the triples of the keys listed in plan.cand on every rank (a
 * rank passing bad = 1 makes every rank return PS_ERR_NO_MEMORY) and
 * place the SPLIT cells' cuts.  Collective. */
int ps_mpi_gather_cuts(ps_mpi_ctx *c, const void *keys, int bad);
/* After ps_mpi_gather_cuts: from[r] = how many of rank r's listed keys
 * belong to this rank's bucket. */
void ps_mpi_gathered_from(const ps_mpi_ctx *c, size_t *from);

/* ps_mpi_partition.c: the passes over the keys that the plan needs.
 * ps_mpi_count_first: the first grid's cells (node 0) into count32, for
 * keys [from, from + n), n < 2^32, adding to out[0] and out[1] the keys
 * below and above the images [lo, hi] the grid was drawn over, and
 * keeping in out[2] the largest image and in out[3] the complement of
 * the smallest (both 0 when nothing was counted).  ps_mpi_locate: the entry a key of
 * image x ends at, walking down the grids.  ps_mpi_gather_cands:
 * plan.cand = this rank's keys whose entry is PENDING or SPLIT, from all
 * n keys (first) or from the candidates already there (in place).
 * ps_mpi_dest: the bucket of key i of image x, counting EQUAL cells' keys
 * (so each key is asked once, in input order); while the SPLIT cells'
 * cuts are deferred, -1 for their keys, which it appends to plan.cand.  ps_mpi_scatter: every key
 * (and value) to dkeys[d] (dvalues[d]), in input order within each
 * bucket; with c->narrow, each key as the low width[d] bytes of its image
 * (ps_mpi_widen completes them). */
void ps_mpi_count_first(ps_mpi_ctx *c, const void *keys, size_t from, size_t n, uint64_t hi,
                        uint64_t out[4]);
size_t ps_mpi_locate(const ps_mpi_plan *p, uint64_t x);
void ps_mpi_gather_cands(ps_mpi_ctx *c, const void *keys, size_t n, int first);
int ps_mpi_dest(ps_mpi_plan *p, uint64_t x, uint64_t i);
void ps_mpi_scatter(ps_mpi_ctx *c, const void *keys, const void *values, size_t value_size,
                    size_t n);

/* ps_mpi_exchange.c: send scount[d] elements of elem_size bytes from
 * send + sdispl[d] to every rank d, and receive rcount[s] elements at
 * recv + rdispl[s] from every rank s.  largest is the largest element
 * count any rank sends or receives in total, the same on every rank: it
 * picks MPI_Alltoallv when every byte count fits in an int (and in
 * max_msg), and MPI_Alltoallw with derived datatypes otherwise; with
 * c->sparse, point-to-point messages for the non-empty spans instead.
 * ps_mpi_exchange_narrow: the same for keys scattered narrow: the spans
 * start where elements of elem_size would, but hold width[d] bytes per
 * element to rank d (width[rank] per element received). */
int ps_mpi_exchange(ps_mpi_ctx *c, const void *send, void *recv, size_t elem_size,
                    uint64_t largest);
int ps_mpi_exchange_narrow(ps_mpi_ctx *c, const void *send, void *recv, size_t elem_size,
                           uint64_t largest);
/* Whether the exchanges go sparse, from `nonzero`, the number of
 * (source, destination) pairs of distinct ranks with anything to move,
 * the same on every rank: the knob, or fewer than a quarter of them. */
int ps_mpi_sparse_choice(const ps_mpi_ctx *c, uint64_t nonzero);
/* After the plan, every rank's [rlo, rhi] (ps_mpi_grid.c) clamped to the
 * images that exist, [gmin, gmax]: each bucket's width, and c->narrow
 * when the narrow form saves an eighth of the key bytes or more. */
void ps_mpi_wire_plan(ps_mpi_ctx *c, uint64_t gmin, uint64_t gmax);
/* The n narrow keys at run (w bytes each, from the run's start), whose
 * images lie in [lo, lo + 2^(8 w)), back into keys in place. */
void ps_mpi_widen(const ps_mpi_ctx *c, unsigned char *run, size_t n, unsigned w, uint64_t lo);

/* ps_mpi_redistribute.c: from n_all and m_all, the counts that send this
 * rank's sorted bucket to the ranks owning its global positions. */
void ps_mpi_redistribution(ps_mpi_ctx *c);

/* ps_mpi_sort.c: the largest count any rank sends or receives in an
 * exchange (at most its input or its bucket), for ps_mpi_exchange. */
uint64_t ps_mpi_largest(const ps_mpi_ctx *c);

#endif
