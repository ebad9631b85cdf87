/*
 * ps_gpu_fake_dialect.h - the kernel dialect of make check's CPU stand-in
 * for the CUDA runtime (ps_gpu_fake.h): what backends/kernels/
 * ps_kernel_dialect.h is for nvcc and hipcc, for the kernels compiled as
 * plain C++, one thread per work-item.  Local arrays are static, shared by
 * the work-items of the one work-group that runs at a time.
 *
 * Included by backends/gpu/ps_gpu_kernels.cu in place of the real dialect
 * when built with -DPS_GPU_FAKE (backends/gpu/local.mk's stand-in
 * objects), so the module's one instantiation file serves both.
 */
#ifndef PS_GPU_FAKE_DIALECT_H
#define PS_GPU_FAKE_DIALECT_H

#include "ps_gpu_fake.h"

/* Stands in for ps_kernel_dialect.h, which must not be included too. */
#define PS_KERNEL_DIALECT_H
typedef unsigned char ps_u8;
typedef unsigned short ps_u16;
typedef unsigned int ps_u32;
typedef unsigned long long ps_u64;
#define PS_KERNEL_WG(wg) void
#define PS_KERNEL_WG_MIN(wg, blocks) void
#define PS_FN static inline
#define PS_GLOBAL
#define PS_LOCAL
#define PS_LOCAL_ARRAY(type, name, n) static type name[n]
#define PS_BARRIER() ps_fake_barrier()
#define PS_LID() ps_fake_lid()
#define PS_GROUP() ps_fake_group()
#define PS_NGROUPS() ps_fake_ngroups()
#define PS_ATOMIC_ADD_LOCAL(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define PS_ATOMIC_ADD_GLOBAL(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define PS_ATOMIC_LOAD_GLOBAL(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define PS_ATOMIC_STORE_GLOBAL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define PS_ATOMIC_MAX_GLOBAL(p, v) ps_fake_atomic_max((p), (v))
/* The look-back's pause yields the thread and watches for a wait that
 * never ends; PS_FAKE_OS_SPINS and PS_FAKE_OS_ORDER set how long it waits
 * and the order tiles are handed out in (test/gpu-fake.sh). */
#define PS_SPIN_PAUSE(i) ps_fake_pause(i)
#define PS_OS_SPINS ps_fake_os_spins()
#define PS_OS_ORDER ps_fake_os_order()
/* The look-back reads 3 predecessors' words a step here (GPUs: 1 until a
 * lease measures more), so that both walks are tested: this one here, the
 * one at a time on pocl (test/opencl-onesweep.sh). */
#define PS_OS_LB_WIDTH 3
static inline unsigned ps_fake_atomic_max(unsigned *p, unsigned v)
{
    unsigned old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (old < v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_RELEASE,
                                                   __ATOMIC_RELAXED)) {
    }
    return old;
}
/* Warps with ballot, shuffle, match-any and CUDA's one-bit match.  Their
 * width is set at run time (PS_FAKE_WARP: 32, as CUDA and AMD's RDNA, or
 * 64, as AMD's GCN and CDNA), and ballots are 64 bits wide whatever the
 * width, as HIP's are.  Which form the Onesweep ranking takes is a run-
 * time choice here (PS_FAKE_MATCH: "any", "bit", default the ballots in
 * C that HIP runs), where on a GPU it is a constant. */
#define PS_WARP_SIZE ps_fake_warp_size()
#define PS_WARP_SIZE_MIN 32
typedef unsigned long long ps_lmask;
#define PS_WARP_BALLOT(p) ps_fake_ballot(p)
#define PS_WARP_SHFL(v, lane) ps_fake_shfl((v), (lane))
#define PS_WARP_MATCH_ANY(v) ps_fake_match_any(v)
#define PS_WARP_MATCH_BIT(v, bit) ps_fake_match_bit((v), (bit))
#define PS_OS_MATCH_ANY (ps_fake_match_mode() == 1)
#define PS_OS_MATCH_BIT (ps_fake_match_mode() == 2)
#define PS_LMASK_POPC(m) ((ps_u32)__builtin_popcountll(m))
#define PS_LMASK_FFS(m) ((ps_u32)__builtin_ffsll((long long)(m)))
#include <tuple>
#include <utility>
/* The launcher unpacks args exactly as cudaLaunchKernel would: args[i]
 * points to a value of the kernel's i-th parameter type. */
template <typename... A, std::size_t... I>
static void ps_fake_call(void (*fn)(A...), void **args, std::index_sequence<I...>)
{
    fn(*static_cast<A *>(args[I])...);
}
#define PS_FAKE_RUN(f) [](void **a) { ps_fake_call(&f, a, \
        std::make_index_sequence<std::tuple_size<decltype(ps_fake_args(&f))>::value>()); }
template <typename... A>
static std::tuple<A...> ps_fake_args(void (*)(A...));

#endif /* PS_GPU_FAKE_DIALECT_H */
