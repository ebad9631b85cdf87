/*
 * ps_gpu_backend.c - the CUDA or HIP backend's ops table: probe, init, and
 * sorts of host arrays (copy in through pinned staging, sort, copy out).
 *
 * One device per process, chosen at init: PORTSORT_CUDA_DEVICE (or
 * PORTSORT_HIP_DEVICE) = an index, else the device current in the thread
 * that initialises the library (0 in a thread that never chose one), so an
 * application working on GPU 3 sorts on GPU 3.  Every call binds that
 * device for its own work and gives the calling thread back exactly the
 * binding it had, creating no context on any other device
 * (ps_gpu_device.c).
 *
 * Host-array sorts share one cached device buffer, one pair of pinned
 * staging buffers and one host buffer, so they run one at a time (a
 * mutex); the device would serialise them anyway.  Copies go through the
 * two pinned buffers in turn, so the host's memcpy of one chunk overlaps
 * the DMA of the other.  The sorted keys and values come back into the
 * host buffer first and reach the caller's arrays only once every copy
 * has succeeded: a device lost during the copies (the only step left that
 * can fail) must leave the caller's arrays as they were, and the
 * unsorted data exists nowhere else by then.  That costs a host memcpy of
 * the output.
 */
#include <config.h>

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ps_gpu_internal.h"

#if defined(PS_GPU_CUDA) || defined(PS_GPU_FAKE)
#  define PS_GPU_DEVICE_ENV "PORTSORT_CUDA_DEVICE"
#else
#  define PS_GPU_DEVICE_ENV "PORTSORT_HIP_DEVICE"
#endif

/* Under PORTSORT_BACKEND=auto, host arrays of fewer keys go to the CPU
 * backend.  Provisional: not measured, since no GPU was at hand when this
 * was written.  Reasoning (doc/cuda.md): below ~100K keys the two PCIe
 * copies, ~20 kernel launches and the stream synchronisations (~0.3 ms in
 * all) cost more than a multi-core CPU sort of the same array.
 * PORTSORT_GPU_MIN_N overrides it; bench/gpu-run.sh measures it. */
#define PS_GPU_AUTO_MIN_N ((size_t)1 << 17)

/* Bytes per pinned staging buffer (two of them); the CPU stand-in's test
 * sets it small so that its arrays take the many-chunk path. */
#ifndef PS_GPU_STAGE_BYTES
#  define PS_GPU_STAGE_BYTES ((size_t)4 << 20)
#endif
#define STAGE ((size_t)PS_GPU_STAGE_BYTES)

typedef struct gstate {
    const ps_host *host;
    ps_gpu_dev d;
    ps_rt_stream stream;
    ps_rt_event ev[2];
    pthread_mutex_t lock;       /* host-array sorts and the cache below */
    void *dbuf;                 /* keys, values and scratch on the device */
    size_t dbytes;
    void *pin[2];               /* pinned staging, STAGE bytes each, or NULL */
    void *hbuf;                 /* the sorted output on its way back */
    size_t hbytes;
    ps_gpu_copier *copier;      /* staging copies on several threads, or NULL */
} gstate;

static int device_env(int *dev, char *why, size_t why_len)
{
    unsigned long long v;
    int r = ps_env_number(PS_GPU_DEVICE_ENV, 0, INT_MAX, &v, why, why_len);
    if (r == 1)
        *dev = (int)v;
    return r;
}

/* Both variables, at the choice of backend (ps_backend_ops.check_env). */
static int gpu_check_env(char *why, size_t why_len)
{
    int dev, onesweep;
    return device_env(&dev, why, why_len) < 0
           || ps_gpu_algo_env(&onesweep, why, why_len) < 0 ? -1 : 0;
}

/* PORTSORT_CUDA_DEVICE, else the calling thread's current device; asking
 * for it creates no context. */
static int chosen_device(void)
{
    char why[160];
    int dev = 0;
    if (device_env(&dev, why, sizeof why) == 1)
        return dev;
    if (RT(GetDevice)(&dev) != RT(Success)) {
        RT(GetLastError)();
        dev = 0;
    }
    return dev;
}

/* Never aborts: every runtime error becomes a reason.  The static CUDA
 * runtime opens libcuda.so.1 itself on the first call and reports a missing
 * or too old driver as cudaErrorInsufficientDriver. */
static void gpu_probe(ps_probe *out)
{
    int count = 0, dev;
    ps_rt_prop prop;
    ps_rt_err e = RT(GetDeviceCount)(&count);

    out->gpu = 1;
    if (PS_RT_NO_DRIVER(e)) {
        int drv = 0;
        if (RT(DriverGetVersion)(&drv) != RT(Success))
            drv = 0;
        if (drv > 0 && PS_RT_BUILT_VERSION > 0)
            /* A driver is there, only too old for the runtime linked in. */
            snprintf(out->detail, sizeof out->detail, PS_GPU_UPPER " driver too "
                     "old (needs >= %d.%d, has %d.%d): update the driver, or "
                     "build with a toolkit no newer than the driver (doc/cuda.md)",
                     PS_RT_BUILT_VERSION / 1000, PS_RT_BUILT_VERSION % 1000 / 10,
                     drv / 1000, drv % 1000 / 10);
        else
            snprintf(out->detail, sizeof out->detail,
                     "no " PS_GPU_UPPER " driver (%s)", RT(GetErrorString)(e));
        return;
    }
    if (PS_RT_NO_DEVICE(e) || (e == RT(Success) && count == 0)) {
        snprintf(out->detail, sizeof out->detail, "no " PS_GPU_UPPER " device");
        return;
    }
    if (e != RT(Success)) {
        snprintf(out->detail, sizeof out->detail, "no " PS_GPU_UPPER
                 " device (%s: %s)", RT(GetErrorName)(e), RT(GetErrorString)(e));
        return;
    }
    dev = chosen_device();
    if (dev >= count) {
        snprintf(out->detail, sizeof out->detail, "no " PS_GPU_UPPER
                 " device %d (%s=%d, %d device%s)", dev, PS_GPU_DEVICE_ENV, dev,
                 count, count == 1 ? "" : "s");
        return;
    }
    memset(&prop, 0, sizeof prop);
    e = RT(GetDeviceProperties)(&prop, dev);
    if (e != RT(Success)) {
        snprintf(out->detail, sizeof out->detail, "no " PS_GPU_UPPER
                 " device (properties of device %d: %s)", dev, RT(GetErrorString)(e));
        return;
    }
    out->usable = 1;
    out->min_n = PS_GPU_AUTO_MIN_N;
#if defined(PS_GPU_CUDA) || defined(PS_GPU_FAKE)
    snprintf(out->detail, sizeof out->detail,
             "%.120s (CUDA device %d, sm_%d%d, %d SMs, %zu MiB)", prop.name, dev,
             prop.major, prop.minor, prop.multiProcessorCount,
             (size_t)(prop.totalGlobalMem >> 20));
#else
    snprintf(out->detail, sizeof out->detail,
             "%.100s (HIP device %d, %.40s, %d CUs, %zu MiB)", prop.name, dev,
             prop.gcnArchName, prop.multiProcessorCount,
             (size_t)(prop.totalGlobalMem >> 20));
#endif
}

static int enter(const gstate *s, ps_gpu_saved *saved)
{
    return ps_gpu_enter(s->host, &s->d, saved);
}

static void leave(const gstate *s, const ps_gpu_saved *saved)
{
    ps_gpu_leave(&s->d, saved);
}

static void free_cache(gstate *s)
{
    int i;
    if (s->dbuf != NULL)
        RT(Free)(s->dbuf);
    s->dbuf = NULL;
    s->dbytes = 0;
    for (i = 0; i < 2; i++) {
        if (s->pin[i] != NULL)
            ps_rt_host_free(s->pin[i]);
        s->pin[i] = NULL;
    }
    s->host->release(s->hbuf);
    s->hbuf = NULL;
    s->hbytes = 0;
}

static void gpu_release(void *state)
{
    gstate *s = state;
    ps_gpu_saved saved;
    int i;
    if (s == NULL)
        return;
    /* At process exit the runtime may already be shutting down; its errors
     * are of no consequence here. */
    if (enter(s, &saved) == PS_OK) {
        free_cache(s);
        for (i = 0; i < 2; i++)
            if (s->ev[i] != NULL)
                RT(EventDestroy)(s->ev[i]);
        if (s->stream != NULL)
            RT(StreamDestroy)(s->stream);
        leave(s, &saved);
    }
    ps_gpu_dev_close(&s->d);
    ps_gpu_copier_free(s->copier);
    pthread_mutex_destroy(&s->lock);
    s->host->release(s);
}

static int gpu_init(const ps_host *host, void **state)
{
    const ps_gpu_kernels *k = ps_gpu_kernels_for(4, 0);
    ps_rt_func_attr attr;
    ps_gpu_saved saved;
    gstate *s;
    ps_rt_err e;
    int st, i;

    s = host->alloc(sizeof *s);
    if (s == NULL) {
        host->fail(PS_GPU_NAME ": cannot allocate the backend state");
        return PS_ERR_NO_MEMORY;
    }
    memset(s, 0, sizeof *s);
    memset(&attr, 0, sizeof attr);
    s->host = host;
    pthread_mutex_init(&s->lock, NULL);
    ps_gpu_api_set_host(host);
    st = ps_gpu_dev_open(host, &s->d, chosen_device());
    if (st == PS_OK)
        st = enter(s, &saved);
    if (st != PS_OK) {
        ps_gpu_dev_close(&s->d);
        pthread_mutex_destroy(&s->lock);
        host->release(s);
        return st;
    }
    /* A GPU that the build did not target (--with-cuda-arch / --with-hip-
     * arch) has no image of the kernels: say so now rather than at the
     * first sort. */
    if (ps_gpu_no_image(host, s->d.dev)) {
        st = PS_ERR_DEVICE;
    } else {
        e = RT(FuncGetAttributes)(&attr, k->local);
        if (e != RT(Success))
            st = ps_gpu_status(host, e, "kernel attributes");
    }
    if (st == PS_OK) {
        e = RT(StreamCreateWithFlags)(&s->stream, RT(StreamNonBlocking));
        for (i = 0; i < 2 && e == RT(Success); i++)
            e = RT(EventCreateWithFlags)(&s->ev[i], RT(EventDisableTiming));
        if (e != RT(Success))
            st = ps_gpu_status(host, e, "stream and events");
    }
    leave(s, &saved);
    if (st != PS_OK) {
        gpu_release(s);
        return st;
    }
    /* Without helper threads (one CPU, or none could start) the copies
     * stay on the calling thread. */
    s->copier = ps_gpu_copier_new();
    host->log(PS_GPU_NAME ": device %d, %d registers per thread in ps_sort_local",
              s->d.dev, attr.numRegs);
    *state = s;
    return PS_OK;
}

/* Copies through the two pinned buffers in turn (or straight from pageable
 * memory when pinning failed).  `turn` counts chunks across calls so that a
 * buffer is refilled only after the DMA that read it has finished. */
static int copy_in(gstate *s, void *dst, const void *src, size_t bytes,
                   unsigned *turn)
{
    size_t off, c;
    ps_rt_err e = RT(Success);
    if (s->pin[0] == NULL) {
        e = RT(MemcpyAsync)(dst, src, bytes, RT(MemcpyHostToDevice), s->stream);
        return e == RT(Success) ? PS_OK : ps_gpu_status(s->host, e, "copy in");
    }
    for (off = 0; off < bytes && e == RT(Success); off += c, (*turn)++) {
        unsigned b = *turn % 2;
        c = bytes - off < STAGE ? bytes - off : STAGE;
        if (*turn >= 2)
            e = RT(EventSynchronize)(s->ev[b]);
        if (e != RT(Success))
            break;
        ps_gpu_copy(s->copier, s->pin[b], (const char *)src + off, c);
        e = RT(MemcpyAsync)((char *)dst + off, s->pin[b], c,
                            RT(MemcpyHostToDevice), s->stream);
        if (e == RT(Success))
            e = RT(EventRecord)(s->ev[b], s->stream);
    }
    return e == RT(Success) ? PS_OK : ps_gpu_status(s->host, e, "copy in");
}

/* The device work is finished when this runs, so only the copies can fail,
 * and those only when the device is lost. */
static int copy_out(gstate *s, void *dst, const void *src, size_t bytes)
{
    size_t off, c, prev_off = 0, prev_c = 0;
    unsigned i;
    ps_rt_err e = RT(Success);
    if (s->pin[0] == NULL) {
        e = RT(MemcpyAsync)(dst, src, bytes, RT(MemcpyDeviceToHost), s->stream);
        if (e == RT(Success))
            e = RT(StreamSynchronize)(s->stream);
        return e == RT(Success) ? PS_OK : ps_gpu_status(s->host, e, "copy out");
    }
    for (off = 0, i = 0; off < bytes; off += c, i++) {
        c = bytes - off < STAGE ? bytes - off : STAGE;
        e = RT(MemcpyAsync)(s->pin[i % 2], (const char *)src + off, c,
                            RT(MemcpyDeviceToHost), s->stream);
        if (e == RT(Success))
            e = RT(EventRecord)(s->ev[i % 2], s->stream);
        /* While chunk i travels, hand chunk i - 1 to the caller. */
        if (e == RT(Success) && i > 0)
            e = RT(EventSynchronize)(s->ev[(i - 1) % 2]);
        if (e != RT(Success))
            return ps_gpu_status(s->host, e, "copy out");
        if (i > 0)
            ps_gpu_copy(s->copier, (char *)dst + prev_off, s->pin[(i - 1) % 2], prev_c);
        prev_off = off;
        prev_c = c;
    }
    e = RT(EventSynchronize)(s->ev[(i - 1) % 2]);
    if (e != RT(Success))
        return ps_gpu_status(s->host, e, "copy out");
    ps_gpu_copy(s->copier, (char *)dst + prev_off, s->pin[(i - 1) % 2], prev_c);
    return PS_OK;
}

/* Device memory for this sort: the cached buffer, grown when too small. */
static int reserve(gstate *s, size_t bytes)
{
    ps_rt_err e;
    int i;
    if (s->pin[0] == NULL) {
        /* Pinning is an optimisation: without it, copies are pageable. */
        for (i = 0; i < 2; i++)
            if (ps_rt_host_alloc(&s->pin[i], STAGE) != RT(Success))
                s->pin[i] = NULL;
        if (s->pin[0] == NULL || s->pin[1] == NULL) {
            if (s->pin[0] != NULL)
                ps_rt_host_free(s->pin[0]);
            if (s->pin[1] != NULL)
                ps_rt_host_free(s->pin[1]);
            s->pin[0] = s->pin[1] = NULL;
            RT(GetLastError)();
        }
    }
    if (s->dbytes >= bytes)
        return PS_OK;
    if (s->dbuf != NULL)
        RT(Free)(s->dbuf);
    s->dbuf = NULL;
    s->dbytes = 0;
    e = RT(Malloc)(&s->dbuf, bytes);
    if (e != RT(Success)) {
        s->dbuf = NULL;
        RT(GetLastError)();
        s->host->fail(PS_GPU_NAME ": cannot allocate %zu bytes of device memory: %s",
                      bytes, RT(GetErrorString)(e));
        return PS_RT_OOM(e) ? PS_ERR_DEVICE_MEMORY : PS_ERR_DEVICE;
    }
    s->dbytes = bytes;
    return PS_OK;
}

/* offsets: NULL for a plain sort, else a segmented one.  The device
 * buffer and the host staging are laid out by the plan (keys, values,
 * offsets, scratch). */
static int sort_host(gstate *s, void *keys, void *vals, unsigned vb, size_t n,
                     ps_type type, unsigned flags, const size_t *offsets,
                     size_t nseg)
{
    unsigned kb = ps_type_bytes(type), turn = 0;
    ps_dev_tune t = ps_gpu_tune(ps_gpu_kernels_for(kb, vb));
    ps_dev_host_plan h;
    const ps_dev_region *r = h.region;
    ps_gpu_job job;
    ps_gpu_segjob seg;
    ps_gpu_saved saved;
    ps_rt_err e;
    int st, entered;

    if (ps_gpu_forked(s->host))
        return PS_ERR_BACKEND_UNAVAILABLE;
    if (ps_gpu_lost(s->host))
        return PS_ERR_DEVICE;
    st = ps_dev_plan_host(&h, &t, n, kb, vb, offsets != NULL, nseg, s->host);
    if (st != PS_OK)
        return st;
    pthread_mutex_lock(&s->lock);
    st = enter(s, &saved);
    entered = st == PS_OK;
    if (st == PS_OK)
        st = ps_dev_stage_reserve(s->host, PS_GPU_NAME, &s->hbuf, &s->hbytes,
                                  h.stage_bytes);
    if (st == PS_OK)
        st = reserve(s, h.bytes);
    if (st == PS_OK) {
        char *dbuf = s->dbuf;
        memset(&job, 0, sizeof job);
        job.keys = dbuf + r[PS_DEV_HOST_KEYS].off;
        job.vals = vb ? dbuf + r[PS_DEV_HOST_VALS].off : NULL;
        job.val_bytes = vb;
        job.n = n;
        job.type = type;
        job.flags = flags;
        job.scratch = dbuf + r[PS_DEV_HOST_SCRATCH].off;
        job.stream = s->stream;
        job.skip_constant = 1;
        st = copy_in(s, job.keys, keys, r[PS_DEV_HOST_KEYS].bytes, &turn);
        if (st == PS_OK && vb)
            st = copy_in(s, job.vals, vals, r[PS_DEV_HOST_VALS].bytes, &turn);
        if (st == PS_OK && offsets != NULL) {
            /* size_t offsets are the kernels' 64-bit words on the 64-bit
             * hosts these runtimes run on. */
            memset(&seg, 0, sizeof seg);
            seg.keys = job.keys;
            seg.vals = job.vals;
            seg.val_bytes = vb;
            seg.n = n;
            seg.offs = dbuf + r[PS_DEV_HOST_OFFS].off;
            seg.nseg = nseg;
            seg.type = type;
            seg.flags = flags;
            seg.scratch = job.scratch;
            seg.stream = s->stream;
            seg.skip_constant = 1;
            st = copy_in(s, dbuf + r[PS_DEV_HOST_OFFS].off, offsets,
                         r[PS_DEV_HOST_OFFS].bytes, &turn);
            if (st == PS_OK)
                st = ps_gpu_seg_enqueue(s->host, &seg);
        } else if (st == PS_OK) {
            st = ps_gpu_enqueue(s->host, &job);
        }
        /* Kernel faults surface here, before the caller's arrays are
         * written. */
        e = RT(StreamSynchronize)(s->stream);
        if (st == PS_OK && e != RT(Success))
            st = ps_gpu_status(s->host, e, "sort");
        /* All or nothing: the caller's arrays change only after both
         * copies have arrived. */
        if (st == PS_OK)
            st = copy_out(s, (char *)s->hbuf + r[PS_DEV_HOST_KEYS].off, job.keys,
                          r[PS_DEV_HOST_KEYS].bytes);
        if (st == PS_OK && vb)
            st = copy_out(s, (char *)s->hbuf + r[PS_DEV_HOST_VALS].off, job.vals,
                          r[PS_DEV_HOST_VALS].bytes);
        if (st == PS_OK) {
            memcpy(keys, (char *)s->hbuf + r[PS_DEV_HOST_KEYS].off,
                   r[PS_DEV_HOST_KEYS].bytes);
            if (vb)
                memcpy(vals, (char *)s->hbuf + r[PS_DEV_HOST_VALS].off,
                       r[PS_DEV_HOST_VALS].bytes);
        }
    }
    if (entered)
        leave(s, &saved);
    pthread_mutex_unlock(&s->lock);
    return st;
}

static int gpu_sort_keys(void *state, void *keys, size_t n, ps_type type,
                         unsigned flags)
{
    return sort_host(state, keys, NULL, 0, n, type, flags, NULL, 0);
}

static int gpu_sort_pairs(void *state, void *keys, void *values,
                          size_t value_size, size_t n, ps_type type,
                          unsigned flags)
{
    return sort_host(state, keys, values, (unsigned)value_size, n, type, flags,
                     NULL, 0);
}

_Static_assert(sizeof(size_t) == 8, "offsets go to the device as 64-bit words");

static int gpu_sort_segments(void *state, void *keys, void *values,
                             size_t value_size, size_t n, const size_t *offsets,
                             size_t num_segments, ps_type type, unsigned flags)
{
    return sort_host(state, keys, values, values ? (unsigned)value_size : 0, n,
                     type, flags, offsets, num_segments);
}

static void gpu_trim(void *state)
{
    gstate *s = state;
    ps_gpu_saved saved;
    pthread_mutex_lock(&s->lock);
    if (enter(s, &saved) == PS_OK) {
        free_cache(s);
        leave(s, &saved);
    }
    pthread_mutex_unlock(&s->lock);
}

__attribute__((visibility("default")))
const ps_backend_ops PS_BACKEND_ENTRY = {
    PS_BACKEND_HEAD,
    .name = PS_GPU_NAME,
    .priority = PS_GPU_PRIORITY,
    .device = 1,
    .value_sizes = PS_VALUE_SIZE_BIT(4) | PS_VALUE_SIZE_BIT(8),
    .probe = gpu_probe,
    .init = gpu_init,
    .sort_keys = gpu_sort_keys,
    .sort_pairs = gpu_sort_pairs,
    .release = gpu_release,
    .trim = gpu_trim,
    .device_api = &ps_gpu_device_api,
    .sort_segments = gpu_sort_segments,
    .check_env = gpu_check_env,
};
