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
 *  4. Each large segment through the plain device sort (ps_gpu_enqueue),
 *     on the same scratch.
 * The classes' segments are disjoint, so the steps only need the stream's
 * order.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_gpu_internal.h"

#define ALIGN 256u

static size_t round_up(size_t x)
{
    return (x + ALIGN - 1) / ALIGN * ALIGN;
}

/* The large segments' sort scratch first (ps_gpu_enqueue uses a buffer
 * from its start), then the classification's words (ps_seg_classify). */
typedef struct seg_layout {
    size_t sort_bytes, info, bytes;
    uint32_t lbase, lcap, mbase, mcap, wbase, nwin;
} seg_layout;

static seg_layout make_layout(size_t n, const ps_gpu_kernels *k)
{
    size_t tile = (size_t)PS_GPU_WG * k->items;
    seg_layout l;
    memset(&l, 0, sizeof l);
    /* A plain sort's scratch does not grow strictly with n (fewer blocks
     * of more tiles): the slack covers the counts of the most blocks. */
    l.sort_bytes = ps_gpu_scratch(n, k->key_bytes, k->val_bytes);
    if (l.sort_bytes > 0)
        l.sort_bytes += round_up((size_t)4 * (1u << PS_GPU_DIGIT_BITS)
                                 * PS_GPU_MAX_BLOCKS);
    l.info = round_up(l.sort_bytes);
    l.lcap = (uint32_t)(n / (tile + 1) + 1);
    l.mcap = (uint32_t)(n / (k->seg_small + 1) + 1);
    l.nwin = (uint32_t)((n + tile - 1) / tile);
    l.lbase = 4;
    l.mbase = l.lbase + 2 * l.lcap;
    l.wbase = l.mbase + 2 * l.mcap;
    l.bytes = l.info + round_up(((size_t)l.wbase + l.nwin + 1) * 4);
    return l;
}

size_t ps_gpu_seg_scratch(size_t n, unsigned key_bytes, unsigned val_bytes)
{
    if (n < 2)
        return 0;
    return make_layout(n, ps_gpu_kernels_for(key_bytes, val_bytes)).bytes;
}

static int launch(const ps_host *host, const void *fn, size_t grid, void **args,
                  ps_rt_stream s, const char *what)
{
    dim3 g = { (unsigned)grid, 1, 1 }, b = { PS_GPU_WG, 1, 1 };
    ps_rt_err e = RT(LaunchKernel)(fn, g, b, args, 0, s);
    return e == RT(Success) ? PS_OK : ps_gpu_status(host, e, what);
}

/* Step 1: the counts and the large list in info (host memory). */
static int classify(const ps_host *host, const ps_gpu_segjob *job,
                    const ps_gpu_kernels *k, const seg_layout *l, uint32_t *info)
{
    size_t tile = (size_t)PS_GPU_WG * k->items;
    uint32_t n32 = (uint32_t)job->n, nseg = (uint32_t)job->nseg;
    uint64_t zero = 0;
    const void *offs = job->offs;
    void *dinfo = (char *)job->scratch + l->info;
    void *args[] = { &offs, &zero, &nseg, &n32, &dinfo, &zero, (void *)&l->lbase,
                     (void *)&l->lcap, (void *)&l->mbase, (void *)&l->mcap,
                     (void *)&l->wbase, (void *)&l->nwin };
    ps_rt_err e = RT(MemsetAsync)(dinfo, 0, 16, job->stream);
    int st;

    if (e != RT(Success))
        return ps_gpu_status(host, e, "memset of the segment counts");
    st = launch(host, k->seg_classify, (nseg + tile - 1) / tile, args, job->stream,
                "ps_seg_classify");
    if (st != PS_OK)
        return st;
    e = RT(MemcpyAsync)(info, dinfo, ((size_t)l->lbase + 2 * l->lcap) * 4,
                        RT(MemcpyDeviceToHost), job->stream);
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
    host->log(PS_GPU_NAME ": segments, n=%u, %u segments: %u small (up to %u "
              "keys), %u medium (up to %zu), %u large", n32, nseg, info[1],
              k->seg_small, info[2], tile, info[3]);
    return PS_OK;
}

/* Steps 2 and 3. */
static int sort_short(const ps_host *host, const ps_gpu_segjob *job,
                      const ps_gpu_kernels *k, const seg_layout *l,
                      const uint32_t *info)
{
    ps_xf xf = ps_xf_make(job->type, job->flags);
    uint64_t flip = xf.flip, fneg = xf.fneg, zero = 0;
    uint64_t woff = l->info / 4 + l->wbase, moff = l->info / 4 + l->mbase;
    void *keys = job->keys, *vals = job->vals, *scratch = job->scratch;
    const void *offs = job->offs;
    int st = PS_OK;

    if (info[1] != 0) {
        void *ak[] = { &keys, &zero, &offs, &zero, &scratch, &woff, &flip, &fneg };
        void *ap[] = { &keys, &zero, &vals, &zero, &offs, &zero, &scratch, &woff,
                       &flip, &fneg };
        st = launch(host, k->seg_small_sort, l->nwin, job->val_bytes ? ap : ak,
                    job->stream, "ps_seg_small");
    }
    if (st == PS_OK && info[2] != 0) {
        void *ak[] = { &keys, &zero, &scratch, &moff, &flip, &fneg };
        void *ap[] = { &keys, &zero, &vals, &zero, &scratch, &moff, &flip, &fneg };
        st = launch(host, k->seg_medium, info[2], job->val_bytes ? ap : ak,
                    job->stream, "ps_seg_medium");
    }
    return st;
}

int ps_gpu_seg_enqueue(const ps_host *host, const ps_gpu_segjob *job)
{
    unsigned kb = ps_type_bytes(job->type), vb = job->val_bytes;
    const ps_gpu_kernels *k = ps_gpu_kernels_for(kb, vb);
    seg_layout l = make_layout(job->n, k);
    uint32_t *info = host->alloc(((size_t)l.lbase + 2 * l.lcap) * 4);
    size_t i;
    int st;

    if (info == NULL) {
        host->fail(PS_GPU_NAME ": sort_segments: no host memory for the segment "
                   "classes");
        return PS_ERR_NO_MEMORY;
    }
    st = classify(host, job, k, &l, info);
    if (st == PS_OK)
        st = sort_short(host, job, k, &l, info);
    for (i = 0; st == PS_OK && i < info[3]; i++) {
        size_t a = info[l.lbase + 2 * i];
        ps_gpu_job one;
        memset(&one, 0, sizeof one);
        one.keys = (char *)job->keys + a * kb;
        one.vals = vb ? (char *)job->vals + a * vb : NULL;
        one.val_bytes = vb;
        one.n = info[l.lbase + 2 * i + 1];
        one.type = job->type;
        one.flags = job->flags;
        one.scratch = job->scratch;
        one.stream = job->stream;
        one.skip_constant = job->skip_constant;
        st = ps_gpu_enqueue(host, &one);
    }
    host->release(info);
    return st;
}
