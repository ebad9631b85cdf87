/*
 * ps_opencl_segments.c - the segmented sort's sequence of kernels on a
 * command queue (backends/kernels/ps_kernel_segments.cl), shared by the
 * host-array sort_segments op and the cl_mem API.
 *
 *  1. ps_seg_classify over the offsets, then one blocking read of its
 *     counts and of the large segments' list: the host learns how many
 *     work-groups each later kernel needs, and refuses invalid offsets
 *     before any key has moved.
 *  2. ps_seg_small, one work-group per window of a tile of keys, for the
 *     segments of 2 .. tune.seg_small keys.
 *  3. ps_seg_medium, one work-group per segment of up to a tile.
 *  4. The large segments: those under tune.seg_huge keys all at once, in
 *     tiles (ps_seg_up, ps_scan, ps_seg_down per pass); the huge ones
 *     through the plain device sort (ps_cl_sort) each, on the same
 *     scratch, where a whole device works on one segment.
 * The segments of each class are disjoint from the others', so the steps
 * only need to follow each other in the queue.  The scratch's layout, the
 * words' places and the large tiles' descriptors come from the device plan
 * (backends/device/ps_device_plan.h), shared with the CUDA and HIP host.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_opencl_internal.h"

/* Set a kernel's arguments and enqueue it on `groups` work-groups; on an
 * out-of-order queue, a barrier after it. */
int ps_cl_run(const ps_host *host, cl_command_queue q, int ooo, cl_kernel k,
              const ps_cl_karg *a, cl_uint na, size_t groups, size_t wg,
              const char *what)
{
    size_t global = groups * wg;
    cl_uint i;
    cl_int err = CL_SUCCESS;
    for (i = 0; i < na && err == CL_SUCCESS; i++)
        err = clSetKernelArg(k, i, a[i].size, a[i].v);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &wg, 0, NULL, NULL);
    if (err == CL_SUCCESS && ooo)
        err = clEnqueueBarrierWithWaitList(q, 0, NULL, NULL);
    return err == CL_SUCCESS ? PS_OK : ps_cl_status(host, err, what);
}

typedef ps_cl_karg karg;
#define KA(v) PS_CL_KA(v)
#define PUSH(x) (a[na].size = sizeof(x), a[na].v = &(x), na++)

/* Steps 1 to 3 under the program's lock (the kernels hold their
 * arguments); the large list comes back in info[4 ..]. */
static int classify_and_sort_short(const ps_host *host, const ps_cl_segjob *job,
                                   ps_cl_prog *p, int ooo, cl_mem scratch,
                                   const ps_dev_seg_plan *l, cl_uint *info)
{
    const ps_cl_tune *t = &p->tune;
    size_t tile = l->tile;
    ps_xf xf = ps_xf_make(job->type, job->flags);
    cl_ulong flip = xf.flip, fneg = xf.fneg, koff = job->koff, voff = job->voff;
    size_t info_off = l->region[PS_DEV_SEG_WORDS].off;
    cl_ulong ooff = 0, ioff = info_off / 4;
    cl_ulong woff = ioff + l->wbase, moff = ioff + l->mbase;
    cl_uint n = (cl_uint)job->n, nseg = (cl_uint)job->nseg, zero = 0;
    int vb = job->val_bytes != 0, st;
    cl_int err;

    err = clEnqueueFillBuffer(job->q, scratch, &zero, sizeof zero, info_off, 16, 0,
                              NULL, NULL);
    if (err == CL_SUCCESS && ooo)
        err = clEnqueueBarrierWithWaitList(job->q, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return ps_cl_status(host, err, "clEnqueueFillBuffer");
    {
        karg a[] = { KA(job->offs), KA(ooff), KA(nseg), KA(n), KA(scratch), KA(ioff),
                     KA(l->lbase), KA(l->lcap), KA(l->mbase), KA(l->mcap),
                     KA(l->wbase), KA(l->nwin) };
        st = ps_cl_run(host, job->q, ooo, p->seg_classify, a, 12,
                 ((size_t)nseg + tile - 1) / tile, t->wg, "ps_seg_classify");
    }
    if (st != PS_OK)
        return st;
    err = clEnqueueReadBuffer(job->q, scratch, CL_TRUE, info_off, l->info_words * 4,
                              info, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return ps_cl_status(host, err, "reading the segment classes");
    if (info[0] != 0) {
        host->fail("opencl: sort_segments: the offsets are invalid (%u of %u "
                   "segments: decreasing, past n = %u, or not from 0 to n)",
                   info[0], nseg, n);
        return PS_ERR_INVALID_ARG;
    }
    host->log("opencl: segments, n=%u, %u segments: %u small (up to %u keys), "
              "%u medium (up to %zu), %u large", n, nseg, info[1], t->seg_small,
              info[2], tile, info[3]);
    /* Keys, then values when there are any, then the kernel's own. */
    if (info[1] != 0) {
        karg a[10];
        cl_uint na = 0;
        PUSH(job->keys); PUSH(koff);
        if (vb) { PUSH(job->vals); PUSH(voff); }
        PUSH(job->offs); PUSH(ooff); PUSH(scratch); PUSH(woff); PUSH(flip); PUSH(fneg);
        st = ps_cl_run(host, job->q, ooo, p->seg_small, a, na, l->nwin, t->wg,
                 "ps_seg_small");
        if (st != PS_OK)
            return st;
    }
    if (info[2] != 0) {
        karg a[8];
        cl_uint na = 0;
        PUSH(job->keys); PUSH(koff);
        if (vb) { PUSH(job->vals); PUSH(voff); }
        PUSH(scratch); PUSH(moff); PUSH(flip); PUSH(fneg);
        st = ps_cl_run(host, job->q, ooo, p->seg_medium, a, na, info[2], t->wg,
                 "ps_seg_medium");
    }
    return st;
}

/* The large segments shorter than tune.seg_huge, all at once (see
 * ps_seg_up in the kernels): their tiles' descriptors written from the
 * host, then per pass ps_seg_up, ps_scan and ps_seg_down between the
 * caller's buffers and the scratch copy; after an odd number of passes,
 * the segments copied home.  list holds (start, length) pairs. */
static int sort_large_batched(const ps_host *host, const ps_cl_segjob *job,
                              ps_cl_prog *p, int ooo, cl_mem scratch,
                              const ps_dev_seg_plan *l, const cl_uint *list, size_t nl)
{
    unsigned kb = l->key_bytes, vb = l->val_bytes, wg = p->tune.wg;
    cl_uint passes = l->passes, q;
    ps_xf xf = ps_xf_make(job->type, job->flags);
    cl_ulong flip = xf.flip, fneg = xf.fneg;
    cl_ulong words = l->region[PS_DEV_SEG_WORDS].off / 4;
    cl_ulong doff = words + l->dbase, coff = words + l->cbase;
    size_t kalt = l->region[PS_DEV_SEG_KEYS].off, valt = l->region[PS_DEV_SEG_VALS].off;
    cl_uint ntiles = (cl_uint)ps_dev_seg_tiles(l, list, nl), len = l->radix * ntiles;
    cl_uint *desc = host->alloc((size_t)ntiles * 5 * sizeof *desc);
    size_t i;
    cl_int err;
    int st = PS_OK;

    if (desc == NULL) {
        host->fail("opencl: sort_segments: no host memory for %u tiles", ntiles);
        return PS_ERR_NO_MEMORY;
    }
    ps_dev_seg_describe(l, list, nl, desc);
    err = clEnqueueWriteBuffer(job->q, scratch, CL_TRUE, (size_t)doff * 4,
                               (size_t)ntiles * 5 * sizeof *desc, desc, 0, NULL, NULL);
    host->release(desc);
    if (err != CL_SUCCESS)
        return ps_cl_status(host, err, "writing the tile descriptors");
    host->log("opencl: segments, %zu large batched: %u tiles, %u passes", nl, ntiles,
              passes);
    for (q = 0; q < passes && st == PS_OK; q++) {
        cl_mem kin = q % 2 ? scratch : job->keys, kout = q % 2 ? job->keys : scratch;
        cl_mem vin = q % 2 ? scratch : job->vals, vout = q % 2 ? job->vals : scratch;
        cl_ulong kin_off = q % 2 ? kalt / kb : job->koff;
        cl_ulong kout_off = q % 2 ? job->koff : kalt / kb;
        cl_ulong vin_off = vb ? (q % 2 ? valt / vb : job->voff) : 0;
        cl_ulong vout_off = vb ? (q % 2 ? job->voff : valt / vb) : 0;
        cl_uint shift = q * l->digit_bits, enc_in = q == 0, dec_out = q + 1 == passes;
        karg a[17];
        cl_uint na = 0;

        PUSH(kin); PUSH(kin_off); PUSH(scratch); PUSH(doff); PUSH(shift);
        PUSH(scratch); PUSH(coff); PUSH(flip); PUSH(fneg); PUSH(enc_in);
        st = ps_cl_run(host, job->q, ooo, p->seg_up, a, na, ntiles, wg, "ps_seg_up");
        if (st == PS_OK) {
            na = 0;
            PUSH(scratch); PUSH(coff); PUSH(len);
            st = ps_cl_run(host, job->q, ooo, p->scan, a, na, 1, wg, "ps_scan");
        }
        if (st == PS_OK) {
            na = 0;
            PUSH(kin); PUSH(kin_off); PUSH(kout); PUSH(kout_off);
            if (vb) { PUSH(vin); PUSH(vin_off); PUSH(vout); PUSH(vout_off); }
            PUSH(scratch); PUSH(doff); PUSH(shift); PUSH(scratch); PUSH(coff);
            PUSH(flip); PUSH(fneg); PUSH(enc_in); PUSH(dec_out);
            st = ps_cl_run(host, job->q, ooo, p->seg_down, a, na, ntiles, wg, "ps_seg_down");
        }
    }
    /* An odd number of passes left the large segments in the scratch. */
    for (i = 0; st == PS_OK && passes % 2 && i < nl; i++) {
        size_t a = list[2 * i], m = list[2 * i + 1];
        err = clEnqueueCopyBuffer(job->q, scratch, job->keys, kalt + a * kb,
                                  (job->koff + a) * kb, m * kb, 0, NULL, NULL);
        if (err == CL_SUCCESS && vb)
            err = clEnqueueCopyBuffer(job->q, scratch, job->vals, valt + a * vb,
                                      (job->voff + a) * vb, m * vb, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            st = ps_cl_status(host, err, "clEnqueueCopyBuffer");
    }
    if (st == PS_OK && passes % 2 && ooo) {
        err = clEnqueueBarrierWithWaitList(job->q, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            st = ps_cl_status(host, err, "clEnqueueBarrierWithWaitList");
    }
    return st;
}

int ps_cl_sort_segments(const ps_host *host, const ps_cl_segjob *job)
{
    cl_context ctx = NULL;
    cl_device_id dev = NULL;
    cl_mem scratch = job->scratch;
    unsigned kb = ps_type_bytes(job->type), vb = job->val_bytes;
    size_t i, nbatch = 0;
    cl_uint *info = NULL;
    ps_cl_prog *p;
    ps_dev_tune t;
    ps_dev_seg_plan l;
    cl_int err;
    int st = PS_OK, ooo;

    if (job->n > UINT32_MAX || job->nseg > UINT32_MAX) {
        host->fail("opencl: sort_segments: n = %zu and %zu segments: the kernels "
                   "count both in 32 bits", job->n, job->nseg);
        return PS_ERR_TOO_LARGE;
    }
    /* The buffers' bounds and overlaps were checked by the device API
     * (ps_opencl_api.c); the host-array path made its buffers itself. */
    st = ps_cl_queue_info(host, job->q, &ctx, &dev, &ooo);
    if (st != PS_OK)
        return st;
    p = ps_cl_program_get(host, ctx, dev, 8 * kb, vb, &st);
    if (p == NULL)
        return st;
    t = ps_cl_dev_tune(&p->tune);
    st = ps_dev_plan_segments(&l, &t, job->n, kb, vb, host);
    if (st != PS_OK)
        return st;
    if (scratch != NULL && job->scratch_bytes < l.bytes) {
        host->fail("opencl: sort_segments: scratch of %zu bytes is smaller than "
                   "the %zu needed", job->scratch_bytes, l.bytes);
        return PS_ERR_INVALID_ARG;
    }
    info = host->alloc(l.info_words * 4);
    if (info == NULL) {
        host->fail("opencl: sort_segments: no host memory for the segment classes");
        return PS_ERR_NO_MEMORY;
    }
    if (scratch == NULL) {
        scratch = ps_cl_create_buffer(ctx, l.bytes, &err);
        if (scratch == NULL || err != CL_SUCCESS) {
            host->release(info);
            return ps_cl_status(host, err, "clCreateBuffer (scratch)");
        }
    } else {
        clRetainMemObject(scratch);
    }
    pthread_mutex_lock(&p->lock);
    st = classify_and_sort_short(host, job, p, ooo, scratch, &l, info);
    /* The large list, shorter ones first: those are sorted together, the
     * huge ones (tune.seg_huge keys and more) one plain sort each. */
    if (st == PS_OK) {
        nbatch = ps_dev_seg_batch_first(&l, info + l.lbase, info[3]);
        if (nbatch > 0)
            st = sort_large_batched(host, job, p, ooo, scratch, &l, info + l.lbase,
                                    nbatch);
    }
    pthread_mutex_unlock(&p->lock);
    /* The huge ones, one plain sort each (which takes the lock). */
    for (i = nbatch; st == PS_OK && i < info[3]; i++) {
        ps_cl_job one;
        memset(&one, 0, sizeof one);
        one.q = job->q;
        one.keys = job->keys;
        one.koff = job->koff + info[l.lbase + 2 * i];
        one.vals = job->vals;
        one.voff = job->voff + info[l.lbase + 2 * i];
        one.n = info[l.lbase + 2 * i + 1];
        one.type = job->type;
        one.flags = job->flags;
        one.val_bytes = vb;
        one.scratch = scratch;
        one.scratch_bytes = l.region[PS_DEV_SEG_SORTS].bytes;
        st = ps_cl_sort(host, &one);
    }
    host->release(info);
    /* Freed by the runtime once the queued kernels are done with it. */
    clReleaseMemObject(scratch);
    if (st == PS_OK)
        clFlush(job->q);
    return st;
}
