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
 *    other, and no work-group may wait for another (no forward-progress
 *    assumption between work-groups).
 *  - Local arrays are declared at kernel scope with PS_LOCAL_ARRAY and
 *    passed to helper functions as PS_LOCAL pointers.
 *  - 32-bit atomic add on local and global memory.
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
#define PS_FN static __device__ __forceinline__
#define PS_GLOBAL
#define PS_LOCAL
#define PS_LOCAL_ARRAY(type, name, n) __shared__ type name[n]
#define PS_BARRIER() __syncthreads()
#define PS_LID() ((ps_u32)threadIdx.x)
#define PS_GROUP() ((ps_u32)blockIdx.x)
#define PS_NGROUPS() ((ps_u32)gridDim.x)
#define PS_ATOMIC_ADD_LOCAL(p, v) atomicAdd((p), (v))
#define PS_ATOMIC_ADD_GLOBAL(p, v) atomicAdd((p), (v))

#else
#  error "ps_kernel_dialect.h: compile as OpenCL C, CUDA or HIP"
#endif

#endif /* PS_KERNEL_DIALECT_H */
