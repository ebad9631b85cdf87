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

    /* Bucket d ends before the sample at d+1 / size of the way.  As this
     * rank sees a splitter, its equal keys go above it from an index on:
     * all of them when the splitter came from a lower rank, none from a
     * higher one.  (all > 0: some rank holds a key, and every rank with a
     * key has a sample.) */
    for (int d = 0; d + 1 < c->size; d++) {
        const ps_mpi_sample *s = &c->samples[at[(size_t)(d + 1) * all / (size_t)c->size]];
        c->split_key[d] = s->key;
        c->split_from[d] = s->rank < (uint64_t)c->rank ? 0
                         : s->rank == (uint64_t)c->rank ? s->pos : UINT64_MAX;
    }
    return PS_OK;
}
