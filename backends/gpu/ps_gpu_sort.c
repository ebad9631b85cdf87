/*
 * ps_gpu_sort.c - the sequence of kernels for one sort of device arrays on
 * a stream, shared by the CUDA and HIP modules and by their host-array and
 * device-pointer APIs.  The same sequence as the OpenCL backend, since the
 * kernels are the same:
 *
 * n <= one tile: ps_sort_local, one work-group, in place, no scratch.
 * Otherwise, per pass of PS_GPU_DIGIT_BITS bits: ps_upsweep (per-block digit
 * counts), ps_scan (one work-group turns them into output offsets),
 * ps_downsweep (stable rank in shared memory, coalesced scatter), between
 * the caller's arrays and the alternate arrays in scratch.  Keys are
 * encoded on the first pass that moves them and decoded on the last.  When
 * job->skip_constant is set, ps_hist first counts every digit and the host
 * drops the passes whose digit is the same for every key.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_gpu_internal.h"

#define RADIX (1u << PS_GPU_DIGIT_BITS)
#define ALIGN 256u

/* The twelve instantiations compiled from ps_gpu_kernels.cu. */
#define PS_K(kb, vb) extern const ps_gpu_kernels ps_gpu_kernels_k##kb##_v##vb;
#define PS_KV(kb) PS_K(kb, 0) PS_K(kb, 4) PS_K(kb, 8)
PS_KV(8) PS_KV(16) PS_KV(32) PS_KV(64)
#undef PS_KV
#undef PS_K

const ps_gpu_kernels *ps_gpu_kernels_for(unsigned key_bytes, unsigned val_bytes)
{
    static const ps_gpu_kernels *const table[4][3] = {
        { &ps_gpu_kernels_k8_v0, &ps_gpu_kernels_k8_v4, &ps_gpu_kernels_k8_v8 },
        { &ps_gpu_kernels_k16_v0, &ps_gpu_kernels_k16_v4, &ps_gpu_kernels_k16_v8 },
        { &ps_gpu_kernels_k32_v0, &ps_gpu_kernels_k32_v4, &ps_gpu_kernels_k32_v8 },
        { &ps_gpu_kernels_k64_v0, &ps_gpu_kernels_k64_v4, &ps_gpu_kernels_k64_v8 },
    };
    unsigned k = key_bytes == 1 ? 0 : key_bytes == 2 ? 1 : key_bytes == 4 ? 2 : 3;
    return table[k][val_bytes / 4];
}

int ps_gpu_status(const ps_host *host, ps_rt_err err, const char *what)
{
    host->fail(PS_GPU_NAME ": %s: %s (%s)", what, RT(GetErrorString)(err),
               RT(GetErrorName)(err));
    return PS_RT_OOM(err) ? PS_ERR_DEVICE_MEMORY : PS_ERR_DEVICE;
}

static size_t round_up(size_t x)
{
    return (x + ALIGN - 1) / ALIGN * ALIGN;
}

static size_t tile_of(unsigned kb, unsigned vb)
{
    return (size_t)PS_GPU_WG * PS_GPU_ITEMS(kb, vb);
}

/* Blocks per pass and tiles per block for n keys. */
static void blocks(size_t n, size_t tile, size_t *nb, size_t *tpb)
{
    size_t ntiles = (n + tile - 1) / tile;
    size_t b = ntiles < PS_GPU_MAX_BLOCKS ? ntiles : PS_GPU_MAX_BLOCKS;
    *tpb = (ntiles + b - 1) / b;
    *nb = (ntiles + *tpb - 1) / *tpb;
}

/* Scratch layout: alternate keys, alternate values, per-block counts,
 * digit totals, each 256-byte aligned. */
typedef struct layout {
    size_t keys, vals, counts, totals, bytes;
} layout;

static layout make_layout(size_t n, unsigned kb, unsigned vb)
{
    layout l;
    size_t nb, tpb, passes = (8u * kb + PS_GPU_DIGIT_BITS - 1) / PS_GPU_DIGIT_BITS;
    blocks(n, tile_of(kb, vb), &nb, &tpb);
    l.keys = 0;
    l.vals = round_up(n * kb);
    l.counts = l.vals + round_up(n * vb);
    l.totals = l.counts + round_up(RADIX * nb * 4);
    l.bytes = l.totals + round_up(passes * RADIX * 4);
    return l;
}

size_t ps_gpu_scratch(size_t n, unsigned key_bytes, unsigned val_bytes)
{
    if (n <= tile_of(key_bytes, val_bytes))
        return 0;
    return make_layout(n, key_bytes, val_bytes).bytes;
}

static int launch(const ps_host *host, const void *fn, size_t grid, void **args,
                  ps_rt_stream s, const char *what)
{
    dim3 g = { (unsigned)grid, 1, 1 }, b = { PS_GPU_WG, 1, 1 };
    ps_rt_err e = RT(LaunchKernel)(fn, g, b, args, 0, s);
    return e == RT(Success) ? PS_OK : ps_gpu_status(host, e, what);
}

/* Passes to run, in order, in active[]; returns how many.  With
 * skip_constant, from the digit histograms (waits for the stream). */
static int plan_passes(const ps_host *host, const ps_gpu_job *job,
                       const ps_gpu_kernels *k, const layout *l, size_t tpb,
                       size_t nb, uint64_t flip, uint64_t fneg,
                       unsigned *active, unsigned *nactive)
{
    unsigned kb = k->key_bytes;
    unsigned passes = (8u * kb + PS_GPU_DIGIT_BITS - 1) / PS_GPU_DIGIT_BITS;
    uint32_t totals[16 * RADIX], n32 = (uint32_t)job->n, tpb32 = (uint32_t)tpb;
    unsigned p, d;
    ps_rt_err e;
    int st;

    *nactive = 0;
    if (job->skip_constant) {
        void *keys = job->keys;
        uint64_t zero = 0;
        void *tot = (char *)job->scratch + l->totals;
        void *args[] = { &keys, &zero, &n32, &tpb32, &tot, &zero, &flip, &fneg };
        e = RT(MemsetAsync)(tot, 0, (size_t)passes * RADIX * 4, job->stream);
        if (e != RT(Success))
            return ps_gpu_status(host, e, "memset of the digit totals");
        st = launch(host, k->hist, nb, args, job->stream, "ps_hist");
        if (st != PS_OK)
            return st;
        e = RT(MemcpyAsync)(totals, tot, (size_t)passes * RADIX * 4,
                            RT(MemcpyDeviceToHost), job->stream);
        if (e == RT(Success))
            e = RT(StreamSynchronize)(job->stream);
        if (e != RT(Success))
            return ps_gpu_status(host, e, "ps_hist");
    }
    for (p = 0; p < passes; p++) {
        int constant = 0;
        if (job->skip_constant)
            for (d = 0; d < RADIX; d++)
                if (totals[p * RADIX + d] == n32)
                    constant = 1;
        if (!constant)
            active[(*nactive)++] = p;
    }
    return PS_OK;
}

int ps_gpu_enqueue(const ps_host *host, const ps_gpu_job *job)
{
    unsigned kb = ps_type_bytes(job->type), vb = job->val_bytes;
    const ps_gpu_kernels *k = ps_gpu_kernels_for(kb, vb);
    ps_xf xf = ps_xf_make(job->type, job->flags);
    uint64_t flip = xf.flip, fneg = xf.fneg, zero = 0;
    uint32_t n32 = (uint32_t)job->n, tpb32, shift, enc_in, dec_out, len;
    size_t tile = tile_of(kb, vb), nb, tpb;
    unsigned active[16], nactive, q;
    void *counts;
    layout l;
    int st;

    if (job->n <= tile) {
        void *keys = job->keys, *vals = job->vals;
        void *kargs[] = { &keys, &zero, &n32, &flip, &fneg };
        void *pargs[] = { &keys, &zero, &vals, &zero, &n32, &flip, &fneg };
        return launch(host, k->local, 1, vb ? pargs : kargs, job->stream,
                      "ps_sort_local");
    }
    blocks(job->n, tile, &nb, &tpb);
    l = make_layout(job->n, kb, vb);
    st = plan_passes(host, job, k, &l, tpb, nb, flip, fneg, active, &nactive);
    if (st != PS_OK)
        return st;
    host->log(PS_GPU_NAME ": n=%zu, %u passes, %zu blocks of %zu tiles of %zu",
              job->n, nactive, nb, tpb, tile);

    tpb32 = (uint32_t)tpb;
    len = RADIX * (uint32_t)nb;
    counts = (char *)job->scratch + l.counts;
    for (q = 0; q < nactive; q++) {
        /* Even steps read the caller's arrays, odd ones the scratch copy. */
        int from_user = q % 2 == 0;
        void *ks = (char *)job->scratch + l.keys, *vs = (char *)job->scratch + l.vals;
        void *kin = from_user ? job->keys : ks, *kout = from_user ? ks : job->keys;
        void *vin = from_user ? job->vals : vs, *vout = from_user ? vs : job->vals;
        void *up[] = { &kin, &zero, &n32, &tpb32, &shift, &counts, &zero, &flip,
                       &fneg, &enc_in };
        void *sc[] = { &counts, &zero, &len };
        void *dk[] = { &kin, &zero, &kout, &zero, &n32, &tpb32, &shift, &counts,
                       &zero, &flip, &fneg, &enc_in, &dec_out };
        void *dp[] = { &kin, &zero, &kout, &zero, &vin, &zero, &vout, &zero,
                       &n32, &tpb32, &shift, &counts, &zero, &flip, &fneg,
                       &enc_in, &dec_out };
        shift = active[q] * PS_GPU_DIGIT_BITS;
        enc_in = q == 0;
        dec_out = q == nactive - 1;
        st = launch(host, k->upsweep, nb, up, job->stream, "ps_upsweep");
        if (st == PS_OK)
            st = launch(host, k->scan, 1, sc, job->stream, "ps_scan");
        if (st == PS_OK)
            st = launch(host, k->downsweep, nb, vb ? dp : dk, job->stream,
                        "ps_downsweep");
        if (st != PS_OK)
            return st;
    }
    /* An odd number of passes left the result in scratch.  (Every pass
     * skipped: nothing moved and the keys are already in order.) */
    if (nactive % 2 == 1) {
        ps_rt_err e = RT(MemcpyAsync)(job->keys, (char *)job->scratch + l.keys,
                                      job->n * kb, RT(MemcpyDeviceToDevice),
                                      job->stream);
        if (e == RT(Success) && vb)
            e = RT(MemcpyAsync)(job->vals, (char *)job->scratch + l.vals,
                                job->n * vb, RT(MemcpyDeviceToDevice), job->stream);
        if (e != RT(Success))
            return ps_gpu_status(host, e, "copy back from scratch");
    }
    return PS_OK;
}
