/*
 * ps_mpi_partition.c - split this rank's unsorted keys into the buckets
 * of the ranks that sort them.
 *
 * This pass replaces both the copy of the input (which the error contract
 * needs anyway: the caller's arrays are only read until the end) and the
 * local sort that regular sampling would need: each key is then sorted
 * once, by the rank that owns its range, after the exchange.  A bucket is
 * written in input order, so after the exchange the concatenation of the
 * runs, in source-rank order, lists equal keys in (rank, index) order, and
 * the stable sort there gives the global stable order.
 *
 * The bucket of a key is a binary search over the splitters with a fixed
 * number of steps and selects rather than branches (the data decides
 * nothing but which value is kept), one loop per key width.
 */
#include <config.h>

#include "ps_mpi_internal.h"

/* Is the key with image x at index i at or above splitter j?  As 0 or 1,
 * computed with no branch (the data must not decide which way the code
 * goes: that is what makes a search step cost a few cycles, not a
 * mispredicted branch). */
static inline size_t ps_mpi_above(const uint64_t *sk, const uint64_t *sf, size_t j,
                                  uint64_t x, uint64_t i)
{
    uint64_t k = sk[j];
    return (size_t)((x > k) | ((x == k) & (i >= sf[j])));
}

/* How many splitters the key with image x at index i lies at or above:
 * its bucket.  The predicate holds for a prefix of the splitters, since
 * they increase in the (key, rank, index) order, so a binary search with
 * a fixed number of steps finds it; each step moves the base by half or
 * by nothing, as arithmetic rather than a branch. */
static inline size_t ps_mpi_bucket(const uint64_t *sk, const uint64_t *sf, size_t ns,
                                   uint64_t x, uint64_t i)
{
    size_t base = 0, n = ns;

    if (ns == 0)
        return 0;
    while (n > 1) {
        size_t half = n / 2;
        base += half & (0 - ps_mpi_above(sk, sf, base + half - 1, x, i));
        n -= half;
    }
    return base + ps_mpi_above(sk, sf, base, x, i);
}

static inline void ps_mpi_copy_value(unsigned char *d, const unsigned char *s, size_t n)
{
    switch (n) {
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    default: memcpy(d, s, n); break;
    }
}

/* One loop per key width.  Two buckets (two ranks, the common case and
 * the benchmark's) get loops of their own: the count is a sum the
 * compiler vectorises, and the two write pointers stay in registers where
 * the general loop keeps one per bucket in memory. */
#define PS_MPI_PARTITION(W, T)                                                 \
static void ps_mpi_count_##W(ps_mpi_ctx *c, const T *keys, size_t n)           \
{                                                                              \
    const ps_mpi_order o = c->order;                                           \
    const size_t ns = (size_t)c->size - 1;                                     \
    const uint64_t *sk = c->split_key, *sf = c->split_from;                    \
                                                                               \
    if (ns == 1) {                                                             \
        size_t up = 0;                                                         \
        for (size_t i = 0; i < n; i++)                                         \
            up += ps_mpi_above(sk, sf, 0, ps_mpi_image(&o, keys[i]), i);       \
        c->scount[0] = n - up;                                                 \
        c->scount[1] = up;                                                     \
        return;                                                                \
    }                                                                          \
    for (size_t i = 0; i < n; i++)                                             \
        c->scount[ps_mpi_bucket(sk, sf, ns, ps_mpi_image(&o, keys[i]), i)]++;  \
}                                                                              \
                                                                               \
static void ps_mpi_scatter_##W(ps_mpi_ctx *c, const T *keys,                   \
                               const unsigned char *values, size_t vs, size_t n) \
{                                                                              \
    const ps_mpi_order o = c->order;                                           \
    const size_t ns = (size_t)c->size - 1;                                     \
    const uint64_t *sk = c->split_key, *sf = c->split_from;                    \
                                                                               \
    if (ns == 1 && vs == 0) {                                                  \
        unsigned char *d0 = c->dkeys[0], *d1 = c->dkeys[1];                    \
        for (size_t i = 0; i < n; i++) {                                       \
            T x = keys[i];                                                     \
            size_t t = ps_mpi_above(sk, sf, 0, ps_mpi_image(&o, x), i);        \
            memcpy(t ? d1 : d0, &x, W);                                        \
            d1 += t * W;                                                       \
            d0 += (1 - t) * W;                                                 \
        }                                                                      \
        c->dkeys[0] = d0;                                                      \
        c->dkeys[1] = d1;                                                      \
        return;                                                                \
    }                                                                          \
    for (size_t i = 0; i < n; i++) {                                           \
        T x = keys[i];                                                         \
        size_t b = ps_mpi_bucket(sk, sf, ns, ps_mpi_image(&o, x), i);          \
        memcpy(c->dkeys[b], &x, W);                                            \
        c->dkeys[b] += W;                                                      \
        if (vs > 0) {                                                          \
            ps_mpi_copy_value(c->dvalues[b], values + i * vs, vs);             \
            c->dvalues[b] += vs;                                               \
        }                                                                      \
    }                                                                          \
}
PS_MPI_PARTITION(1, uint8_t)
PS_MPI_PARTITION(2, uint16_t)
PS_MPI_PARTITION(4, uint32_t)
PS_MPI_PARTITION(8, uint64_t)

void ps_mpi_count(ps_mpi_ctx *c, const void *keys, size_t n)
{
    for (int d = 0; d < c->size; d++)
        c->scount[d] = 0;
    switch (c->key_size) {
    case 1: ps_mpi_count_1(c, keys, n); break;
    case 2: ps_mpi_count_2(c, keys, n); break;
    case 4: ps_mpi_count_4(c, keys, n); break;
    default: ps_mpi_count_8(c, keys, n); break;
    }
}

void ps_mpi_scatter(ps_mpi_ctx *c, const void *keys, const void *values, size_t value_size,
                    size_t n)
{
    switch (c->key_size) {
    case 1: ps_mpi_scatter_1(c, keys, values, value_size, n); break;
    case 2: ps_mpi_scatter_2(c, keys, values, value_size, n); break;
    case 4: ps_mpi_scatter_4(c, keys, values, value_size, n); break;
    default: ps_mpi_scatter_8(c, keys, values, value_size, n); break;
    }
}
