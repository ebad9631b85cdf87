/*
 * ps_gpu_kernels.cu - one instantiation of the shared kernel source
 * (backends/kernels/ps_kernel_radix.cl, ps_kernel_onesweep.cl,
 * ps_kernel_segments.cl, ps_kernel_topk.cl and ps_kernel_records.cl) for
 * CUDA or HIP.
 *
 * The build compiles this file once per key width x value width, with
 * -DPS_KEY_BITS=8|16|32|64 and -DPS_VAL_BYTES=0|4|8, by nvcc for the CUDA
 * module and by hipcc for the HIP module.  Each copy wraps the kernels in
 * its own namespace, which is why the dialect's kernels get C++ linkage
 * here (PS_KERNEL_LINKAGE): with extern "C" the twelve copies of ps_hist
 * would be one symbol.  The host code finds each copy's kernels through the
 * table at the end, named ps_gpu_kernels_k<bits>_v<bytes>.
 */
#if defined(__HIPCC__)
#  include <hip/hip_runtime.h>
#endif

#include "ps_gpu_tune.h"

#if defined(PS_GPU_FAKE)
/* make check's CPU stand-in: the kernels as plain C++ (test/standin). */
#  include "ps_gpu_fake_dialect.h"
#else
#  define PS_KERNEL_LINKAGE
#  include "ps_kernel_dialect.h"
#endif

#define PS_WG PS_GPU_WG
#define PS_DIGIT_BITS PS_GPU_DIGIT_BITS
#define PS_ITEMS PS_GPU_ITEMS(PS_KEY_BITS / 8, PS_VAL_BYTES)
#define PS_OS_ITEMS PS_GPU_OS_ITEMS(PS_KEY_BITS / 8, PS_VAL_BYTES)
#define PS_OS_MIN_BLOCKS PS_GPU_OS_MIN_BLOCKS
#define PS_WITH_ONESWEEP 1
#define PS_SEG_SMALL PS_GPU_SEG_SMALL(PS_KEY_BITS / 8, PS_VAL_BYTES)

/* What the tuning assumes of ps_onesweep's occupancy, said once per CUDA
 * target as the compiler sees it (flags included), so that
 * test/ptxas-report.sh checks ptxas's register counts against it. */
#if defined(__CUDA_ARCH__) && !defined(__HIPCC__) && !defined(PS_GPU_FAKE)
#  define PS_STR2(x) #x
#  define PS_STR(x) PS_STR2(x)
#  pragma message("ps-occupancy: ps_onesweep " PS_STR(PS_GPU_WG) " threads x " \
                  PS_STR(PS_GPU_OS_MIN_BLOCKS) " blocks")
#endif

#define PS_CAT5(a, b, c, d, e) a##b##c##d##e
#define PS_NAME(a, b, c, d, e) PS_CAT5(a, b, c, d, e)
#define PS_NS PS_NAME(ps_k, PS_KEY_BITS, _v, PS_VAL_BYTES, )
#define PS_TABLE PS_NAME(ps_gpu_kernels_k, PS_KEY_BITS, _v, PS_VAL_BYTES, )

namespace PS_NS {
#include "ps_kernel_radix.cl"
#include "ps_kernel_onesweep.cl"
#include "ps_kernel_segments.cl"
#include "ps_kernel_topk.cl"
#include "ps_kernel_records.cl"
}

/* The host (ps_gpu_sort.c) packs each launch's arguments by hand, as the
 * signatures below say; nothing checks them at run time.  Pinning them
 * here makes a change of the shared kernels' signatures a build error for
 * CUDA and HIP instead of a silent misread on the device. */
#ifdef PS_VAL
#  define PS_VAL_PARAMS(c) , c PS_VAL *, ps_u64
#else
#  define PS_VAL_PARAMS(c)
#endif
template <typename A, typename B> struct ps_same { static const bool value = false; };
template <typename A> struct ps_same<A, A> { static const bool value = true; };
static_assert(ps_same<decltype(&PS_NS::ps_hist),
              void (*)(const PS_KEY *, ps_u64, ps_u32, ps_u32, ps_u32 *, ps_u64,
                       ps_u64, ps_u64)>::value, "ps_hist signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_upsweep),
              void (*)(const PS_KEY *, ps_u64, ps_u32, ps_u32, ps_u32, ps_u32 *,
                       ps_u64, ps_u64, ps_u64, ps_u32)>::value,
              "ps_upsweep signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_scan),
              void (*)(ps_u32 *, ps_u64, ps_u32)>::value, "ps_scan signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_downsweep),
              void (*)(const PS_KEY *, ps_u64, PS_KEY *, ps_u64
                       PS_VAL_PARAMS() PS_VAL_PARAMS(),
                       ps_u32, ps_u32, ps_u32, const ps_u32 *, ps_u64, ps_u64,
                       ps_u64, ps_u32, ps_u32)>::value,
              "ps_downsweep signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_sort_local),
              void (*)(PS_KEY *, ps_u64 PS_VAL_PARAMS(), ps_u32, ps_u64,
                       ps_u64)>::value, "ps_sort_local signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_os_hist),
              void (*)(const PS_KEY *, ps_u64, ps_u32, ps_u32 *, ps_u64, ps_u64,
                       ps_u64)>::value, "ps_os_hist signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_os_scan),
              void (*)(ps_u32 *, ps_u64)>::value, "ps_os_scan signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_onesweep),
              void (*)(const PS_KEY *, ps_u64, PS_KEY *, ps_u64
                       PS_VAL_PARAMS() PS_VAL_PARAMS(),
                       ps_u32, ps_u32, const ps_u32 *, ps_u64, ps_u32 *, ps_u64,
                       ps_u32 *, ps_u64, ps_u64, ps_u64, ps_u32, ps_u32)>::value,
              "ps_onesweep signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_seg_classify),
              void (*)(const ps_u64 *, ps_u64, ps_u32, ps_u32, ps_u32 *, ps_u64,
                       ps_u32, ps_u32, ps_u32, ps_u32, ps_u32, ps_u32)>::value,
              "ps_seg_classify signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_seg_small),
              void (*)(PS_KEY *, ps_u64 PS_VAL_PARAMS(), const ps_u64 *, ps_u64,
                       const ps_u32 *, ps_u64, ps_u64, ps_u64)>::value,
              "ps_seg_small signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_seg_medium),
              void (*)(PS_KEY *, ps_u64 PS_VAL_PARAMS(), const ps_u32 *, ps_u64,
                       ps_u64, ps_u64)>::value, "ps_seg_medium signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_seg_up),
              void (*)(const PS_KEY *, ps_u64, const ps_u32 *, ps_u64, ps_u32,
                       ps_u32 *, ps_u64, ps_u64, ps_u64, ps_u32)>::value,
              "ps_seg_up signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_seg_down),
              void (*)(const PS_KEY *, ps_u64, PS_KEY *, ps_u64
                       PS_VAL_PARAMS() PS_VAL_PARAMS(),
                       const ps_u32 *, ps_u64, ps_u32, const ps_u32 *, ps_u64,
                       ps_u64, ps_u64, ps_u32, ps_u32)>::value,
              "ps_seg_down signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_topk_iota),
              void (*)(ps_u64 *, ps_u64, ps_u64)>::value,
              "ps_topk_iota signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_topk_gather),
              void (*)(const PS_KEY *, ps_u64, const ps_u64 *, ps_u64,
                       const ps_u64 *, ps_u64, ps_u32, ps_u64, ps_u64,
                       const ps_u32 *, ps_u64, ps_u32, PS_KEY *, ps_u64,
                       ps_u32 *, ps_u64, ps_u64 *, ps_u64, ps_u32)>::value,
              "ps_topk_gather signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_rec_key),
              void (*)(const ps_u8 *, ps_u64, ps_u64, ps_u32, ps_u64, ps_u64,
                       ps_u32, ps_u32, const ps_u64 *, ps_u64, PS_KEY *, ps_u64,
                       ps_u64)>::value, "ps_rec_key signature changed");
static_assert(ps_same<decltype(&PS_NS::ps_rec_gather),
              void (*)(const ps_u8 *, ps_u64, ps_u8 *, ps_u64, const ps_u64 *,
                       ps_u64, ps_u64, ps_u64)>::value,
              "ps_rec_gather signature changed");

/* Mirrors ps_gpu_kernels in ps_gpu_internal.h (a C header). */
struct ps_gpu_kernels_cxx {
    unsigned key_bytes, val_bytes, items;
    const void *hist, *upsweep, *scan, *downsweep, *local;
    unsigned os_items;
    const void *os_hist, *os_scan, *onesweep;
    unsigned seg_small;
    const void *seg_classify, *seg_small_sort, *seg_medium, *seg_up, *seg_down;
    const void *topk_iota, *topk_gather;
    const void *rec_key, *rec_gather;
};

#if defined(PS_GPU_FAKE)
static const ps_fake_kernel ps_fake_hist = { PS_FAKE_RUN(PS_NS::ps_hist) };
static const ps_fake_kernel ps_fake_upsweep = { PS_FAKE_RUN(PS_NS::ps_upsweep) };
static const ps_fake_kernel ps_fake_scan = { PS_FAKE_RUN(PS_NS::ps_scan) };
static const ps_fake_kernel ps_fake_downsweep = { PS_FAKE_RUN(PS_NS::ps_downsweep) };
static const ps_fake_kernel ps_fake_sort_local = { PS_FAKE_RUN(PS_NS::ps_sort_local) };
static const ps_fake_kernel ps_fake_os_hist = { PS_FAKE_RUN(PS_NS::ps_os_hist) };
static const ps_fake_kernel ps_fake_os_scan = { PS_FAKE_RUN(PS_NS::ps_os_scan) };
static const ps_fake_kernel ps_fake_onesweep = { PS_FAKE_RUN(PS_NS::ps_onesweep) };
static const ps_fake_kernel ps_fake_seg_classify = { PS_FAKE_RUN(PS_NS::ps_seg_classify) };
static const ps_fake_kernel ps_fake_seg_small = { PS_FAKE_RUN(PS_NS::ps_seg_small) };
static const ps_fake_kernel ps_fake_seg_medium = { PS_FAKE_RUN(PS_NS::ps_seg_medium) };
static const ps_fake_kernel ps_fake_seg_up = { PS_FAKE_RUN(PS_NS::ps_seg_up) };
static const ps_fake_kernel ps_fake_seg_down = { PS_FAKE_RUN(PS_NS::ps_seg_down) };
static const ps_fake_kernel ps_fake_topk_iota = { PS_FAKE_RUN(PS_NS::ps_topk_iota) };
static const ps_fake_kernel ps_fake_topk_gather = { PS_FAKE_RUN(PS_NS::ps_topk_gather) };
static const ps_fake_kernel ps_fake_rec_key = { PS_FAKE_RUN(PS_NS::ps_rec_key) };
static const ps_fake_kernel ps_fake_rec_gather = { PS_FAKE_RUN(PS_NS::ps_rec_gather) };
#  define PS_ENTRY(k) (const void *)&ps_fake_##k
#else
#  define PS_ENTRY(k) (const void *)&PS_NS::ps_##k
#endif

extern "C" {
extern const ps_gpu_kernels_cxx PS_TABLE;
const ps_gpu_kernels_cxx PS_TABLE = {
    PS_KEY_BITS / 8, PS_VAL_BYTES, PS_ITEMS,
    PS_ENTRY(hist), PS_ENTRY(upsweep), PS_ENTRY(scan), PS_ENTRY(downsweep),
    PS_ENTRY(sort_local),
    PS_OS_ITEMS, PS_ENTRY(os_hist), PS_ENTRY(os_scan), PS_ENTRY(onesweep),
    PS_SEG_SMALL, PS_ENTRY(seg_classify), PS_ENTRY(seg_small), PS_ENTRY(seg_medium),
    PS_ENTRY(seg_up), PS_ENTRY(seg_down), PS_ENTRY(topk_iota), PS_ENTRY(topk_gather),
    PS_ENTRY(rec_key), PS_ENTRY(rec_gather),
};
}
