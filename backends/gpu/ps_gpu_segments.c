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
    uint32_t dbase, tcap, cbase;    /* large tiles' descriptors and counts */
} seg_layout;

#define RADIX (1u << PS_GPU_DIGIT_BITS)
_Static_assert((8 / PS_GPU_DIGIT_BITS) % 2 == 0 && 8 % PS_GPU_DIGIT_BITS == 0,
               "every key width takes an even number of passes: the batched "
               "large segments end in the caller's arrays");

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
    /* Large segments cut into tiles: at most one partial tile each. */
    l.tcap = l.nwin + l.lcap;
    l.dbase = l.wbase + l.nwin + 1;
    l.cbase = l.dbase + 5 * l.tcap;
    l.bytes = l.info + round_up(((size_t)l.cbase + (size_t)RADIX * l.tcap) * 4);
    return l;
}

size_t ps_gpu_seg_scratch(size_t n, unsigned key_bytes, unsigned val_bytes)
{
    if (n < 2)
        return 0;
    return make_layout(n, ps_gpu_kernels_for(key_bytes, val_bytes)).bytes;
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
    st = ps_gpu_launch(host, k->seg_classify, (nseg + tile - 1) / tile, args, job->stream,
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
 * large list (nl of them): their tiles' descriptors (see ps_seg_up in the
 * kernels) written to the scratch, and how many tiles in *ntiles.  The
 * copy is waited for: its source is freed on return, and the stream has
 * nothing else to do yet. */
static int describe_tiles(const ps_host *host, const ps_gpu_segjob *job,
                          const ps_gpu_kernels *k, const seg_layout *l,
                          const uint32_t *list, size_t nl, uint32_t *ntiles)
{
    uint32_t tile = PS_GPU_WG * k->items, done = 0, nt = 0, *desc;
    size_t i;
    ps_rt_err e;

    for (i = 0; i < nl; i++)
        nt += (list[2 * i + 1] + tile - 1) / tile;
    desc = host->alloc((size_t)nt * 5 * sizeof *desc);
    if (desc == NULL) {
        host->fail(PS_GPU_NAME ": sort_segments: no host memory for %u tiles", nt);
        return PS_ERR_NO_MEMORY;
    }
    for (i = 0, nt = 0; i < nl; i++) {
        uint32_t a = list[2 * i], m = list[2 * i + 1], segt = (m + tile - 1) / tile, j;
        for (j = 0; j < segt; j++, nt++) {
            uint32_t *d = desc + 5 * (size_t)nt;
            d[0] = a + j * tile;                        /* first key */
            d[1] = m - j * tile < tile ? m - j * tile : tile;
            d[2] = (nt - j) * RADIX + j;                /* digit 0's count */
            d[3] = segt;                                /* digit stride */
            d[4] = a - done;                            /* mod 2^32 */
        }
        done += m;
    }
    e = RT(MemcpyAsync)((char *)job->scratch + l->info + (size_t)l->dbase * 4, desc,
                        (size_t)nt * 5 * sizeof *desc, RT(MemcpyHostToDevice),
                        job->stream);
    if (e == RT(Success))
        e = RT(StreamSynchronize)(job->stream);
    host->release(desc);
    *ntiles = nt;
    return e == RT(Success) ? PS_OK : ps_gpu_status(host, e, "tile descriptors");
}

/* Per pass, ps_seg_up, ps_scan and ps_seg_down over every tile of the
 * batched large segments, between the caller's arrays and the scratch
 * copy (an even number of passes: the result ends at home). */
static int sort_large_batched(const ps_host *host, const ps_gpu_segjob *job,
                              const ps_gpu_kernels *k, const seg_layout *l,
                              uint32_t ntiles)
{
    unsigned kb = k->key_bytes, vb = k->val_bytes, q;
    unsigned passes = (8 * kb + PS_GPU_DIGIT_BITS - 1) / PS_GPU_DIGIT_BITS;
    ps_xf xf = ps_xf_make(job->type, job->flags);
    uint64_t flip = xf.flip, fneg = xf.fneg, zero = 0;
    uint64_t doff = l->info / 4 + l->dbase, coff = l->info / 4 + l->cbase;
    uint32_t shift, enc_in, dec_out, len = RADIX * ntiles;
    void *scratch = job->scratch;
    void *kalt = scratch, *valt = (char *)scratch + round_up(job->n * kb);
    int st = PS_OK;

    host->log(PS_GPU_NAME ": segments, large ones batched: %u tiles, %u passes",
              ntiles, passes);
    for (q = 0; q < passes && st == PS_OK; q++) {
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
        shift = q * PS_GPU_DIGIT_BITS;
        enc_in = q == 0;
        dec_out = q + 1 == passes;
        st = ps_gpu_launch(host, k->seg_up, ntiles, up, job->stream, "ps_seg_up");
        if (st == PS_OK)
            st = ps_gpu_launch(host, k->scan, 1, sc, job->stream, "ps_scan");
        if (st == PS_OK)
            st = ps_gpu_launch(host, k->seg_down, ntiles, vb ? dp : dk, job->stream,
                               "ps_seg_down");
    }
    return st;
}

/* Puts the large segments shorter than PS_GPU_SEG_HUGE first in the list
 * ((start, length) pairs) and returns how many there are. */
static size_t batch_first(uint32_t *list, size_t nl)
{
    size_t lo = 0, hi = nl;
    while (lo < hi) {
        if (list[2 * lo + 1] < PS_GPU_SEG_HUGE) {
            lo++;
        } else {
            uint32_t a = list[2 * lo], m = list[2 * lo + 1];
            hi--;
            list[2 * lo] = list[2 * hi];
            list[2 * lo + 1] = list[2 * hi + 1];
            list[2 * hi] = a;
            list[2 * hi + 1] = m;
        }
    }
    return lo;
}

int ps_gpu_seg_enqueue(const ps_host *host, const ps_gpu_segjob *job)
{
    unsigned kb = ps_type_bytes(job->type), vb = job->val_bytes;
    const ps_gpu_kernels *k = ps_gpu_kernels_for(kb, vb);
    seg_layout l = make_layout(job->n, k);
    uint32_t *info = host->alloc(((size_t)l.lbase + 2 * l.lcap) * 4), ntiles = 0;
    size_t i, nbatch = 0;
    int st;

    if (info == NULL) {
        host->fail(PS_GPU_NAME ": sort_segments: no host memory for the segment "
                   "classes");
        return PS_ERR_NO_MEMORY;
    }
    st = classify(host, job, k, &l, info);
    if (st == PS_OK) {
        nbatch = batch_first(info + l.lbase, info[3]);
        if (nbatch > 0)
            st = describe_tiles(host, job, k, &l, info + l.lbase, nbatch, &ntiles);
    }
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
        one.scratch = job->scratch;
        one.stream = job->stream;
        one.skip_constant = job->skip_constant;
        st = ps_gpu_enqueue(host, &one);
    }
    host->release(info);
    return st;
}
