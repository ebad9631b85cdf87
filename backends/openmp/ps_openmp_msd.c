/*
 * ps_openmp_msd.c - the OpenMP backend's sort, as control: which pass runs
 * where, for every key width at once.  The loops over keys are the
 * kernels of c->kt (ps_openmp_kernels.c), called a pass or a leaf at a
 * time.
 *
 * Shape (doc/results-openmp.md has the longer story): one read finds the
 * bits that vary and counts the first digit (ps_omp_sort); stable MSD
 * passes split a range while it is larger than the caches, by the whole
 * team (team) or one thread (solo); a bucket that fits in cache is a leaf,
 * finished by one thread (leaf): an insertion sort, sorting networks, a
 * split pass and insertion sorts, or LSD passes.  Every pass is a stable
 * counting scatter, so the whole sort is stable.  4-byte keys with 4-byte
 * values may take the packed route (pk_fits) instead.
 *
 * The team's passes run as phases of ps_openmp_team.h: the calling thread
 * decides each one and every member, the caller included, takes chunks of
 * it; nothing waits for a member by name, so a member that another
 * process has descheduled holds back only the chunk it holds.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_openmp_net.h"
#include "ps_openmp_team.h"
#include "ps_openmp_sort.h"

/* A leaf of at most this many keys is finished by insertion sort alone
 * (leaf). */
#define PS_TINY_LEAF 16
/* A leaf whose LSD passes would use more than this many counters a key
 * is split instead (leaf). */
#define PS_SPLIT_SPARSE 8
/* Smallest bucket an MSD pass makes just to spare its leaves a third LSD
 * pass (msd_bits). */
#define PS_TWO_PASS_MIN 4096
/* After a leaf whose buckets overflowed the networks' slots by more than
 * a sixteenth of its keys (skewed data), this many more leaves of the
 * same thread skip the networks (slots_fit): the omp for hands out runs
 * of 8 neighbouring buckets, which tend to be skewed alike. */
#define PS_NET_SKIP 8

static inline ps_omp_tls *tls_of(const ps_omp_ctx *c, int t)
{
    return (ps_omp_tls *)(void *)(c->tls + (size_t)t * c->tls_stride);
}

/* Position i of array `where`, as a pointer (keys or values). */
static inline unsigned char *key_at(const ps_omp_ctx *c, int where, size_t i)
{
    return (unsigned char *)c->k[where] + i * (c->bits / 8);
}

static inline unsigned char *value_at(const ps_omp_ctx *c, int where,
                                      size_t i)
{
    return c->vs ? c->v[where] + i * c->vs : NULL;
}

/* Bits for an MSD pass over m keys whose bits [lo, hi) are left: enough
 * that the buckets come out at about half a leaf, and more while the
 * buckets would keep bits for three LSD passes and at least
 * PS_TWO_PASS_MIN keys (measured: u32 at 4M keys, 29% faster with
 * two-pass leaves of 4K keys than with three-pass ones of 8K).  Above 2^32
 * keys always the most, which bounds the depth (leaf counters are 32-bit).
 *
 * The most, too, when `skew` says the range is most of the range it came
 * from: the pass before split it badly, as magnitudes spread over many
 * decades do (log-uniform keys leave 8/9 of them in bucket 0 of an 8-bit
 * pass), and the bits m alone asks for would peel a few bits a level and
 * take a full pass over nearly all the keys for each. */
static inline unsigned msd_bits(const ps_omp_ctx *c, size_t m, unsigned lo,
                                unsigned hi, int skew)
{
    unsigned b = 1;
    if (m > UINT32_MAX || skew)
        b = PS_MSD_BITS;
    while (b < PS_MSD_BITS && (m >> b) > c->leaf_cap / 2)
        b++;
    while (b < PS_MSD_BITS && hi - lo > b + 2 * PS_LEAF_BITS
           && (m >> (b + 1)) >= PS_TWO_PASS_MIN)
        b++;
    return b < hi - lo ? b : hi - lo;
}

/* Is a bucket of bm keys, out of a range of m, most of it? */
static inline int skewed(size_t bm, size_t m)
{
    return bm > m / 2;
}

/* The counters of the LSD passes over nb bits of a leaf (lsd_leaf): one
 * table of 2^w per pass. */
static inline size_t lsd_counters(unsigned nb)
{
    unsigned np = (nb + PS_LEAF_BITS - 1) / PS_LEAF_BITS;
    unsigned w = (nb + np - 1) / np;
    return (size_t)np << w;
}

/* Bits of the counting pass of a network leaf of m elements (net_leaf,
 * pk_net_leaf): the fewest that leave at most `avg` a bucket on average,
 * so that most buckets fit a network of one or two registers and few
 * exceed PS_NET_MAX. */
static inline unsigned net_bits(size_t m, size_t avg)
{
    unsigned b = 1;
    while (b < PS_LEAF_BITS && (m >> b) > avg)
        b++;
    return b;
}

/* A range of m keys at `depth` is finished as a leaf when it fits in
 * cache, or when the level budget is spent (PS_MAX_DEPTH). */
static inline int is_leaf(const ps_omp_ctx *c, size_t m, unsigned depth)
{
    PS_DEBUG_ASSERT(depth < PS_MAX_DEPTH);
    PS_DEBUG_ASSERT(depth < PS_MAX_DEPTH - 1 || m <= UINT32_MAX);
    return m <= c->leaf_cap || (depth >= PS_MAX_DEPTH - 1 && m <= UINT32_MAX);
}

/* A bucket (at depth + 1) is sorted by the whole team (of nt members) when
 * it is too big for a leaf and large next to its range: then splitting the
 * buckets among single threads would leave threads idle.  Never at the last level of the
 * budget, where a bucket is a leaf, and leaves are one thread's. */
static inline int team_worthy(const ps_omp_ctx *c, size_t bm, size_t m, int nt,
                              unsigned depth)
{
    return bm > c->leaf_cap && bm >= PS_PARALLEL_MIN
           && bm * 4 * (size_t)nt > m && depth + 1 < PS_MAX_DEPTH - 1;
}

/* Ask for the lines of [p, p + bytes) ahead of writing them.  A leaf's
 * last pass scatters into the caller's array, which is cold: without this
 * every store waits for its line to come from DRAM (+5% on u32 keys, +9%
 * on u64 keys, 16M, one thread). */
static inline void prefetch_for_write(const void *p, size_t bytes)
{
    const char *c = (const char *)p;
    size_t i;
    for (i = 0; i < bytes; i += 64)
        __builtin_prefetch(c + i, 1, 3);
}

/* How many elements of the bucket after [a, a + m) a leaf's last pass
 * prefetches (at most m).  The omp for hands buckets out in runs of 8, so
 * that bucket is mostly the same thread's next leaf; its keys and values,
 * fetched into L2 while the pass's loads and stores hit in cache, spare
 * the next leaf's first read the wait on DRAM, and its destination lines,
 * fetched for writing, spare its scatter the reads for ownership.
 * Measured, one thread, interleaved: split leaves (u64) at 16M +7% for the
 * reads and 7-12% more for the writes, with values +6% and 5-10% more;
 * packed pairs +3-10% at 1M-16M; u32 LSD leaves +1-6% at 4M-16M. */
static inline size_t next_span(const ps_omp_ctx *c, size_t a, size_t m)
{
    size_t next = a + m;
    return next >= c->n ? 0 : c->n - next < m ? c->n - next : m;
}

/* ---- leaves ------------------------------------------------------------ */

/* Offsets of a counting pass from its counts: off[d] where bucket d
 * starts, for digits 0..mask. */
static void leaf_offsets(uint32_t *off, const uint32_t *cnt, unsigned mask)
{
    uint32_t sum = 0;
    unsigned d;
    for (d = 0; d <= mask; d++) {
        off[d] = sum;
        sum += cnt[d];
    }
}

/* The digits of a leaf's LSD passes: np digits of w bits from bit lo (the
 * last ending at hi), whose histograms leaf_hist left in h, table j at
 * h + (j << w).  Keeps the digits that vary over the leaf's m keys (a
 * digit that first, the image of its first key, shares with all of them
 * leaves the order as it is), with their histograms moved to the front:
 * pass i sorts by (sh[i], mask[i]) from table i.  Returns their number. */
static unsigned leaf_digits(uint32_t *h, unsigned np, unsigned w, unsigned lo,
                            unsigned hi, size_t m, uint64_t first,
                            unsigned *sh, unsigned *mask)
{
    unsigned j, p = 0;
    for (j = 0; j < np; j++) {
        unsigned s0 = lo + j * w, bits = hi - s0 < w ? hi - s0 : w;
        unsigned mk = (1u << bits) - 1;
        const uint32_t *hj = h + ((size_t)j << w);
        if (hj[(first >> s0) & mk] == m)
            continue;   /* the same digit everywhere: order unchanged */
        if (p != j)
            memcpy(h + ((size_t)p << w), hj, ((size_t)mk + 1) * sizeof *h);
        sh[p] = s0;
        mask[p] = mk;
        p++;
    }
    return p;
}

/* Sort positions [a, a + m) of array `where` by image bits [lo, hi) with
 * LSD passes of at most PS_LEAF_BITS bits, and leave the result in array 0
 * (the caller's).  m < 2^32.  A leaf of at most leaf_cap elements may also
 * pass through the thread's own buffer (tl->tmp), which lets any number of
 * passes from 2 up end in array 0 without a final copy. */
static void lsd_leaf(const ps_omp_ctx *c, ps_omp_tls *tl, int where, size_t a,
                     size_t m, unsigned lo, unsigned hi)
{
    const ps_omp_kernels *kt = c->kt;
    const size_t kb = c->bits / 8;
    uint32_t *h = tl->lhist, *off = tl->loff;
    unsigned sh[PS_MAX_LEAF_DIGITS], mask[PS_MAX_LEAF_DIGITS];
    unsigned np, p = 0, w = 0, i;
    int path[PS_MAX_LEAF_DIGITS + 1];
    unsigned char *karr[3], *varr[3];

    if (m > 1 && hi > lo) {
        unsigned nb = hi - lo;
        uint64_t first;
        np = (nb + PS_LEAF_BITS - 1) / PS_LEAF_BITS;
        w = (nb + np - 1) / np;
        if (where != 0) {   /* the last pass writes array 0: warm it */
            prefetch_for_write(key_at(c, 0, a), m * kb);
            if (c->vs)
                prefetch_for_write(value_at(c, 0, a), m * c->vs);
        }
        first = kt->leaf_hist(c, key_at(c, where, a), m, lo, hi, w, np, h);
        p = leaf_digits(h, np, w, lo, hi, m, first, sh, mask);
    }
    /* Choose the arrays each pass goes through: 0 and 1 alternate, and 2
     * (the thread's buffer) stands in wherever alternation alone would end
     * in array 1. */
    karr[0] = key_at(c, 0, a);
    karr[1] = key_at(c, 1, a);
    karr[2] = tl->tmp;
    varr[0] = value_at(c, 0, a);
    varr[1] = value_at(c, 1, a);
    varr[2] = c->vs ? tl->tmp + round64(c->leaf_cap * kb) : NULL;
    path[0] = where;
    for (i = 1; i <= p; i++)
        path[i] = 1 - path[i - 1];
    if (m <= c->leaf_cap && p >= 2 && path[p] != 0) {
        for (i = 1; i < p; i++)
            path[i] = i == p - 1 ? (path[i - 1] == 1 ? 2 : 1)
                                 : (path[i - 1] == 1 ? 0 : 1);
        path[p] = 0;
    }
    for (i = 0; i < p; i++) {
        leaf_offsets(off, h + ((size_t)i << w), mask[i]);
        kt->leaf_pass(c, karr[path[i]], karr[path[i + 1]], varr[path[i]],
                      varr[path[i + 1]], m, sh[i], mask[i], off,
                      key_at(c, where, a + m), key_at(c, 0, a + m),
                      i + 1 == p ? next_span(c, a, m) : 0);
    }
    if (path[p] != 0 && m > 0) {
        memcpy(karr[0], karr[path[p]], m * kb);
        if (c->vs)
            memcpy(varr[0], varr[path[p]], m * c->vs);
    }
}

/* Finish the split leaf at [a, a + m) of array 0, whose buckets (bucket d
 * ends at tl->split[d]) are in order by image bits [sh, hi) but not yet by
 * the bits [lo, sh) below: buckets too big for insertion sort (skewed
 * data, when `skewed` says one may be) become LSD leaves, then one
 * insertion sort runs over the whole leaf.  A key never moves past a
 * smaller bucket's keys, so that needs no bucket bounds; a loop over the
 * buckets, mostly of 0, 1 or 2 keys, cost about 35 instructions a bucket.
 *
 * With about a key a bucket (the leaves of large sorts), one key in five
 * stands after a greater one, and the bubble pass, which leaves one in
 * twenty-five, was 15-25% faster for the whole sort (u64, 1M and 16M);
 * with two keys a bucket (small inputs, split more coarsely) the plain
 * insertion sort was 10-20% faster.  The bubble pass prefetches the next
 * bucket's keys and values from array `where` (next_span). */
static void finish_buckets(const ps_omp_ctx *c, ps_omp_tls *tl, int where,
                           size_t a, size_t m, unsigned lo, unsigned sh,
                           unsigned mask, int skewed)
{
    if (skewed) {
        /* A bucket of more than PS_SPLIT_SMALL keys is left to the
         * insertion sort while that (about cnt^2 / 4 moves) costs less
         * than the counters the LSD passes would clear and sum: a few
         * distinct values spread over the range (100 in 1000 keys) fill
         * buckets of 20-100 keys, and LSD passes over each of them ran 7x
         * slower than passes over the whole leaf. */
        const uint64_t lsd_cost = 4 * (uint64_t)lsd_counters(sh - lo);
        const uint32_t *end = tl->split;
        uint32_t s = 0;
        unsigned d;
        for (d = 0; d <= mask; s = end[d++]) {
            uint32_t cnt = end[d] - s;
            if (cnt > PS_SPLIT_SMALL && (uint64_t)cnt * cnt > lsd_cost)
                lsd_leaf(c, tl, 0, a + s, cnt, lo, sh);
        }
    }
    if (m < 2)
        return;
    if (m > (size_t)mask + 1 + (mask + 1) / 2)
        c->kt->insert(key_at(c, 0, a), value_at(c, 0, a), c->vs, m, c->xf);
    else
        c->kt->bubble(c, key_at(c, 0, a), value_at(c, 0, a), m,
                      key_at(c, where, a + m), value_at(c, where, a + m),
                      next_span(c, a, m));
}

/* A leaf with many bits left for its few keys (leaf says when): one pass
 * on its top bits, at most PS_SPLIT_BITS and at most `most` buckets,
 * already leaves a key or two per bucket, so the buckets are finished by
 * insertion sort instead of passes over the bits below.  A bucket too big
 * for that (skewed data) is a leaf of its own.  The data first moves to
 * array 1 (when it is in array 0), so that the pass ends in array 0. */
static void split_leaf(const ps_omp_ctx *c, ps_omp_tls *tl, int where,
                       size_t a, size_t m, unsigned lo, unsigned hi,
                       size_t most)
{
    const size_t kb = c->bits / 8, vs = c->vs;
    unsigned char *k0 = key_at(c, 0, a), *k1 = key_at(c, 1, a);
    unsigned char *v0 = value_at(c, 0, a), *v1 = value_at(c, 1, a);
    unsigned b = PS_SPLIT_BITS, sh, mask;
    uint32_t big;

    /* About as many buckets as keys: 2^b at most `most` (leaf), and no
     * more bits than are left. */
    while (b > 1 && ((size_t)1 << b) > most)
        b--;
    if (b > hi - lo)
        b = hi - lo;
    sh = hi - b;
    mask = (1u << b) - 1;

    if (where == 0) {
        memcpy(k1, k0, m * kb);
        if (vs)
            memcpy(v1, v0, m * vs);
    } else {
        prefetch_for_write(k0, m * kb);
        if (vs)
            prefetch_for_write(v0, m * vs);
    }
    /* The pass leaves the buckets' ends in tl->split for finish_buckets
     * (whose LSD leaves use lhist).  big, the OR of the counts, exceeds
     * PS_SPLIT_SMALL when a count does (and sometimes when none does: then
     * finish_buckets looks in vain). */
    big = c->kt->split(c, k1, k0, v1, v0, m, sh, mask, tl->split);
    finish_buckets(c, tl, where, a, m, lo, sh, mask, big > PS_SPLIT_SMALL);
}

/* Did the slot pass of a network leaf of m keys (net_leaf, pk_net_leaf)
 * keep every bucket within its PS_NET_MAX slots?  off[d] ends bucket d,
 * which starts at d * PS_NET_MAX.  When not, and more than a sixteenth of
 * the keys overflowed (skewed data), the thread's next PS_NET_SKIP leaves
 * go to the other leaf sorts without trying. */
static int slots_fit(ps_omp_tls *tl, const uint32_t *off, unsigned mask,
                     size_t m)
{
    uint32_t excess = 0;
    unsigned d;
    for (d = 0; d <= mask; d++) {
        uint32_t cnt = off[d] - d * PS_NET_MAX;
        excess += cnt > PS_NET_MAX ? cnt - PS_NET_MAX : 0;
    }
    if (excess == 0)
        return 1;
    if (excess > m / 16)
        tl->net_skip = PS_NET_SKIP;
    return 0;
}

/* Sort positions [a, a + m) of array `where` by image bits [., hi) into
 * array 0, for a leaf of 4- or 8-byte keys without values on a CPU with
 * AVX-512 (or AVX2, 4-byte keys; c->net): one pass on its top bits
 * (net_bits: 8 to 16 4-byte keys a bucket, 4 to 8 8-byte ones) into the
 * thread's buffer, then each bucket sorted by a network of one to four
 * registers on its way into array 0 (ps_openmp_net.h).  The networks sort
 * whole keys, so the bits below the digit need no more passes.  Against
 * two LSD passes, the second pass and the counting of the digits are
 * gone, for about 1.3 cycles a key of networks (4-byte keys, 32K-key
 * leaves of 22 bits: 8.1 -> 5.7 cycles a key in a microbenchmark).
 *
 * The pass goes without counting at all: bucket d fills a slot of
 * PS_NET_MAX keys at d * PS_NET_MAX, and the networks pack the buckets as
 * they go (5-25% faster than counting first, 2 threads, 1K-16M keys).
 * When a bucket overflows its slot (with random keys, about one leaf in
 * 20 at 16K 4-byte keys, one in 8 at 2^24 keys), the leaf goes to the
 * other leaf sorts: they handle skewed data better than networks do
 * (slots_fit).  The thread's buffer holds the slots and any overflow: at
 * most (2^b - 1) * PS_NET_MAX + m < 9m keys, since net_bits leaves more
 * than 8 4-byte keys and more than 4 8-byte keys a bucket.
 *
 * Returns 0, having written nothing to array 0, when it did not sort. */
static int net_leaf(const ps_omp_ctx *c, ps_omp_tls *tl, int where, size_t a,
                    size_t m, unsigned hi)
{
    const size_t kb = c->bits / 8;
    unsigned char *k0 = key_at(c, 0, a), *src = key_at(c, where, a);
    unsigned b = net_bits(m, 512 / c->bits), sh = hi - b;
    unsigned mask = (1u << b) - 1, d;
    uint32_t *off = tl->split;

    if (where != 0)     /* the networks write array 0: warm it */
        prefetch_for_write(k0, m * kb);
    for (d = 0; d <= mask; d++)
        off[d] = d * PS_NET_MAX;
    /* The pass leaves off[d] at the end of bucket d, and prefetches the
     * next leaf as an LSD leaf's last pass does. */
    c->kt->leaf_pass(c, src, tl->tmp, NULL, NULL, m, sh, mask, off,
                     src + m * kb, k0 + m * kb, next_span(c, a, m));
    if (!slots_fit(tl, off, mask, m))
        return 0;
    c->kt->net(tl->tmp, k0, off, (size_t)mask + 1, (uint32_t)m, c->xf, c->net);
    return 1;
}

/* Finish positions [a, a + m) of array `where` by image bits [lo, hi), in
 * array 0:
 *  - at most PS_TINY_LEAF keys: an insertion sort.  Skewed data leaves
 *    many such buckets with many bits each (log-uniform magnitudes:
 *    thousands of buckets of 1-10 keys keeping 30-40 bits), where LSD
 *    passes would clear and sum thousands of counters per bucket; those
 *    counters took most of a 1M-key sort;
 *  - with networks (c->net), net_leaf, unless its slots overflow;
 *  - LSD passes, or a split pass and insertion sorts
 *    - when four or more passes would be left for few keys, with up to 1.5
 *      buckets a key (measured on u64: twice as many buckets as keys costs
 *      more in the bucket loop than it saves in insertion sorts, 64K keys
 *      20% slower; half as many more in insertion sorts, 16M keys 9%
 *      slower; with three passes, the passes win: u32 at 1M keys, whose
 *      leaves keep 25 bits, ran 19% slower split);
 *    - when the leaf is the whole input (a small array) and the passes'
 *      counters would outnumber its keys twice: the sort would then be
 *      mostly clearing and summing counters.  Measured on one thread
 *      against the passes, random u32 keys: 100 keys 5x faster, 300 2.4x,
 *      1000 1.6x, 2900 1.18x; u32 pairs 4x to 1.05x; at 4096 keys the
 *      passes win by 8%, by 12-27% with 22-24 bits left.  The leaves of
 *      larger sorts keep their passes: split, u32 at 1M keys (leaves of
 *      about 4096 keys and 24 bits) ran 28% slower.
 *  A leaf that is the whole input has at most a bucket for two keys:
 *  against one a key, 8-11% faster at 1500 u32 keys, 20-25% at 4096 and
 *  8192 u64 keys.  (Leaves of larger sorts lose 15-20% that way: u64 at
 *  64K to 4M keys.) */
static void leaf(const ps_omp_ctx *c, ps_omp_tls *tl, int where, size_t a,
                 size_t m, unsigned lo, unsigned hi)
{
    if (m <= PS_TINY_LEAF && hi > lo) {
        if (where != 0) {
            memcpy(key_at(c, 0, a), key_at(c, 1, a), m * (c->bits / 8));
            if (c->vs)
                memcpy(value_at(c, 0, a), value_at(c, 1, a), m * c->vs);
        }
        c->kt->insert(key_at(c, 0, a), value_at(c, 0, a), c->vs, m, c->xf);
        return;
    }
    if (c->net && c->kt->net != NULL && m > PS_NET_MAX && m <= c->leaf_cap
        && hi - lo > net_bits(m, 512 / c->bits)) {
        if (tl->net_skip > 0)
            tl->net_skip--;
        else if (net_leaf(c, tl, where, a, m, hi))
            return;
    }
    if (m > 1 && hi - lo > 3 * PS_LEAF_BITS
        && m <= ((size_t)2 << PS_SPLIT_BITS))
        split_leaf(c, tl, where, a, m, lo, hi, m == c->n ? m / 2 : m + m / 2);
    else if (m == c->n && m > 1 && hi > lo && lsd_counters(hi - lo) > 2 * m)
        split_leaf(c, tl, where, a, m, lo, hi, m / 2);
    else if (hi > lo && lsd_counters(hi - lo) > PS_SPLIT_SPARSE * m)
        split_leaf(c, tl, where, a, m, lo, hi, m + m / 2);
    else
        lsd_leaf(c, tl, where, a, m, lo, hi);
}

/* ---- the packed route (4-byte keys with 4-byte values) ----------------- */

/* pk_leaf with sorting networks (c->pk_net; ps_openmp_net.h): one pass on
 * the top bits, 4 to 8 elements a bucket, into slots of PS_NET_MAX in the
 * thread's buffer, no counting (as net_leaf), then each bucket sorted
 * stably by a network on 64-bit lanes and unpacked into the caller's
 * arrays.  Returns 0, having written nothing but the buffer, when it does
 * not apply: the key bits below the digit must fit the 27 bits of a lane's
 * sort key, and a bucket that overflows its slot (skewed data) sends the
 * leaf, and maybe the thread's next ones (slots_fit), to the LSD passes.
 * The buffer holds at most (2^b - 1) * PS_NET_MAX + m < 9m elements, since
 * net_bits leaves more than 4 a bucket. */
static int pk_net_leaf(const ps_omp_ctx *c, ps_omp_tls *tl, size_t a,
                       size_t m, unsigned lo, unsigned hi)
{
    const ps_omp_packed *pk = c->kt->packed;
    const uint64_t *e = (const uint64_t *)c->k[1] + a;
    uint64_t *buf = (uint64_t *)(void *)tl->tmp;
    unsigned b = net_bits(m, 8), sh = hi - b, mask = (1u << b) - 1, d;
    uint32_t *off = tl->split;

    if (m <= PS_NET_MAX || m > c->leaf_cap || hi - lo <= b || sh > 27)
        return 0;
    if (tl->net_skip > 0) {
        tl->net_skip--;
        return 0;
    }
    for (d = 0; d <= mask; d++)
        off[d] = d * PS_NET_MAX;
    pk->pass(c, e, buf, m, sh, mask, off, e + m, next_span(c, a, m));
    if (!slots_fit(tl, off, mask, m))
        return 0;
    pk->net(buf, key_at(c, 0, a), c->v[0] + a * 4, off, (size_t)mask + 1,
            (uint32_t)m, c->xf);
    return 1;
}

/* Sort the packed elements at [a, a + m) of the scratch by key image bits
 * [lo, hi) and leave them, apart, at [a, a + m) of the caller's arrays:
 * LSD passes of at most PS_LEAF_BITS bits, alternating between the scratch
 * and the thread's buffer, then one sequential unpack.  m <= leaf_cap. */
static void pk_leaf(const ps_omp_ctx *c, ps_omp_tls *tl, size_t a, size_t m,
                    unsigned lo, unsigned hi)
{
    const ps_omp_packed *pk = c->kt->packed;
    uint64_t *e = (uint64_t *)c->k[1] + a, *buf[2];
    uint32_t *h = tl->lhist, *off = tl->loff;
    unsigned sh[PS_MAX_LEAF_DIGITS], mk[PS_MAX_LEAF_DIGITS];
    unsigned np, p = 0, w = 0, i;

    if (c->pk_net && pk->net != NULL && pk_net_leaf(c, tl, a, m, lo, hi))
        return;
    if (m > 1 && hi > lo) {
        unsigned nb = hi - lo;
        uint64_t first;
        np = (nb + PS_LEAF_BITS - 1) / PS_LEAF_BITS;
        w = (nb + np - 1) / np;
        first = pk->hist(c, e, m, lo, hi, w, np, h);
        p = leaf_digits(h, np, w, lo, hi, m, first, sh, mk);
    }
    buf[0] = e;
    buf[1] = (uint64_t *)(void *)tl->tmp;
    for (i = 0; i < p; i++) {
        leaf_offsets(off, h + ((size_t)i << w), mk[i]);
        pk->pass(c, buf[i & 1], buf[(i + 1) & 1], m, sh[i], mk[i], off,
                 e + m, i + 1 == p ? next_span(c, a, m) : 0);
    }
    pk->unpack(key_at(c, 0, a), c->v[0] + a * 4, buf[p & 1], m);
}

/* Can the MSD pass at `depth` over array `where`, cut by `bounds` into
 * mask + 1 buckets, take the packed route?  Only the first pass, over the
 * whole of the caller's arrays: a packed range must not overlap data that
 * the scratch holds apart.  Every thread computes the same answer. */
static int pk_fits(const ps_omp_ctx *c, int where, unsigned depth,
                   const size_t *bounds, unsigned mask)
{
    unsigned d;
    if (!c->pack || c->kt->packed == NULL || where != 0 || depth != 0)
        return 0;
    for (d = 0; d <= mask; d++)
        if (bounds[d + 1] - bounds[d] > c->leaf_cap)
            return 0;
    return 1;
}

/* The packed route of one thread from a pass whose bucket bounds are
 * known: it scatters [a, a + m), cursors already in tl->pos and
 * tl->start, then the buckets become leaves. */
static void pk_solo(const ps_omp_ctx *c, ps_omp_tls *tl, size_t a, size_t m,
                    const size_t *bounds, unsigned lo, unsigned sh,
                    unsigned mask)
{
    unsigned bd;
    c->kt->packed->scatter(c, tl, a, a + m, sh, mask);
    for (bd = 0; bd <= mask; bd++)
        if (bounds[bd + 1] > bounds[bd])
            pk_leaf(c, tl, bounds[bd], bounds[bd + 1] - bounds[bd], lo, sh);
}

/* ---- MSD passes -------------------------------------------------------- */

/* Turn the counts of one digit over a range starting at `base` into bucket
 * bounds: bounds[d] is where bucket d starts, bounds[buckets] the end.
 * Returns 1 when a single bucket holds everything (nothing to do). */
static int bucket_bounds(const size_t *cnt, unsigned buckets, size_t base,
                         size_t m, size_t *bounds)
{
    unsigned d;
    size_t sum = base;
    int constant = 0;
    for (d = 0; d < buckets; d++) {
        bounds[d] = sum;
        sum += cnt[d];
        constant |= cnt[d] == m;
    }
    bounds[buckets] = sum;
    return constant;
}

/* Sort positions [a, a + m) of array `where` by image bits [lo, hi), on one
 * thread: MSD passes while the range is larger than a leaf, then a leaf.
 * Each recursion depth keeps its bucket bounds in tl->bounds[depth], and
 * depth stays below PS_MAX_DEPTH (is_leaf).  pre_sh/pre_b name a digit
 * whose counts are already in tl->pos (pre_b = 0: none), as the survey
 * leaves them.  skew: the range is most of its parent's (msd_bits). */
static void solo(const ps_omp_ctx *c, ps_omp_tls *tl, int where, size_t a,
                 size_t m, unsigned lo, unsigned hi, unsigned depth,
                 unsigned pre_sh, unsigned pre_b, int skew)
{
    unsigned b, sh, mask, d;
    size_t *bounds;

    for (;;) {
        if (hi <= lo || is_leaf(c, m, depth)) {
            leaf(c, tl, where, a, m, lo, hi);
            return;
        }
        b = msd_bits(c, m, lo, hi, skew);
        sh = hi - b;
        mask = (1u << b) - 1;
        bounds = tl->bounds + (size_t)depth * (PS_MSD_RADIX + 1);
        if (sh != pre_sh || b != pre_b)
            c->kt->hist(c, where, a, a + m, sh, mask, tl->pos);
        pre_b = 0;
        if (!bucket_bounds(tl->pos, mask + 1, a, m, bounds))
            break;
        hi = sh;    /* constant digit: the data stays where it is */
        skew = 1;
    }
    memcpy(tl->pos, bounds, (mask + 1) * sizeof *bounds);
    memcpy(tl->start, bounds, (mask + 1) * sizeof *bounds);
    if (pk_fits(c, where, depth, bounds, mask)) {
        pk_solo(c, tl, a, m, bounds, lo, sh, mask);
        return;
    }
    c->kt->scatter(c, tl, where, a, a + m, sh, mask);
    for (d = 0; d <= mask; d++) {
        size_t bm = bounds[d + 1] - bounds[d];
        if (bm > 0)
            solo(c, tl, 1 - where, bounds[d], bm, lo, sh, depth + 1, 0, 0,
                 skewed(bm, m));
    }
}


/* ---- the team: passes over chunks, as phases ------------------------- */

/* The smallest chunk a team pass hands out: below this, taking it costs
 * more than it saves. */
#define PS_CHUNK_MIN 8192
/* Buckets of a pass that one item of the leaf phase finishes: neighbours,
 * so that a leaf's prefetch of the next bucket (next_span) mostly helps
 * the same member. */
#define PS_LEAF_GROUP 8

/* Chunks a team pass over m elements cuts its range into: c->chunks (two
 * per member, so that a member that is descheduled in the middle of one
 * holds back a small part of the pass), fewer for a short range.  The same
 * m always gives the same cut: the survey's counts are the first pass's. */
static size_t chunks_of(const ps_omp_ctx *c, size_t m)
{
    size_t k = m / PS_CHUNK_MIN;
    if (k < 1)
        k = 1;
    return k < c->chunks ? k : c->chunks;
}

/* Where chunk j of nch over [a, a + m) starts: a + floor(m * j / nch),
 * computed without the product overflowing. */
static inline size_t chunk_at(size_t a, size_t m, size_t nch, size_t j)
{
    return a + (m / nch) * j + (m % nch) * j / nch;
}

static inline size_t *ccount_of(const ps_omp_ctx *c, size_t j)
{
    return c->ccount + j * PS_MSD_RADIX;
}

/* What the items of one team pass share (read-only while they run). */
typedef struct pass {
    const ps_omp_ctx *c;
    int where;
    size_t a, m, nch;
    unsigned lo, sh, mask, depth;
    const size_t *bounds;
} pass;

static void item_survey(void *arg, int member, size_t j)
{
    const pass *p = arg;
    const ps_omp_ctx *c = p->c;
    c->kt->survey(c, chunk_at(p->a, p->m, p->nch, j),
                  chunk_at(p->a, p->m, p->nch, j + 1), p->sh, p->mask,
                  ccount_of(c, j), tls_of(c, member)->start, c->orand + 2 * j);
}

static void item_hist(void *arg, int member, size_t j)
{
    const pass *p = arg;
    (void)member;
    p->c->kt->hist(p->c, p->where, chunk_at(p->a, p->m, p->nch, j),
                   chunk_at(p->a, p->m, p->nch, j + 1), p->sh, p->mask,
                   ccount_of(p->c, j));
}

/* The cursors of chunk j (team turned its counts into starts). */
static ps_omp_tls *chunk_cursors(const pass *p, int member, size_t j)
{
    ps_omp_tls *tl = tls_of(p->c, member);
    size_t bytes = ((size_t)p->mask + 1) * sizeof(size_t);
    memcpy(tl->pos, ccount_of(p->c, j), bytes);
    memcpy(tl->start, ccount_of(p->c, j), bytes);
    return tl;
}

static void item_scatter(void *arg, int member, size_t j)
{
    const pass *p = arg;
    p->c->kt->scatter(p->c, chunk_cursors(p, member, j), p->where,
                      chunk_at(p->a, p->m, p->nch, j),
                      chunk_at(p->a, p->m, p->nch, j + 1), p->sh, p->mask);
}

static void item_pk_scatter(void *arg, int member, size_t j)
{
    const pass *p = arg;
    p->c->kt->packed->scatter(p->c, chunk_cursors(p, member, j),
                              chunk_at(p->a, p->m, p->nch, j),
                              chunk_at(p->a, p->m, p->nch, j + 1), p->sh,
                              p->mask);
}

/* Chunk j of the range back from the scratch to the caller's array. */
static void item_copy(void *arg, int member, size_t j)
{
    const pass *p = arg;
    const ps_omp_ctx *c = p->c;
    size_t lo = chunk_at(p->a, p->m, p->nch, j);
    size_t hi = chunk_at(p->a, p->m, p->nch, j + 1);
    (void)member;
    memcpy(key_at(c, 0, lo), key_at(c, 1, lo), (hi - lo) * (c->bits / 8));
    if (c->vs)
        memcpy(value_at(c, 0, lo), value_at(c, 1, lo), (hi - lo) * c->vs);
}

/* Buckets g * PS_LEAF_GROUP on of a pass: those the team did not sort
 * itself, each by the member that takes the item. */
static void item_leaves(void *arg, int member, size_t g)
{
    const pass *p = arg;
    const ps_omp_ctx *c = p->c;
    ps_omp_tls *tl = tls_of(c, member);
    size_t d, end = (g + 1) * PS_LEAF_GROUP;
    if (end > (size_t)p->mask + 1)
        end = (size_t)p->mask + 1;
    for (d = g * PS_LEAF_GROUP; d < end; d++) {
        size_t bm = p->bounds[d + 1] - p->bounds[d];
        if (bm > 0 && !team_worthy(c, bm, p->m, c->members, p->depth))
            solo(c, tl, 1 - p->where, p->bounds[d], bm, p->lo, p->sh,
                 p->depth + 1, 0, 0, skewed(bm, p->m));
    }
}

static void item_pk_leaves(void *arg, int member, size_t g)
{
    const pass *p = arg;
    ps_omp_tls *tl = tls_of(p->c, member);
    size_t d, end = (g + 1) * PS_LEAF_GROUP;
    if (end > (size_t)p->mask + 1)
        end = (size_t)p->mask + 1;
    for (d = g * PS_LEAF_GROUP; d < end; d++)
        if (p->bounds[d + 1] > p->bounds[d])
            pk_leaf(p->c, tl, p->bounds[d], p->bounds[d + 1] - p->bounds[d],
                    p->lo, p->sh);
}

/* Sort positions [a, a + m) of array `where` by image bits [lo, hi) with
 * the team: the calling thread (member 0) decides each pass and runs it
 * as phases, counting and scattering a chunk per item.  Chunk j's part of
 * every bucket follows the parts of chunks 0 .. j - 1, which keeps the
 * pass stable whichever member scatters which chunk.  pre_sh/pre_b name a
 * digit whose counts per chunk are already in c->ccount (pre_b = 0:
 * none).  Buckets worth the whole team are sorted by it, one after the
 * other; the rest go out as items of one leaf phase. */
static void team(const ps_omp_ctx *c, int where, size_t a, size_t m,
                 unsigned lo, unsigned hi, unsigned depth, unsigned pre_sh,
                 unsigned pre_b, int skew)
{
    size_t *bounds = tls_of(c, 0)->bounds + (size_t)depth * (PS_MSD_RADIX + 1);
    /* The caller's cursors are free until the scatter phase. */
    size_t *tot = tls_of(c, 0)->pos;
    pass p;
    unsigned b, sh, mask, d;
    size_t j;

    /* team_worthy keeps the team above the last level of the budget. */
    PS_DEBUG_ASSERT(depth < PS_MAX_DEPTH - 1);
    p.c = c;
    p.where = where;
    p.a = a;
    p.m = m;
    p.nch = chunks_of(c, m);
    p.depth = depth;
    p.bounds = bounds;
    for (;;) {
        if (hi <= lo) {
            if (where != 0)
                ps_team_for(c->team, p.nch, item_copy, &p);
            return;
        }
        b = msd_bits(c, m, lo, hi, skew);
        sh = hi - b;
        mask = (1u << b) - 1;
        p.lo = lo;
        p.sh = sh;
        p.mask = mask;
        if (sh != pre_sh || b != pre_b)
            ps_team_for(c->team, p.nch, item_hist, &p);
        pre_b = 0;
        memset(tot, 0, ((size_t)mask + 1) * sizeof *tot);
        for (j = 0; j < p.nch; j++) {
            const size_t *cj = ccount_of(c, j);
            for (d = 0; d <= mask; d++)
                tot[d] += cj[d];
        }
        if (!bucket_bounds(tot, mask + 1, a, m, bounds))
            break;
        hi = sh;    /* constant digit: the data stays where it is */
        skew = 1;
    }
    /* Each chunk's counts become where its part of every bucket starts. */
    for (d = 0; d <= mask; d++) {
        size_t s = bounds[d];
        for (j = 0; j < p.nch; j++) {
            size_t *cj = ccount_of(c, j), k = cj[d];
            cj[d] = s;
            s += k;
        }
    }
    if (pk_fits(c, where, depth, bounds, mask)) {
        ps_team_for(c->team, p.nch, item_pk_scatter, &p);
        ps_team_for(c->team, (mask + PS_LEAF_GROUP) / PS_LEAF_GROUP,
                    item_pk_leaves, &p);
        return;
    }
    ps_team_for(c->team, p.nch, item_scatter, &p);
    for (d = 0; d <= mask; d++) {
        size_t bm = bounds[d + 1] - bounds[d];
        if (team_worthy(c, bm, m, c->members, depth))
            team(c, 1 - where, bounds[d], bm, lo, sh, depth + 1, 0, 0,
                 skewed(bm, m));
    }
    ps_team_for(c->team, (mask + PS_LEAF_GROUP) / PS_LEAF_GROUP, item_leaves,
                &p);
}

/* Bits [lo, hi) of the image that vary over the keys, from the OR and AND
 * that each of the survey's nch parts left (of every image, or of every
 * key where the image is a plain xor).  Returns 0 when all keys are
 * equal. */
static int varying(const ps_omp_ctx *c, size_t nch, unsigned *lo, unsigned *hi)
{
    uint64_t o = 0, n = ~(uint64_t)0, v;
    size_t u;
    for (u = 0; u < nch; u++) {
        o |= c->orand[2 * u];
        n &= c->orand[2 * u + 1];
    }
    v = (o ^ n) & (c->bits == 64 ? ~(uint64_t)0
                                 : (((uint64_t)1 << c->bits) - 1));
    if (v == 0)
        return 0;
    *lo = (unsigned)__builtin_ctzll(v);
    *hi = 64u - (unsigned)__builtin_clzll(v);
    return 1;
}

/* The whole sort: one read finds the varying bits (bits that never vary
 * need no pass) and counts the first MSD digit, then the MSD passes and
 * the leaves: on this thread alone (no team), or by the team. */
void ps_omp_sort(const ps_omp_ctx *c)
{
    const unsigned w = c->bits;
    unsigned b0 = msd_bits(c, c->n, 0, w, 0), sh0 = w - b0;
    unsigned mask0 = (1u << b0) - 1;
    unsigned lo, hi;
    if (c->team == NULL) {
        ps_omp_tls *tl = tls_of(c, 0);
        if (is_leaf(c, c->n, 0))
            c->kt->survey_leaf(c, c->n, tl->pos, tl->start, c->orand);
        else
            c->kt->survey(c, 0, c->n, sh0, mask0, tl->pos, tl->start,
                          c->orand);
        if (varying(c, 1, &lo, &hi))
            solo(c, tl, 0, 0, c->n, lo, hi, 0, sh0, hi == w ? b0 : 0, 0);
        return;
    }
    {
        pass p;
        memset(&p, 0, sizeof p);
        p.c = c;
        p.m = c->n;
        p.nch = chunks_of(c, c->n);
        p.sh = sh0;
        p.mask = mask0;
        ps_team_for(c->team, p.nch, item_survey, &p);
        if (varying(c, p.nch, &lo, &hi))
            team(c, 0, 0, c->n, lo, hi, 0, sh0, hi == w ? b0 : 0, 0);
    }
}
