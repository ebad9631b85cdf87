/*
 * ps_openmp_kernels-inl.h - the OpenMP backend's kernels for one key
 * width: every loop that touches keys one by one.  ps_openmp_kernels.c
 * includes it once per width, with PS_W defined to 8, 16, 32 or 64, and
 * hands the kernels to the control (ps_openmp_msd.c and
 * ps_openmp_leaf-inl.h) in that width's table (ps_omp_kernels, whose comments in
 * ps_openmp_sort.h are the contract of each kernel).
 *
 * The shape of every kernel: a body, forced inline (PS_FORCE_INLINE),
 * that takes the value size and the transform kind as constant
 * arguments, and an entry that calls it once per case, so that each
 * case compiles to its own loop.  Names end in the width (FN(scatter) is
 * scatter32 in the 32-bit instance); a debugger and a profiler show them
 * so, at their lines in this file.
 *
 * Keys move as their original bits; digits are computed from the order
 * image on the fly (see ps_backend.h), so nothing is transformed back.
 */
#if !defined(PS_W)
#error "define PS_W (8, 16, 32 or 64) before including ps_openmp_kernels-inl.h"
#endif

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
PS_FORCE_INLINE KEY_T
FN(img)(KEY_T k, ps_xf xf, const int fl)
{
    return fl ? ENC(k, xf) : (KEY_T)(k ^ (KEY_T)xf.flip);
}

/* Call F(args..., vs, fl) with vs and fl as constants, so that each hot
 * loop is compiled once per value size and transform kind (fl: a float
 * type, whose image is more than an xor).  Value sizes are 0, 4 and 8
 * (PS_OPENMP_VALUE_SIZES in ps_openmp.c): "default" is 8, and tmp[8]
 * below holds one value. */
#define VS_FL(vs, xf, F, ...)                                                \
    do {                                                                     \
        int fl_ = (xf).fneg != 0;                                            \
        switch (vs) {                                                        \
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
PS_FORCE_INLINE void
FN(survey_body)(const ps_omp_ctx *c, size_t a, size_t b, unsigned sh,
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
    if (fl) {
        /* Floats: the images made a vector at a time (the top bit smeared
         * by a shift and a negation), their OR and AND kept as vectors,
         * and the digits counted from the vector's lanes.  Key by key it
         * was three times the integers' survey (f32 in [0, 1), 1M keys,
         * one thread: 13% of the sort against 4%). */
        const FN(kvec) zero = {0};
        FN(kvec) vo = zero, vn = ~zero, flip = zero + (KEY_T)xf.flip;
        FN(kvec) fneg = zero + (KEY_T)xf.fneg;
        for (; i + KVEC_N <= b; i += KVEC_N) {
            FN(kvec) x, t;
            memcpy(&x, keys + i, sizeof x);
            t = x ^ flip ^ ((zero - (x >> (8 * sizeof(KEY_T) - 1))) & fneg);
            vo |= t;
            vn &= t;
            if (!count)
                continue;
#pragma GCC unroll 16
            for (l = 0; l < KVEC_N; l += 2) {
                cnt[(t[l] >> sh) & mask]++;
                cnt2[(t[l + 1] >> sh) & mask]++;
            }
        }
#pragma GCC unroll 16
        for (l = 0; l < KVEC_N; l++) {
            o |= vo[l];
            n &= vn[l];
        }
    } else {
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

static void FN(survey)(const ps_omp_ctx *c, size_t a, size_t b, unsigned sh,
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
static void FN(survey_leaf)(const ps_omp_ctx *c, size_t n, size_t *cnt,
                            size_t *cnt2, uint64_t *orand)
{
    if (c->xf.fneg != 0)
        FN(survey_body)(c, 0, n, 0, 0, cnt, cnt2, orand, 1, 0);
    else
        FN(survey_body)(c, 0, n, 0, 0, cnt, cnt2, orand, 0, 0);
}

/* Histogram of digit (sh, mask) of positions [a, b) of array `where`. */
PS_FORCE_INLINE void
FN(hist_body)(const ps_omp_ctx *c, int where, size_t a, size_t b, unsigned sh,
              unsigned mask, size_t *cnt, const int fl)
{
    const KEY_T *keys = (const KEY_T *)c->k[where];
    const ps_xf xf = c->xf;
    size_t i;
    memset(cnt, 0, ((size_t)mask + 1) * sizeof *cnt);
    for (i = a; i < b; i++)
        cnt[(FN(img)(keys[i], xf, fl) >> sh) & mask]++;
}

static void FN(hist)(const ps_omp_ctx *c, int where, size_t a, size_t b,
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
PS_FORCE_INLINE void
FN(flush)(const ps_omp_ctx *c, ps_omp_tls *tl, int to, unsigned d, size_t hi,
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

/* The digits of 16 keys, before the scatter loop uses them: gcc turns
 * this into vector code, which frees that loop of the shift, the mask and
 * the flip and of the registers they hold (u32 at 16M 3-5% faster, one
 * and two threads; u64 the same). */
PS_FORCE_INLINE void
FN(digits16)(const KEY_T *src, uint32_t *dg, ps_xf xf, unsigned sh,
             unsigned mask, const int fl)
{
    unsigned j;
    for (j = 0; j < 16; j++)
        dg[j] = (uint32_t)((FN(img)(src[j], xf, fl) >> sh) & mask);
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
PS_FORCE_INLINE void
FN(scatter_body)(const ps_omp_ctx *c, ps_omp_tls *tl, int from, size_t a, size_t b,
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
    for (i = a; i + 16 <= b; i += 16) {
        uint32_t dg[16];
        unsigned j;
        FN(digits16)(src + i, dg, xf, sh, mask, fl);
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

/* scatter_body without the line buffers, for a pass whose range fits in
 * a core's L2 (plain_scatter, ps_openmp_msd.c, has the measurements):
 * each element goes straight to its place, where the buffers and their
 * flushes would cost more than they save. */
PS_FORCE_INLINE void
FN(scatter_plain_body)(const ps_omp_ctx *c, ps_omp_tls *tl, int from, size_t a,
                       size_t b, unsigned sh, unsigned mask, const size_t vs,
                       const int fl)
{
    const KEY_T *src = (const KEY_T *)c->k[from];
    const unsigned char *vsrc = c->v[from];
    KEY_T *dst = (KEY_T *)c->k[1 - from];
    unsigned char *vdst = c->v[1 - from];
    size_t *pos = tl->pos;
    const ps_xf xf = c->xf;
    size_t i;
    for (i = a; i + 16 <= b; i += 16) {
        uint32_t dg[16];
        unsigned j;
        FN(digits16)(src + i, dg, xf, sh, mask, fl);
        for (j = 0; j < 16; j++) {
            size_t q = pos[dg[j]]++;
            dst[q] = src[i + j];
            if (vs)
                memcpy(vdst + q * vs, vsrc + (i + j) * vs, vs);
        }
    }
    for (; i < b; i++) {
        size_t q = pos[(FN(img)(src[i], xf, fl) >> sh) & mask]++;
        dst[q] = src[i];
        if (vs)
            memcpy(vdst + q * vs, vsrc + i * vs, vs);
    }
}

static void FN(scatter)(const ps_omp_ctx *c, ps_omp_tls *tl, int from,
                        size_t a, size_t b, unsigned sh, unsigned mask,
                        int plain)
{
    if (plain)
        VS_FL(c->vs, c->xf, FN(scatter_plain_body), c, tl, from, a, b, sh,
              mask);
    else
        VS_FL(c->vs, c->xf, FN(scatter_body), c, tl, from, a, b, sh, mask);
}

/* Element i of an LSD pass: to its digit's next place in dst. */
PS_FORCE_INLINE void
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
 * While i < npf, the pass prefetches the next bucket (next_span in
 * ps_openmp_leaf-inl.h) a line at a time: its keys from pf + i into L2, and the
 * lines of pw + i, which its last pass will write, for writing.  Those steps take a line of keys
 * each, unrolled, so that the plain loop keeps no test per key (with one,
 * u32 leaves ran 6-10% slower). */
PS_FORCE_INLINE void
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

static void FN(leaf_pass)(const ps_omp_ctx *c, const void *src, void *dst,
                          const unsigned char *vsrc, unsigned char *vdst,
                          size_t m, unsigned sh, unsigned mask, uint32_t *off,
                          const void *pf, void *pw, size_t npf)
{
    VS_FL(c->vs, c->xf, FN(leaf_pass_body), (const KEY_T *)src, (KEY_T *)dst,
          vsrc, vdst, m, c->xf, sh, mask, off, (const KEY_T *)pf, (KEY_T *)pw,
          npf);
}
/* Count the np digits of w bits of t, lowest first, into the np tables of
 * h (1 << w counters each).  t has no bits above its top digit, which so
 * needs no mask.  Two and three digits are written out: as a loop over
 * j, even with np constant, gcc kept variable shifts and a loop counter,
 * and 16K-key sorts (three digits) ran 25-40% slower. */
PS_FORCE_INLINE void
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
PS_FORCE_INLINE void
FN(leaf_hist_body)(const ps_omp_ctx *c, const KEY_T *keys, size_t m,
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

static uint64_t FN(leaf_hist)(const ps_omp_ctx *c, const void *keys, size_t m,
                              unsigned lo, unsigned hi, unsigned w,
                              unsigned np, uint32_t *h)
{
    const KEY_T *k = (const KEY_T *)keys;
    /* np as a constant lets the compiler unroll the digit loop. */
    switch (np * 2 + (c->xf.fneg != 0)) {
    case 2: FN(leaf_hist_body)(c, k, m, lo, hi, w, 1, h, 0); break;
    case 3: FN(leaf_hist_body)(c, k, m, lo, hi, w, 1, h, 1); break;
    case 4: FN(leaf_hist_body)(c, k, m, lo, hi, w, 2, h, 0); break;
    case 5: FN(leaf_hist_body)(c, k, m, lo, hi, w, 2, h, 1); break;
    case 6: FN(leaf_hist_body)(c, k, m, lo, hi, w, 3, h, 0); break;
    case 7: FN(leaf_hist_body)(c, k, m, lo, hi, w, 3, h, 1); break;
    default:
        if (c->xf.fneg != 0)
            FN(leaf_hist_body)(c, k, m, lo, hi, w, np, h, 1);
        else
            FN(leaf_hist_body)(c, k, m, lo, hi, w, np, h, 0);
        break;
    }
    return ENC(k[0], c->xf);
}

/* Counts of digit (sh, mask) over keys[0, m), into h (mask + 1 counters). */
PS_FORCE_INLINE void
FN(count_body)(const KEY_T *keys, size_t m, ps_xf xf, unsigned sh,
               unsigned mask, uint32_t *h, const int fl)
{
    size_t i;
    memset(h, 0, ((size_t)mask + 1) * sizeof *h);
    for (i = 0; i < m; i++)
        h[(FN(img)(keys[i], xf, fl) >> sh) & mask]++;
}

/* The slot pass of a mapped network leaf (map_leaf, ps_openmp_leaf-inl.h):
 * key k with image x goes to bucket base + ((x & low) >> s), where
 * map[d] = base << 8 | s for its digit d = (x >> sh) & mask and low masks
 * the bits below the digit: digit d refined by the sh - s bits below it
 * (none when s = sh). */
PS_FORCE_INLINE void
FN(map_pass_body)(const KEY_T *src, KEY_T *dst, size_t m, ps_xf xf,
                  unsigned sh, unsigned mask, const uint32_t *map,
                  uint32_t *off, const int fl)
{
    const KEY_T low = (KEY_T)(((KEY_T)1 << sh) - 1);
    size_t i;
    for (i = 0; i < m; i++) {
        KEY_T k = src[i], x = FN(img)(k, xf, fl);
        uint32_t t = map[(x >> sh) & mask];
        dst[off[(t >> 8) + (uint32_t)((x & low) >> (t & 0xFFu))]++] = k;
    }
}

static void FN(map_pass)(const ps_omp_ctx *c, const void *src, void *dst,
                         size_t m, unsigned sh, unsigned mask,
                         const uint32_t *map, uint32_t *off)
{
    if (c->xf.fneg != 0)
        FN(map_pass_body)((const KEY_T *)src, (KEY_T *)dst, m, c->xf, sh,
                          mask, map, off, 1);
    else
        FN(map_pass_body)((const KEY_T *)src, (KEY_T *)dst, m, c->xf, sh,
                          mask, map, off, 0);
}

/* The count and the pass of a split leaf in one kernel: the split leaves
 * of small sorts (a segment of 100 keys) are a few hundred instructions
 * each, and a call more showed. */
static uint32_t FN(split)(const ps_omp_ctx *c, const void *src, void *dst,
                          const unsigned char *vsrc, unsigned char *vdst,
                          size_t m, unsigned sh, unsigned mask, uint32_t *off)
{
    uint32_t sum = 0, big = 0;
    size_t d;   /* not unsigned: d <= mask could wrap, d < nb cannot */
    const size_t nb = (size_t)mask + 1;
    if (c->xf.fneg != 0)
        FN(count_body)((const KEY_T *)src, m, c->xf, sh, mask, off, 1);
    else
        FN(count_body)((const KEY_T *)src, m, c->xf, sh, mask, off, 0);
    for (d = 0; d < nb; d++) {
        uint32_t cnt = off[d];
        off[d] = sum;
        sum += cnt;
        big |= cnt;
    }
    VS_FL(c->vs, c->xf, FN(leaf_pass_body), (const KEY_T *)src, (KEY_T *)dst,
          vsrc, vdst, m, c->xf, sh, mask, off, NULL, NULL, 0);
    return big;
}

/* Move the element at position i (key x, image ex) down past every key
 * of k[0, i) whose image is greater (only greater ones: stable). */
PS_FORCE_INLINE void
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
PS_FORCE_INLINE void
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

static void FN(insert)(void *keys, unsigned char *values, size_t vs,
                       size_t m, ps_xf xf)
{
    if (m < 2)
        return;
    if (values == NULL)
        vs = 0;
    VS_FL(vs, xf, FN(insert_body), (KEY_T *)keys, values, m, xf);
}

/* The same result in another way: one forward bubble pass, without
 * branches, fused with an insertion sort.  c is the greatest key so far;
 * each new key y sends the smaller of c and y to the sorted prefix, where
 * it mostly stands (a bucket of two keys needs nothing more); the rare key
 * smaller than the prefix's last one sinks.  Ties keep their order: c
 * leaves before an equal y, and a key sinks only past greater ones.
 *
 * On the way, the next bucket (npf keys from pf, values from
 * pv) is prefetched into L2, and so are the lines its pass will write,
 * just after k and v: the chain leaves load slots to spare, while the
 * next leaf would otherwise start with reads from DRAM and writes that
 * need their lines read first. */
PS_FORCE_INLINE void
FN(bubble_body)(KEY_T *k, unsigned char *v, size_t m, ps_xf xf,
                const KEY_T *pf, const unsigned char *pv, size_t npf,
                const size_t vs, const int fl)
{
    const size_t line = 64 / sizeof(KEY_T);
    KEY_T c = k[0], ec = FN(img)(c, xf, fl), elast = 0;
    uint64_t cv = 0;
    size_t i = 1, stop;
    if (vs)
        memcpy(&cv, v, vs);
    /* A line of keys a round, the prefetches between rounds: the loop over
     * keys then keeps no test of its own for them (with one, gcc kept the
     * counter on the stack for 64-bit keys, 2 instructions a key more). */
    for (; i < m; i = stop) {
        if ((i & (line - 1)) == 0 && i < npf) {
            __builtin_prefetch(pf + i, 0, 2);
            __builtin_prefetch(k + m + i, 1, 2);
            if (vs) {
                __builtin_prefetch(pv + i * vs, 0, 2);
                __builtin_prefetch(v + (m + i) * vs, 1, 2);
            }
        }
        stop = (i | (line - 1)) + 1;
        if (stop > m)
            stop = m;
        for (; i < stop; i++) {
            KEY_T y = k[i], ey = FN(img)(y, xf, fl);
            /* All ones to swap, else zero: xor-swapping under a mask keeps
             * the compiler from turning a 50/50 choice into a branch. */
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
    }
    k[m - 1] = c;
    if (vs)
        memcpy(v + (m - 1) * vs, &cv, vs);
}

static void FN(bubble)(const ps_omp_ctx *c, void *keys, unsigned char *values,
                       size_t m, const void *pf, const unsigned char *pv,
                       size_t npf)
{
    VS_FL(c->vs, c->xf, FN(bubble_body), (KEY_T *)keys, values, m, c->xf,
          (const KEY_T *)pf, pv, npf);
}

#undef PS_CAT_
#undef PS_CAT
#undef KEY_T
#undef ENC
#undef FN
#undef LINE
#undef KVEC_N
#undef VS_FL
