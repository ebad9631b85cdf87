/*
 * ps_topk_x512.c - the column bound of ps_topk.c's short segments in
 * AVX-512, for 4- and 8-byte keys.
 *
 * ps_topk.c bounds the m-th key of a short segment by the m-th smallest
 * of its column minima and keeps the keys at or below that bound, in
 * 16-byte vectors of the baseline ISA.  There a segment of 1000 u32 keys
 * cost about 5000 cycles (k = 10, Zen 5): the unsigned compares are
 * emulated, the bound came from a radix select of 32 minima, and a
 * mispredicted branch followed each vector holding a survivor.  Here the
 * minima are vpminud/vpminuq over 32 columns, the m-th of them is taken
 * by a bitonic sort of the minima (m rounds of a reduction for 8-byte
 * keys), and every vector's survivors are
 * compress-stored without a branch (compressed in a register, then one
 * store: a compress straight to memory is microcoded on Zen 4).
 *
 * Chosen at run time (ps_topk_vec.c) where the CPU has AVX-512F;
 * ps_topk_avx2.c is the same in 256-bit registers.
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>

#include "ps_topk_vec.h"

#if PS_TOPK_VEC

#include <immintrin.h>

#define X512 __attribute__((target("avx512f")))

/* ---- 4-byte keys: 16 lanes, 32 columns in two registers ---------------- */

X512 static inline __m512i img32(__m512i x, __m512i flip, __m512i fneg)
{
    return _mm512_xor_si512(_mm512_xor_si512(x, flip),
                            _mm512_and_si512(_mm512_srai_epi32(x, 31), fneg));
}

/* Lanes [0, r) of 16 (r <= 16). */
static inline __mmask16 lanes16(size_t r)
{
    return r >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << r) - 1);
}

/* One compare-exchange stage of a bitonic network on 16 lanes: lane i
 * meets lane i ^ j and keeps the smaller where bit i of lo is set. */
X512 static inline __m512i stage16(__m512i v, int j, __mmask16 lo)
{
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                           11, 12, 13, 14, 15);
    __m512i q = _mm512_permutexvar_epi32(_mm512_xor_si512(iota,
                                             _mm512_set1_epi32(j)), v);
    return _mm512_mask_blend_epi32(lo, _mm512_max_epu32(v, q),
                                   _mm512_min_epu32(v, q));
}

/* The last four stages: a bitonic sequence of 16 sorted ascending. */
X512 static inline __m512i merge16(__m512i v)
{
    v = stage16(v, 8, 0x00FF);
    v = stage16(v, 4, 0x0F0F);
    v = stage16(v, 2, 0x3333);
    return stage16(v, 1, 0x5555);
}

/* 16 lanes sorted ascending (Batcher's bitonic sort: blocks of 2, 4 and 8
 * sorted in alternate directions, then merged). */
X512 static inline __m512i sort16(__m512i v)
{
    v = stage16(v, 1, 0x9999);
    v = stage16(v, 2, 0xC3C3);
    v = stage16(v, 1, 0xA5A5);
    v = stage16(v, 4, 0xF00F);
    v = stage16(v, 2, 0xCC33);
    v = stage16(v, 1, 0xAA55);
    return merge16(v);
}

/* The m-th smallest (1 <= m <= 16) of the 32 lanes of a0 and a1: both
 * sorted, the smaller of a0's i-th and a1's (15 - i)-th are the 16
 * smallest of all (a bitonic sequence), merged. */
X512 static uint32_t kth32(__m512i a0, __m512i a1, size_t m)
{
    const __m512i rev = _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                                          5, 4, 3, 2, 1, 0);
    uint32_t out[16];
    a0 = sort16(a0);
    a1 = _mm512_permutexvar_epi32(rev, sort16(a1));
    _mm512_storeu_si512(out, merge16(_mm512_min_epu32(a0, a1)));
    return out[m - 1];
}

X512 static uint64_t bound32(const uint32_t *p, size_t len, size_t m,
                             ps_xf xf)
{
    const __m512i flip = _mm512_set1_epi32((int)(uint32_t)xf.flip);
    const __m512i fneg = _mm512_set1_epi32((int)(uint32_t)xf.fneg);
    __m512i a0 = _mm512_set1_epi32(-1), a1 = a0;
    size_t j;
    for (j = 0; j + 32 <= len; j += 32) {
        a0 = _mm512_min_epu32(a0, img32(_mm512_loadu_si512(p + j), flip, fneg));
        a1 = _mm512_min_epu32(a1, img32(_mm512_loadu_si512(p + j + 16), flip,
                                         fneg));
    }
    if (j < len) {          /* the short last row: lanes past len left out */
        __mmask16 k0 = lanes16(len - j), k1 = lanes16(len - j > 16 ? len - j - 16 : 0);
        a0 = _mm512_mask_min_epu32(a0, k0, a0,
                 img32(_mm512_maskz_loadu_epi32(k0, p + j), flip, fneg));
        a1 = _mm512_mask_min_epu32(a1, k1, a1,
                 img32(_mm512_maskz_loadu_epi32(k1, p + j + 16), flip, fneg));
    }
    return kth32(a0, a1, m);
}

/* Positions (j + lane, below 2^32: segments here are short) are
 * compressed as 32-bit lanes, one compress a vector less than 64-bit
 * indices would take, and widened to a + position after. */
X512 static size_t keep32(const uint32_t *p, size_t a, size_t len,
                          uint64_t T, ps_xf xf, size_t *idx, uint32_t *img)
{
    const __m512i flip = _mm512_set1_epi32((int)(uint32_t)xf.flip);
    const __m512i fneg = _mm512_set1_epi32((int)(uint32_t)xf.fneg);
    const __m512i vt = _mm512_set1_epi32((int)(uint32_t)T);
    const __m512i sixteen = _mm512_set1_epi32(16);
    __m512i pos = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                    13, 14, 15);
    uint32_t *pos32 = (uint32_t *)(void *)idx;
    size_t j, n = 0;
    for (j = 0; j < len; j += 16) {
        __mmask16 in = lanes16(len - j);
        __m512i x = img32(_mm512_maskz_loadu_epi32(in, p + j), flip, fneg);
        __mmask16 k = _mm512_mask_cmple_epu32_mask(in, x, vt);
        _mm512_storeu_si512(img + n, _mm512_maskz_compress_epi32(k, x));
        _mm512_storeu_si512(pos32 + n, _mm512_maskz_compress_epi32(k, pos));
        n += (size_t)__builtin_popcount((unsigned)k);
        pos = _mm512_add_epi32(pos, sixteen);
    }
    /* Widened from the end: idx[i] (8 bytes) never overlaps pos32[i'] for
     * i' < i, still to be read. */
    for (j = n; j-- > 0;)
        idx[j] = a + pos32[j];
    return n;
}

/* ---- 8-byte keys: 8 lanes, 32 columns in four registers ---------------- */

X512 static inline __m512i img64(__m512i x, __m512i flip, __m512i fneg)
{
    return _mm512_xor_si512(_mm512_xor_si512(x, flip),
                            _mm512_and_si512(_mm512_srai_epi64(x, 63), fneg));
}

static inline __mmask8 lanes8(size_t r)
{
    return r >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << r) - 1);
}

X512 static uint64_t bound64(const uint64_t *p, size_t len, size_t m,
                             ps_xf xf)
{
    const __m512i flip = _mm512_set1_epi64((long long)xf.flip);
    const __m512i fneg = _mm512_set1_epi64((long long)xf.fneg);
    const __m512i ones = _mm512_set1_epi64(-1);
    __m512i a[4] = { ones, ones, ones, ones };
    uint64_t t = UINT64_MAX;
    size_t j, r;
    for (j = 0; j + 32 <= len; j += 32)
        for (r = 0; r < 4; r++)
            a[r] = _mm512_min_epu64(a[r], img64(_mm512_loadu_si512(p + j + 8 * r),
                                                flip, fneg));
    for (r = 0; j + 8 * r < len && r < 4; r++) {
        __mmask8 k = lanes8(len - j - 8 * r);
        a[r] = _mm512_mask_min_epu64(a[r], k, a[r],
                   img64(_mm512_maskz_loadu_epi64(k, p + j + 8 * r), flip, fneg));
    }
    for (j = 0; j < m; j++) {
        __m512i mn;
        t = (uint64_t)_mm512_reduce_min_epu64(
                _mm512_min_epu64(_mm512_min_epu64(a[0], a[1]),
                                 _mm512_min_epu64(a[2], a[3])));
        mn = _mm512_set1_epi64((long long)t);
        for (r = 0; r < 4; r++) {
            __mmask8 e = _mm512_cmpeq_epu64_mask(a[r], mn);
            if (e != 0) {
                a[r] = _mm512_mask_mov_epi64(a[r], (__mmask8)(e & -e), ones);
                break;
            }
        }
    }
    return t;
}

X512 static size_t keep64(const uint64_t *p, size_t a, size_t len,
                          uint64_t T, ps_xf xf, size_t *idx, uint64_t *img)
{
    const __m512i flip = _mm512_set1_epi64((long long)xf.flip);
    const __m512i fneg = _mm512_set1_epi64((long long)xf.fneg);
    const __m512i vt = _mm512_set1_epi64((long long)T);
    const __m512i step = _mm512_set1_epi64(8);
    __m512i i0 = _mm512_add_epi64(_mm512_set1_epi64((long long)a),
                                  _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    size_t j, n = 0;
    for (j = 0; j < len; j += 8) {
        __mmask8 in = lanes8(len - j);
        __m512i x = img64(_mm512_maskz_loadu_epi64(in, p + j), flip, fneg);
        __mmask8 k = _mm512_mask_cmple_epu64_mask(in, x, vt);
        _mm512_storeu_si512(img + n, _mm512_maskz_compress_epi64(k, x));
        _mm512_storeu_si512(idx + n, _mm512_maskz_compress_epi64(k, i0));
        n += (size_t)__builtin_popcount((unsigned)k);
        i0 = _mm512_add_epi64(i0, step);
    }
    return n;
}

/* ---- the first m of a few survivors, by rank --------------------------
 *
 * Survivor i's place in the (image, index) order is the number of
 * survivors with a smaller image plus those before it with an equal one
 * (they are in index order): two compares and popcounts a register, no
 * branch but the store of the m first.  An insertion sort of 15 survivors
 * was a fifth of a segment's time (k = 10 in segments of 1000). */
X512 static void first_m32(const uint32_t *img, const size_t *idx, size_t c,
                           size_t m, size_t *out)
{
    __mmask16 v0 = lanes16(c), v1 = lanes16(c > 16 ? c - 16 : 0);
    __m512i a0 = _mm512_maskz_loadu_epi32(v0, img);
    __m512i a1 = _mm512_maskz_loadu_epi32(v1, img + 16);
    size_t i;
    for (i = 0; i < c; i++) {
        __m512i x = _mm512_set1_epi32((int)img[i]);
        uint32_t before = (uint32_t)(((uint64_t)1 << i) - 1);
        unsigned r = (unsigned)__builtin_popcount(
                         _mm512_mask_cmplt_epu32_mask(v0, a0, x)) +
                     (unsigned)__builtin_popcount(
                         _mm512_mask_cmplt_epu32_mask(v1, a1, x)) +
                     (unsigned)__builtin_popcount(
                         _mm512_mask_cmpeq_epu32_mask((__mmask16)(v0 & before),
                                                      a0, x)) +
                     (unsigned)__builtin_popcount(
                         _mm512_mask_cmpeq_epu32_mask(
                             (__mmask16)(v1 & (before >> 16)), a1, x));
        if (r < m)
            out[r] = idx[i];
    }
}

X512 static void first_m64(const uint64_t *img, const size_t *idx, size_t c,
                           size_t m, size_t *out)
{
    __mmask8 v[4];
    __m512i a[4];
    size_t i, r;
    for (r = 0; r < 4; r++) {
        v[r] = lanes8(c > 8 * r ? c - 8 * r : 0);
        a[r] = _mm512_maskz_loadu_epi64(v[r], img + 8 * r);
    }
    for (i = 0; i < c; i++) {
        __m512i x = _mm512_set1_epi64((long long)img[i]);
        uint32_t before = (uint32_t)(((uint64_t)1 << i) - 1);
        unsigned rank = 0;
        for (r = 0; r < 4; r++)
            rank += (unsigned)__builtin_popcount(
                        _mm512_mask_cmplt_epu64_mask(v[r], a[r], x)) +
                    (unsigned)__builtin_popcount(
                        _mm512_mask_cmpeq_epu64_mask(
                            (__mmask8)(v[r] & (before >> (8 * r))), a[r], x));
        if (rank < m)
            out[rank] = idx[i];
    }
}

const ps_topk_vec ps_topk_vec_x512 = {
    bound32, bound64, keep32, keep64, first_m32, first_m64
};

#endif /* PS_TOPK_VEC */
