/*
 * ps_openmp.c - the OpenMP backend: a parallel radix sort on the host CPU.
 *
 * The algorithm (doc/results-openmp.md has the longer story):
 *  - one read finds which bits of the keys vary at all (OR and AND of every
 *    key's order image) and counts the first MSD digit; bits that are the
 *    same in every key are never sorted on;
 *  - while a range is larger than the caches, a stable MSD pass splits it
 *    by its top remaining digit, every thread scattering its own slice
 *    through write-combining line buffers with streaming stores;
 *  - once a bucket fits in cache, one thread finishes it with LSD passes
 *    that run in cache, so the data crosses DRAM about twice instead of
 *    once per digit.
 * Keys keep their bits; digits come from the order image computed on the
 * fly, so signed, float and descending cost nothing extra.
 *
 * Scratch (n keys, n values, counts and line buffers) is one block, kept
 * between calls in a one-slot cache that a call takes exclusively; a call
 * that finds it taken allocates its own.  Everything is allocated before
 * the caller's arrays are written.
 */
#include <config.h>

#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ps_backend.h"
#include "ps_openmp_net.h"

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
/* A leaf of at most this many keys is finished by insertion sort alone
 * (FN(tiny_leaf)). */
#define PS_TINY_LEAF 16
/* A leaf whose LSD passes would use more than this many counters a key
 * is split instead (FN(leaf)). */
#define PS_SPLIT_SPARSE 8
/* Smallest bucket an MSD pass makes just to spare its leaves a third LSD
 * pass (msd_bits). */
#define PS_TWO_PASS_MIN 4096
/* After a leaf whose buckets overflowed the networks' slots by more than
 * a sixteenth of its keys (skewed data), this many more leaves of the
 * same thread skip the networks (FN(net_leaf)): the omp for hands out
 * runs of 8 neighbouring buckets, which tend to be skewed alike. */
#define PS_NET_SKIP 8
_Static_assert((PS_MAX_LEAF_DIGITS << PS_LEAF_BITS) >= (1 << PS_SPLIT_BITS),
               "a split leaf keeps its offsets in the leaf histograms");
_Static_assert((PS_MAX_DEPTH - 1) * PS_MSD_BITS >= 64,
               "a range above 2^32 keys runs out of bits before the budget");

/* Below this many keys the sort runs on the calling thread: waking the team
 * costs more than it saves.  Measured on random u32 (doc/results-openmp.md):
 * one thread wins at 32K keys (182-292 against 149-226 Mkeys/s, three
 * rounds), they tie at 48K, two threads win from 64K up. */
#define PS_PARALLEL_MIN ((size_t)48 * 1024)
/* A bucket of at most this many bytes (keys and values) is finished by one
 * thread in cache.  Measured at 16 KiB to 512 KiB (doc/results-openmp.md):
 * for keys, 128 KiB (buckets of 32-64 KiB) beats 64 KiB by 3-5% at 16M
 * u32 since the 12-bit leaf digits and the two-table survey, and ties it
 * from 64K to 4M keys and on u64; pairs gain 10-15% from 256 KiB, because
 * their MSD pass then needs fewer line buffers (the buffers of 4096
 * buckets of keys and values overflow L2). */
#define PS_LEAF_BYTES ((size_t)128 * 1024)
#define PS_LEAF_BYTES_PAIRS ((size_t)256 * 1024)
/* The write-combining unit of the MSD scatter: each bucket's buffer holds
 * this many bytes of keys (and as many keys' values) and leaves in one
 * go.  256 bytes rather than one 64-byte line: a quarter of the flushes
 * and their mispredicted branches, 7-10% faster on u32 (one run, 1 and 2
 * threads: 195 vs 178 and 395 vs 370 Mkeys/s). */
#define PS_UNIT_BYTES 256
/* Arrays above this many bytes are scattered with streaming stores; below,
 * the next pass finds them in cache.  Measured (u32, 2 threads): streaming
 * is 13-20% faster from 256K keys up to 4M, even though 4M keys (twice 16
 * MiB) would fit the 32 MiB L3, and no slower at 64K. */
#define PS_STREAM_BYTES ((size_t)1 << 20)
/* The cache keeps at most one block of scratch, of at most this size. */
#define PS_CACHE_MAX (((size_t)1 << 30) * (sizeof(size_t) >= 8 ? 4 : 1))

typedef struct omp_tls {
    size_t *pos;        /* [msd radix] write cursor per bucket */
    size_t *start;      /* [msd radix] where this thread's part of a bucket starts */
    size_t *bounds;     /* [PS_MAX_DEPTH][msd radix + 1] bucket bounds per level */
    uint32_t *lhist;    /* [PS_MAX_LEAF_DIGITS][leaf radix] leaf histograms */
    uint32_t *loff;     /* [leaf radix] leaf offsets */
    uint32_t *split;    /* [split radix] a split leaf's counts, offsets, ends */
    unsigned char *tmp; /* a leaf's worth of keys, then of values */
    unsigned net_skip;  /* leaves to keep from the networks (FN(net_leaf)) */
    unsigned char *kline;   /* [msd buckets][PS_UNIT_BYTES] key buffers */
    unsigned char *vline;   /* [msd buckets][unit keys * vs] value buffers */
} omp_tls;

typedef struct omp_ctx {
    void *k[2];                 /* [0] the caller's keys, [1] scratch */
    unsigned char *v[2];        /* the same for values (NULL: keys only) */
    size_t vs, n;
    size_t leaf_cap;            /* elements a leaf may hold */
    ps_xf xf;
    unsigned bits;              /* key width in bits */
    int nthreads;
    unsigned stream[2];         /* bit 0: keys of array i may be streamed,
                                   bit 1: values */
    size_t shift[2];            /* array i's offset, in keys, from a line */
    int pack;                   /* 4-byte keys and values: the packed route
                                   may be taken (ps_openmp_packed.h) */
    int pk_stream;              /* the packed scratch may be streamed */
    int net;                    /* 4- or 8-byte keys without values: the
                                   networks their leaves may end in
                                   (PS_NET_*; 8-byte: AVX-512 only) */
    int pk_net;                 /* the same for packed pairs */
    size_t pk_shift;            /* its offset, in elements, from a unit */
    uint64_t *orand;            /* [threads][2] OR and AND of the images */
    size_t *tcount;             /* [threads][msd radix] */
    unsigned char *tls;         /* [threads] omp_tls + its arrays */
    size_t tls_stride;
} omp_ctx;

static inline omp_tls *tls_of(const omp_ctx *c, int t)
{
    return (omp_tls *)(void *)(c->tls + (size_t)t * c->tls_stride);
}

static inline size_t *tcount_of(const omp_ctx *c, int t)
{
    return c->tcount + (size_t)t * PS_MSD_RADIX;
}

/* Bits for an MSD pass over m keys whose bits [lo, hi) are left: enough
 * that the buckets come out at about half a leaf, and more while the
 * buckets would keep bits for three LSD passes and at least
 * PS_TWO_PASS_MIN keys (measured: u32 at 4M keys, 29% faster with
 * two-pass leaves of 4K keys than with three-pass ones of 8K).  Above 2^32
 * keys always the most, which bounds the depth (leaf counters are 32-bit).
 *
 * The most, too, when `skew` says the range is most of the range it came
 * from: the pass before split it badly, as magnitudes spread over many
 * decades do (log-uniform keys leave 8/9 of them in bucket 0 of an 8-bit
 * pass), and the bits m alone asks for would peel a few bits a level and
 * take a full pass over nearly all the keys for each. */
static inline unsigned msd_bits(const omp_ctx *c, size_t m, unsigned lo,
                                unsigned hi, int skew)
{
    unsigned b = 1;
    if (m > UINT32_MAX || skew)
        b = PS_MSD_BITS;
    while (b < PS_MSD_BITS && (m >> b) > c->leaf_cap / 2)
        b++;
    while (b < PS_MSD_BITS && hi - lo > b + 2 * PS_LEAF_BITS
           && (m >> (b + 1)) >= PS_TWO_PASS_MIN)
        b++;
    return b < hi - lo ? b : hi - lo;
}

/* Is a bucket of bm keys, out of a range of m, most of it? */
static inline int skewed(size_t bm, size_t m)
{
    return bm > m / 2;
}

/* The counters of the LSD passes over nb bits of a leaf
 * (FN(lsd_leaf)): one table of 2^w per pass. */
static inline size_t lsd_counters(unsigned nb)
{
    unsigned np = (nb + PS_LEAF_BITS - 1) / PS_LEAF_BITS;
    unsigned w = (nb + np - 1) / np;
    return (size_t)np << w;
}

/* Bits of the counting pass of a network leaf of m elements (FN(net_leaf),
 * pk_net_leaf): the fewest that leave at most `avg` a bucket on average,
 * so that most buckets fit a network of one or two registers and few
 * exceed PS_NET_MAX. */
static inline unsigned net_bits(size_t m, size_t avg)
{
    unsigned b = 1;
    while (b < PS_LEAF_BITS && (m >> b) > avg)
        b++;
    return b;
}

/* A range of m keys at `depth` is finished as a leaf when it fits in
 * cache, or when the level budget is spent (PS_MAX_DEPTH). */
static inline int is_leaf(const omp_ctx *c, size_t m, unsigned depth)
{
    PS_DEBUG_ASSERT(depth < PS_MAX_DEPTH);
    PS_DEBUG_ASSERT(depth < PS_MAX_DEPTH - 1 || m <= UINT32_MAX);
    return m <= c->leaf_cap || (depth >= PS_MAX_DEPTH - 1 && m <= UINT32_MAX);
}

/* A bucket (at depth + 1) is sorted by the whole team when it is too big
 * for a leaf and large next to its range: then splitting the buckets among
 * single threads would leave threads idle.  Never at the last level of the
 * budget, where a bucket is a leaf, and leaves are one thread's. */
static inline int team_worthy(const omp_ctx *c, size_t bm, size_t m, int nt,
                              unsigned depth)
{
    return bm > c->leaf_cap && bm >= PS_PARALLEL_MIN
           && bm * 4 * (size_t)nt > m && depth + 1 < PS_MAX_DEPTH - 1;
}

#if defined(__SSE2__)
/* dst and src 16-byte aligned, bytes a multiple of 16. */
static inline void ps_stream_bytes(void *dst, const void *src, size_t bytes)
{
    size_t i;
    for (i = 0; i < bytes; i += 16)
        _mm_stream_si128((__m128i *)(void *)((char *)dst + i),
                         _mm_load_si128((const __m128i *)(const void *)
                                        ((const char *)src + i)));
}

/* Streaming stores are weakly ordered: fence them before the barrier that
 * lets other threads read what they wrote. */
static inline void ps_stream_fence(void)
{
    _mm_sfence();
}
#else
static inline void ps_stream_bytes(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
}

static inline void ps_stream_fence(void)
{
}
#endif

/* Ask for the lines of [p, p + bytes) ahead of writing them.  A leaf's
 * last pass scatters into the caller's array, which is cold: without this
 * every store waits for its line to come from DRAM (+5% on u32 keys, +9%
 * on u64 keys, 16M, one thread). */
static inline void prefetch_for_write(const void *p, size_t bytes)
{
    const char *c = (const char *)p;
    size_t i;
    for (i = 0; i < bytes; i += 64)
        __builtin_prefetch(c + i, 1, 3);
}

/* How many elements of the bucket after [a, a + m) a leaf's last pass
 * prefetches (at most m).  The omp for hands buckets out in runs of 8, so
 * that bucket is mostly the same thread's next leaf; its keys and values,
 * fetched into L2 while the pass's loads and stores hit in cache, spare
 * the next leaf's first read the wait on DRAM, and its destination lines,
 * fetched for writing, spare its scatter the reads for ownership.
 * Measured, one thread, interleaved: split leaves (u64) at 16M +7% for the
 * reads and 7-12% more for the writes, with values +6% and 5-10% more;
 * packed pairs +3-10% at 1M-16M; u32 LSD leaves +1-6% at 4M-16M. */
static inline size_t next_span(const omp_ctx *c, size_t a, size_t m)
{
    size_t next = a + m;
    return next >= c->n ? 0 : c->n - next < m ? c->n - next : m;
}

static size_t round64(size_t b)
{
    return (b + 63) & ~(size_t)63;
}

#define PS_W 8
#include "ps_openmp_impl.h"
#undef PS_W
#define PS_W 16
#include "ps_openmp_impl.h"
#undef PS_W
#define PS_W 32
#include "ps_openmp_impl.h"
#undef PS_W
#define PS_W 64
#include "ps_openmp_impl.h"
#undef PS_W

/* ---- scratch cache ---------------------------------------------------- */

static const ps_host *host;
static int team_size;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static void *cache_block;       /* NULL or the cached block */
static size_t cache_bytes;
static int cache_busy;          /* a sort holds cache_block */
static int cache_drop;          /* trim asked while busy: free on return */

/* Take at least `bytes` of scratch: the cached block when it is free and
 * big enough, else a fresh one.  *from_cache tells scratch_put what to do. */
static void *scratch_take(size_t bytes, int *from_cache)
{
    void *p = NULL, *stale = NULL;
    pthread_mutex_lock(&cache_lock);
    if (!cache_busy && bytes <= PS_CACHE_MAX) {
        if (cache_block != NULL && cache_bytes < bytes) {
            stale = cache_block;    /* too small: replace it */
            cache_block = NULL;
            cache_bytes = 0;
        }
        cache_busy = 1;
        cache_drop = 0;
        *from_cache = 1;
        p = cache_block;
    } else {
        *from_cache = 0;
    }
    pthread_mutex_unlock(&cache_lock);
    host->release(stale);
    if (p != NULL)
        return p;
    p = host->alloc(bytes);
    if (*from_cache) {
        pthread_mutex_lock(&cache_lock);
        if (p != NULL) {
            cache_block = p;
            cache_bytes = bytes;
        } else {
            cache_busy = 0;
        }
        pthread_mutex_unlock(&cache_lock);
    }
    return p;
}

static void scratch_put(void *p, int from_cache)
{
    void *drop = NULL;
    if (!from_cache) {
        host->release(p);
        return;
    }
    pthread_mutex_lock(&cache_lock);
    cache_busy = 0;
    if (cache_drop) {
        drop = cache_block;
        cache_block = NULL;
        cache_bytes = 0;
        cache_drop = 0;
    }
    pthread_mutex_unlock(&cache_lock);
    host->release(drop);
}

static void openmp_trim(void *state)
{
    void *drop = NULL;
    (void)state;
    pthread_mutex_lock(&cache_lock);
    if (cache_busy) {
        cache_drop = 1;
    } else {
        drop = cache_block;
        cache_block = NULL;
        cache_bytes = 0;
    }
    pthread_mutex_unlock(&cache_lock);
    if (host != NULL)
        host->release(drop);
}

/* ---- the ops ---------------------------------------------------------- */

/* PORTSORT_THREADS overrides OpenMP's own choice (OMP_NUM_THREADS or the
 * number of cores).  Read once, at init. */
static int threads_wanted(void)
{
    const char *e = getenv("PORTSORT_THREADS");
    if (e != NULL && e[0] != '\0') {
        char *end;
        long v = strtol(e, &end, 10);
        if (*end == '\0' && v >= 1 && v <= 1024)
            return (int)v;
        if (host != NULL)
            host->log("openmp: ignoring PORTSORT_THREADS=%s (want 1..1024)", e);
    }
    return omp_get_max_threads();
}

static void openmp_probe(ps_probe *out)
{
    int t = threads_wanted();
    out->usable = 1;
    out->gpu = 0;
    snprintf(out->detail, sizeof out->detail, "host CPU, %d thread%s", t,
             t == 1 ? "" : "s");
}

/* GNU libgomp does not survive fork(): a parallel region in the child
 * waits for pool threads that only the parent has, and hangs.  A child
 * forked after init therefore sorts on its calling thread alone, on the
 * path that never enters a parallel region. */
static int in_forked_child;

static void on_fork_child(void)
{
    in_forked_child = 1;
}

/* Which sorting networks the leaves may use (ps_openmp_net.h): the best
 * the CPU runs, or less when PORTSORT_OPENMP_SIMD says so (`avx2` or
 * `none`; the tests use it to run every path on one machine).  Read once,
 * at init. */
static int net_isa;

static const char *const net_isa_names[] = { "none", "avx2", "avx512" };

static int net_wanted(void)
{
#if defined(PS_HAVE_AVX512_TARGET)
    const char *e = getenv("PORTSORT_OPENMP_SIMD");
    int have = ps_omp_net_isa(), want = have, i;
    if (e != NULL && e[0] != '\0') {
        for (i = 0; i <= PS_NET_AVX512; i++)
            if (strcmp(e, net_isa_names[i]) == 0)
                want = i;
        if (strcmp(e, net_isa_names[want]) != 0 && host != NULL)
            host->log("openmp: ignoring PORTSORT_OPENMP_SIMD=%s "
                      "(want avx512, avx2 or none)", e);
    }
    return want < have ? want : have;
#else
    return PS_NET_NONE;
#endif
}

static int openmp_init(const ps_host *h, void **state)
{
    host = h;
    pthread_atfork(NULL, NULL, on_fork_child);
    team_size = threads_wanted();
    net_isa = net_wanted();
    host->log("openmp: %d threads, leaf networks: %s", team_size,
              net_isa_names[net_isa]);
    *state = NULL;
    return PS_OK;
}

static void openmp_release(void *state)
{
    openmp_trim(state);
}

/* Lay the scratch block out (or, with base NULL, just size it): scratch
 * keys, scratch values, per-thread counts, per-thread areas.  Returns the
 * bytes needed, or 0 on size_t overflow. */
static size_t layout(omp_ctx *c, unsigned char *base, int threads)
{
    size_t kb = c->bits / 8, t;
    size_t line = PS_UNIT_BYTES / (c->vs > kb ? c->vs : kb);  /* elements per unit */
    size_t mr = PS_MSD_RADIX, lr = (size_t)1 << PS_LEAF_BITS;
    size_t buckets = (size_t)1 << (c->bits < PS_MSD_BITS ? c->bits : PS_MSD_BITS);
    size_t kbytes, vbytes, shared;
    if (c->n > (SIZE_MAX - 4096) / (kb + c->vs + 1))
        return 0;
    kbytes = round64(c->n * kb);
    vbytes = round64(c->n * c->vs);
    shared = round64((size_t)threads * 2 * sizeof(uint64_t))
             + round64((size_t)threads * mr * sizeof(size_t));
    c->tls_stride = round64(sizeof(omp_tls)) + buckets * PS_UNIT_BYTES
                    + round64(buckets * line * c->vs)
                    + round64(2 * mr * sizeof(size_t))
                    + round64(PS_MAX_DEPTH * (mr + 1) * sizeof(size_t))
                    + round64((PS_MAX_LEAF_DIGITS + 1) * lr * sizeof(uint32_t))
                    + round64(((1u << PS_SPLIT_BITS) + 1) * sizeof(uint32_t))
                    + round64(c->leaf_cap * kb * (c->net ? 9 : 1)) /* net_leaf */
                    + round64(c->leaf_cap * c->vs)
                    + (c->pk_net ? round64(c->leaf_cap * 64) : 0); /* pk_net_leaf */
    if (base != NULL) {
        unsigned char *p = base + kbytes + vbytes;
        c->k[1] = base;
        c->v[1] = c->vs ? base + kbytes : NULL;
        c->orand = (uint64_t *)(void *)p;
        p += round64((size_t)threads * 2 * sizeof(uint64_t));
        c->tcount = (size_t *)(void *)p;
        c->tls = base + kbytes + vbytes + shared;
        for (t = 0; t < (size_t)threads; t++) {
            omp_tls *tl;
            p = c->tls + t * c->tls_stride;
            tl = (omp_tls *)(void *)p;
            p += round64(sizeof(omp_tls));
            tl->kline = p;
            p += buckets * PS_UNIT_BYTES;
            tl->vline = p;
            p += round64(buckets * line * c->vs);
            tl->pos = (size_t *)(void *)p;
            tl->start = tl->pos + mr;
            p += round64(2 * mr * sizeof(size_t));
            tl->bounds = (size_t *)(void *)p;
            p += round64(PS_MAX_DEPTH * (mr + 1) * sizeof(size_t));
            tl->lhist = (uint32_t *)(void *)p;
            tl->loff = tl->lhist + PS_MAX_LEAF_DIGITS * lr;
            p += round64((PS_MAX_LEAF_DIGITS + 1) * lr * sizeof(uint32_t));
            tl->split = (uint32_t *)(void *)p;
            p += round64(((1u << PS_SPLIT_BITS) + 1) * sizeof(uint32_t));
            tl->tmp = p;
            tl->net_skip = 0;
        }
    }
    return kbytes + vbytes + shared + (size_t)threads * c->tls_stride;
}

/* Stable insertion sort of a few keys, with no scratch at all. */
#define PS_SMALL_N 24
#define PS_INSERTION(W)                                                      \
static void insertion_##W(uint##W##_t *k, unsigned char *v, size_t vs,       \
                          size_t n, ps_xf xf)                                \
{                                                                            \
    size_t i, j;                                                             \
    unsigned char tmp[8];                                                    \
    for (i = 1; i < n; i++) {                                                \
        uint##W##_t x = k[i], ex = ps_enc##W(x, xf);                         \
        if (vs)                                                              \
            memcpy(tmp, v + i * vs, vs);                                     \
        for (j = i; j > 0 && ps_enc##W(k[j - 1], xf) > ex; j--)              \
            k[j] = k[j - 1];                                                 \
        if (vs && j < i)                                                     \
            memmove(v + (j + 1) * vs, v + j * vs, (i - j) * vs);             \
        k[j] = x;                                                            \
        if (vs)                                                              \
            memcpy(v + j * vs, tmp, vs);                                     \
    }                                                                        \
}
PS_INSERTION(8)
PS_INSERTION(16)
PS_INSERTION(32)
PS_INSERTION(64)
#undef PS_INSERTION

static void insertion(void *keys, void *values, size_t vs, size_t n,
                      unsigned kb, ps_xf xf)
{
    switch (kb) {
    case 1: insertion_8(keys, values, vs, n, xf); break;
    case 2: insertion_16(keys, values, vs, n, xf); break;
    case 4: insertion_32(keys, values, vs, n, xf); break;
    default: insertion_64(keys, values, vs, n, xf); break;
    }
}

/* Fill in what a sort of n elements decides before it has scratch, and
 * return the scratch bytes it needs (0: more than size_t holds).  The
 * bytes never shrink as n grows for one key and value size, so the block
 * of the longest of several sorts serves them all (the segmented sort). */
static size_t plan(omp_ctx *c, void *keys, void *values, size_t vs, size_t n,
                   ps_type type, unsigned flags)
{
    size_t kb = ps_type_bytes(type);
    memset(c, 0, sizeof *c);
    c->xf = ps_xf_make(type, flags);
    c->k[0] = keys;
    c->v[0] = values;
    c->vs = values != NULL ? vs : 0;
    c->n = n;
    c->bits = (unsigned)(8 * kb);
    c->nthreads = n < PS_PARALLEL_MIN || in_forked_child ? 1 : team_size;
    c->leaf_cap = (c->vs ? PS_LEAF_BYTES_PAIRS : PS_LEAF_BYTES) / (kb + c->vs);
    c->net = c->vs != 0 ? PS_NET_NONE
             : kb == 4 ? net_isa
             : kb == 8 && net_isa == PS_NET_AVX512 ? PS_NET_AVX512 : PS_NET_NONE;
    c->pk_net = net_isa == PS_NET_AVX512 && kb == 4 && c->vs == 4;
    return layout(c, NULL, c->nthreads);
}

/* The sort planned in c, with its scratch. */
static void run(omp_ctx *c, unsigned char *block)
{
    size_t kb = c->bits / 8, n = c->n;
    int i;
    layout(c, block, c->nthreads);
    for (i = 0; i < 2; i++) {
        uintptr_t ka = (uintptr_t)c->k[i], va = (uintptr_t)c->v[i];
        int big = n * (kb + c->vs) > PS_STREAM_BYTES;
        c->shift[i] = (ka & (PS_UNIT_BYTES - 1)) / kb;
        c->stream[i] = 0;
        if (big && ka % kb == 0)
            c->stream[i] |= 1;
        if (big && c->vs && va % 16 == 0 && (c->shift[i] * c->vs) % 16 == 0)
            c->stream[i] |= 2;
    }
    c->pack = kb == 4 && c->vs == 4;
    c->pk_shift = ((uintptr_t)c->k[1] & (PS_UNIT_BYTES - 1)) / sizeof(uint64_t);
    c->pk_stream = n * 8 > PS_STREAM_BYTES;
    switch (kb) {
    case 1: sort8(c); break;
    case 2: sort16(c); break;
    case 4: sort32(c); break;
    default: sort64(c); break;
    }
}

static int openmp_sort(void *keys, void *values, size_t vs, size_t n,
                       ps_type type, unsigned flags)
{
    omp_ctx c;
    size_t bytes;
    unsigned char *block;
    int from_cache;

    if (n <= PS_SMALL_N) {
        insertion(keys, values, vs, n, ps_type_bytes(type), ps_xf_make(type, flags));
        return PS_OK;
    }
    bytes = plan(&c, keys, values, vs, n, type, flags);
    if (bytes == 0) {
        host->fail("openmp: %zu elements overflow the scratch size", n);
        return PS_ERR_TOO_LARGE;
    }
    block = scratch_take(bytes, &from_cache);
    if (block == NULL) {
        host->fail("openmp: cannot allocate %zu bytes of scratch", bytes);
        return PS_ERR_NO_MEMORY;
    }
    run(&c, block);
    scratch_put(block, from_cache);
    return PS_OK;
}

static int openmp_sort_keys(void *state, void *keys, size_t n, ps_type type,
                            unsigned flags)
{
    (void)state;
    return openmp_sort(keys, NULL, 0, n, type, flags);
}

static int openmp_sort_pairs(void *state, void *keys, void *values,
                             size_t value_size, size_t n, ps_type type,
                             unsigned flags)
{
    (void)state;
    return openmp_sort(keys, values, value_size, n, type, flags);
}

/* A segmented sort with fewer short keys than this runs them on one
 * thread: starting the team would cost more. */
#define PS_SEG_PARALLEL_MIN 8192

/* One short segment (below PS_PARALLEL_MIN, where a plain sort runs on one
 * thread too), on this thread, with `mine` as its scratch. */
static void segment_solo(unsigned char *keys, unsigned char *values,
                         size_t vs, size_t m, ps_type type, unsigned flags,
                         unsigned char *mine)
{
    omp_ctx c;
    if (m <= PS_SMALL_N) {
        insertion(keys, values, vs, m, ps_type_bytes(type),
                  ps_xf_make(type, flags));
        return;
    }
    plan(&c, keys, values, vs, m, type, flags);
    run(&c, mine);
}

/* Tiny segments in a row go to the sorting networks together, up to this
 * many to a call. */
#define PS_SEG_NET_BATCH 256
#define PS_SEG_NET_SLOTS (PS_SEG_NET_BATCH * PS_NET_MAX)
/* Slots and sorted words of 8 bytes, copies of the keys and values (8
 * bytes at most each), the ends. */
#define PS_SEG_NET_BYTES (PS_SEG_NET_SLOTS * (8 + 8 + 8 + 8) \
                          + PS_SEG_NET_BATCH * 4)

/* Which networks sort segments of these keys, if any:
 *  - 4- or 8-byte keys without values, plainly (networks are not stable,
 *    which no one can see for keys alone: equal keys have equal bits);
 *  - keys of up to 4 bytes, with values or not, packed with their places
 *    (segments_net_packed), on CPUs with AVX-512. */
enum { SEG_NET_NONE, SEG_NET_PLAIN, SEG_NET_PACKED };

static int segments_net_kind(size_t kb, size_t vs)
{
    if (vs == 0 && ((kb == 4 && net_isa != PS_NET_NONE)
                    || (kb == 8 && net_isa == PS_NET_AVX512)))
        return SEG_NET_PLAIN;
    if (kb <= 4 && net_isa == PS_NET_AVX512)
        return SEG_NET_PACKED;
    return SEG_NET_NONE;
}

#if defined(PS_HAVE_AVX512_TARGET)
#define PS_SEG_NET_COPY(W)                                                   \
static void seg_net_in##W(const uint##W##_t *k, uint##W##_t *slot, size_t m, \
                          ps_xf xf)                                          \
{                                                                            \
    size_t t;                                                                \
    for (t = 0; t < m; t++)                                                  \
        slot[t] = ps_enc##W(k[t], xf);                                       \
}                                                                            \
static void seg_net_out##W(uint##W##_t *k, size_t m, ps_xf xf)               \
{                                                                            \
    size_t t;                                                                \
    for (t = 0; t < m; t++)                                                  \
        k[t] = ps_dec##W(k[t], xf);                                          \
}
PS_SEG_NET_COPY(32)
PS_SEG_NET_COPY(64)
#undef PS_SEG_NET_COPY

/* Segments i..j-1 (at most PS_SEG_NET_BATCH, none above PS_NET_MAX keys,
 * next to each other in the array) by one network call: their order
 * images go to slots, one segment to a slot, so that the networks, which
 * compare unsigned numbers, need no flip of their own (theirs assumes a
 * slot's keys share their top bit, which a segment's need not); each
 * slot comes back sorted into its segment's place, and the images are
 * turned back into keys there. */
static void segments_net(unsigned char *keys, size_t kb, const size_t *offsets,
                         size_t i, size_t j, ps_xf xf, unsigned char *scratch)
{
    uint32_t *ends = (uint32_t *)(void *)(scratch + PS_SEG_NET_BATCH * PS_NET_MAX * 8);
    size_t base = offsets[i], total = offsets[j] - base, d;
    for (d = 0; i + d < j; d++) {
        size_t a = offsets[i + d], m = offsets[i + d + 1] - a;
        if (kb == 4)
            seg_net_in32((const uint32_t *)(void *)keys + a,
                         (uint32_t *)(void *)scratch + d * PS_NET_MAX, m, xf);
        else
            seg_net_in64((const uint64_t *)(void *)keys + a,
                         (uint64_t *)(void *)scratch + d * PS_NET_MAX, m, xf);
        ends[d] = (uint32_t)(d * PS_NET_MAX + m);
    }
    if (kb == 8) {
        ps_omp_net_slots64((const uint64_t *)(void *)scratch,
                           (uint64_t *)(void *)keys + base, ends, j - i,
                           (uint32_t)total, 0, 0);
        seg_net_out64((uint64_t *)(void *)keys + base, total, xf);
        return;
    }
    if (net_isa == PS_NET_AVX512)
        ps_omp_net_slots32((const uint32_t *)(void *)scratch,
                           (uint32_t *)(void *)keys + base, ends, j - i,
                           (uint32_t)total, 0, 0);
    else
        ps_omp_net_slots32_avx2((const uint32_t *)(void *)scratch,
                                (uint32_t *)(void *)keys + base, ends, j - i,
                                (uint32_t)total, 0, 0);
    seg_net_out32((uint32_t *)(void *)keys + base, total, xf);
}

/* The image of key t of a 1-, 2- or 4-byte key array. */
static inline uint64_t seg_image(const unsigned char *keys, size_t kb,
                                 size_t t, ps_xf xf)
{
    if (kb == 1)
        return ps_enc8(keys[t], xf);
    if (kb == 2)
        return ps_enc16(((const uint16_t *)(const void *)keys)[t], xf);
    return ps_enc32(((const uint32_t *)(const void *)keys)[t], xf);
}

/* Segments i..j-1 as segments_net, for keys of up to 4 bytes with values
 * (or 1- and 2-byte keys alone): each key's image goes into the top half
 * of an 8-byte word and its place in the batch into the bottom, so that no
 * two words are equal and the unstable networks give the stable order;
 * keys and values are then gathered back by place from copies. */
static void segments_net_packed(unsigned char *keys, unsigned char *values,
                                size_t vs, size_t kb, const size_t *offsets,
                                size_t i, size_t j, ps_xf xf,
                                unsigned char *scratch)
{
    uint64_t *slots = (uint64_t *)(void *)scratch;
    uint64_t *sorted = slots + PS_SEG_NET_SLOTS;
    unsigned char *kcopy = (unsigned char *)(sorted + PS_SEG_NET_SLOTS);
    unsigned char *vcopy = kcopy + PS_SEG_NET_SLOTS * 8;
    uint32_t *ends = (uint32_t *)(void *)(vcopy + PS_SEG_NET_SLOTS * 8);
    size_t base = offsets[i], total = offsets[j] - base, d, t;
    for (d = 0; i + d < j; d++) {
        size_t a = offsets[i + d], m = offsets[i + d + 1] - a;
        for (t = 0; t < m; t++)
            slots[d * PS_NET_MAX + t] = seg_image(keys, kb, a + t, xf) << 32
                                        | (a - base + t);
        ends[d] = (uint32_t)(d * PS_NET_MAX + m);
    }
    ps_omp_net_slots64(slots, sorted, ends, j - i, (uint32_t)total, 0, 0);
    memcpy(kcopy, keys + base * kb, total * kb);
    if (values != NULL)
        memcpy(vcopy, values + base * vs, total * vs);
    for (t = 0; t < total; t++) {
        size_t from = (uint32_t)sorted[t];
        memcpy(keys + (base + t) * kb, kcopy + from * kb, kb);
        if (values != NULL)
            memcpy(values + (base + t) * vs, vcopy + from * vs, vs);
    }
}
#endif

/* Segments lo..hi-1, on this thread: the short ones (below
 * PS_PARALLEL_MIN) one by one as plain sorts of their sizes would run,
 * tiny ones in batches through the networks where they apply. */
static void segments_chunk(unsigned char *k, unsigned char *v, size_t vs,
                           const size_t *offsets, size_t lo, size_t hi,
                           ps_type type, unsigned flags, unsigned char *mine)
{
    size_t kb = ps_type_bytes(type), i, batch = lo;
    int net = segments_net_kind(kb, vs);
    for (i = lo; i <= hi; i++) {
        size_t a = i < hi ? offsets[i] : 0, m = i < hi ? offsets[i + 1] - a : 0;
        if (net && i < hi && m <= PS_NET_MAX && i - batch < PS_SEG_NET_BATCH)
            continue;
#if defined(PS_HAVE_AVX512_TARGET)
        if (net == SEG_NET_PLAIN && batch < i)
            segments_net(k, kb, offsets, batch, i, ps_xf_make(type, flags), mine);
        else if (net == SEG_NET_PACKED && batch < i)
            segments_net_packed(k, v, vs, kb, offsets, batch, i,
                                ps_xf_make(type, flags), mine);
#endif
        batch = i + 1;
        if (i < hi && m > 1 && m < PS_PARALLEL_MIN)
            segment_solo(k + a * kb, v != NULL ? v + a * vs : NULL, vs, m,
                         type, flags, mine);
    }
}

/* Short segments are shared out among the threads, a chunk of segments at
 * a time, each sorted by one thread as a plain sort of its size would be,
 * in that thread's slice of the block.  Long ones then get the whole team
 * each, one after another, in the block's last part, planned for the
 * longest of them (plan's bytes never shrink with n).  Everything is
 * allocated before a key moves, so nothing fails half-way. */
static int openmp_sort_segments(void *state, void *keys, void *values,
                                size_t vs, size_t n, const size_t *offsets,
                                size_t num_segments, ps_type type,
                                unsigned flags)
{
    size_t kb = ps_type_bytes(type), s, longest_short = 0, longest_long = 0;
    size_t short_keys = 0, nshort = 0, sb = 0, lb = 0, grain, chunks;
    unsigned char *block, *k = keys, *v = values;
    int nt, from_cache;
    omp_ctx c;

    (void)state;
    (void)n;
    for (s = 0; s < num_segments; s++) {
        size_t m = offsets[s + 1] - offsets[s];
        if (m >= PS_PARALLEL_MIN) {
            longest_long = m > longest_long ? m : longest_long;
        } else if (m > 1) {
            longest_short = m > longest_short ? m : longest_short;
            short_keys += m;
            nshort++;
        }
    }
    nt = in_forked_child || short_keys < PS_SEG_PARALLEL_MIN ? 1 : team_size;
    if (longest_short > PS_SMALL_N)
        sb = round64(plan(&c, keys, values, vs, longest_short, type, flags));
    if (segments_net_kind(kb, vs) != SEG_NET_NONE && sb < PS_SEG_NET_BYTES)
        sb = round64(PS_SEG_NET_BYTES);
    if (longest_long)
        lb = plan(&c, keys, values, vs, longest_long, type, flags);
    if ((longest_long && lb == 0) || lb > SIZE_MAX - (size_t)nt * sb - 64) {
        host->fail("openmp: %zu elements overflow the scratch size", longest_long);
        return PS_ERR_TOO_LARGE;
    }
    block = scratch_take((size_t)nt * sb + lb + 64, &from_cache);
    if (block == NULL) {
        host->fail("openmp: cannot allocate %zu bytes of scratch",
                   (size_t)nt * sb + lb + 64);
        return PS_ERR_NO_MEMORY;
    }
    /* Chunks of a few thousand keys: enough work to pay for taking one,
     * small enough to balance segments of very different lengths. */
    grain = 4096 / (nshort ? short_keys / nshort + 1 : 1) + 1;
    chunks = nshort ? (num_segments + grain - 1) / grain : 0;
    #pragma omp parallel num_threads(nt) if (nt > 1 && chunks > 1)
    {
        unsigned char *mine = block + (size_t)omp_get_thread_num() * sb;
        size_t g;
        #pragma omp for schedule(dynamic, 1)
        for (g = 0; g < chunks; g++) {
            size_t hi = (g + 1) * grain < num_segments ? (g + 1) * grain
                                                       : num_segments;
            segments_chunk(k, v, vs, offsets, g * grain, hi, type, flags, mine);
        }
    }
    for (s = 0; longest_long && s < num_segments; s++) {
        size_t a = offsets[s], m = offsets[s + 1] - a;
        if (m < PS_PARALLEL_MIN)
            continue;
        plan(&c, k + a * kb, v != NULL ? v + a * vs : NULL, vs, m, type, flags);
        run(&c, block + (size_t)nt * sb);
    }
    scratch_put(block, from_cache);
    return PS_OK;
}

/* The sorts' value-size dispatch (VS_FL in ps_openmp_impl.h) and their
 * one-value buffers (tmp[8]) know values of 4 and 8 bytes only: the core
 * sends other sizes through its index fallback because of this field. */
#define PS_OPENMP_VALUE_SIZES (PS_VALUE_SIZE_BIT(4) | PS_VALUE_SIZE_BIT(8))

const ps_backend_ops ps_openmp_ops = {
    .abi = PS_BACKEND_ABI,
    .name = "openmp",
    .priority = 20,
    .device = 0,
    .value_sizes = PS_OPENMP_VALUE_SIZES,
    .probe = openmp_probe,
    .init = openmp_init,
    .sort_keys = openmp_sort_keys,
    .sort_pairs = openmp_sort_pairs,
    .release = openmp_release,
    .trim = openmp_trim,
    .device_api = NULL, /* no device API: host memory is its device */
    .sort_segments = openmp_sort_segments,
};
