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
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ps_gpu_internal.h"

#define RADIX (1u << PS_GPU_DIGIT_BITS)
#define OS_RADIX 256u
/* The pass loops keep per-pass tables on the stack (plan_passes' totals,
 * the active lists): sized for 64-bit keys, the widest. */
#define MAX_PASSES 16u
_Static_assert((64 + PS_GPU_DIGIT_BITS - 1) / PS_GPU_DIGIT_BITS <= MAX_PASSES,
               "reduce-then-scan passes of a 64-bit key fit the pass tables");
_Static_assert(8 <= MAX_PASSES, "Onesweep passes of a 64-bit key fit the pass tables");
_Static_assert((unsigned long long)PS_GPU_OS_PORTION_TILES * PS_GPU_WG
               * PS_GPU_OS_ITEMS(1, 0) < (1ull << 30)
               && (unsigned long long)PS_GPU_OS_PORTION_TILES * PS_GPU_WG
               * PS_GPU_OS_ITEMS(8, 8) < (1ull << 30),
               "a portion's counts fit Onesweep's 30-bit status words");
#define ALIGN 256u

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

static size_t os_tile_of(const ps_gpu_kernels *k)
{
    return (size_t)PS_GPU_WG * k->os_items;
}

int ps_gpu_algo_env(int *onesweep, char *why, size_t why_len)
{
    static const char *const algos[] = { "portable", "onesweep", NULL };
    return ps_env_word("PORTSORT_GPU_ALGO", algos, "onesweep or portable; unset "
                       "or empty: onesweep", onesweep, why, why_len);
}

/* Whether a sort of n keys (more than one tile) takes the Onesweep path.
 * A malformed PORTSORT_GPU_ALGO was refused at the choice of backend
 * (check_env); one set later counts as unset. */
static int use_onesweep(size_t n)
{
    char why[160];
    int want = PS_GPU_ONESWEEP_DEFAULT;
    ps_gpu_algo_env(&want, why, sizeof why);
    (void)n;
    return want;
}

/* Scratch layout: alternate keys, alternate values, then per path: the
 * per-block counts and digit totals (reduce-then-scan), or the digit
 * positions, two rows of next-portion positions and the status words of
 * one portion (Onesweep); each 256-byte aligned. */
typedef struct layout {
    size_t keys, vals, counts, totals, bins, bnext, status, status_bytes, bytes;
} layout;

/* Tiles in one Onesweep portion of a sort of ntiles tiles. */
static size_t os_portion_tiles(size_t ntiles)
{
    size_t most = PS_GPU_OS_PORTION_TILES;
#ifdef PS_GPU_FAKE
    /* The stand-in is built with tiny portions for the tests; the traffic
     * count (bench/ps_gpu_traffic.sh) asks for the real ones. */
    const char *e = ps_getenv("PS_FAKE_OS_PORTION_TILES");
    if (e != NULL && atoi(e) > 0)
        most = (size_t)atoi(e);
#endif
    return ntiles < most ? ntiles : most;
}

static layout make_layout(size_t n, const ps_gpu_kernels *k, int onesweep)
{
    layout l;
    unsigned kb = k->key_bytes, vb = k->val_bytes;
    size_t nb, tpb, passes = (8u * kb + PS_GPU_DIGIT_BITS - 1) / PS_GPU_DIGIT_BITS;
    size_t ntiles = (n + os_tile_of(k) - 1) / os_tile_of(k);
    memset(&l, 0, sizeof l);
    l.vals = round_up(n * kb);
    l.counts = l.vals + round_up(n * vb);
    if (onesweep) {
        /* The tile counter, then 256 words per tile of a portion. */
        l.bins = l.counts;
        l.bnext = l.bins + round_up((size_t)kb * OS_RADIX * 4);
        l.status = l.bnext + round_up(2 * OS_RADIX * 4);
        l.status_bytes = (1 + os_portion_tiles(ntiles)) * OS_RADIX * 4;
        l.bytes = l.status + round_up(l.status_bytes);
        return l;
    }
    blocks(n, tile_of(kb, vb), &nb, &tpb);
    l.totals = l.counts + round_up(RADIX * nb * 4);
    l.bytes = l.totals + round_up(passes * RADIX * 4);
    return l;
}

size_t ps_gpu_scratch(size_t n, unsigned key_bytes, unsigned val_bytes)
{
    if (n <= tile_of(key_bytes, val_bytes))
        return 0;
    return make_layout(n, ps_gpu_kernels_for(key_bytes, val_bytes),
                       use_onesweep(n)).bytes;
}

static int launch(const ps_host *host, const void *fn, size_t grid, void **args,
                  ps_rt_stream s, const char *what)
{
    dim3 g = { (unsigned)grid, 1, 1 }, b = { PS_GPU_WG, 1, 1 };
    ps_rt_err e = RT(LaunchKernel)(fn, g, b, args, 0, s);
    return e == RT(Success) ? PS_OK : ps_gpu_status(host, e, what);
}

int ps_gpu_launch(const ps_host *host, const void *fn, size_t grid, void **args,
                  ps_rt_stream s, const char *what)
{
    return launch(host, fn, grid, args, s, what);
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
    uint32_t totals[MAX_PASSES * RADIX], n32 = (uint32_t)job->n, tpb32 = (uint32_t)tpb;
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

/* The arrays the q-th data-moving pass reads and writes: even steps read
 * the caller's arrays, odd ones the scratch copy. */
typedef struct pass_io {
    void *kin, *kout, *vin, *vout;
} pass_io;

static pass_io pass_arrays(const ps_gpu_job *job, const layout *l, unsigned q)
{
    pass_io io;
    void *ks = (char *)job->scratch + l->keys, *vs = (char *)job->scratch + l->vals;
    int from_user = q % 2 == 0;
    io.kin = from_user ? job->keys : ks;
    io.kout = from_user ? ks : job->keys;
    io.vin = from_user ? job->vals : vs;
    io.vout = from_user ? vs : job->vals;
    return io;
}

/* An odd number of passes left the result in scratch.  (Every pass
 * skipped: nothing moved and the keys are already in order.) */
static int copy_home(const ps_host *host, const ps_gpu_job *job, const layout *l,
                     unsigned nactive)
{
    unsigned kb = ps_type_bytes(job->type), vb = job->val_bytes;
    ps_rt_err e;
    if (nactive % 2 == 0)
        return PS_OK;
    e = RT(MemcpyAsync)(job->keys, (char *)job->scratch + l->keys, job->n * kb,
                        RT(MemcpyDeviceToDevice), job->stream);
    if (e == RT(Success) && vb)
        e = RT(MemcpyAsync)(job->vals, (char *)job->scratch + l->vals, job->n * vb,
                            RT(MemcpyDeviceToDevice), job->stream);
    return e == RT(Success) ? PS_OK : ps_gpu_status(host, e, "copy back from scratch");
}

static int enqueue_portable(const ps_host *host, const ps_gpu_job *job,
                            const ps_gpu_kernels *k, uint64_t flip, uint64_t fneg)
{
    unsigned kb = k->key_bytes, vb = k->val_bytes;
    uint64_t zero = 0;
    uint32_t n32 = (uint32_t)job->n, tpb32, shift, enc_in, dec_out, len;
    size_t tile = tile_of(kb, vb), nb, tpb;
    unsigned active[MAX_PASSES], nactive, q;
    void *counts;
    layout l;
    int st;

    blocks(job->n, tile, &nb, &tpb);
    l = make_layout(job->n, k, 0);
    st = plan_passes(host, job, k, &l, tpb, nb, flip, fneg, active, &nactive);
    if (st != PS_OK)
        return st;
    host->log(PS_GPU_NAME ": reduce-then-scan, n=%zu, %u passes, %zu blocks of "
              "%zu tiles of %zu", job->n, nactive, nb, tpb, tile);

    tpb32 = (uint32_t)tpb;
    len = RADIX * (uint32_t)nb;
    counts = (char *)job->scratch + l.counts;
    for (q = 0; q < nactive; q++) {
        pass_io io = pass_arrays(job, &l, q);
        void *up[] = { &io.kin, &zero, &n32, &tpb32, &shift, &counts, &zero, &flip,
                       &fneg, &enc_in };
        void *sc[] = { &counts, &zero, &len };
        void *dk[] = { &io.kin, &zero, &io.kout, &zero, &n32, &tpb32, &shift,
                       &counts, &zero, &flip, &fneg, &enc_in, &dec_out };
        void *dp[] = { &io.kin, &zero, &io.kout, &zero, &io.vin, &zero, &io.vout,
                       &zero, &n32, &tpb32, &shift, &counts, &zero, &flip, &fneg,
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
    return copy_home(host, job, &l, nactive);
}

/* Onesweep's first steps: the digit positions of every pass in bins, and
 * the passes to run in active[] (with skip_constant, from the positions
 * read back: a digit owning all n keys makes its pass a no-op). */
static int os_plan(const ps_host *host, const ps_gpu_job *job,
                   const ps_gpu_kernels *k, const layout *l, uint64_t flip,
                   uint64_t fneg, unsigned *active, unsigned *nactive)
{
    unsigned kb = k->key_bytes, p, d;
    uint32_t pos[8 * OS_RADIX], n32 = (uint32_t)job->n;
    size_t ntiles = (job->n + os_tile_of(k) - 1) / os_tile_of(k);
    size_t nb = ntiles < PS_GPU_MAX_BLOCKS ? ntiles : PS_GPU_MAX_BLOCKS;
    void *keys = job->keys, *bins = (char *)job->scratch + l->bins;
    uint64_t zero = 0;
    void *hargs[] = { &keys, &zero, &n32, &bins, &zero, &flip, &fneg };
    void *sargs[] = { &bins, &zero };
    ps_rt_err e;
    int st;

    e = RT(MemsetAsync)(bins, 0, (size_t)kb * OS_RADIX * 4, job->stream);
    if (e != RT(Success))
        return ps_gpu_status(host, e, "memset of the digit counts");
    st = launch(host, k->os_hist, nb, hargs, job->stream, "ps_os_hist");
    if (st == PS_OK)
        st = launch(host, k->os_scan, 1, sargs, job->stream, "ps_os_scan");
    if (st != PS_OK)
        return st;
    if (job->skip_constant) {
        e = RT(MemcpyAsync)(pos, bins, (size_t)kb * OS_RADIX * 4,
                            RT(MemcpyDeviceToHost), job->stream);
        if (e == RT(Success))
            e = RT(StreamSynchronize)(job->stream);
        if (e != RT(Success))
            return ps_gpu_status(host, e, "ps_os_hist");
    }
    *nactive = 0;
    for (p = 0; p < kb; p++) {
        int constant = 0;
        for (d = 0; job->skip_constant && d < OS_RADIX; d++) {
            uint32_t end = d + 1 < OS_RADIX ? pos[p * OS_RADIX + d + 1] : n32;
            if (end - pos[p * OS_RADIX + d] == n32)
                constant = 1;
        }
        if (!constant)
            active[(*nactive)++] = p;
    }
    return PS_OK;
}

static int enqueue_onesweep(const ps_host *host, const ps_gpu_job *job,
                            const ps_gpu_kernels *k, uint64_t flip, uint64_t fneg)
{
    uint64_t zero = 0, boff;
    uint32_t pn, shift, enc_in, dec_out;
    size_t tile = os_tile_of(k), ntiles = (job->n + tile - 1) / tile;
    size_t ptiles = os_portion_tiles(ntiles);
    unsigned active[MAX_PASSES], nactive, q;
    layout l = make_layout(job->n, k, 1);
    void *bins = (char *)job->scratch + l.bins;
    void *bnext = (char *)job->scratch + l.bnext;
    void *status = (char *)job->scratch + l.status;
    int st = os_plan(host, job, k, &l, flip, fneg, active, &nactive);

    if (st != PS_OK)
        return st;
    host->log(PS_GPU_NAME ": onesweep, n=%zu, %u passes, %zu tiles of %zu, "
              "portions of %zu tiles", job->n, nactive, ntiles, os_tile_of(k),
              ptiles);
    for (q = 0; q < nactive; q++) {
        pass_io io = pass_arrays(job, &l, q);
        uint64_t off = 0, bnoff;
        size_t portion;
        void *pbins = bins, *ak[] = { &io.kin, &off, &io.kout, &zero, &pn, &shift,
                                      &pbins, &boff, &status, &zero, &bnext, &bnoff,
                                      &flip, &fneg, &enc_in, &dec_out };
        void *ap[] = { &io.kin, &off, &io.kout, &zero, &io.vin, &off, &io.vout,
                       &zero, &pn, &shift, &pbins, &boff, &status, &zero, &bnext,
                       &bnoff, &flip, &fneg, &enc_in, &dec_out };
        shift = active[q] * 8u;
        enc_in = q == 0;
        dec_out = q == nactive - 1;
        /* Portion i reads the positions portion i-1 left (the first, the
         * pass's row of bins) and leaves the next in the other bnext row. */
        for (portion = 0; off < job->n; portion++) {
            size_t len = job->n - off < ptiles * tile ? job->n - off : ptiles * tile;
            ps_rt_err e;
            pn = (uint32_t)len;
            if (portion == 0) {
                pbins = bins;
                boff = (uint64_t)active[q] * OS_RADIX;
            } else {
                pbins = bnext;
                boff = (uint64_t)((portion - 1) & 1) * OS_RADIX;
            }
            bnoff = (uint64_t)(portion & 1) * OS_RADIX;
            /* The tile counter and every status word start at zero. */
            e = RT(MemsetAsync)(status, 0, l.status_bytes, job->stream);
            if (e != RT(Success))
                return ps_gpu_status(host, e, "memset of the status words");
            st = launch(host, k->onesweep, (len + tile - 1) / tile,
                        k->val_bytes ? ap : ak, job->stream, "ps_onesweep");
            if (st != PS_OK)
                return st;
            off += len;
        }
    }
    return copy_home(host, job, &l, nactive);
}

int ps_gpu_enqueue(const ps_host *host, const ps_gpu_job *job)
{
    unsigned kb = ps_type_bytes(job->type), vb = job->val_bytes;
    const ps_gpu_kernels *k = ps_gpu_kernels_for(kb, vb);
    ps_xf xf = ps_xf_make(job->type, job->flags);
    uint64_t flip = xf.flip, fneg = xf.fneg, zero = 0;
    uint32_t n32 = (uint32_t)job->n;

    if (job->n <= tile_of(kb, vb)) {
        void *keys = job->keys, *vals = job->vals;
        void *kargs[] = { &keys, &zero, &n32, &flip, &fneg };
        void *pargs[] = { &keys, &zero, &vals, &zero, &n32, &flip, &fneg };
        return launch(host, k->local, 1, vb ? pargs : kargs, job->stream,
                      "ps_sort_local");
    }
    if (use_onesweep(job->n))
        return enqueue_onesweep(host, job, k, flip, fneg);
    return enqueue_portable(host, job, k, flip, fneg);
}
