/*
 * ps_gpu_sort.c - the sequence of kernels for one sort of device arrays on
 * a stream, shared by the CUDA and HIP modules and by their host-array and
 * device-pointer APIs.
 *
 * n <= one tile: ps_sort_local, one work-group, in place, no scratch.
 *
 * Onesweep (ps_kernel_onesweep.cl; the default): ps_os_hist counts
 * every 8-bit digit at once, ps_os_scan turns the counts into each digit's
 * first output position, then per digit and per portion of at most
 * PS_GPU_OS_PORTION_TILES tiles one ps_onesweep over a status array zeroed
 * before it, one work-group per tile.  A portion's last tile leaves where
 * the next portion's digits start, so sorts of any size stay on Onesweep
 * (the status words' counts are 30-bit, a portion's length too).  Its
 * look-back needs no forward progress between work-groups (a work-group
 * that waits too long counts the silent predecessor's keys itself), so
 * it is safe on HIP, which promises none, as on CUDA.
 *
 * Reduce-then-scan (the portable path): per pass of
 * PS_GPU_DIGIT_BITS bits, ps_upsweep (per-block digit counts), ps_scan (one
 * work-group turns them into output offsets), ps_downsweep (stable rank in
 * shared memory, coalesced scatter).
 *
 * Both ping-pong between the caller's arrays and the alternate arrays in
 * scratch, encode keys on the first pass that moves them and decode them
 * on the last.  When job->skip_constant is set, the digit histograms are
 * read back first and the passes whose digit is the same for every key
 * are dropped.  PORTSORT_GPU_ALGO=onesweep|portable forces either path.
 *
 * The tiles, blocks, passes, portions and scratch regions come from the
 * device plan (backends/device/ps_device_plan.h), which the OpenCL host
 * shares: this file only launches.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>

#include "ps_gpu_internal.h"

_Static_assert((unsigned long long)PS_GPU_OS_PORTION_TILES * PS_GPU_WG
               * PS_GPU_OS_ITEMS(1, 0) < (1ull << 30)
               && (unsigned long long)PS_GPU_OS_PORTION_TILES * PS_GPU_WG
               * PS_GPU_OS_ITEMS(8, 8) < (1ull << 30),
               "a portion's counts fit Onesweep's 30-bit status words "
               "(the plan would clamp it)");

/* Onesweep by default on CUDA and HIP (as rocPRIM does on AMD GPUs): its
 * look-back falls back to counting a silent predecessor's keys, so it
 * ends without the forward progress HIP does not promise.
 * PORTSORT_GPU_ALGO=portable selects reduce-then-scan. */
#define PS_GPU_ONESWEEP_DEFAULT 1

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

int ps_gpu_algo_env(int *onesweep, char *why, size_t why_len)
{
    static const char *const algos[] = { "portable", "onesweep", NULL };
    return ps_env_word("PORTSORT_GPU_ALGO", algos, "onesweep or portable; unset "
                       "or empty: onesweep", onesweep, why, why_len);
}

/* A malformed PORTSORT_GPU_ALGO was refused at the choice of backend
 * (check_env); one set later counts as unset. */
ps_dev_tune ps_gpu_tune(const ps_gpu_kernels *k)
{
    char why[160];
    int onesweep = PS_GPU_ONESWEEP_DEFAULT;
    ps_dev_tune t;
    ps_gpu_algo_env(&onesweep, why, sizeof why);
    t.wg = PS_GPU_WG;
    t.items = k->items;
    t.bits = PS_GPU_DIGIT_BITS;
    t.max_blocks = PS_GPU_MAX_BLOCKS;
    t.onesweep = onesweep;
    t.os_items = k->os_items;
    t.os_portion = PS_GPU_OS_PORTION_TILES;
#ifdef PS_GPU_FAKE
    {
        /* The stand-in is built with tiny portions for the tests; the
         * traffic count (bench/ps_gpu_traffic.sh) asks for the real ones. */
        const char *e = ps_getenv("PS_FAKE_OS_PORTION_TILES");
        if (e != NULL && atoi(e) > 0)
            t.os_portion = (size_t)atoi(e);
    }
#endif
    t.seg_small = k->seg_small;
    t.seg_huge = PS_GPU_SEG_HUGE;
    t.who = PS_GPU_NAME;
    t.tile_knob = "build with a larger PS_GPU_ITEMS (backends/gpu/ps_gpu_tune.h)";
    return t;
}

int ps_gpu_scratch(const ps_host *host, size_t n, unsigned key_bytes,
                   unsigned val_bytes, int segments, size_t *bytes)
{
    ps_dev_tune t = ps_gpu_tune(ps_gpu_kernels_for(key_bytes, val_bytes));
    return ps_dev_scratch_bytes(&t, n, key_bytes, val_bytes, segments, bytes, host);
}

static int launch(const ps_host *host, const void *fn, size_t grid, void **args,
                  ps_rt_stream s, const char *what)
{
    dim3 g = { (unsigned)grid, 1, 1 }, b = { PS_GPU_WG, 1, 1 };
    ps_rt_err e;
    /* A grid past the runtime's limits would be cut short (the cast above)
     * or refused by the runtime in the middle of a sort: callers check
     * their grids before any key moves (ps_gpu_seg_enqueue); this is the
     * backstop. */
    if (!ps_dev_launch_fits(grid, PS_GPU_WG, PS_RT_MAX_GROUPS, PS_RT_MAX_ITEMS)) {
        host->fail(PS_GPU_NAME ": %s: %zu work-groups of %d work-items are past "
                   "what one " PS_GPU_UPPER " launch takes: sort fewer keys a call",
                   what, grid, PS_GPU_WG);
        return PS_ERR_TOO_LARGE;
    }
    e = RT(LaunchKernel)(fn, g, b, args, 0, s);
    return e == RT(Success) ? PS_OK : ps_gpu_status(host, e, what);
}

int ps_gpu_launch(const ps_host *host, const void *fn, size_t grid, void **args,
                  ps_rt_stream s, const char *what)
{
    return launch(host, fn, grid, args, s, what);
}

/* The first steps of either path, and the passes to run in active[]:
 * every pass's digit counts (ps_hist, reduce-then-scan) or first positions
 * (ps_os_hist and ps_os_scan, Onesweep, which needs them to run) in the
 * scratch.  With skip_constant they are read back, waiting for the
 * stream, and the passes whose digit is the same for every key dropped;
 * without, reduce-then-scan needs no histogram and every pass runs. */
static int digit_passes(const ps_host *host, const ps_gpu_job *job,
                        const ps_gpu_kernels *k, const ps_dev_sort_plan *pl,
                        uint64_t flip, uint64_t fneg, unsigned *active,
                        unsigned *nactive)
{
    const ps_dev_region *r = &pl->region[pl->onesweep ? PS_DEV_BINS : PS_DEV_TOTALS];
    uint32_t words[PS_DEV_MAX_DIGIT_WORDS], n32 = (uint32_t)job->n;
    uint32_t tpb32 = (uint32_t)pl->tiles_per_block;
    uint64_t zero = 0, off = r->off / 4;
    void *keys = job->keys, *scratch = job->scratch;
    void *os_args[] = { &keys, &zero, &n32, &scratch, &off, &flip, &fneg };
    void *rts_args[] = { &keys, &zero, &n32, &tpb32, &scratch, &off, &flip, &fneg };
    void *scan_args[] = { &scratch, &off };
    ps_rt_err e;
    int st;

    *nactive = ps_dev_plan_passes(pl, NULL, active);
    if (!pl->onesweep && !job->skip_constant)
        return PS_OK;
    e = RT(MemsetAsync)((char *)scratch + r->off, 0, r->bytes, job->stream);
    if (e != RT(Success))
        return ps_gpu_status(host, e, "memset of the digit counts");
    st = pl->onesweep ? launch(host, k->os_hist, pl->blocks, os_args, job->stream,
                               "ps_os_hist")
                      : launch(host, k->hist, pl->blocks, rts_args, job->stream,
                               "ps_hist");
    if (st == PS_OK && pl->onesweep)
        st = launch(host, k->os_scan, 1, scan_args, job->stream, "ps_os_scan");
    if (st != PS_OK || !job->skip_constant)
        return st;
    e = RT(MemcpyAsync)(words, (char *)scratch + r->off, r->bytes,
                        RT(MemcpyDeviceToHost), job->stream);
    if (e == RT(Success))
        e = RT(StreamSynchronize)(job->stream);
    if (e != RT(Success))
        return ps_gpu_status(host, e, "reading the digit counts");
    *nactive = ps_dev_plan_passes(pl, words, active);
    return PS_OK;
}

/* The arrays the q-th data-moving pass reads and writes: even steps read
 * the caller's arrays, odd ones the scratch copy. */
typedef struct pass_io {
    void *kin, *kout, *vin, *vout;
} pass_io;

static pass_io pass_arrays(const ps_gpu_job *job, const ps_dev_sort_plan *pl,
                           unsigned q)
{
    pass_io io;
    void *ks = (char *)job->scratch + pl->region[PS_DEV_KEYS].off;
    void *vs = (char *)job->scratch + pl->region[PS_DEV_VALS].off;
    int from_user = q % 2 == 0;
    io.kin = from_user ? job->keys : ks;
    io.kout = from_user ? ks : job->keys;
    io.vin = from_user ? job->vals : vs;
    io.vout = from_user ? vs : job->vals;
    return io;
}

/* An odd number of passes left the result in scratch.  (Every pass
 * skipped: nothing moved and the keys are already in order.) */
static int copy_home(const ps_host *host, const ps_gpu_job *job,
                     const ps_dev_sort_plan *pl, unsigned nactive)
{
    unsigned kb = pl->key_bytes, vb = pl->val_bytes;
    ps_rt_err e;
    if (nactive % 2 == 0)
        return PS_OK;
    e = RT(MemcpyAsync)(job->keys, (char *)job->scratch + pl->region[PS_DEV_KEYS].off,
                        job->n * kb, RT(MemcpyDeviceToDevice), job->stream);
    if (e == RT(Success) && vb)
        e = RT(MemcpyAsync)(job->vals,
                            (char *)job->scratch + pl->region[PS_DEV_VALS].off,
                            job->n * vb, RT(MemcpyDeviceToDevice), job->stream);
    return e == RT(Success) ? PS_OK : ps_gpu_status(host, e, "copy back from scratch");
}

/* Per pass, ps_upsweep, ps_scan, ps_downsweep. */
static int enqueue_portable(const ps_host *host, const ps_gpu_job *job,
                            const ps_gpu_kernels *k, const ps_dev_sort_plan *pl,
                            uint64_t flip, uint64_t fneg, const unsigned *active,
                            unsigned nactive)
{
    uint64_t zero = 0;
    uint32_t n32 = (uint32_t)job->n, tpb32 = (uint32_t)pl->tiles_per_block;
    uint32_t shift, enc_in, dec_out, len = pl->radix * (uint32_t)pl->blocks;
    void *counts = (char *)job->scratch + pl->region[PS_DEV_COUNTS].off;
    unsigned q;
    int st = PS_OK;

    host->log(PS_GPU_NAME ": reduce-then-scan, n=%zu, %u passes, %zu blocks of "
              "%zu tiles of %zu", job->n, nactive, pl->blocks, pl->tiles_per_block,
              pl->tile);
    for (q = 0; q < nactive && st == PS_OK; q++) {
        pass_io io = pass_arrays(job, pl, q);
        void *up[] = { &io.kin, &zero, &n32, &tpb32, &shift, &counts, &zero, &flip,
                       &fneg, &enc_in };
        void *sc[] = { &counts, &zero, &len };
        void *dk[] = { &io.kin, &zero, &io.kout, &zero, &n32, &tpb32, &shift,
                       &counts, &zero, &flip, &fneg, &enc_in, &dec_out };
        void *dp[] = { &io.kin, &zero, &io.kout, &zero, &io.vin, &zero, &io.vout,
                       &zero, &n32, &tpb32, &shift, &counts, &zero, &flip, &fneg,
                       &enc_in, &dec_out };
        shift = active[q] * pl->digit_bits;
        enc_in = q == 0;
        dec_out = q == nactive - 1;
        st = launch(host, k->upsweep, pl->blocks, up, job->stream, "ps_upsweep");
        if (st == PS_OK)
            st = launch(host, k->scan, 1, sc, job->stream, "ps_scan");
        if (st == PS_OK)
            st = launch(host, k->downsweep, pl->blocks, pl->val_bytes ? dp : dk,
                        job->stream, "ps_downsweep");
    }
    return st;
}

/* Per pass, one ps_onesweep per portion over zeroed status words. */
static int enqueue_onesweep(const ps_host *host, const ps_gpu_job *job,
                            const ps_gpu_kernels *k, const ps_dev_sort_plan *pl,
                            uint64_t flip, uint64_t fneg, const unsigned *active,
                            unsigned nactive)
{
    const ps_dev_region *status = &pl->region[PS_DEV_STATUS];
    uint64_t zero = 0, boff, bnoff, soff = status->off / 4;
    uint32_t pn, shift, enc_in, dec_out;
    void *scratch = job->scratch;
    unsigned q;

    host->log(PS_GPU_NAME ": onesweep, n=%zu, %u passes, %zu tiles of %zu, "
              "portions of %zu tiles", job->n, nactive, pl->ntiles, pl->tile,
              pl->portion_tiles);
    for (q = 0; q < nactive; q++) {
        pass_io io = pass_arrays(job, pl, q);
        uint64_t off;
        size_t i;
        void *ak[] = { &io.kin, &off, &io.kout, &zero, &pn, &shift, &scratch, &boff,
                       &scratch, &soff, &scratch, &bnoff, &flip, &fneg, &enc_in,
                       &dec_out };
        void *ap[] = { &io.kin, &off, &io.kout, &zero, &io.vin, &off, &io.vout,
                       &zero, &pn, &shift, &scratch, &boff, &scratch, &soff,
                       &scratch, &bnoff, &flip, &fneg, &enc_in, &dec_out };
        shift = active[q] * 8u;
        enc_in = q == 0;
        dec_out = q == nactive - 1;
        for (i = 0; i < pl->portions; i++) {
            ps_dev_portion pt = ps_dev_plan_portion(pl, active[q], i);
            ps_rt_err e;
            int st;
            off = pt.first;
            pn = (uint32_t)pt.len;
            boff = pt.bins_word;
            bnoff = pt.bnext_word;
            /* The tile counter and every status word start at zero. */
            e = RT(MemsetAsync)((char *)scratch + status->off, 0, status->bytes,
                                job->stream);
            if (e != RT(Success))
                return ps_gpu_status(host, e, "memset of the status words");
            st = launch(host, k->onesweep, pt.groups, pl->val_bytes ? ap : ak,
                        job->stream, "ps_onesweep");
            if (st != PS_OK)
                return st;
        }
    }
    return PS_OK;
}

int ps_gpu_enqueue(const ps_host *host, const ps_gpu_job *job)
{
    unsigned kb = ps_type_bytes(job->type), vb = job->val_bytes;
    unsigned active[PS_DEV_MAX_PASSES], nactive = 0;
    const ps_gpu_kernels *k = ps_gpu_kernels_for(kb, vb);
    ps_dev_tune t = ps_gpu_tune(k);
    ps_xf xf = ps_xf_make(job->type, job->flags);
    uint64_t flip = xf.flip, fneg = xf.fneg, zero = 0;
    uint32_t n32 = (uint32_t)job->n;
    ps_dev_sort_plan pl;
    int st = ps_dev_plan_sort(&pl, &t, job->n, kb, vb, host);

    if (st != PS_OK)
        return st;
    if (pl.local) {
        void *keys = job->keys, *vals = job->vals;
        void *kargs[] = { &keys, &zero, &n32, &flip, &fneg };
        void *pargs[] = { &keys, &zero, &vals, &zero, &n32, &flip, &fneg };
        return launch(host, k->local, 1, vb ? pargs : kargs, job->stream,
                      "ps_sort_local");
    }
    st = digit_passes(host, job, k, &pl, flip, fneg, active, &nactive);
    if (st == PS_OK && pl.onesweep)
        st = enqueue_onesweep(host, job, k, &pl, flip, fneg, active, nactive);
    else if (st == PS_OK)
        st = enqueue_portable(host, job, k, &pl, flip, fneg, active, nactive);
    return st == PS_OK ? copy_home(host, job, &pl, nactive) : st;
}
