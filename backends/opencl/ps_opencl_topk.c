/*
 * ps_opencl_topk.c - the device top-k on a command queue (ps_opencl_topk
 * and ps_opencl_topk_segments of <portsort_opencl.h>): the keys copied
 * into the scratch and numbered (ps_topk_iota), sorted as pairs with their
 * 64-bit indices by the plain or segmented sort (ps_cl_sort,
 * ps_cl_sort_segments: stable, so equal keys stay in index order), then
 * ps_topk_gather writes the first min(k, len) of each segment to the
 * caller's outputs, the only step that touches them.  The scratch layout
 * and the launch sizes come from the device plan (ps_dev_plan_topk), which
 * the CUDA and HIP host code shares; the kernels are
 * backends/kernels/ps_kernel_topk.cl, in the program of the key width with
 * 8-byte values, the one the sort of the pairs uses.
 */
#include <config.h>

#include <string.h>

#include "ps_opencl_internal.h"

/* The copy of the keys, then ps_topk_iota, under the program's lock. */
static int copy_and_number(const ps_host *host, const ps_cl_topkjob *job,
                           ps_cl_prog *p, int ooo, cl_mem scratch,
                           const ps_dev_topk_plan *pl)
{
    cl_ulong ioff = pl->region[PS_DEV_TOPK_IDX].off / 8, n = job->n;
    cl_int err = clEnqueueCopyBuffer(job->q, job->keys, scratch,
                                     job->koff * pl->key_bytes,
                                     pl->region[PS_DEV_TOPK_KEYS].off,
                                     job->n * pl->key_bytes, 0, NULL, NULL);
    ps_cl_karg a[] = { PS_CL_KA(scratch), PS_CL_KA(ioff), PS_CL_KA(n) };
    int st;
    if (err == CL_SUCCESS && ooo)
        err = clEnqueueBarrierWithWaitList(job->q, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return ps_cl_status(host, err, "topk: clEnqueueCopyBuffer (keys)");
    pthread_mutex_lock(&p->lock);
    st = ps_cl_run(host, job->q, ooo, p->topk_iota, a, 3, pl->iota_groups, p->tune.wg,
                   "ps_topk_iota");
    pthread_mutex_unlock(&p->lock);
    return st;
}

/* The pairs (keys, indices) in the scratch sorted, by segment when there
 * are offsets; the sort's own scratch is the plan's first region. */
static int sort_pairs(const ps_host *host, const ps_cl_topkjob *job,
                      cl_mem scratch, const ps_dev_topk_plan *pl)
{
    size_t koff = pl->region[PS_DEV_TOPK_KEYS].off / pl->key_bytes;
    size_t ioff = pl->region[PS_DEV_TOPK_IDX].off / 8;
    size_t sbytes = pl->region[PS_DEV_TOPK_SORT].bytes;
    if (job->n < 2)
        return PS_OK;
    if (job->offs != NULL) {
        ps_cl_segjob s = { .q = job->q, .keys = scratch, .vals = scratch,
                           .koff = koff, .voff = ioff, .offs = job->offs,
                           .n = job->n, .nseg = job->nseg, .type = job->type,
                           .flags = job->flags, .val_bytes = 8, .scratch = scratch,
                           .scratch_bytes = sbytes };
        return ps_cl_sort_segments(host, &s);
    } else {
        ps_cl_job s = { .q = job->q, .keys = scratch, .koff = koff, .vals = scratch,
                        .voff = ioff, .n = job->n, .type = job->type,
                        .flags = job->flags, .val_bytes = 8, .scratch = scratch,
                        .scratch_bytes = sbytes };
        return ps_cl_sort(host, &s);
    }
}

/* ps_topk_gather into the caller's outputs, under the program's lock.  An
 * absent array is passed as the scratch, which the kernel then does not
 * touch (vwords 0, want_idx 0). */
static int gather(const ps_host *host, const ps_cl_topkjob *job, ps_cl_prog *p,
                  int ooo, cl_mem scratch, const ps_dev_topk_plan *pl)
{
    cl_ulong skoff = pl->region[PS_DEV_TOPK_KEYS].off / pl->key_bytes;
    cl_ulong sioff = pl->region[PS_DEV_TOPK_IDX].off / 8, ooff = 0;
    cl_ulong m = pl->gather, k = job->k, okoff = job->okoff, oioff = job->oioff;
    cl_uint nseg = job->offs != NULL ? (cl_uint)job->nseg : 0;
    cl_uint vwords = job->vals != NULL ? job->val_bytes / 4 : 0;
    cl_uint want_idx = job->oidx != NULL;
    cl_ulong voff = (cl_ulong)job->voff * vwords, ovoff = (cl_ulong)job->ovoff * vwords;
    cl_mem offs = job->offs != NULL ? job->offs : scratch;
    cl_mem vals = vwords ? job->vals : scratch, ovals = vwords ? job->ovals : scratch;
    cl_mem oidx = want_idx ? job->oidx : scratch;
    ps_cl_karg a[] = {
        PS_CL_KA(scratch), PS_CL_KA(skoff), PS_CL_KA(scratch), PS_CL_KA(sioff),
        PS_CL_KA(offs), PS_CL_KA(ooff), PS_CL_KA(nseg), PS_CL_KA(m), PS_CL_KA(k),
        PS_CL_KA(vals), PS_CL_KA(voff), PS_CL_KA(vwords),
        PS_CL_KA(job->okeys), PS_CL_KA(okoff), PS_CL_KA(ovals), PS_CL_KA(ovoff),
        PS_CL_KA(oidx), PS_CL_KA(oioff), PS_CL_KA(want_idx),
    };
    int st;
    pthread_mutex_lock(&p->lock);
    st = ps_cl_run(host, job->q, ooo, p->topk_gather, a, sizeof a / sizeof *a,
                   pl->gather_groups, p->tune.wg, "ps_topk_gather");
    pthread_mutex_unlock(&p->lock);
    return st;
}

int ps_cl_topk(const ps_host *host, const ps_cl_topkjob *job)
{
    unsigned kb = ps_type_bytes(job->type);
    cl_context ctx = NULL;
    cl_device_id dev = NULL;
    cl_mem scratch = job->scratch;
    ps_dev_topk_plan pl;
    ps_dev_tune t;
    ps_cl_prog *p;
    cl_int err = CL_SUCCESS;
    int st, ooo;

    st = ps_cl_queue_info(host, job->q, &ctx, &dev, &ooo);
    if (st != PS_OK)
        return st;
    p = ps_cl_program_get(host, ctx, dev, 8 * kb, 8, &st);
    if (p == NULL)
        return st;
    t = ps_cl_dev_tune(&p->tune);
    st = ps_dev_plan_topk(&pl, &t, job->n, job->k, kb, job->offs != NULL, job->nseg,
                          host);
    if (st != PS_OK || pl.bytes == 0)
        return st;
    if (scratch != NULL && job->scratch_bytes < pl.bytes) {
        host->fail("opencl: topk: scratch of %zu bytes is smaller than the %zu "
                   "needed", job->scratch_bytes, pl.bytes);
        return PS_ERR_INVALID_ARG;
    }
    if (scratch == NULL) {
        scratch = ps_cl_create_buffer(ctx, pl.bytes, &err);
        if (scratch == NULL || err != CL_SUCCESS)
            return ps_cl_status(host, err, "clCreateBuffer (topk scratch)");
    } else {
        clRetainMemObject(scratch);
    }
    st = copy_and_number(host, job, p, ooo, scratch, &pl);
    if (st == PS_OK)
        st = sort_pairs(host, job, scratch, &pl);
    if (st == PS_OK)
        st = gather(host, job, p, ooo, scratch, &pl);
    /* Released now, freed by the runtime once the queued kernels finish. */
    clReleaseMemObject(scratch);
    if (st == PS_OK)
        clFlush(job->q);
    return st;
}
