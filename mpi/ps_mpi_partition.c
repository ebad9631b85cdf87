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
 * A key's bucket is found as in super scalar sample sort: the splitters
 * sit in an implicit binary tree (ps_mpi_splitters.c), and the key walks
 * down it, one compare and no branch per level, j = 2 j + (key >= tree[j]).
 * The key compares with a splitter as the triple (order image, rank,
 * index); for keys of up to 4 bytes (and a rank with fewer than 2^32 - 1
 * keys) image and index fit in one 64-bit word, so each level is a single
 * compare ("narrow"); wider keys compare the image, then the index
 * ("wide").  One loop per key width and kind.  Two buckets (two ranks,
 * the benchmark's case) count with a sum, and scatter with their two
 * write pointers in registers rather than in memory.
 */
#include <config.h>

#include "ps_mpi_internal.h"

static inline size_t ps_mpi_leaf_narrow(const ps_mpi_ctx *c, uint64_t image, uint64_t i)
{
    const uint64_t *t = c->tree_hi, y = image << 32 | i;
    size_t j = 1;

    for (unsigned l = 0; l < c->tree_levels; l++)
        j = 2 * j + (y >= t[j]);
    return j - ((size_t)1 << c->tree_levels);
}

static inline size_t ps_mpi_leaf_wide(const ps_mpi_ctx *c, uint64_t image, uint64_t i)
{
    const uint64_t *hi = c->tree_hi, *lo = c->tree_lo;
    size_t j = 1;

    for (unsigned l = 0; l < c->tree_levels; l++) {
        uint64_t k = hi[j];
        j = 2 * j + (size_t)((image > k) | ((image == k) & (i >= lo[j])));
    }
    return j - ((size_t)1 << c->tree_levels);
}

static inline void ps_mpi_copy_value(unsigned char *d, const unsigned char *s, size_t n)
{
    switch (n) {
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    default: memcpy(d, s, n); break;
    }
}

/* Key i (and its value) to the end of bucket d. */
#define PS_MPI_PUT(W)                                                          \
static inline void ps_mpi_put_##W(ps_mpi_ctx *c, size_t d, const void *key,     \
                                  const unsigned char *values, size_t vs,      \
                                  size_t i)                                    \
{                                                                              \
    memcpy(c->dkeys[d], key, W);                                               \
    c->dkeys[d] += W;                                                          \
    if (vs > 0) {                                                              \
        ps_mpi_copy_value(c->dvalues[d], values + i * vs, vs);                 \
        c->dvalues[d] += vs;                                                   \
    }                                                                          \
}
PS_MPI_PUT(1)
PS_MPI_PUT(2)
PS_MPI_PUT(4)
PS_MPI_PUT(8)

/* Four keys walk the tree in step: four independent chains of loads for
 * the core to overlap, where one key's walk is a chain of dependent loads
 * (super scalar sample sort's unrolling). */
static inline void ps_mpi_leaf4_narrow(const ps_mpi_ctx *c, const uint64_t *x, uint64_t i,
                                       size_t *b)
{
    const uint64_t *t = c->tree_hi;
    uint64_t y0 = x[0] << 32 | i, y1 = x[1] << 32 | (i + 1);
    uint64_t y2 = x[2] << 32 | (i + 2), y3 = x[3] << 32 | (i + 3);
    size_t j0 = 1, j1 = 1, j2 = 1, j3 = 1;

    for (unsigned l = 0; l < c->tree_levels; l++) {
        j0 = 2 * j0 + (y0 >= t[j0]);
        j1 = 2 * j1 + (y1 >= t[j1]);
        j2 = 2 * j2 + (y2 >= t[j2]);
        j3 = 2 * j3 + (y3 >= t[j3]);
    }
    b[0] = j0 - ((size_t)1 << c->tree_levels);
    b[1] = j1 - ((size_t)1 << c->tree_levels);
    b[2] = j2 - ((size_t)1 << c->tree_levels);
    b[3] = j3 - ((size_t)1 << c->tree_levels);
}

static inline void ps_mpi_leaf4_wide(const ps_mpi_ctx *c, const uint64_t *x, uint64_t i,
                                     size_t *b)
{
    const uint64_t *hi = c->tree_hi, *lo = c->tree_lo;
    size_t j[4] = { 1, 1, 1, 1 };

    for (unsigned l = 0; l < c->tree_levels; l++)
        for (int k = 0; k < 4; k++) {
            uint64_t key = hi[j[k]];
            j[k] = 2 * j[k] + (size_t)((x[k] > key)
                                       | ((x[k] == key) & (i + (uint64_t)k >= lo[j[k]])));
        }
    for (int k = 0; k < 4; k++)
        b[k] = j[k] - ((size_t)1 << c->tree_levels);
}

/* The loops of one key width W (type T) and one kind of tree walk. */
#define PS_MPI_LOOPS(W, T, KIND)                                               \
static void ps_mpi_count_##W##_##KIND(ps_mpi_ctx *c, const T *keys, size_t n)  \
{                                                                              \
    const ps_mpi_order o = c->order;                                           \
    size_t *count = c->scount, i = 0;                                          \
                                                                               \
    if (c->size == 2) {                                                        \
        size_t up = 0;                                                         \
        for (; i < n; i++)                                                     \
            up += ps_mpi_leaf_##KIND(c, ps_mpi_image(&o, keys[i]), i);         \
        count[0] = n - up;                                                     \
        count[1] = up;                                                         \
        return;                                                                \
    }                                                                          \
    for (; i + 4 <= n; i += 4) {                                               \
        uint64_t x[4];                                                         \
        size_t b[4];                                                           \
        for (int k = 0; k < 4; k++)                                            \
            x[k] = ps_mpi_image(&o, keys[i + (size_t)k]);                      \
        ps_mpi_leaf4_##KIND(c, x, i, b);                                       \
        count[b[0]]++;                                                         \
        count[b[1]]++;                                                         \
        count[b[2]]++;                                                         \
        count[b[3]]++;                                                         \
    }                                                                          \
    for (; i < n; i++)                                                         \
        count[ps_mpi_leaf_##KIND(c, ps_mpi_image(&o, keys[i]), i)]++;          \
}                                                                              \
                                                                               \
static void ps_mpi_scatter_##W##_##KIND(ps_mpi_ctx *c, const T *keys,          \
                                        const unsigned char *values, size_t vs,  \
                                        size_t n)                              \
{                                                                              \
    const ps_mpi_order o = c->order;                                           \
                                                                               \
    if (c->size == 2 && vs == 0) {                                             \
        unsigned char *d0 = c->dkeys[0], *d1 = c->dkeys[1];                    \
        for (size_t i = 0; i < n; i++) {                                       \
            T x = keys[i];                                                     \
            size_t t = ps_mpi_leaf_##KIND(c, ps_mpi_image(&o, x), i);          \
            memcpy(t ? d1 : d0, &x, W);                                        \
            d1 += t * W;                                                       \
            d0 += (1 - t) * W;                                                 \
        }                                                                      \
        c->dkeys[0] = d0;                                                      \
        c->dkeys[1] = d1;                                                      \
        return;                                                                \
    }                                                                          \
    size_t i = 0;                                                              \
    for (; i + 4 <= n; i += 4) {                                               \
        uint64_t x4[4];                                                        \
        size_t b[4];                                                           \
        for (int k = 0; k < 4; k++)                                            \
            x4[k] = ps_mpi_image(&o, keys[i + (size_t)k]);                     \
        ps_mpi_leaf4_##KIND(c, x4, i, b);                                      \
        for (size_t k = 0; k < 4; k++)                                         \
            ps_mpi_put_##W(c, b[k], &keys[i + k], values, vs, i + k);          \
    }                                                                          \
    for (; i < n; i++)                                                         \
        ps_mpi_put_##W(c, ps_mpi_leaf_##KIND(c, ps_mpi_image(&o, keys[i]), i),  \
                       &keys[i], values, vs, i);                               \
}
PS_MPI_LOOPS(1, uint8_t, narrow)
PS_MPI_LOOPS(2, uint16_t, narrow)
PS_MPI_LOOPS(4, uint32_t, narrow)
PS_MPI_LOOPS(1, uint8_t, wide)
PS_MPI_LOOPS(2, uint16_t, wide)
PS_MPI_LOOPS(4, uint32_t, wide)
PS_MPI_LOOPS(8, uint64_t, wide)

void ps_mpi_count(ps_mpi_ctx *c, const void *keys, size_t n)
{
    for (int d = 0; d < c->size; d++)
        c->scount[d] = 0;
    switch (c->key_size + (c->tree_narrow ? 0 : 16)) {
    case 1: ps_mpi_count_1_narrow(c, keys, n); break;
    case 2: ps_mpi_count_2_narrow(c, keys, n); break;
    case 4: ps_mpi_count_4_narrow(c, keys, n); break;
    case 17: ps_mpi_count_1_wide(c, keys, n); break;
    case 18: ps_mpi_count_2_wide(c, keys, n); break;
    case 20: ps_mpi_count_4_wide(c, keys, n); break;
    default: ps_mpi_count_8_wide(c, keys, n); break;
    }
}

void ps_mpi_scatter(ps_mpi_ctx *c, const void *keys, const void *values, size_t value_size,
                    size_t n)
{
    switch (c->key_size + (c->tree_narrow ? 0 : 16)) {
    case 1: ps_mpi_scatter_1_narrow(c, keys, values, value_size, n); break;
    case 2: ps_mpi_scatter_2_narrow(c, keys, values, value_size, n); break;
    case 4: ps_mpi_scatter_4_narrow(c, keys, values, value_size, n); break;
    case 17: ps_mpi_scatter_1_wide(c, keys, values, value_size, n); break;
    case 18: ps_mpi_scatter_2_wide(c, keys, values, value_size, n); break;
    case 20: ps_mpi_scatter_4_wide(c, keys, values, value_size, n); break;
    default: ps_mpi_scatter_8_wide(c, keys, values, value_size, n); break;
    }
}
