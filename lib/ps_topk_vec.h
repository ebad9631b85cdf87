/*
 * ps_topk_vec.h - ps_topk.c's column bound for short segments in vector
 * registers, for 4- and 8-byte keys: an AVX-512 form (ps_topk_x512.c)
 * and an AVX2 form (ps_topk_avx2.c), the best the CPU has chosen once at
 * run time (ps_topk_vec.c).
 */
#ifndef PS_TOPK_VEC_H
#define PS_TOPK_VEC_H

#include <stddef.h>
#include <stdint.h>

#include "ps_keytype.h"

#if defined(PS_HAVE_AVX512_TARGET) && defined(__x86_64__)
#define PS_TOPK_VEC 1

/* One vector form of the column bound: each step for 4-byte keys (the
 * ...32 members) and 8-byte keys (...64); ps_topk_vec_bound and the two
 * functions after it pick by width. */
typedef struct ps_topk_vec {
    uint64_t (*bound32)(const uint32_t *keys, size_t len, size_t m, ps_xf xf);
    uint64_t (*bound64)(const uint64_t *keys, size_t len, size_t m, ps_xf xf);
    size_t (*keep32)(const uint32_t *keys, size_t a, size_t len, uint64_t T,
                     ps_xf xf, size_t *idx, uint32_t *img);
    size_t (*keep64)(const uint64_t *keys, size_t a, size_t len, uint64_t T,
                     ps_xf xf, size_t *idx, uint64_t *img);
    void (*first_m32)(const uint32_t *img, const size_t *idx, size_t c,
                      size_t m, size_t *out);
    void (*first_m64)(const uint64_t *img, const size_t *idx, size_t c,
                      size_t m, size_t *out);
} ps_topk_vec;

/* The m-th smallest (1 <= m <= 16) of the minimum images (transform xf)
 * of the 32 columns of the len keys at keys (kb 4 or 8 bytes) read as
 * rows of 32: at least m of the keys have an image at or below it. */
static inline uint64_t ps_topk_vec_bound(const ps_topk_vec *v,
                                         const void *keys, size_t len,
                                         size_t m, unsigned kb, ps_xf xf)
{
    return kb == 4 ? v->bound32((const uint32_t *)keys, len, m, xf)
                   : v->bound64((const uint64_t *)keys, len, m, xf);
}

/* The keys of the len at keys whose images are at or below T: their
 * indices (a + position; len below 2^32) to idx and images (kb bytes
 * each) to img, in index order; returns how many.  Both arrays need room
 * for len + 16. */
static inline size_t ps_topk_vec_keep_le(const ps_topk_vec *v,
                                         const void *keys, size_t a,
                                         size_t len, unsigned kb, ps_xf xf,
                                         uint64_t T, size_t *idx, void *img)
{
    return kb == 4 ? v->keep32((const uint32_t *)keys, a, len, T, xf, idx,
                               (uint32_t *)img)
                   : v->keep64((const uint64_t *)keys, a, len, T, xf, idx,
                               (uint64_t *)img);
}

/* The first m (m <= c <= 32) of c survivors in (image, index) order,
 * their images (kb bytes each) at img and indices at idx in index order:
 * their indices to out[0 .. m - 1] in that order. */
static inline void ps_topk_vec_first_m(const ps_topk_vec *v, const void *img,
                                       const size_t *idx, size_t c, size_t m,
                                       unsigned kb, size_t *out)
{
    if (kb == 4)
        v->first_m32((const uint32_t *)img, idx, c, m, out);
    else
        v->first_m64((const uint64_t *)img, idx, c, m, out);
}

/* The forms, for ps_topk_vec_get only: each may be called only on a CPU
 * with its instructions. */
extern const ps_topk_vec ps_topk_vec_x512;
extern const ps_topk_vec ps_topk_vec_avx2;
void ps_topk_avx2_init(void);       /* before the AVX2 form's first use */

/* The best form this CPU has (AVX-512F, else AVX2), or NULL for none:
 * PORTSORT_OPENMP_SIMD=avx2 caps it at AVX2 and =none turns it off, as
 * for the OpenMP backend's networks (the tests' way to run every path on
 * one machine).  Asked once. */
const ps_topk_vec *ps_topk_vec_get(void);
#else
#define PS_TOPK_VEC 0
#endif

#endif /* PS_TOPK_VEC_H */
