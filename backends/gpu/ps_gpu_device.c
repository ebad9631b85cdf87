/*
 * ps_gpu_device.c - the CUDA and HIP modules' dealings with devices: which
 * device a calling thread's work runs on (and giving the thread back as it
 * was), and whether this module has a kernel image for a device.
 *
 * Binding.  The host-array sorts run on the backend's device, which may
 * not be the calling thread's.  cudaSetDevice would switch, but it also
 * creates the primary context of every device it names (CUDA 12), and
 * switching back to a thread's "previous" device creates one on GPU 0 for
 * a thread that never chose any: an application working on GPU 3 would
 * find a context of ours on GPU 0, and in EXCLUSIVE_PROCESS mode a
 * failure when another process holds GPU 0.  So on CUDA the backend
 * retains its device's primary context once and pushes it onto the
 * calling thread's context stack for the duration of a call, popping it
 * after: the runtime works on the pushed context, and the thread's own
 * context, and the runtime's choice of device, are never touched.  The
 * driver calls come through cudaGetDriverEntryPoint, so the module still
 * loads (and reports why it cannot run) where libcuda is missing.  HIP
 * opens every device at start-up and deprecates its context calls, so
 * there the thread's device is switched and restored, only when it
 * differs.
 *
 * A device's loss after a kernel fault is ps_gpu_error.c's business.
 */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ps_gpu_arch.h"
#include "ps_gpu_internal.h"

/* ---- kernel images --------------------------------------------------- */

/* Bit d: device d has an image of the kernels.  Devices beyond 63 are
 * checked on every call. */
static uint64_t image_ok;

int ps_gpu_no_image(const ps_host *host, int dev)
{
    const ps_gpu_kernels *k = ps_gpu_kernels_for(4, 0);
    uint64_t bit = dev >= 0 && dev < 64 ? (uint64_t)1 << dev : 0;
    ps_rt_func_attr attr;
    ps_rt_err e;

    if (bit != 0 && (__atomic_load_n(&image_ok, __ATOMIC_RELAXED) & bit))
        return 0;
#if defined(PS_GPU_HIP)
    /* Asking HIP about a kernel it has no code object for aborts the
     * process in many ROCm releases ("hipErrorNoBinaryForGpu: Unable to
     * find code object for all current devices!") instead of returning
     * the error below: compare the GPU's target with the module's first.
     * What the names cannot tell (generic targets) is left to the
     * runtime; doc/cuda.md says what HIP_SKIP_ABORT_ON_GPU_ERROR changes. */
    {
        ps_rt_prop prop;
        if (RT(GetDeviceProperties)(&prop, dev) != RT(Success)) {
            RT(GetLastError)();
        } else if (ps_gpu_arch_listed(prop.gcnArchName, PS_GPU_ARCH_LIST) == 0) {
            host->fail(PS_GPU_NAME ": no code object for GPU %d (%.60s) in the "
                       "module (built for: %s); the HIP runtime would abort the "
                       "process at its first kernel: reconfigure with "
                       "--with-hip-arch naming %.*s", dev, prop.gcnArchName,
                       PS_GPU_ARCH_LIST, (int)strcspn(prop.gcnArchName, ":"),
                       prop.gcnArchName);
            return 1;
        }
    }
#endif
    e = RT(FuncGetAttributes)(&attr, k->local);
    if (PS_RT_NO_IMAGE(e)) {
        RT(GetLastError)();
        host->fail(PS_GPU_NAME ": no kernel image for GPU %d in the module "
                   "(built for: %s); reconfigure with --with-" PS_GPU_NAME
                   "-arch naming it", dev, PS_GPU_ARCH_LIST);
        return 1;
    }
    if (e != RT(Success)) {
        ps_gpu_status(host, e, "kernel attributes");
        return 1;
    }
    __atomic_fetch_or(&image_ok, bit, __ATOMIC_RELAXED);
    return 0;
}

/* ---- binding a thread to the backend's device ------------------------ */

#if PS_RT_CTX_ENTRY
/* The driver calls, as their C types (CUresult is an int-sized enum,
 * CUcontext a pointer, CUdevice an int). */
static struct {
    int (*device_get)(int *dev, int ordinal);
    int (*retain)(void **ctx, int dev);
    int (*release)(int dev);
    int (*push)(void *ctx);
    int (*pop)(void **ctx);
} drv;
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

static void drv_load(void)
{
    static const char *const names[] = {
        "cuDeviceGet", "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease",
        "cuCtxPushCurrent", "cuCtxPopCurrent",
    };
    void *fn[5];
    size_t i;
    for (i = 0; i < 5; i++) {
        ps_rt_entry_result q;
        fn[i] = NULL;
        if (ps_rt_entry_point(names[i], &fn[i], &q) != RT(Success)
            || q != PS_RT_ENTRY_FOUND || fn[i] == NULL) {
            RT(GetLastError)();
            return;     /* all or none: drv stays empty */
        }
    }
    /* POSIX guarantees that function pointers convert through void *. */
    *(void **)&drv.device_get = fn[0];
    *(void **)&drv.retain = fn[1];
    *(void **)&drv.release = fn[2];
    *(void **)&drv.push = fn[3];
    *(void **)&drv.pop = fn[4];
}
#endif

int ps_gpu_dev_open(const ps_host *host, ps_gpu_dev *d, int dev)
{
    d->dev = dev;
    d->ctx = NULL;
    d->cudev = 0;
#if PS_RT_CTX_ENTRY
    pthread_once(&drv_once, drv_load);
    if (drv.retain != NULL) {
        int r = drv.device_get(&d->cudev, dev);
        if (r == 0)
            r = drv.retain(&d->ctx, d->cudev);
        if (r != 0) {
            d->ctx = NULL;
            host->fail(PS_GPU_NAME ": cannot open the primary context of device "
                       "%d (driver error %d)", dev, r);
            return PS_ERR_DEVICE;
        }
    }
#else
    (void)host;
#endif
    return PS_OK;
}

void ps_gpu_dev_close(ps_gpu_dev *d)
{
#if PS_RT_CTX_ENTRY
    if (d->ctx != NULL)
        drv.release(d->cudev);
#endif
    d->ctx = NULL;
}

int ps_gpu_enter(const ps_host *host, const ps_gpu_dev *d, ps_gpu_saved *saved)
{
    saved->pushed = 0;
    saved->old = -1;
#if PS_RT_CTX_ENTRY
    if (d->ctx != NULL) {
        int r = drv.push(d->ctx);
        if (r != 0) {
            host->fail(PS_GPU_NAME ": cannot make device %d current (driver "
                       "error %d)", d->dev, r);
            return PS_ERR_DEVICE;
        }
        saved->pushed = 1;
        return PS_OK;
    }
#endif
    if (RT(GetDevice)(&saved->old) != RT(Success)) {
        RT(GetLastError)();
        saved->old = -1;
    }
    if (saved->old == d->dev)
        return PS_OK;
#if PS_RT_CTX_ENTRY
    /* CUDA without the driver's context calls (drv_load found none): the
     * thread could be switched only through the runtime, and switching
     * back with cudaSetDevice(old) creates old's primary context (CUDA 12
     * and later), on GPU 0 for a thread that never chose a device, since
     * cudaGetDevice says 0 there.  Refuse rather than take memory on a GPU
     * the application may not use (HIP's hipSetDevice creates no context:
     * the switch below is its way). */
    host->fail(PS_GPU_NAME ": this thread's device is %d and the backend's is "
               "%d, and without the driver's context calls (cuCtxPushCurrent, "
               "not found by cudaGetDriverEntryPointByVersion) switching back "
               "would create a context on device %d: call cudaSetDevice(%d) "
               "in this thread before sorting, or set PORTSORT_CUDA_DEVICE=%d",
               saved->old, d->dev, saved->old, d->dev, saved->old);
    return PS_ERR_DEVICE;
#else
    {
        ps_rt_err e = RT(SetDevice)(d->dev);
        return e == RT(Success) ? PS_OK : ps_gpu_status(host, e, "set device");
    }
#endif
}

void ps_gpu_leave(const ps_gpu_dev *d, const ps_gpu_saved *saved)
{
#if PS_RT_CTX_ENTRY
    if (saved->pushed) {
        void *ctx;
        drv.pop(&ctx);
        return;
    }
#endif
    if (saved->old >= 0 && saved->old != d->dev)
        RT(SetDevice)(saved->old);
}
