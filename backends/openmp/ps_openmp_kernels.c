/*
 * ps_openmp_kernels.c - the OpenMP backend's kernels, one table per key
 * width (ps_omp_kernels in ps_openmp_sort.h): ps_openmp_kernels-inl.h
 * compiled four times, the packed pairs once, and the sorting networks
 * of the widths that have them.
 *
 * A width's differences from the others are its table's entries, not
 * conditions in shared code: only 4-byte keys have packed pairs, only
 * 4- and 8-byte keys have networks (and only in builds that can compile
 * them).  The control (ps_openmp_msd.c, with its leaves from
 * ps_openmp_leaf-inl.h) tests an entry for NULL.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ps_openmp_net.h"
#include "ps_openmp_sort.h"

#if defined(__SSE2__)
/* dst and src 16-byte aligned, bytes a multiple of 16. */
static inline void ps_stream_bytes(void *dst, const void *src, size_t bytes)
{
    size_t i;
    for (i = 0; i < bytes; i += 16)
        _mm_stream_si128((__m128i *)(void *)((char *)dst + i),
                         _mm_load_si128((const __m128i *)(const void *)
                                        ((const char *)src + i)));
}

/* Streaming stores are weakly ordered: fence them before the barrier that
 * lets other threads read what they wrote. */
static inline void ps_stream_fence(void)
{
    _mm_sfence();
}
#else
static inline void ps_stream_bytes(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
}

static inline void ps_stream_fence(void)
{
}
#endif

#define PS_W 8
#include "ps_openmp_kernels-inl.h"
#undef PS_W
#define PS_W 16
#include "ps_openmp_kernels-inl.h"
#undef PS_W
#define PS_W 32
#include "ps_openmp_kernels-inl.h"
#undef PS_W
#define PS_W 64
#include "ps_openmp_kernels-inl.h"
#undef PS_W

#include "ps_openmp_packed-inl.h"

#if defined(PS_HAVE_AVX512_TARGET)
/* The networks, behind one signature for every width.  4-byte keys have
 * AVX-512 and AVX2 ones (isa says which the CPU runs); 8-byte keys and
 * packed pairs AVX-512 ones only (ps_openmp_plan.c offers those to
 * AVX-512 CPUs only). */
static void net32(const void *slots, void *dst, const uint32_t *ends,
                  size_t nb, uint32_t m, ps_xf xf, int isa)
{
    if (isa == PS_NET_AVX512)
        ps_omp_net_slots32(slots, dst, ends, nb, m, (uint32_t)xf.flip,
                           (uint32_t)xf.fneg);
    else
        ps_omp_net_slots32_avx2(slots, dst, ends, nb, m, (uint32_t)xf.flip,
                                (uint32_t)xf.fneg);
}

static void net64(const void *slots, void *dst, const uint32_t *ends,
                  size_t nb, uint32_t m, ps_xf xf, int isa)
{
    (void)isa;
    ps_omp_net_slots64(slots, dst, ends, nb, m, xf.flip, xf.fneg);
}

static void pk_net(const uint64_t *slots, void *keys, unsigned char *values,
                   const uint32_t *ends, size_t nb, uint32_t m, ps_xf xf)
{
    ps_omp_net_pairs32(slots, keys, values, ends, nb, m, (uint32_t)xf.flip,
                       (uint32_t)xf.fneg);
}
#define PS_NET32 net32
#define PS_NET64 net64
#define PS_PK_NET pk_net
#else
#define PS_NET32 NULL
#define PS_NET64 NULL
#define PS_PK_NET NULL
#endif

static const ps_omp_packed packed32 = {
    .scatter = pk_scatter,
    .hist = pk_hist,
    .pass = pk_pass,
    .unpack = pk_unpack,
    .net = PS_PK_NET,
};

const ps_omp_kernels ps_omp_kernels8 = {
    .bits = 8,
    .survey = survey8, .survey_leaf = survey_leaf8,
    .hist = hist8, .scatter = scatter8,
    .leaf_hist = leaf_hist8, .split = split8, .leaf_pass = leaf_pass8,
    .map_pass = map_pass8,
    .insert = insert8, .bubble = bubble8,
    .net = NULL,
    .packed = NULL,
};

const ps_omp_kernels ps_omp_kernels16 = {
    .bits = 16,
    .survey = survey16, .survey_leaf = survey_leaf16,
    .hist = hist16, .scatter = scatter16,
    .leaf_hist = leaf_hist16, .split = split16, .leaf_pass = leaf_pass16,
    .map_pass = map_pass16,
    .insert = insert16, .bubble = bubble16,
    .net = NULL,
    .packed = NULL,
};

const ps_omp_kernels ps_omp_kernels32 = {
    .bits = 32,
    .survey = survey32, .survey_leaf = survey_leaf32,
    .hist = hist32, .scatter = scatter32,
    .leaf_hist = leaf_hist32, .split = split32, .leaf_pass = leaf_pass32,
    .map_pass = map_pass32,
    .insert = insert32, .bubble = bubble32,
    .net = PS_NET32,
    .packed = &packed32,
};

const ps_omp_kernels ps_omp_kernels64 = {
    .bits = 64,
    .survey = survey64, .survey_leaf = survey_leaf64,
    .hist = hist64, .scatter = scatter64,
    .leaf_hist = leaf_hist64, .split = split64, .leaf_pass = leaf_pass64,
    .map_pass = map_pass64,
    .insert = insert64, .bubble = bubble64,
    .net = PS_NET64,
    .packed = NULL,
};
