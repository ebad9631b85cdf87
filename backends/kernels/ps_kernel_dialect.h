/*
 * ps_kernel_dialect.h - the small dialect the GPU kernels are written in, so
 * that one source compiles as OpenCL C 1.2 at run time (OpenCL backend, and
 * pocl in CI) and with nvcc / hipcc (CUDA and HIP backends).  In the style of
 * hashcat's inc_vendor.h: address spaces, barriers, ids, atomics and kernel
 * qualifiers are macros; the kernels use nothing else of either language.
 *
 * What the kernels may assume on every compiler:
 *  - PS_BARRIER() synchronises the work-group and makes local memory
 *    writes visible to it; nothing synchronises work-groups with each
 *    other.  The reduce-then-scan kernels (ps_kernel_radix.cl) never make
 *    a work-group wait for another, so they are valid on any device.
 *  - Local arrays are declared at kernel scope with PS_LOCAL_ARRAY and
 *    passed to helper functions as PS_LOCAL pointers.
 *  - 32-bit atomic add on local and global memory, returning the old
 *    value.  PS_ATOMIC_LOAD_GLOBAL / PS_ATOMIC_STORE_GLOBAL read and write
 *    one 32-bit word of global memory whole, bypassing any cache that is
 *    not coherent between work-groups, so that a value another running
 *    work-group stores is seen by a loop that polls for it.
 *
 *  - PS_ATOMIC_MAX_GLOBAL(p, v) raises a 32-bit word of global memory to
 *    v if it is below (OpenCL 1.2's atomic_max), returning the old value.
 *  - PS_UNROLL before a loop over a work-item's keys asks for it to be
 *    unrolled (so that its arrays stay in registers), PS_NO_UNROLL before
 *    a polling loop asks for it not to be (both empty on OpenCL).
 *  - PS_SPIN_PAUSE(i) gives way for a moment in the i-th round of a
 *    polling loop (CUDA sm_70+: __nanosleep, growing with i; AMD: s_sleep;
 *    OpenCL 1.2 has nothing and polls at once).
 *
 * No kernel assumes forward progress between work-groups.  The Onesweep
 * kernel (ps_kernel_onesweep.cl, built with PS_WITH_ONESWEEP) polls for
 * counts other work-groups publish, but after PS_OS_SPINS rounds without
 * them it computes them itself from the keys (the decoupled fallback of
 * Smith, Levien & Owens, SPAA 2025), so it finishes where a waiting
 * work-group keeps the one it waits for from running.
 *
 * Warp intrinsics, where the compiler has them (CUDA, HIP): PS_WARP_SIZE
 * (32, or the AMD wavefront's 64), ps_lmask (a lane mask as wide as a
 * warp), PS_WARP_BALLOT(pred), PS_WARP_SHFL(v, lane) of a 32-bit value,
 * PS_LMASK_POPC(m), PS_LMASK_FFS(m) (1-based lowest set lane, 0 if none),
 * and PS_WARP_MATCH_ANY(v) where the hardware has it (sm_70 and later);
 * CUDA also has PS_WARP_MATCH_BIT(v, bit), the lanes that agree with this
 * one on one bit, as one ballot.  PS_OPAQUE_PTR(p), a no-op where it is
 * not defined, hides how a pointer was computed from the optimiser.
 * Every lane of the warp must reach each of them.  A kernel tests
 * `#ifdef PS_WARP_SIZE` and keeps a path without them (OpenCL 1.2 has no
 * sub-groups).
 *
 * When this file is prepended to a kernel source (the OpenCL backend embeds
 * both as one string), it defines PS_KERNEL_DIALECT_H so the kernel's own
 * #include of it is skipped.
 */
#ifndef PS_KERNEL_DIALECT_H
#define PS_KERNEL_DIALECT_H

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
/* ---- OpenCL C 1.2 ---- */
typedef uchar ps_u8;
typedef ushort ps_u16;
typedef uint ps_u32;
typedef ulong ps_u64;
#define PS_KERNEL_WG(wg) __kernel __attribute__((reqd_work_group_size(wg, 1, 1))) void
#define PS_KERNEL_WG_MIN(wg, blocks) PS_KERNEL_WG(wg)
#define PS_FN
#define PS_GLOBAL __global
#define PS_LOCAL __local
#define PS_LOCAL_ARRAY(type, name, n) __local type name[n]
#define PS_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define PS_LID() ((ps_u32)get_local_id(0))
#define PS_GROUP() ((ps_u32)get_group_id(0))
#define PS_NGROUPS() ((ps_u32)get_num_groups(0))
#define PS_ATOMIC_ADD_LOCAL(p, v) atomic_add((p), (v))
#define PS_ATOMIC_ADD_GLOBAL(p, v) atomic_add((p), (v))
/* OpenCL 1.2 promises coherence between work-groups only to atomics. */
#define PS_ATOMIC_LOAD_GLOBAL(p) atomic_or((p), 0u)
#define PS_ATOMIC_STORE_GLOBAL(p, v) ((void)atomic_xchg((p), (v)))
#define PS_ATOMIC_MAX_GLOBAL(p, v) atomic_max((p), (v))
#define PS_SPIN_PAUSE(i) ((void)(i))

#elif defined(__CUDACC__) || defined(__HIPCC__)
/* ---- CUDA and HIP (compiled by nvcc / hipcc) ---- */
typedef unsigned char ps_u8;
typedef unsigned short ps_u16;
typedef unsigned int ps_u32;
typedef unsigned long long ps_u64;
/* A file that compiles several instantiations into one module wraps each in
 * a namespace and defines PS_KERNEL_LINKAGE empty first: with extern "C"
 * they would all be one symbol (the CUDA/HIP backends do this). */
#ifndef PS_KERNEL_LINKAGE
#  define PS_KERNEL_LINKAGE extern "C"
#endif
#define PS_KERNEL_WG(wg) PS_KERNEL_LINKAGE __global__ void __launch_bounds__(wg)
/* A kernel whose tuning assumes `blocks` work-groups resident per
 * multiprocessor: CUDA's compiler then keeps registers under
 * 65536 / (wg * blocks) (spilling rather than exceeding them, which
 * test/ptxas-report.sh fails on).  HIP's second operand means something
 * else (waves per execution unit), so HIP keeps the plain bound. */
#  if defined(__HIPCC__)
#    define PS_KERNEL_WG_MIN(wg, blocks) PS_KERNEL_WG(wg)
#  else
#    define PS_KERNEL_WG_MIN(wg, blocks) \
         PS_KERNEL_LINKAGE __global__ void __launch_bounds__(wg, blocks)
#  endif
#define PS_FN static __device__ __forceinline__
/* Before a loop over a thread's items, so that its private arrays stay in
 * registers (elsewhere PS_UNROLL is empty). */
#define PS_UNROLL _Pragma("unroll")
/* Before a polling loop, which unrolled is only longer code. */
#define PS_NO_UNROLL _Pragma("unroll 1")
#define PS_GLOBAL
#define PS_LOCAL
#define PS_LOCAL_ARRAY(type, name, n) __shared__ type name[n]
#define PS_BARRIER() __syncthreads()
#define PS_LID() ((ps_u32)threadIdx.x)
#define PS_GROUP() ((ps_u32)blockIdx.x)
#define PS_NGROUPS() ((ps_u32)gridDim.x)
#define PS_ATOMIC_ADD_LOCAL(p, v) atomicAdd((p), (v))
#define PS_ATOMIC_ADD_GLOBAL(p, v) atomicAdd((p), (v))
#define PS_ATOMIC_MAX_GLOBAL(p, v) atomicMax((p), (v))
#  if defined(__HIPCC__)
/* Device-scope atomics, which always bypass the vector L1 (not coherent
 * between compute units): relaxed atomic loads and stores where the
 * compiler has them (ROCm 5 and later), so polling costs no
 * read-modify-write.  LLVM's AMDGPU backend also treats volatile
 * accesses as system-scope relaxed atomics (since LLVM 12), but this path
 * has never run on an AMD GPU, so it says what it means. */
#    if __has_builtin(__hip_atomic_load)
#      define PS_ATOMIC_LOAD_GLOBAL(p) \
           __hip_atomic_load((p), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)
#      define PS_ATOMIC_STORE_GLOBAL(p, v) \
           __hip_atomic_store((p), (v), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)
#    else
#      define PS_ATOMIC_LOAD_GLOBAL(p) atomicAdd((p), 0u)
#      define PS_ATOMIC_STORE_GLOBAL(p, v) ((void)atomicExch((p), (v)))
#    endif
/* s_sleep's operand must be a constant: about 64 clocks per unit. */
#    define PS_SPIN_PAUSE(i) ((void)(i), __builtin_amdgcn_s_sleep(2))
/* The wavefront width of the target being compiled for.  clang's
 * __AMDGCN_WAVEFRONT_SIZE says it, but it is deprecated (ROCm 6.3) and gone
 * from upstream clang; without it, the target family decides: RDNA (gfx10,
 * gfx11, gfx12) runs wave32, as hipcc builds it unless told
 * -mwavefrontsize64, which this build never passes; GCN and CDNA (gfx9 and
 * older, gfx90a, gfx94x) run wave64.  Assuming 64 on a wave32 target
 * would rank Onesweep tiles with half-empty ballots: wrong ranks, no
 * error. */
#    if defined(__AMDGCN_WAVEFRONT_SIZE)
#      define PS_WARP_SIZE __AMDGCN_WAVEFRONT_SIZE
#    elif defined(__GFX10__) || defined(__GFX11__) || defined(__GFX12__)
#      define PS_WARP_SIZE 32
#    else
#      define PS_WARP_SIZE 64
#    endif
/* HIP's ballot is 64 bits wide whatever the wavefront size. */
typedef unsigned long long ps_lmask;
#    define PS_WARP_BALLOT(p) __ballot(p)
#    define PS_WARP_SHFL(v, lane) __shfl((ps_u32)(v), (int)(lane))
#    define PS_LMASK_POPC(m) ((ps_u32)__popcll(m))
#    define PS_LMASK_FFS(m) ((ps_u32)__ffsll((unsigned long long)(m)))
#  else
/* PTX treats volatile global accesses as relaxed system-scope ones: they
 * go to L2, which every multiprocessor shares. */
#    define PS_ATOMIC_LOAD_GLOBAL(p) (*(volatile ps_u32 *)(p))
#    define PS_ATOMIC_STORE_GLOBAL(p, v) ((void)(*(volatile ps_u32 *)(p) = (v)))
/* From 32 ns, doubling up to 1 us: a predecessor still ranking its tile
 * is a few microseconds from publishing. */
#    if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#      define PS_SPIN_PAUSE(i) __nanosleep(32u << ((i) < 5u ? (i) : 5u))
#    else
#      define PS_SPIN_PAUSE(i) ((void)(i))
#    endif
#    define PS_WARP_SIZE 32
typedef unsigned int ps_lmask;
#    define PS_WARP_BALLOT(p) __ballot_sync(0xffffffffu, (p))
#    define PS_WARP_SHFL(v, lane) __shfl_sync(0xffffffffu, (ps_u32)(v), (int)(lane))
#    define PS_LMASK_POPC(m) ((ps_u32)__popc(m))
#    define PS_LMASK_FFS(m) ((ps_u32)__ffs((int)(m)))
/* nvcc's host pass sees no __CUDA_ARCH__ and declares the intrinsic too. */
#    if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
#      define PS_WARP_MATCH_ANY(v) __match_any_sync(0xffffffffu, (v))
#    endif
/* The lanes whose bit `bit` (a mask of one bit) of v equals this lane's,
 * in the four instructions CUB's MatchAny uses: the compiler turns the
 * and-then-test of several such calls into one R2P for all their
 * predicates, and the complement is taken only where this lane's bit is
 * clear.  Written in C (shift, mask, compare, ballot, select), the same
 * test cost three more instructions a bit: about 20 of the 60 a key that
 * the ranking issued on an H200 (Nsight Compute, doc/cuda.md). */
__device__ __forceinline__ ps_u32 ps_cuda_match_bit(ps_u32 v, ps_u32 bit)
{
    ps_u32 m;
    asm("{\n\t.reg .pred p;\n\t"
        "and.b32 %0, %1, %2;\n\t"
        "setp.ne.u32 p, %0, 0;\n\t"
        "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
        "@!p not.b32 %0, %0;\n\t}"
        : "=r"(m) : "r"(v), "r"(bit));
    return m;
}
#    define PS_WARP_MATCH_BIT(v, bit) ps_cuda_match_bit((v), (bit))
/* Stops the compiler from folding a pointer's offset back into every
 * index computed from it: kout + kout_off, then kout[i] for many i,
 * compiled to a 64-bit add of kout_off per store. */
#    define PS_OPAQUE_PTR(p) do { asm("" : "+l"(p)); __builtin_assume(__isGlobal(p)); } while (0)
#  endif

#else
#  error "ps_kernel_dialect.h: compile as OpenCL C, CUDA or HIP"
#endif

#endif /* PS_KERNEL_DIALECT_H */
