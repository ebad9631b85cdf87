/*
 * ps_device_plan.c - the device plan (see ps_device_plan.h): tiles,
 * blocks, passes, Onesweep portions and scratch layouts, for the OpenCL
 * and the CUDA/HIP hosts alike.
 */
#include <config.h>

#include "ps_device_plan.h"

/* Onesweep's status words carry 30-bit counts: a portion holds fewer keys. */
#define OS_PORTION_KEYS (((size_t)1 << 30) - 1)
/* The longest tile the plan takes: tile arithmetic in the kernels' 32 bits
 * stays far from wrapping. */
#define MAX_TILE ((size_t)1 << 24)

size_t ps_dev_align(size_t x)
{
    return (x + PS_DEV_ALIGN - 1) / PS_DEV_ALIGN * PS_DEV_ALIGN;
}

size_t ps_dev_place(size_t *end, size_t bytes)
{
    size_t off = ps_dev_align(*end);
    *end = off + bytes;
    return off;
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static size_t div_up(size_t a, size_t b)
{
    return a / b + (a % b != 0);
}

/* A tuning the kernels cannot be built or run with is the host's bug; it
 * is refused rather than planned around. */
static int tune_ok(const ps_dev_tune *t, const ps_host *host)
{
    size_t tile = (size_t)t->wg * t->items, os_tile = (size_t)t->wg * t->os_items;
    if (t->wg >= 1 && t->items >= 1 && tile >= 2 && tile <= MAX_TILE && t->bits >= 1
        && t->bits <= 8 && t->max_blocks >= 1 && t->seg_small >= 2
        && (!t->onesweep || (t->os_items >= 1 && os_tile <= MAX_TILE
                             && t->os_portion >= 1)))
        return PS_OK;
    if (host != NULL)
        host->fail("%s: device tuning out of range (wg %u, items %u, bits %u, "
                   "blocks %u, onesweep items %u, portion %zu, seg %u)", t->who,
                   t->wg, t->items, t->bits, t->max_blocks, t->os_items,
                   t->os_portion, t->seg_small);
    return PS_ERR_INVALID_ARG;
}

/* Most blocks of a reduce-then-scan pass: the tuning's, and few enough
 * that the radix x blocks counts (ps_scan's length) stay below 2^32. */
static size_t most_blocks(const ps_dev_tune *t)
{
    return min_size(t->max_blocks, UINT32_MAX >> t->bits);
}

/* The regions listed in order, each placed after the one before; an
 * empty one is left at offset 0, so that the layout ends with the last
 * region that holds something, not with the padding before an empty one. */
static size_t place_all(ps_dev_region *r, const int *order, size_t count)
{
    size_t end = 0, i;
    for (i = 0; i < count; i++)
        r[order[i]].off = r[order[i]].bytes > 0 ? ps_dev_place(&end, r[order[i]].bytes)
                                                : 0;
    return end;
}

static void plan_portable(ps_dev_sort_plan *p, const ps_dev_tune *t)
{
    static const int order[] = { PS_DEV_KEYS, PS_DEV_VALS, PS_DEV_COUNTS,
                                 PS_DEV_TOTALS };
    size_t b;
    p->digit_bits = t->bits;
    p->ntiles = div_up(p->n, p->tile);     /* the tile of wg x items */
    b = min_size(p->ntiles, most_blocks(t));
    /* Whole tiles per block, then as few blocks as that needs. */
    p->tiles_per_block = div_up(p->ntiles, b);
    p->blocks = div_up(p->ntiles, p->tiles_per_block);
    p->radix = 1u << p->digit_bits;
    p->passes = (8u * p->key_bytes + p->digit_bits - 1) / p->digit_bits;
    p->region[PS_DEV_COUNTS].bytes = (size_t)p->radix * p->blocks * 4;
    p->region[PS_DEV_TOTALS].bytes = (size_t)p->passes * p->radix * 4;
    p->bytes = place_all(p->region, order, sizeof order / sizeof *order);
}

static void plan_onesweep(ps_dev_sort_plan *p, const ps_dev_tune *t)
{
    static const int order[] = { PS_DEV_KEYS, PS_DEV_VALS, PS_DEV_BINS,
                                 PS_DEV_BNEXT, PS_DEV_STATUS };
    size_t most;
    p->onesweep = 1;
    p->digit_bits = 8;
    p->tile = (size_t)t->wg * t->os_items;
    p->ntiles = div_up(p->n, p->tile);
    p->blocks = min_size(p->ntiles, t->max_blocks);
    p->radix = PS_DEV_OS_RADIX;
    p->passes = p->key_bytes;
    /* A portion's keys fit the status words' 30-bit counts, and the index
     * of its last tile's last status word (tile x 256 + digit, after the
     * row of the tile counter) 32 bits. */
    most = min_size(OS_PORTION_KEYS / p->tile,
                    ((size_t)UINT32_MAX + 1) / PS_DEV_OS_RADIX);
    p->portion_tiles = min_size(min_size(p->ntiles, t->os_portion), most);
    p->portions = div_up(p->ntiles, p->portion_tiles);
    p->region[PS_DEV_BINS].bytes = (size_t)p->passes * PS_DEV_OS_RADIX * 4;
    p->region[PS_DEV_BNEXT].bytes = 2 * PS_DEV_OS_RADIX * 4;
    p->region[PS_DEV_STATUS].bytes = (1 + p->portion_tiles) * PS_DEV_OS_RADIX * 4;
    p->bytes = place_all(p->region, order, sizeof order / sizeof *order);
}

int ps_dev_plan_sort(ps_dev_sort_plan *p, const ps_dev_tune *t, size_t n,
                     unsigned key_bytes, unsigned val_bytes, const ps_host *host)
{
    int st = tune_ok(t, host);
    if (st != PS_OK)
        return st;
    /* The kernels count keys in 32 bits. */
    if (n > UINT32_MAX) {
        if (host != NULL)
            host->fail("%s: n = %zu is beyond the 2^32 - 1 keys the kernels count",
                       t->who, n);
        return PS_ERR_TOO_LARGE;
    }
    *p = (ps_dev_sort_plan){ .n = n, .key_bytes = key_bytes, .val_bytes = val_bytes,
                             .tile = (size_t)t->wg * t->items };
    if (n <= p->tile) {
        p->local = 1;
        return PS_OK;
    }
    p->region[PS_DEV_KEYS].bytes = n * key_bytes;
    p->region[PS_DEV_VALS].bytes = n * val_bytes;
    if (t->onesweep)
        plan_onesweep(p, t);
    else
        plan_portable(p, t);
    p->digit_words = (size_t)p->passes * p->radix;
    return PS_OK;
}

unsigned ps_dev_plan_passes(const ps_dev_sort_plan *p, const uint32_t *digits,
                            unsigned *active)
{
    uint32_t n = (uint32_t)p->n;
    unsigned pass, d, count = 0;
    for (pass = 0; pass < p->passes; pass++) {
        const uint32_t *w = digits != NULL ? digits + (size_t)pass * p->radix : NULL;
        int constant = 0;
        /* Counts: one digit holds all n keys.  Positions: the gap from one
         * digit's first position to the next one's is n. */
        for (d = 0; w != NULL && d < p->radix && !constant; d++) {
            uint32_t count_d = p->onesweep ? (d + 1 < p->radix ? w[d + 1] : n) - w[d]
                                           : w[d];
            constant = count_d == n;
        }
        if (!constant)
            active[count++] = pass;
    }
    return count;
}

ps_dev_portion ps_dev_plan_portion(const ps_dev_sort_plan *p, unsigned digit,
                                   size_t i)
{
    ps_dev_portion q;
    size_t keys = p->portion_tiles * p->tile;
    uint64_t bins = p->region[PS_DEV_BINS].off / 4;
    uint64_t bnext = p->region[PS_DEV_BNEXT].off / 4;
    q.first = i * keys;
    q.len = min_size(p->n - q.first, keys);
    q.groups = div_up(q.len, p->tile);
    /* Launch i reads the row launch i - 1 wrote, and writes the other. */
    q.bins_word = i == 0 ? bins + (uint64_t)digit * PS_DEV_OS_RADIX
                         : bnext + (uint64_t)((i - 1) & 1) * PS_DEV_OS_RADIX;
    q.bnext_word = bnext + (uint64_t)(i & 1) * PS_DEV_OS_RADIX;
    return q;
}

int ps_dev_plan_segments(ps_dev_seg_plan *s, const ps_dev_tune *t, size_t n,
                         unsigned key_bytes, unsigned val_bytes,
                         const ps_host *host)
{
    static const int order[] = { PS_DEV_SEG_SORTS, PS_DEV_SEG_WORDS };
    ps_dev_sort_plan whole;
    uint64_t lcap, mcap, nwin, tcap, words;
    /* The plain sort of all n keys (which checks the tuning and n): its
     * alternate arrays are those of the large segments' tiles.  A plain
     * sort of fewer keys may have more blocks (fewer tiles each) and so
     * more counts: the slack below covers the counts of the most blocks. */
    int st = ps_dev_plan_sort(&whole, t, n, key_bytes, val_bytes, host);
    if (st != PS_OK)
        return st;
    *s = (ps_dev_seg_plan){ .n = n, .key_bytes = key_bytes, .val_bytes = val_bytes,
                            .tile = (size_t)t->wg * t->items, .huge = t->seg_huge,
                            .digit_bits = t->bits, .radix = 1u << t->bits,
                            .passes = (8u * key_bytes + t->bits - 1) / t->bits };
    s->small = min_size(t->seg_small, s->tile);
    if (n < 2)
        return PS_OK;
    s->region[PS_DEV_SEG_SORTS].bytes = whole.bytes;
    if (whole.bytes > 0)
        s->region[PS_DEV_SEG_SORTS].bytes += ps_dev_align((size_t)4 * s->radix
                                                          * most_blocks(t));
    s->region[PS_DEV_SEG_KEYS] = whole.region[PS_DEV_KEYS];
    s->region[PS_DEV_SEG_VALS] = whole.region[PS_DEV_VALS];
    /* In 64 bits, then checked: with tiny tiles (wg=1,items=2 on OpenCL)
     * the last word index is several times n and would wrap the kernels'
     * 32 bits from about 2^24 keys on; the default tiles keep it near n / 4. */
    lcap = n / (s->tile + 1) + 1;
    mcap = n / (s->small + 1) + 1;
    nwin = div_up(n, s->tile);
    tcap = nwin + lcap;   /* large segments cut into tiles: one partial each */
    words = 4 + 2 * lcap + 2 * mcap + nwin + 1 + 5 * tcap + (uint64_t)s->radix * tcap;
    if (words > UINT32_MAX) {
        if (host != NULL)
            host->fail("%s: sort_segments: %zu keys are too many for tiles of %zu "
                       "keys (the scratch words' 32-bit indices would wrap): %s",
                       t->who, n, s->tile, t->tile_knob);
        return PS_ERR_TOO_LARGE;
    }
    s->lcap = (uint32_t)lcap;
    s->mcap = (uint32_t)mcap;
    s->nwin = (uint32_t)nwin;
    s->tcap = (uint32_t)tcap;
    s->lbase = 4;
    s->mbase = s->lbase + 2 * s->lcap;
    s->wbase = s->mbase + 2 * s->mcap;
    s->dbase = s->wbase + s->nwin + 1;
    s->cbase = s->dbase + 5 * s->tcap;
    s->info_words = (size_t)s->lbase + 2 * s->lcap;
    s->region[PS_DEV_SEG_WORDS].bytes = (size_t)words * 4;
    s->bytes = place_all(s->region, order, sizeof order / sizeof *order);
    return PS_OK;
}

int ps_dev_scratch_bytes(const ps_dev_tune *t, size_t n, unsigned key_bytes,
                         unsigned val_bytes, int segments, size_t *bytes,
                         const ps_host *host)
{
    ps_dev_sort_plan p;
    ps_dev_seg_plan s;
    int st = segments ? ps_dev_plan_segments(&s, t, n, key_bytes, val_bytes, host)
                      : ps_dev_plan_sort(&p, t, n, key_bytes, val_bytes, host);
    if (st == PS_OK)
        *bytes = segments ? s.bytes : p.bytes;
    return st;
}

int ps_dev_topk_slots(const char *who, size_t n, size_t k, int segments,
                      size_t num_segments, size_t *slots, const ps_host *host)
{
    size_t first = k < n ? k : n;
    *slots = 0;
    if (first == 0)
        return PS_OK;
    if (segments && num_segments == 0) {
        if (host != NULL)
            host->fail("%s: no segments for %zu keys (the offsets must reach n)",
                       who, n);
        return PS_ERR_INVALID_ARG;
    }
    /* Segment i's results start at slot i x k: the last segment's may
     * reach (num_segments - 1) x k + min(k, n) - 1, which must be a byte
     * offset (8-byte indices) that size_t holds. */
    if (segments && num_segments > 1
        && k > (SIZE_MAX / 8 - first) / (num_segments - 1)) {
        if (host != NULL)
            host->fail("%s: %zu segments of up to %zu results each: the slots "
                       "would pass the largest size_t; use a smaller k", who,
                       num_segments, k);
        return PS_ERR_INVALID_ARG;
    }
    *slots = segments ? (num_segments - 1) * k + first : first;
    return PS_OK;
}

int ps_dev_plan_topk(ps_dev_topk_plan *p, const ps_dev_tune *t, size_t n,
                     size_t k, unsigned key_bytes, int segments,
                     size_t num_segments, const ps_host *host)
{
    static const int order[] = { PS_DEV_TOPK_SORT, PS_DEV_TOPK_KEYS,
                                 PS_DEV_TOPK_IDX };
    size_t first = k < n ? k : n, sbytes = 0, blocks;
    int st;
    *p = (ps_dev_topk_plan){ .n = n, .k = k, .key_bytes = key_bytes,
                             .segments = segments };
    if (n > UINT32_MAX || (segments && num_segments > UINT32_MAX)) {
        if (host != NULL)
            host->fail("%s: %zu %s beyond the 2^32 - 1 the kernels count", t->who,
                       n > UINT32_MAX ? n : num_segments,
                       n > UINT32_MAX ? "keys are" : "segments are");
        return PS_ERR_TOO_LARGE;
    }
    if (first == 0)
        return PS_OK;
    st = ps_dev_topk_slots(t->who, n, k, segments, num_segments, &p->slots, host);
    if (st != PS_OK)
        return st;
    p->gather = segments ? n : first;
    if (n >= 2) {
        st = ps_dev_scratch_bytes(t, n, key_bytes, 8, segments, &sbytes, host);
        if (st != PS_OK)
            return st;
    }
    blocks = div_up(n, t->wg);
    p->iota_groups = blocks < t->max_blocks ? blocks : t->max_blocks;
    blocks = segments ? num_segments : div_up(first, t->wg);
    p->gather_groups = blocks < t->max_blocks ? blocks : t->max_blocks;
    p->region[PS_DEV_TOPK_SORT].bytes = sbytes;
    p->region[PS_DEV_TOPK_KEYS].bytes = n * key_bytes;
    p->region[PS_DEV_TOPK_IDX].bytes = n * 8;
    p->bytes = place_all(p->region, order, sizeof order / sizeof *order);
    return PS_OK;
}

int ps_dev_plan_records(ps_dev_rec_plan *p, const ps_dev_tune tune[4], size_t n,
                        size_t record_bytes, const ps_host *host)
{
    static const int order[] = { PS_DEV_REC_SORT, PS_DEV_REC_IMG, PS_DEV_REC_PERM,
                                 PS_DEV_REC_COPY };
    size_t sbytes = 0, blocks;
    unsigned i;
    *p = (ps_dev_rec_plan){ .n = n, .record_bytes = record_bytes };
    if (n > UINT32_MAX) {
        if (host != NULL)
            host->fail("%s: n = %zu is beyond the 2^32 - 1 keys the kernels count",
                       tune[3].who, n);
        return PS_ERR_TOO_LARGE;
    }
    /* Three regions of n x 8 bytes, the copy, and the sort's: far from
     * SIZE_MAX for any n the kernels count, but the copy may not be. */
    if (record_bytes > 0 && n > (SIZE_MAX / 4) / record_bytes) {
        if (host != NULL)
            host->fail("%s: %zu records of %zu bytes: the scratch would pass "
                       "the largest size_t", tune[3].who, n, record_bytes);
        return PS_ERR_TOO_LARGE;
    }
    if (n == 0)
        return PS_OK;
    for (i = 0; i < 4 && n >= 2; i++) {
        size_t b = 0;
        int st = ps_dev_scratch_bytes(&tune[i], n, 1u << i, 8, 0, &b, host);
        if (st != PS_OK)
            return st;
        sbytes = b > sbytes ? b : sbytes;
    }
    blocks = div_up(n, tune[3].wg);
    p->groups = blocks < tune[3].max_blocks ? blocks : tune[3].max_blocks;
    blocks = div_up(n * record_bytes, tune[3].wg);
    p->gather_groups = blocks < tune[3].max_blocks ? blocks : tune[3].max_blocks;
    p->region[PS_DEV_REC_SORT].bytes = sbytes;
    p->region[PS_DEV_REC_IMG].bytes = n * 8;
    p->region[PS_DEV_REC_PERM].bytes = n * 8;
    p->region[PS_DEV_REC_COPY].bytes = n * record_bytes;
    p->bytes = place_all(p->region, order, sizeof order / sizeof *order);
    return PS_OK;
}

int ps_dev_plan_host(ps_dev_host_plan *h, const ps_dev_tune *t, size_t n,
                     unsigned key_bytes, unsigned val_bytes, int segments,
                     size_t num_segments, const ps_host *host)
{
    static const int order[] = { PS_DEV_HOST_KEYS, PS_DEV_HOST_VALS,
                                 PS_DEV_HOST_OFFS, PS_DEV_HOST_SCRATCH };
    size_t sbytes = 0;
    int st;
    /* n is checked by the sort's plan; the segments' count here, before
     * (num_segments + 1) x 8 could wrap. */
    if (segments && num_segments > UINT32_MAX) {
        if (host != NULL)
            host->fail("%s: %zu segments are beyond the 2^32 - 1 the kernels "
                       "count", t->who, num_segments);
        return PS_ERR_TOO_LARGE;
    }
    st = ps_dev_scratch_bytes(t, n, key_bytes, val_bytes, segments, &sbytes, host);
    if (st != PS_OK)
        return st;
    *h = (ps_dev_host_plan){ .bytes = 0 };
    h->region[PS_DEV_HOST_KEYS].bytes = n * key_bytes;
    h->region[PS_DEV_HOST_VALS].bytes = n * val_bytes;
    h->region[PS_DEV_HOST_OFFS].bytes = segments ? (num_segments + 1) * 8 : 0;
    h->region[PS_DEV_HOST_SCRATCH].bytes = sbytes;
    h->bytes = place_all(h->region, order, sizeof order / sizeof *order);
    /* The staging mirrors the keys and values of the device buffer. */
    h->stage_bytes = h->region[PS_DEV_HOST_KEYS].bytes;
    if (val_bytes > 0)
        h->stage_bytes = h->region[PS_DEV_HOST_VALS].off + h->region[PS_DEV_HOST_VALS].bytes;
    return PS_OK;
}

int ps_dev_stage_reserve(const ps_host *host, const char *who, void **buf,
                         size_t *cap, size_t bytes)
{
    if (*cap >= bytes)
        return PS_OK;
    host->release(*buf);
    *cap = 0;
    *buf = host->alloc(bytes);
    if (*buf == NULL) {
        host->fail("%s: cannot allocate %zu bytes of host memory for the sorted "
                   "output", who, bytes);
        return PS_ERR_NO_MEMORY;
    }
    *cap = bytes;
    return PS_OK;
}

size_t ps_dev_seg_batch_first(const ps_dev_seg_plan *s, uint32_t *list, size_t nl)
{
    size_t lo = 0, hi = nl;
    while (lo < hi) {
        if (list[2 * lo + 1] < s->huge) {
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

size_t ps_dev_seg_tiles(const ps_dev_seg_plan *s, const uint32_t *list, size_t nl)
{
    size_t i, tiles = 0;
    for (i = 0; i < nl; i++)
        tiles += div_up(list[2 * i + 1], s->tile);
    return tiles;
}

void ps_dev_seg_describe(const ps_dev_seg_plan *s, const uint32_t *list,
                         size_t nl, uint32_t *desc)
{
    uint32_t tile = (uint32_t)s->tile, done = 0, nt = 0;
    size_t i;
    for (i = 0; i < nl; i++) {
        uint32_t a = list[2 * i], m = list[2 * i + 1], j;
        uint32_t segt = (uint32_t)div_up(m, tile);
        for (j = 0; j < segt; j++, nt++) {
            uint32_t *d = desc + 5 * (size_t)nt;
            d[0] = a + j * tile;                    /* first key */
            d[1] = m - j * tile < tile ? m - j * tile : tile;
            d[2] = (nt - j) * s->radix + j;         /* digit 0's count */
            d[3] = segt;                            /* digit stride */
            d[4] = a - done;                        /* mod 2^32 */
        }
        done += m;
    }
}

int ps_dev_launch_fits(size_t groups, size_t wg, uint64_t max_groups,
                       uint64_t max_items)
{
    if (groups == 0)
        return 1;
    if (max_groups != 0 && (uint64_t)groups > max_groups)
        return 0;
    return max_items == 0 || wg == 0 || (uint64_t)groups <= max_items / wg;
}
