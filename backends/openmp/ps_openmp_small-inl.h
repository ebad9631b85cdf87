/*
 * ps_openmp_small-inl.h - one bitonic network over a whole small input of
 * 4- or 8-byte keys, in up to sixteen 512-bit registers
 * (ps_omp_net_small32 and ps_omp_net_small64, ps_openmp_net.h).
 * ps_openmp_net.c includes it once per width, with PS_W defined to 32 or
 * 64, after the one-register networks it builds on (sort16, merge16_dir,
 * sort8q, merge8q).
 */
#if PS_W == 32
#define SM_LANES 16
#define SM_KEY uint32_t
#define SM_MASK __mmask16
#define SM_ALL ((__mmask16)0xffff)
#define SM_MIN _mm512_min_epu32
#define SM_MAX _mm512_max_epu32
#define SM_SRAI(v) _mm512_srai_epi32((v), 31)
#define SM_SET1(x) _mm512_set1_epi32((int)(x))
#define SM_TERN _mm512_ternarylogic_epi32
#define SM_MOV _mm512_mask_mov_epi32
#define SM_LOAD _mm512_maskz_loadu_epi32
#define SM_STORE _mm512_mask_storeu_epi32
#define SM_SORT1 sort16
#define SM_MERGE1 merge16_dir
#elif PS_W == 64
#define SM_LANES 8
#define SM_KEY uint64_t
#define SM_MASK __mmask8
#define SM_ALL ((__mmask8)0xff)
#define SM_MIN _mm512_min_epu64
#define SM_MAX _mm512_max_epu64
#define SM_SRAI(v) _mm512_srai_epi64((v), 63)
#define SM_SET1(x) _mm512_set1_epi64((long long)(x))
#define SM_TERN _mm512_ternarylogic_epi64
#define SM_MOV _mm512_mask_mov_epi64
#define SM_LOAD _mm512_maskz_loadu_epi64
#define SM_STORE _mm512_mask_storeu_epi64
#define SM_SORT1 sort8q
#define SM_MERGE1 merge8q
#else
#error "define PS_W (32 or 64) before including ps_openmp_small-inl.h"
#endif

#define SM_CAT_(a, b) a##b
#define SM_CAT(a, b) SM_CAT_(a, b)
#define SM(name) SM_CAT(name, PS_W)

/* The images (ps_enc32/ps_enc64) of keys and back, lane by lane: the sign
 * smear decides fneg per key, as a whole input's keys need not share
 * their top bit (a bucket's do: bucket_flip). */
PS_NET_INLINE __m512i SM(enc)(__m512i k, __m512i flip, __m512i fneg)
{
    return SM_TERN(k, flip, _mm512_and_si512(SM_SRAI(k), fneg), 0x96);
}

PS_NET_INLINE __m512i SM(dec)(__m512i t, __m512i flip, __m512i fneg)
{
    __m512i u = _mm512_xor_si512(t, flip);
    return _mm512_xor_si512(u, _mm512_and_si512(SM_SRAI(u), fneg));
}

#if PS_W == 32
/* The first stage of sort_regs for sixteen registers of 16 lanes, in
 * fewer instructions than sixteen sort16 (about 200 against 480): sort
 * the 16 columns at once by a network across the registers (Batcher's
 * odd-even merge sort, 63 compare-exchanges of a min and a max each),
 * transpose, so that each register holds a sorted column, and reverse
 * every other one, as sort_regs wants them up and down in turn. */
/* Batcher's odd-even merge sort of 16 inputs: its compare-exchanges,
 * layer by layer. */
static const unsigned char batcher16[63][2] = {
    { 0, 1 }, { 2, 3 }, { 4, 5 }, { 6, 7 }, { 8, 9 }, { 10, 11 }, { 12, 13 },
    { 14, 15 }, { 0, 2 }, { 1, 3 }, { 4, 6 }, { 5, 7 }, { 8, 10 }, { 9, 11 },
    { 12, 14 }, { 13, 15 }, { 1, 2 }, { 5, 6 }, { 9, 10 }, { 13, 14 },
    { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 }, { 8, 12 }, { 9, 13 }, { 10, 14 },
    { 11, 15 }, { 2, 4 }, { 3, 5 }, { 10, 12 }, { 11, 13 }, { 1, 2 },
    { 3, 4 }, { 5, 6 }, { 9, 10 }, { 11, 12 }, { 13, 14 }, { 0, 8 },
    { 1, 9 }, { 2, 10 }, { 3, 11 }, { 4, 12 }, { 5, 13 }, { 6, 14 },
    { 7, 15 }, { 4, 8 }, { 5, 9 }, { 6, 10 }, { 7, 11 }, { 2, 4 }, { 3, 5 },
    { 6, 8 }, { 7, 9 }, { 10, 12 }, { 11, 13 }, { 1, 2 }, { 3, 4 }, { 5, 6 },
    { 7, 8 }, { 9, 10 }, { 11, 12 }, { 13, 14 }
};

#define PS_CE(a, b)                                                          \
    do {                                                                     \
        __m512i lo_ = _mm512_min_epu32(r[a], r[b]);                          \
        r[b] = _mm512_max_epu32(r[a], r[b]);                                 \
        r[a] = lo_;                                                          \
    } while (0)

PS_NET_INLINE void cols16(__m512i *r)
{
    __m512i t[16], u[16];
    const __m512i rev = _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                         11, 12, 13, 14, 15);
    unsigned i, c;

#pragma GCC unroll 63
    for (i = 0; i < sizeof batcher16 / sizeof batcher16[0]; i++)
        PS_CE(batcher16[i][0], batcher16[i][1]);

    /* Transpose: pairs of rows interleaved by 32, then by 64 bits, which
     * leaves in u[4g + c] rows 4g..4g+3 of columns c, c+4, c+8, c+12, one
     * in each 128-bit lane; then the lanes of four such gathered. */
#pragma GCC unroll 8
    for (i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
#pragma GCC unroll 4
    for (i = 0; i < 16; i += 4) {
        u[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
        u[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
        u[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
        u[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
#pragma GCC unroll 4
    for (c = 0; c < 4; c++) {
        __m512i a = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x88);
        __m512i b = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x88);
        __m512i a2 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xdd);
        __m512i b2 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xdd);
        r[c] = _mm512_shuffle_i32x4(a, b, 0x88);
        r[c + 8] = _mm512_shuffle_i32x4(a, b, 0xdd);
        r[c + 4] = _mm512_shuffle_i32x4(a2, b2, 0x88);
        r[c + 12] = _mm512_shuffle_i32x4(a2, b2, 0xdd);
    }
#pragma GCC unroll 8
    for (i = 1; i < 16; i += 2)
        r[i] = _mm512_permutexvar_epi32(rev, r[i]);
}
#undef PS_CE
#endif

/* Bitonic sort of the nr (a power of two, at most 16) registers r, lane
 * order within a register, register order across: each register sorted,
 * alternately up and down, then blocks of 2, 4, ... registers merged, a
 * block up when its index is even.  The loops are unrolled (nr is a
 * constant where this is inlined), so that r stays in registers: with
 * 16 of them a few spill. */
PS_NET_INLINE void SM(sort_regs)(__m512i *r, const unsigned nr)
{
    unsigned s, j, d, i;
#if PS_W == 32
    if (nr == 16)
        cols16(r);
    else
#endif
#pragma GCC unroll 16
    for (i = 0; i < nr; i++)
        r[i] = SM_SORT1(r[i], (i & 1) ? 0 : SM_ALL);
#pragma GCC unroll 4
    for (s = 2; s <= nr; s *= 2)
#pragma GCC unroll 8
        for (j = 0; j < nr; j += s) {
            SM_MASK up = (j / s) & 1 ? 0 : SM_ALL;
#pragma GCC unroll 4
            for (d = s / 2; d >= 1; d /= 2)
#pragma GCC unroll 16
                for (i = j; i < j + s; i++)
                    if (!(i & d)) {
                        __m512i lo = SM_MIN(r[i], r[i + d]);
                        __m512i hi = SM_MAX(r[i], r[i + d]);
                        r[i] = up ? lo : hi;
                        r[i + d] = up ? hi : lo;
                    }
#pragma GCC unroll 16
            for (i = j; i < j + s; i++)
                r[i] = SM_MERGE1(r[i], up);
        }
}

/* Lanes of register i that hold keys, of n. */
PS_NET_INLINE SM_MASK SM(lanes)(uint32_t n, unsigned i)
{
    uint32_t c = n > SM_LANES * i ? n - SM_LANES * i : 0;
    return c >= SM_LANES ? SM_ALL : (SM_MASK)((1u << c) - 1);
}

/* Sort the n keys at p (SM_LANES (nr - 1) < n <= SM_LANES nr) in place;
 * lanes past n hold all ones, which sort last and are not stored. */
PS_NET_INLINE void SM(small)(SM_KEY *p, uint32_t n, const unsigned nr,
                             __m512i flip, __m512i fneg)
{
    __m512i r[16];
    unsigned i;
#pragma GCC unroll 16
    for (i = 0; i < nr; i++) {
        SM_MASK k = SM(lanes)(n, i);
        r[i] = SM_MOV(SM_SET1(-1), k,
                      SM(enc)(SM_LOAD(k, p + SM_LANES * i), flip, fneg));
    }
    SM(sort_regs)(r, nr);
#pragma GCC unroll 16
    for (i = 0; i < nr; i++)
        SM_STORE(p + SM_LANES * i, SM(lanes)(n, i), SM(dec)(r[i], flip, fneg));
}

PS_AVX512 void SM(ps_omp_net_small)(SM_KEY *keys, uint32_t n, SM_KEY flip,
                                    SM_KEY fneg)
{
    __m512i f = SM_SET1(flip), g = SM_SET1(fneg);
    if (n <= SM_LANES)
        SM(small)(keys, n, 1, f, g);
    else if (n <= 2 * SM_LANES)
        SM(small)(keys, n, 2, f, g);
    else if (n <= 4 * SM_LANES)
        SM(small)(keys, n, 4, f, g);
    else if (n <= 8 * SM_LANES)
        SM(small)(keys, n, 8, f, g);
    else
        SM(small)(keys, n, 16, f, g);
}

#undef SM
#undef SM_CAT
#undef SM_CAT_
#undef SM_LANES
#undef SM_KEY
#undef SM_MASK
#undef SM_ALL
#undef SM_MIN
#undef SM_MAX
#undef SM_SRAI
#undef SM_SET1
#undef SM_TERN
#undef SM_MOV
#undef SM_LOAD
#undef SM_STORE
#undef SM_SORT1
#undef SM_MERGE1
