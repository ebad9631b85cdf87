/*
 * ps_test_device_plan.c - unit tests of the device plan
 * (backends/device/ps_device_plan.c), called directly: the arithmetic the
 * OpenCL and CUDA/HIP hosts feed the kernels from, at its limits.  No
 * device is needed, so it runs in every configuration.
 *
 * For the tunings the hosts make (OpenCL on a CPU and on a GPU, the
 * GPU-shaped and tiny tunings the tests force on pocl, CUDA, HIP and the
 * CUDA stand-in), every key and value width and sizes around each
 * boundary (0, 1, one tile, one tile + 1, blocks, Onesweep portions,
 * 2^24, 2^29, 2^32 - 1, 2^32, 2^40), it checks what the hosts rely on:
 * regions 256-byte aligned, apart, inside the scratch and as large as the
 * keys and values they hold; blocks and portions that cover every key
 * once; no 32-bit kernel index that can wrap when the plan says PS_OK; a
 * segmented layout whose huge segments' sorts fit its scratch, and which
 * is refused (PS_ERR_TOO_LARGE, naming the tuning) where its words would
 * wrap.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_device_plan.h"

static char detail[512];
static long checks;

static void record(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
}

static void quiet(const char *fmt, ...)
{
    (void)fmt;
}

/* Host memory for ps_dev_stage_reserve: malloc, or NULL when fail_alloc
 * is set; every call counted. */
static int fail_alloc;
static long allocs, releases;

static void *test_alloc(size_t bytes)
{
    allocs++;
    return fail_alloc ? NULL : malloc(bytes > 0 ? bytes : 1);
}

static void test_release(void *p)
{
    releases++;
    free(p);
}

static const ps_host host = {
    .abi = PS_BACKEND_ABI, .size = sizeof(ps_host), .verbose = 0, .log = quiet,
    .fail = record, .alloc = test_alloc, .release = test_release, .lost = NULL
};

/* The case being checked, printed with a failure. */
static char where[256];

#define CHECK(x) do {                                                       \
        checks++;                                                           \
        if (!(x)) {                                                         \
            fprintf(stderr, "FAIL %s:%d: %s\n  in %s\n", __FILE__, __LINE__, \
                    #x, where);                                             \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

static const unsigned key_widths[] = { 1, 2, 4, 8 };
static const unsigned val_widths[] = { 0, 4, 8 };

/* The tunings the hosts make (ps_cl_tune_for, ps_gpu_tune) and those the
 * tests force, with the key width's items filled in by tune_for(). */
typedef struct named_tune {
    const char *name;
    ps_dev_tune t;
    int gpu_items;          /* items and os_items as ps_gpu_tune.h: 1 CUDA, 2 HIP */
} named_tune;

static const named_tune tunes[] = {
    /* pocl: one item per group, 2048-key tiles, 8-bit digits, 2 cores. */
    { "opencl cpu", { 1, 2048, 8, 8, 0, 2048, 1u << 17, 2048, 1u << 20,
                      "opencl", "use larger wg or items" }, 0 },
    { "opencl cpu onesweep", { 1, 2048, 8, 8, 1, 2048, 1u << 17, 2048, 1u << 20,
                               "opencl", "use larger wg or items" }, 0 },
    /* A GPU of 80 compute units. */
    { "opencl gpu", { 128, 8, 4, 1280, 1, 8, 1u << 18, 256, 1u << 20,
                      "opencl", "use larger wg or items" }, 0 },
    /* test/opencl.sh's GPU shape, and the portions of opencl-onesweep.sh. */
    { "opencl gpu-shaped", { 64, 1, 4, 5, 0, 1, 1u << 22, 32, 300,
                             "opencl", "use larger wg or items" }, 0 },
    { "opencl gpu-shaped onesweep", { 64, 1, 4, 5, 1, 1, 3, 32, 300,
                                      "opencl", "use larger wg or items" }, 0 },
    /* The smallest tile ps_cl_tune_for lets through. */
    { "opencl tiny", { 1, 2, 8, 5, 0, 2, ((1u << 30) - 1) / 2, 2, 1u << 20,
                       "opencl", "use larger wg or items" }, 0 },
    { "opencl tiny onesweep", { 1, 2, 8, 5, 1, 2, ((1u << 30) - 1) / 2, 2, 1u << 20,
                                "opencl", "use larger wg or items" }, 0 },
    /* 1-bit digits (64 passes of 64-bit keys), and more blocks than the
     * counts' 32-bit indices allow with 8-bit digits. */
    { "opencl tiny 1-bit", { 1, 2, 1, 1u << 30, 0, 2, 1, 2, 7,
                             "opencl", "use larger wg or items" }, 0 },
    { "opencl tiny many blocks", { 1, 2, 8, 1u << 30, 0, 2, 1, 2, 7,
                                   "opencl", "use larger wg or items" }, 0 },
    { "cuda", { 256, 0, 4, 1024, 1, 0, 65536, 0, 1u << 20,
                "cuda", "build with a larger PS_GPU_ITEMS" }, 1 },
    { "cuda portable", { 256, 0, 4, 1024, 0, 0, 65536, 0, 1u << 20,
                         "cuda", "build with a larger PS_GPU_ITEMS" }, 1 },
    { "hip", { 256, 0, 4, 1024, 1, 0, 65536, 0, 1u << 20,
               "hip", "build with a larger PS_GPU_ITEMS" }, 2 },
    /* The CUDA stand-in of make check (backends/gpu/local.mk). */
    { "cuda stand-in", { 256, 0, 4, 3, 1, 0, 2, 0, 20000,
                         "cuda", "build with a larger PS_GPU_ITEMS" }, 1 },
};

/* The key and value widths' items, as ps_gpu_tune.h sets them for CUDA
 * (gpu 1) and HIP (gpu 2). */
static ps_dev_tune tune_for(const named_tune *nt, unsigned kb, unsigned vb)
{
    ps_dev_tune t = nt->t;
    unsigned kv = kb + vb, wide = kb > vb ? kb : vb;
    if (nt->gpu_items == 1) {
        t.items = kv <= 4 ? 8 : kv <= 12 ? 4 : 2;
        t.os_items = wide <= 4 ? 32 : 16;
    } else if (nt->gpu_items == 2) {
        t.items = kv <= 4 ? 4 : kv <= 12 ? 2 : 1;
        t.os_items = wide <= 4 ? 16 : 8;
    }
    if (nt->gpu_items != 0)
        t.seg_small = kb == 1 ? 128 : t.wg * t.items < 256 ? t.wg * t.items : 256;
    return t;
}

static size_t end_of(const ps_dev_region *r)
{
    return r->off + r->bytes;
}

/* Regions aligned, inside the scratch, and apart from each other. */
static void check_regions(const ps_dev_region *r, size_t count, size_t bytes)
{
    size_t i, j, last = 0;
    for (i = 0; i < count; i++) {
        if (r[i].bytes == 0)
            continue;
        CHECK(r[i].off % PS_DEV_ALIGN == 0);
        CHECK(end_of(&r[i]) >= r[i].off);          /* no wrap */
        CHECK(end_of(&r[i]) <= bytes);
        if (end_of(&r[i]) > last)
            last = end_of(&r[i]);
        for (j = 0; j < i; j++)
            CHECK(r[j].bytes == 0 || end_of(&r[j]) <= r[i].off
                  || end_of(&r[i]) <= r[j].off);
    }
    CHECK(last == bytes);   /* the scratch ends with its last region */
}

/* The index after i among the first three and the last three of count. */
static size_t first_last(size_t i, size_t count)
{
    return i == 2 && count > 6 ? count - 3 : i + 1;
}

static void check_sort_plan(const ps_dev_sort_plan *p, const ps_dev_tune *t,
                            size_t n, unsigned kb, unsigned vb)
{
    size_t i, done = 0;
    CHECK(p->n == n && p->key_bytes == kb && p->val_bytes == vb);
    CHECK(n <= UINT32_MAX);
    CHECK(p->local == (n <= (size_t)t->wg * t->items));
    if (p->local) {
        CHECK(p->bytes == 0);
        return;
    }
    CHECK(p->onesweep == (t->onesweep != 0));
    check_regions(p->region, PS_DEV_NREGIONS, p->bytes);
    CHECK(p->region[PS_DEV_KEYS].bytes == n * kb);
    CHECK(p->region[PS_DEV_VALS].bytes == n * vb);
    CHECK(p->radix == 1u << p->digit_bits);
    CHECK(p->passes * p->digit_bits >= 8 * kb);
    CHECK((p->passes - 1) * p->digit_bits < 8 * kb);
    CHECK(p->passes <= PS_DEV_MAX_PASSES);
    CHECK(p->digit_words == (size_t)p->passes * p->radix);
    CHECK(p->digit_words <= PS_DEV_MAX_DIGIT_WORDS);
    CHECK(p->ntiles * p->tile >= n && (p->ntiles - 1) * p->tile < n);
    CHECK(p->blocks >= 1 && p->blocks <= t->max_blocks && p->blocks <= p->ntiles);
    if (!p->onesweep) {
        CHECK(p->tile == (size_t)t->wg * t->items && p->digit_bits == t->bits);
        /* Every block has tiles, and the blocks cover every tile. */
        CHECK(p->blocks * p->tiles_per_block >= p->ntiles);
        CHECK((p->blocks - 1) * p->tiles_per_block < p->ntiles);
        /* ps_scan's length and the counts' indices are 32-bit. */
        CHECK((uint64_t)p->radix * p->blocks <= UINT32_MAX);
        CHECK(p->region[PS_DEV_COUNTS].bytes == (size_t)p->radix * p->blocks * 4);
        CHECK(p->region[PS_DEV_TOTALS].bytes == p->digit_words * 4);
        CHECK(p->region[PS_DEV_BINS].bytes == 0 && p->region[PS_DEV_STATUS].bytes == 0);
        return;
    }
    CHECK(p->tile == (size_t)t->wg * t->os_items && p->digit_bits == 8);
    CHECK(p->region[PS_DEV_BINS].bytes == p->digit_words * 4);
    CHECK(p->region[PS_DEV_COUNTS].bytes == 0 && p->region[PS_DEV_TOTALS].bytes == 0);
    CHECK(p->portion_tiles >= 1 && p->portion_tiles <= t->os_portion);
    /* A portion's count fits the status words' 30 bits, the index of its
     * last status word (ps_onesweep: tile x 256 + digit) 32 bits. */
    CHECK(p->portion_tiles * p->tile < ((size_t)1 << 30));
    CHECK((uint64_t)p->portion_tiles * PS_DEV_OS_RADIX - 1 <= UINT32_MAX);
    CHECK(p->region[PS_DEV_STATUS].bytes == (1 + p->portion_tiles) * PS_DEV_OS_RADIX * 4);
    CHECK(p->portions == (p->ntiles + p->portion_tiles - 1) / p->portion_tiles);
    /* The first and last few launches (a pass may have millions). */
    for (i = 0; i < p->portions; i = first_last(i, p->portions)) {
        unsigned digit = (unsigned)(i % p->passes);
        ps_dev_portion q = ps_dev_plan_portion(p, digit, i);
        const ps_dev_region *bins = &p->region[PS_DEV_BINS];
        const ps_dev_region *bn = &p->region[PS_DEV_BNEXT];
        CHECK(q.first == i * p->portion_tiles * p->tile && q.len >= 1);
        CHECK(q.len == (i + 1 < p->portions ? p->portion_tiles * p->tile : n - q.first));
        CHECK(q.groups == (q.len + p->tile - 1) / p->tile);
        CHECK(q.groups <= p->portion_tiles);
        CHECK(q.len < ((size_t)1 << 30));
        if (i == 0)
            CHECK(q.bins_word == bins->off / 4 + (uint64_t)digit * PS_DEV_OS_RADIX);
        else
            CHECK(q.bins_word >= bn->off / 4
                  && (q.bins_word + PS_DEV_OS_RADIX) * 4 <= end_of(bn));
        CHECK(q.bnext_word >= bn->off / 4
              && (q.bnext_word + PS_DEV_OS_RADIX) * 4 <= end_of(bn));
        CHECK(q.bnext_word != q.bins_word);
        if (i > 0) {
            /* It reads the row the launch before wrote. */
            ps_dev_portion prev = ps_dev_plan_portion(p, digit, i - 1);
            CHECK(q.bins_word == prev.bnext_word);
        }
        done = q.first + q.len;
    }
    CHECK(done == n);
}

/* The plain sorts of the huge segments (any length up to n, from the
 * start of the scratch) fit the SORTS region. */
static void check_sorts_fit(const ps_dev_seg_plan *s, const ps_dev_tune *t)
{
    size_t sizes[64], ns = 0, i, n = s->n, tile = s->tile;
    ps_dev_sort_plan p;
    size_t b, most = t->max_blocks;
    sizes[ns++] = n;
    sizes[ns++] = n - 1;
    sizes[ns++] = tile + 1;
    sizes[ns++] = n / 2 + 1;
    sizes[ns++] = n / 3;
    /* Where blocks of fewer tiles each are more blocks. */
    for (b = 1; b <= 8 && ns + 4 < sizeof sizes / sizeof *sizes; b++) {
        sizes[ns++] = most * tile * b + 1;
        sizes[ns++] = most * tile * b;
        sizes[ns++] = (most - 1) * tile * b + 1;
        sizes[ns++] = (2 * most - 1) * tile + 1;
    }
    for (i = 0; i < ns; i++) {
        if (sizes[i] < 2 || sizes[i] > n)
            continue;
        CHECK(ps_dev_plan_sort(&p, t, sizes[i], s->key_bytes, s->val_bytes, &host)
              == PS_OK);
        CHECK(p.bytes <= s->region[PS_DEV_SEG_SORTS].bytes);
    }
}

static void check_seg_plan(const ps_dev_seg_plan *s, const ps_dev_tune *t, size_t n,
                           unsigned kb, unsigned vb)
{
    const ps_dev_region *r = s->region;
    uint64_t words;
    CHECK(s->n == n && s->key_bytes == kb && s->val_bytes == vb);
    if (n < 2) {
        CHECK(s->bytes == 0);
        return;
    }
    CHECK(s->tile == (size_t)t->wg * t->items);
    CHECK(s->small >= 2 && s->small <= s->tile);
    /* SORTS and WORDS apart; the large tiles' arrays inside SORTS. */
    {
        ps_dev_region own[2];
        own[0] = r[PS_DEV_SEG_SORTS];
        own[1] = r[PS_DEV_SEG_WORDS];
        check_regions(own, 2, s->bytes);
    }
    CHECK(r[PS_DEV_SEG_SORTS].off == 0);
    if (n > s->tile) {
        CHECK(r[PS_DEV_SEG_KEYS].bytes == n * kb && r[PS_DEV_SEG_VALS].bytes == n * vb);
        CHECK(end_of(&r[PS_DEV_SEG_KEYS]) <= r[PS_DEV_SEG_VALS].off || vb == 0);
        CHECK(r[PS_DEV_SEG_KEYS].off % PS_DEV_ALIGN == 0);
        CHECK(r[PS_DEV_SEG_VALS].off % PS_DEV_ALIGN == 0);
        CHECK(end_of(&r[PS_DEV_SEG_VALS]) <= end_of(&r[PS_DEV_SEG_SORTS]));
        check_sorts_fit(s, t);
    } else {
        CHECK(r[PS_DEV_SEG_SORTS].bytes == 0);
    }
    /* The words, and their last index below 2^32. */
    CHECK(s->lbase == 4 && s->mbase == s->lbase + 2 * s->lcap);
    CHECK(s->wbase == s->mbase + 2 * s->mcap && s->dbase == s->wbase + s->nwin + 1);
    CHECK(s->cbase == s->dbase + 5 * (uint64_t)s->tcap);
    words = s->cbase + (uint64_t)s->radix * s->tcap;
    CHECK(words - 1 <= UINT32_MAX && words > s->cbase);
    CHECK(r[PS_DEV_SEG_WORDS].bytes == words * 4);
    CHECK(s->info_words == s->lbase + 2 * (size_t)s->lcap);
    /* Room for every large segment (more than a tile), medium one (more
     * than small keys), window and large tile. */
    CHECK(s->lcap > n / (s->tile + 1) && s->mcap > n / (s->small + 1));
    CHECK((uint64_t)s->nwin * s->tile >= n && ((uint64_t)s->nwin - 1) * s->tile < n);
    CHECK((uint64_t)s->tcap >= (uint64_t)s->nwin + n / (s->tile + 1));
    CHECK(s->passes * s->digit_bits >= 8 * kb && s->radix == 1u << s->digit_bits);
}

/* A host-array sort's layout: the caller's arrays, the offsets and the
 * sort's scratch (sbytes, from its own plan) apart and aligned in one
 * device buffer; the host staging holds the keys and values at the same
 * offsets. */
static void check_host_plan(const ps_dev_tune *t, size_t n, unsigned kb, unsigned vb,
                            int segments, size_t nseg, size_t sbytes)
{
    ps_dev_host_plan h;
    const ps_dev_region *r = h.region;
    CHECK(ps_dev_plan_host(&h, t, n, kb, vb, segments, nseg, &host) == PS_OK);
    check_regions(r, PS_DEV_HOST_NREGIONS, h.bytes);
    CHECK(r[PS_DEV_HOST_KEYS].off == 0 && r[PS_DEV_HOST_KEYS].bytes == n * kb);
    CHECK(r[PS_DEV_HOST_VALS].bytes == n * vb);
    CHECK(r[PS_DEV_HOST_OFFS].bytes == (segments ? (nseg + 1) * 8 : 0));
    CHECK(r[PS_DEV_HOST_SCRATCH].bytes == sbytes);
    CHECK(h.stage_bytes >= n * (kb + vb) && h.stage_bytes <= h.bytes);
    CHECK(h.stage_bytes == end_of(&r[PS_DEV_HOST_VALS]) || vb == 0);
    CHECK(end_of(&r[PS_DEV_HOST_KEYS]) <= h.stage_bytes);
}

static size_t nsizes;
static size_t sizes[128];

static void add_size(size_t n)
{
    size_t i;
    for (i = 0; i < nsizes; i++)
        if (sizes[i] == n)
            return;
    if (nsizes < sizeof sizes / sizeof *sizes)
        sizes[nsizes++] = n;
}

/* Sizes around every boundary of this tuning. */
static void boundary_sizes(const ps_dev_tune *t)
{
    size_t tile = (size_t)t->wg * t->items, os_tile = (size_t)t->wg * t->os_items;
    size_t portion = t->os_portion * os_tile, d;
    size_t around[] = { 0, 1, 2, tile - 1, tile, tile + 1, 2 * tile, 2 * tile + 1,
                        (size_t)t->max_blocks * tile, (size_t)t->max_blocks * tile + 1,
                        os_tile + 1, portion, portion + 1, 2 * portion + 1,
                        (size_t)1 << 24, ((size_t)1 << 29) + 7, ((size_t)1 << 30) + 1,
                        (size_t)UINT32_MAX - 1, (size_t)UINT32_MAX };
    nsizes = 0;
    for (d = 0; d < sizeof around / sizeof *around; d++)
        if (around[d] <= UINT32_MAX)
            add_size(around[d]);
}

static void test_tunings(void)
{
    size_t ti, ki, vi, i;
    for (ti = 0; ti < sizeof tunes / sizeof *tunes; ti++) {
        for (ki = 0; ki < 4; ki++) {
            for (vi = 0; vi < 3; vi++) {
                unsigned kb = key_widths[ki], vb = val_widths[vi];
                ps_dev_tune t = tune_for(&tunes[ti], kb, vb);
                boundary_sizes(&t);
                for (i = 0; i < nsizes; i++) {
                    ps_dev_sort_plan p;
                    ps_dev_seg_plan s;
                    int st;
                    snprintf(where, sizeof where, "%s, %u-byte keys, %u-byte values, "
                             "n = %zu", tunes[ti].name, kb, vb, sizes[i]);
                    CHECK(ps_dev_plan_sort(&p, &t, sizes[i], kb, vb, &host) == PS_OK);
                    check_sort_plan(&p, &t, sizes[i], kb, vb);
                    check_host_plan(&t, sizes[i], kb, vb, 0, 0, p.bytes);
                    st = ps_dev_plan_segments(&s, &t, sizes[i], kb, vb, &host);
                    if (st == PS_OK) {
                        check_seg_plan(&s, &t, sizes[i], kb, vb);
                        check_host_plan(&t, sizes[i], kb, vb, 1, sizes[i] / 3 + 1,
                                        s.bytes);
                    } else {
                        /* Only tiles too small for n are refused. */
                        CHECK(st == PS_ERR_TOO_LARGE && strstr(detail, t.tile_knob)
                              && strstr(detail, "sort_segments"));
                    }
                }
            }
        }
    }
}

/* n beyond what the kernels count: refused, with the reason. */
static void test_too_large(void)
{
    size_t big[] = { (size_t)UINT32_MAX + 1, (size_t)1 << 40, ((size_t)1 << 40) + 3,
                     SIZE_MAX };
    size_t ti, i;
    for (ti = 0; ti < sizeof tunes / sizeof *tunes; ti++) {
        ps_dev_tune t = tune_for(&tunes[ti], 4, 4);
        for (i = 0; i < sizeof big / sizeof *big; i++) {
            ps_dev_sort_plan p;
            ps_dev_seg_plan s;
            snprintf(where, sizeof where, "%s, n = %zu", tunes[ti].name, big[i]);
            detail[0] = '\0';
            CHECK(ps_dev_plan_sort(&p, &t, big[i], 4, 4, &host) == PS_ERR_TOO_LARGE);
            CHECK(strstr(detail, "2^32 - 1") != NULL && strstr(detail, t.who) == detail);
            detail[0] = '\0';
            CHECK(ps_dev_plan_segments(&s, &t, big[i], 4, 4, &host) == PS_ERR_TOO_LARGE);
            CHECK(strstr(detail, "2^32 - 1") != NULL);
        }
    }
}

/* The segmented layout's words with tiny tiles: refused from the first n
 * whose last word index would pass 2^32 - 1, accepted below it; the
 * default tunings take every n up to 2^32 - 1. */
static void test_seg_overflow(void)
{
    size_t ti;
    for (ti = 0; ti < sizeof tunes / sizeof *tunes; ti++) {
        unsigned ki;
        for (ki = 0; ki < 4; ki++) {
            unsigned kb = key_widths[ki];
            ps_dev_tune t = tune_for(&tunes[ti], kb, 8);
            ps_dev_seg_plan s;
            size_t lo = 2, hi = UINT32_MAX;
            snprintf(where, sizeof where, "%s, %u-byte keys: segmented sizes",
                     tunes[ti].name, kb);
            if (ps_dev_plan_segments(&s, &t, hi, kb, 8, &host) == PS_OK) {
                /* Only tiny tiles are refused at all. */
                check_seg_plan(&s, &t, hi, kb, 8);
                continue;
            }
            CHECK(t.wg * t.items <= 64);
            /* The first refused n, by bisection: refusal is monotone. */
            while (hi - lo > 1) {
                size_t mid = lo + (hi - lo) / 2;
                if (ps_dev_plan_segments(&s, &t, mid, kb, 8, &host) == PS_OK)
                    lo = mid;
                else
                    hi = mid;
            }
            CHECK(ps_dev_plan_segments(&s, &t, lo, kb, 8, &host) == PS_OK);
            check_seg_plan(&s, &t, lo, kb, 8);
            /* Close to the limit: the last word index is near 2^32 - 1. */
            CHECK(s.cbase + (uint64_t)s.radix * s.tcap
                  > UINT32_MAX - 16 - 2 * (uint64_t)s.radix);
            detail[0] = '\0';
            CHECK(ps_dev_plan_segments(&s, &t, hi, kb, 8, &host) == PS_ERR_TOO_LARGE);
            CHECK(strstr(detail, t.tile_knob) != NULL);
            CHECK(strstr(detail, "tiles of") != NULL);
            if (strcmp(tunes[ti].name, "opencl tiny") == 0 && kb == 4)
                printf("segmented sort, tiles of 2 keys, 8-bit digits: refused from "
                       "n = %zu (%s)\n", hi, detail);
        }
    }
}

/* The pass list from the digit words read back. */
static void test_passes(void)
{
    static uint32_t w[PS_DEV_MAX_DIGIT_WORDS];
    ps_dev_tune rts = tune_for(&tunes[0], 4, 0), os = tune_for(&tunes[1], 4, 0);
    size_t ns[] = { 5000, UINT32_MAX };
    unsigned active[PS_DEV_MAX_PASSES], k, d;
    size_t i;
    for (i = 0; i < 2; i++) {
        ps_dev_sort_plan p;
        uint32_t n = (uint32_t)ns[i];
        snprintf(where, sizeof where, "passes, n = %u", n);
        /* Reduce-then-scan: counts; pass 1's digit 7 holds every key. */
        CHECK(ps_dev_plan_sort(&p, &rts, n, 4, 0, &host) == PS_OK && !p.onesweep);
        CHECK(ps_dev_plan_passes(&p, NULL, active) == 4);
        for (k = 0; k < 4; k++)
            CHECK(active[k] == k);
        memset(w, 0, sizeof w);
        for (k = 0; k < 4; k++) {
            w[k * 256 + 3] = n / 2;
            w[k * 256 + 200] = n - n / 2;
        }
        memset(w + 256, 0, 256 * sizeof *w);
        w[256 + 7] = n;
        CHECK(ps_dev_plan_passes(&p, w, active) == 3);
        CHECK(active[0] == 0 && active[1] == 2 && active[2] == 3);
        /* Onesweep: first positions; pass 0's keys all have digit 255
         * (every position 0), pass 3's all digit 0 (positions n from 1 on,
         * the gap from digit 255 to the end is 0). */
        CHECK(ps_dev_plan_sort(&p, &os, n, 4, 0, &host) == PS_OK && p.onesweep);
        for (k = 0; k < 4; k++)
            for (d = 0; d < 256; d++)
                w[k * 256 + d] = d <= 9 ? 0 : d <= 100 ? n / 3 : n - 1;
        for (d = 0; d < 256; d++) {
            w[d] = 0;
            w[3 * 256 + d] = d == 0 ? 0 : n;
        }
        CHECK(ps_dev_plan_passes(&p, w, active) == 2);
        CHECK(active[0] == 1 && active[1] == 2);
    }
}

/* The large list's order and the tiles' descriptors. */
static void test_large_tiles(void)
{
    ps_dev_tune t = tune_for(&tunes[3], 4, 4);    /* tiles of 64, huge 300 */
    uint32_t list[] = { 10, 400, 500, 65, 700, 299, 1000, 300, 2000, 128, 3000, 5000 };
    size_t nl = sizeof list / sizeof *list / 2, nb, nt, i, j, tile;
    uint32_t desc[5 * 64], done = 0, seen = 0;
    ps_dev_seg_plan s;
    snprintf(where, sizeof where, "large segments");
    CHECK(ps_dev_plan_segments(&s, &t, 10000, 4, 4, &host) == PS_OK);
    tile = s.tile;
    nb = ps_dev_seg_batch_first(&s, list, nl);
    CHECK(nb == 3);
    for (i = 0; i < nl; i++)
        CHECK((list[2 * i + 1] < 300) == (i < nb));
    nt = ps_dev_seg_tiles(&s, list, nb);
    CHECK(nt == 2 + 5 + 2 && nt <= s.tcap);
    ps_dev_seg_describe(&s, list, nb, desc);
    for (i = 0, j = 0; i < nb; i++) {
        uint32_t a = list[2 * i], m = list[2 * i + 1], segt = (m + 63) / 64, k;
        for (k = 0; k < segt; k++, j++) {
            const uint32_t *d = desc + 5 * j;
            CHECK(d[0] == a + k * tile && d[1] >= 1 && d[1] <= tile);
            CHECK(d[3] == segt && d[4] == a - done);
            CHECK(d[2] == (j - k) * s.radix + k && d[2] < s.radix * nt);
            seen += d[1];
        }
        done += m;
    }
    CHECK(j == nt && seen == done);
}

/* Host arrays beyond what the kernels count: refused before any size
 * wraps; the staging buffer grows only when it must, and its failure
 * leaves nothing behind. */
static void test_host(void)
{
    ps_dev_tune t = tune_for(&tunes[0], 4, 4);
    size_t big[] = { (size_t)UINT32_MAX + 1, (size_t)1 << 40, SIZE_MAX / 8, SIZE_MAX };
    ps_dev_host_plan h;
    void *buf = NULL;
    size_t cap = 0, i;
    snprintf(where, sizeof where, "host-array plan");
    for (i = 0; i < sizeof big / sizeof *big; i++) {
        detail[0] = '\0';
        CHECK(ps_dev_plan_host(&h, &t, 1000, 4, 4, 1, big[i], &host) == PS_ERR_TOO_LARGE);
        CHECK(strstr(detail, "segments are beyond the 2^32 - 1") != NULL);
        CHECK(strstr(detail, t.who) == detail);
        detail[0] = '\0';
        CHECK(ps_dev_plan_host(&h, &t, big[i], 4, 4, 0, 0, &host) == PS_ERR_TOO_LARGE);
        CHECK(strstr(detail, "2^32 - 1 keys") != NULL);
        CHECK(ps_dev_plan_host(&h, &t, big[i], 4, 4, 1, 2, NULL) == PS_ERR_TOO_LARGE);
    }
    /* The most the kernels count, of both. */
    CHECK(ps_dev_plan_host(&h, &t, 1000, 4, 4, 1, UINT32_MAX, &host) == PS_OK);
    CHECK(h.region[PS_DEV_HOST_OFFS].bytes == ((size_t)UINT32_MAX + 1) * 8);
    CHECK(ps_dev_scratch_bytes(&t, UINT32_MAX, 8, 8, 0, &cap, &host) == PS_OK);
    check_host_plan(&t, UINT32_MAX, 8, 8, 0, 0, cap);
    cap = 0;

    snprintf(where, sizeof where, "host staging");
    allocs = releases = 0;
    CHECK(ps_dev_stage_reserve(&host, "dev", &buf, &cap, 1000) == PS_OK);
    CHECK(buf != NULL && cap == 1000 && allocs == 1);
    memset(buf, 0xa5, cap);
    CHECK(ps_dev_stage_reserve(&host, "dev", &buf, &cap, 1000) == PS_OK);
    CHECK(ps_dev_stage_reserve(&host, "dev", &buf, &cap, 10) == PS_OK);
    CHECK(cap == 1000 && allocs == 1);      /* kept: large enough */
    CHECK(ps_dev_stage_reserve(&host, "dev", &buf, &cap, 1001) == PS_OK);
    CHECK(cap == 1001 && allocs == 2 && releases == 2);   /* NULL, then 1000 */
    fail_alloc = 1;
    detail[0] = '\0';
    CHECK(ps_dev_stage_reserve(&host, "dev", &buf, &cap, 5000) == PS_ERR_NO_MEMORY);
    CHECK(buf == NULL && cap == 0 && releases == 3);
    CHECK(strncmp(detail, "dev: cannot allocate 5000 bytes of host memory", 46) == 0);
    fail_alloc = 0;
    CHECK(ps_dev_stage_reserve(&host, "dev", &buf, &cap, 64) == PS_OK && cap == 64);
    host.release(buf);
}

static void test_layout_basics(void)
{
    size_t end = 0;
    snprintf(where, sizeof where, "ps_dev_align, ps_dev_place");
    CHECK(ps_dev_align(0) == 0 && ps_dev_align(1) == 256 && ps_dev_align(256) == 256);
    CHECK(ps_dev_place(&end, 10) == 0 && end == 10);
    CHECK(ps_dev_place(&end, 0) == 256 && end == 256);
    CHECK(ps_dev_place(&end, 300) == 256 && end == 556);
}

/* A tuning the kernels cannot take is the host's bug: refused. */
static void test_bad_tune(void)
{
    ps_dev_tune t = tunes[0].t;
    ps_dev_sort_plan p;
    snprintf(where, sizeof where, "tuning out of range");
    t.bits = 0;
    CHECK(ps_dev_plan_sort(&p, &t, 100000, 4, 0, &host) == PS_ERR_INVALID_ARG);
    CHECK(strstr(detail, "out of range") != NULL);
    t = tunes[0].t;
    t.items = 1;    /* a tile of one key */
    CHECK(ps_dev_plan_sort(&p, &t, 100000, 4, 0, NULL) == PS_ERR_INVALID_ARG);
}

/* The device top-k's plan: the sort's scratch at offset 0 (where the
 * OpenCL sorts take theirs), the keys and indices after it, the same
 * bytes for every k >= 1, the slots every output holds, the launch sizes,
 * and its refusals. */
static void test_topk(void)
{
    static const size_t ns[] = { 1, 2, 300, 5000, 100000 };
    static const int which[] = { 0, 2, 9, 12 };     /* pocl, a GPU, CUDA, the stand-in */
    size_t i, kb, seg, sbytes;
    ps_dev_topk_plan p, q;
    for (kb = 1; kb <= 8; kb *= 2)
        for (i = 0; i < sizeof ns / sizeof *ns; i++)
            for (seg = 0; seg < 2; seg++) {
                const named_tune *nt = &tunes[which[(i + kb) % 4]];
                ps_dev_tune t = tune_for(nt, (unsigned)kb, 8);
                size_t n = ns[i];
                snprintf(where, sizeof where, "topk plan n=%zu kb=%zu segments=%zu (%s)",
                         n, kb, seg, nt->name);
                CHECK(ps_dev_plan_topk(&p, &t, n, 1, (unsigned)kb, (int)seg, 7, &host)
                      == PS_OK);
                check_regions(p.region, PS_DEV_TOPK_NREGIONS, p.bytes);
                sbytes = 0;
                if (n >= 2)
                    CHECK(ps_dev_scratch_bytes(&t, n, (unsigned)kb, 8, (int)seg, &sbytes,
                                               &host) == PS_OK);
                CHECK(p.region[PS_DEV_TOPK_SORT].off == 0);
                CHECK(p.region[PS_DEV_TOPK_SORT].bytes == sbytes);
                CHECK(p.region[PS_DEV_TOPK_KEYS].bytes == n * kb);
                CHECK(p.region[PS_DEV_TOPK_IDX].bytes == n * 8);
                CHECK(p.slots == (seg ? 6 + 1 : 1) && p.gather == (seg ? n : 1));
                CHECK(p.iota_groups >= 1 && p.iota_groups <= t.max_blocks
                      && p.iota_groups * t.wg >= (n < t.max_blocks * t.wg ? n : 1));
                CHECK(p.gather_groups >= 1 && p.gather_groups <= (seg ? 7 : 1));
                /* k changes the slots, never the scratch. */
                CHECK(ps_dev_plan_topk(&q, &t, n, n + 5, (unsigned)kb, (int)seg, 7, &host)
                      == PS_OK);
                CHECK(q.bytes == p.bytes && q.gather == n);
                CHECK(q.slots == (seg ? 6 * (n + 5) + n : n));
                /* Nothing to do. */
                CHECK(ps_dev_plan_topk(&q, &t, n, 0, (unsigned)kb, (int)seg, 7, &host)
                      == PS_OK && q.bytes == 0 && q.slots == 0);
            }
    {
        ps_dev_tune t = tune_for(&tunes[0], 4, 8);
        snprintf(where, sizeof where, "topk plan refusals");
        CHECK(ps_dev_plan_topk(&p, &t, 0, 5, 4, 1, 0, &host) == PS_OK && p.bytes == 0);
        detail[0] = '\0';
        CHECK(ps_dev_plan_topk(&p, &t, 10, 5, 4, 1, 0, &host) == PS_ERR_INVALID_ARG);
        CHECK(strstr(detail, "no segments") != NULL);
        detail[0] = '\0';
        CHECK(ps_dev_plan_topk(&p, &t, 10, SIZE_MAX / 8, 4, 1, 2, &host)
              == PS_ERR_INVALID_ARG);
        CHECK(strstr(detail, "size_t") != NULL);
        /* The largest k that fits: (2 - 1) * k + 10 slots of 8 bytes. */
        CHECK(ps_dev_topk_slots("t", 10, SIZE_MAX / 8 - 10, 1, 2, &sbytes, &host) == PS_OK);
        CHECK(sbytes == SIZE_MAX / 8);
        CHECK(ps_dev_plan_topk(&p, &t, (size_t)UINT32_MAX + 1, 5, 4, 0, 0, &host)
              == PS_ERR_TOO_LARGE);
        CHECK(ps_dev_plan_topk(&p, &t, 10, 5, 4, 1, (size_t)UINT32_MAX + 1, &host)
              == PS_ERR_TOO_LARGE);
    }
}

/* The records sorts' plan: regions apart, the sort's region the largest
 * of the four key widths' pair-sort scratch (each word's sort runs in
 * it), n x 8 images and permutation, the records' copy only when asked,
 * and nothing depending on more than n and record_bytes. */
static void test_records(void)
{
    static const size_t ns[] = { 0, 1, 2, 300, 5000, 100000 };
    static const size_t rbs[] = { 0, 3, 100 };
    static const int which[] = { 0, 2, 9, 12 };     /* pocl, a GPU, CUDA, the stand-in */
    size_t i, r, w;
    ps_dev_rec_plan p;
    for (i = 0; i < sizeof ns / sizeof *ns; i++)
        for (r = 0; r < sizeof rbs / sizeof *rbs; r++) {
            const named_tune *nt = &tunes[which[(i + r) % 4]];
            ps_dev_tune t[4];
            size_t n = ns[i], most = 0;
            for (w = 0; w < 4; w++) {
                size_t b = 0;
                t[w] = tune_for(nt, 1u << w, 8);
                if (n >= 2)
                    CHECK(ps_dev_scratch_bytes(&t[w], n, 1u << w, 8, 0, &b, &host)
                          == PS_OK);
                most = b > most ? b : most;
            }
            snprintf(where, sizeof where, "records plan n=%zu record_bytes=%zu (%s)",
                     n, rbs[r], nt->name);
            CHECK(ps_dev_plan_records(&p, t, n, rbs[r], &host) == PS_OK);
            if (n == 0) {
                CHECK(p.bytes == 0);
                continue;
            }
            check_regions(p.region, PS_DEV_REC_NREGIONS, p.bytes);
            CHECK(p.region[PS_DEV_REC_SORT].off == 0);
            CHECK(p.region[PS_DEV_REC_SORT].bytes == most);
            CHECK(p.region[PS_DEV_REC_IMG].bytes == n * 8);
            CHECK(p.region[PS_DEV_REC_PERM].bytes == n * 8);
            CHECK(p.region[PS_DEV_REC_COPY].bytes == n * rbs[r]);
            CHECK(p.groups >= 1 && p.groups <= t[3].max_blocks);
            CHECK(rbs[r] == 0 || (p.gather_groups >= 1
                                  && p.gather_groups <= t[3].max_blocks));
        }
    {
        ps_dev_tune t[4];
        for (w = 0; w < 4; w++)
            t[w] = tune_for(&tunes[0], 1u << w, 8);
        snprintf(where, sizeof where, "records plan refusals");
        detail[0] = '\0';
        CHECK(ps_dev_plan_records(&p, t, (size_t)UINT32_MAX + 1, 0, &host)
              == PS_ERR_TOO_LARGE);
        CHECK(strstr(detail, "2^32") != NULL);
        detail[0] = '\0';
        CHECK(ps_dev_plan_records(&p, t, 10, SIZE_MAX / 8, &host) == PS_ERR_TOO_LARGE);
        CHECK(strstr(detail, "size_t") != NULL);
    }
}

/* ps_dev_launch_fits at HIP's limit (2^32 - 1 work-items a launch) and
 * CUDA's (2^31 - 1 blocks), and the HIP segmented plan's worst grids
 * against it: within one launch at 2^24 keys, past it near 2^32 (windows
 * of 16-byte pairs at 2^32 - 1 keys: 2^24 groups of 256, one work-item
 * too many), which is why ps_gpu_seg_enqueue checks its grids. */
static void test_launch_limits(void)
{
    const uint64_t items = 4294967295u, groups = 2147483647u;
    const named_tune *hip = NULL;
    size_t i;
    snprintf(where, sizeof where, "ps_dev_launch_fits");
    CHECK(ps_dev_launch_fits(0, 256, groups, items));
    CHECK(ps_dev_launch_fits(16777215, 256, groups, items));
    CHECK(!ps_dev_launch_fits(16777216, 256, groups, items));
    CHECK(ps_dev_launch_fits(4294967295u, 1, 0, items));
    CHECK(!ps_dev_launch_fits((size_t)4294967296u, 1, 0, items));
    CHECK(ps_dev_launch_fits(groups, 1024, groups, 0));
    CHECK(!ps_dev_launch_fits((size_t)groups + 1, 1, groups, 0));
    CHECK(ps_dev_launch_fits(SIZE_MAX, SIZE_MAX, 0, 0));
    CHECK(!ps_dev_launch_fits(SIZE_MAX, 2, 0, UINT64_MAX));
    CHECK(ps_dev_launch_fits(3, 0, 0, 1));
    for (i = 0; i < sizeof tunes / sizeof *tunes; i++)
        if (strcmp(tunes[i].name, "hip") == 0)
            hip = &tunes[i];
    CHECK(hip != NULL);
    {
        ps_dev_tune t = tune_for(hip, 8, 8);
        ps_dev_seg_plan l;
        snprintf(where, sizeof where, "hip, u64 + 8-byte values, n = 2^24");
        CHECK(ps_dev_plan_segments(&l, &t, (size_t)1 << 24, 8, 8, &host) == PS_OK);
        CHECK(ps_dev_launch_fits(l.nwin, t.wg, groups, items));
        CHECK(ps_dev_launch_fits(l.mcap, t.wg, groups, items));
        CHECK(ps_dev_launch_fits(l.tcap, t.wg, groups, items));
        snprintf(where, sizeof where, "hip, u64 + 8-byte values, n = 2^32 - 1");
        CHECK(ps_dev_plan_segments(&l, &t, 4294967295u, 8, 8, &host) == PS_OK);
        CHECK(!ps_dev_launch_fits(l.nwin, t.wg, groups, items));
        CHECK(ps_dev_launch_fits(l.nwin - 1, t.wg, groups, items));
    }
}

int main(void)
{
    test_layout_basics();
    test_bad_tune();
    test_tunings();
    test_too_large();
    test_seg_overflow();
    test_passes();
    test_large_tiles();
    test_host();
    test_topk();
    test_records();
    test_launch_limits();
    printf("device plan: %ld checks passed\n", checks);
    return 0;
}
