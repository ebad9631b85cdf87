/*
 * ps_openmp_leaf-inl.h - the OpenMP backend's leaves: a bucket that the
 * MSD passes left small enough for the caches, finished by one thread,
 * for every key width at once.  leaf chooses among an insertion sort,
 * sorting networks, a split pass and insertion sorts, and LSD passes, by
 * the leaf's size and the bits it has left; pk_leaf finishes a leaf of
 * the packed route (4-byte keys with 4-byte values moved as one word).
 * The loops over keys are the kernels of c->kt (ps_openmp_kernels.c),
 * called a pass or a leaf at a time.
 *
 * Compiled as part of ps_openmp_msd.c, which includes it once, after its
 * helpers (key_at, value_at) and before the recursion that calls leaf
 * and pk_leaf for every bucket: in one unit, the choice of a leaf sort
 * inlines into that recursion.  As a function of its own, each leaf cost
 * a call of about 30 instructions more (saving and restoring registers,
 * seven arguments): the backend ran 1.1% more instructions to sort 1M u32
 * keys in segments of 1 to 199 keys, one leaf a segment, on one thread
 * (valgrind --tool=cachegrind).
 */

/* A leaf of at most this many keys is finished by insertion sort alone
 * (leaf). */
#define PS_TINY_LEAF 16
/* A leaf whose LSD passes would use more than this many counters a key
 * is split instead (leaf). */
#define PS_SPLIT_SPARSE 8
/* net_leaf asks a sample of this many keys whether a leaf of at least
 * PS_SKEW_SAMPLE_MIN keys is skewed (looks_skewed). */
#define PS_SKEW_SAMPLE 32
#define PS_SKEW_SAMPLE_MIN 2048
/* After a leaf whose buckets overflowed the networks' slots by more than
 * a sixteenth of its keys (skewed data), this many more leaves of the
 * same thread skip the networks (slots_excess): the team's leaf phase hands
 * out runs of neighbouring buckets (PS_LEAF_GROUP, ps_openmp_msd.c),
 * which tend to be skewed alike. */
#define PS_NET_SKIP 8

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
 * prefetches (at most m).  The team's leaf phase hands buckets out in
 * runs of 8 (PS_LEAF_GROUP, ps_openmp_msd.c), so that bucket is mostly
 * the same thread's next leaf; its keys and values,
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

/* Whether the m keys of kb bytes at k are all equal (a loop per width:
 * memcmp calls cost a tenth of a sort of duplicated keys). */
#define PS_ALL_EQUAL(T)                                                   \
    do {                                                                  \
        T first, x;                                                       \
        size_t i;                                                         \
        memcpy(&first, k, sizeof first);                                  \
        for (i = 1; i < m; i++) {                                         \
            memcpy(&x, k + i * sizeof x, sizeof x);                       \
            if (x != first)                                               \
                return 0;                                                 \
        }                                                                 \
        return 1;                                                         \
    } while (0)
static int all_equal(const unsigned char *k, size_t m, size_t kb)
{
    switch (kb) {
    case 1: PS_ALL_EQUAL(uint8_t);
    case 2: PS_ALL_EQUAL(uint16_t);
    case 4: PS_ALL_EQUAL(uint32_t);
    default: PS_ALL_EQUAL(uint64_t);
    }
}
#undef PS_ALL_EQUAL

/* One more split pass over a bucket of a split leaf that came out too big
 * for the insertion sort alone (skewed digits: keys whose bytes take few
 * of their 256 values, as ASCII letters do, fill a few buckets in eight
 * of a split on top bits): the m keys at [a, a + m) of array 0, in order
 * by image bits [sh, .), are split by the bits below sh, about a bucket a
 * key, through array 1 (free at [a, a + m) once the leaf's split pass has
 * run) and back, leaving the last disorder to the insertion sort over the
 * leaf.  The counters are the leaf histograms', unused outside lsd_leaf.
 * Against the insertion sort alone, u64 pairs, 1M, 2 threads (Zen 3):
 * keys of 8 random letters 33.7 -> 19.1 ms, a word's first 8 bytes (1-20
 * letters, zero-padded) 30.0 -> 18.3 ms, random keys unchanged (9.9 ms). */
static void resplit(const ps_omp_ctx *c, ps_omp_tls *tl, size_t a, size_t m,
                    unsigned lo, unsigned sh)
{
    const size_t kb = c->bits / 8;
    unsigned b = 1;
    /* A run of equal keys (duplicates) is in order already, and a split
     * would only move it there and back. */
    if (all_equal(key_at(c, 0, a), m, kb))
        return;
    while (b < PS_LEAF_BITS && ((size_t)1 << b) < m)
        b++;
    if (b > sh - lo)
        b = sh - lo;
    (void)c->kt->split(c, key_at(c, 0, a), key_at(c, 1, a), value_at(c, 0, a),
                       value_at(c, 1, a), m, sh - b, (1u << b) - 1, tl->lhist);
    memcpy(key_at(c, 0, a), key_at(c, 1, a), m * kb);
    if (c->vs)
        memcpy(value_at(c, 0, a), value_at(c, 1, a), m * c->vs);
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
            if (cnt <= PS_SPLIT_SMALL || sh == lo)
                continue;
            if ((uint64_t)cnt * cnt > lsd_cost)
                lsd_leaf(c, tl, 0, a + s, cnt, lo, sh);
            else
                resplit(c, tl, a + s, cnt, lo, sh);
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

/* How many keys did the slot pass of a network leaf (net_leaf,
 * pk_net_leaf) put past their bucket's PS_NET_MAX slots?  0: every bucket
 * fits.  off[d] ends bucket d, which starts at d * PS_NET_MAX; *most
 * is the largest bucket's count, *used how many buckets got any. */
static uint32_t slots_excess(const uint32_t *off, unsigned mask,
                             uint32_t *most, unsigned *used)
{
    uint32_t excess = 0;
    unsigned d;
    *most = 0;
    *used = 0;
    for (d = 0; d <= mask; d++) {
        uint32_t cnt = off[d] - d * PS_NET_MAX;
        excess += cnt > PS_NET_MAX ? cnt - PS_NET_MAX : 0;
        *most = cnt > *most ? cnt : *most;
        *used += cnt > 0;
    }
    return excess;
}

/* A network leaf of m keys gave up with `excess` keys past their slots:
 * when more than a sixteenth (skewed data), the thread's next
 * PS_NET_SKIP leaves go to the other leaf sorts without trying. */
static void slots_gave_up(ps_omp_tls *tl, uint32_t excess, size_t m)
{
    if (excess > m / 16)
        tl->net_skip = PS_NET_SKIP;
}

/* Whether the digit of the b bits below hi (sh = hi - b) of the m keys at
 * src looks skewed: one of PS_SKEW_SAMPLE keys spread over them shares
 * its top b' bits with three others, b' = b - 3 but at least 7 (fewer
 * than b, so that a digit's eighth of the keys shows: floats uniform in
 * [0, 1) have half of them in one exponent, 2^(b - 7) digits).  Random
 * keys almost never do (C(32, 4) / 2^(3 b') < 2% at b' = 7, and a false
 * alarm costs a pass more, no error); those it misses overflow the slots
 * and come to the same place a pass later. */
static int looks_skewed(const ps_omp_ctx *c, const unsigned char *src,
                        size_t m, unsigned sh, unsigned b)
{
    unsigned cb = b > 10 ? b - 3 : b > 7 ? 7 : b;
    uint64_t dig[PS_SKEW_SAMPLE], mask = ((uint64_t)1 << cb) - 1;
    unsigned char bin[64];
    unsigned i, j, same;
    sh += b - cb;
    for (i = 0; i < PS_SKEW_SAMPLE; i++) {
        size_t at = m / PS_SKEW_SAMPLE * i;
        uint64_t x;
        if (c->bits == 32)
            x = ps_enc32(((const uint32_t *)(const void *)src)[at], c->xf);
        else
            x = ps_enc64(((const uint64_t *)(const void *)src)[at], c->xf);
        dig[i] = (x >> sh) & mask;
    }
    /* Counted first in 64 bins by their low bits: only a bin of four or
     * more (one leaf of random keys in ten) has its samples compared. */
    memset(bin, 0, sizeof bin);
    for (i = 0; i < PS_SKEW_SAMPLE; i++)
        bin[dig[i] & 63]++;
    for (i = 0; i < PS_SKEW_SAMPLE; i++) {
        if (bin[dig[i] & 63] < 4)
            continue;
        for (same = 0, j = 0; j < PS_SKEW_SAMPLE; j++)
            same += dig[j] == dig[i];
        if (same >= 4)
            return 1;
    }
    return 0;
}

/* net_leaf for a leaf whose slot pass on its top b bits found it skewed,
 * with cnt[d] keys of digit d: most keys in a few digits, as floats of
 * a few exponents are (uniform in [0, 1): half of them in one exponent).
 * Each digit is refined by the fewest bits below it that leave at most
 * the networks' mean a bucket (net_bits), so that the digits of many keys
 * get many buckets and the rest one each, and a second slot pass puts
 * every key in its bucket; the buckets are in key order, as the digits
 * are, so the networks finish it.  Floats in [0, 1), one thread, Zen 5,
 * back to back: 4K and 16K keys 4.7-4.8 -> 2.8-2.9 ns a key (LSD passes
 * before, u32 keys take 1.3).  The map (base << 8 | shift
 * for each digit) lives in tl->lhist, which leaves do not use meanwhile.
 * Returns 0, having written nothing to array 0, when the buckets would
 * not fit the buffer or the slots overflow again (skewed below the digit
 * too): the leaf then takes the other leaf sorts. */
static int map_leaf(const ps_omp_ctx *c, ps_omp_tls *tl, int where, size_t a,
                    size_t m, unsigned lo, unsigned hi, unsigned b,
                    const size_t *cnt)
{
    const size_t avg = 512 / c->bits;
    const unsigned sh = hi - b, mask = (1u << b) - 1;
    uint32_t *map = tl->lhist, *off = tl->split, excess, most;
    size_t nb = 0, t;
    unsigned d, used;

    for (d = 0; d <= mask; d++) {
        unsigned e = 0;
        while (e < sh - lo && e < PS_LEAF_BITS && (cnt[d] >> e) > avg)
            e++;
        map[d] = (uint32_t)(nb << 8) | (sh - e);
        nb += cnt[d] != 0 ? (size_t)1 << e : 0;     /* none when empty */
        if (nb > (size_t)1 << PS_SPLIT_BITS || nb * PS_NET_MAX + m > 9 * m)
            return 0;
    }
    for (t = 0; t < nb; t++)
        off[t] = (uint32_t)(t * PS_NET_MAX);
    c->kt->map_pass(c, key_at(c, where, a), tl->tmp, m, sh, mask, map, off);
    excess = slots_excess(off, (unsigned)(nb - 1), &most, &used);
    if (excess != 0)
        return 0;
    c->kt->net(tl->tmp, key_at(c, 0, a), off, nb, (uint32_t)m, c->xf, c->net);
    return 1;
}

/* A network leaf whose keys are skewed in the digit of b bits below hi,
 * counted in tl->pos: map_leaf, else 0, and the thread's next
 * PS_NET_SKIP leaves skip the networks (as slots_gave_up).  Not mapped
 * when one digit holds a quarter of the keys or more (integers of a few
 * small values, zipf, heavy buckets at every level): below such a digit
 * the keys are as skewed again, the map overflows, and the LSD passes or
 * the split leaf do better (4K u64 keys of the heavy shape: 0.6x when
 * mapped).  Floats are skewed by exponent but spread by mantissa: the
 * top digits of [0, 1) hold a sixteenth each. */
static int skewed_leaf(const ps_omp_ctx *c, ps_omp_tls *tl, int where,
                       size_t a, size_t m, unsigned lo, unsigned hi,
                       unsigned b)
{
    size_t most = 0, d;
    for (d = 0; d < (size_t)1 << b; d++)
        most = tl->pos[d] > most ? tl->pos[d] : most;
    if (4 * most <= m && map_leaf(c, tl, where, a, m, lo, hi, b, tl->pos))
        return 1;
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
 * When a bucket overflows its slot by a few keys (with random keys, about
 * one leaf in 20 at 16K 4-byte keys, one in 8 at 2^24 keys), or the keys
 * fill only part of the buckets, the pass runs again on one bit more;
 * when many keys overflow (skewed data), the leaf goes to the other leaf
 * sorts, which handle skew better than networks do (slots_excess).  The
 * thread's buffer holds the slots and any overflow: at most (2^b - 1) *
 * PS_NET_MAX + m < 9m keys, since net_bits leaves more than 8 4-byte keys
 * and more than 4 8-byte keys a bucket, and a retry is made only while
 * that bound holds.
 *
 * Skewed keys (many in a few digits) go to map_leaf: those a sample
 * shows skewed straight after a count of the digit, the rest after the
 * slot pass overflowed by more than a sixteenth of the keys (it counted
 * every key, slot or not).
 *
 * Returns 1 when it sorted the leaf, else 0, having written nothing to
 * array 0: the leaf goes to the other leaf sorts. */
static int net_leaf(const ps_omp_ctx *c, ps_omp_tls *tl, int where, size_t a,
                    size_t m, unsigned lo, unsigned hi)
{
    const size_t kb = c->bits / 8;
    unsigned char *k0 = key_at(c, 0, a), *src = key_at(c, where, a);
    unsigned b = net_bits(m, 512 / c->bits), sh, mask, d, used;
    uint32_t *off = tl->split, excess, most;

    if (where != 0)     /* the networks write array 0: warm it */
        prefetch_for_write(k0, m * kb);
    if (m >= PS_SKEW_SAMPLE_MIN && looks_skewed(c, src, m, hi - b, b)) {
        c->kt->hist(c, where, a, a + m, hi - b, (1u << b) - 1, tl->pos);
        return skewed_leaf(c, tl, where, a, m, lo, hi, b);
    }
    for (;;) {
        sh = hi - b;
        mask = (1u << b) - 1;
        for (d = 0; d <= mask; d++)
            off[d] = d * PS_NET_MAX;
        /* The pass leaves off[d] at the end of bucket d, and prefetches
         * the next leaf as an LSD leaf's last pass does. */
        c->kt->leaf_pass(c, src, tl->tmp, NULL, NULL, m, sh, mask, off,
                         src + m * kb, k0 + m * kb, next_span(c, a, m));
        excess = slots_excess(off, mask, &most, &used);
        if (excess == 0)
            break;
        /* Once more on one bit more, half as many keys a bucket, when a
         * few keys are over (random data now and then: a bucket of twice
         * the mean, one leaf in 20 at 16K 4-byte keys, one in 8 at 2^24),
         * or when the keys left a quarter of the buckets empty and no
         * bucket got more than twice its slot: a range that ends just past
         * a power of two, as the smallest half of random keys (top-k's
         * candidates) does, fills half of the buckets with twice the mean
         * (10^5 such segments of 500 u32 keys: 3.0 -> 1.0 ns a key).
         * Retrying on every bucket within twice its slot cost random f32
         * keys 15% (their buckets by exponent).  Skewed data overflows by
         * more and goes to the LSD passes, which cost 2.6 times the slot
         * pass and networks (32K u32 keys: 3.4 against 1.3 ns a key, Zen
         * 5).  The buffer must hold the slots and the keys. */
        if ((excess > m / 64
             && (4 * used > 3 * (mask + 1) || most > 2 * PS_NET_MAX))
            || b >= PS_LEAF_BITS || hi - lo <= b + 1
            || ((size_t)2 << b) * PS_NET_MAX + m > 9 * m) {
            if (excess <= m / 16) {
                slots_gave_up(tl, excess, m);
                return 0;
            }
            for (d = 0; d <= mask; d++)
                tl->pos[d] = off[d] - d * PS_NET_MAX;
            return skewed_leaf(c, tl, where, a, m, lo, hi, b);
        }
        b++;
    }
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
        else if (net_leaf(c, tl, where, a, m, lo, hi))
            return;
    }
    if (m > 1 && hi - lo > 3 * PS_LEAF_BITS
        && m <= ((size_t)2 << PS_SPLIT_BITS))
        split_leaf(c, tl, where, a, m, lo, hi, m == c->n ? m / 2 : m + m / 2);
    else if (m == c->n && m > 1 && hi > lo && lsd_counters(hi - lo) > 2 * m)
        /* A whole sort of a few thousand keys: two keys a bucket and one
         * insertion sort suit keys alone; with values, each key that sinks
         * moves its values with a memmove too, and a key a bucket with the
         * bubble pass was twice as fast (u32 pairs of 300-2000: 9.6-11.6
         * -> 4.1-8.1 ns a key; 10^5 segments of 1000: 536 -> 246 ms; Zen 5). */
        split_leaf(c, tl, where, a, m, lo, hi, c->vs != 0 ? m + m / 2 : m / 2);
    else if (hi > lo && lsd_counters(hi - lo) > PS_SPLIT_SPARSE * m)
        split_leaf(c, tl, where, a, m, lo, hi, m + m / 2);
    else
        lsd_leaf(c, tl, where, a, m, lo, hi);
}

/* ---- packed leaves (4-byte keys with 4-byte values) -------------------- */

/* pk_leaf with sorting networks (c->pk_net; ps_openmp_net.h): one pass on
 * the top bits, 4 to 8 elements a bucket, into slots of PS_NET_MAX in the
 * thread's buffer, no counting (as net_leaf), then each bucket sorted
 * stably by a network on 64-bit lanes and unpacked into the caller's
 * arrays.  Returns 0, having written nothing but the buffer, when it does
 * not apply: the key bits below the digit must fit the 27 bits of a lane's
 * sort key, and a bucket that overflows its slot (skewed data) sends the
 * leaf, and maybe the thread's next ones (slots_excess), to the LSD passes.
 * The buffer holds at most (2^b - 1) * PS_NET_MAX + m < 9m elements, since
 * net_bits leaves more than 4 a bucket. */
static int pk_net_leaf(const ps_omp_ctx *c, ps_omp_tls *tl, size_t a,
                       size_t m, unsigned lo, unsigned hi)
{
    const ps_omp_packed *pk = c->kt->packed;
    const uint64_t *e = (const uint64_t *)c->k[1] + a;
    uint64_t *buf = (uint64_t *)(void *)tl->tmp;
    unsigned b = net_bits(m, 8), sh = hi - b, mask = (1u << b) - 1, d, used;
    uint32_t *off = tl->split, excess, most;

    if (m <= PS_NET_MAX || m > c->leaf_cap || hi - lo <= b || sh > 27)
        return 0;
    if (tl->net_skip > 0) {
        tl->net_skip--;
        return 0;
    }
    for (d = 0; d <= mask; d++)
        off[d] = d * PS_NET_MAX;
    pk->pass(c, e, buf, m, sh, mask, off, e + m, next_span(c, a, m));
    excess = slots_excess(off, mask, &most, &used);
    if (excess != 0) {
        slots_gave_up(tl, excess, m);
        return 0;
    }
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
