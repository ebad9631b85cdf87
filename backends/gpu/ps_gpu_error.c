/*
 * ps_gpu_error.c - runtime errors in words a user acts on, and the
 * device's death after a kernel fault.  The bottom of the CUDA/HIP host
 * code: every other file calls down into it, and it calls nothing of theirs.
 *
 * Loss.  After a kernel fault (an illegal address, a trap) the CUDA
 * context is unusable for the rest of the process, and every runtime call
 * returns the same "sticky" error; some may hang.  The first such error
 * marks the device lost here, and tells the core (ps_host.lost), which
 * stops sending work; calls that reach the module anyway (the device
 * API) are refused without touching the runtime.
 */
#include <config.h>

#include <pthread.h>
#include <stdio.h>

#include "ps_gpu_internal.h"

/* ---- loss ---------------------------------------------------------- */

/* Set once, lost last (release), so a reader that sees it sees why. */
static int lost;
static char lost_why[256];
static pthread_mutex_t lost_lock = PTHREAD_MUTEX_INITIALIZER;

static void mark_lost(const ps_host *host, ps_rt_err err, const char *what)
{
    pthread_mutex_lock(&lost_lock);
    if (!lost) {
        snprintf(lost_why, sizeof lost_why, "%s failed with %s (%s)", what,
                 RT(GetErrorName)(err), RT(GetErrorString)(err));
        __atomic_store_n(&lost, 1, __ATOMIC_RELEASE);
        if (host->lost != NULL)
            host->lost(PS_GPU_NAME, lost_why);
    }
    pthread_mutex_unlock(&lost_lock);
}

int ps_gpu_lost(const ps_host *host)
{
    if (!__atomic_load_n(&lost, __ATOMIC_ACQUIRE))
        return 0;
    host->fail(PS_GPU_NAME ": the device is lost: %s; a GPU context does not "
               "survive a kernel fault: restart the process", lost_why);
    return 1;
}

int ps_gpu_status(const ps_host *host, ps_rt_err err, const char *what)
{
    /* The two errors of a module built for another driver or GPU: said in
     * words a user can act on, not only the runtime's name for them. */
    if (PS_RT_PTX_TOO_NEW(err))
        host->fail(PS_GPU_NAME ": %s: the driver is older than the toolkit "
                   "that compiled this module's PTX (CUDA %d.%d): update the "
                   "driver, or rebuild with machine code for this GPU "
                   "(--with-cuda-arch=sm_NN) or an older toolkit (%s)", what,
                   PS_RT_BUILT_VERSION / 1000, PS_RT_BUILT_VERSION % 1000 / 10,
                   RT(GetErrorName)(err));
    else if (PS_RT_NO_IMAGE(err))
        host->fail(PS_GPU_NAME ": %s: no kernel image for this GPU in the module "
                   "(built for: %s); reconfigure with --with-" PS_GPU_NAME
                   "-arch (%s)", what, PS_GPU_ARCH_LIST, RT(GetErrorName)(err));
    else if (PS_RT_STICKY(err)) {
        mark_lost(host, err, what);
        host->fail(PS_GPU_NAME ": %s: %s (%s); the device is lost for this "
                   "process: restart it", what, RT(GetErrorString)(err),
                   RT(GetErrorName)(err));
    } else
        host->fail(PS_GPU_NAME ": %s: %s (%s)", what, RT(GetErrorString)(err),
                   RT(GetErrorName)(err));
    return PS_RT_OOM(err) ? PS_ERR_DEVICE_MEMORY : PS_ERR_DEVICE;
}
