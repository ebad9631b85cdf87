/*
 * ps_topk_avx2.c - the column bound of ps_topk.c's short segments in
 * AVX2, for 4- and 8-byte keys on CPUs without AVX-512.
 *
 * The same three steps as ps_topk_x512.c (read that first): the minima of
 * 32 columns, the m-th of them as the bound, the keys at or below it
 * compressed without a branch, and the first m of those few ranked by
 * compares and popcounts.  What AVX2 lacks is worked around:
 *
 * - No compress: a vector's 8-bit mask of survivors indexes a table of
 *   lane permutations (8 bytes a mask), and vpermd moves the survivors to
 *   the front before one full store; the store's tail is overwritten by
 *   the next vector's (the arrays have room for len + 16).  8-byte lanes
 *   use the same table, each lane's mask bit doubled to its two halves.
 *   A table and not pdep/pext: those are microcoded on Zen 1 and 2, which
 *   are among the CPUs this form is for.
 * - No unsigned 64-bit compare or min, no 64-bit arithmetic shift: 8-byte
 *   images are kept with their top bit flipped (folded into the xor that
 *   makes them), so vpcmpgtq orders them, and a key's sign comes from a
 *   compare with zero.  They are flipped back when stored.
 * - No sorting network worth its shuffles for 32 minima: the m-th is
 *   found by at most m rounds of a horizontal minimum, each taking the
 *   lanes that hold it out (m <= 16).
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>

#include "ps_topk_vec.h"

#if PS_TOPK_VEC

#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,popcnt")))

/* perm[mask]: the indices of mask's set bits, lowest first, then zeros,
 * one byte each: the vpermd that packs a vector's survivors.  Filled by
 * ps_topk_avx2_init, which ps_topk_vec_get runs once (behind its
 * pthread_once) before it first hands this form out. */
static uint8_t perm[256][8];

static void perm_init(void)
{
    for (unsigned m = 0; m < 256; m++) {
        unsigned n = 0;
        for (unsigned l = 0; l < 8; l++)
            if (m & (1u << l))
                perm[m][n++] = (uint8_t)l;
        while (n < 8)
            perm[m][n++] = 0;
    }
}

AVX2 static inline __m256i perm_of(unsigned mask)
{
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)perm[mask]));
}

/* The mask of 4 64-bit lanes as the mask of their 8 32-bit halves. */
static inline unsigned halves(unsigned m4)
{
    return (m4 & 1u) * 3u | (m4 & 2u) * 6u | (m4 & 4u) * 12u | (m4 & 8u) * 24u;
}

AVX2 static inline unsigned mask32(__m256i v)
{
    return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(v));
}

AVX2 static inline unsigned mask64(__m256i v)
{
    return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(v));
}

/* Lanes [0, r) of 8 32-bit lanes set (r <= 8). */
AVX2 static inline __m256i lanes8(size_t r)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)r),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Lanes [0, r) of 4 64-bit lanes set (r <= 4). */
AVX2 static inline __m256i lanes4(size_t r)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)r),
                              _mm256_setr_epi64x(0, 1, 2, 3));
}

/* ---- 4-byte keys: 8 lanes, 32 columns in four registers ---------------- */

AVX2 static inline __m256i img32(__m256i x, __m256i flip, __m256i fneg)
{
    return _mm256_xor_si256(_mm256_xor_si256(x, flip),
                            _mm256_and_si256(_mm256_srai_epi32(x, 31), fneg));
}

/* The minimum of 8 lanes, in every lane. */
AVX2 static inline __m256i hmin32(__m256i v)
{
    v = _mm256_min_epu32(v, _mm256_permute2x128_si256(v, v, 1));
    v = _mm256_min_epu32(v, _mm256_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
    return _mm256_min_epu32(v, _mm256_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
}

/* The m-th smallest of the 32 lanes of a[]: rounds of the minimum, each
 * counting the lanes that hold it and then setting them to all ones, until
 * m are counted (at most m rounds).  The loops over a[] have constant
 * bounds and are unrolled, so that a[] stays in registers (indexed by a
 * variable, as when a round stopped at the first register holding the
 * minimum, it went to the stack: a third of the bound's time). */
AVX2 static uint32_t kth32(__m256i a[4], size_t m)
{
    __m256i mn = _mm256_setzero_si256();
    size_t got = 0, i;
    int r;
    for (i = 0; i < 32 && got < m; i++) {
        uint32_t e = 0;
        mn = hmin32(_mm256_min_epu32(_mm256_min_epu32(a[0], a[1]),
                                     _mm256_min_epu32(a[2], a[3])));
#pragma GCC unroll 4
        for (r = 0; r < 4; r++) {
            __m256i eq = _mm256_cmpeq_epi32(a[r], mn);
            e |= mask32(eq) << (8 * r);
            a[r] = _mm256_or_si256(a[r], eq);
        }
        got += (size_t)__builtin_popcount(e);
    }
    return (uint32_t)_mm256_cvtsi256_si32(mn);
}

AVX2 static uint64_t bound32(const uint32_t *p, size_t len, size_t m,
                             ps_xf xf)
{
    const __m256i flip = _mm256_set1_epi32((int)(uint32_t)xf.flip);
    const __m256i fneg = _mm256_set1_epi32((int)(uint32_t)xf.fneg);
    const __m256i ones = _mm256_set1_epi32(-1);
    __m256i a[4] = { ones, ones, ones, ones };
    size_t j;
    int r;
    for (j = 0; j + 32 <= len; j += 32)
#pragma GCC unroll 4
        for (r = 0; r < 4; r++)
            a[r] = _mm256_min_epu32(a[r], img32(_mm256_loadu_si256(
                       (const __m256i *)(const void *)(p + j + 8 * r)), flip, fneg));
#pragma GCC unroll 4
    for (r = 0; r < 4; r++) {
        /* the short last row: lanes past len read as no key (all ones) */
        size_t at = j + 8 * (size_t)r, left = at < len ? len - at : 0;
        __m256i in = lanes8(left < 8 ? left : 8);
        __m256i x = img32(_mm256_maskload_epi32(
                              (const int *)(const void *)(p + (left ? at : 0)), in),
                          flip, fneg);
        a[r] = _mm256_min_epu32(a[r], _mm256_or_si256(x, _mm256_andnot_si256(in, ones)));
    }
    return kth32(a, m);
}

/* Positions (j + lane, below 2^32: segments here are short) are packed as
 * 32-bit lanes and widened to a + position after, as in ps_topk_x512.c. */
AVX2 static size_t keep32(const uint32_t *p, size_t a, size_t len,
                          uint64_t T, ps_xf xf, size_t *idx, uint32_t *img)
{
    const __m256i flip = _mm256_set1_epi32((int)(uint32_t)xf.flip);
    const __m256i fneg = _mm256_set1_epi32((int)(uint32_t)xf.fneg);
    const __m256i vt = _mm256_set1_epi32((int)(uint32_t)T);
    const __m256i eight = _mm256_set1_epi32(8);
    __m256i pos = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    uint32_t *pos32 = (uint32_t *)(void *)idx;
    size_t j, n = 0;
    for (j = 0; j < len; j += 8) {
        __m256i x, ix;
        unsigned k;
        if (len - j >= 8) {
            x = img32(_mm256_loadu_si256((const __m256i *)(const void *)(p + j)), flip, fneg);
            k = mask32(_mm256_cmpeq_epi32(_mm256_min_epu32(x, vt), x));
        } else {
            __m256i in = lanes8(len - j);
            x = img32(_mm256_maskload_epi32((const int *)(const void *)(p + j), in),
                      flip, fneg);
            k = mask32(_mm256_and_si256(in, _mm256_cmpeq_epi32(_mm256_min_epu32(x, vt), x)));
        }
        ix = perm_of(k);
        _mm256_storeu_si256((__m256i *)(void *)(img + n), _mm256_permutevar8x32_epi32(x, ix));
        _mm256_storeu_si256((__m256i *)(void *)(pos32 + n), _mm256_permutevar8x32_epi32(pos, ix));
        n += (size_t)__builtin_popcount(k);
        pos = _mm256_add_epi32(pos, eight);
    }
    /* Widened from the end: idx[i] (8 bytes) never overlaps pos32[i'] for
     * i' < i, still to be read. */
    for (j = n; j-- > 0;)
        idx[j] = a + pos32[j];
    return n;
}

/* ---- 8-byte keys: 4 lanes, 32 columns in eight registers --------------- */

/* The image with its top bit flipped (bias folded into flip): signed
 * compares order these as unsigned ones order the images. */
AVX2 static inline __m256i simg64(__m256i x, __m256i sflip, __m256i fneg)
{
    __m256i neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), x);
    return _mm256_xor_si256(_mm256_xor_si256(x, sflip), _mm256_and_si256(neg, fneg));
}

AVX2 static inline __m256i min64(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}

AVX2 static inline __m256i hmin64(__m256i v)
{
    v = min64(v, _mm256_permute4x64_epi64(v, _MM_SHUFFLE(1, 0, 3, 2)));
    return min64(v, _mm256_permute4x64_epi64(v, _MM_SHUFFLE(2, 3, 0, 1)));
}

#define BIAS64 ((uint64_t)1 << 63)

/* kth32 for the eight registers of 8-byte images (biased). */
AVX2 static uint64_t kth64(__m256i a[8], size_t m)
{
    const __m256i top = _mm256_set1_epi64x(INT64_MAX);
    __m256i mn = top;
    size_t got = 0, i;
    int r;
    for (i = 0; i < 32 && got < m; i++) {
        uint32_t e = 0;
        mn = hmin64(min64(min64(min64(a[0], a[1]), min64(a[2], a[3])),
                          min64(min64(a[4], a[5]), min64(a[6], a[7]))));
#pragma GCC unroll 8
        for (r = 0; r < 8; r++) {
            __m256i eq = _mm256_cmpeq_epi64(a[r], mn);
            e |= mask64(eq) << (4 * r);
            a[r] = _mm256_blendv_epi8(a[r], top, eq);
        }
        got += (size_t)__builtin_popcount(e);
    }
    return (uint64_t)_mm256_extract_epi64(mn, 0) ^ BIAS64;
}

AVX2 static uint64_t bound64(const uint64_t *p, size_t len, size_t m,
                             ps_xf xf)
{
    const __m256i sflip = _mm256_set1_epi64x((long long)(xf.flip ^ BIAS64));
    const __m256i fneg = _mm256_set1_epi64x((long long)xf.fneg);
    const __m256i top = _mm256_set1_epi64x(INT64_MAX);  /* image all ones */
    __m256i a[8] = { top, top, top, top, top, top, top, top };
    size_t j;
    int r;
    for (j = 0; j + 32 <= len; j += 32)
#pragma GCC unroll 8
        for (r = 0; r < 8; r++)
            a[r] = min64(a[r], simg64(_mm256_loadu_si256(
                       (const __m256i *)(const void *)(p + j + 4 * r)), sflip, fneg));
#pragma GCC unroll 8
    for (r = 0; r < 8; r++) {
        size_t at = j + 4 * (size_t)r, left = at < len ? len - at : 0;
        __m256i in = lanes4(left < 4 ? left : 4);
        __m256i x = simg64(_mm256_maskload_epi64(
                               (const long long *)(const void *)(p + (left ? at : 0)), in),
                           sflip, fneg);
        a[r] = min64(a[r], _mm256_blendv_epi8(top, x, in));
    }
    return kth64(a, m);
}

AVX2 static size_t keep64(const uint64_t *p, size_t a, size_t len,
                          uint64_t T, ps_xf xf, size_t *idx, uint64_t *img)
{
    const __m256i sflip = _mm256_set1_epi64x((long long)(xf.flip ^ BIAS64));
    const __m256i fneg = _mm256_set1_epi64x((long long)xf.fneg);
    const __m256i bias = _mm256_set1_epi64x((long long)BIAS64);
    const __m256i vt = _mm256_set1_epi64x((long long)(T ^ BIAS64));
    const __m256i four = _mm256_set1_epi64x(4);
    __m256i i0 = _mm256_add_epi64(_mm256_set1_epi64x((long long)a),
                                  _mm256_setr_epi64x(0, 1, 2, 3));
    size_t j, n = 0;
    for (j = 0; j < len; j += 4) {
        __m256i x, ix;
        unsigned k;
        if (len - j >= 4) {
            x = simg64(_mm256_loadu_si256((const __m256i *)(const void *)(p + j)), sflip, fneg);
            k = ~mask64(_mm256_cmpgt_epi64(x, vt)) & 15u;
        } else {
            __m256i in = lanes4(len - j);
            x = simg64(_mm256_maskload_epi64((const long long *)(const void *)(p + j), in),
                       sflip, fneg);
            k = ~mask64(_mm256_cmpgt_epi64(x, vt)) & mask64(in);
        }
        ix = perm_of(halves(k));
        _mm256_storeu_si256((__m256i *)(void *)(img + n),
                            _mm256_permutevar8x32_epi32(_mm256_xor_si256(x, bias), ix));
        _mm256_storeu_si256((__m256i *)(void *)(idx + n), _mm256_permutevar8x32_epi32(i0, ix));
        n += (size_t)__builtin_popcount(k);
        i0 = _mm256_add_epi64(i0, four);
    }
    return n;
}

/* ---- the first m of a few survivors, by rank (as ps_topk_x512.c) ------- */

AVX2 static void first_m32(const uint32_t *img, const size_t *idx, size_t c,
                           size_t m, size_t *out)
{
    const __m256i bias = _mm256_set1_epi32(INT32_MIN);
    uint32_t valid = c >= 32 ? UINT32_MAX : (uint32_t)(((uint64_t)1 << c) - 1);
    __m256i s[4];
    size_t i, r;
    for (r = 0; r < 4; r++)     /* biased: signed compares order them */
        s[r] = _mm256_xor_si256(bias, _mm256_maskload_epi32(
                   (const int *)(const void *)(img + 8 * r),
                   lanes8(c > 8 * r ? (c - 8 * r < 8 ? c - 8 * r : 8) : 0)));
    for (i = 0; i < c; i++) {
        __m256i x = _mm256_set1_epi32((int)(img[i] ^ 0x80000000u));
        uint32_t before = (uint32_t)(((uint64_t)1 << i) - 1), lt = 0, eq = 0;
        unsigned rank;
        for (r = 0; r < 4; r++) {
            lt |= mask32(_mm256_cmpgt_epi32(x, s[r])) << (8 * r);
            eq |= mask32(_mm256_cmpeq_epi32(x, s[r])) << (8 * r);
        }
        rank = (unsigned)__builtin_popcount(lt & valid) +
               (unsigned)__builtin_popcount(eq & valid & before);
        if (rank < m)
            out[rank] = idx[i];
    }
}

AVX2 static void first_m64(const uint64_t *img, const size_t *idx, size_t c,
                           size_t m, size_t *out)
{
    const __m256i bias = _mm256_set1_epi64x((long long)BIAS64);
    uint32_t valid = c >= 32 ? UINT32_MAX : (uint32_t)(((uint64_t)1 << c) - 1);
    __m256i s[8];
    size_t i, r;
    for (r = 0; r < 8; r++)
        s[r] = _mm256_xor_si256(bias, _mm256_maskload_epi64(
                   (const long long *)(const void *)(img + 4 * r),
                   lanes4(c > 4 * r ? (c - 4 * r < 4 ? c - 4 * r : 4) : 0)));
    for (i = 0; i < c; i++) {
        __m256i x = _mm256_set1_epi64x((long long)(img[i] ^ BIAS64));
        uint32_t before = (uint32_t)(((uint64_t)1 << i) - 1), lt = 0, eq = 0;
        unsigned rank;
        for (r = 0; r < 8; r++) {
            lt |= mask64(_mm256_cmpgt_epi64(x, s[r])) << (4 * r);
            eq |= mask64(_mm256_cmpeq_epi64(x, s[r])) << (4 * r);
        }
        rank = (unsigned)__builtin_popcount(lt & valid) +
               (unsigned)__builtin_popcount(eq & valid & before);
        if (rank < m)
            out[rank] = idx[i];
    }
}

const ps_topk_vec ps_topk_vec_avx2 = {
    bound32, bound64, keep32, keep64, first_m32, first_m64
};

void ps_topk_avx2_init(void)
{
    perm_init();
}

#endif /* PS_TOPK_VEC */
