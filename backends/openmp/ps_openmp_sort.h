/*
 * ps_openmp_sort.h - what the OpenMP backend's three layers share:
 *
 *   the top      ps_openmp.c, the ops table and the backend's settings;
 *                ps_openmp_plan.c, the plan of a sort and the layout of
 *                its scratch; ps_openmp_scratch.c, the cache of scratch
 *                blocks; ps_openmp_segments.c, the segmented sort (what
 *                these share: ps_openmp_plan.h);
 *   the control  the sort, written once for every key width:
 *                ps_openmp_msd.c, the MSD recursion (one thread or the
 *                team), the level budget, the packed route's first pass;
 *                ps_openmp_leaf-inl.h, which it includes, the leaves: the
 *                choice of a leaf sort and its passes, the packed route's
 *                leaves;
 *   the kernels  ps_openmp_kernels.c, the loops over keys, compiled once
 *                per key width from ps_openmp_kernels-inl.h (and
 *                ps_openmp_packed-inl.h for 4-byte pairs) and handed to
 *                the control as one table per width (ps_omp_kernels);
 *
 * and the threads, ps_openmp_team.c: a pool the library owns, and the
 * phases the top and the control hand its members.
 *
 * Each layer calls only the one below it (and ps_openmp_net.c, the
 * sorting networks, at the bottom), but for arrays and segments too small
 * for a plan, which the top hands to a kernel's insertion sort or
 * networks itself.  The control calls a kernel once per
 * pass or per leaf, never per key: every loop over keys lives inside a
 * kernel, specialised there for its width, value size and key transform.
 */
#ifndef PS_OPENMP_SORT_H
#define PS_OPENMP_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "ps_backend.h"

/* Digit widths, chosen by measurement (doc/results-openmp.md).  An MSD
 * pass takes up to PS_MSD_BITS bits, as many as needed to cut its range into
 * leaf-sized buckets (msd_bits); beyond 4096 buckets their write-combining
 * buffers (1 MiB at 256 bytes each) would no longer fit in L2.  Leaf passes
 * take at most PS_LEAF_BITS bits, split evenly over the bits a leaf sorts:
 * 12 rather than 11 lets leaves of 23-24 bits (u32 at 256K-1M keys) finish
 * in two passes instead of three, 14-20% faster at 1M keys and pairs, no
 * slower elsewhere (interleaved runs, 2 threads). */
#define PS_MSD_BITS 12
#define PS_MSD_RADIX (1u << PS_MSD_BITS)
#define PS_LEAF_BITS 12
#define PS_MAX_LEAF_DIGITS ((64 + PS_LEAF_BITS - 1) / PS_LEAF_BITS)
/* MSD levels: each keeps its bucket bounds in tl->bounds[depth] while its
 * buckets are sorted, so the recursion may never go deeper (the level
 * budget, as vqsort's remaining_levels).  A range at depth
 * PS_MAX_DEPTH - 1 is a leaf, whatever its size (is_leaf), and the team
 * hands no bucket on at that depth (team_worthy); every leaf sort is
 * correct for any size below 2^32 and any distribution.  A range above
 * 2^32 keys never reaches that depth: its passes take all PS_MSD_BITS
 * bits (msd_bits), so 64-bit keys run out of bits first (static
 * assertion below).  Skewed data, which splits badly level after level,
 * takes wide passes too (msd_bits' `skew`), so it seldom meets the
 * budget; when it does, it is slower, never wrong. */
#define PS_MAX_DEPTH 8
/* A leaf with bits for four or more passes left and at most
 * 2^(PS_SPLIT_BITS + 1) keys (u64 keys, mostly) is split once by its top
 * PS_SPLIT_BITS bits instead, and the buckets, of about one key each,
 * finished by one insertion sort over the leaf (finish_buckets); a bucket
 * above PS_SPLIT_SMALL keys (skewed data) becomes a leaf of its own when
 * that is cheaper.  Measured on random u64 at 16M: 10-18% faster than the
 * four or five LSD passes (doc/results-openmp.md); 13 bits rather than 12
 * let the 8K-key leaves of 16M keys have a bucket per key: 8% faster at 4M
 * and 16M (2 threads, interleaved runs).  14 bits measured the same. */
#define PS_SPLIT_BITS 13
#define PS_SPLIT_SMALL 16
_Static_assert((PS_MAX_LEAF_DIGITS << PS_LEAF_BITS) >= (1 << PS_SPLIT_BITS),
               "a split leaf keeps its offsets in the leaf histograms");
_Static_assert((PS_MAX_DEPTH - 1) * PS_MSD_BITS >= 64,
               "a range above 2^32 keys runs out of bits before the budget");

/* Below this many keys the sort runs on the calling thread: waking the team
 * costs more than it saves.  Measured on random u32 (doc/results-openmp.md):
 * one thread wins at 32K keys (182-292 against 149-226 Mkeys/s, three
 * rounds), they tie at 48K, two threads win from 64K up. */
#define PS_PARALLEL_MIN ((size_t)48 * 1024)
/* The write-combining unit of the MSD scatter: each bucket's buffer holds
 * this many bytes of keys (and as many keys' values) and leaves in one
 * go.  256 bytes rather than one 64-byte line: a quarter of the flushes
 * and their mispredicted branches, 7-10% faster on u32 (one run, 1 and 2
 * threads: 195 vs 178 and 395 vs 370 Mkeys/s). */
#define PS_UNIT_BYTES 256

/* One member's part of the scratch block (ps_openmp_plan.c lays it out). */
typedef struct ps_omp_tls {
    size_t *pos;        /* [msd radix] write cursor per bucket */
    size_t *start;      /* [msd radix] where this thread's part of a bucket starts */
    size_t *bounds;     /* [PS_MAX_DEPTH][msd radix + 1] bucket bounds per level */
    uint32_t *lhist;    /* [PS_MAX_LEAF_DIGITS][leaf radix] leaf histograms */
    uint32_t *loff;     /* [leaf radix] leaf offsets */
    uint32_t *split;    /* [split radix] a split leaf's counts, offsets, ends */
    unsigned char *tmp; /* a leaf's worth of keys, then of values */
    unsigned net_skip;  /* leaves to keep from the networks (net_leaf) */
    unsigned char *kline;   /* [msd buckets][PS_UNIT_BYTES] key buffers */
    unsigned char *vline;   /* [msd buckets][unit keys * vs] value buffers */
} ps_omp_tls;

typedef struct ps_omp_kernels ps_omp_kernels;

/* One sort, as ps_openmp_plan.c planned it: read-only while it runs. */
typedef struct ps_omp_ctx {
    const ps_omp_kernels *kt;   /* the kernels of this key width */
    void *k[2];                 /* [0] the caller's keys, [1] scratch */
    unsigned char *v[2];        /* the same for values (NULL: keys only) */
    size_t vs, n;               /* vs: 0 (keys only), 4 or 8 */
    size_t leaf_cap;            /* elements a leaf may hold */
    ps_xf xf;
    unsigned bits;              /* key width in bits */
    struct ps_team *team;       /* NULL: the sort runs on the calling thread */
    int members;                /* threads of the team (1 without one) */
    size_t chunks;              /* the most chunks a team pass cuts */
    unsigned stream[2];         /* bit 0: keys of array i may be streamed,
                                   bit 1: values */
    size_t shift[2];            /* array i's offset, in keys, from a line */
    int pack;                   /* 4-byte keys and values: the packed route
                                   may be taken (ps_openmp_packed-inl.h) */
    int pk_stream;              /* the packed scratch may be streamed */
    int net;                    /* 4- or 8-byte keys without values: the
                                   networks their leaves may end in
                                   (PS_NET_*; 8-byte: AVX-512 only) */
    int pk_net;                 /* the same for packed pairs */
    size_t pk_shift;            /* its offset, in elements, from a unit */
    uint64_t *orand;            /* [chunks][2] OR and AND of the images */
    size_t *ccount;             /* [chunks][msd radix] counts, then starts */
    unsigned char *tls;         /* [members] ps_omp_tls + its arrays */
    size_t tls_stride;
} ps_omp_ctx;

/* The kernels of pairs of a 4-byte key and a 4-byte value moved as one
 * 8-byte element, key << 32 | value (ps_openmp_packed-inl.h).  Elements
 * live in array 1 (the scratch) between the first MSD pass and a leaf's
 * end. */
typedef struct ps_omp_packed {
    /* The first MSD pass: positions [a, b) of the caller's keys and values,
     * by digit (sh, mask) of the key image, into elements in array 1;
     * cursors in tl->pos and tl->start as for ps_omp_kernels.scatter. */
    void (*scatter)(const ps_omp_ctx *c, ps_omp_tls *tl, size_t a, size_t b,
                    unsigned sh, unsigned mask);
    /* As ps_omp_kernels.leaf_hist, over the keys of elements e[0, m). */
    uint64_t (*hist)(const ps_omp_ctx *c, const uint64_t *e, size_t m,
                     unsigned lo, unsigned hi, unsigned w, unsigned np,
                     uint32_t *h);
    /* As ps_omp_kernels.leaf_pass, for elements (prefetching pf only). */
    void (*pass)(const ps_omp_ctx *c, const uint64_t *src, uint64_t *dst,
                 size_t m, unsigned sh, unsigned mask, uint32_t *off,
                 const uint64_t *pf, size_t npf);
    /* Elements e[0, m) to keys[0, m) and values[0, m), in order. */
    void (*unpack)(void *keys, unsigned char *values, const uint64_t *e,
                   size_t m);
    /* As ps_omp_kernels.net, for elements (ps_omp_net_pairs32): each
     * bucket sorted stably into keys and values.  NULL when the build has
     * no networks. */
    void (*net)(const uint64_t *slots, void *keys, unsigned char *values,
                const uint32_t *ends, size_t nb, uint32_t m, ps_xf xf);
} ps_omp_packed;

/* The kernels of one key width, the only code that touches keys one by
 * one.  In every kernel, keys are the key width's unsigned words, digits
 * are bits of their order image (ps_enc*), and values are c->vs bytes
 * each (none when 0) moving with their keys.  Array `where` (or `from`)
 * is c->k[where] (0: the caller's, 1: scratch), with c->v[where]. */
struct ps_omp_kernels {
    unsigned bits;      /* 8, 16, 32 or 64 */

    /* -- whole ranges (the MSD levels) -- */

    /* Read positions [a, b) of array 0: leave in orand[0] and orand[1]
     * the OR and AND of their images (or, where the image is a plain xor,
     * of the keys, whose bits vary where the images' do), and the counts
     * of digit (sh, mask) in cnt[0, mask] (cnt2: as many counters of
     * scratch). */
    void (*survey)(const ps_omp_ctx *c, size_t a, size_t b, unsigned sh,
                   unsigned mask, size_t *cnt, size_t *cnt2, uint64_t *orand);
    /* The same for all n keys, without the counts: an input that is one
     * leaf (cnt[0] and cnt2[0] are written). */
    void (*survey_leaf)(const ps_omp_ctx *c, size_t n, size_t *cnt,
                        size_t *cnt2, uint64_t *orand);
    /* Counts of digit (sh, mask) over positions [a, b) of array `where`,
     * into cnt[0, mask]. */
    void (*hist)(const ps_omp_ctx *c, int where, size_t a, size_t b,
                 unsigned sh, unsigned mask, size_t *cnt);
    /* Stable scatter of positions [a, b) of array `from` by digit (sh,
     * mask) into the other array: bucket d from tl->pos[d] on (advanced
     * as elements are written), this caller's part of it starting at
     * tl->start[d]; through tl's write-combining buffers, or straight
     * when `plain` (plain_scatter, ps_openmp_msd.c). */
    void (*scatter)(const ps_omp_ctx *c, ps_omp_tls *tl, int from, size_t a,
                    size_t b, unsigned sh, unsigned mask, int plain);

    /* -- leaves (pointers: the first element of a leaf) -- */

    /* Histograms of np digits of w bits of keys[0, m): digit j is image
     * bits [lo + j * w, ...), bits from hi up masked off; table j at
     * h + (j << w).  Returns the image of keys[0] (m >= 1). */
    uint64_t (*leaf_hist)(const ps_omp_ctx *c, const void *keys, size_t m,
                          unsigned lo, unsigned hi, unsigned w, unsigned np,
                          uint32_t *h);
    /* The pass of a split leaf: the counts of digit (sh, mask) over
     * src[0, m) into off[0, mask], turned into offsets, and the stable
     * scatter of src (and vsrc) into dst (and vdst), which leaves off[d]
     * at the end of bucket d.  Returns the OR of the counts. */
    uint32_t (*split)(const ps_omp_ctx *c, const void *src, void *dst,
                      const unsigned char *vsrc, unsigned char *vdst,
                      size_t m, unsigned sh, unsigned mask, uint32_t *off);
    /* One stable counting pass: element i of src (and vsrc) goes to
     * dst[off[d]++] (and vdst), d its digit (sh, mask).  While i < npf, it
     * prefetches pf + i for reading and pw + i for writing, a line at a
     * time (the next leaf's keys, and where its last pass writes). */
    void (*leaf_pass)(const ps_omp_ctx *c, const void *src, void *dst,
                      const unsigned char *vsrc, unsigned char *vdst,
                      size_t m, unsigned sh, unsigned mask, uint32_t *off,
                      const void *pf, void *pw, size_t npf);
    /* The slot pass of a mapped network leaf, keys alone: key i of src
     * goes to dst[off[b]++], b its digit (sh, mask) refined by map
     * (ps_openmp_kernels-inl.h, map_pass_body). */
    void (*map_pass)(const ps_omp_ctx *c, const void *src, void *dst,
                     size_t m, unsigned sh, unsigned mask,
                     const uint32_t *map, uint32_t *off);
    /* Stable insertion sort of keys[0, m) by image under xf, values of vs
     * bytes (0, 4 or 8; none when values is NULL) alongside: quick when
     * few keys stand after a greater one.  Needs no scratch. */
    void (*insert)(void *keys, unsigned char *values, size_t vs, size_t m,
                   ps_xf xf);
    /* The same result for keys in buckets of about one each (a split
     * leaf), m >= 1, by a branch-free bubble pass fused with an insertion
     * sort; prefetches npf keys (and values) of the next leaf from pf (and
     * pv) and the lines after keys[m) for writing. */
    void (*bubble)(const ps_omp_ctx *c, void *keys, unsigned char *values,
                   size_t m, const void *pf, const unsigned char *pv,
                   size_t npf);
    /* Sorting networks (ps_openmp_net.h) of the networks `isa`: bucket d
     * in slots[d * PS_NET_MAX, ends[d]), sorted by image, after bucket
     * d - 1 in dst.  NULL when this width (or this build) has none. */
    void (*net)(const void *slots, void *dst, const uint32_t *ends,
                size_t nb, uint32_t m, ps_xf xf, int isa);

    /* The packed-pair kernels; NULL but for 4-byte keys. */
    const ps_omp_packed *packed;
};

/* The tables, one per key width (ps_openmp_kernels.c). */
extern const ps_omp_kernels ps_omp_kernels8, ps_omp_kernels16,
    ps_omp_kernels32, ps_omp_kernels64;

/* Run the sort that c plans (ps_openmp_plan.c): its scratch laid out, c->kt
 * its width's kernels.  On the calling thread when c->team is NULL, else
 * with the team's members.  Cannot fail (ps_openmp_msd.c). */
void ps_omp_sort(const ps_omp_ctx *c);

/* Where c's arrays (c->k[0, 1] and c->v[0, 1], already set) lie against
 * the write-combining units of the scatters: c->shift, c->stream,
 * c->pk_shift and c->pk_stream.  `stream`: the sort is big enough that
 * its scatters should stream whole units past the caches (ps_omp_run
 * decides, by size); they then do so for every array whose units
 * the streaming stores can write, 16-byte aligned: keys always (they are
 * aligned to their size), values when the array and its shift allow it.
 * The kernels' unit tests place their arrays through it too, so that they
 * test the scatters as the sort calls them. */
static inline void ps_omp_place(ps_omp_ctx *c, int stream)
{
    size_t kb = c->bits / 8;
    int i;
    for (i = 0; i < 2; i++) {
        uintptr_t ka = (uintptr_t)c->k[i], va = (uintptr_t)c->v[i];
        c->shift[i] = (ka & (PS_UNIT_BYTES - 1)) / kb;
        c->stream[i] = 0;
        if (stream && ka % kb == 0)
            c->stream[i] |= 1;
        if (stream && c->vs && va % 16 == 0 && (c->shift[i] * c->vs) % 16 == 0)
            c->stream[i] |= 2;
    }
    c->pk_shift = ((uintptr_t)c->k[1] & (PS_UNIT_BYTES - 1)) / sizeof(uint64_t);
    c->pk_stream = stream;
}

/* b rounded up to a multiple of 64: the parts of the scratch block start
 * on cache lines. */
static inline size_t round64(size_t b)
{
    return (b + 63) & ~(size_t)63;
}

#endif /* PS_OPENMP_SORT_H */
