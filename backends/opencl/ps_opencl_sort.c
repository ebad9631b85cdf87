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
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_opencl_internal.h"

#define ALIGN 256u

static size_t round_up(size_t x)
{
    return (x + ALIGN - 1) / ALIGN * ALIGN;
}

/* Blocks (work-groups) per pass and tiles per block for n keys. */
static void blocks(const ps_cl_tune *t, size_t n, size_t *nb, size_t *tpb)
{
    size_t tile = (size_t)t->wg * t->items;
    size_t ntiles = (n + tile - 1) / tile;
    size_t b = ntiles < t->max_blocks ? ntiles : t->max_blocks;
    *tpb = (ntiles + b - 1) / b;
    *nb = (ntiles + *tpb - 1) / *tpb;
}

/* Whether a sort of n keys (more than one tile) runs Onesweep: when asked
 * for, at any size (portions keep its status counts within 30 bits). */
static int os_applies(const ps_cl_tune *t, size_t n)
{
    (void)n;
    return t->onesweep;
}

/* Tiles in one Onesweep portion of a sort of n keys. */
static size_t os_portion_tiles(const ps_cl_tune *t, size_t n)
{
    size_t tile = (size_t)t->wg * t->items, ntiles = (n + tile - 1) / tile;
    return ntiles < t->os_portion ? ntiles : t->os_portion;
}

/* Scratch layout: alternate keys, alternate values, then per-block counts
 * and digit totals (reduce-then-scan) or digit positions, two rows of
 * next-portion positions and status words (Onesweep: a tile counter, then
 * 256 words per tile of a portion); each region 256-byte aligned so
 * element offsets stay exact. */
typedef struct layout {
    size_t keys, vals, counts, totals, bins, bnext, status, status_bytes, bytes;
} layout;

static layout make_layout(const ps_cl_tune *t, size_t n, unsigned kb, unsigned vb)
{
    layout l;
    size_t nb, tpb, radix = (size_t)1 << t->bits;
    size_t passes = (8u * kb + t->bits - 1) / t->bits;
    memset(&l, 0, sizeof l);
    l.vals = round_up(n * kb);
    l.counts = l.vals + round_up(n * vb);
    if (os_applies(t, n)) {
        l.bins = l.counts;
        l.bnext = l.bins + round_up((size_t)kb * 256 * 4);
        l.status = l.bnext + round_up(2 * 256 * 4);
        l.status_bytes = (1 + os_portion_tiles(t, n)) * 256 * 4;
        l.bytes = l.status + l.status_bytes;
        return l;
    }
    blocks(t, n, &nb, &tpb);
    l.totals = l.counts + round_up(radix * nb * 4);
    l.bytes = l.totals + passes * radix * 4;
    return l;
}

size_t ps_cl_scratch_bytes(const ps_cl_tune *tune, size_t n, unsigned key_bytes,
                           unsigned val_bytes)
{
    if (n <= (size_t)tune->wg * tune->items)
        return 0;
    return make_layout(tune, n, key_bytes, val_bytes).bytes;
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

/* The buffers and element offsets the q-th data-moving pass reads and
 * writes: even steps read the caller's buffers, odd ones the scratch copy. */
typedef struct pass_io {
    cl_mem kin, kout, vin, vout;
    cl_ulong kin_off, kout_off, vin_off, vout_off;
} pass_io;

static pass_io pass_buffers(const ps_cl_job *job, cl_mem scratch, const layout *l,
                            unsigned kb, unsigned vb, cl_uint q)
{
    pass_io io;
    int from_user = (q % 2) == 0;
    io.kin = from_user ? job->keys : scratch;
    io.kout = from_user ? scratch : job->keys;
    io.kin_off = from_user ? job->koff : l->keys / kb;
    io.kout_off = from_user ? l->keys / kb : job->koff;
    io.vin = from_user ? job->vals : scratch;
    io.vout = from_user ? scratch : job->vals;
    io.vin_off = vb ? (from_user ? job->voff : l->vals / vb) : 0;
    io.vout_off = vb ? (from_user ? l->vals / vb : job->voff) : 0;
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
static int copy_home(const ps_host *host, const ps_cl_job *job, cl_mem scratch,
                     const layout *l, cl_uint nactive, int ooo)
{
    size_t kb = ps_type_bytes(job->type), vb = job->val_bytes;
    cl_int err;
    if (nactive % 2 == 0)
        return PS_OK;
    err = clEnqueueCopyBuffer(job->q, scratch, job->keys, l->keys, job->koff * kb,
                              job->n * kb, 0, NULL, NULL);
    if (err == CL_SUCCESS && vb)
        err = clEnqueueCopyBuffer(job->q, scratch, job->vals, l->vals,
                                  job->voff * vb, job->n * vb, 0, NULL, NULL);
    if (err == CL_SUCCESS && ooo)
        err = clEnqueueBarrierWithWaitList(job->q, 0, NULL, NULL);
    return err == CL_SUCCESS ? PS_OK : ps_cl_status(host, err, "clEnqueueCopyBuffer");
}

/* Onesweep's first steps: every pass's digit positions in the scratch's
 * bins, read back (blocking) into pos so that constant digits can be
 * skipped. */
static int os_positions(const ps_host *host, const ps_cl_job *job, ps_cl_prog *p,
                        int ooo, cl_mem scratch, const layout *l, cl_uint *pos)
{
    const ps_cl_tune *t = &p->tune;
    ps_xf xf = ps_xf_make(job->type, job->flags);
    cl_ulong flip = xf.flip, fneg = xf.fneg, koff = job->koff, boff = l->bins / 4;
    cl_uint n = (cl_uint)job->n, zero = 0;
    size_t bytes = (size_t)ps_type_bytes(job->type) * 256 * 4;
    size_t tile = (size_t)t->wg * t->items, ntiles = (job->n + tile - 1) / tile;
    size_t nb = ntiles < t->max_blocks ? ntiles : t->max_blocks;
    cl_int err;
    args a;

    err = clEnqueueFillBuffer(job->q, scratch, &zero, sizeof zero, l->bins, bytes, 0,
                              NULL, NULL);
    if (err == CL_SUCCESS && ooo)
        err = clEnqueueBarrierWithWaitList(job->q, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return ps_cl_status(host, err, "clEnqueueFillBuffer");
    a.k = p->os_hist; a.i = 0; a.err = CL_SUCCESS;
    ARG(a, job->keys); ARG(a, koff); ARG(a, n); ARG(a, scratch); ARG(a, boff);
    ARG(a, flip); ARG(a, fneg);
    err = a.err != CL_SUCCESS ? a.err : launch(job->q, ooo, p->os_hist, nb, t->wg);
    if (err != CL_SUCCESS)
        return ps_cl_status(host, err, "ps_os_hist");
    a.k = p->os_scan; a.i = 0; a.err = CL_SUCCESS;
    ARG(a, scratch); ARG(a, boff);
    err = a.err != CL_SUCCESS ? a.err : launch(job->q, ooo, p->os_scan, 1, t->wg);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(job->q, scratch, CL_TRUE, l->bins, bytes, pos, 0,
                                  NULL, NULL);
    return err == CL_SUCCESS ? PS_OK : ps_cl_status(host, err, "ps_os_scan");
}

static int run_onesweep(const ps_host *host, const ps_cl_job *job, ps_cl_prog *p,
                        int ooo, cl_mem scratch, const layout *l)
{
    const ps_cl_tune *t = &p->tune;
    unsigned kb = ps_type_bytes(job->type), vb = job->val_bytes;
    ps_xf xf = ps_xf_make(job->type, job->flags);
    cl_ulong flip = xf.flip, fneg = xf.fneg, soff = l->status / 4;
    cl_uint n = (cl_uint)job->n, pos[8 * 256], active[8], nactive = 0, q, pp, d;
    cl_uint zero = 0;
    size_t tile = (size_t)t->wg * t->items, ntiles = (job->n + tile - 1) / tile;
    size_t ptiles = os_portion_tiles(t, job->n);
    cl_int err;
    args a;
    int st = os_positions(host, job, p, ooo, scratch, l, pos);

    if (st != PS_OK)
        return st;
    for (pp = 0; pp < kb; pp++) {
        int constant = 0;
        for (d = 0; d < 256; d++) {
            cl_uint end = d < 255 ? pos[pp * 256 + d + 1] : n;
            if (end - pos[pp * 256 + d] == n)
                constant = 1;
        }
        if (!constant)
            active[nactive++] = pp;
    }
    host->log("opencl: onesweep, n=%u, %u of %u passes, %zu tiles of %zu, "
              "portions of %zu tiles", n, nactive, kb, ntiles, tile, ptiles);
    for (q = 0; q < nactive; q++) {
        pass_io io0 = pass_buffers(job, scratch, l, kb, vb, q);
        cl_uint shift = active[q] * 8, enc_in = q == 0, dec_out = q == nactive - 1;
        size_t off = 0, portion;

        /* Portion i reads the positions portion i-1 left (the first, the
         * pass's row of bins) and leaves the next in the other bnext row. */
        for (portion = 0; off < job->n; portion++) {
            size_t len = job->n - off < ptiles * tile ? job->n - off : ptiles * tile;
            pass_io io = io0;
            cl_uint pn = (cl_uint)len;
            cl_ulong boff = portion == 0
                ? l->bins / 4 + (cl_ulong)active[q] * 256
                : l->bnext / 4 + (cl_ulong)((portion - 1) & 1) * 256;
            cl_ulong bnoff = l->bnext / 4 + (cl_ulong)(portion & 1) * 256;

            io.kin_off += off;
            if (vb)
                io.vin_off += off;
            err = clEnqueueFillBuffer(job->q, scratch, &zero, sizeof zero, l->status,
                                      l->status_bytes, 0, NULL, NULL);
            if (err == CL_SUCCESS && ooo)
                err = clEnqueueBarrierWithWaitList(job->q, 0, NULL, NULL);
            if (err != CL_SUCCESS)
                return ps_cl_status(host, err, "clEnqueueFillBuffer");
            a.k = p->onesweep; a.i = 0; a.err = CL_SUCCESS;
            io_args(&a, &io, vb);
            ARG(a, pn); ARG(a, shift); ARG(a, scratch); ARG(a, boff); ARG(a, scratch);
            ARG(a, soff); ARG(a, scratch); ARG(a, bnoff); ARG(a, flip); ARG(a, fneg);
            ARG(a, enc_in); ARG(a, dec_out);
            err = a.err != CL_SUCCESS ? a.err
                : launch(job->q, ooo, p->onesweep, (len + tile - 1) / tile, t->wg);
            if (err != CL_SUCCESS)
                return ps_cl_status(host, err, "ps_onesweep");
            off += len;
        }
    }
    return copy_home(host, job, scratch, l, nactive, ooo);
}

static int run(const ps_host *host, const ps_cl_job *job, ps_cl_prog *p,
               cl_context ctx, int ooo, cl_mem *owned)
{
    const ps_cl_tune *t = &p->tune;
    unsigned kb = ps_type_bytes(job->type), vb = job->val_bytes;
    ps_xf xf = ps_xf_make(job->type, job->flags);
    cl_ulong flip = xf.flip, fneg = xf.fneg;
    size_t tile = (size_t)t->wg * t->items, nb, tpb;
    cl_uint n = (cl_uint)job->n, radix = 1u << t->bits;
    cl_uint passes = (8u * kb + t->bits - 1) / t->bits;
    /* Sized for the widest tuning ps_cl_tune_for allows (1 to 8 bits):
     * passes * radix is at most 8 * 256 and passes at most 64. */
    cl_uint totals[8 * 256], active[64], nactive = 0, q, pp, d;
    cl_mem scratch = job->scratch;
    layout l;
    cl_int err;
    args a;

    PS_DEBUG_ASSERT(t->bits >= 1 && t->bits <= 8 && passes <= 64
                    && (size_t)passes * radix <= 8 * 256);
    if (job->n <= tile) {
        cl_ulong koff = job->koff, voff = job->voff;
        a.k = p->local; a.i = 0; a.err = CL_SUCCESS;
        ARG(a, job->keys); ARG(a, koff);
        if (vb) { ARG(a, job->vals); ARG(a, voff); }
        ARG(a, n); ARG(a, flip); ARG(a, fneg);
        err = a.err != CL_SUCCESS ? a.err : launch(job->q, ooo, p->local, 1, t->wg);
        return err == CL_SUCCESS ? PS_OK : ps_cl_status(host, err, "ps_sort_local");
    }

    blocks(t, job->n, &nb, &tpb);
    l = make_layout(t, job->n, kb, vb);
    if (scratch == NULL) {
        cl_ulong max_alloc = 0;
        if (clGetDeviceInfo(p->dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc,
                            &max_alloc, NULL) == CL_SUCCESS && l.bytes > max_alloc) {
            host->fail("opencl: %zu bytes of scratch are beyond the device's "
                       "largest buffer (%llu bytes)", l.bytes,
                       (unsigned long long)max_alloc);
            return PS_ERR_TOO_LARGE;
        }
        scratch = ps_cl_create_buffer(ctx, l.bytes, &err);
        if (scratch == NULL || err != CL_SUCCESS)
            return ps_cl_status(host, err, "clCreateBuffer (scratch)");
        *owned = scratch;
    } else if (job->scratch_bytes < l.bytes) {
        host->fail("opencl: scratch of %zu bytes is smaller than the %zu needed",
                   job->scratch_bytes, l.bytes);
        return PS_ERR_INVALID_ARG;
    }

    if (os_applies(t, job->n))
        return run_onesweep(host, job, p, ooo, scratch, &l);
    {
        cl_uint zero = 0, tpb32 = (cl_uint)tpb;
        cl_ulong koff = job->koff, toff = l.totals / 4;
        err = clEnqueueFillBuffer(job->q, scratch, &zero, sizeof zero, l.totals,
                                  (size_t)passes * radix * 4, 0, NULL, NULL);
        if (err == CL_SUCCESS && ooo)
            err = clEnqueueBarrierWithWaitList(job->q, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return ps_cl_status(host, err, "clEnqueueFillBuffer");
        a.k = p->hist; a.i = 0; a.err = CL_SUCCESS;
        ARG(a, job->keys); ARG(a, koff); ARG(a, n); ARG(a, tpb32);
        ARG(a, scratch); ARG(a, toff); ARG(a, flip); ARG(a, fneg);
        err = a.err != CL_SUCCESS ? a.err : launch(job->q, ooo, p->hist, nb, t->wg);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(job->q, scratch, CL_TRUE, l.totals,
                                      (size_t)passes * radix * 4, totals, 0, NULL,
                                      NULL);
        if (err != CL_SUCCESS)
            return ps_cl_status(host, err, "ps_hist");
    }
    /* A pass whose digit is the same for every key would move nothing. */
    for (pp = 0; pp < passes; pp++) {
        int constant = 0;
        for (d = 0; d < radix; d++)
            if (totals[pp * radix + d] == n)
                constant = 1;
        if (!constant)
            active[nactive++] = pp;
    }
    host->log("opencl: n=%u, %u of %u passes, %zu blocks of %zu tiles of %zu",
              n, nactive, passes, nb, tpb, tile);

    for (q = 0; q < nactive; q++) {
        pass_io io = pass_buffers(job, scratch, &l, kb, vb, q);
        cl_ulong coff = l.counts / 4;
        cl_uint shift = active[q] * t->bits, tpb32 = (cl_uint)tpb;
        cl_uint enc_in = q == 0, dec_out = q == nactive - 1;
        cl_uint len = radix * (cl_uint)nb;

        a.k = p->upsweep; a.i = 0; a.err = CL_SUCCESS;
        ARG(a, io.kin); ARG(a, io.kin_off); ARG(a, n); ARG(a, tpb32); ARG(a, shift);
        ARG(a, scratch); ARG(a, coff); ARG(a, flip); ARG(a, fneg); ARG(a, enc_in);
        err = a.err != CL_SUCCESS ? a.err : launch(job->q, ooo, p->upsweep, nb, t->wg);
        if (err != CL_SUCCESS)
            return ps_cl_status(host, err, "ps_upsweep");

        a.k = p->scan; a.i = 0; a.err = CL_SUCCESS;
        ARG(a, scratch); ARG(a, coff); ARG(a, len);
        err = a.err != CL_SUCCESS ? a.err : launch(job->q, ooo, p->scan, 1, t->wg);
        if (err != CL_SUCCESS)
            return ps_cl_status(host, err, "ps_scan");

        a.k = p->downsweep; a.i = 0; a.err = CL_SUCCESS;
        io_args(&a, &io, vb);
        ARG(a, n); ARG(a, tpb32); ARG(a, shift); ARG(a, scratch); ARG(a, coff);
        ARG(a, flip); ARG(a, fneg); ARG(a, enc_in); ARG(a, dec_out);
        err = a.err != CL_SUCCESS ? a.err : launch(job->q, ooo, p->downsweep, nb, t->wg);
        if (err != CL_SUCCESS)
            return ps_cl_status(host, err, "ps_downsweep");
    }
    return copy_home(host, job, scratch, &l, nactive, ooo);
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
