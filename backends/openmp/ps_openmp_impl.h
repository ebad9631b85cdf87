/*
 * ps_openmp_impl.h - the OpenMP radix sort for one key width.  Included by
 * ps_openmp.c once per width with PS_W defined to 8, 16, 32 or 64, after
 * the width-independent context (omp_ctx, omp_tls) and helpers.
 *
 * Shape: MSD passes over arrays too large for the caches, LSD passes inside
 * each bucket once it fits in cache.  Every pass is a stable counting
 * scatter, so the whole sort is stable.  Keys move as their original bits;
 * digits are computed from the order image on the fly (see ps_backend.h),
 * so nothing is transformed back.
 */
#define PS_CAT_(a, b) a##b
#define PS_CAT(a, b) PS_CAT_(a, b)
#define KEY_T PS_CAT(PS_CAT(uint, PS_W), _t)
#define ENC PS_CAT(ps_enc, PS_W)
#define FN(name) PS_CAT(name, PS_W)
/* Elements per write-combining unit: PS_UNIT_BYTES of keys, or of values
 * when they are wider (a constant wherever vs is). */
#define LINE (PS_UNIT_BYTES / (vs > PS_W / 8 ? vs : PS_W / 8))


/* The order image of k.  fl is a constant at every call site: 0 when the
 * type is not a float, so that the image is a single xor (flip). */
static inline __attribute__((always_inline)) KEY_T
FN(img)(KEY_T k, ps_xf xf, const int fl)
{
    return fl ? ENC(k, xf) : (KEY_T)(k ^ (KEY_T)xf.flip);
}

/* Call F(args..., vs, fl) with vs and fl as constants, so that each hot
 * loop is compiled once per value size and transform kind.  Value sizes
 * are 0, 4 and 8 (PS_OPENMP_VALUE_SIZES in ps_openmp.c): "default" is 8, and tmp[8] below holds one value. */
#define VS_FL(c, F, ...)                                                     \
    do {                                                                     \
        int fl_ = (c)->xf.fneg != 0;                                         \
        switch ((c)->vs) {                                                   \
        case 0: if (fl_) F(__VA_ARGS__, 0, 1); else F(__VA_ARGS__, 0, 0); break; \
        case 4: if (fl_) F(__VA_ARGS__, 4, 1); else F(__VA_ARGS__, 4, 0); break; \
        default: if (fl_) F(__VA_ARGS__, 8, 1); else F(__VA_ARGS__, 8, 0); break; \
        }                                                                    \
    } while (0)

/* 16 bytes of keys, for the OR and AND of the survey (GCC's generic
 * vectors: an SSE2 or NEON register, scalar code elsewhere). */
typedef KEY_T FN(kvec) __attribute__((vector_size(16)));
#define KVEC_N (16 / sizeof(KEY_T))

/* The first read of the keys: which bits of the image vary at all, and, in
 * the same pass, the histogram of the digit (sh, mask) that the first MSD
 * pass uses when the top bit varies.  Leaves in orand the OR and AND of
 * every image, or, when the image is a plain xor (fl = 0), of every key,
 * whose bits vary exactly where the image's do.
 *
 * Why the shape: done key by key, the OR and AND cost a third of the loop
 * (1.9 cycles a key against 1.3 for the counting alone), so for fl = 0
 * they run on vectors; and alternate keys count into two tables (cnt and
 * cnt2, summed at the end), so that consecutive increments do not wait
 * for each other.  Together 1.4 cycles a key (microbenchmark, u32). */
static inline __attribute__((always_inline)) void
FN(survey_body)(const omp_ctx *c, size_t a, size_t b, unsigned sh,
                unsigned mask, size_t *cnt, size_t *cnt2, uint64_t *orand,
                const int fl, const int count)
{
    const KEY_T *keys = (const KEY_T *)c->k[0];
    const ps_xf xf = c->xf;     /* a local: the counts' stores may alias c */
    KEY_T o = 0, n = (KEY_T)~(KEY_T)0;
    size_t i = a, l;
    unsigned d;
    memset(cnt, 0, ((size_t)mask + 1) * sizeof *cnt);
    memset(cnt2, 0, ((size_t)mask + 1) * sizeof *cnt2);
    if (!fl) {
        FN(kvec) vo = {0}, vn = ~vo;
        for (; i + KVEC_N <= b; i += KVEC_N) {
            FN(kvec) x;
            memcpy(&x, keys + i, sizeof x);
            vo |= x;
            vn &= x;
            if (!count)
                continue;
#pragma GCC unroll 16
            for (l = 0; l < KVEC_N; l += 2) {
                cnt[(FN(img)(keys[i + l], xf, 0) >> sh) & mask]++;
                cnt2[(FN(img)(keys[i + l + 1], xf, 0) >> sh) & mask]++;
            }
        }
#pragma GCC unroll 16
        for (l = 0; l < KVEC_N; l++) {
            o |= vo[l];
            n &= vn[l];
        }
    }
    for (; i < b; i++) {
        KEY_T t = FN(img)(keys[i], xf, fl);
        o |= fl ? t : keys[i];
        n &= fl ? t : keys[i];
        if (count)
            (i & 1 ? cnt2 : cnt)[(t >> sh) & mask]++;
    }
    for (d = 0; d <= mask; d++)
        cnt[d] += cnt2[d];
    orand[0] = o;
    orand[1] = n;
}

static void FN(survey)(const omp_ctx *c, size_t a, size_t b, unsigned sh,
                       unsigned mask, size_t *cnt, size_t *cnt2,
                       uint64_t *orand)
{
    if (c->xf.fneg != 0)
        FN(survey_body)(c, a, b, sh, mask, cnt, cnt2, orand, 1, 1);
    else
        FN(survey_body)(c, a, b, sh, mask, cnt, cnt2, orand, 0, 1);
}

/* The survey of an input that is a single leaf: its OR and AND only (the
 * counts, all zero, are not used).  At 1000 u32 keys the counting took
 * a tenth of the sort. */
static void FN(survey_leaf)(const omp_ctx *c, size_t n, size_t *cnt,
                            size_t *cnt2, uint64_t *orand)
{
    if (c->xf.fneg != 0)
        FN(survey_body)(c, 0, n, 0, 0, cnt, cnt2, orand, 1, 0);
    else
        FN(survey_body)(c, 0, n, 0, 0, cnt, cnt2, orand, 0, 0);
}

/* Histogram of digit (sh, mask) of positions [a, b) of array `where`. */
static inline __attribute__((always_inline)) void
FN(hist_body)(const omp_ctx *c, int where, size_t a, size_t b, unsigned sh,
              unsigned mask, size_t *cnt, const int fl)
{
    const KEY_T *keys = (const KEY_T *)c->k[where];
    const ps_xf xf = c->xf;
    size_t i;
    memset(cnt, 0, ((size_t)mask + 1) * sizeof *cnt);
    for (i = a; i < b; i++)
        cnt[(FN(img)(keys[i], xf, fl) >> sh) & mask]++;
}

static void FN(hist)(const omp_ctx *c, int where, size_t a, size_t b,
                     unsigned sh, unsigned mask, size_t *cnt)
{
    if (c->xf.fneg != 0)
        FN(hist_body)(c, where, a, b, sh, mask, cnt, 1);
    else
        FN(hist_body)(c, where, a, b, sh, mask, cnt, 0);
}

/* Write the last `take` elements of bucket d's current line, which holds
 * `fill` elements and ends at index hi, to array `to`.  A whole line that
 * is ours goes out with streaming stores, which skip the
 * read-for-ownership and leave the caches to the buffers; a partial line
 * (shared with another thread's or bucket's range) is copied with ordinary
 * stores.  Counting back from hi keeps every index in range: the line's
 * first index may lie before the array. */
static inline __attribute__((always_inline)) void
FN(flush)(const omp_ctx *c, omp_tls *tl, int to, unsigned d, size_t hi,
          size_t take, size_t fill, const size_t vs)
{
    KEY_T *kl = (KEY_T *)(void *)tl->kline + (size_t)d * LINE;
    KEY_T *dst = (KEY_T *)c->k[to];
    size_t lo = hi - take, off = fill - take;
    if (take == LINE && (c->stream[to] & 1))
        ps_stream_bytes(dst + lo, kl, LINE * sizeof(KEY_T));
    else
        memcpy(dst + lo, kl + off, take * sizeof(KEY_T));
    if (vs) {
        unsigned char *vl = tl->vline + (size_t)d * LINE * vs;
        unsigned char *vdst = c->v[to] + lo * vs;
        if (take == LINE && (c->stream[to] & 2))
            ps_stream_bytes(vdst, vl, LINE * vs);
        else
            memcpy(vdst, vl + off * vs, take * vs);
    }
}

/* Stable scatter of positions [a, b) of array `from` by digit (sh, mask)
 * into the other array, bucket d starting at tl->pos[d] (advanced as keys
 * are written; tl->start[d] keeps where this caller's part of bucket d
 * begins).  Keys go through one line buffer per bucket (software
 * write-combining): the 2^bits write streams of a plain scatter alias in the
 * caches and the TLB, worst at power-of-two sizes, while a buffer line fills
 * in L1 and leaves as one 64-byte write.  Lines are aligned to the
 * destination's real 64-byte lines (c->shift), so that whole lines can be
 * streamed. */
static inline __attribute__((always_inline)) void
FN(scatter_body)(const omp_ctx *c, omp_tls *tl, int from, size_t a, size_t b,
                 unsigned sh, unsigned mask, const size_t vs, const int fl)
{
    const KEY_T *src = (const KEY_T *)c->k[from];
    const unsigned char *vsrc = c->v[from];
    KEY_T *kl = (KEY_T *)(void *)tl->kline;
    unsigned char *vl = tl->vline;
    size_t *pos = tl->pos, *start = tl->start;
    const size_t kshift = c->shift[1 - from];
    const ps_xf xf = c->xf;
    unsigned d;
    size_t i;

    /* The cursors run kshift ahead while the keys go out, which spares the
     * loop an add per key. */
    for (d = 0; d <= mask; d++)
        pos[d] += kshift;
#define PS_SCATTER_ONE(k, d, i)                                              \
    do {                                                                     \
        size_t q = pos[d]++, slot = q & (LINE - 1);                          \
        kl[(size_t)(d) * LINE + slot] = (k);                                 \
        if (vs)                                                              \
            memcpy(vl + ((size_t)(d) * LINE + slot) * vs, vsrc + (i) * vs, vs); \
        if (slot == LINE - 1) {                                              \
            size_t end = q + 1 - kshift, ours = end - start[d];              \
            FN(flush)(c, tl, 1 - from, d, end, ours < LINE ? ours : LINE,    \
                      LINE, vs);                                             \
        }                                                                    \
    } while (0)
    /* Digits first, 16 at a time: gcc turns that loop into vector code,
     * which frees the scatter loop of the shift, the mask and the flip and
     * of the registers they hold (u32 at 16M 3-5% faster, one and two
     * threads; u64 the same). */
    for (i = a; i + 16 <= b; i += 16) {
        uint32_t dg[16];
        unsigned j;
        for (j = 0; j < 16; j++)
            dg[j] = (uint32_t)((FN(img)(src[i + j], xf, fl) >> sh) & mask);
        for (j = 0; j < 16; j++) {
            d = dg[j];
            PS_SCATTER_ONE(src[i + j], d, i + j);
        }
    }
    for (; i < b; i++) {
        KEY_T k = src[i];
        d = (unsigned)((FN(img)(k, xf, fl) >> sh) & mask);
        PS_SCATTER_ONE(k, d, i);
    }
#undef PS_SCATTER_ONE
    /* What is left in every bucket's last, partial line. */
    for (d = 0; d <= mask; d++) {
        size_t end = pos[d] -= kshift, fill = (end + kshift) & (LINE - 1);
        size_t ours = end - start[d];
        if (fill > 0 && ours > 0)
            FN(flush)(c, tl, 1 - from, d, end, ours < fill ? ours : fill,
                      fill, vs);
    }
    ps_stream_fence();
}

static void FN(scatter)(const omp_ctx *c, omp_tls *tl, int from, size_t a,
                        size_t b, unsigned sh, unsigned mask)
{
    VS_FL(c, FN(scatter_body), c, tl, from, a, b, sh, mask);
}

/* Element i of an LSD pass: to its digit's next place in dst. */
static inline __attribute__((always_inline)) void
FN(leaf_move)(const KEY_T *src, KEY_T *dst, const unsigned char *vsrc,
              unsigned char *vdst, size_t i, ps_xf xf, unsigned sh,
              unsigned mask, uint32_t *off, const size_t vs, const int fl)
{
    KEY_T k = src[i];
    uint32_t o = off[(FN(img)(k, xf, fl) >> sh) & mask]++;
    dst[o] = k;
    if (vs)
        memcpy(vdst + (size_t)o * vs, vsrc + i * vs, vs);
}

/* One LSD pass over a cache-resident bucket: a plain scatter, since the
 * destination is in cache and write-combining would only add work.
 *
 * While i < npf, the pass prefetches the next bucket (next_span) a line at
 * a time: its keys from pf + i into L2, and the lines of pw + i, which its
 * last pass will write, for writing.  Those steps take a line of keys
 * each, unrolled, so that the plain loop keeps no test per key (with one,
 * u32 leaves ran 6-10% slower). */
static inline __attribute__((always_inline)) void
FN(leaf_pass_body)(const KEY_T *src, KEY_T *dst, const unsigned char *vsrc,
                   unsigned char *vdst, size_t m, ps_xf xf, unsigned sh,
                   unsigned mask, uint32_t *off, const KEY_T *pf, KEY_T *pw,
                   size_t npf, const size_t vs, const int fl)
{
    const size_t line = 64 / sizeof(KEY_T);
    size_t i = 0, j;
    for (; i < npf && i + line <= m; i += line) {
        __builtin_prefetch(pf + i, 0, 2);
        __builtin_prefetch(pw + i, 1, 2);
#pragma GCC unroll 16
        for (j = 0; j < line; j++)
            FN(leaf_move)(src, dst, vsrc, vdst, i + j, xf, sh, mask, off, vs,
                          fl);
    }
    for (; i < m; i++)
        FN(leaf_move)(src, dst, vsrc, vdst, i, xf, sh, mask, off, vs, fl);
}

/* Count the np digits of w bits of t, lowest first, into the np tables of
 * h (1 << w counters each).  t has no bits above its top digit, which so
 * needs no mask.  Two and three digits are written out: as a loop over
 * j, even with np constant, gcc kept variable shifts and a loop counter,
 * and 16K-key sorts (three digits) ran 25-40% slower. */
static inline __attribute__((always_inline)) void
FN(count_digits)(uint32_t *h, KEY_T t, unsigned w, unsigned mask,
                 const unsigned np)
{
    unsigned j;
    if (np == 2) {
        h[t & mask]++;
        h[((size_t)1 << w) + (t >> w)]++;
    } else if (np == 3) {
        h[t & mask]++;
        h[((size_t)1 << w) + ((t >> w) & mask)]++;
        h[((size_t)2 << w) + (t >> (2 * w))]++;
    } else {
        for (j = 0; j < np; j++)
            h[((size_t)j << w) + ((t >> (j * w)) & mask)]++;
    }
}

/* Histograms of the leaf digits (np digits of w bits from bit lo, the last
 * one ending at hi) of keys[0, m), in one read.  Bits from hi up belong to
 * MSD digits already sorted on: masked off, so the last digit counts only
 * its own bits.  (Two tables for alternate keys, as in the survey, made
 * u32 at 16M 9% slower here: the second set crowds the leaf out of L1.) */
static inline __attribute__((always_inline)) void
FN(leaf_hist_body)(const omp_ctx *c, const KEY_T *keys, size_t m,
                   unsigned lo, unsigned hi, unsigned w, const unsigned np,
                   uint32_t *h, const int fl)
{
    unsigned mask = (1u << w) - 1;
    KEY_T below = (KEY_T)(hi >= PS_W ? ~(KEY_T)0 : (KEY_T)(((KEY_T)1 << hi) - 1));
    const ps_xf xf = c->xf;
    size_t i;
    memset(h, 0, (size_t)np * ((size_t)mask + 1) * sizeof *h);
    for (i = 0; i < m; i++)
        FN(count_digits)(h, (KEY_T)((FN(img)(keys[i], xf, fl) & below) >> lo),
                         w, mask, np);
}

static void FN(lsd_leaf)(const omp_ctx *c, omp_tls *tl, int where, size_t a,
                         size_t m, unsigned lo, unsigned hi);

/* Counts of digit (sh, mask) over keys[0, m), into h (mask + 1 counters). */
static inline __attribute__((always_inline)) void
FN(split_hist_body)(const KEY_T *keys, size_t m, ps_xf xf, unsigned sh,
                    unsigned mask, uint32_t *h, const int fl)
{
    size_t i;
    memset(h, 0, ((size_t)mask + 1) * sizeof *h);
    for (i = 0; i < m; i++)
        h[(FN(img)(keys[i], xf, fl) >> sh) & mask]++;
}

/* Move the element at position i (key x, image ex) down past every key
 * of k[0, i) whose image is greater (only greater ones: stable). */
static inline __attribute__((always_inline)) void
FN(sink)(KEY_T *k, unsigned char *v, size_t i, KEY_T x, KEY_T ex, ps_xf xf,
         const size_t vs, const int fl)
{
    size_t j;
    for (j = i; j > 0 && FN(img)(k[j - 1], xf, fl) > ex; j--)
        k[j] = k[j - 1];
    k[j] = x;
    if (vs) {
        unsigned char tmp[8];
        memcpy(tmp, v + i * vs, vs);
        memmove(v + (j + 1) * vs, v + j * vs, (i - j) * vs);
        memcpy(v + j * vs, tmp, vs);
    }
}

/* Insertion sort of k[0, m), values alongside, for an array whose keys
 * mostly stand after a key no greater: a load, a compare and a branch a
 * key while they do. */
static inline __attribute__((always_inline)) void
FN(insert_body)(KEY_T *k, unsigned char *v, size_t m, ps_xf xf,
                const size_t vs, const int fl)
{
    KEY_T prev = FN(img)(k[0], xf, fl);
    size_t i;
    for (i = 1; i < m; i++) {
        KEY_T x = k[i], ex = FN(img)(x, xf, fl);
        if (__builtin_expect(ex >= prev, 1))
            prev = ex;      /* else prev stays: k[i] is still the greatest */
        else
            FN(sink)(k, v, i, x, ex, xf, vs, fl);
    }
}

/* The same result in another way: one forward bubble pass, without
 * branches, fused with an insertion sort.  c is the greatest key so far;
 * each new key y sends the smaller of c and y to the sorted prefix, where
 * it mostly stands (a bucket of two keys needs nothing more); the rare key
 * smaller than the prefix's last one sinks.  Ties keep their order: c
 * leaves before an equal y, and a key sinks only past greater ones.
 *
 * On the way, the next bucket (next_span: npf keys from pf, values from
 * pv) is prefetched into L2, and so are the lines its pass will write,
 * just after k and v: the chain leaves load slots to spare, while the
 * next leaf would otherwise start with reads from DRAM and writes that
 * need their lines read first. */
static inline __attribute__((always_inline)) void
FN(bubble_body)(KEY_T *k, unsigned char *v, size_t m, ps_xf xf,
                const KEY_T *pf, const unsigned char *pv, size_t npf,
                const size_t vs, const int fl)
{
    KEY_T c = k[0], ec = FN(img)(c, xf, fl), elast = 0;
    uint64_t cv = 0;
    size_t i;
    if (vs)
        memcpy(&cv, v, vs);
    for (i = 1; i < m; i++) {
        KEY_T y = k[i], ey = FN(img)(y, xf, fl);
        if ((i & (64 / sizeof(KEY_T) - 1)) == 0 && i < npf) {
            __builtin_prefetch(pf + i, 0, 2);
            __builtin_prefetch(k + m + i, 1, 2);
            if (vs) {
                __builtin_prefetch(pv + i * vs, 0, 2);
                __builtin_prefetch(v + (m + i) * vs, 1, 2);
            }
        }
        /* All ones to swap, else zero: xor-swapping under a mask keeps the
         * compiler from turning a 50/50 choice into a branch. */
        KEY_T sw = (KEY_T)0 - (KEY_T)(ec > ey);
        KEY_T t = (c ^ y) & sw, et = (ec ^ ey) & sw;
        KEY_T lo = c ^ t, elo = ec ^ et;
        c = y ^ t;
        ec = ey ^ et;
        k[i - 1] = lo;
        if (vs) {   /* values may be unaligned: memcpy compiles to moves */
            uint64_t yv = 0, tv;
            memcpy(&yv, v + i * vs, vs);
            tv = (cv ^ yv) & ((uint64_t)0 - (uint64_t)(sw & 1));
            cv ^= tv;
            memcpy(v + (i - 1) * vs, &cv, vs);
            cv = yv ^ tv;
        }
        if (__builtin_expect(elast <= elo, 1))
            elast = elo;    /* else the prefix's last key stays last */
        else
            FN(sink)(k, v, i - 1, lo, elo, xf, vs, fl);
    }
    k[m - 1] = c;
    if (vs)
        memcpy(v + (m - 1) * vs, &cv, vs);
}

/* Finish the split leaf k[0, m) (at position a), whose buckets (bucket d
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
 * insertion sort was 10-20% faster.  pf and pv: where the next bucket's
 * keys and values lie (next_span). */
static inline __attribute__((always_inline)) void
FN(finish_buckets)(const omp_ctx *c, omp_tls *tl, KEY_T *k, unsigned char *v,
                   size_t a, size_t m, unsigned lo, unsigned hi, unsigned mask,
                   int skewed, const KEY_T *pf, const unsigned char *pv,
                   const size_t vs, const int fl)
{
    if (skewed) {
        /* A bucket of more than PS_SPLIT_SMALL keys is left to the
         * insertion sort while that (about cnt^2 / 4 moves) costs less
         * than the counters the LSD passes would clear and sum: a few
         * distinct values spread over the range (100 in 1000 keys) fill
         * buckets of 20-100 keys, and LSD passes over each of them ran 7x
         * slower than passes over the whole leaf. */
        const uint64_t lsd_cost = 4 * (uint64_t)lsd_counters(hi - lo);
        const uint32_t *end = tl->split;
        uint32_t s = 0;
        unsigned d;
        for (d = 0; d <= mask; s = end[d++]) {
            uint32_t cnt = end[d] - s;
            if (cnt > PS_SPLIT_SMALL && (uint64_t)cnt * cnt > lsd_cost)
                FN(lsd_leaf)(c, tl, 0, a + s, cnt, lo, hi);
        }
    }
    if (m < 2)
        return;
    if (m > (size_t)mask + 1 + (mask + 1) / 2)
        FN(insert_body)(k, v, m, c->xf, vs, fl);
    else
        FN(bubble_body)(k, v, m, c->xf, pf, pv, next_span(c, a, m), vs, fl);
}

/* A leaf with many bits left for its few keys (FN(leaf) says when): one
 * pass on its top bits, at most PS_SPLIT_BITS and at most `most` buckets,
 * already leaves a key or two per bucket, so the buckets are finished by
 * insertion sort instead of passes over the bits below.  A bucket too big
 * for that (skewed data) is a leaf of its own.  The data first moves to
 * array 1 (when it is in array 0), so that the pass ends in array 0. */
static void FN(split_leaf)(const omp_ctx *c, omp_tls *tl, int where,
                           size_t a, size_t m, unsigned lo, unsigned hi,
                           size_t most)
{
    const size_t vs = c->vs;
    KEY_T *k0 = (KEY_T *)c->k[0] + a, *k1 = (KEY_T *)c->k[1] + a;
    unsigned char *v0 = vs ? c->v[0] + a * vs : NULL;
    unsigned char *v1 = vs ? c->v[1] + a * vs : NULL;
    unsigned b = PS_SPLIT_BITS, sh, mask, d;
    /* The counts, then the running offsets, which the pass leaves at the
     * buckets' ends for finish_buckets (whose LSD leaves use lhist). */
    uint32_t *off = tl->split, sum = 0, big = 0;
    const int fl = c->xf.fneg != 0;

    /* About as many buckets as keys: 2^b at most `most` (FN(leaf)), and
     * no more bits than are left. */
    while (b > 1 && ((size_t)1 << b) > most)
        b--;
    if (b > hi - lo)
        b = hi - lo;
    sh = hi - b;
    mask = (1u << b) - 1;

    if (where == 0) {
        memcpy(k1, k0, m * sizeof(KEY_T));
        if (vs)
            memcpy(v1, v0, m * vs);
    } else {
        prefetch_for_write(k0, m * sizeof(KEY_T));
        if (vs)
            prefetch_for_write(v0, m * vs);
    }
    if (fl)
        FN(split_hist_body)(k1, m, c->xf, sh, mask, off, 1);
    else
        FN(split_hist_body)(k1, m, c->xf, sh, mask, off, 0);
    /* big, the OR of the counts, exceeds PS_SPLIT_SMALL when a count does
     * (and sometimes when none does: then finish_buckets looks in vain). */
    for (d = 0; d <= mask; d++) {
        uint32_t cnt = off[d];
        off[d] = sum;
        sum += cnt;
        big |= cnt;
    }
    VS_FL(c, FN(leaf_pass_body), k1, k0, v1, v0, m, c->xf, sh, mask, off,
          NULL, NULL, 0);
    VS_FL(c, FN(finish_buckets), c, tl, k0, v0, a, m, lo, sh, mask,
          big > PS_SPLIT_SMALL, (const KEY_T *)c->k[where] + a + m,
          vs ? c->v[where] + (a + m) * vs : NULL);
}

/* Sort positions [a, a + m) of array `where` by image bits [lo, hi) with
 * LSD passes of at most PS_LEAF_BITS bits, and leave the result in array 0
 * (the caller's).  m < 2^32.  A leaf of at most leaf_cap elements may also
 * pass through the thread's own buffer (tl->tmp), which lets any number of
 * passes from 2 up end in array 0 without a final copy. */
static void FN(lsd_leaf)(const omp_ctx *c, omp_tls *tl, int where, size_t a,
                         size_t m, unsigned lo, unsigned hi)
{
    uint32_t *h = tl->lhist, *off = tl->loff;
    unsigned sh[PS_MAX_LEAF_DIGITS], mask[PS_MAX_LEAF_DIGITS];
    unsigned np = 0, p = 0, w = 0, i;
    int path[PS_MAX_LEAF_DIGITS + 1];
    KEY_T *karr[3];
    unsigned char *varr[3];

    if (m > 1 && hi > lo) {
        unsigned nb = hi - lo, j;
        const KEY_T *keys = (const KEY_T *)c->k[where] + a;
        np = (nb + PS_LEAF_BITS - 1) / PS_LEAF_BITS;
        w = (nb + np - 1) / np;
        if (where != 0) {   /* the last pass writes array 0: warm it */
            prefetch_for_write((KEY_T *)c->k[0] + a, m * sizeof(KEY_T));
            if (c->vs)
                prefetch_for_write(c->v[0] + a * c->vs, m * c->vs);
        }
        /* np as a constant lets the compiler unroll the digit loop. */
        switch (np * 2 + (c->xf.fneg != 0)) {
        case 2: FN(leaf_hist_body)(c, keys, m, lo, hi, w, 1, h, 0); break;
        case 3: FN(leaf_hist_body)(c, keys, m, lo, hi, w, 1, h, 1); break;
        case 4: FN(leaf_hist_body)(c, keys, m, lo, hi, w, 2, h, 0); break;
        case 5: FN(leaf_hist_body)(c, keys, m, lo, hi, w, 2, h, 1); break;
        case 6: FN(leaf_hist_body)(c, keys, m, lo, hi, w, 3, h, 0); break;
        case 7: FN(leaf_hist_body)(c, keys, m, lo, hi, w, 3, h, 1); break;
        default:
            if (c->xf.fneg != 0)
                FN(leaf_hist_body)(c, keys, m, lo, hi, w, np, h, 1);
            else
                FN(leaf_hist_body)(c, keys, m, lo, hi, w, np, h, 0);
            break;
        }
        /* Keep the digits that vary; move their histograms to the front. */
        for (j = 0; j < np; j++) {
            unsigned s0 = lo + j * w, bits = hi - s0 < w ? hi - s0 : w;
            unsigned mk = (1u << bits) - 1;
            const uint32_t *hj = h + ((size_t)j << w);
            if (hj[(ENC(keys[0], c->xf) >> s0) & mk] == m)
                continue;   /* the same digit everywhere: order unchanged */
            if (p != j)
                memcpy(h + ((size_t)p << w), hj, ((size_t)mk + 1) * sizeof *h);
            sh[p] = s0;
            mask[p] = mk;
            p++;
        }
    }
    /* Choose the arrays each pass goes through: 0 and 1 alternate, and 2
     * (the thread's buffer) stands in wherever alternation alone would end
     * in array 1. */
    karr[0] = (KEY_T *)c->k[0] + a;
    karr[1] = (KEY_T *)c->k[1] + a;
    karr[2] = (KEY_T *)(void *)tl->tmp;
    varr[0] = c->vs ? c->v[0] + a * c->vs : NULL;
    varr[1] = c->vs ? c->v[1] + a * c->vs : NULL;
    varr[2] = c->vs ? tl->tmp + round64(c->leaf_cap * sizeof(KEY_T)) : NULL;
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
        unsigned mk = mask[i], d;
        const uint32_t *hi_ = h + ((size_t)i << w);
        uint32_t sum = 0;
        for (d = 0; d <= mk; d++) {
            off[d] = sum;
            sum += hi_[d];
        }
        VS_FL(c, FN(leaf_pass_body), karr[path[i]], karr[path[i + 1]],
              varr[path[i]], varr[path[i + 1]], m, c->xf, sh[i], mk, off,
              (const KEY_T *)c->k[where] + a + m, (KEY_T *)c->k[0] + a + m,
              i + 1 == p ? next_span(c, a, m) : 0);
    }
    if (path[p] != 0 && m > 0) {
        memcpy(karr[0], karr[path[p]], m * sizeof(KEY_T));
        if (c->vs)
            memcpy(varr[0], varr[path[p]], m * c->vs);
    }
}

#if (PS_W == 32 || PS_W == 64) && defined(PS_HAVE_AVX512_TARGET)

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
 * other leaf sorts: they handle skewed data better than networks do.
 * When the overflow is large (skewed data: more than m / 16 keys past
 * their slots), the thread's next PS_NET_SKIP leaves go there directly,
 * without a pass that would be wasted again (FN(leaf)).  The thread's
 * buffer holds the slots and any overflow: at most
 * (2^b - 1) * PS_NET_MAX + m < 9m keys, since net_bits leaves more than 8
 * 4-byte keys and more than 4 8-byte keys a bucket.
 *
 * Returns 0, having written nothing to array 0, when it did not sort. */
static int FN(net_leaf)(const omp_ctx *c, omp_tls *tl, int where, size_t a,
                        size_t m, unsigned hi)
{
    KEY_T *k0 = (KEY_T *)c->k[0] + a, *buf = (KEY_T *)(void *)tl->tmp;
    const KEY_T *src = (const KEY_T *)c->k[where] + a;
    unsigned b = net_bits(m, 64 / PS_W * 8), sh = hi - b;
    unsigned mask = (1u << b) - 1, d;
    uint32_t *off = tl->split, excess = 0;
    const KEY_T flip = (KEY_T)c->xf.flip, fneg = (KEY_T)c->xf.fneg;
    const int fl = fneg != 0;

    if (where != 0)     /* the networks write array 0: warm it */
        prefetch_for_write(k0, m * sizeof(KEY_T));
    for (d = 0; d <= mask; d++)
        off[d] = d * PS_NET_MAX;
    /* The pass leaves off[d] at the end of bucket d, and prefetches the
     * next leaf as an LSD leaf's last pass does. */
    if (fl)
        FN(leaf_pass_body)(src, buf, NULL, NULL, m, c->xf, sh, mask, off,
                           src + m, k0 + m, next_span(c, a, m), 0, 1);
    else
        FN(leaf_pass_body)(src, buf, NULL, NULL, m, c->xf, sh, mask, off,
                           src + m, k0 + m, next_span(c, a, m), 0, 0);
    for (d = 0; d <= mask; d++) {
        uint32_t cnt = off[d] - d * PS_NET_MAX;
        excess += cnt > PS_NET_MAX ? cnt - PS_NET_MAX : 0;
    }
    if (excess > 0) {
        if (excess > m / 16)
            tl->net_skip = PS_NET_SKIP;
        return 0;
    }
#if PS_W == 32
    if (c->net == PS_NET_AVX512)
        ps_omp_net_slots32(buf, k0, off, (size_t)mask + 1, (uint32_t)m, flip,
                           fneg);
    else
        ps_omp_net_slots32_avx2(buf, k0, off, (size_t)mask + 1, (uint32_t)m,
                                flip, fneg);
#else
    ps_omp_net_slots64(buf, k0, off, (size_t)mask + 1, (uint32_t)m, flip,
                       fneg);
#endif
    return 1;
}
#endif

/* A leaf of at most PS_TINY_LEAF keys: an insertion sort in array 0.
 * Skewed data leaves many such buckets with many bits each (log-uniform
 * magnitudes: thousands of buckets of 1-10 keys keeping 30-40 bits),
 * where LSD passes would clear and sum thousands of counters per bucket;
 * those counters took most of a 1M-key sort. */
static void FN(tiny_leaf)(const omp_ctx *c, int where, size_t a, size_t m)
{
    KEY_T *k0 = (KEY_T *)c->k[0] + a;
    unsigned char *v0 = c->vs ? c->v[0] + a * c->vs : NULL;
    if (where != 0) {
        memcpy(k0, (const KEY_T *)c->k[1] + a, m * sizeof(KEY_T));
        if (c->vs)
            memcpy(v0, c->v[1] + a * c->vs, m * c->vs);
    }
    VS_FL(c, FN(insert_body), k0, v0, m, c->xf);
}

/* Finish positions [a, a + m) of array `where` by image bits [lo, hi), in
 * array 0: LSD passes, or a split pass and insertion sorts
 *  - when four or more passes would be left for few keys, with up to 1.5
 *    buckets a key (measured on u64: twice as many buckets as keys costs
 *    more in the bucket loop than it saves in insertion sorts, 64K keys
 *    20% slower; half as many more in insertion sorts, 16M keys 9%
 *    slower; with three passes, the passes win: u32 at 1M keys, whose
 *    leaves keep 25 bits, ran 19% slower split);
 *  - when the leaf is the whole input (a small array) and the passes'
 *    counters would outnumber its keys twice: the sort would then be
 *    mostly clearing and summing counters.  Measured on one thread
 *    against the passes, random u32 keys: 100 keys 5x faster, 300 2.4x,
 *    1000 1.6x, 2900 1.18x; u32 pairs 4x to 1.05x; at 4096 keys the
 *    passes win by 8%, by 12-27% with 22-24 bits left.  The leaves of
 *    larger sorts keep their passes: split, u32 at 1M keys (leaves of
 *    about 4096 keys and 24 bits) ran 28% slower.
 * A leaf that is the whole input has at most a bucket for two keys:
 * against one a key, 8-11% faster at 1500 u32 keys, 20-25% at 4096 and
 * 8192 u64 keys.  (Leaves of larger sorts lose 15-20% that way: u64 at
 * 64K to 4M keys.) */
static void FN(leaf)(const omp_ctx *c, omp_tls *tl, int where, size_t a,
                     size_t m, unsigned lo, unsigned hi)
{
    if (m <= PS_TINY_LEAF && hi > lo) {
        FN(tiny_leaf)(c, where, a, m);
        return;
    }
#if (PS_W == 32 || PS_W == 64) && defined(PS_HAVE_AVX512_TARGET)
    if (c->net && m > PS_NET_MAX && m <= c->leaf_cap
        && hi - lo > net_bits(m, 64 / PS_W * 8)) {
        if (tl->net_skip > 0)
            tl->net_skip--;
        else if (FN(net_leaf)(c, tl, where, a, m, hi))
            return;
    }
#endif
    if (m > 1 && hi - lo > 3 * PS_LEAF_BITS
        && m <= ((size_t)2 << PS_SPLIT_BITS))
        FN(split_leaf)(c, tl, where, a, m, lo, hi,
                       m == c->n ? m / 2 : m + m / 2);
    else if (m == c->n && m > 1 && hi > lo && lsd_counters(hi - lo) > 2 * m)
        FN(split_leaf)(c, tl, where, a, m, lo, hi, m / 2);
    else if (hi > lo && lsd_counters(hi - lo) > PS_SPLIT_SPARSE * m)
        FN(split_leaf)(c, tl, where, a, m, lo, hi, m + m / 2);
    else
        FN(lsd_leaf)(c, tl, where, a, m, lo, hi);
}

#if PS_W == 32
#include "ps_openmp_packed.h"
#endif

/* Turn the counts of one digit over a range starting at `base` into bucket
 * bounds: bounds[d] is where bucket d starts, bounds[buckets] the end.
 * Returns 1 when a single bucket holds everything (nothing to do). */
static int FN(bounds)(const size_t *cnt, unsigned buckets, size_t base,
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
static void FN(solo)(const omp_ctx *c, omp_tls *tl, int where, size_t a,
                     size_t m, unsigned lo, unsigned hi, unsigned depth,
                     unsigned pre_sh, unsigned pre_b, int skew)
{
    unsigned b, sh, mask, d;
    size_t *bounds;

    for (;;) {
        if (hi <= lo || is_leaf(c, m, depth)) {
            FN(leaf)(c, tl, where, a, m, lo, hi);
            return;
        }
        b = msd_bits(c, m, lo, hi, skew);
        sh = hi - b;
        mask = (1u << b) - 1;
        bounds = tl->bounds + (size_t)depth * (PS_MSD_RADIX + 1);
        if (sh != pre_sh || b != pre_b)
            FN(hist)(c, where, a, a + m, sh, mask, tl->pos);
        pre_b = 0;
        if (!FN(bounds)(tl->pos, mask + 1, a, m, bounds))
            break;
        hi = sh;    /* constant digit: the data stays where it is */
        skew = 1;
    }
    memcpy(tl->pos, bounds, (mask + 1) * sizeof *bounds);
    memcpy(tl->start, bounds, (mask + 1) * sizeof *bounds);
#if PS_W == 32
    if (pk_fits(c, where, depth, bounds, mask)) {
        pk_route(c, tl, a, a + m, bounds, lo, sh, mask, 0);
        return;
    }
#endif
    FN(scatter)(c, tl, where, a, a + m, sh, mask);
    for (d = 0; d <= mask; d++) {
        size_t bm = bounds[d + 1] - bounds[d];
        if (bm > 0)
            FN(solo)(c, tl, 1 - where, bounds[d], bm, lo, sh, depth + 1, 0, 0,
                     skewed(bm, m));
    }
}

/* Sort positions [a, a + m) of array `where` by image bits [lo, hi), with
 * every thread of the team calling it alike (it has barriers).  Each thread
 * counts and scatters its own slice of the range; a thread's part of every
 * bucket follows the parts of the threads before it, which keeps the pass
 * stable.  pre_sh/pre_b name a digit whose counts are already in
 * c->tcount (pre_b = 0: none). */
static void FN(team)(const omp_ctx *c, int where, size_t a, size_t m,
                     unsigned lo, unsigned hi, unsigned depth, unsigned pre_sh,
                     unsigned pre_b, int skew)
{
    int t = omp_get_thread_num(), nt = omp_get_num_threads(), u;
    omp_tls *tl = tls_of(c, t);
    size_t slo = a + m * (size_t)t / (size_t)nt;
    size_t shi = a + m * (size_t)(t + 1) / (size_t)nt;
    size_t *bounds = tl->bounds + (size_t)depth * (PS_MSD_RADIX + 1);
    size_t *tot = tl->pos;
    unsigned b, sh, mask, d;

    /* team_worthy keeps the team above the last level of the budget. */
    PS_DEBUG_ASSERT(depth < PS_MAX_DEPTH - 1);
    for (;;) {
        if (hi <= lo) {
            if (where != 0) {
                memcpy((KEY_T *)c->k[0] + slo, (const KEY_T *)c->k[1] + slo,
                       (shi - slo) * sizeof(KEY_T));
                if (c->vs)
                    memcpy(c->v[0] + slo * c->vs, c->v[1] + slo * c->vs,
                           (shi - slo) * c->vs);
            }
#pragma omp barrier
            return;
        }
        b = msd_bits(c, m, lo, hi, skew);
        sh = hi - b;
        mask = (1u << b) - 1;
        if (sh != pre_sh || b != pre_b) {
            FN(hist)(c, where, slo, shi, sh, mask, tcount_of(c, t));
#pragma omp barrier
        }
        pre_b = 0;
        /* Every thread derives the same bounds from all the counts. */
        memset(tot, 0, ((size_t)mask + 1) * sizeof *tot);
        for (u = 0; u < nt; u++) {
            const size_t *cu = tcount_of(c, u);
            for (d = 0; d <= mask; d++)
                tot[d] += cu[d];
        }
        if (!FN(bounds)(tot, mask + 1, a, m, bounds))
            break;
        hi = sh;    /* constant digit: the data stays where it is */
        skew = 1;
        /* Nobody counts into tcount again until all have read it. */
#pragma omp barrier
    }
    for (d = 0; d <= mask; d++) {
        size_t p = bounds[d];
        for (u = 0; u < t; u++)
            p += tcount_of(c, u)[d];
        tl->pos[d] = tl->start[d] = p;
    }
#if PS_W == 32
    if (pk_fits(c, where, depth, bounds, mask)) {
        pk_route(c, tl, slo, shi, bounds, lo, sh, mask, 1);
        return;
    }
#endif
    FN(scatter)(c, tl, where, slo, shi, sh, mask);
#pragma omp barrier
    /* Buckets big enough to be worth the whole team are sorted by it, one
     * after the other; the rest go to single threads, spread dynamically
     * since their sizes differ. */
    for (d = 0; d <= mask; d++) {
        size_t bm = bounds[d + 1] - bounds[d];
        if (team_worthy(c, bm, m, nt, depth))
            FN(team)(c, 1 - where, bounds[d], bm, lo, sh, depth + 1, 0, 0,
                     skewed(bm, m));
    }
    {
        long bd;
#pragma omp for schedule(dynamic, 8)
        for (bd = 0; bd <= (long)mask; bd++) {
            size_t bm = bounds[bd + 1] - bounds[bd];
            if (bm > 0 && !team_worthy(c, bm, m, nt, depth))
                FN(solo)(c, tl, 1 - where, bounds[bd], bm, lo, sh, depth + 1,
                         0, 0, skewed(bm, m));
        }
    }
    /* The omp for ends with a barrier: threads leave together, so that no
     * thread counts the next range into tcount while another reads it. */
}

/* Bits [lo, hi) of the image that vary over the keys, from the OR and AND
 * that each thread's survey left (of every image, or of every key where
 * the image is a plain xor).  Returns 0 when all keys are equal. */
static int FN(varying)(const uint64_t *orand, int nt, unsigned *lo,
                       unsigned *hi)
{
    uint64_t o = 0, n = ~(uint64_t)0, v;
    int u;
    for (u = 0; u < nt; u++) {
        o |= orand[2 * u];
        n &= orand[2 * u + 1];
    }
    v = (o ^ n) & (PS_W == 64 ? ~(uint64_t)0 : (((uint64_t)1 << PS_W) - 1));
    if (v == 0)
        return 0;
    *lo = (unsigned)__builtin_ctzll(v);
    *hi = 64u - (unsigned)__builtin_clzll(v);
    return 1;
}

/* The whole sort: one read finds the varying bits (bits that never vary
 * need no pass) and counts the first MSD digit, then the MSD team passes
 * and the leaves. */
static void FN(sort)(const omp_ctx *c)
{
    unsigned b0 = msd_bits(c, c->n, 0, PS_W, 0), sh0 = PS_W - b0;
    unsigned mask0 = (1u << b0) - 1;
    if (c->nthreads <= 1) {
        omp_tls *tl = tls_of(c, 0);
        unsigned lo, hi;
        if (is_leaf(c, c->n, 0))
            FN(survey_leaf)(c, c->n, tl->pos, tl->start, c->orand);
        else
            FN(survey)(c, 0, c->n, sh0, mask0, tl->pos, tl->start, c->orand);
        if (FN(varying)(c->orand, 1, &lo, &hi))
            FN(solo)(c, tl, 0, 0, c->n, lo, hi, 0, sh0, hi == PS_W ? b0 : 0,
                     0);
        return;
    }
#pragma omp parallel num_threads(c->nthreads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        size_t slo = c->n * (size_t)t / (size_t)nt;
        size_t shi = c->n * (size_t)(t + 1) / (size_t)nt;
        unsigned lo, hi;
        FN(survey)(c, slo, shi, sh0, mask0, tcount_of(c, t),
                   tls_of(c, t)->start, c->orand + 2 * t);
#pragma omp barrier
        if (FN(varying)(c->orand, nt, &lo, &hi))
            FN(team)(c, 0, 0, c->n, lo, hi, 0, sh0, hi == PS_W ? b0 : 0, 0);
    }
}

#undef PS_CAT_
#undef PS_CAT
#undef KEY_T
#undef ENC
#undef FN
#undef LINE
#undef KVEC_N
#undef VS_FL
