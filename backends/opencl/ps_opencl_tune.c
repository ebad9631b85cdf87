/*
 * ps_opencl_tune.c - how the kernels are cut for a device: work-group size,
 * keys per item, digit bits and blocks from the device's properties, with
 * PORTSORT_OPENCL_TUNE and PORTSORT_OPENCL_ALGO overriding them
 * (doc/opencl-tuning.md).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "ps_opencl_internal.h"

/* PORTSORT_OPENCL_TUNE: comma-separated key=N, each key at most once.  One
 * parser serves the check at the choice of backend (ps_cl_check_env) and
 * the tuning, so the two can never disagree about what a value means. */
enum { T_WG, T_ITEMS, T_BITS, T_BLOCKS, T_SEG, T_HUGE, T_PORTION, T_KEYS };
static const char *const tune_keys[T_KEYS] = { "wg", "items", "bits", "blocks",
                                               "seg", "huge", "portion" };
static const char tune_accepted[] =
    "comma-separated key=N with each of wg, items, bits, blocks, seg, huge, "
    "portion at most once, N a whole number from 1 to 2^31-1 (bits: 1 to 8)";

typedef struct tune_spec {
    unsigned set;                   /* bit k: tune_keys[k] given */
    unsigned long long v[T_KEYS];
} tune_spec;

/* 0 with *out filled (nothing set when the variable is unset or empty),
 * or -1 with why saying what is accepted. */
static int tune_parse(tune_spec *out, char *why, size_t why_len)
{
    const char *spec = ps_getenv_set("PORTSORT_OPENCL_TUNE"), *p = spec;
    memset(out, 0, sizeof *out);
    if (spec == NULL)
        return 0;
    for (;;) {
        size_t len = strcspn(p, ","), klen = strcspn(p, "=,"), k;
        char num[16];
        unsigned long long v;
        for (k = 0; k < T_KEYS; k++)
            if (strlen(tune_keys[k]) == klen && strncmp(p, tune_keys[k], klen) == 0)
                break;
        if (k == T_KEYS || (out->set >> k & 1u) || p[klen] != '='
            || len - klen - 1 >= sizeof num)
            return ps_env_refuse("PORTSORT_OPENCL_TUNE", spec, tune_accepted,
                                 why, why_len);
        memcpy(num, p + klen + 1, len - klen - 1);
        num[len - klen - 1] = '\0';
        if (ps_env_digits(num, k == T_BITS ? 8 : 0x7fffffffull, &v) != 0 || v == 0)
            return ps_env_refuse("PORTSORT_OPENCL_TUNE", spec, tune_accepted,
                                 why, why_len);
        out->set |= 1u << k;
        out->v[k] = v;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

static const char *const algo_words[] = { "onesweep", "portable", NULL };
enum { ALGO_ONESWEEP, ALGO_PORTABLE };

/* -1: the device's default; else ALGO_*.  why filled on a refusal. */
static int algo_parse(int *algo, char *why, size_t why_len)
{
    *algo = -1;
    return ps_env_word("PORTSORT_OPENCL_ALGO", algo_words, "onesweep or portable; "
                       "unset or empty: the device's default", algo, why, why_len);
}

int ps_cl_check_env(char *why, size_t why_len)
{
    tune_spec spec;
    int algo;
    return algo_parse(&algo, why, why_len) < 0 || tune_parse(&spec, why, why_len) < 0
           ? -1 : 0;
}

/* Key k of the tuning, or dflt when it is not given. */
static unsigned tuned(const tune_spec *s, unsigned k, unsigned dflt)
{
    return s->set >> k & 1u ? (unsigned)s->v[k] : dflt;
}

/* Local memory the largest kernel (ps_downsweep / ps_sort_local, and
 * ps_onesweep when built) needs. */
static size_t local_bytes(const ps_cl_tune *t, unsigned kb, unsigned vb)
{
    size_t radix = (size_t)1 << t->bits, tile = (size_t)t->wg * t->items;
    size_t cnt = radix * t->wg + radix * t->wg / 32;   /* PS_CNT_WORDS */
    size_t rts = 2 * tile * (kb + vb) + cnt * 4 + t->wg * 4
                 + (2 * radix + 1) * 4;
    size_t os = 2 * tile * (kb + vb) + 16 * t->wg * 4 + t->wg * 4 + 4 * 256 * 4 + 7 * 4;
    size_t small = t->seg_small < tile ? t->seg_small : tile;
    size_t seg = t->wg == 1                              /* ps_seg_small */
        ? (tile + small) * (kb + vb) + tile * (kb + vb) + radix * 4
        : (tile + small) * (kb + vb + 8);
    size_t most = t->onesweep && os > rts ? os : rts;
    return seg > most ? seg : most;
}

/*
 * CPU devices (pocl): one work-item per work-group.  pocl runs each
 * work-group as a loop on one core, so a "work-group" of one item is a
 * plain serial counting sort of its tiles: no barrier overhead, 8-bit
 * digits (4 passes for u32), large tiles, and a few blocks per core for
 * balance.  GPUs: 128 work-items (a multiple of every vendor's warp or
 * wavefront), 4-bit digits so the per-item counter matrix (16 x 128 x 4
 * bytes) plus two tiles fit in 32 KiB of local memory, 8 keys per item,
 * and enough blocks to fill every compute unit several times.
 * PORTSORT_OPENCL_TUNE="wg=..,items=..,bits=..,blocks=..,portion=..,
 * seg=..,huge=.." overrides (tests use it to run the GPU-shaped path on
 * pocl, Onesweep over portions of a few tiles, and every class of the
 * segmented sort: seg is the longest small segment, huge the length from
 * which a segment takes the plain sort alone).
 *
 * Sorts of more than one tile run the Onesweep kernels
 * (ps_kernel_onesweep.cl) on GPUs and reduce-then-scan elsewhere: on
 * pocl's CPU device Onesweep, whose portable ranking makes two passes
 * over each tile in local memory, runs at about half the speed of
 * reduce-then-scan's one-item work-groups (doc/opencl-tuning.md).
 * PORTSORT_OPENCL_ALGO=onesweep or =portable forces either.  Onesweep's
 * look-back needs no forward progress between work-groups, which OpenCL
 * does not promise: a work-group that waits too long for another counts
 * that one's keys itself.
 */
ps_cl_tune ps_cl_tune_for(cl_device_id dev, unsigned key_bits, unsigned val_bytes)
{
    cl_device_type type = 0;
    cl_uint cus = 1;
    cl_ulong lmem = 32768;
    size_t maxwg = 1;
    ps_cl_tune t;
    tune_spec spec;
    char why[8];
    int algo;
    unsigned kb = key_bits / 8;

    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxwg, &maxwg, NULL);
    if (cus == 0)
        cus = 1;
    if (type & CL_DEVICE_TYPE_GPU) {
        t.wg = 128;
        t.items = key_bits == 64 ? 4 : 8;
        t.bits = 4;
        t.max_blocks = cus * 16;
    } else {
        t.wg = 1;
        t.items = 2048;
        t.bits = 8;
        t.max_blocks = cus * 4;
    }
    /* Both variables were checked at the choice of backend; a value set
     * since then that does not parse leaves the defaults. */
    tune_parse(&spec, why, sizeof why);
    t.wg = tuned(&spec, T_WG, t.wg);
    t.items = tuned(&spec, T_ITEMS, t.items);
    t.bits = tuned(&spec, T_BITS, t.bits);
    t.max_blocks = tuned(&spec, T_BLOCKS, t.max_blocks);
    t.seg_small = tuned(&spec, T_SEG, 0);     /* 0: chosen below */
    t.seg_huge = tuned(&spec, T_HUGE, 1u << 20);
    t.onesweep = (type & CL_DEVICE_TYPE_GPU) != 0;
    if (algo_parse(&algo, why, sizeof why) == 1)
        t.onesweep = algo == ALGO_ONESWEEP;
    /* Keep to what the kernels support: a power-of-two work-group within
     * the device's limit, 1..8 digit bits, then shrink the tile and the
     * radix until local memory suffices. */
    while (t.wg > 1 && (t.wg > maxwg || (t.wg & (t.wg - 1)) != 0))
        t.wg >>= 1;
    if (t.wg == 0)
        t.wg = 1;
    if (t.onesweep && t.wg > 256)
        t.wg = 256;     /* ps_kernel_onesweep.cl: at most one item per digit */
    if (t.bits < 1 || t.bits > 8)
        t.bits = 8;
    if (t.bits > key_bits)
        t.bits = key_bits;
    if (t.items == 0)
        t.items = 1;
    if (t.max_blocks == 0)
        t.max_blocks = 1;
    /* One item per work-group (CPU devices): every segment of a tile
     * goes through the window kernel, whose one item sorts them in turn
     * as the reference sort does (a work-group per segment would cost
     * pocl more than the sort).  GPUs: see PS_GPU_SEG_SMALL in
     * backends/gpu/ps_gpu_tune.h; 32 for the GPU-shaped tunings on CPUs,
     * so that tests see every class. */
    if (t.seg_small == 0)
        t.seg_small = t.wg == 1 ? t.wg * t.items : (type & CL_DEVICE_TYPE_GPU) ? 256 : 32;
    if (t.seg_small < 2)
        t.seg_small = 2;
    while (local_bytes(&t, kb, val_bytes) > lmem && t.items > 1)
        t.items >>= 1;
    while (local_bytes(&t, kb, val_bytes) > lmem && t.bits > 1)
        t.bits--;
    while (local_bytes(&t, kb, val_bytes) > lmem && t.wg > 1)
        t.wg >>= 1;
    /* A tile of two keys at least: the segment kernels share the program
     * and need a small class of 2 .. tile, so a tuning of wg=1,items=1
     * would otherwise fail the build of every sort. */
    if (t.wg * t.items < 2)
        t.items = 2;
    /* The segmented sort's small class ends at a tile at most. */
    if (t.seg_small > t.wg * t.items)
        t.seg_small = t.wg * t.items;
    /* Onesweep portions of about 2^28 keys (CUB's), never 2^30. */
    {
        size_t tile = (size_t)t.wg * t.items, most = (((size_t)1 << 30) - 1) / tile;
        t.os_portion = tuned(&spec, T_PORTION, (unsigned)(((size_t)1 << 28) / tile));
        if (t.os_portion == 0)
            t.os_portion = 1;
        if (t.os_portion > most)
            t.os_portion = most;
    }
    return t;
}
