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
 * Onesweep look-back always finds its predecessor finished (pocl runs it
 * with work-groups in parallel).
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
psfakeError_t psfakeGetDeviceProperties(psfakeDeviceProp *p, int dev);
psfakeError_t psfakeGetDevice(int *dev);
psfakeError_t psfakeSetDevice(int dev);
psfakeError_t psfakeMalloc(void **p, size_t bytes);
psfakeError_t psfakeFree(void *p);
psfakeError_t psfakeMallocHost(void **p, size_t bytes);
psfakeError_t psfakeFreeHost(void *p);
psfakeError_t psfakeMallocAsync(void **p, size_t bytes, psfakeStream_t s);
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
/* Warps of 32 work-items (the Onesweep kernel's warp ranking): every lane
 * of the warp must call these, as on a GPU. */
unsigned ps_fake_ballot(int pred);
unsigned ps_fake_shfl(unsigned v, unsigned lane);

#ifdef __cplusplus
}
#endif

#endif /* PS_GPU_FAKE_H */
