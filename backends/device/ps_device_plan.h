/*
 * ps_device_plan.h - the device plan: the arithmetic that feeds the shared
 * kernels (backends/kernels), written once for the two hosts that launch
 * them, the OpenCL module (backends/opencl) and the CUDA/HIP modules
 * (backends/gpu).  Plain C: no OpenCL, CUDA or HIP header.  Each module
 * links its own copy (backends/device/local.mk); libportsort does not.
 *
 * From a tuning (ps_dev_tune, which each host fills from its own: the
 * OpenCL device's ps_cl_tune, or the PS_GPU_* constants the CUDA and HIP
 * kernels are compiled with) and a size, the plan says which path a sort
 * takes, its tiles, blocks, passes and Onesweep portions, and where every
 * area of its scratch lies: one list of regions, each PS_DEV_ALIGN-aligned,
 * whose end is the scratch size.  The same plan answers the scratch-size
 * queries and runs the sort (as CUB's AliasTemporaries does), so the two
 * cannot disagree.  The hosts keep only their enqueues and copies.
 *
 * The kernels index with 32 bits.  A plan that returns PS_OK keeps every
 * index the kernels compute from it below 2^32: n, the per-block counts,
 * Onesweep's status words, the segmented sort's words.  Where a size or a
 * tuning would make one wrap, the plan clamps what it may (blocks, Onesweep
 * portions) and refuses the rest with PS_ERR_TOO_LARGE, the message naming
 * what to change.
 */
#ifndef PS_DEVICE_PLAN_H
#define PS_DEVICE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "ps_backend.h"

/* Every region of a scratch starts at a multiple of this many bytes, so
 * that element offsets into it stay exact for every key and value width,
 * and the hosts' own layouts (argsort's key copy, staging) use it too. */
#define PS_DEV_ALIGN 256u
/* The most passes (64-bit keys, 1-bit digits) and the most digit-count
 * words (passes x radix: 8 x 256) a sort reads back: hosts size their
 * arrays with these. */
#define PS_DEV_MAX_PASSES 64u
#define PS_DEV_MAX_DIGIT_WORDS 2048u
/* Onesweep's digits are 8 bits wide, whatever the tuning. */
#define PS_DEV_OS_RADIX 256u

/* How the kernels are cut.  A host fills every field; ps_dev_plan_sort
 * refuses (PS_ERR_INVALID_ARG) a tuning outside the ranges below. */
typedef struct ps_dev_tune {
    unsigned wg;            /* work-items per work-group, every kernel */
    unsigned items;         /* keys per work-item in a tile of ps_sort_local,
                               reduce-then-scan and the segmented sort;
                               wg x items is 2 .. 2^24 */
    unsigned bits;          /* reduce-then-scan's digit bits, 1 .. 8 */
    unsigned max_blocks;    /* most work-groups in a pass, >= 1 */
    int onesweep;           /* sorts of more than one tile run Onesweep */
    unsigned os_items;      /* keys per work-item in a tile of Onesweep;
                               wg x os_items is 1 .. 2^24 */
    size_t os_portion;      /* most tiles one Onesweep launch covers, >= 1 */
    unsigned seg_small;     /* the segmented sort's longest small segment,
                               >= 2 (a tile at most is used) */
    unsigned seg_huge;      /* segments of this many keys and more take the
                               plain sort, one each */
    const char *who;        /* the backend's name, first in every message */
    const char *tile_knob;  /* what a user changes for longer tiles, said
                               when a size needs them ("use larger wg or
                               items in PORTSORT_OPENCL_TUNE") */
} ps_dev_tune;

typedef struct ps_dev_region {
    size_t off, bytes;      /* in the scratch; bytes 0: not used */
} ps_dev_region;

/* x rounded up to a multiple of PS_DEV_ALIGN. */
size_t ps_dev_align(size_t x);
/* Appends a region of `bytes` to a layout that ends at *end: returns its
 * offset (*end rounded up to PS_DEV_ALIGN) and moves *end past it.  A
 * region of 0 bytes still aligns *end. */
size_t ps_dev_place(size_t *end, size_t bytes);

/* The regions of a plain sort's scratch.  Those of the path not taken,
 * and every empty one (VALS of a sort of keys alone), have
 * off = bytes = 0. */
enum {
    PS_DEV_KEYS,            /* the alternate keys, n x key bytes */
    PS_DEV_VALS,            /* the alternate values, n x value bytes */
    PS_DEV_COUNTS,          /* reduce-then-scan: radix x blocks counts */
    PS_DEV_TOTALS,          /* reduce-then-scan: every pass's digit totals */
    PS_DEV_BINS,            /* Onesweep: every pass's digit positions */
    PS_DEV_BNEXT,           /* Onesweep: two rows of positions handed from
                               one portion to the next */
    PS_DEV_STATUS,          /* Onesweep: the tile counter, then 256 status
                               words per tile of a portion */
    PS_DEV_NREGIONS
};

/* One plain sort of n keys (key_bytes 1, 2, 4 or 8) with values
 * (val_bytes 0, 4 or 8). */
typedef struct ps_dev_sort_plan {
    size_t n;
    unsigned key_bytes, val_bytes;
    int local;              /* n <= one tile of wg x items keys:
                               ps_sort_local in one work-group, in place,
                               no scratch; only n, tile and bytes are set */
    int onesweep;           /* else reduce-then-scan */
    unsigned digit_bits, radix, passes;   /* of the path taken */
    size_t tile;            /* keys per tile of the path taken */
    size_t ntiles;
    size_t blocks;          /* work-groups of ps_hist, ps_upsweep and
                               ps_downsweep, or of ps_os_hist */
    size_t tiles_per_block; /* reduce-then-scan: each block's run of tiles */
    size_t portion_tiles;   /* Onesweep: tiles per launch ... */
    size_t portions;        /* ... and launches per pass */
    size_t digit_words;     /* words of TOTALS or BINS the host reads back to
                               skip constant digits: passes x radix */
    ps_dev_region region[PS_DEV_NREGIONS];
    size_t bytes;           /* scratch bytes: the last region's end */
} ps_dev_sort_plan;

/* Fills *p for a sort of n keys.  PS_OK; PS_ERR_TOO_LARGE when n is
 * beyond the 2^32 - 1 keys the kernels count; PS_ERR_INVALID_ARG for a
 * tuning out of range (a host's bug).  On an error, host->fail (when host
 * is not NULL) says why, and *p is not to be used. */
int ps_dev_plan_sort(ps_dev_sort_plan *p, const ps_dev_tune *t, size_t n,
                     unsigned key_bytes, unsigned val_bytes, const ps_host *host);

/* The passes to run, in order, into active[] (PS_DEV_MAX_PASSES words at
 * least); returns how many.  digits: NULL to run every pass, or the
 * p->digit_words words read back from TOTALS (reduce-then-scan: every
 * digit's count, pass-major) or BINS (Onesweep: every digit's first
 * position); a pass whose digit is the same for all n keys is dropped. */
unsigned ps_dev_plan_passes(const ps_dev_sort_plan *p, const uint32_t *digits,
                            unsigned *active);

/* Onesweep: launch i (0 .. p->portions - 1) of the pass over digit
 * `digit` (the pass's index, 0 for the lowest byte). */
typedef struct ps_dev_portion {
    size_t first, len;      /* its keys, n > first, len < 2^30 */
    size_t groups;          /* work-groups: its tiles */
    uint64_t bins_word;     /* word offset in the scratch where its digits'
                               first positions are (BINS for launch 0,
                               else the row of BNEXT launch i - 1 wrote) */
    uint64_t bnext_word;    /* where it leaves the next launch's */
} ps_dev_portion;

ps_dev_portion ps_dev_plan_portion(const ps_dev_sort_plan *p, unsigned digit,
                                   size_t i);

/* The regions of a segmented sort's scratch.  SORTS is the scratch of the
 * plain sorts of the huge segments, one at a time, from the start (the
 * sorts' own layout for any length up to n fits in it); KEYS and VALS are
 * the alternate arrays of the large segments sorted together, inside
 * SORTS, which they share in the queue's order; WORDS holds the
 * classification's words (ps_seg_classify), the tiles' descriptors and
 * their digit counts. */
enum {
    PS_DEV_SEG_SORTS,
    PS_DEV_SEG_KEYS,
    PS_DEV_SEG_VALS,
    PS_DEV_SEG_WORDS,
    PS_DEV_SEG_NREGIONS
};

typedef struct ps_dev_seg_plan {
    size_t n;
    unsigned key_bytes, val_bytes;
    size_t tile;            /* keys per tile: wg x items */
    size_t small;           /* the small class's longest segment */
    size_t huge;            /* shortest segment sorted alone */
    unsigned digit_bits, radix, passes;   /* of the large segments' tiles */
    /* Word indices in WORDS, as ps_seg_classify takes them: 4 counts, the
     * large list (lcap pairs) at lbase, the medium list (mcap pairs) at
     * mbase, the windows' first segments (nwin + 1) at wbase; then the
     * large tiles' descriptors (5 words each, tcap of them) at dbase and
     * their digit counts (radix x tcap) at cbase. */
    uint32_t lbase, lcap, mbase, mcap, wbase, nwin, dbase, tcap, cbase;
    size_t info_words;      /* lbase + 2 x lcap: the words read back */
    ps_dev_region region[PS_DEV_SEG_NREGIONS];
    size_t bytes;           /* 0 when n < 2 */
} ps_dev_seg_plan;

/* Fills *s for a segmented sort of n keys.  PS_OK; PS_ERR_TOO_LARGE when
 * n is beyond 2^32 - 1 or the words would need indices of 32 bits or more
 * (tiles too small for n: the message says so, with t->tile_knob);
 * PS_ERR_INVALID_ARG for a tuning out of range.  host->fail as above. */
int ps_dev_plan_segments(ps_dev_seg_plan *s, const ps_dev_tune *t, size_t n,
                         unsigned key_bytes, unsigned val_bytes,
                         const ps_host *host);

/* The scratch bytes of a plain sort (segments 0) or a segmented sort (1)
 * of n keys in *bytes: those of the plan that sort makes, so a query and
 * the sort after it with the same tuning agree.  PS_OK, or the plan's
 * refusal (host->fail as above). */
int ps_dev_scratch_bytes(const ps_dev_tune *t, size_t n, unsigned key_bytes,
                         unsigned val_bytes, int segments, size_t *bytes,
                         const ps_host *host);

/* A top-k of device arrays (the device API's topk and topk_segments):
 * the sort's scratch first, at offset 0 where the OpenCL host's sorts take
 * theirs, then a copy of the keys and their 64-bit indices, which the
 * stable pair sort (plain, or segmented on the caller's offsets) orders
 * before ps_topk_gather (backends/kernels/ps_kernel_topk.cl) writes the
 * results.  Nothing depends on the values: they are gathered, not sorted. */
enum {
    PS_DEV_TOPK_SORT,       /* the pair sort's scratch (8-byte values) */
    PS_DEV_TOPK_KEYS,       /* n x key bytes */
    PS_DEV_TOPK_IDX,        /* n x 8 */
    PS_DEV_TOPK_NREGIONS
};

typedef struct ps_dev_topk_plan {
    size_t n, k;
    unsigned key_bytes;
    int segments;
    size_t gather;          /* ps_topk_gather's m: min(k, n) positions,
                               or with segments n (the offsets' bound) */
    size_t slots;           /* elements every output array must hold:
                               min(k, n), or with segments
                               (num_segments - 1) x k + min(k, n), the
                               last slot a segment's result can reach
                               whatever the offsets; 0 when n or k is 0 */
    size_t iota_groups;     /* work-groups of ps_topk_iota (n items) */
    size_t gather_groups;   /* of ps_topk_gather: min(k, n) items, or a
                               work-group per segment */
    ps_dev_region region[PS_DEV_TOPK_NREGIONS];
    size_t bytes;           /* 0 when n or k is 0: nothing runs */
} ps_dev_topk_plan;

/* The slots of a top-k (ps_dev_topk_plan's) in *slots, which the device
 * APIs check the output arrays against before any plan: PS_OK; or
 * PS_ERR_INVALID_ARG, with host->fail naming `who`, for segments with
 * num_segments 0 (and results to write), or slots that at 8 bytes each
 * would not fit in size_t. */
int ps_dev_topk_slots(const char *who, size_t n, size_t k, int segments,
                      size_t num_segments, size_t *slots, const ps_host *host);

/* Fills *p for a top-k of k of n keys, plain (segments 0) or per segment
 * of num_segments (>= 1).  PS_OK; PS_ERR_TOO_LARGE when n or num_segments
 * is beyond 2^32 - 1 or the sort's plan refuses; PS_ERR_INVALID_ARG when
 * the slots, at 8 bytes each, would not fit in size_t, for segments with
 * num_segments 0 (and results to write), or for a tuning out of range.
 * With n or k 0 it is PS_OK with bytes 0.  host->fail as above. */
int ps_dev_plan_topk(ps_dev_topk_plan *p, const ps_dev_tune *t, size_t n,
                     size_t k, unsigned key_bytes, int segments,
                     size_t num_segments, const ps_host *host);

/* A records or columns sort of device arrays (the device APIs'
 * sort_records, argsort_records and argsort_columns): the pair sort's
 * scratch first (the largest of the four key widths' with 8-byte values,
 * so that one size serves every word of any plan), then the images of
 * one word (n x 8 bytes, whatever its width), the permutation (n x 8) and,
 * for sort_records, the records gathered through it (n x record_bytes)
 * before they are copied back.  The words and shifts are lib/ps_recplan.h's;
 * the kernels backends/kernels/ps_kernel_records.cl. */
enum {
    PS_DEV_REC_SORT,
    PS_DEV_REC_IMG,
    PS_DEV_REC_PERM,
    PS_DEV_REC_COPY,
    PS_DEV_REC_NREGIONS
};

typedef struct ps_dev_rec_plan {
    size_t n;
    size_t record_bytes;    /* of COPY's records: 0 for the argsorts */
    size_t groups;          /* work-groups of ps_topk_iota and ps_rec_key */
    size_t gather_groups;   /* of ps_rec_gather (n x record_bytes items) */
    ps_dev_region region[PS_DEV_REC_NREGIONS];
    size_t bytes;           /* 0 when n is 0 */
} ps_dev_rec_plan;

/* Fills *p for n rows; tune[i] is the tuning of keys of 1 << i bytes
 * with 8-byte values (i = 0 .. 3).  record_bytes: the record's size for
 * sort_records, 0 otherwise.  PS_OK; PS_ERR_TOO_LARGE when n is beyond
 * 2^32 - 1, the records' copy would not fit in size_t, or a sort's plan
 * refuses; PS_ERR_INVALID_ARG for a tuning out of range.  host->fail as
 * above.  The bytes depend on n and record_bytes only, not on the keys,
 * so the scratch-size queries need no fields. */
int ps_dev_plan_records(ps_dev_rec_plan *p, const ps_dev_tune tune[4], size_t n,
                        size_t record_bytes, const ps_host *host);

/* A sort of the caller's host arrays: one device buffer holds the keys,
 * the values, the segment offsets and the sort's scratch, in that order
 * (a host that makes a buffer each takes the sizes alone), and the results
 * come back into one host staging buffer, keys then values at the same
 * offsets, before the caller's arrays are written, all or nothing. */
enum {
    PS_DEV_HOST_KEYS,       /* n x key bytes */
    PS_DEV_HOST_VALS,       /* n x value bytes */
    PS_DEV_HOST_OFFS,       /* the segments' num_segments + 1 offsets, 64-bit */
    PS_DEV_HOST_SCRATCH,    /* the plain or segmented sort's scratch */
    PS_DEV_HOST_NREGIONS
};

typedef struct ps_dev_host_plan {
    ps_dev_region region[PS_DEV_HOST_NREGIONS];
    size_t bytes;           /* the device buffer: the last region's end */
    size_t stage_bytes;     /* the host staging: keys and values at their
                               offsets above */
} ps_dev_host_plan;

/* Fills *h for a host-array sort of n keys: a plain one when segments is
 * 0, else one of num_segments segments.  PS_OK; PS_ERR_TOO_LARGE when n
 * or num_segments is beyond the 2^32 - 1 the kernels count, or the sort's
 * plan refuses; PS_ERR_INVALID_ARG for a tuning out of range.  host->fail
 * as above. */
int ps_dev_plan_host(ps_dev_host_plan *h, const ps_dev_tune *t, size_t n,
                     unsigned key_bytes, unsigned val_bytes, int segments,
                     size_t num_segments, const ps_host *host);

/* The host staging buffer *buf (of *cap bytes, from host->alloc) grown to
 * at least `bytes`, before any device work so that its failure leaves
 * nothing to undo: PS_OK, or PS_ERR_NO_MEMORY with host->fail naming
 * `who` (*buf NULL, *cap 0). */
int ps_dev_stage_reserve(const ps_host *host, const char *who, void **buf,
                         size_t *cap, size_t bytes);

/* The large list read back (nl (start, length) pairs): puts the segments
 * shorter than s->huge first, which are sorted together in tiles, and
 * returns how many they are; the huge ones follow. */
size_t ps_dev_seg_batch_first(const ps_dev_seg_plan *s, uint32_t *list, size_t nl);
/* Tiles of the first nl segments of list, at most s->tcap. */
size_t ps_dev_seg_tiles(const ps_dev_seg_plan *s, const uint32_t *list, size_t nl);
/* Their descriptors, 5 words per tile (ps_seg_up in the kernels): first
 * key, keys in the tile, the word of digit 0's count, the stride between
 * digits' counts, the segment's start minus the keys of the segments
 * before it (mod 2^32).  desc holds 5 x ps_dev_seg_tiles() words. */
void ps_dev_seg_describe(const ps_dev_seg_plan *s, const uint32_t *list,
                         size_t nl, uint32_t *desc);

/* Whether a launch of `groups` work-groups of `wg` work-items each is
 * within a runtime's limits: at most max_groups groups (CUDA's grid is at
 * most 2^31 - 1 blocks in x) and at most max_items work-items in all (HIP
 * launches at most 2^32 - 1), a limit of 0 meaning none.  No launch
 * (groups 0) always fits.  The products are not formed, so nothing wraps
 * whatever the sizes. */
int ps_dev_launch_fits(size_t groups, size_t wg, uint64_t max_groups,
                       uint64_t max_items);

#endif /* PS_DEVICE_PLAN_H */
