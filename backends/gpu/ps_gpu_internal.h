/*
 * ps_gpu_internal.h - shared by the CUDA and HIP backends' host code
 * (the .c files of backends/gpu), which is one source compiled twice: with
 * -DPS_GPU_CUDA into ps_cuda.so and with -DPS_GPU_HIP into ps_hip.so.  The
 * two runtimes' APIs differ only in their prefix for everything used here,
 * so RT(x) names the function or constant of the runtime being built.
 */
#ifndef PS_GPU_INTERNAL_H
#define PS_GPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ps_backend.h"
#include "portsort_gpu.h"
#include "ps_gpu_tune.h"

#if defined(PS_GPU_CUDA)
#  include <cuda_runtime_api.h>
#  define RT(x) cuda##x
#  define PS_GPU_NAME "cuda"
#  define PS_GPU_UPPER "CUDA"
typedef cudaError_t ps_rt_err;
typedef cudaStream_t ps_rt_stream;
typedef cudaEvent_t ps_rt_event;
typedef struct cudaFuncAttributes ps_rt_func_attr;
typedef struct cudaDeviceProp ps_rt_prop;
#  define PS_RT_NO_DRIVER(e) ((e) == cudaErrorInsufficientDriver \
                              || (e) == cudaErrorStubLibrary)
#  define PS_RT_NO_DEVICE(e) ((e) == cudaErrorNoDevice)
#  define PS_RT_OOM(e) ((e) == cudaErrorMemoryAllocation)
#  define PS_RT_NO_IMAGE(e) ((e) == cudaErrorNoKernelImageForDevice \
                             || (e) == cudaErrorInvalidDeviceFunction)
#  define ps_rt_host_alloc(p, n) cudaMallocHost((p), (n))
#  define ps_rt_host_free(p) cudaFreeHost(p)
/* PTX compiled by a newer toolkit than the driver knows. */
#  define PS_RT_PTX_TOO_NEW(e) ((e) == cudaErrorUnsupportedPtxVersion)
/* The runtime version this module was built with (1000 * major + 10 * minor). */
#  define PS_RT_BUILT_VERSION CUDART_VERSION
#elif defined(PS_GPU_HIP)
#  include <hip/hip_runtime_api.h>
#  define RT(x) hip##x
#  define PS_GPU_NAME "hip"
#  define PS_GPU_UPPER "HIP"
typedef hipError_t ps_rt_err;
typedef hipStream_t ps_rt_stream;
typedef hipEvent_t ps_rt_event;
typedef struct hipFuncAttributes ps_rt_func_attr;
typedef hipDeviceProp_t ps_rt_prop;
#  define PS_RT_NO_DRIVER(e) ((e) == hipErrorInsufficientDriver)
#  define PS_RT_NO_DEVICE(e) ((e) == hipErrorNoDevice)
#  define PS_RT_OOM(e) ((e) == hipErrorOutOfMemory)
#  define PS_RT_NO_IMAGE(e) ((e) == hipErrorNoBinaryForGpu \
                             || (e) == hipErrorInvalidDeviceFunction)
#  define ps_rt_host_alloc(p, n) hipHostMalloc((p), (n), 0)
#  define ps_rt_host_free(p) hipHostFree(p)
#  define PS_RT_PTX_TOO_NEW(e) 0
#  define PS_RT_BUILT_VERSION 0
#elif defined(PS_GPU_FAKE)
/* test/ps_gpu_fake.h: the CUDA host code on a CPU stand-in runtime, for
 * make check on machines without a GPU.  It poses as "cuda". */
#  include "ps_gpu_fake.h"
#  define RT(x) psfake##x
#  define PS_GPU_NAME "cuda"
#  define PS_GPU_UPPER "CUDA"
typedef psfakeError_t ps_rt_err;
typedef psfakeStream_t ps_rt_stream;
typedef psfakeEvent_t ps_rt_event;
typedef psfakeFuncAttributes ps_rt_func_attr;
typedef psfakeDeviceProp ps_rt_prop;
#  define PS_RT_NO_DRIVER(e) ((e) == psfakeErrorInsufficientDriver)
#  define PS_RT_NO_DEVICE(e) ((e) == psfakeErrorNoDevice)
#  define PS_RT_OOM(e) ((e) == psfakeErrorMemoryAllocation)
#  define PS_RT_NO_IMAGE(e) 0
#  define ps_rt_host_alloc(p, n) psfakeMallocHost((p), (n))
#  define ps_rt_host_free(p) psfakeFreeHost(p)
#  define PS_RT_PTX_TOO_NEW(e) ((e) == psfakeErrorUnsupportedPtxVersion)
#  define PS_RT_BUILT_VERSION 13000
#else
#  error "compile backends/gpu with -DPS_GPU_CUDA, -DPS_GPU_HIP or -DPS_GPU_FAKE"
#endif

/* One instantiation of backends/kernels/ps_kernel_radix.cl and
 * ps_kernel_onesweep.cl (key width x value width), from ps_gpu_kernels.cu:
 * the host stubs of its kernels, which RT(LaunchKernel) takes, and the
 * keys per work-item of each path's tiles. */
typedef struct ps_gpu_kernels {
    unsigned key_bytes, val_bytes, items;
    const void *hist, *upsweep, *scan, *downsweep, *local;
    unsigned os_items;
    const void *os_hist, *os_scan, *onesweep;
} ps_gpu_kernels;

/* ps_gpu_kernels.cu (12 objects) and ps_gpu_util.cu. */
const ps_gpu_kernels *ps_gpu_kernels_for(unsigned key_bytes, unsigned val_bytes);
extern const void *const ps_gpu_iota64_kernel;

/* ps_gpu_sort.c: one sort of device arrays, enqueued on a stream. */
typedef struct ps_gpu_job {
    void *keys;             /* sorted in place */
    void *vals;             /* NULL for keys only */
    unsigned val_bytes;     /* 0, 4 or 8 */
    size_t n;               /* 2 <= n <= UINT32_MAX */
    ps_type type;
    unsigned flags;
    void *scratch;          /* at least ps_gpu_scratch(n, kb, vb) bytes */
    ps_rt_stream stream;
    /* Histogram every digit first, wait for it, and skip the passes whose
     * digit is the same for every key.  Synchronises the stream, so only
     * the host-array path asks for it; the device API runs every pass and
     * never waits. */
    int skip_constant;
} ps_gpu_job;

/* Scratch bytes of one sort; they depend on the path ps_gpu_enqueue takes
 * (PORTSORT_GPU_ALGO), so query and sort must see the same environment. */
size_t ps_gpu_scratch(size_t n, unsigned key_bytes, unsigned val_bytes);
int ps_gpu_enqueue(const ps_host *host, const ps_gpu_job *job);
/* A runtime error as a status, with host->fail("<backend>: what: why"). */
int ps_gpu_status(const ps_host *host, ps_rt_err err, const char *what);

/* ps_gpu_api.c: the device API table, and the host set by init. */
extern const ps_gpu_api ps_gpu_device_api;
void ps_gpu_api_set_host(const ps_host *host);
/* 1 (with host->fail) in a child forked after init: the runtime is unusable. */
int ps_gpu_forked(const ps_host *host);

#endif /* PS_GPU_INTERNAL_H */
