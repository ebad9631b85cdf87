/*
 * ps_opencl.c - the OpenCL backend module: probe, init, and the host-array
 * API (copy in, sort on the device, copy out).
 *
 * Host-array sorts use one context and one in-order queue on the chosen
 * device, and device buffers cached between calls (given back by trim).
 * Sorts from several host threads are serialised by `lock`: they would
 * share the one device anyway, and the cached buffers and the kernels'
 * arguments must not be shared mid-sort.
 *
 * The results come back into a host staging buffer (also cached) and
 * reach the caller's arrays only once every read has succeeded, as in
 * the CUDA and HIP backends: a read that fails (a device lost mid-copy)
 * must leave keys and values as they were, and the unsorted data exists
 * nowhere else by then.  The price is one more memcpy of the output,
 * n * (key + value) bytes, and as much host memory, kept until
 * ps_release_cache().  Measured on pocl (AMD EPYC, two cores): 0.5 ms for
 * 2^20 u32 keys, 1.5 ms for 2^20 u32 pairs, 26 ms for 2^24 keys, 50-60 ms
 * for 2^24 pairs (128 MiB): 0.4-2% of those sorts (90 ms to 3.6 s), and
 * below their run-to-run noise.  The CUDA and HIP backends pay the same.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ps_opencl_internal.h"

typedef struct cl_state {
    const ps_host *host;
    cl_platform_id plat;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cl_ulong max_alloc;
    pthread_mutex_t lock;
    /* Buffers kept between calls, grown on demand. */
    cl_mem kbuf, vbuf, obuf, sbuf;
    size_t kcap, vcap, ocap, scap;
    void *hbuf;           /* host staging for the results (host->alloc) */
    size_t hcap;
} cl_state;

static void cl_probe(ps_probe *out)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_device_type type = 0;
    char name[200];

    out->usable = 0;
    out->gpu = 0;
    if (ps_cl_pick_device(&plat, &dev, out->detail, sizeof out->detail) != 0)
        return;
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    ps_cl_device_name(dev, name, sizeof name);
    out->usable = 1;
    out->gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    snprintf(out->detail, sizeof out->detail, "%s (%s)", name,
             out->gpu ? "GPU" : (type & CL_DEVICE_TYPE_CPU) ? "CPU" : "accelerator");
}

static void drop_buffers(cl_state *s)
{
    if (s->kbuf) clReleaseMemObject(s->kbuf);
    if (s->vbuf) clReleaseMemObject(s->vbuf);
    if (s->obuf) clReleaseMemObject(s->obuf);
    if (s->sbuf) clReleaseMemObject(s->sbuf);
    s->kbuf = s->vbuf = s->obuf = s->sbuf = NULL;
    s->kcap = s->vcap = s->ocap = s->scap = 0;
    s->host->release(s->hbuf);
    s->hbuf = NULL;
    s->hcap = 0;
}

static void cl_release(void *state)
{
    cl_state *s = state;
    if (s == NULL)
        return;
    drop_buffers(s);
    ps_cl_program_release_all();
    if (s->q) clReleaseCommandQueue(s->q);
    if (s->ctx) clReleaseContext(s->ctx);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static int cl_init(const ps_host *host, void **state)
{
    cl_state *s = calloc(1, sizeof *s);
    char why[256];
    cl_int err;

    if (s == NULL) {
        host->fail("opencl: out of host memory");
        return PS_ERR_NO_MEMORY;
    }
    s->host = host;
    ps_cl_api_set_host(host);
    pthread_mutex_init(&s->lock, NULL);
    if (ps_cl_pick_device(&s->plat, &s->dev, why, sizeof why) != 0) {
        host->fail("opencl: %s", why);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return PS_ERR_BACKEND_UNAVAILABLE;
    }
    {
        cl_context_properties props[] = { CL_CONTEXT_PLATFORM,
                                          (cl_context_properties)s->plat, 0 };
        s->ctx = clCreateContext(props, 1, &s->dev, NULL, NULL, &err);
    }
    if (s->ctx != NULL && err == CL_SUCCESS)
        s->q = clCreateCommandQueue(s->ctx, s->dev, 0, &err);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(s->dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                              sizeof s->max_alloc, &s->max_alloc, NULL);
    if (err != CL_SUCCESS) {
        int st = ps_cl_status(host, err, "context setup");
        cl_release(s);
        return st;
    }
    *state = s;
    return PS_OK;
}

/* Make *buf at least `need` bytes (contents not kept). */
static cl_int ensure(cl_state *s, cl_mem *buf, size_t *cap, size_t need)
{
    cl_int err = CL_SUCCESS;
    if (need == 0 || *cap >= need)
        return CL_SUCCESS;
    if (*buf != NULL)
        clReleaseMemObject(*buf);
    *cap = 0;
    *buf = ps_cl_create_buffer(s->ctx, need, &err);
    if (*buf == NULL || err != CL_SUCCESS) {
        *buf = NULL;
        return err != CL_SUCCESS ? err : CL_MEM_OBJECT_ALLOCATION_FAILURE;
    }
    *cap = need;
    return CL_SUCCESS;
}

/* Refuse sizes the device cannot hold in one buffer each (the plan has
 * refused those the kernels cannot count). */
static int check_sizes(cl_state *s, size_t n, const ps_dev_host_plan *h)
{
    const ps_host *host = s->host;
    const ps_dev_region *r = h->region;
    if (r[PS_DEV_HOST_KEYS].bytes > s->max_alloc || r[PS_DEV_HOST_VALS].bytes > s->max_alloc
        || r[PS_DEV_HOST_OFFS].bytes > s->max_alloc) {
        host->fail("opencl: %zu keys (or their segments' offsets) are beyond "
                   "what the device can hold in one buffer (%llu bytes)", n,
                   (unsigned long long)s->max_alloc);
        return PS_ERR_TOO_LARGE;
    }
    /* The scratch (a copy of the keys plus the counts) is one buffer too:
     * larger than the keys, it may pass the limit when they do not (2^32 - 1
     * u8 keys on pocl), and clCreateBuffer would refuse it as a device
     * error. */
    if (r[PS_DEV_HOST_SCRATCH].bytes > s->max_alloc) {
        host->fail("opencl: %zu keys need %zu bytes of scratch in one buffer, "
                   "beyond the device's largest (%llu bytes)", n,
                   r[PS_DEV_HOST_SCRATCH].bytes, (unsigned long long)s->max_alloc);
        return PS_ERR_TOO_LARGE;
    }
    return PS_OK;
}

/* The cached buffers grown to fit h (one per region of the plan), and the
 * inputs written to them (the offsets too for a segmented sort).  Under
 * s->lock; on error the queue is drained.  The host staging for the
 * results is reserved first, so that its failure comes before any device
 * work. */
static int stage_in(cl_state *s, const ps_dev_host_plan *h, const void *keys,
                    const void *values, const void *offsets)
{
    const ps_dev_region *r = h->region;
    size_t kbytes = r[PS_DEV_HOST_KEYS].bytes, vbytes = r[PS_DEV_HOST_VALS].bytes;
    size_t obytes = r[PS_DEV_HOST_OFFS].bytes;
    cl_int err;
    int st = ps_dev_stage_reserve(s->host, "opencl", &s->hbuf, &s->hcap, h->stage_bytes);
    if (st != PS_OK)
        return st;
    err = ensure(s, &s->kbuf, &s->kcap, kbytes);
    if (err == CL_SUCCESS)
        err = ensure(s, &s->vbuf, &s->vcap, vbytes);
    if (err == CL_SUCCESS)
        err = ensure(s, &s->obuf, &s->ocap, obytes);
    if (err == CL_SUCCESS)
        err = ensure(s, &s->sbuf, &s->scap, r[PS_DEV_HOST_SCRATCH].bytes);
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(s->q, s->kbuf, CL_FALSE, 0, kbytes, keys, 0,
                                   NULL, NULL);
    if (err == CL_SUCCESS && vbytes)
        err = clEnqueueWriteBuffer(s->q, s->vbuf, CL_FALSE, 0, vbytes, values, 0,
                                   NULL, NULL);
    if (err == CL_SUCCESS && obytes)
        err = clEnqueueWriteBuffer(s->q, s->obuf, CL_FALSE, 0, obytes, offsets, 0,
                                   NULL, NULL);
    if (err == CL_SUCCESS)
        return PS_OK;
    clFinish(s->q);
    return ps_cl_status(s->host, err, "device buffers");
}

/* After the sort (status st): the results back into the caller's arrays,
 * all or nothing.  They are read only after every kernel was enqueued
 * without error, and into the staging buffer (at the plan's offsets),
 * copied to the caller's arrays only when both reads have landed (the
 * cost of that copy is in the comment at the top). */
static int stage_out(cl_state *s, const ps_dev_host_plan *h, int st, void *keys,
                     void *values)
{
    const ps_dev_region *k = &h->region[PS_DEV_HOST_KEYS], *v = &h->region[PS_DEV_HOST_VALS];
    unsigned char *staged = s->hbuf;
    cl_int err;
    if (st != PS_OK) {
        clFinish(s->q);
        return st;
    }
    err = clFinish(s->q);
    if (err == CL_SUCCESS)
        err = ps_cl_read_result(s->q, s->kbuf, k->bytes, staged + k->off);
    if (err == CL_SUCCESS && v->bytes)
        err = ps_cl_read_result(s->q, s->vbuf, v->bytes, staged + v->off);
    if (err == CL_SUCCESS)
        err = clFinish(s->q);
    else
        clFinish(s->q);   /* the keys' read may be in flight: let it land
                             in the staging buffer before it is reused */
    if (err != CL_SUCCESS)
        return ps_cl_status(s->host, err, "reading the result");
    memcpy(keys, staged + k->off, k->bytes);
    if (v->bytes)
        memcpy(values, staged + v->off, v->bytes);
    return PS_OK;
}

/* The plan of a host-array sort on this device (segments: a segmented
 * one of nseg segments), and its buffers checked against the device's
 * largest. */
static int plan_host(cl_state *s, size_t n, unsigned kb, unsigned vb, int segments,
                     size_t nseg, ps_dev_host_plan *h)
{
    ps_cl_tune tune = ps_cl_tune_for(s->dev, 8 * kb, vb);
    ps_dev_tune dt = ps_cl_dev_tune(&tune);
    int st = ps_dev_plan_host(h, &dt, n, kb, vb, segments, nseg, s->host);
    return st == PS_OK ? check_sizes(s, n, h) : st;
}

static int cl_sort_pairs(void *state, void *keys, void *values,
                         size_t value_size, size_t n, ps_type type,
                         unsigned flags)
{
    cl_state *s = state;
    unsigned kb = ps_type_bytes(type), vb = values ? (unsigned)value_size : 0;
    ps_dev_host_plan h;
    ps_cl_job job;
    int st = plan_host(s, n, kb, vb, 0, 0, &h);

    if (st != PS_OK)
        return st;
    pthread_mutex_lock(&s->lock);
    st = stage_in(s, &h, keys, values, NULL);
    if (st == PS_OK) {
        memset(&job, 0, sizeof job);
        job.q = s->q;
        job.keys = s->kbuf;
        job.vals = vb ? s->vbuf : NULL;
        job.n = n;
        job.type = type;
        job.flags = flags;
        job.val_bytes = vb;
        job.scratch = s->sbuf;
        job.scratch_bytes = s->scap;
        st = stage_out(s, &h, ps_cl_sort(s->host, &job), keys, values);
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}

/* The offsets go to the device as they are: 64-bit words, which is what
 * size_t is wherever this module builds (checked below). */
_Static_assert(sizeof(size_t) == sizeof(cl_ulong),
               "ps_sort_segments' offsets are copied to the device as cl_ulong");

static int cl_sort_segments(void *state, void *keys, void *values,
                            size_t value_size, size_t n, const size_t *offsets,
                            size_t num_segments, ps_type type, unsigned flags)
{
    cl_state *s = state;
    unsigned kb = ps_type_bytes(type), vb = values ? (unsigned)value_size : 0;
    ps_dev_host_plan h;
    ps_cl_segjob job;
    int st = plan_host(s, n, kb, vb, 1, num_segments, &h);

    if (st != PS_OK)
        return st;
    pthread_mutex_lock(&s->lock);
    st = stage_in(s, &h, keys, values, offsets);
    if (st == PS_OK) {
        memset(&job, 0, sizeof job);
        job.q = s->q;
        job.keys = s->kbuf;
        job.vals = vb ? s->vbuf : NULL;
        job.offs = s->obuf;
        job.n = n;
        job.nseg = num_segments;
        job.type = type;
        job.flags = flags;
        job.val_bytes = vb;
        job.scratch = s->sbuf;
        job.scratch_bytes = s->scap;
        st = stage_out(s, &h, ps_cl_sort_segments(s->host, &job), keys, values);
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}

static int cl_sort_keys(void *state, void *keys, size_t n, ps_type type,
                        unsigned flags)
{
    return cl_sort_pairs(state, keys, NULL, 0, n, type, flags);
}

static void cl_trim(void *state)
{
    cl_state *s = state;
    pthread_mutex_lock(&s->lock);
    drop_buffers(s);
    pthread_mutex_unlock(&s->lock);
}


/* ---- the environment ---- */

/* ---- fork() ---- */

/* A forked child has a copy of the runtime's state without its threads:
 * the core never sorts on this module there, and at the child's exit the
 * programs below must not be released into that copy (it hangs).  The
 * process id tells, with no fork handler to register while the core may
 * be loading us (see ps_dispatch.c, fork()). */
static pid_t loaded_by;

__attribute__((constructor)) static void cl_loaded(void)
{
    loaded_by = getpid();
}

/* ---- the cl_mem API, reached through the core's wrappers ---- */

__attribute__((visibility("default")))
const ps_backend_ops PS_BACKEND_ENTRY = {
    PS_BACKEND_HEAD,
    .name = "opencl",
    .priority = 100,
    .device = 1,
    .value_sizes = PS_VALUE_SIZE_BIT(4) | PS_VALUE_SIZE_BIT(8),
    .probe = cl_probe,
    .init = cl_init,
    .sort_keys = cl_sort_keys,
    .sort_pairs = cl_sort_pairs,
    .release = cl_release,
    .trim = cl_trim,
    .device_api = &ps_cl_device_api,
    .sort_segments = cl_sort_segments,
    .check_env = ps_cl_check_env,
};

/* Programs built for the cl_mem API belong to the callers' contexts, not
 * to the backend state: free them when the module goes away. */
__attribute__((destructor)) static void cl_unload(void)
{
    if (getpid() == loaded_by)
        ps_cl_program_release_all();
}
