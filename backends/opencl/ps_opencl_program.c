/*
 * ps_opencl_program.c - kernel programs: run-time builds of the embedded
 * source with -D parameters (the tuning of ps_opencl_tune.c), through the
 * on-disk cache of ps_opencl_cache.c, kept in a table per module for the
 * (context, device, widths, tuning) they were built for.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_opencl_internal.h"
#include "ps_opencl_source.h"   /* generated: ps_opencl_source[] */

static ps_cl_prog *progs;
static pthread_mutex_t progs_lock = PTHREAD_MUTEX_INITIALIZER;

static void log_build(const ps_host *host, cl_program prog, cl_device_id dev)
{
    size_t len = 0;
    char *log;
    if (!host->verbose)
        return;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len)
        != CL_SUCCESS || len == 0)
        return;
    log = malloc(len + 1);
    if (log == NULL)
        return;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL)
        == CL_SUCCESS) {
        log[len] = '\0';
        host->log("opencl: build log:\n%s", log);
    }
    free(log);
}

/* A built program: from the cache when possible, else from source (and
 * then cached).  Returns NULL with *status set on failure. */
static cl_program build(const ps_host *host, cl_context ctx, cl_device_id dev,
                        const char *options, int *status)
{
    ps_cl_cache *cache = ps_cl_cache_open(host, dev, ps_opencl_source,
                                          sizeof ps_opencl_source, options);
    const char *src = ps_opencl_source;
    unsigned char *bin = NULL;
    size_t len = 0;
    cl_program prog;
    cl_int err, binst;

    if (cache != NULL)
        bin = ps_cl_cache_read(cache, &len);
    if (bin != NULL) {
        const unsigned char *b = bin;
        prog = clCreateProgramWithBinary(ctx, 1, &dev, &len, &b, &binst, &err);
        if (prog != NULL && err == CL_SUCCESS && binst == CL_SUCCESS
            && clBuildProgram(prog, 1, &dev, options, NULL, NULL) == CL_SUCCESS) {
            free(bin);
            host->log("opencl: program from cache %s", ps_cl_cache_file(cache));
            ps_cl_cache_close(cache);
            return prog;
        }
        host->log("opencl: cached binary %s rejected by the driver (%s); rebuilding",
                  ps_cl_cache_file(cache), ps_cl_errname(err != CL_SUCCESS ? err : binst));
        if (prog != NULL)
            clReleaseProgram(prog);
        free(bin);
    }
    prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (prog == NULL || err != CL_SUCCESS) {
        ps_cl_cache_close(cache);
        *status = ps_cl_status(host, err, "clCreateProgramWithSource");
        return NULL;
    }
    host->log("opencl: building kernels with %s", options);
    err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        ps_cl_cache_close(cache);
        log_build(host, prog, dev);
        clReleaseProgram(prog);
        if (err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY)
            *status = ps_cl_status(host, err, "clBuildProgram");
        else {
            host->fail("opencl: kernel build failed (%s); PORTSORT_VERBOSE=1 "
                       "prints the build log", ps_cl_errname(err));
            *status = PS_ERR_DEVICE;
        }
        return NULL;
    }
    if (cache != NULL) {
        size_t blen = 0;
        if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof blen, &blen, NULL)
                == CL_SUCCESS && blen > 0 && (bin = malloc(blen)) != NULL) {
            unsigned char *bp = bin;
            if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bp, &bp, NULL)
                    == CL_SUCCESS)
                ps_cl_cache_write(cache, bin, blen);
            free(bin);
        }
        ps_cl_cache_close(cache);
    }
    return prog;
}

static void prog_free(ps_cl_prog *p)
{
    cl_kernel *ks[] = { &p->hist, &p->upsweep, &p->scan, &p->downsweep, &p->local,
                        &p->os_hist, &p->os_scan, &p->onesweep, &p->seg_classify,
                        &p->seg_small, &p->seg_medium, &p->seg_up, &p->seg_down,
                        &p->topk_iota, &p->topk_gather, &p->rec_key,
                        &p->rec_gather };
    size_t i;
    for (i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (*ks[i] != NULL)
            clReleaseKernel(*ks[i]);
    if (p->program != NULL)
        clReleaseProgram(p->program);
    if (p->ctx != NULL)
        clReleaseContext(p->ctx);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

ps_cl_prog *ps_cl_program_get(const ps_host *host, cl_context ctx,
                              cl_device_id dev, unsigned key_bits,
                              unsigned val_bytes, int *status)
{
    ps_cl_tune tune = ps_cl_tune_for(dev, key_bits, val_bytes);
    ps_cl_prog *p;
    char options[512];
    const char *extra;
    cl_int err = CL_SUCCESS;

    /* The table lock is held across a build: two threads asking for the
     * same program must not build it twice, and builds are rare. */
    pthread_mutex_lock(&progs_lock);
    for (p = progs; p != NULL; p = p->next)
        if (p->ctx == ctx && p->dev == dev && p->key_bits == key_bits
            && p->val_bytes == val_bytes && p->tune.wg == tune.wg
            && p->tune.items == tune.items && p->tune.bits == tune.bits
            && p->tune.onesweep == tune.onesweep
            && p->tune.seg_small == tune.seg_small) {
            pthread_mutex_unlock(&progs_lock);
            return p;
        }
    p = calloc(1, sizeof *p);
    if (p == NULL) {
        pthread_mutex_unlock(&progs_lock);
        host->fail("opencl: out of host memory");
        *status = PS_ERR_NO_MEMORY;
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    p->ctx = ctx;
    clRetainContext(ctx);
    p->dev = dev;
    p->key_bits = key_bits;
    p->val_bytes = val_bytes;
    p->tune = tune;
    /* PORTSORT_OPENCL_OPTIONS appends build options (experiments, and the
     * test of a failing build); it is part of the cache key like the rest. */
    extra = ps_getenv("PORTSORT_OPENCL_OPTIONS");
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -DPS_KEY_BITS=%u -DPS_VAL_BYTES=%u -DPS_DIGIT_BITS=%u "
             "-DPS_WG=%u -DPS_ITEMS=%u -DPS_SEG_SMALL=%u %s%s", key_bits, val_bytes,
             tune.bits, tune.wg, tune.items, tune.seg_small,
             tune.onesweep ? "-DPS_WITH_ONESWEEP=1 " : "",
             extra != NULL ? extra : "");
    p->program = build(host, ctx, dev, options, status);
    if (p->program == NULL) {
        pthread_mutex_unlock(&progs_lock);
        prog_free(p);
        return NULL;
    }
#define KERNEL(field, name)                                         \
    if (err == CL_SUCCESS)                                          \
        p->field = clCreateKernel(p->program, name, &err);
    KERNEL(hist, "ps_hist")
    KERNEL(upsweep, "ps_upsweep")
    KERNEL(scan, "ps_scan")
    KERNEL(downsweep, "ps_downsweep")
    KERNEL(local, "ps_sort_local")
    KERNEL(seg_classify, "ps_seg_classify")
    KERNEL(seg_small, "ps_seg_small")
    KERNEL(seg_medium, "ps_seg_medium")
    KERNEL(seg_up, "ps_seg_up")
    KERNEL(seg_down, "ps_seg_down")
    KERNEL(topk_iota, "ps_topk_iota")
    KERNEL(topk_gather, "ps_topk_gather")
    KERNEL(rec_key, "ps_rec_key")
    KERNEL(rec_gather, "ps_rec_gather")
    if (tune.onesweep) {
        KERNEL(os_hist, "ps_os_hist")
        KERNEL(os_scan, "ps_os_scan")
        KERNEL(onesweep, "ps_onesweep")
    }
#undef KERNEL
    if (err != CL_SUCCESS) {
        pthread_mutex_unlock(&progs_lock);
        *status = ps_cl_status(host, err, "clCreateKernel");
        prog_free(p);
        return NULL;
    }
    p->next = progs;
    progs = p;
    pthread_mutex_unlock(&progs_lock);
    return p;
}

void ps_cl_program_release_all(void)
{
    ps_cl_prog *p, *next;
    pthread_mutex_lock(&progs_lock);
    for (p = progs; p != NULL; p = next) {
        next = p->next;
        prog_free(p);
    }
    progs = NULL;
    pthread_mutex_unlock(&progs_lock);
}
