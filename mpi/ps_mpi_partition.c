/*
 * ps_mpi_partition.c - the passes over this rank's unsorted keys: count
 * them in the first grid, list those in cells still open, and scatter
 * every key (and value) to the bucket of the rank that sorts it.
 *
 * The scatter replaces both the copy of the input (which the error
 * contract needs anyway: the caller's arrays are only read until the end)
 * and the local sort that regular sampling would need: each key is sorted
 * once, by the rank that owns its range, after the exchange.  A bucket is
 * written in input order, so after the exchange the concatenation of the
 * runs, in source-rank order, lists equal keys in (rank, index) order, and
 * the stable sort there gives the global stable order.
 *
 * A key's bucket is one table look-up in almost every case: its cell of
 * the first grid (ps_mpi_grid.c), whose entry is the bucket.  Only keys in
 * the few cells that a cut crosses go further (ps_mpi_dest).  One loop per
 * key width, so that the image and the cell are a few integer operations.
 */
#include <config.h>

#include "ps_mpi_internal.h"

/* Which loop a call takes: the key width, plus 16 for floats.  Integer
 * keys' images are a single xor (ps_mpi_image_int), which took a third
 * off each pass over 2^23 u32 keys here; floats need the sign's mask. */
static int ps_mpi_kind(const ps_mpi_ctx *c)
{
    return (int)c->key_size + (c->order.c1 != 0 ? 16 : 0);
}

/* Run LOOP(T, IMG), a pass written once, for the call's kind of key. */
#define PS_MPI_BY_KIND(c, LOOP)                                                \
    switch (ps_mpi_kind(c)) {                                                  \
    case 1: LOOP(uint8_t, ps_mpi_image_int); break;                            \
    case 2: LOOP(uint16_t, ps_mpi_image_int); break;                           \
    case 4: LOOP(uint32_t, ps_mpi_image_int); break;                           \
    case 8: LOOP(uint64_t, ps_mpi_image_int); break;                           \
    case 2 + 16: LOOP(uint16_t, ps_mpi_image); break;                          \
    case 4 + 16: LOOP(uint32_t, ps_mpi_image); break;                          \
    default: LOOP(uint64_t, ps_mpi_image); break;                              \
    }

void ps_mpi_count_first(ps_mpi_ctx *c, const void *keys, size_t from, size_t n, uint64_t hi,
                        uint64_t out[4])
{
    uint64_t most = out[2], least = ~out[3];

    const ps_mpi_order o = c->order;
    const uint64_t lo = c->plan.node[0].lo;
    const unsigned shift = c->plan.node[0].shift;
    const uint32_t cells = c->plan.node[0].ncells;
    uint32_t *count = c->count32;

    /* Keys below and above the range count in two more counters, one
     * select each, which costs less than counting them apart; they join
     * the edge cells after the pass.  The extremes, two more selects,
     * bound the edge buckets' ranges for the wire (ps_mpi_wire_plan). */
#define PS_MPI_COUNT(T, IMG)                                                   \
    do {                                                                       \
        const T *k = (const T *)keys + from;                                   \
        for (size_t i = 0; i < n; i++) {                                       \
            uint64_t x = IMG(&o, k[i]);                                        \
            uint64_t at = x < lo ? cells : (x - lo) >> shift;                  \
            most = x > most ? x : most;                                        \
            least = x < least ? x : least;                                     \
            count[x > hi ? cells + 1 : at]++;                                  \
        }                                                                      \
    } while (0)
    PS_MPI_BY_KIND(c, PS_MPI_COUNT)
#undef PS_MPI_COUNT
    out[0] += count[cells];
    out[1] += count[cells + 1];
    out[2] = most;
    out[3] = ~least;
    count[0] += count[cells];
    count[cells - 1] += count[cells + 1];
}

size_t ps_mpi_locate(const ps_mpi_plan *p, uint64_t x)
{
    const ps_mpi_node *nd = p->node;

    for (;;) {
        size_t at = nd->base + ps_mpi_cell_at(nd->lo, nd->shift, nd->ncells, x);
        int32_t e = p->entry[at];
        uint32_t s = (uint32_t)(-(e + 1));
        if (e >= 0 || (s & 3) != PS_MPI_NODE)
            return at;
        nd = &p->node[s >> 2];
    }
}

/* Whether entry e is a cell whose keys the plan still needs listed. */
static int ps_mpi_open_entry(int32_t e)
{
    uint32_t kind = (uint32_t)(-(e + 1)) & 3;
    return e < 0 && (kind == PS_MPI_PENDING || kind == PS_MPI_SPLIT);
}

void ps_mpi_gather_cands(ps_mpi_ctx *c, const void *keys, size_t n, int first)
{
    ps_mpi_plan *p = &c->plan;
    const unsigned char *kb = keys;
    size_t ks = c->key_size, k = 0;

    if (first) {
        /* Over every key: most lie in cells of one bucket, which the first
         * grid's entry says at once. */
        const ps_mpi_order o = c->order;
        const int32_t *entry = p->entry;
        const uint64_t lo = p->node[0].lo;
        const unsigned shift = p->node[0].shift;
        const uint32_t cells = p->node[0].ncells;
#define PS_MPI_LIST(T, IMG)                                                       \
        do {                                                                   \
            const T *kt = keys;                                                \
            for (size_t i = 0; i < n; i++) {                                   \
                uint64_t x = IMG(&o, kt[i]);                                   \
                if (entry[ps_mpi_cell_at(lo, shift, cells, x)] < 0                \
                    && ps_mpi_open_entry(entry[ps_mpi_locate(p, x)]))           \
                    p->cand[k++] = i;                                          \
            }                                                                  \
        } while (0)
        PS_MPI_BY_KIND(c, PS_MPI_LIST)
#undef PS_MPI_LIST
    } else {
        for (size_t j = 0; j < p->ncand; j++) {
            size_t i = p->cand[j];
            uint64_t x = ps_mpi_image(&c->order, ps_mpi_key_bits(kb + i * ks, ks));
            if (ps_mpi_open_entry(p->entry[ps_mpi_locate(p, x)]))
                p->cand[k++] = i;
        }
    }
    p->ncand = k;
}

/* The bucket of a key whose cell is not one bucket's: e is its entry. */
static int ps_mpi_dest_cut(ps_mpi_plan *p, int32_t e, uint64_t x, uint64_t i)
{
    uint32_t s = (uint32_t)(-(e + 1));
    ps_mpi_cell *q;

    if ((s & 3) == PS_MPI_EQUAL) {
        /* The keys of one image, met in index order: the seen-th of this
         * rank goes past every cut whose ordinal it has reached. */
        q = &p->equal[s >> 2];
        while (q->at < q->first + q->ncuts && q->seen >= p->cut[q->at].lo)
            q->dest = p->cut[q->at++].dest;
        q->seen++;
        return q->dest;
    }
    if (p->deferred) {
        /* The cut waits for the scatter's end: list the key. */
        p->cand[p->ncand++] = (size_t)i;
        return -1;
    }
    q = &p->split[s >> 2];
    int d = q->d0;
    for (size_t k = q->first; k < q->first + q->ncuts; k++) {
        const ps_mpi_cut *t = &p->cut[k];
        if (x > t->hi || (x == t->hi && i >= t->lo))
            d = t->dest;
        else
            break;
    }
    return d;
}

int ps_mpi_dest(ps_mpi_plan *p, uint64_t x, uint64_t i)
{
    int32_t e = p->entry[ps_mpi_locate(p, x)];
    return e >= 0 ? e : ps_mpi_dest_cut(p, e, x, i);
}

static inline void ps_mpi_copy_value(unsigned char *d, const unsigned char *s, size_t n)
{
    switch (n) {
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    default: memcpy(d, s, n); break;
    }
}

/* The destination of the key of image y at index i: the first grid's
 * entry read straight, ps_mpi_dest only for a negative one (a finer grid
 * or a cut cell); negative when the key's place is deferred.  The grid's
 * lo, shift and cells come as the caller's locals: read through p, they
 * would be loaded again after every store of a key. */
static inline int32_t ps_mpi_key_dest(ps_mpi_plan *p, const int32_t *entry, uint64_t lo,
                                      unsigned shift, uint32_t cells, uint64_t y,
                                      uint64_t i)
{
    int32_t e = entry[ps_mpi_cell_at(lo, shift, cells, y)];
    return e >= 0 ? e : ps_mpi_dest(p, y, i);
}

/* The loop of one kind of key (type T, image IMG), each key's place from
 * ps_mpi_key_dest.  Two buckets (two ranks, the benchmark's case) keep
 * their write pointers in registers rather than in memory. */
#define PS_MPI_SCATTER(T, IMG)                                                 \
    do {                                                                       \
        const T *kt = keys;                                                    \
        if (c->size == 2 && vs == 0) {                                         \
            unsigned char *d0 = c->dkeys[0], *d1 = c->dkeys[1];                \
            for (size_t i = 0; i < n; i++) {                                   \
                T x = kt[i];                                                   \
                int32_t e = ps_mpi_key_dest(p, entry, lo, shift, cells,        \
                                            IMG(&o, x), i);                    \
                if (e < 0)                                                     \
                    continue;                                                  \
                size_t t = (size_t)e;                                          \
                memcpy(t ? d1 : d0, &x, sizeof x);                             \
                d1 += t * sizeof x;                                            \
                d0 += (1 - t) * sizeof x;                                      \
            }                                                                  \
            c->dkeys[0] = d0;                                                  \
            c->dkeys[1] = d1;                                                  \
            break;                                                             \
        }                                                                      \
        for (size_t i = 0; i < n; i++) {                                       \
            T x = kt[i];                                                       \
            int32_t e = ps_mpi_key_dest(p, entry, lo, shift, cells,            \
                                        IMG(&o, x), i);                        \
            if (e < 0)                                                         \
                continue;                                                      \
            memcpy(c->dkeys[e], &x, sizeof x);                                 \
            c->dkeys[e] += sizeof x;                                           \
            if (vs > 0) {                                                      \
                ps_mpi_copy_value(c->dvalues[e], vb + i * vs, vs);             \
                c->dvalues[e] += vs;                                           \
            }                                                                  \
        }                                                                      \
    } while (0)

/* A narrow key is the low w bytes of its image y, from which the
 * receiver, knowing that y lies in [lo, lo + 2^(8 w)), gets y back as
 * lo + ((those bytes - lo) mod 2^(8 w)) (ps_mpi_widen).  So what the
 * sender writes does not depend on where the key goes: an integer's
 * image differs from its bits by an xor, which the receiver undoes
 * bytewise, so integers travel as their own low bytes, floats as their
 * image's.  Each is written with a store of the key's own width T, the
 * pointer moved on by w: the bytes past w are written over by the next
 * key, or lie in the bucket's unused room (a bucket's span has room for
 * its keys at full width).  Choosing a base per destination in the loop
 * (a select that waits for the key's bucket) made a scatter of 2^21 u32
 * keys to 2 buckets 1.4 times slower here, branch-free. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PS_MPI_NARROW_BITS(T, v, w)                                            \
    ((T)((w) == 0 ? 0 : (uint64_t)(v) << (8 * (sizeof(T) - (w)))))
#define PS_MPI_WIDE_BITS(T, t, w)                                              \
    ((w) == 0 ? 0 : (uint64_t)(t) >> (8 * (sizeof(T) - (w))))
#else
#define PS_MPI_NARROW_BITS(T, v, w) ((T)(v))
#define PS_MPI_WIDE_BITS(T, t, w) ((uint64_t)(t))
#endif

/* The scatter of narrow keys: this rank's own bucket too, which
 * ps_mpi_widen then widens with the received ones. */
#define PS_MPI_SCATTER_NARROW(T, IMG)                                          \
    do {                                                                       \
        const T *kt = keys;                                                    \
        const unsigned char *wd = c->width;                                    \
        const int raw = o.c1 == 0;                                             \
        if (c->size == 2 && vs == 0) {                                         \
            unsigned char *d0 = c->dkeys[0], *d1 = c->dkeys[1];                \
            const size_t w0 = wd[0], w1 = wd[1];                               \
            for (size_t i = 0; i < n; i++) {                                   \
                T x = kt[i];                                                   \
                uint64_t y = IMG(&o, x);                                       \
                int32_t e = ps_mpi_key_dest(p, entry, lo, shift, cells, y, i); \
                if (e < 0)                                                     \
                    continue;                                                  \
                size_t t = (size_t)e;                                          \
                T v = PS_MPI_NARROW_BITS(T, raw ? x : (T)y, t ? w1 : w0);      \
                memcpy(t ? d1 : d0, &v, sizeof v);                             \
                d1 += t * w1;                                                  \
                d0 += (1 - t) * w0;                                            \
            }                                                                  \
            c->dkeys[0] = d0;                                                  \
            c->dkeys[1] = d1;                                                  \
            break;                                                             \
        }                                                                      \
        for (size_t i = 0; i < n; i++) {                                       \
            T x = kt[i];                                                       \
            uint64_t y = IMG(&o, x);                                           \
            int32_t e = ps_mpi_key_dest(p, entry, lo, shift, cells, y, i);     \
            if (e < 0)                                                         \
                continue;                                                      \
            T v = PS_MPI_NARROW_BITS(T, raw ? x : (T)y, wd[e]);                \
            memcpy(c->dkeys[e], &v, sizeof v);                                 \
            c->dkeys[e] += wd[e];                                              \
            if (vs > 0) {                                                      \
                ps_mpi_copy_value(c->dvalues[e], vb + i * vs, vs);             \
                c->dvalues[e] += vs;                                           \
            }                                                                  \
        }                                                                      \
    } while (0)

void ps_mpi_scatter(ps_mpi_ctx *c, const void *keys, const void *values, size_t vs, size_t n)
{
    const ps_mpi_order o = c->order;
    ps_mpi_plan *p = &c->plan;
    const int32_t *entry = p->entry;
    const uint64_t lo = p->node[0].lo;
    const unsigned shift = p->node[0].shift;
    const uint32_t cells = p->node[0].ncells;
    const unsigned char *vb = values;

    if (c->narrow) {
        PS_MPI_BY_KIND(c, PS_MPI_SCATTER_NARROW)
    } else {
        PS_MPI_BY_KIND(c, PS_MPI_SCATTER)
    }
}
#undef PS_MPI_SCATTER
#undef PS_MPI_SCATTER_NARROW

/* From the last key down: key i's narrow bytes lie at i * w, below its
 * place i * sizeof(T), so writing it there overwrites only narrow keys
 * already widened.  Its read, sizeof(T) bytes, stays inside the run's
 * room.  An integer's low bytes become its image's by the xor with c0
 * (raw), a float's were its image's already. */
void ps_mpi_widen(const ps_mpi_ctx *c, unsigned char *run, size_t n, unsigned w, uint64_t lo)
{
    const ps_mpi_order o = c->order;
    const uint64_t mask = w >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * w)) - 1;
    const uint64_t flip = o.c1 == 0 ? o.c0 : 0;

#define PS_MPI_WIDEN(T, KEY)                                                   \
    do {                                                                       \
        for (size_t i = n; i-- > 0;) {                                         \
            T t, x;                                                            \
            memcpy(&t, run + i * w, sizeof t);                                 \
            uint64_t low = PS_MPI_WIDE_BITS(T, t, w) ^ flip;                   \
            x = (T)KEY(&o, lo + ((low - lo) & mask));                          \
            memcpy(run + i * sizeof x, &x, sizeof x);                          \
        }                                                                      \
    } while (0)
    switch (ps_mpi_kind(c)) {
    case 1: PS_MPI_WIDEN(uint8_t, ps_mpi_image_int); break;
    case 2: PS_MPI_WIDEN(uint16_t, ps_mpi_image_int); break;
    case 4: PS_MPI_WIDEN(uint32_t, ps_mpi_image_int); break;
    case 8: PS_MPI_WIDEN(uint64_t, ps_mpi_image_int); break;
    case 2 + 16: PS_MPI_WIDEN(uint16_t, ps_mpi_key_of); break;
    case 4 + 16: PS_MPI_WIDEN(uint32_t, ps_mpi_key_of); break;
    default: PS_MPI_WIDEN(uint64_t, ps_mpi_key_of); break;
    }
#undef PS_MPI_WIDEN
}
