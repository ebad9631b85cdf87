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
 * finished by one thread (leaf, in ps_openmp_leaf-inl.h, which this file
 * includes).  Every pass is a stable counting scatter, so the whole sort
 * is stable.  4-byte keys with 4-byte values may take the packed route
 * (pk_fits) instead: the first pass packs each key with its value into
 * one word, and the leaves unpack them (pk_leaf).
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
#include "ps_openmp_sort.h"
#include "ps_openmp_team.h"

/* Smallest bucket an MSD pass makes just to spare its leaves a third LSD
 * pass (msd_bits). */
#define PS_TWO_PASS_MIN 4096

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

/* The bits of a pass over [lo, hi) whose digit pre_b bits below pre_sh +
 * pre_b was counted already: that digit, when it is the range's top one
 * (the survey's, ps_omp_sort), else msd_bits'. */
static inline unsigned given_bits(const ps_omp_ctx *c, size_t m, unsigned lo,
                                  unsigned hi, int skew, unsigned pre_sh,
                                  unsigned pre_b)
{
    if (pre_b != 0 && pre_sh + pre_b == hi && pre_b <= hi - lo)
        return pre_b;
    return msd_bits(c, m, lo, hi, skew);
}

/* The image of the key at position i of array `where`. */
static uint64_t image_at(const ps_omp_ctx *c, int where, size_t i)
{
    const unsigned char *k = key_at(c, where, i);
    switch (c->bits) {
    case 8: return ps_enc8(*k, c->xf);
    case 16: return ps_enc16(*(const uint16_t *)(const void *)k, c->xf);
    case 32: return ps_enc32(*(const uint32_t *)(const void *)k, c->xf);
    default: return ps_enc64(*(const uint64_t *)(const void *)k, c->xf);
    }
}

/* Keys a sample of finer_splits takes. */
#define PS_WIDEN_SAMPLE 256

/* Where one bucket of a b-bit digit holds most of the m keys at [a, a + m)
 * of array `where`: does the digit of PS_MSD_BITS bits cut that bucket by
 * four or more?  Asked of PS_WIDEN_SAMPLE keys spread over the range.
 * Floats in [0, 1) at 64K keys: 4 bits leave 99% in one bucket, 12 bits
 * 3%; the heavy integer shapes 60% and 38%, zipf most and most. */
static int finer_splits(const ps_omp_ctx *c, int where, size_t a, size_t m,
                        unsigned b, unsigned lo, unsigned hi)
{
    unsigned fb = hi - lo < PS_MSD_BITS ? hi - lo : PS_MSD_BITS, i;
    uint16_t seen[PS_MSD_RADIX];
    unsigned coarse = 0, fine = 0;
    memset(seen, 0, ((size_t)1 << fb) * sizeof *seen);
    for (i = 0; i < PS_WIDEN_SAMPLE; i++) {
        uint64_t x = image_at(c, where, a + m / PS_WIDEN_SAMPLE * i);
        x = (x >> (hi - fb)) & (((uint64_t)1 << fb) - 1);
        fine = ++seen[x] > fine ? seen[x] : fine;
    }
    /* The coarse digit's largest share, from the fine counts. */
    for (i = 0; i < 1u << b; i++) {
        unsigned g = 1u << (fb - b), sum = 0, k;
        for (k = 0; k < g; k++)
            sum += seen[i * g + k];
        coarse = sum > coarse ? sum : coarse;
    }
    return 4 * fine <= coarse;
}

/* A bucket this many times the mean of a pass that took fewer than
 * PS_MSD_BITS bits makes the pass count again on all of them (widen). */
#define PS_SKEW_WIDEN 8

/* Should the pass whose b-bit digit over m keys has counts cnt count again
 * on PS_MSD_BITS bits before it scatters?  When one bucket holds many
 * times the mean: floats of a few exponents (uniform in [0, 1): a quarter
 * of them in one 8-bit digit at 1M keys, nearly all in one 4-bit digit at
 * 64K), whose heavy buckets would each take a pass of their own a level
 * down, where 12 bits cut them into leaves now (f32 in [0, 1), 1M keys,
 * one thread: 5.7 -> 4.9 ns a key).  The second count costs a read of the
 * range, only where the first one shows the skew; random keys never do.
 * Not where one bucket holds most keys (heavy buckets, zipf, which 12
 * bits leave as heavy: 0.65-0.8x with the second count there), unless a
 * sample shows 12 bits cutting that bucket (finer_splits: floats whose
 * top digits are nearly constant).
 * (Counting on 12 bits every time and summing the counts down cost
 * values uniform in [0, n) 0.5-0.7x at 256K-1M u64 keys, 2 threads.) */
static int widen(const ps_omp_ctx *c, int where, size_t a, const size_t *cnt,
                 unsigned b, size_t m, unsigned lo, unsigned hi)
{
    size_t most = 0, d;
    if (b >= PS_MSD_BITS || hi - lo <= b)
        return 0;
    for (d = 0; d < (size_t)1 << b; d++)
        most = cnt[d] > most ? cnt[d] : most;
    if (most <= PS_SKEW_WIDEN * (m >> b) + PS_SKEW_WIDEN)
        return 0;
    return 2 * most <= m || finer_splits(c, where, a, m, b, lo, hi);
}

/* Does an MSD pass over a range of m elements scatter straight
 * (scatter_plain_body) rather than through the write-combining buffers?
 * When the range fits in a core's L2: the buffers pay off where the 2^b
 * write streams miss, and cost a flush a line where they hit.  Measured
 * on Zen 5 (1 MiB L2 a core, 32 MiB L3), one thread, ps_cpubench (a 5 ms
 * pause before each sort, another process compiling beside): u32 and u64
 * keys at 256-512 KiB 1.25-1.4x faster, 1 MiB even, 2 MiB 0.72-0.75x.
 * (Sorted back to back, with the caches warm, straight stays ahead up to
 * 4 MiB; 1 MiB is the bound that never loses.) */
#define PS_PLAIN_SCATTER_BYTES ((size_t)1 << 20)

static inline int plain_scatter(const ps_omp_ctx *c, size_t m)
{
    return m * (c->bits / 8 + c->vs) <= PS_PLAIN_SCATTER_BYTES;
}

/* Is a bucket of bm keys, out of a range of m, most of it? */
static inline int skewed(size_t bm, size_t m)
{
    return bm > m / 2;
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

/* The leaves, in this unit (ps_openmp_leaf-inl.h says why). */
#include "ps_openmp_leaf-inl.h"

/* ---- the packed route (4-byte keys with 4-byte values) ----------------- */

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
        b = given_bits(c, m, lo, hi, skew, pre_sh, pre_b);
        if (hi - b != pre_sh || b != pre_b)
            c->kt->hist(c, where, a, a + m, hi - b, (1u << b) - 1, tl->pos);
        pre_b = 0;
        if (!skew && widen(c, where, a, tl->pos, b, m, lo, hi)) {
            skew = 1;           /* counted again on PS_MSD_BITS bits */
            continue;
        }
        sh = hi - b;
        mask = (1u << b) - 1;
        bounds = tl->bounds + (size_t)depth * (PS_MSD_RADIX + 1);
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
    c->kt->scatter(c, tl, where, a, a + m, sh, mask, plain_scatter(c, m));
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
 * so that a leaf's prefetch of the next bucket (next_span,
 * ps_openmp_leaf-inl.h) mostly helps the same member. */
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
                      chunk_at(p->a, p->m, p->nch, j + 1), p->sh, p->mask,
                      plain_scatter(p->c, p->m));
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
        b = given_bits(c, m, lo, hi, skew, pre_sh, pre_b);
        p.lo = lo;
        p.sh = hi - b;
        p.mask = (1u << b) - 1;
        if (hi - b != pre_sh || b != pre_b)
            ps_team_for(c->team, p.nch, item_hist, &p);
        pre_b = 0;
        memset(tot, 0, ((size_t)1 << b) * sizeof *tot);
        for (j = 0; j < p.nch; j++) {
            const size_t *cj = ccount_of(c, j);
            for (d = 0; d < 1u << b; d++)
                tot[d] += cj[d];
        }
        if (!skew && widen(c, where, a, tot, b, m, lo, hi)) {
            skew = 1;           /* counted again on PS_MSD_BITS bits */
            continue;
        }
        sh = hi - b;
        mask = (1u << b) - 1;
        p.sh = sh;
        p.mask = mask;
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

/* The digit the survey counts: its b bits below bit `top`, and the skew
 * flag the first pass is to take (msd_bits). */
typedef struct first_digit {
    unsigned top, b;
    int skew, sampled;
    unsigned spare;             /* the sample's value of bit top - 1 */
} first_digit;

/* Keys a sample of plan_first reads, and the fewest keys it is taken for
 * (below, the survey's counts are cheap to make again). */
#define PS_FIRST_SAMPLE 256u
#define PS_FIRST_MIN ((size_t)1 << 14)

/* Which digit should the survey count?  The first MSD pass takes the top
 * digit of the bits that vary, which only the survey itself finds; so it
 * used to count the top digit of the whole image, and every input whose
 * top bits never vary (floats of one sign, integers below 2^k, bf16 of a
 * few exponents) counted once more on the right digit: a full read, a
 * quarter of the sort of f32 in [0, 1) (perf, one thread, 64K-16M keys).
 * A sample of PS_FIRST_SAMPLE keys gives the top bit that varies in it;
 * the survey counts the digit below that bit plus one, and the count is
 * used when the whole input's top varying bit is no higher (ps_omp_sort
 * checks): a rare key above the sample's top bit (the one float in 30,000
 * of [0, 1) below 2^-15) raises it by one, which the spare bit takes.  The
 * same sample asks what widen asks of the counts, so that skewed keys
 * count their PS_MSD_BITS at once.  Where the sample's top bit is the
 * image's (random integers, keys of both signs), the digit is the old
 * one; the sample stops as soon as it sees that. */
static first_digit plan_first(const ps_omp_ctx *c)
{
    const unsigned w = c->bits;
    const first_digit f0 = { w, msd_bits(c, c->n, 0, w, 0), 0, 0, 0 };
    first_digit f = f0;
    const size_t step = c->n / PS_FIRST_SAMPLE;
    /* The caller's cursors, free until the survey: no tables on a stack
     * that may be the application's smallest. */
    size_t *seen = tls_of(c, 0)->pos, most = 0, fine = 0;
    uint64_t o = 0, a = ~(uint64_t)0, v;
    unsigned i, b, fb;

    if (c->n < PS_FIRST_MIN || is_leaf(c, c->n, 0))
        return f0;
    for (i = 0; i < PS_FIRST_SAMPLE; i++) {
        uint64_t x = image_at(c, 0, i * step);
        o |= x;
        a &= x;
        if ((((o ^ a) >> (w - 1)) & 1) != 0)
            return f0;          /* the top bit varies: the usual digit */
    }
    v = o ^ a;
    if (v == 0)
        return f0;              /* no bit varied in the sample */
    f.top = 65u - (unsigned)__builtin_clzll(v);     /* one bit spare, <= w */
    f.sampled = 1;
    f.spare = (unsigned)(a >> (f.top - 1)) & 1;
    /* Half the sample or more on one value or a few (zipf, a heavy
     * value): such keys' rare large ones, which the sample misses, would
     * leave the counts of a digit below them unused; the image's top
     * digit is the better bet. */
    fb = f.top < PS_MSD_BITS ? f.top : PS_MSD_BITS;
    memset(seen, 0, ((size_t)1 << fb) * sizeof *seen);
    for (i = 0; i < PS_FIRST_SAMPLE; i++) {
        size_t d = (image_at(c, 0, i * step) >> (f.top - fb)) & ((1u << fb) - 1);
        fine = ++seen[d] > fine ? seen[d] : fine;
    }
    if (2 * fine > PS_FIRST_SAMPLE)
        return f0;
    /* The digit the counts would ask for below the sample's top bit, and
     * the spare bit above it. */
    b = msd_bits(c, c->n, 0, f.top - 1, 0);
    f.b = b < PS_MSD_BITS ? b + 1 : b;
    /* Past 8 bits a bucket's share of 256 keys says too little (the
     * counts, through widen, still say it). */
    if (b > 8 || f.top - 1 <= b)
        return f;
    /* widen's question, of the sample: a bucket of 8 times the mean (plus
     * two: the largest of 256 random keys' 256 buckets holds 4 or 5, so
     * random keys stay below 10, while the sixteenth of the keys that
     * floats in [0, 1) put in each of the top 8-bit digits, 16 of the
     * sample, stay above it), and where it holds most of the sample,
     * PS_MSD_BITS bits that cut it by four. */
    memset(seen, 0, ((size_t)1 << b) * sizeof *seen);
    for (i = 0; i < PS_FIRST_SAMPLE; i++) {
        size_t d = (image_at(c, 0, i * step) >> (f.top - 1 - b)) & ((1u << b) - 1);
        most = ++seen[d] > most ? seen[d] : most;
    }
    if (most <= PS_SKEW_WIDEN * (PS_FIRST_SAMPLE >> b) + 2
        || (2 * most > PS_FIRST_SAMPLE && 4 * fine > most))
        return f;
    f.b = msd_bits(c, c->n, 0, f.top, 1);
    f.skew = 1;
    return f;
}

/* After the survey found the bits [lo, hi) that vary: the range the
 * first pass is given and, in *pre_b, the bits of the survey's digit it
 * takes (0: none, it counts again).  An unsampled digit, the image's top
 * one, is used where the image's top bit varies.  A sampled one where no
 * key varies above it: when the spare bit varies too (hi = f.top), as it
 * is; when it does not (hi = f.top - 1, the usual case), the digit is the
 * b - 1 bits below the spare bit, whose counts `drop` (ps_omp_sort) moves
 * down when the spare bit is 1. */
static unsigned first_top(first_digit f, unsigned lo, unsigned hi,
                          unsigned *pre_b, int *drop)
{
    *pre_b = 0;
    *drop = 0;
    if (!f.sampled) {
        if (hi == f.top && f.b <= hi - lo)
            *pre_b = f.b;
        return hi;
    }
    if (hi == f.top && f.b <= hi - lo)
        *pre_b = f.b;
    else if (hi + 1 == f.top && f.b >= 2 && f.b - 1 <= hi - lo) {
        *pre_b = f.b - 1;
        *drop = (int)f.spare;
    }
    return hi;
}

/* The survey's counts of a digit of b + 1 bits whose top bit is 1 in
 * every key, as counts of its low b bits: the upper half moved down. */
static void drop_top_bit(size_t *cnt, unsigned b)
{
    memmove(cnt, cnt + ((size_t)1 << b), ((size_t)1 << b) * sizeof *cnt);
}

/* The whole sort: one read finds the varying bits (bits that never vary
 * need no pass) and counts the first MSD digit, then the MSD passes and
 * the leaves: on this thread alone (no team), or by the team. */
void ps_omp_sort(const ps_omp_ctx *c)
{
    const first_digit f = plan_first(c);
    const unsigned sh0 = f.top - f.b, mask0 = (1u << f.b) - 1;
    unsigned lo, hi, pre_b;
    int drop;
    if (c->team == NULL) {
        ps_omp_tls *tl = tls_of(c, 0);
        if (is_leaf(c, c->n, 0))
            c->kt->survey_leaf(c, c->n, tl->pos, tl->start, c->orand);
        else
            c->kt->survey(c, 0, c->n, sh0, mask0, tl->pos, tl->start,
                          c->orand);
        if (varying(c, 1, &lo, &hi)) {
            hi = first_top(f, lo, hi, &pre_b, &drop);
            if (drop)
                drop_top_bit(tl->pos, pre_b);
            solo(c, tl, 0, 0, c->n, lo, hi, 0, sh0, pre_b,
                 pre_b != 0 && f.skew);
        }
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
        if (varying(c, p.nch, &lo, &hi)) {
            size_t j;
            hi = first_top(f, lo, hi, &pre_b, &drop);
            for (j = 0; drop && j < p.nch; j++)
                drop_top_bit(ccount_of(c, j), pre_b);
            team(c, 0, 0, c->n, lo, hi, 0, sh0, pre_b,
                 pre_b != 0 && f.skew);
        }
    }
}
