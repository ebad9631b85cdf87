/*
 * ps_openmp_packed.h - pairs of a 4-byte key and a 4-byte value, moved as
 * one 8-byte element (key << 32 | value) between the MSD pass and the last
 * leaf pass.  Included by ps_openmp_impl.h in its 32-bit instantiation
 * (KEY_T is uint32_t, FN names end in 32).
 *
 * Why: kept apart, every pass of a pair loads and stores twice, and the MSD
 * pass keeps two write-combining buffers per bucket, which crowd the
 * caches.  Packed, the MSD pass reads the caller's two arrays and writes
 * one array of elements into scratch; the leaves sort the elements in
 * cache and their last pass writes keys and values back apart.  The
 * scratch holds n keys and n values, exactly n elements, so memory use
 * does not change.
 *
 * The packed route is taken when one MSD pass from the caller's arrays
 * leaves every bucket small enough for a leaf (random data up to 2^26
 * pairs); other data takes the general route, so that a packed array never
 * has to be split again by MSD passes.
 */

typedef uint64_t pk_elem;

/* Elements per write-combining unit. */
#define PK_LINE (PS_UNIT_BYTES / sizeof(pk_elem))

/* Digit (sh, mask) of an element's key image. */
static inline __attribute__((always_inline)) unsigned
pk_digit(pk_elem e, ps_xf xf, unsigned sh, unsigned mask, const int fl)
{
    return (unsigned)((FN(img)((KEY_T)(e >> 32), xf, fl) >> sh) & mask);
}

/* Store element e at index o of the caller's arrays. */
static inline __attribute__((always_inline)) void
pk_split(KEY_T *k, unsigned char *v, size_t o, pk_elem e)
{
    uint32_t val = (uint32_t)e;
    k[o] = (KEY_T)(e >> 32);
    memcpy(v + o * 4, &val, 4);
}

/* Can the MSD pass at `depth` over array `where`, cut by `bounds` into
 * mask + 1 buckets, take the packed route?  Only the first pass, over the
 * whole of the caller's arrays: a packed range must not overlap data that
 * the scratch holds apart.  Every thread computes the same answer. */
static int pk_fits(const omp_ctx *c, int where, unsigned depth,
                   const size_t *bounds, unsigned mask)
{
    unsigned d;
    if (!c->pack || where != 0 || depth != 0)
        return 0;
    for (d = 0; d <= mask; d++)
        if (bounds[d + 1] - bounds[d] > c->leaf_cap)
            return 0;
    return 1;
}

/* Write the last `take` elements of bucket d's current unit, which holds
 * `fill` and ends at index hi, to the packed scratch; as FN(flush). */
static inline __attribute__((always_inline)) void
pk_flush(const omp_ctx *c, omp_tls *tl, unsigned d, size_t hi, size_t take,
         size_t fill)
{
    pk_elem *line = (pk_elem *)(void *)tl->kline + (size_t)d * PK_LINE;
    pk_elem *dst = (pk_elem *)c->k[1] + (hi - take);
    if (take == PK_LINE && c->pk_stream)
        ps_stream_bytes(dst, line, PS_UNIT_BYTES);
    else
        memcpy(dst, line + (fill - take), take * sizeof(pk_elem));
}

/* The MSD pass of the packed route: positions [a, b) of the caller's keys
 * and values, by digit (sh, mask), into the packed scratch, through one
 * write-combining unit per bucket; cursors as in FN(scatter_body). */
static inline __attribute__((always_inline)) void
pk_scatter_body(const omp_ctx *c, omp_tls *tl, size_t a, size_t b,
                unsigned sh, unsigned mask, const int fl)
{
    const KEY_T *src = (const KEY_T *)c->k[0];
    const unsigned char *vsrc = c->v[0];
    pk_elem *line = (pk_elem *)(void *)tl->kline;
    size_t *pos = tl->pos, *start = tl->start;
    const size_t eshift = c->pk_shift;
    const ps_xf xf = c->xf;
    unsigned d;
    size_t i;

    for (d = 0; d <= mask; d++)
        pos[d] += eshift;
    for (i = a; i < b; i++) {
        uint32_t val;
        pk_elem e;
        size_t q, slot;
        memcpy(&val, vsrc + i * 4, 4);
        e = (pk_elem)src[i] << 32 | val;
        d = pk_digit(e, xf, sh, mask, fl);
        q = pos[d]++;
        slot = q & (PK_LINE - 1);
        line[(size_t)d * PK_LINE + slot] = e;
        if (slot == PK_LINE - 1) {
            size_t end = q + 1 - eshift, ours = end - start[d];
            pk_flush(c, tl, d, end, ours < PK_LINE ? ours : PK_LINE, PK_LINE);
        }
    }
    for (d = 0; d <= mask; d++) {
        size_t end = pos[d] -= eshift, fill = (end + eshift) & (PK_LINE - 1);
        size_t ours = end - start[d];
        if (fill > 0 && ours > 0)
            pk_flush(c, tl, d, end, ours < fill ? ours : fill, fill);
    }
    ps_stream_fence();
}

static void pk_scatter(const omp_ctx *c, omp_tls *tl, size_t a, size_t b,
                       unsigned sh, unsigned mask)
{
    if (c->xf.fneg != 0)
        pk_scatter_body(c, tl, a, b, sh, mask, 1);
    else
        pk_scatter_body(c, tl, a, b, sh, mask, 0);
}

/* Histograms of np digits of w bits from bit lo of the key images of
 * e[0, m), bits from hi up masked off; as FN(leaf_hist_body). */
static inline __attribute__((always_inline)) void
pk_hist_body(const pk_elem *e, size_t m, ps_xf xf, unsigned lo, unsigned hi,
             unsigned w, const unsigned np, uint32_t *h, const int fl)
{
    unsigned mask = (1u << w) - 1;
    KEY_T below = (KEY_T)(hi >= 32 ? ~(KEY_T)0 : (KEY_T)(((KEY_T)1 << hi) - 1));
    size_t i;
    memset(h, 0, (size_t)np * ((size_t)mask + 1) * sizeof *h);
    for (i = 0; i < m; i++)
        FN(count_digits)(h, (KEY_T)((FN(img)((KEY_T)(e[i] >> 32), xf, fl)
                                     & below) >> lo), w, mask, np);
}

/* Write elements e[0, m) to the caller's keys k and values v, in order. */
static void pk_unpack(KEY_T *k, unsigned char *v, const pk_elem *e, size_t m)
{
    size_t i = 0;
#if defined(__SSE2__)
    /* Four elements a step: two shuffles and two unpacks gather the low
     * halves (values) and the high halves (keys). */
    for (; i + 4 <= m; i += 4) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(e + i));
        __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(e + i + 2));
        x = _mm_shuffle_epi32(x, _MM_SHUFFLE(3, 1, 2, 0));
        y = _mm_shuffle_epi32(y, _MM_SHUFFLE(3, 1, 2, 0));
        _mm_storeu_si128((__m128i *)(void *)(v + i * 4), _mm_unpacklo_epi64(x, y));
        _mm_storeu_si128((__m128i *)(void *)(k + i), _mm_unpackhi_epi64(x, y));
    }
#endif
    for (; i < m; i++)
        pk_split(k, v, i, e[i]);
}

/* One leaf pass, packed to packed.  While i < npf it prefetches the
 * next bucket's elements (next_span) into L2, a line a step, unrolled so
 * that the plain loop keeps no test per element. */
static inline __attribute__((always_inline)) void
pk_pass_body(const pk_elem *src, pk_elem *dst, size_t m, ps_xf xf,
             unsigned sh, unsigned mask, uint32_t *off, const pk_elem *pf,
             size_t npf, const int fl)
{
    const size_t line = 64 / sizeof(pk_elem);
    size_t i = 0, j;
    for (; i < npf && i + line <= m; i += line) {
        __builtin_prefetch(pf + i, 0, 2);
#pragma GCC unroll 8
        for (j = 0; j < line; j++) {
            pk_elem e = src[i + j];
            dst[off[pk_digit(e, xf, sh, mask, fl)]++] = e;
        }
    }
    for (; i < m; i++) {
        pk_elem e = src[i];
        dst[off[pk_digit(e, xf, sh, mask, fl)]++] = e;
    }
}

static void pk_pass(const omp_ctx *c, const pk_elem *src, pk_elem *dst,
                    size_t m, unsigned sh, unsigned mask, uint32_t *off,
                    const pk_elem *pf, size_t npf)
{
    if (c->xf.fneg != 0)
        pk_pass_body(src, dst, m, c->xf, sh, mask, off, pf, npf, 1);
    else
        pk_pass_body(src, dst, m, c->xf, sh, mask, off, pf, npf, 0);
}

#if defined(PS_HAVE_AVX512_TARGET)
/* pk_leaf with sorting networks (c->pk_net; ps_openmp_net.h): one pass on
 * the top bits, 4 to 8 elements a bucket, into slots of PS_NET_MAX in the
 * thread's buffer, no counting (as FN(net_leaf)), then each bucket sorted
 * stably by a network on 64-bit lanes and unpacked into the caller's
 * arrays.  Returns 0, having written nothing but the buffer, when it does
 * not apply: the key bits below the digit must fit the 27 bits of a lane's
 * sort key, and a bucket that overflows its slot (skewed data) sends the
 * leaf, and maybe the thread's next ones (as in FN(net_leaf)), to the LSD
 * passes.  The buffer holds at most (2^b - 1) * PS_NET_MAX + m < 9m
 * elements, since net_bits leaves more than 4 a bucket. */
static int pk_net_leaf(const omp_ctx *c, omp_tls *tl, size_t a, size_t m,
                       unsigned lo, unsigned hi)
{
    const pk_elem *e = (const pk_elem *)c->k[1] + a;
    pk_elem *buf = (pk_elem *)(void *)tl->tmp;
    unsigned b = net_bits(m, 8), sh = hi - b, mask = (1u << b) - 1, d;
    uint32_t *off = tl->split, excess = 0;

    if (m <= PS_NET_MAX || m > c->leaf_cap || hi - lo <= b || sh > 27)
        return 0;
    if (tl->net_skip > 0) {
        tl->net_skip--;
        return 0;
    }
    for (d = 0; d <= mask; d++)
        off[d] = d * PS_NET_MAX;
    pk_pass(c, e, buf, m, sh, mask, off, (const pk_elem *)c->k[1] + a + m,
            next_span(c, a, m));
    for (d = 0; d <= mask; d++) {
        uint32_t cnt = off[d] - d * PS_NET_MAX;
        excess += cnt > PS_NET_MAX ? cnt - PS_NET_MAX : 0;
    }
    if (excess > 0) {   /* as in FN(net_leaf) */
        if (excess > m / 16)
            tl->net_skip = PS_NET_SKIP;
        return 0;
    }
    ps_omp_net_pairs32(buf, (KEY_T *)c->k[0] + a, c->v[0] + a * 4, off,
                       (size_t)mask + 1, (uint32_t)m, (uint32_t)c->xf.flip,
                       (uint32_t)c->xf.fneg);
    return 1;
}
#endif

/* Sort the packed elements at [a, a + m) of the scratch by key image bits
 * [lo, hi) and leave them, apart, at [a, a + m) of the caller's arrays:
 * LSD passes of at most PS_LEAF_BITS bits, alternating between the scratch
 * and the thread's buffer, then one sequential unpack.  m <= leaf_cap.
 *
 * Why unpack apart from the passes: a last pass that split the elements
 * as it scattered them kept two write streams per bucket (4096 lines for
 * 2048 buckets, far more than L1 holds) and took 45% of the leaf; a packed
 * pass plus the unpack made pairs at 16M 7% faster (one and two threads),
 * and the caller's arrays, now written in order, no longer need to be
 * prefetched for writing (1-2% more). */
static void pk_leaf(const omp_ctx *c, omp_tls *tl, size_t a, size_t m,
                    unsigned lo, unsigned hi)
{
    pk_elem *e = (pk_elem *)c->k[1] + a, *buf[2];
    KEY_T *k = (KEY_T *)c->k[0] + a;
    unsigned char *v = c->v[0] + a * 4;
    uint32_t *h = tl->lhist, *off = tl->loff;
    unsigned sh[PS_MAX_LEAF_DIGITS], mk[PS_MAX_LEAF_DIGITS];
    unsigned np = 0, p = 0, w = 0, i, j, d;
    const int fl = c->xf.fneg != 0;

#if defined(PS_HAVE_AVX512_TARGET)
    if (c->pk_net && pk_net_leaf(c, tl, a, m, lo, hi))
        return;
#endif
    if (m > 1 && hi > lo) {
        unsigned nb = hi - lo;
        np = (nb + PS_LEAF_BITS - 1) / PS_LEAF_BITS;
        w = (nb + np - 1) / np;
        switch (np * 2 + fl) {
        case 2: pk_hist_body(e, m, c->xf, lo, hi, w, 1, h, 0); break;
        case 3: pk_hist_body(e, m, c->xf, lo, hi, w, 1, h, 1); break;
        case 4: pk_hist_body(e, m, c->xf, lo, hi, w, 2, h, 0); break;
        case 5: pk_hist_body(e, m, c->xf, lo, hi, w, 2, h, 1); break;
        case 6: pk_hist_body(e, m, c->xf, lo, hi, w, 3, h, 0); break;
        case 7: pk_hist_body(e, m, c->xf, lo, hi, w, 3, h, 1); break;
        default:
            if (fl)
                pk_hist_body(e, m, c->xf, lo, hi, w, np, h, 1);
            else
                pk_hist_body(e, m, c->xf, lo, hi, w, np, h, 0);
            break;
        }
        /* Keep the digits that vary, as FN(lsd_leaf) does. */
        for (j = 0; j < np; j++) {
            unsigned s0 = lo + j * w, bits = hi - s0 < w ? hi - s0 : w;
            unsigned mj = (1u << bits) - 1;
            const uint32_t *hj = h + ((size_t)j << w);
            if (hj[pk_digit(e[0], c->xf, s0, mj, fl)] == m)
                continue;
            if (p != j)
                memcpy(h + ((size_t)p << w), hj, ((size_t)mj + 1) * sizeof *h);
            sh[p] = s0;
            mk[p] = mj;
            p++;
        }
    }
    buf[0] = e;
    buf[1] = (pk_elem *)(void *)tl->tmp;
    for (i = 0; i < p; i++) {
        const uint32_t *hi_ = h + ((size_t)i << w);
        uint32_t sum = 0;
        for (d = 0; d <= mk[i]; d++) {
            off[d] = sum;
            sum += hi_[d];
        }
        pk_pass(c, buf[i & 1], buf[(i + 1) & 1], m, sh[i], mk[i], off,
                (const pk_elem *)c->k[1] + a + m,
                i + 1 == p ? next_span(c, a, m) : 0);
    }
    pk_unpack(k, v, buf[p & 1], m);
}

/* The packed route from a pass whose bucket bounds are known: every thread
 * of the team (team != 0), or the one caller, scatters its slice [slo, shi),
 * cursors already in tl->pos and tl->start, then the buckets become leaves. */
static void pk_route(const omp_ctx *c, omp_tls *tl, size_t slo, size_t shi,
                     const size_t *bounds, unsigned lo, unsigned sh,
                     unsigned mask, int team)
{
    long bd;
    pk_scatter(c, tl, slo, shi, sh, mask);
    if (!team) {
        for (bd = 0; bd <= (long)mask; bd++)
            if (bounds[bd + 1] > bounds[bd])
                pk_leaf(c, tl, bounds[bd], bounds[bd + 1] - bounds[bd], lo, sh);
        return;
    }
#pragma omp barrier
#pragma omp for schedule(dynamic, 8)
    for (bd = 0; bd <= (long)mask; bd++)
        if (bounds[bd + 1] > bounds[bd])
            pk_leaf(c, tl, bounds[bd], bounds[bd + 1] - bounds[bd], lo, sh);
}

#undef PK_LINE
