/*
 * ps_mpi_splitters.c - choose the key ranges each rank sorts, from a
 * sample of the (key, rank, index) triples of the unsorted input.
 *
 * Sampling triples rather than keys is what keeps the buckets balanced
 * when many keys are equal: the splitters then fall between copies of the
 * same key, at given ranks and indices, instead of sending every copy to
 * one rank.  Each rank draws one sample from every stride of `step` keys
 * (a stratified sample, at a pseudo-random place in the stride so that
 * periodic data cannot fool it), with one step for all ranks: a rank's
 * share of the samples is its share of the data (a rank holding
 * everything gives every sample, an empty rank none).
 *
 * The input is not sorted first (that would sort every key twice), so the
 * balance is statistical rather than guaranteed: with a samples per bucket
 * a bucket's size is off by about 1 / sqrt(a) of itself (a standard
 * deviation).  When every key is a sample (step 1: up to 1024 keys per
 * rank and more for more ranks) the split is exact.
 */
#include <config.h>

#include <stdlib.h>

#include "ps_mpi_internal.h"

/* Samples over all ranks: 1024 per bucket (a deviation of about 3% of a
 * bucket), capped at 2^18 so that every rank's copy of them stays at
 * 6 MiB and sorts in a few milliseconds; beyond 256 ranks each bucket
 * gets fewer (doc/mpi.md, the limits). */
static size_t ps_mpi_sample_target(int size)
{
    size_t t = (size_t)size * 1024;
    return t > ((size_t)1 << 18) ? (size_t)1 << 18 : t;
}

/* Every rank's sample count is ceil(n_r / step) <= n_r / step + 1, and
 * the n_r add up to total <= step * target. */
size_t ps_mpi_sample_room(int size)
{
    return ps_mpi_sample_target(size) + (size_t)size;
}

uint64_t ps_mpi_sample_step(int size, uint64_t total)
{
    uint64_t t = ps_mpi_sample_target(size);
    uint64_t step = (total + t - 1) / t;
    return step == 0 ? 1 : step;
}

static size_t ps_mpi_sample_count(uint64_t n, uint64_t step)
{
    return (size_t)((n + step - 1) / step);
}

/* Where in its stride sample k of rank r lies: a hash of (r, k)
 * (splitmix64's finaliser), the same on every run so that the same input
 * always gives the same buckets (ps_mpi_sort_keys_v's second call relies
 * on it). */
static uint64_t ps_mpi_sample_hash(uint64_t r, uint64_t k)
{
    uint64_t z = (r << 40) ^ k ^ UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int ps_mpi_sample_cmp(const void *pa, const void *pb)
{
    const ps_mpi_sample *a = pa, *b = pb;

    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->pos != b->pos)
        return a->pos < b->pos ? -1 : 1;
    return 0;
}

/* Splitter d (of size - 1, in order) as this rank compares with it: its
 * keys (image x, index i) go above it when x > key, or when x == key and
 * i >= from, where from is 0 for a splitter from a lower rank (all equal
 * keys go above), its index for one from this rank, and never for one
 * from a higher rank.  Narrow trees hold (x << 32 | i) thresholds, wide
 * ones (key, from) pairs.  Beyond the last splitter the tree is padded
 * with thresholds that no key reaches. */
static void ps_mpi_threshold(const ps_mpi_ctx *c, const uint32_t *at, size_t all, size_t d,
                             uint64_t *hi, uint64_t *lo)
{
    *hi = *lo = UINT64_MAX;
    if (d + 1 >= (size_t)c->size)
        return;
    const ps_mpi_sample *s = &c->samples[at[(d + 1) * all / (size_t)c->size]];
    uint64_t me = (uint64_t)c->rank;
    uint64_t from = s->rank < me ? 0 : s->rank == me ? s->pos : UINT64_MAX;
    if (!c->tree_narrow) {
        *hi = s->key;
        *lo = from;
    } else if (s->rank <= me) {
        /* from < 2^32 - 1 here: this rank holds fewer keys than that. */
        *hi = s->key << 32 | from;
    } else if (s->key < UINT32_MAX) {
        /* Above only when x > key: x >= key + 1, at any index. */
        *hi = (s->key + 1) << 32;
    }
}

/* Fill the implicit tree below `node` (children 2 node and 2 node + 1,
 * leaves from 2^levels on) with the thresholds in order, the next one
 * being *next: an in-order walk, so that walking down from the root
 * counts the thresholds at or below a key.  As deep as the tree: at most
 * 31 levels. */
static void ps_mpi_tree_fill(ps_mpi_ctx *c, size_t node, const uint32_t *at, size_t all,
                             size_t *next)
{
    if (node >= ((size_t)1 << c->tree_levels))
        return;
    ps_mpi_tree_fill(c, 2 * node, at, all, next);
    ps_mpi_threshold(c, at, all, (*next)++, &c->tree_hi[node], &c->tree_lo[node]);
    ps_mpi_tree_fill(c, 2 * node + 1, at, all, next);
}

int ps_mpi_split(ps_mpi_ctx *c, const void *keys, size_t n)
{
    uint64_t total = 0, step;
    int *counts = c->icount[0], *displs = c->icount[1];
    size_t all = 0, ks = c->key_size;
    const unsigned char *kb = keys;

    for (int r = 0; r < c->size; r++)
        total += c->n_all[r];
    step = ps_mpi_sample_step(c->size, total);
    /* Counted in uint64_t words, three per sample; the room is a few MiB,
     * far below INT_MAX. */
    for (int r = 0; r < c->size; r++) {
        size_t k = ps_mpi_sample_count(c->n_all[r], step);
        counts[r] = (int)(3 * k);
        displs[r] = (int)(3 * all);
        all += k;
    }
    ps_mpi_sample *mine = c->samples + displs[c->rank] / 3;
    size_t k_mine = (size_t)counts[c->rank] / 3;
    for (size_t k = 0; k < k_mine; k++) {
        uint64_t start = (uint64_t)k * step;
        uint64_t len = n - start < step ? n - start : step;
        size_t pos = (size_t)(start + ps_mpi_sample_hash((uint64_t)c->rank, k) % len);
        mine[k].key = ps_mpi_image(&c->order, ps_mpi_key_bits(kb + pos * ks, ks));
        mine[k].rank = (uint64_t)c->rank;
        mine[k].pos = pos;
    }
    if (MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->samples, counts, displs,
                       MPI_UINT64_T, c->comm) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    /* The triples are distinct, so every rank sorts them to the same
     * sequence and picks the same splitters without another round.  They
     * arrive in (rank, index) order, so a stable sort by key alone is
     * enough: the library's radix sort of (key, place) pairs, 2^18 of them
     * in a few milliseconds where qsort takes tens.  Should it fail on
     * some rank, qsort gives that rank the very same order, so the ranks
     * need not agree on it. */
    uint64_t *img = c->sample_keys;
    uint32_t *at = c->sample_at;
    for (size_t i = 0; i < all; i++) {
        img[i] = c->samples[i].key;
        at[i] = (uint32_t)i;
    }
    if (ps_sort_pairs(img, at, sizeof *at, all, PS_U64, 0) != PS_OK) {
        qsort(c->samples, all, sizeof *c->samples, ps_mpi_sample_cmp);
        for (size_t i = 0; i < all; i++)
            at[i] = (uint32_t)i;
    }

    /* Bucket d ends before the sample at d+1 / size of the way. */
    c->tree_narrow = c->key_size <= 4 && n < UINT32_MAX;
    c->tree_levels = 0;
    while (((size_t)1 << c->tree_levels) < (size_t)c->size)
        c->tree_levels++;
    size_t next = 0;
    ps_mpi_tree_fill(c, 1, at, all, &next);
    return PS_OK;
}
