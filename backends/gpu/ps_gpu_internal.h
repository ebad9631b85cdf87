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
#include "ps_device_plan.h"
#include "ps_gpu_tune.h"

#if defined(PS_GPU_CUDA)
#  include <cuda_runtime_api.h>
#  define RT(x) cuda##x
#  define PS_GPU_NAME "cuda"
#  define PS_GPU_UPPER "CUDA"
#  define PS_GPU_PRIORITY 300
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
/* Errors after which the context is unusable for the rest of the process
 * (the CUDA documentation's "sticky" errors: kernel faults). */
#  define PS_RT_STICKY(e) ((e) == cudaErrorIllegalAddress \
                           || (e) == cudaErrorLaunchFailure \
                           || (e) == cudaErrorIllegalInstruction \
                           || (e) == cudaErrorMisalignedAddress \
                           || (e) == cudaErrorInvalidAddressSpace \
                           || (e) == cudaErrorInvalidPc \
                           || (e) == cudaErrorHardwareStackError \
                           || (e) == cudaErrorAssert \
                           || (e) == cudaErrorLaunchTimeout \
                           || (e) == cudaErrorECCUncorrectable)
/* cudaGetDriverEntryPoint gives the driver's context calls without
 * linking libcuda (ps_gpu_backend.c, enter()). */
#  define PS_RT_CTX_ENTRY 1
/* A launch: at most 2^31 - 1 blocks in x; their product with the block's
 * threads is not limited (ps_dev_launch_fits). */
#  define PS_RT_MAX_GROUPS 2147483647u
#  define PS_RT_MAX_ITEMS 0
#  if CUDART_VERSION >= 12050
#    define ps_rt_entry_point(sym, fn, q) \
         cudaGetDriverEntryPointByVersion((sym), (fn), 12000, cudaEnableDefault, (q))
#  else
#    define ps_rt_entry_point(sym, fn, q) \
         cudaGetDriverEntryPoint((sym), (fn), cudaEnableDefault, (q))
#  endif
typedef enum cudaDriverEntryPointQueryResult ps_rt_entry_result;
#  define PS_RT_ENTRY_FOUND cudaDriverEntryPointSuccess
#elif defined(PS_GPU_HIP)
#  include <hip/hip_runtime_api.h>
#  define RT(x) hip##x
#  define PS_GPU_NAME "hip"
#  define PS_GPU_UPPER "HIP"
#  define PS_GPU_PRIORITY 290
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
#  define PS_RT_STICKY(e) ((e) == hipErrorIllegalAddress \
                           || (e) == hipErrorLaunchFailure \
                           || (e) == hipErrorAssert \
                           || (e) == hipErrorLaunchTimeOut \
                           || (e) == hipErrorECCNotCorrectable)
/* HIP's context calls are deprecated; hipSetDevice binds no new context
 * (the runtime opens every device at start-up), so enter() uses it. */
#  define PS_RT_CTX_ENTRY 0
/* A launch: at most 2^32 - 1 work-items in all (AMD's packet holds the
 * grid's size in work-items, in 32 bits), and 2^31 - 1 groups in x. */
#  define PS_RT_MAX_GROUPS 2147483647u
#  define PS_RT_MAX_ITEMS 4294967295u
#elif defined(PS_GPU_FAKE)
/* test/standin/ps_gpu_fake.h: the CUDA host code on a CPU stand-in
 * runtime, for make check on machines without a GPU.  It poses as "cuda". */
#  include "ps_gpu_fake.h"
#  define RT(x) psfake##x
#  define PS_GPU_NAME "cuda"
#  define PS_GPU_UPPER "CUDA"
#  define PS_GPU_PRIORITY 300
typedef psfakeError_t ps_rt_err;
typedef psfakeStream_t ps_rt_stream;
typedef psfakeEvent_t ps_rt_event;
typedef psfakeFuncAttributes ps_rt_func_attr;
typedef psfakeDeviceProp ps_rt_prop;
#  define PS_RT_NO_DRIVER(e) ((e) == psfakeErrorInsufficientDriver)
#  define PS_RT_NO_DEVICE(e) ((e) == psfakeErrorNoDevice)
#  define PS_RT_OOM(e) ((e) == psfakeErrorMemoryAllocation)
#  define PS_RT_NO_IMAGE(e) ((e) == psfakeErrorNoKernelImageForDevice)
#  define ps_rt_host_alloc(p, n) psfakeMallocHost((p), (n))
#  define ps_rt_host_free(p) psfakeFreeHost(p)
#  define PS_RT_PTX_TOO_NEW(e) ((e) == psfakeErrorUnsupportedPtxVersion)
#  define PS_RT_BUILT_VERSION 13000
#  define PS_RT_STICKY(e) ((e) == psfakeErrorIllegalAddress)
#  define PS_RT_CTX_ENTRY 1
/* CUDA's limits, or HIP-like ones the tests set (PS_FAKE_MAX_ITEMS). */
#  define PS_RT_MAX_GROUPS 2147483647u
#  define PS_RT_MAX_ITEMS ps_fake_max_items()
#  define ps_rt_entry_point(sym, fn, q) \
       psfakeGetDriverEntryPointByVersion((sym), (fn), 12000, psfakeEnableDefault, (q))
typedef enum psfakeDriverEntryPointQueryResult ps_rt_entry_result;
#  define PS_RT_ENTRY_FOUND psfakeDriverEntryPointSuccess
#else
#  error "compile backends/gpu with -DPS_GPU_CUDA, -DPS_GPU_HIP or -DPS_GPU_FAKE"
#endif

/* One instantiation of backends/kernels/ps_kernel_radix.cl,
 * ps_kernel_onesweep.cl, ps_kernel_segments.cl and ps_kernel_topk.cl (key
 * width x value width), from ps_gpu_kernels.cu:
 * the host stubs of its kernels, which RT(LaunchKernel) takes, and the
 * keys per work-item of each path's tiles. */
typedef struct ps_gpu_kernels {
    unsigned key_bytes, val_bytes, items;
    const void *hist, *upsweep, *scan, *downsweep, *local;
    unsigned os_items;
    const void *os_hist, *os_scan, *onesweep;
    unsigned seg_small;     /* the segmented sort's small class (keys) */
    const void *seg_classify, *seg_small_sort, *seg_medium, *seg_up, *seg_down;
    const void *topk_iota, *topk_gather;    /* the device top-k's */
    const void *rec_key, *rec_gather;       /* the device records sorts' */
} ps_gpu_kernels;

/* ps_gpu_sort.c: the instantiation for these widths (its table is one of
 * the 12 objects compiled from ps_gpu_kernels.cu). */
const ps_gpu_kernels *ps_gpu_kernels_for(unsigned key_bytes, unsigned val_bytes);
/* ps_gpu_util.cu: fills a device array of n 64-bit words with 0 .. n - 1. */
extern const void *const ps_gpu_iota64_kernel;

/* ps_gpu_sort.c: the device plan's tuning (backends/device/ps_device_plan.h)
 * for an instantiation: the PS_GPU_* constants it was compiled with, and
 * the path PORTSORT_GPU_ALGO asks for, read at every call, so a scratch
 * query and the sort after it must see the same environment. */
ps_dev_tune ps_gpu_tune(const ps_gpu_kernels *k);
/* ps_gpu_sort.c: the scratch bytes of a sort (segments 0) or a segmented
 * sort (1) of n keys, from the plan the sort makes: PS_OK, or its refusal
 * with host->fail. */
int ps_gpu_scratch(const ps_host *host, size_t n, unsigned key_bytes,
                   unsigned val_bytes, int segments, size_t *bytes);

/* ps_gpu_sort.c: one sort of device arrays, enqueued on a stream. */
typedef struct ps_gpu_job {
    void *keys;             /* sorted in place */
    void *vals;             /* NULL for keys only */
    unsigned val_bytes;     /* 0, 4 or 8 */
    size_t n;               /* 2 <= n <= UINT32_MAX */
    ps_type type;
    unsigned flags;
    void *scratch;          /* at least ps_gpu_scratch(..., 0, ...) bytes */
    ps_rt_stream stream;
    /* Histogram every digit first, wait for it, and skip the passes whose
     * digit is the same for every key.  Synchronises the stream, so only
     * the host-array path asks for it; the device API runs every pass and
     * never waits. */
    int skip_constant;
} ps_gpu_job;

int ps_gpu_enqueue(const ps_host *host, const ps_gpu_job *job);
/* PORTSORT_GPU_ALGO: 1 with *onesweep set (0 portable, 1 onesweep), 0 when
 * unset or empty, -1 with why set when malformed (ps_env_word). */
int ps_gpu_algo_env(int *onesweep, char *why, size_t why_len);
/* One launch of kernel fn (a table entry) on grid work-groups of
 * PS_GPU_WG; a failure is a status, with host->fail naming `what`. */
int ps_gpu_launch(const ps_host *host, const void *fn, size_t grid, void **args,
                  ps_rt_stream s, const char *what);
/* ps_gpu_segments.c: one segmented sort of device arrays, enqueued on a
 * stream; offs holds nseg + 1 64-bit offsets in device memory.  Waits
 * for the stream once (the classification's counts). */
typedef struct ps_gpu_segjob {
    void *keys, *vals;      /* vals NULL for keys only */
    unsigned val_bytes;     /* 0, 4 or 8 */
    size_t n;               /* 2 <= n <= UINT32_MAX */
    const void *offs;
    size_t nseg;            /* <= UINT32_MAX */
    ps_type type;
    unsigned flags;
    void *scratch;          /* at least ps_gpu_scratch(..., 1, ...) bytes */
    ps_rt_stream stream;
    int skip_constant;      /* for the large segments' sorts (ps_gpu_job) */
} ps_gpu_segjob;

int ps_gpu_seg_enqueue(const ps_host *host, const ps_gpu_segjob *job);
/* ps_gpu_error.c: a runtime error as a status, with host->fail("<backend>:
 * what: why").  A sticky error (PS_RT_STICKY) also marks the device lost:
 * for the core (host->lost) and for ps_gpu_lost. */
int ps_gpu_status(const ps_host *host, ps_rt_err err, const char *what);
/* ps_gpu_error.c: 1 (with host->fail and PS_ERR_DEVICE to return) once a
 * sticky error has killed the context: every later call is refused without
 * touching the runtime, whose state after such a fault is undefined. */
int ps_gpu_lost(const ps_host *host);
/* ps_gpu_device.c: 1 (with host->fail) when the module has no kernel image
 * for the calling thread's current device; checked once per device. */
int ps_gpu_no_image(const ps_host *host, int dev);

/* ps_gpu_copy.c: host memcpy on the calling thread and a few helper
 * threads, for the copies through pinned staging.  ps_gpu_copier_new()
 * returns NULL where no helper can run (then ps_gpu_copy is a memcpy); one
 * ps_gpu_copy at a time per copier. */
typedef struct ps_gpu_copier ps_gpu_copier;
ps_gpu_copier *ps_gpu_copier_new(void);
void ps_gpu_copier_free(ps_gpu_copier *c);
void ps_gpu_copy(ps_gpu_copier *c, void *dst, const void *src, size_t bytes);

/* ps_gpu_device.c: a device the host-array sorts run on, and the calling
 * thread's own binding, saved by ps_gpu_enter and given back by
 * ps_gpu_leave (see the file for why not cudaSetDevice). */
typedef struct ps_gpu_dev {
    int dev;                /* the runtime's device ordinal */
    int cudev;              /* the driver's handle for it (CUDA) */
    void *ctx;              /* its retained primary context, or NULL */
} ps_gpu_dev;
typedef struct ps_gpu_saved {
    int pushed;             /* ctx was pushed: pop it */
    int old;                /* else the device to switch back to, or -1 */
} ps_gpu_saved;
int ps_gpu_dev_open(const ps_host *host, ps_gpu_dev *d, int dev);
void ps_gpu_dev_close(ps_gpu_dev *d);
int ps_gpu_enter(const ps_host *host, const ps_gpu_dev *d, ps_gpu_saved *saved);
void ps_gpu_leave(const ps_gpu_dev *d, const ps_gpu_saved *saved);

/* ps_gpu_records.c: a records or columns sort of device arrays, enqueued
 * on a stream, after the device API's checks.  Key i's element r is at
 * base[i] + key[i].off + r * key[i].stride (the records for every field,
 * or column i); words as ps_rec_pack made them.  perm NULL: the records
 * (rec, record_bytes each) sorted in place; else the permutation (64-bit)
 * written to perm.  scratch holds pl->bytes. */
struct ps_rec_key;
struct ps_rec_word;
typedef struct ps_gpu_recjob {
    const void *const *base;
    const struct ps_rec_key *key;
    const struct ps_rec_word *word;
    size_t nwords;
    size_t n;
    void *rec;
    size_t record_bytes;
    size_t *perm;
    void *scratch;
    ps_rt_stream stream;
} ps_gpu_recjob;

/* The records plan (ps_dev_plan_records) for n rows with this module's
 * four tunings, record_bytes 0 for the argsorts: PS_OK or its refusal. */
int ps_gpu_rec_plan(const ps_host *host, size_t n, size_t record_bytes,
                    ps_dev_rec_plan *pl);
int ps_gpu_rec_enqueue(const ps_host *host, const ps_gpu_recjob *job,
                       const ps_dev_rec_plan *pl);

/* ps_gpu_api.c: the device API table, and the host set by init. */
extern const ps_gpu_api ps_gpu_device_api;
void ps_gpu_api_set_host(const ps_host *host);
/* 1 (with host->fail) in a child forked after init: the runtime is unusable. */
int ps_gpu_forked(const ps_host *host);

#endif /* PS_GPU_INTERNAL_H */
