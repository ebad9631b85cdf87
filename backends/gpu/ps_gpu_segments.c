/*
 * ps_gpu_segments.c - the segmented sort's sequence of kernels on a stream
 * (backends/kernels/ps_kernel_segments.cl), shared by the CUDA and HIP
 * modules' host-array op and device API.
 *
 *  1. ps_seg_classify over the offsets, then one wait for the stream, to
 *     read back its counts and the large segments' list: the launches
 *     after it are sized from them, and invalid offsets are refused before
 *     any key has moved.  (CUB's DeviceSegmentedSort also reads its
 *     partition sizes back unless built for dynamic parallelism.)
 *  2. ps_seg_small, one work-group per window of a tile of keys, for the
 *     segments of 2 .. PS_GPU_SEG_SMALL keys.
 *  3. ps_seg_medium, one work-group per segment of up to a tile.
 *  4. The large segments: those under PS_GPU_SEG_HUGE keys all at once, in
 *     tiles (ps_seg_up, ps_scan, ps_seg_down per pass); the huge ones
 *     through the plain device sort (ps_gpu_enqueue) each, on the same
 *     scratch, where the whole device works on one segment.
 * The classes' segments are disjoint, so the steps only need the stream's
 * order.  The scratch's layout, the words' places and the large tiles'
 * descriptors come from the device plan (backends/device/ps_device_plan.h),
 * shared with the OpenCL host.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_gpu_internal.h"

_Static_assert((8 / PS_GPU_DIGIT_BITS) % 2 == 0 && 8 % PS_GPU_DIGIT_BITS == 0,
               "every key width takes an even number of passes: the batched "
               "large segments end in the caller's arrays");

/* Step 1: the counts and the large list in info (host memory). */
static int classify(const ps_host *host, const ps_gpu_segjob *job,
                    const ps_gpu_kernels *k, const ps_dev_seg_plan *l, uint32_t *info)
{
    uint32_t n32 = (uint32_t)job->n, nseg = (uint32_t)job->nseg;
    uint64_t zero = 0;
    const void *offs = job->offs;
    void *dinfo = (char *)job->scratch + l->region[PS_DEV_SEG_WORDS].off;
    void *args[] = { &offs, &zero, &nseg, &n32, &dinfo, &zero, (void *)&l->lbase,
                     (void *)&l->lcap, (void *)&l->mbase, (void *)&l->mcap,
                     (void *)&l->wbase, (void *)&l->nwin };
    ps_rt_err e = RT(MemsetAsync)(dinfo, 0, 16, job->stream);
    int st;

    if (e != RT(Success))
        return ps_gpu_status(host, e, "memset of the segment counts");
    st = ps_gpu_launch(host, k->seg_classify, (nseg + l->tile - 1) / l->tile, args,
                       job->stream, "ps_seg_classify");
    if (st != PS_OK)
        return st;
    e = RT(MemcpyAsync)(info, dinfo, l->info_words * 4, RT(MemcpyDeviceToHost),
                        job->stream);
    if (e == RT(Success))
        e = RT(StreamSynchronize)(job->stream);
    if (e != RT(Success))
        return ps_gpu_status(host, e, "reading the segment classes");
    if (info[0] != 0) {
        host->fail(PS_GPU_NAME ": sort_segments: the offsets are invalid (%u of "
                   "%u segments: decreasing, past n = %u, or not from 0 to n)",
                   info[0], nseg, n32);
        return PS_ERR_INVALID_ARG;
    }
    host->log(PS_GPU_NAME ": segments, n=%u, %u segments: %u small (up to %zu "
              "keys), %u medium (up to %zu), %u large", n32, nseg, info[1],
              l->small, info[2], l->tile, info[3]);
    return PS_OK;
}

/* Steps 2 and 3. */
static int sort_short(const ps_host *host, const ps_gpu_segjob *job,
                      const ps_gpu_kernels *k, const ps_dev_seg_plan *l,
                      const uint32_t *info)
{
    ps_xf xf = ps_xf_make(job->type, job->flags);
    uint64_t words = l->region[PS_DEV_SEG_WORDS].off / 4;
    uint64_t flip = xf.flip, fneg = xf.fneg, zero = 0;
    uint64_t woff = words + l->wbase, moff = words + l->mbase;
    void *keys = job->keys, *vals = job->vals, *scratch = job->scratch;
    const void *offs = job->offs;
    int st = PS_OK;

    if (info[1] != 0) {
        void *ak[] = { &keys, &zero, &offs, &zero, &scratch, &woff, &flip, &fneg };
        void *ap[] = { &keys, &zero, &vals, &zero, &offs, &zero, &scratch, &woff,
                       &flip, &fneg };
        st = ps_gpu_launch(host, k->seg_small_sort, l->nwin, job->val_bytes ? ap : ak,
                           job->stream, "ps_seg_small");
    }
    if (st == PS_OK && info[2] != 0) {
        void *ak[] = { &keys, &zero, &scratch, &moff, &flip, &fneg };
        void *ap[] = { &keys, &zero, &vals, &zero, &scratch, &moff, &flip, &fneg };
        st = ps_gpu_launch(host, k->seg_medium, info[2], job->val_bytes ? ap : ak,
                           job->stream, "ps_seg_medium");
    }
    return st;
}

/* The large segments shorter than PS_GPU_SEG_HUGE, listed first in the
 * large list (nl of them): their tiles' descriptors written to the
 * scratch, and how many tiles in *ntiles.  The copy is waited for: its
 * source is freed on return, and the stream has nothing else to do yet. */
static int describe_tiles(const ps_host *host, const ps_gpu_segjob *job,
                          const ps_dev_seg_plan *l, const uint32_t *list, size_t nl,
                          uint32_t *ntiles)
{
    size_t nt = ps_dev_seg_tiles(l, list, nl);
    uint32_t *desc = host->alloc(nt * 5 * sizeof *desc);
    ps_rt_err e;

    if (desc == NULL) {
        host->fail(PS_GPU_NAME ": sort_segments: no host memory for %zu tiles", nt);
        return PS_ERR_NO_MEMORY;
    }
    ps_dev_seg_describe(l, list, nl, desc);
    e = RT(MemcpyAsync)((char *)job->scratch + l->region[PS_DEV_SEG_WORDS].off
                        + (size_t)l->dbase * 4, desc, nt * 5 * sizeof *desc,
                        RT(MemcpyHostToDevice), job->stream);
    if (e == RT(Success))
        e = RT(StreamSynchronize)(job->stream);
    host->release(desc);
    *ntiles = (uint32_t)nt;
    return e == RT(Success) ? PS_OK : ps_gpu_status(host, e, "tile descriptors");
}

/* Per pass, ps_seg_up, ps_scan and ps_seg_down over every tile of the
 * batched large segments, between the caller's arrays and the scratch
 * copy (an even number of passes: the result ends at home). */
static int sort_large_batched(const ps_host *host, const ps_gpu_segjob *job,
                              const ps_gpu_kernels *k, const ps_dev_seg_plan *l,
                              uint32_t ntiles)
{
    unsigned q;
    ps_xf xf = ps_xf_make(job->type, job->flags);
    uint64_t words = l->region[PS_DEV_SEG_WORDS].off / 4;
    uint64_t flip = xf.flip, fneg = xf.fneg, zero = 0;
    uint64_t doff = words + l->dbase, coff = words + l->cbase;
    uint32_t shift, enc_in, dec_out, len = l->radix * ntiles;
    void *scratch = job->scratch;
    void *kalt = (char *)scratch + l->region[PS_DEV_SEG_KEYS].off;
    void *valt = (char *)scratch + l->region[PS_DEV_SEG_VALS].off;
    int st = PS_OK;

    host->log(PS_GPU_NAME ": segments, large ones batched: %u tiles, %u passes",
              ntiles, l->passes);
    for (q = 0; q < l->passes && st == PS_OK; q++) {
        void *kin = q % 2 ? kalt : job->keys, *kout = q % 2 ? job->keys : kalt;
        void *vin = q % 2 ? valt : job->vals, *vout = q % 2 ? job->vals : valt;
        void *up[] = { &kin, &zero, &scratch, &doff, &shift, &scratch, &coff, &flip,
                       &fneg, &enc_in };
        void *sc[] = { &scratch, &coff, &len };
        void *dk[] = { &kin, &zero, &kout, &zero, &scratch, &doff, &shift, &scratch,
                       &coff, &flip, &fneg, &enc_in, &dec_out };
        void *dp[] = { &kin, &zero, &kout, &zero, &vin, &zero, &vout, &zero, &scratch,
                       &doff, &shift, &scratch, &coff, &flip, &fneg, &enc_in,
                       &dec_out };
        shift = q * l->digit_bits;
        enc_in = q == 0;
        dec_out = q + 1 == l->passes;
        st = ps_gpu_launch(host, k->seg_up, ntiles, up, job->stream, "ps_seg_up");
        if (st == PS_OK)
            st = ps_gpu_launch(host, k->scan, 1, sc, job->stream, "ps_scan");
        if (st == PS_OK)
            st = ps_gpu_launch(host, k->seg_down, ntiles, l->val_bytes ? dp : dk,
                               job->stream, "ps_seg_down");
    }
    return st;
}

/* Whether every launch of the segmented sort fits one launch of the
 * runtime (HIP: 2^32 - 1 work-items; with its tiles of 256 keys, windows
 * and medium segments of u8 keys pass that from n = 2^31): checked before
 * the first kernel that moves a key, so a refusal leaves the caller's
 * arrays as they were.  info NULL: the classification's own grid. */
static int seg_launches_fit(const ps_host *host, const ps_gpu_segjob *job,
                            const ps_dev_seg_plan *l, const uint32_t *info,
                            uint32_t ntiles)
{
    size_t g[3], i, ng = 0;
    if (info == NULL) {
        g[ng++] = (job->nseg + l->tile - 1) / l->tile;
    } else {
        if (info[1] != 0)
            g[ng++] = l->nwin;
        g[ng++] = info[2];
        g[ng++] = ntiles;
    }
    for (i = 0; i < ng; i++)
        if (!ps_dev_launch_fits(g[i], PS_GPU_WG, PS_RT_MAX_GROUPS, PS_RT_MAX_ITEMS)) {
            host->fail(PS_GPU_NAME ": sort_segments: %zu keys in %zu segments need "
                       "%zu work-groups of %d in one launch, past what " PS_GPU_UPPER
                       " runs in one (2^32 - 1 work-items on HIP): sort them in "
                       "parts", job->n, job->nseg, g[i], PS_GPU_WG);
            return PS_ERR_TOO_LARGE;
        }
    return PS_OK;
}

int ps_gpu_seg_enqueue(const ps_host *host, const ps_gpu_segjob *job)
{
    unsigned kb = ps_type_bytes(job->type), vb = job->val_bytes;
    const ps_gpu_kernels *k = ps_gpu_kernels_for(kb, vb);
    ps_dev_tune t = ps_gpu_tune(k);
    ps_dev_seg_plan l;
    uint32_t *info, ntiles = 0;
    size_t i, nbatch = 0;
    int st = ps_dev_plan_segments(&l, &t, job->n, kb, vb, host);

    if (st != PS_OK)
        return st;
    info = host->alloc(l.info_words * 4);
    if (info == NULL) {
        host->fail(PS_GPU_NAME ": sort_segments: no host memory for the segment "
                   "classes");
        return PS_ERR_NO_MEMORY;
    }
    st = seg_launches_fit(host, job, &l, NULL, 0);
    if (st == PS_OK)
        st = classify(host, job, k, &l, info);
    if (st == PS_OK) {
        nbatch = ps_dev_seg_batch_first(&l, info + l.lbase, info[3]);
        if (nbatch > 0)
            st = describe_tiles(host, job, &l, info + l.lbase, nbatch, &ntiles);
    }
    if (st == PS_OK)
        st = seg_launches_fit(host, job, &l, info, ntiles);
    if (st == PS_OK)
        st = sort_short(host, job, k, &l, info);
    if (st == PS_OK && nbatch > 0)
        st = sort_large_batched(host, job, k, &l, ntiles);
    for (i = nbatch; st == PS_OK && i < info[3]; i++) {
        size_t a = info[l.lbase + 2 * i];
        ps_gpu_job one;
        memset(&one, 0, sizeof one);
        one.keys = (char *)job->keys + a * kb;
        one.vals = vb ? (char *)job->vals + a * vb : NULL;
        one.val_bytes = vb;
        one.n = info[l.lbase + 2 * i + 1];
        one.type = job->type;
        one.flags = job->flags;
        one.scratch = (char *)job->scratch + l.region[PS_DEV_SEG_SORTS].off;
        one.stream = job->stream;
        one.skip_constant = job->skip_constant;
        st = ps_gpu_enqueue(host, &one);
    }
    host->release(info);
    return st;
}
