/*
 * ps_openmp_net.c - bitonic sorting networks for the small buckets of the
 * OpenMP backend's leaves (ps_openmp_net.h says when and why).
 *
 * Only these functions use AVX-512 or AVX2, through target attributes: the
 * rest of the library stays built for the baseline ISA, and the backend
 * calls them after ps_omp_net_isa() said which the CPU runs.
 */
#include <config.h>


#include "ps_openmp_net.h"

#if defined(PS_HAVE_AVX512_TARGET)

#include <immintrin.h>

#define PS_AVX512 __attribute__((target("avx512f")))
/* Forced: when sort_bucket had two callers, gcc made it a call, and the
 * networks ran 60% slower (u32 at 16M: 12% slower in all). */
#define PS_NET_INLINE \
    static inline __attribute__((always_inline, target("avx512f")))

int ps_omp_net_isa(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return PS_NET_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return PS_NET_AVX2;
    return PS_NET_NONE;
}

/* One compare-exchange step between each lane and the lane its partner
 * shuffle brings: the smaller stays where `hi` has a 0, the greater where
 * it has a 1.  Three instructions: the shuffle, a min, a masked max. */
#define PS_NET_STEP(v, partner, hi)                                          \
    do {                                                                     \
        __m512i p_ = (partner);                                              \
        (v) = _mm512_mask_max_epu32(_mm512_min_epu32((v), p_), (hi), (v), p_); \
    } while (0)

/* Partners at distance 1, 2, 4 and 8 lanes.  In-lane and 128-bit lane
 * shuffles with immediates: cheaper than a general permute. */
#define PS_D1(v) _mm512_shuffle_epi32((v), _MM_PERM_CDAB)
#define PS_D2(v) _mm512_shuffle_epi32((v), _MM_PERM_BADC)
#define PS_D4(v) _mm512_shuffle_i64x2((v), (v), _MM_SHUFFLE(2, 3, 0, 1))
#define PS_D8(v) _mm512_shuffle_i64x2((v), (v), _MM_SHUFFLE(1, 0, 3, 2))

/* The last four steps of a 16-lane bitonic sort: a bitonic sequence in,
 * ascending out. */
PS_NET_INLINE __m512i merge16(__m512i v)
{
    PS_NET_STEP(v, PS_D8(v), 0xff00);
    PS_NET_STEP(v, PS_D4(v), 0xf0f0);
    PS_NET_STEP(v, PS_D2(v), 0xcccc);
    PS_NET_STEP(v, PS_D1(v), 0xaaaa);
    return v;
}

/* Bitonic sort of 16 lanes, ascending when up is all ones, descending when
 * it is 0: lane i of the step at distance j in stage k takes the greater
 * key when (i & j) differs from (i & k) (all stages ascending for the last
 * one); a descending sort takes the other one everywhere. */
PS_NET_INLINE __m512i sort16(__m512i v, __mmask16 up)
{
    PS_NET_STEP(v, PS_D1(v), (__mmask16)(0x6666 ^ ~up));
    PS_NET_STEP(v, PS_D2(v), (__mmask16)(0x3c3c ^ ~up));
    PS_NET_STEP(v, PS_D1(v), (__mmask16)(0x5a5a ^ ~up));
    PS_NET_STEP(v, PS_D4(v), (__mmask16)(0x0ff0 ^ ~up));
    PS_NET_STEP(v, PS_D2(v), (__mmask16)(0x33cc ^ ~up));
    PS_NET_STEP(v, PS_D1(v), (__mmask16)(0x55aa ^ ~up));
    PS_NET_STEP(v, PS_D8(v), (__mmask16)(0xff00 ^ ~up));
    PS_NET_STEP(v, PS_D4(v), (__mmask16)(0xf0f0 ^ ~up));
    PS_NET_STEP(v, PS_D2(v), (__mmask16)(0xcccc ^ ~up));
    PS_NET_STEP(v, PS_D1(v), (__mmask16)(0xaaaa ^ ~up));
    return v;
}

/* The first `cnt` (1..16) keys at p as images (key ^ flip), the other
 * lanes all ones, so that they sort last.  The masked load reads nothing
 * past p + cnt. */
PS_NET_INLINE __m512i load_images(const uint32_t *p, unsigned cnt,
                                  __m512i flip)
{
    __mmask16 k = (__mmask16)((1u << cnt) - 1);
    return _mm512_mask_xor_epi32(_mm512_set1_epi32(-1), k,
                                 _mm512_maskz_loadu_epi32(k, p), flip);
}

/* Store the keys of images v at p: all 16 lanes when `whole` (the lanes
 * past the bucket land on later buckets' places, which are written after
 * this one), else only the first cnt. */
PS_NET_INLINE void store_keys(uint32_t *p, __m512i v, __m512i flip,
                              unsigned cnt, int whole)
{
    v = _mm512_xor_si512(v, flip);
    if (whole)
        _mm512_storeu_si512(p, v);
    else
        _mm512_mask_storeu_epi32(p, (__mmask16)((1u << cnt) - 1), v);
}

/* Sort cnt (1..PS_NET_MAX) keys from `from` into `to`, by their images
 * (key ^ flip).  room: how many keys `to` may take (whole registers are
 * stored when they fit, the lanes past cnt landing on later buckets'
 * places, which are written after this one). */
PS_NET_INLINE void sort_bucket(const uint32_t *from, uint32_t *to,
                               uint32_t cnt, uint32_t room,
                               __m512i f)
{
    if (cnt <= 16) {
        __m512i v = sort16(load_images(from, cnt, f), 0xffff);
        store_keys(to, v, f, cnt, room >= 16);
    } else {
        /* Two sorted halves, the second descending, form a bitonic
         * sequence of 32: one step across the registers, then each half
         * is merged on its own. */
        __m512i a = _mm512_xor_si512(_mm512_loadu_si512(from), f);
        __m512i b = load_images(from + 16, cnt - 16, f);
        __m512i lo, hi;
        a = sort16(a, 0xffff);
        b = sort16(b, 0);
        lo = merge16(_mm512_min_epu32(a, b));
        hi = merge16(_mm512_max_epu32(a, b));
        store_keys(to, lo, f, 16, 1);
        store_keys(to + 16, hi, f, cnt - 16, room >= 32);
    }
}

/* The images of a bucket whose first key is k: keys of a bucket share
 * their top bit, so one xor serves the whole bucket. */
PS_NET_INLINE __m512i bucket_flip(uint32_t k, uint32_t flip,
                                  uint32_t fneg)
{
    return _mm512_set1_epi32((int)(flip ^ (fneg & (0u - (k >> 31)))));
}

PS_AVX512 void ps_omp_net_slots32(const uint32_t *slots, uint32_t *dst,
                                  const uint32_t *ends, size_t nb, uint32_t m,
                                  uint32_t flip, uint32_t fneg)
{
    uint32_t o = 0;
    size_t d;

    for (d = 0; d < nb; d++) {
        const uint32_t *from = slots + d * PS_NET_MAX;
        uint32_t cnt = ends[d] - (uint32_t)d * PS_NET_MAX;
        if (cnt == 0)
            continue;
        sort_bucket(from, dst + o, cnt, m - o,
                    bucket_flip(from[0], flip, fneg));
        o += cnt;
    }
}

/* ---- packed pairs: 8 lanes of 64 bits ------------------------------ */

/* Partners at distance 1, 2 and 4 lanes of 64 bits. */
#define PS_Q1(v) _mm512_shuffle_epi32((v), _MM_PERM_BADC)
#define PS_Q2(v) _mm512_shuffle_i64x2((v), (v), _MM_SHUFFLE(2, 3, 0, 1))
#define PS_Q4(v) _mm512_shuffle_i64x2((v), (v), _MM_SHUFFLE(1, 0, 3, 2))

#define PS_NETQ_STEP(v, partner, hi)                                         \
    do {                                                                     \
        __m512i p_ = (partner);                                              \
        (v) = _mm512_mask_max_epu64(_mm512_min_epu64((v), p_), (hi), (v), p_); \
    } while (0)

/* Bitonic merge of 8 lanes: up all ones for ascending, 0 descending. */
PS_NET_INLINE __m512i merge8q(__m512i v, __mmask8 up)
{
    PS_NETQ_STEP(v, PS_Q4(v), (__mmask8)(0xf0 ^ ~up));
    PS_NETQ_STEP(v, PS_Q2(v), (__mmask8)(0xcc ^ ~up));
    PS_NETQ_STEP(v, PS_Q1(v), (__mmask8)(0xaa ^ ~up));
    return v;
}

/* Bitonic sort of 8 lanes, masks as in sort16. */
PS_NET_INLINE __m512i sort8q(__m512i v, __mmask8 up)
{
    PS_NETQ_STEP(v, PS_Q1(v), (__mmask8)(0x66 ^ ~up));
    PS_NETQ_STEP(v, PS_Q2(v), (__mmask8)(0x3c ^ ~up));
    PS_NETQ_STEP(v, PS_Q1(v), (__mmask8)(0x5a ^ ~up));
    return merge8q(v, up);
}

/* Sort the bitonic sequence of 16 lanes in r0, r1 (r0 first). */
PS_NET_INLINE void merge16q(__m512i *r0, __m512i *r1, __mmask8 up)
{
    __m512i lo = _mm512_min_epu64(*r0, *r1), hi = _mm512_max_epu64(*r0, *r1);
    *r0 = merge8q(up ? lo : hi, up);
    *r1 = merge8q(up ? hi : lo, up);
}

/* Sort 16 lanes in r0, r1 (r0 first). */
PS_NET_INLINE void sort16q(__m512i *r0, __m512i *r1, __mmask8 up)
{
    *r0 = sort8q(*r0, 0xff);
    *r1 = sort8q(*r1, 0);
    merge16q(r0, r1, up);
}

/* The sort key of a packed element e = key << 32 | value at position pos
 * of its bucket: the key's image (fhi holds the bucket's flip in the odd
 * 32-bit lanes) shifted up by 5, the position in those 5 bits, the value
 * below.  Ordering these 64-bit numbers orders by key, then by position:
 * stable.  The 5 bits shifted out are the image's top bits, the same in
 * every key of the bucket (the caller sees to it), and lanes past cnt
 * (0..8) become all ones, which sort last. */
PS_NET_INLINE __m512i pk_lanes(const uint64_t *p, unsigned cnt, __m512i fhi,
                               __m512i pos)
{
    __mmask8 k = (__mmask8)((1u << cnt) - 1);
    __m512i x = _mm512_xor_si512(_mm512_maskz_loadu_epi64(k, p), fhi);
    x = _mm512_mask_slli_epi32(x, 0xaaaa, x, 5);
    return _mm512_mask_or_epi64(_mm512_set1_epi64(-1), k, x, pos);
}

/* Undo pk_lanes for the first cnt (0..8) lanes of v: keys to k (the top 5
 * bits from khi, the flip undone with flo), values to val; all 8 lanes
 * when `whole` (as in store_keys). */
PS_NET_INLINE void pk_store(void *k, void *val, __m512i v, __m512i flo,
                            __m512i khi, unsigned cnt, int whole)
{
    __mmask8 m = whole ? 0xff : (__mmask8)((1u << cnt) - 1);
    v = _mm512_mask_srli_epi32(v, 0xaaaa, v, 5);
    v = _mm512_ternarylogic_epi32(v, flo, khi, 0xbe);  /* (v ^ flo) | khi */
    _mm512_mask_cvtepi64_storeu_epi32(val, m, v);
    _mm512_mask_cvtepi64_storeu_epi32(k, m, _mm512_srli_epi64(v, 32));
}

/* How many of cnt keys fall in lanes [8 i, 8 i + 8). */
static inline unsigned lanes_in(uint32_t cnt, unsigned i)
{
    return cnt <= 8 * i ? 0 : cnt - 8 * i >= 8 ? 8 : cnt - 8 * i;
}

/* What a bucket of 64-bit lanes comes from and goes to: 8-byte keys
 * (pairs = 0: f is the bucket's flip, dst the output), or packed pairs
 * (pairs = 1: f, flo, khi and pos as pk_lanes and pk_store take them,
 * keys and values to k and v). */
typedef struct net_q {
    __m512i f, flo, khi, pos[4];
    uint64_t *dst;
    char *k, *v;
} net_q;

/* Register i (lanes [8 i, 8 i + 8)) of the bucket at p, cnt (0..8) of
 * them real: images, the rest all ones. */
PS_NET_INLINE __m512i q_load(const uint64_t *p, unsigned cnt, unsigned i,
                             const net_q *q, const int pairs)
{
    __mmask8 k = (__mmask8)((1u << cnt) - 1);
    if (pairs)
        return pk_lanes(p + 8 * i, cnt, q->f, q->pos[i]);
    return _mm512_mask_xor_epi64(_mm512_set1_epi64(-1), k,
                                 _mm512_maskz_loadu_epi64(k, p + 8 * i), q->f);
}

/* Store the first cnt lanes of v at output place o, all 8 when whole. */
PS_NET_INLINE void q_store(__m512i v, uint32_t o, unsigned cnt, int whole,
                           const net_q *q, const int pairs)
{
    if (pairs) {
        pk_store(q->k + 4 * (size_t)o, q->v + 4 * (size_t)o, v, q->flo, q->khi,
                 cnt, whole);
    } else {
        v = _mm512_xor_si512(v, q->f);
        if (whole)
            _mm512_storeu_si512(q->dst + o, v);
        else
            _mm512_mask_storeu_epi64(q->dst + o,
                                     (__mmask8)((1u << cnt) - 1), v);
    }
}

/* Sort the cnt (1..32) elements at `from` into output places [o, o + cnt)
 * with the smallest network that holds them; room: the places left up to
 * the end of the output (as in sort_bucket).  Each size written out, so
 * that every register index is a constant: with loops over a register
 * array, gcc kept it in memory, and pairs at 16M ran 15% slower. */
PS_NET_INLINE void bucket_q(const uint64_t *from, uint32_t o, uint32_t cnt,
                            uint32_t room, const net_q *q, const int pairs)
{
    __m512i r0, r1, r2, r3, lo;
    if (cnt <= 8) {
        r0 = sort8q(q_load(from, cnt, 0, q, pairs), 0xff);
        q_store(r0, o, cnt, room >= 8, q, pairs);
    } else if (cnt <= 16) {
        r0 = q_load(from, 8, 0, q, pairs);
        r1 = q_load(from, cnt - 8, 1, q, pairs);
        sort16q(&r0, &r1, 0xff);
        q_store(r0, o, 8, 1, q, pairs);
        q_store(r1, o + 8, cnt - 8, room >= 16, q, pairs);
    } else {
        /* Two sorted halves of 16, the second descending, one step
         * across the halves, then each half merged. */
        r0 = q_load(from, 8, 0, q, pairs);
        r1 = q_load(from, 8, 1, q, pairs);
        r2 = q_load(from, lanes_in(cnt, 2), 2, q, pairs);
        r3 = q_load(from, lanes_in(cnt, 3), 3, q, pairs);
        sort16q(&r0, &r1, 0xff);
        sort16q(&r2, &r3, 0);
        lo = _mm512_min_epu64(r0, r2);
        r2 = _mm512_max_epu64(r0, r2);
        r0 = lo;
        lo = _mm512_min_epu64(r1, r3);
        r3 = _mm512_max_epu64(r1, r3);
        r1 = lo;
        merge16q(&r0, &r1, 0xff);
        merge16q(&r2, &r3, 0xff);
        q_store(r0, o, 8, 1, q, pairs);
        q_store(r1, o + 8, 8, 1, q, pairs);
        q_store(r2, o + 16, lanes_in(cnt, 2), room >= 24, q, pairs);
        q_store(r3, o + 24, lanes_in(cnt, 3), room >= 32, q, pairs);
    }
}

PS_AVX512 void ps_omp_net_slots64(const uint64_t *slots, uint64_t *dst,
                                  const uint32_t *ends, size_t nb, uint32_t m,
                                  uint64_t flip, uint64_t fneg)
{
    net_q q;
    uint32_t o = 0;
    size_t d;

    q.dst = dst;
    for (d = 0; d < nb; d++) {
        const uint64_t *from = slots + d * PS_NET_MAX;
        uint32_t cnt = ends[d] - (uint32_t)d * PS_NET_MAX;
        if (cnt == 0)
            continue;
        q.f = _mm512_set1_epi64(
            (long long)(flip ^ (fneg & (0 - (from[0] >> 63)))));
        bucket_q(from, o, cnt, m - o, &q, 0);
        o += cnt;
    }
}

PS_AVX512 void ps_omp_net_pairs32(const uint64_t *slots, void *keys,
                                  void *vals, const uint32_t *ends,
                                  size_t nb, uint32_t m, uint32_t flip,
                                  uint32_t fneg)
{
    net_q q;
    uint32_t o = 0;
    size_t d;
    unsigned i;

    q.k = keys;
    q.v = vals;
    for (i = 0; i < 4; i++)
        q.pos[i] = _mm512_set_epi64((8LL * i + 7) << 32, (8LL * i + 6) << 32,
                                    (8LL * i + 5) << 32, (8LL * i + 4) << 32,
                                    (8LL * i + 3) << 32, (8LL * i + 2) << 32,
                                    (8LL * i + 1) << 32, (8LL * i) << 32);
    for (d = 0; d < nb; d++) {
        const uint64_t *from = slots + d * PS_NET_MAX;
        uint32_t cnt = ends[d] - (uint32_t)d * PS_NET_MAX, key0, f;
        if (cnt == 0)
            continue;
        key0 = (uint32_t)(from[0] >> 32);
        f = flip ^ (fneg & (0u - (key0 >> 31)));
        q.f = _mm512_set1_epi64((long long)((uint64_t)f << 32));
        q.flo = _mm512_set1_epi64(
            (long long)((uint64_t)(f & 0x07ffffffu) << 32));
        q.khi = _mm512_set1_epi64(
            (long long)((uint64_t)(key0 & 0xf8000000u) << 32));
        bucket_q(from, o, cnt, m - o, &q, 1);
        o += cnt;
    }
}

/* ---- 4-byte keys with AVX2: 8 lanes a register ---------------------- *
 * The same networks as above in 256-bit registers, for CPUs without
 * AVX-512.  AVX2's blend takes an immediate, so each step's mask is a
 * literal (macros, not inline functions: at -O0 an argument is not a
 * constant). */

#define PS_AVX2 __attribute__((target("avx2")))
#define PS_NET2_INLINE \
    static inline __attribute__((always_inline, target("avx2")))

/* Lane i takes the greater of itself and its partner where bit i of hi
 * (a literal) is set, else the smaller. */
#define PS_N2_STEP(v, partner, hi)                                           \
    do {                                                                     \
        __m256i p_ = (partner);                                              \
        (v) = _mm256_blend_epi32(_mm256_min_epu32((v), p_),                  \
                                 _mm256_max_epu32((v), p_), (hi));           \
    } while (0)
#define PS_E1(v) _mm256_shuffle_epi32((v), _MM_SHUFFLE(2, 3, 0, 1))
#define PS_E2(v) _mm256_shuffle_epi32((v), _MM_SHUFFLE(1, 0, 3, 2))
#define PS_E4(v) _mm256_permute4x64_epi64((v), _MM_SHUFFLE(1, 0, 3, 2))

/* Bitonic merge of 8 lanes, ascending (UP) or descending (DOWN). */
#define PS_N2_MERGE_UP(v)                                                    \
    do {                                                                     \
        PS_N2_STEP(v, PS_E4(v), 0xf0);                                       \
        PS_N2_STEP(v, PS_E2(v), 0xcc);                                       \
        PS_N2_STEP(v, PS_E1(v), 0xaa);                                       \
    } while (0)
#define PS_N2_MERGE_DOWN(v)                                                  \
    do {                                                                     \
        PS_N2_STEP(v, PS_E4(v), 0x0f);                                       \
        PS_N2_STEP(v, PS_E2(v), 0x33);                                       \
        PS_N2_STEP(v, PS_E1(v), 0x55);                                       \
    } while (0)
/* Bitonic sort of 8 lanes (masks as in sort16). */
#define PS_N2_SORT_UP(v)                                                     \
    do {                                                                     \
        PS_N2_STEP(v, PS_E1(v), 0x66);                                       \
        PS_N2_STEP(v, PS_E2(v), 0x3c);                                       \
        PS_N2_STEP(v, PS_E1(v), 0x5a);                                       \
        PS_N2_MERGE_UP(v);                                                   \
    } while (0)
#define PS_N2_SORT_DOWN(v)                                                   \
    do {                                                                     \
        PS_N2_STEP(v, PS_E1(v), 0x99);                                       \
        PS_N2_STEP(v, PS_E2(v), 0xc3);                                       \
        PS_N2_STEP(v, PS_E1(v), 0xa5);                                       \
        PS_N2_MERGE_DOWN(v);                                                 \
    } while (0)

/* Sort the bitonic sequence of 16 lanes in r0, r1 (r0 first) with
 * MERGE (PS_N2_MERGE_UP or _DOWN); r0 gets FIRST (lo_ ascending, hi_
 * descending), r1 the other half. */
#define PS_N2_MERGE16(r0, r1, MERGE, FIRST, SECOND)                          \
    do {                                                                     \
        __m256i lo_ = _mm256_min_epu32((r0), (r1));                          \
        __m256i hi_ = _mm256_max_epu32((r0), (r1));                          \
        MERGE(lo_);                                                          \
        MERGE(hi_);                                                          \
        (r0) = FIRST;                                                        \
        (r1) = SECOND;                                                       \
    } while (0)
/* Sort 16 lanes in r0, r1: two sorted halves, the second descending,
 * form a bitonic sequence. */
#define PS_N2_SORT16(r0, r1, MERGE, FIRST, SECOND)                           \
    do {                                                                     \
        PS_N2_SORT_UP(r0);                                                   \
        PS_N2_SORT_DOWN(r1);                                                 \
        PS_N2_MERGE16(r0, r1, MERGE, FIRST, SECOND);                         \
    } while (0)

/* All ones in lanes [0, cnt) (cnt 0..8), else zero. */
PS_NET2_INLINE __m256i lanes_below(unsigned cnt)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)cnt),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Register i of the bucket at p, cnt (0..8) keys in it: images (key ^
 * f), the other lanes all ones.  The masked load reads no key past
 * cnt. */
PS_NET2_INLINE __m256i load8(const uint32_t *p, unsigned cnt, __m256i f)
{
    __m256i m = lanes_below(cnt);
    __m256i x = _mm256_xor_si256(_mm256_maskload_epi32((const int *)p, m), f);
    return _mm256_or_si256(x, _mm256_andnot_si256(m, _mm256_set1_epi32(-1)));
}

/* Store the keys of the first cnt images of v at p, all 8 when whole. */
PS_NET2_INLINE void store8(uint32_t *p, __m256i v, __m256i f, unsigned cnt,
                           int whole)
{
    v = _mm256_xor_si256(v, f);
    if (whole)
        _mm256_storeu_si256((__m256i *)(void *)p, v);
    else
        _mm256_maskstore_epi32((int *)p, lanes_below(cnt), v);
}

PS_AVX2 void ps_omp_net_slots32_avx2(const uint32_t *slots, uint32_t *dst,
                                     const uint32_t *ends, size_t nb,
                                     uint32_t m, uint32_t flip, uint32_t fneg)
{
    uint32_t o = 0;
    size_t d;

    for (d = 0; d < nb; d++) {
        const uint32_t *from = slots + d * PS_NET_MAX;
        uint32_t cnt = ends[d] - (uint32_t)d * PS_NET_MAX, room = m - o;
        uint32_t *to = dst + o;
        __m256i f, r0, r1, r2, r3, lo;
        if (cnt == 0)
            continue;
        f = _mm256_set1_epi32((int)(flip ^ (fneg & (0u - (from[0] >> 31)))));
        if (cnt <= 8) {
            r0 = load8(from, cnt, f);
            PS_N2_SORT_UP(r0);
            store8(to, r0, f, cnt, room >= 8);
        } else if (cnt <= 16) {
            r0 = load8(from, 8, f);
            r1 = load8(from + 8, cnt - 8, f);
            PS_N2_SORT16(r0, r1, PS_N2_MERGE_UP, lo_, hi_);
            store8(to, r0, f, 8, 1);
            store8(to + 8, r1, f, cnt - 8, room >= 16);
        } else {
            r0 = load8(from, 8, f);
            r1 = load8(from + 8, 8, f);
            r2 = load8(from + 16, lanes_in(cnt, 2), f);
            r3 = load8(from + 24, lanes_in(cnt, 3), f);
            /* 32 lanes: as bucket_q does with 64-bit lanes. */
            PS_N2_SORT16(r0, r1, PS_N2_MERGE_UP, lo_, hi_);
            PS_N2_SORT16(r2, r3, PS_N2_MERGE_DOWN, hi_, lo_);
            lo = _mm256_min_epu32(r0, r2);
            r2 = _mm256_max_epu32(r0, r2);
            r0 = lo;
            lo = _mm256_min_epu32(r1, r3);
            r3 = _mm256_max_epu32(r1, r3);
            r1 = lo;
            PS_N2_MERGE16(r0, r1, PS_N2_MERGE_UP, lo_, hi_);
            PS_N2_MERGE16(r2, r3, PS_N2_MERGE_UP, lo_, hi_);
            store8(to, r0, f, 8, 1);
            store8(to + 8, r1, f, 8, 1);
            store8(to + 16, r2, f, lanes_in(cnt, 2), room >= 24);
            store8(to + 24, r3, f, lanes_in(cnt, 3), room >= 32);
        }
        o += cnt;
    }
}

/* ---- whole small arrays: one network over up to 16 registers ------- */

/* merge16 in either direction (up as in sort16). */
PS_NET_INLINE __m512i merge16_dir(__m512i v, __mmask16 up)
{
    PS_NET_STEP(v, PS_D8(v), (__mmask16)(0xff00 ^ ~up));
    PS_NET_STEP(v, PS_D4(v), (__mmask16)(0xf0f0 ^ ~up));
    PS_NET_STEP(v, PS_D2(v), (__mmask16)(0xcccc ^ ~up));
    PS_NET_STEP(v, PS_D1(v), (__mmask16)(0xaaaa ^ ~up));
    return v;
}

#define PS_W 32
#include "ps_openmp_small-inl.h"
#undef PS_W
#define PS_W 64
#include "ps_openmp_small-inl.h"
#undef PS_W

#endif /* PS_HAVE_AVX512_TARGET */
