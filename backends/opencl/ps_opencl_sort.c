/*
 * ps_opencl_sort.c - the sequence of kernels for one sort on a command
 * queue, shared by the host-array API and the cl_mem API.
 *
 * n <= one tile: ps_sort_local, one work-group, no scratch.
 * Otherwise: ps_hist, a blocking read of the digit totals (PASSES * RADIX
 * words: the host must know which passes to skip, since a skipped pass
 * changes which buffer holds the result), then per remaining pass
 * ps_upsweep, ps_scan, ps_downsweep between the keys and the scratch copy,
 * and a copy back when the result ended in scratch.
 *
 * With tune.onesweep (GPUs, or PORTSORT_OPENCL_ALGO=onesweep; see
 * ps_opencl_tune.c): ps_os_hist and ps_os_scan
 * give every 8-bit digit its output position, read back to skip constant
 * digits, then per pass one ps_onesweep per portion of at most
 * tune.os_portion tiles over zeroed status words, each portion starting
 * from the positions the one before left.  This is how make check runs the
 * CUDA backend's default path on pocl.
 *
 * The tiles, blocks, passes, portions and scratch regions come from the
 * device plan (backends/device/ps_device_plan.h), which the CUDA and HIP
 * host code shares: this file only enqueues.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_opencl_internal.h"

ps_dev_tune ps_cl_dev_tune(const ps_cl_tune *t)
{
    ps_dev_tune d;
    d.wg = t->wg;
    d.items = t->items;
    d.bits = t->bits;
    d.max_blocks = t->max_blocks;
    d.onesweep = t->onesweep != 0;
    d.os_items = t->items;      /* one tile for both paths */
    d.os_portion = t->os_portion;
    d.seg_small = t->seg_small;
    d.seg_huge = t->seg_huge;
    d.who = "opencl";
    d.tile_knob = "use larger wg or items (PORTSORT_OPENCL_TUNE)";
    return d;
}

/* Arguments are set in order; the first failure sticks in *err. */
typedef struct args {
    cl_kernel k;
    cl_uint i;
    cl_int err;
} args;

static void arg(args *a, size_t size, const void *v)
{
    if (a->err == CL_SUCCESS)
        a->err = clSetKernelArg(a->k, a->i, size, v);
    a->i++;
}
#define ARG(a, v) arg(&(a), sizeof(v), &(v))

static cl_int launch(cl_command_queue q, int ooo, cl_kernel k, size_t groups,
                     size_t wg)
{
    size_t global = groups * wg;
    cl_int err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &wg, 0, NULL, NULL);
    /* On an out-of-order queue every step waits for the one before. */
    if (err == CL_SUCCESS && ooo)
        err = clEnqueueBarrierWithWaitList(q, 0, NULL, NULL);
    return err;
}

/* One sort in progress: what each of its steps needs. */
typedef struct sort_run {
    const ps_host *host;
    const ps_cl_job *job;
    ps_cl_prog *p;
    int ooo;                /* an out-of-order queue: a barrier after each step */
    cl_mem scratch;
    ps_dev_sort_plan pl;
    cl_ulong flip, fneg;    /* the order transform (ps_xf) */
    cl_uint n;
    unsigned active[PS_DEV_MAX_PASSES], nactive;   /* the passes that move keys */
} sort_run;

/* Launches r's kernel k on `groups` work-groups; a failure is a status
 * naming `what`. */
static int enqueue(const sort_run *r, const args *a, size_t groups, const char *what)
{
    cl_int err = a->err != CL_SUCCESS ? a->err
        : launch(r->job->q, r->ooo, a->k, groups, r->p->tune.wg);
    return err == CL_SUCCESS ? PS_OK : ps_cl_status(r->host, err, what);
}

/* The buffers and element offsets the q-th data-moving pass reads and
 * writes: even steps read the caller's buffers, odd ones the scratch copy. */
typedef struct pass_io {
    cl_mem kin, kout, vin, vout;
    cl_ulong kin_off, kout_off, vin_off, vout_off;
} pass_io;

static pass_io pass_buffers(const sort_run *r, cl_uint q)
{
    const ps_cl_job *job = r->job;
    unsigned kb = r->pl.key_bytes, vb = r->pl.val_bytes;
    cl_ulong kalt = r->pl.region[PS_DEV_KEYS].off / kb;
    cl_ulong valt = vb ? r->pl.region[PS_DEV_VALS].off / vb : 0;
    pass_io io;
    int from_user = (q % 2) == 0;
    io.kin = from_user ? job->keys : r->scratch;
    io.kout = from_user ? r->scratch : job->keys;
    io.kin_off = from_user ? job->koff : kalt;
    io.kout_off = from_user ? kalt : job->koff;
    io.vin = from_user ? job->vals : r->scratch;
    io.vout = from_user ? r->scratch : job->vals;
    io.vin_off = vb ? (from_user ? job->voff : valt) : 0;
    io.vout_off = vb ? (from_user ? valt : job->voff) : 0;
    return io;
}

/* The in and out arrays of a pass, as the data-moving kernels take them. */
static void io_args(args *a, const pass_io *io, unsigned vb)
{
    ARG(*a, io->kin); ARG(*a, io->kin_off); ARG(*a, io->kout); ARG(*a, io->kout_off);
    if (vb) {
        ARG(*a, io->vin); ARG(*a, io->vin_off); ARG(*a, io->vout);
        ARG(*a, io->vout_off);
    }
}

/* An odd number of passes left the result in scratch. */
static int copy_home(const sort_run *r)
{
    const ps_cl_job *job = r->job;
    size_t kb = r->pl.key_bytes, vb = r->pl.val_bytes;
    cl_int err;
    if (r->nactive % 2 == 0)
        return PS_OK;
    err = clEnqueueCopyBuffer(job->q, r->scratch, job->keys,
                              r->pl.region[PS_DEV_KEYS].off, job->koff * kb,
                              job->n * kb, 0, NULL, NULL);
    if (err == CL_SUCCESS && vb)
        err = clEnqueueCopyBuffer(job->q, r->scratch, job->vals,
                                  r->pl.region[PS_DEV_VALS].off, job->voff * vb,
                                  job->n * vb, 0, NULL, NULL);
    if (err == CL_SUCCESS && r->ooo)
        err = clEnqueueBarrierWithWaitList(job->q, 0, NULL, NULL);
    return err == CL_SUCCESS ? PS_OK
                             : ps_cl_status(r->host, err, "clEnqueueCopyBuffer");
}

/* Zeroes a region of the scratch (and, on an out-of-order queue, makes
 * the next step wait for it). */
static int zero_region(const sort_run *r, const ps_dev_region *g)
{
    cl_uint zero = 0;
    cl_int err = clEnqueueFillBuffer(r->job->q, r->scratch, &zero, sizeof zero, g->off,
                                     g->bytes, 0, NULL, NULL);
    if (err == CL_SUCCESS && r->ooo)
        err = clEnqueueBarrierWithWaitList(r->job->q, 0, NULL, NULL);
    return err == CL_SUCCESS ? PS_OK
                             : ps_cl_status(r->host, err, "clEnqueueFillBuffer");
}

/* The first steps of either path: every pass's digit counts (ps_hist,
 * reduce-then-scan) or first positions (ps_os_hist and ps_os_scan,
 * Onesweep) in the scratch, read back (blocking) so that the passes whose
 * digit is the same for every key are dropped: r->active gets the others. */
static int digit_passes(sort_run *r)
{
    const ps_dev_region *g = &r->pl.region[r->pl.onesweep ? PS_DEV_BINS : PS_DEV_TOTALS];
    cl_ulong koff = r->job->koff, off = g->off / 4;
    cl_uint tpb = (cl_uint)r->pl.tiles_per_block, words[PS_DEV_MAX_DIGIT_WORDS];
    cl_int err;
    args a;
    int st = zero_region(r, g);

    if (st != PS_OK)
        return st;
    a.k = r->pl.onesweep ? r->p->os_hist : r->p->hist; a.i = 0; a.err = CL_SUCCESS;
    ARG(a, r->job->keys); ARG(a, koff); ARG(a, r->n);
    if (!r->pl.onesweep)
        ARG(a, tpb);
    ARG(a, r->scratch); ARG(a, off); ARG(a, r->flip); ARG(a, r->fneg);
    st = enqueue(r, &a, r->pl.blocks, r->pl.onesweep ? "ps_os_hist" : "ps_hist");
    if (st == PS_OK && r->pl.onesweep) {
        a.k = r->p->os_scan; a.i = 0; a.err = CL_SUCCESS;
        ARG(a, r->scratch); ARG(a, off);
        st = enqueue(r, &a, 1, "ps_os_scan");
    }
    if (st != PS_OK)
        return st;
    err = clEnqueueReadBuffer(r->job->q, r->scratch, CL_TRUE, g->off, g->bytes, words,
                              0, NULL, NULL);
    if (err != CL_SUCCESS)
        return ps_cl_status(r->host, err, "reading the digit counts");
    r->nactive = ps_dev_plan_passes(&r->pl, words, r->active);
    return PS_OK;
}

/* Per pass, one ps_onesweep per portion over zeroed status words. */
static int run_onesweep(const sort_run *r)
{
    const ps_dev_sort_plan *pl = &r->pl;
    cl_ulong soff = pl->region[PS_DEV_STATUS].off / 4;
    unsigned q;

    r->host->log("opencl: onesweep, n=%u, %u of %u passes, %zu tiles of %zu, "
                 "portions of %zu tiles", r->n, r->nactive, pl->passes, pl->ntiles,
                 pl->tile, pl->portion_tiles);
    for (q = 0; q < r->nactive; q++) {
        pass_io io0 = pass_buffers(r, q);
        cl_uint shift = r->active[q] * 8, enc_in = q == 0, dec_out = q == r->nactive - 1;
        size_t i;

        for (i = 0; i < pl->portions; i++) {
            ps_dev_portion pt = ps_dev_plan_portion(pl, r->active[q], i);
            pass_io io = io0;
            cl_uint pn = (cl_uint)pt.len;
            cl_ulong boff = pt.bins_word, bnoff = pt.bnext_word;
            args a;
            int st;

            io.kin_off += pt.first;
            if (pl->val_bytes)
                io.vin_off += pt.first;
            st = zero_region(r, &pl->region[PS_DEV_STATUS]);
            if (st != PS_OK)
                return st;
            a.k = r->p->onesweep; a.i = 0; a.err = CL_SUCCESS;
            io_args(&a, &io, pl->val_bytes);
            ARG(a, pn); ARG(a, shift); ARG(a, r->scratch); ARG(a, boff);
            ARG(a, r->scratch); ARG(a, soff); ARG(a, r->scratch); ARG(a, bnoff);
            ARG(a, r->flip); ARG(a, r->fneg); ARG(a, enc_in); ARG(a, dec_out);
            st = enqueue(r, &a, pt.groups, "ps_onesweep");
            if (st != PS_OK)
                return st;
        }
    }
    return PS_OK;
}

/* Per pass, ps_upsweep, ps_scan, ps_downsweep. */
static int run_portable(const sort_run *r)
{
    const ps_dev_sort_plan *pl = &r->pl;
    cl_ulong coff = pl->region[PS_DEV_COUNTS].off / 4;
    cl_uint tpb = (cl_uint)pl->tiles_per_block, len = pl->radix * (cl_uint)pl->blocks;
    unsigned q;
    int st = PS_OK;

    r->host->log("opencl: n=%u, %u of %u passes, %zu blocks of %zu tiles of %zu", r->n,
                 r->nactive, pl->passes, pl->blocks, pl->tiles_per_block, pl->tile);
    for (q = 0; q < r->nactive && st == PS_OK; q++) {
        pass_io io = pass_buffers(r, q);
        cl_uint shift = r->active[q] * pl->digit_bits;
        cl_uint enc_in = q == 0, dec_out = q == r->nactive - 1;
        args a;

        a.k = r->p->upsweep; a.i = 0; a.err = CL_SUCCESS;
        ARG(a, io.kin); ARG(a, io.kin_off); ARG(a, r->n); ARG(a, tpb); ARG(a, shift);
        ARG(a, r->scratch); ARG(a, coff); ARG(a, r->flip); ARG(a, r->fneg);
        ARG(a, enc_in);
        st = enqueue(r, &a, pl->blocks, "ps_upsweep");
        if (st == PS_OK) {
            a.k = r->p->scan; a.i = 0; a.err = CL_SUCCESS;
            ARG(a, r->scratch); ARG(a, coff); ARG(a, len);
            st = enqueue(r, &a, 1, "ps_scan");
        }
        if (st == PS_OK) {
            a.k = r->p->downsweep; a.i = 0; a.err = CL_SUCCESS;
            io_args(&a, &io, pl->val_bytes);
            ARG(a, r->n); ARG(a, tpb); ARG(a, shift); ARG(a, r->scratch); ARG(a, coff);
            ARG(a, r->flip); ARG(a, r->fneg); ARG(a, enc_in); ARG(a, dec_out);
            st = enqueue(r, &a, pl->blocks, "ps_downsweep");
        }
    }
    return st;
}

static int run(const ps_host *host, const ps_cl_job *job, ps_cl_prog *p,
               cl_context ctx, int ooo, cl_mem *owned)
{
    ps_dev_tune t = ps_cl_dev_tune(&p->tune);
    ps_xf xf = ps_xf_make(job->type, job->flags);
    sort_run r = { .host = host, .job = job, .p = p, .ooo = ooo, .scratch = job->scratch,
                   .flip = xf.flip, .fneg = xf.fneg, .n = (cl_uint)job->n };
    cl_int err;
    int st = ps_dev_plan_sort(&r.pl, &t, job->n, ps_type_bytes(job->type),
                              job->val_bytes, host);
    if (st != PS_OK)
        return st;
    if (r.pl.local) {
        cl_ulong koff = job->koff, voff = job->voff;
        args a;
        a.k = p->local; a.i = 0; a.err = CL_SUCCESS;
        ARG(a, job->keys); ARG(a, koff);
        if (job->val_bytes) { ARG(a, job->vals); ARG(a, voff); }
        ARG(a, r.n); ARG(a, r.flip); ARG(a, r.fneg);
        return enqueue(&r, &a, 1, "ps_sort_local");
    }
    if (r.scratch == NULL) {
        cl_ulong max_alloc = 0;
        if (clGetDeviceInfo(p->dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc,
                            &max_alloc, NULL) == CL_SUCCESS && r.pl.bytes > max_alloc) {
            host->fail("opencl: %zu bytes of scratch are beyond the device's "
                       "largest buffer (%llu bytes)", r.pl.bytes,
                       (unsigned long long)max_alloc);
            return PS_ERR_TOO_LARGE;
        }
        r.scratch = ps_cl_create_buffer(ctx, r.pl.bytes, &err);
        if (r.scratch == NULL || err != CL_SUCCESS)
            return ps_cl_status(host, err, "clCreateBuffer (scratch)");
        *owned = r.scratch;
    } else if (job->scratch_bytes < r.pl.bytes) {
        host->fail("opencl: scratch of %zu bytes is smaller than the %zu needed",
                   job->scratch_bytes, r.pl.bytes);
        return PS_ERR_INVALID_ARG;
    }
    st = digit_passes(&r);
    if (st == PS_OK)
        st = r.pl.onesweep ? run_onesweep(&r) : run_portable(&r);
    return st == PS_OK ? copy_home(&r) : st;
}

int ps_cl_queue_info(const ps_host *host, cl_command_queue q, cl_context *ctx,
                     cl_device_id *dev, int *ooo)
{
    cl_command_queue_properties props = 0;
    cl_int err = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof *ctx, ctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof *dev, dev, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props,
                                    NULL);
    if (err != CL_SUCCESS) {
        host->fail("opencl: not a usable command queue (%s)", ps_cl_errname(err));
        return PS_ERR_INVALID_ARG;
    }
    *ooo = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    return PS_OK;
}

int ps_cl_sort(const ps_host *host, const ps_cl_job *job)
{
    cl_context ctx = NULL;
    cl_device_id dev = NULL;
    cl_mem owned = NULL;
    ps_cl_prog *p;
    int st = PS_OK, ooo;

    if (job->n > UINT32_MAX) {
        host->fail("opencl: n = %zu is beyond the 2^32 - 1 keys the kernels count",
                   job->n);
        return PS_ERR_TOO_LARGE;
    }
    /* The buffers' bounds and overlaps were checked by the device API
     * (ps_opencl_api.c); the host-array path made its buffers itself. */
    st = ps_cl_queue_info(host, job->q, &ctx, &dev, &ooo);
    if (st != PS_OK)
        return st;
    p = ps_cl_program_get(host, ctx, dev, 8u * ps_type_bytes(job->type),
                          job->val_bytes, &st);
    if (p == NULL)
        return st;
    /* The kernels hold their arguments: one sort at a time per program. */
    pthread_mutex_lock(&p->lock);
    st = run(host, job, p, ctx, ooo, &owned);
    pthread_mutex_unlock(&p->lock);
    /* Released now, freed by the runtime once the queued kernels finish. */
    if (owned != NULL)
        clReleaseMemObject(owned);
    if (st == PS_OK)
        clFlush(job->q);
    return st;
}
