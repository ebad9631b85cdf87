/*
 * ps_gpu_fake.h - a stand-in for the CUDA runtime API, just large enough
 * for the CUDA/HIP host code (the .c files of backends/gpu, built with -DPS_GPU_FAKE),
 * that runs the kernels on the CPU: "device" memory is host memory, streams
 * and events are synchronous, and a launch runs every work-group in turn
 * with one thread per work-item and a real barrier between them.
 *
 * It lets make check run the CUDA backend's host code (launch sequence,
 * argument packing, scratch layout, tile sizes, device API, host-array
 * staging) on every machine, with the shared kernels compiled as C++ by the
 * same instantiation file nvcc uses (backends/gpu/ps_gpu_kernels.cu).
 * What it cannot show: anything about real GPU memory, timing, warp
 * scheduling.  Work-groups run one after the other, in order, so the
 * Onesweep look-back finds its predecessor finished unless the tiles are
 * handed out in another order (PS_FAKE_OS_ORDER below): then it meets a
 * device without forward progress, where the predecessor cannot run
 * before it ends.
 */
#ifndef PS_GPU_FAKE_H
#define PS_GPU_FAKE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum psfakeError_t {
    psfakeSuccess = 0,
    psfakeErrorMemoryAllocation = 2,
    psfakeErrorInsufficientDriver = 35,
    psfakeErrorNoDevice = 100,
    psfakeErrorIllegalAddress = 700,
    psfakeErrorNotSupported = 801,
    psfakeErrorUnsupportedPtxVersion = 222,
    psfakeErrorNoKernelImageForDevice = 209,
    psfakeErrorInvalidDevice = 101,
    psfakeErrorInvalidValue = 1
} psfakeError_t;

typedef struct psfake_stream *psfakeStream_t;
typedef struct psfake_event *psfakeEvent_t;
typedef struct dim3 { unsigned x, y, z; } dim3;
typedef struct psfakeFuncAttributes { int numRegs; } psfakeFuncAttributes;
typedef struct psfakeDeviceProp {
    char name[256];
    int major, minor, multiProcessorCount;
    size_t totalGlobalMem;
} psfakeDeviceProp;

enum psfakeMemcpyKind {
    psfakeMemcpyHostToDevice, psfakeMemcpyDeviceToHost, psfakeMemcpyDeviceToDevice
};
#define psfakeStreamNonBlocking 1u
#define psfakeEventDisableTiming 2u

psfakeError_t psfakeGetDeviceCount(int *n);
psfakeError_t psfakeDriverGetVersion(int *v);
psfakeError_t psfakeGetDeviceProperties(psfakeDeviceProp *p, int dev);
psfakeError_t psfakeGetDevice(int *dev);
psfakeError_t psfakeSetDevice(int dev);
psfakeError_t psfakeMalloc(void **p, size_t bytes);
psfakeError_t psfakeFree(void *p);
psfakeError_t psfakeMallocHost(void **p, size_t bytes);
psfakeError_t psfakeFreeHost(void *p);
psfakeError_t psfakeMallocAsync(void **p, size_t bytes, psfakeStream_t s);
enum psfakeDeviceAttr { psfakeDevAttrMemoryPoolsSupported = 115 };
psfakeError_t psfakeDeviceGetAttribute(int *v, enum psfakeDeviceAttr a, int dev);
psfakeError_t psfakeFreeAsync(void *p, psfakeStream_t s);
psfakeError_t psfakeMemcpyAsync(void *dst, const void *src, size_t bytes,
                                enum psfakeMemcpyKind kind, psfakeStream_t s);
psfakeError_t psfakeMemsetAsync(void *dst, int v, size_t bytes, psfakeStream_t s);
psfakeError_t psfakeStreamCreateWithFlags(psfakeStream_t *s, unsigned flags);
psfakeError_t psfakeStreamDestroy(psfakeStream_t s);
psfakeError_t psfakeStreamSynchronize(psfakeStream_t s);
psfakeError_t psfakeEventCreateWithFlags(psfakeEvent_t *e, unsigned flags);
psfakeError_t psfakeEventDestroy(psfakeEvent_t e);
psfakeError_t psfakeEventRecord(psfakeEvent_t e, psfakeStream_t s);
psfakeError_t psfakeEventSynchronize(psfakeEvent_t e);
psfakeError_t psfakeFuncAttributes_get(psfakeFuncAttributes *a, const void *fn);
#define psfakeFuncGetAttributes psfakeFuncAttributes_get
psfakeError_t psfakeLaunchKernel(const void *fn, dim3 grid, dim3 block, void **args,
                                 size_t shared, psfakeStream_t s);
psfakeError_t psfakeGetLastError(void);

/* The driver entry points the CUDA backend binds a device's primary
 * context with (cuDeviceGet, cuDevicePrimaryCtxRetain/Release,
 * cuCtxPushCurrent/PopCurrent, through cudaGetDriverEntryPointByVersion):
 * the stand-in keeps, per thread, a stack of current contexts and the
 * runtime's own device choice, as CUDA 12 does. */
enum psfakeDriverEntryPointQueryResult { psfakeDriverEntryPointSuccess = 0,
                                         psfakeDriverEntryPointSymbolNotFound = 1 };
#define psfakeEnableDefault 0ull
psfakeError_t psfakeGetDriverEntryPointByVersion(
    const char *symbol, void **fn, unsigned version, unsigned long long flags,
    enum psfakeDriverEntryPointQueryResult *result);

/* For tests (ps_test_gpu_ctx.c), found with dlsym: the devices whose
 * primary context exists (bit d for device d), the device the calling
 * thread's current context belongs to (-1: none), and the device the last
 * kernel ran on. */
unsigned ps_fake_contexts(void);
int ps_fake_thread_context(void);
int ps_fake_last_launch_device(void);
/* The calling thread's last error set to e, as a failed call of the
 * application's would leave it; and how many stream-ordered allocations
 * failed so far (PS_FAKE_NO_POOLS, PS_FAKE_POOL_FAILS). */
void ps_fake_set_last_error(int e);
long ps_fake_async_failures(void);
/* The most work-items one launch may have, as HIP's 2^32 - 1: 0 (no
 * limit, as CUDA) unless PS_FAKE_MAX_ITEMS says otherwise, so that a test
 * can reach the limit with a few thousand keys. */
unsigned long long ps_fake_max_items(void);
const char *psfakeGetErrorString(psfakeError_t e);
const char *psfakeGetErrorName(psfakeError_t e);

/* What a kernel instantiation hands the fake launcher instead of a host
 * stub: a function that unpacks args and calls the kernel body. */
typedef struct ps_fake_kernel {
    void (*run)(void **args);
} ps_fake_kernel;

/* The work-item's view, for the emulated dialect. */
unsigned ps_fake_lid(void);
unsigned ps_fake_group(void);
unsigned ps_fake_ngroups(void);
unsigned ps_fake_nlocal(void);
void ps_fake_barrier(void);
/* Warps (the Onesweep kernel's warp ranking) of PS_FAKE_WARP work-items:
 * 32 (the default) or 64.  Every lane of the warp must call the ballot
 * and the shuffle, as on a GPU; a ballot is 64 bits wide, as HIP's. */
unsigned ps_fake_warp_size(void);
unsigned long long ps_fake_ballot(int pred);
unsigned ps_fake_shfl(unsigned v, unsigned lane);
/* The lanes whose v equals this lane's (__match_any_sync), and those
 * whose bit `bit` of v equals this lane's (the CUDA dialect's
 * PS_WARP_MATCH_BIT); and the Onesweep ranking's form, from PS_FAKE_MATCH:
 * 1 "any", 2 "bit", 0 (unset, "ballot") the ballots in C. */
unsigned long long ps_fake_match_any(unsigned v);
unsigned long long ps_fake_match_bit(unsigned v, unsigned bit);
unsigned ps_fake_match_mode(void);
/* The Onesweep look-back (ps_kernel_onesweep.cl): PS_FAKE_OS_SPINS
 * (default 8; "never" plays the look-back without its fallback) polling
 * rounds before it counts a silent predecessor's keys itself, and
 * PS_FAKE_OS_ORDER (0: ticket order, 1: last tile first, 2: odd tiles
 * first, 3: scrambled) so that, with work-groups run one at a time, a predecessor it
 * waits for has not run yet and cannot until it finishes.  The pause
 * aborts the process, saying so, when one work-group has waited 1000
 * rounds: a look-back that would never end. */
unsigned ps_fake_os_spins(void);
unsigned ps_fake_os_order(void);
void ps_fake_pause(unsigned round);

#ifdef __cplusplus
}
#endif

#endif /* PS_GPU_FAKE_H */
