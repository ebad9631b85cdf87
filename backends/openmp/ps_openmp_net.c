/*
 * ps_openmp_net.c - bitonic sorting networks for the small buckets of the
 * OpenMP backend's leaves (ps_openmp_net.h says when and why).
 *
 * Only these functions use AVX-512, through target attributes: the rest of
 * the library stays built for the baseline ISA, and the backend calls them
 * after ps_omp_net_cpu_ok() said yes.
 */
#include <config.h>

#include <string.h>

#include "ps_openmp_net.h"

#if defined(PS_HAVE_AVX512_TARGET)

#include <immintrin.h>

#define PS_AVX512 __attribute__((target("avx512f")))
/* Forced: with two callers, gcc made sort_bucket a call, and the networks
 * ran 60% slower (u32 at 16M: 12% slower in all). */
#define PS_NET_INLINE static inline __attribute__((always_inline, target("avx512f")))

int ps_omp_net_cpu_ok(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
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

PS_AVX512 int ps_omp_net_buckets32(const uint32_t *src, uint32_t *dst,
                                   const uint32_t *ends, size_t nb,
                                   uint32_t flip, uint32_t fneg)
{
    const uint32_t m = nb > 0 ? ends[nb - 1] : 0;
    uint32_t s = 0;
    int big = 0;
    size_t d;

    for (d = 0; d < nb; s = ends[d++]) {
        uint32_t cnt = ends[d] - s;
        if (cnt == 0)
            continue;
        if (cnt <= PS_NET_MAX) {
            sort_bucket(src + s, dst + s, cnt, m - s,
                        bucket_flip(src[s], flip, fneg));
        } else {
            memcpy(dst + s, src + s, (size_t)cnt * sizeof *src);
            big = 1;
        }
    }
    return big;
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

#endif /* PS_HAVE_AVX512_TARGET */
