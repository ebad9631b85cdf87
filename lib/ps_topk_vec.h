/*
 * ps_topk_x512.h - ps_topk.c's column bound for short segments in
 * AVX-512 (ps_topk_x512.c), for 4- and 8-byte keys, chosen at run time.
 */
#ifndef PS_TOPK_X512_H
#define PS_TOPK_X512_H

#include <stddef.h>
#include <stdint.h>

#include "ps_keytype.h"

#if defined(PS_HAVE_AVX512_TARGET) && defined(__x86_64__)
#define PS_TOPK_X512 1

/* Whether the functions below may be called: the CPU has AVX-512F and
 * PORTSORT_OPENMP_SIMD does not say `avx2` or `none`.  Asked once. */
int ps_topk_x512_ok(void);

/* The m-th smallest (1 <= m <= 32) of the minimum images (transform xf)
 * of the 32 columns of the len keys at keys (kb 4 or 8 bytes each) read
 * as rows of 32: at least m of the keys have an image at or below it. */
uint64_t ps_topk_x512_bound(const void *keys, size_t len, size_t m,
                            unsigned kb, ps_xf xf);

/* The keys of the len at keys whose images are at or below T: their
 * indices (a + position) to idx and images (kb bytes each) to img, in
 * index order; returns how many.  Both arrays need room for len + 16. */
size_t ps_topk_x512_keep_le(const void *keys, size_t a, size_t len,
                            unsigned kb, ps_xf xf, uint64_t T, size_t *idx,
                            void *img);

/* The first m (m <= c <= 32) of c survivors in (image, index) order, their
 * images (kb bytes each) at img and indices at idx in index order: their
 * indices to out[0 .. m - 1] in that order. */
void ps_topk_x512_first_m(const void *img, const size_t *idx, size_t c,
                          size_t m, unsigned kb, size_t *out);
#else
#define PS_TOPK_X512 0
#endif

#endif /* PS_TOPK_X512_H */
