/*
 * ps_mpi_splitters.c - choose the key ranges each rank sorts, by regular
 * sampling of the (key, rank, position) triples.
 *
 * Sampling triples rather than keys is what keeps the buckets balanced
 * when many keys are equal: the splitters then fall between copies of the
 * same key, at given ranks and positions, instead of sending every copy
 * to one rank.  Each rank samples every step-th of its sorted keys with
 * one step for all ranks, so a rank's share of the samples is its share of
 * the data (a rank holding everything gives every sample; an empty rank
 * none), and a bucket holds total / size keys, give or take 2 * size * step.
 */
#include <config.h>

#include <stdlib.h>

#include "ps_mpi_internal.h"

/* Samples over all ranks: 256 per rank at least, more for larger
 * communicators (the imbalance bound is 2 * size * step, so step must
 * shrink as size grows), capped so that every rank's copy of all the
 * samples stays at a few MiB. */
static size_t ps_mpi_sample_target(int size)
{
    size_t per_rank = (size_t)size * 32 < 256 ? 256 : (size_t)size * 32;
    size_t t = per_rank * (size_t)size;
    return t > ((size_t)1 << 18) ? (size_t)1 << 18 : t;
}

/* Every sample count is at most n_r / step + 1, and the counts add up to
 * at most target + size. */
size_t ps_mpi_sample_room(int size)
{
    return ps_mpi_sample_target(size) + (size_t)size;
}

/* Samples of a rank holding n keys: positions step/2, step/2 + step, ...
 * (the middle of each stride, so a rank's first sample does not always
 * sit on its smallest key).  Every rank computes every rank's count from
 * the gathered input counts, which saves a round. */
static size_t ps_mpi_sample_count(uint64_t n, uint64_t step)
{
    return n > step / 2 ? (size_t)((n - 1 - step / 2) / step + 1) : 0;
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

/* How many of this rank's sorted keys come before splitter s in the
 * global order.  The triples of one rank's keys increase with position, so
 * this is a binary search. */
static size_t ps_mpi_lower_bound(const ps_mpi_ctx *c, const void *keys, size_t n,
                                 const ps_mpi_sample *s)
{
    size_t lo = 0, hi = n;
    uint64_t me = (uint64_t)c->rank;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k = ps_mpi_ordered_key(keys, mid, c->type, c->flags);
        int before = k != s->key ? k < s->key
                   : me != s->rank ? me < s->rank
                   : (uint64_t)mid < s->pos;
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int ps_mpi_split(ps_mpi_ctx *c, const void *sorted_keys, size_t n)
{
    uint64_t total = 0, step, t = ps_mpi_sample_target(c->size);
    int *counts = c->icount[0], *displs = c->icount[1];
    size_t all = 0;

    for (int r = 0; r < c->size; r++)
        total += c->n_all[r];
    step = (total + t - 1) / t;
    if (step == 0)
        step = 1;
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
        size_t pos = (size_t)(step / 2 + k * step);
        mine[k].key = ps_mpi_ordered_key(sorted_keys, pos, c->type, c->flags);
        mine[k].rank = (uint64_t)c->rank;
        mine[k].pos = pos;
    }
    if (MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->samples, counts, displs,
                       MPI_UINT64_T, c->comm) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    /* The triples are distinct, so every rank sorts them to the same
     * sequence and picks the same splitters without another round. */
    qsort(c->samples, all, sizeof *c->samples, ps_mpi_sample_cmp);

    size_t prev = 0;
    for (int d = 0; d < c->size; d++) {
        size_t end = n;
        if (d + 1 < c->size) {
            end = 0;
            if (all > 0) {
                c->splitters[d] = c->samples[(size_t)(d + 1) * all / (size_t)c->size];
                end = ps_mpi_lower_bound(c, sorted_keys, n, &c->splitters[d]);
            }
            /* With no sample at all (impossible when any rank holds a
             * key, but cheap to make safe), everything goes to the last
             * rank; never let a bound go backwards. */
            if (end < prev)
                end = prev;
        }
        c->sdispl[d] = prev;
        c->scount[d] = end - prev;
        prev = end;
    }
    return PS_OK;
}
