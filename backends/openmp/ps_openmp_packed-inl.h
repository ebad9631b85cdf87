/*
 * ps_openmp_packed-inl.h - the kernels of pairs of a 4-byte key and a
 * 4-byte value, moved as one 8-byte element (key << 32 | value) between the
 * MSD pass and the last leaf pass (ps_omp_packed in ps_openmp_sort.h).
 * ps_openmp_kernels.c includes it once, after the 32-bit instance of
 * ps_openmp_kernels-inl.h, whose img32 and count_digits32 it uses; the
 * route's control is pk_fits in ps_openmp_msd.c (when it is taken) and
 * pk_leaf in ps_openmp_leaf-inl.h (the leaves' passes).
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

#if !defined(PS_OPENMP_PACKED_INL_H)
#define PS_OPENMP_PACKED_INL_H

typedef uint64_t pk_elem;

/* Elements per write-combining unit. */
#define PK_LINE (PS_UNIT_BYTES / sizeof(pk_elem))

/* Digit (sh, mask) of an element's key image. */
PS_FORCE_INLINE unsigned
pk_digit(pk_elem e, ps_xf xf, unsigned sh, unsigned mask, const int fl)
{
    return (unsigned)((img32((uint32_t)(e >> 32), xf, fl) >> sh) & mask);
}

/* Store element e at index o of the caller's arrays. */
PS_FORCE_INLINE void
pk_split(uint32_t *k, unsigned char *v, size_t o, pk_elem e)
{
    uint32_t val = (uint32_t)e;
    k[o] = (uint32_t)(e >> 32);
    memcpy(v + o * 4, &val, 4);
}

/* Write the last `take` elements of bucket d's current unit, which holds
 * `fill` and ends at index hi, to the packed scratch; as flush in
 * ps_openmp_kernels-inl.h. */
PS_FORCE_INLINE void
pk_flush(const ps_omp_ctx *c, ps_omp_tls *tl, unsigned d, size_t hi, size_t take,
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
 * write-combining unit per bucket; cursors as in scatter_body. */
PS_FORCE_INLINE void
pk_scatter_body(const ps_omp_ctx *c, ps_omp_tls *tl, size_t a, size_t b,
                unsigned sh, unsigned mask, const int fl)
{
    const uint32_t *src = (const uint32_t *)c->k[0];
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

static void pk_scatter(const ps_omp_ctx *c, ps_omp_tls *tl, size_t a, size_t b,
                       unsigned sh, unsigned mask)
{
    if (c->xf.fneg != 0)
        pk_scatter_body(c, tl, a, b, sh, mask, 1);
    else
        pk_scatter_body(c, tl, a, b, sh, mask, 0);
}

/* Histograms of np digits of w bits from bit lo of the key images of
 * e[0, m), bits from hi up masked off; as leaf_hist_body. */
PS_FORCE_INLINE void
pk_hist_body(const pk_elem *e, size_t m, ps_xf xf, unsigned lo, unsigned hi,
             unsigned w, const unsigned np, uint32_t *h, const int fl)
{
    unsigned mask = (1u << w) - 1;
    uint32_t below = hi >= 32 ? ~(uint32_t)0 : ((uint32_t)1 << hi) - 1;
    size_t i;
    memset(h, 0, (size_t)np * ((size_t)mask + 1) * sizeof *h);
    for (i = 0; i < m; i++)
        count_digits32(h, (img32((uint32_t)(e[i] >> 32), xf, fl) & below) >> lo,
                       w, mask, np);
}

static uint64_t pk_hist(const ps_omp_ctx *c, const pk_elem *e, size_t m,
                        unsigned lo, unsigned hi, unsigned w, unsigned np,
                        uint32_t *h)
{
    /* np as a constant lets the compiler unroll the digit loop. */
    switch (np * 2 + (c->xf.fneg != 0)) {
    case 2: pk_hist_body(e, m, c->xf, lo, hi, w, 1, h, 0); break;
    case 3: pk_hist_body(e, m, c->xf, lo, hi, w, 1, h, 1); break;
    case 4: pk_hist_body(e, m, c->xf, lo, hi, w, 2, h, 0); break;
    case 5: pk_hist_body(e, m, c->xf, lo, hi, w, 2, h, 1); break;
    case 6: pk_hist_body(e, m, c->xf, lo, hi, w, 3, h, 0); break;
    case 7: pk_hist_body(e, m, c->xf, lo, hi, w, 3, h, 1); break;
    default:
        if (c->xf.fneg != 0)
            pk_hist_body(e, m, c->xf, lo, hi, w, np, h, 1);
        else
            pk_hist_body(e, m, c->xf, lo, hi, w, np, h, 0);
        break;
    }
    return ps_enc32((uint32_t)(e[0] >> 32), c->xf);
}

/* Write elements e[0, m) to the caller's keys and values, in order.
 *
 * Why apart from the passes: a last pass that split the elements as it
 * scattered them kept two write streams per bucket (4096 lines for 2048
 * buckets, far more than L1 holds) and took 45% of the leaf; a packed
 * pass plus the unpack made pairs at 16M 7% faster (one and two threads),
 * and the caller's arrays, now written in order, no longer need to be
 * prefetched for writing (1-2% more). */
static void pk_unpack(void *keys, unsigned char *v, const pk_elem *e, size_t m)
{
    uint32_t *k = (uint32_t *)keys;
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
 * next bucket's elements into L2, a line a step, unrolled so
 * that the plain loop keeps no test per element. */
PS_FORCE_INLINE void
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

static void pk_pass(const ps_omp_ctx *c, const pk_elem *src, pk_elem *dst,
                    size_t m, unsigned sh, unsigned mask, uint32_t *off,
                    const pk_elem *pf, size_t npf)
{
    if (c->xf.fneg != 0)
        pk_pass_body(src, dst, m, c->xf, sh, mask, off, pf, npf, 1);
    else
        pk_pass_body(src, dst, m, c->xf, sh, mask, off, pf, npf, 0);
}

#undef PK_LINE

#endif /* PS_OPENMP_PACKED_INL_H */
