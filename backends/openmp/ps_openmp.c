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
 * This file holds the backend's ops, the plan of a sort and its scratch,
 * and the segmented sort; the sort itself is ps_omp_sort
 * (ps_openmp_msd.c) over the kernels of ps_openmp_kernels.c
 * (ps_openmp_sort.h shows the layers).
 *
 * Scratch (n keys, n values, counts and line buffers) is one block, kept
 * between calls in a one-slot cache that a call takes exclusively; a call
 * that finds it taken allocates its own.  Everything is allocated before
 * the caller's arrays are written.
 */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_backend.h"
#include "ps_openmp_net.h"
#include "ps_openmp_sort.h"
#include "ps_openmp_team.h"

/* A bucket of at most this many bytes (keys and values) is finished by one
 * thread in cache.  Measured at 16 KiB to 512 KiB (doc/results-openmp.md):
 * for keys, 128 KiB (buckets of 32-64 KiB) beats 64 KiB by 3-5% at 16M
 * u32 since the 12-bit leaf digits and the two-table survey, and ties it
 * from 64K to 4M keys and on u64; pairs gain 10-15% from 256 KiB, because
 * their MSD pass then needs fewer line buffers (the buffers of 4096
 * buckets of keys and values overflow L2). */
#define PS_LEAF_BYTES ((size_t)128 * 1024)
#define PS_LEAF_BYTES_PAIRS ((size_t)256 * 1024)
/* Arrays above this many bytes are scattered with streaming stores; below,
 * the next pass finds them in cache.  Measured (u32, 2 threads): streaming
 * is 13-20% faster from 256K keys up to 4M, even though 4M keys (twice 16
 * MiB) would fit the 32 MiB L3, and no slower at 64K. */
#define PS_STREAM_BYTES ((size_t)1 << 20)
/* The most threads a sort uses (PORTSORT_THREADS accepts up to this). */
#define PS_THREADS_MAX PS_TEAM_MAX
/* The cache keeps at most one block of scratch, of at most this size. */
#define PS_CACHE_MAX (((size_t)1 << 30) * (sizeof(size_t) >= 8 ? 4 : 1))

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

/* ---- fork() ----------------------------------------------------------- */

/* The scratch cache's lock is taken around every fork, so that no other
 * thread of the parent holds it at that moment, and the child gets the
 * lock free and the cached block, which no thread of the child is using.
 * The handlers are registered by a constructor, before any fork the
 * library could miss.  (The pool of threads has handlers of its own,
 * ps_openmp_team.c: a child starts a pool of its own and sorts in
 * parallel too.) */
static void omp_fork_prepare(void)
{
    pthread_mutex_lock(&cache_lock);
}

static void omp_fork_parent(void)
{
    pthread_mutex_unlock(&cache_lock);
}

static void omp_fork_child(void)
{
    cache_busy = 0;
    cache_drop = 0;
    pthread_mutex_unlock(&cache_lock);
}

__attribute__((constructor)) static void openmp_watch_forks(void)
{
    pthread_atfork(omp_fork_prepare, omp_fork_parent, omp_fork_child);
}

/* ---- the ops ---------------------------------------------------------- */

/* The threads of a sort: PORTSORT_THREADS, else OMP_NUM_THREADS (its first
 * number, as OpenMP reads it: programs set it for every parallel library
 * they use), else the CPUs this process may use (ps_team_cpus: its
 * affinity and its cgroup's quota).  Read once, at init; check_env has
 * refused a malformed PORTSORT_THREADS before (a value set later is
 * ignored).  OMP_NUM_THREADS is OpenMP's, not ours to refuse: a value that
 * does not start with a number from 1 up is ignored. */
static int threads_parse(int *out, char *why, size_t why_len)
{
    unsigned long long v;
    int r = ps_env_number("PORTSORT_THREADS", 1, PS_THREADS_MAX, &v, why, why_len);
    if (r == 1)
        *out = (int)v;
    return r;
}

static int threads_wanted(void)
{
    char why[160];
    int t = 0;
    const char *omp = ps_getenv_set("OMP_NUM_THREADS");
    if (threads_parse(&t, why, sizeof why) == 1)
        return t;
    if (omp != NULL) {
        char *end;
        long v = strtol(omp, &end, 10);
        if (end != omp && (*end == '\0' || *end == ',') && v >= 1)
            return v < PS_THREADS_MAX ? (int)v : PS_THREADS_MAX;
    }
    return ps_team_cpus();
}

static void openmp_probe(ps_probe *out)
{
    int t = threads_wanted();
    out->usable = 1;
    out->gpu = 0;
    snprintf(out->detail, sizeof out->detail, "host CPU, %d thread%s", t,
             t == 1 ? "" : "s");
}


/* Which sorting networks the leaves may use (ps_openmp_net.h): the best
 * the CPU runs, or less when PORTSORT_OPENMP_SIMD says so (`avx2` or
 * `none`; the tests use it to run every path on one machine).  Read once,
 * at init. */
static int net_isa;

static const char *const net_isa_names[] = { "none", "avx2", "avx512", NULL };

static int net_parse(int *out, char *why, size_t why_len)
{
    return ps_env_word("PORTSORT_OPENMP_SIMD", net_isa_names, "avx512, avx2 or none",
                       out, why, why_len);
}

static int net_wanted(void)
{
#if defined(PS_HAVE_AVX512_TARGET)
    char why[160];
    int have = ps_omp_net_isa(), want = have;
    net_parse(&want, why, sizeof why);
    return want < have ? want : have;
#else
    return PS_NET_NONE;
#endif
}

/* Both variables, at the choice of backend (ps_backend_ops.check_env):
 * refused whatever the CPU or the build supports, so that a script's value
 * means the same everywhere. */
static int openmp_check_env(char *why, size_t why_len)
{
    int t, isa;
    return threads_parse(&t, why, why_len) < 0 || net_parse(&isa, why, why_len) < 0
           ? -1 : 0;
}

static int openmp_init(const ps_host *h, void **state)
{
    host = h;
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
 * keys, scratch values, the counts and OR/AND of each chunk of a team
 * pass, each member's area.  Returns the bytes needed, or 0 on size_t
 * overflow. */
static size_t layout(ps_omp_ctx *c, unsigned char *base)
{
    const size_t members = (size_t)c->members, chunks = c->chunks;
    size_t kb = c->bits / 8, t;
    size_t line = PS_UNIT_BYTES / (c->vs > kb ? c->vs : kb);  /* elements per unit */
    size_t mr = PS_MSD_RADIX, lr = (size_t)1 << PS_LEAF_BITS;
    size_t buckets = (size_t)1 << (c->bits < PS_MSD_BITS ? c->bits : PS_MSD_BITS);
    size_t kbytes, vbytes, shared;
    if (c->n > (SIZE_MAX - 4096) / (kb + c->vs + 1))
        return 0;
    kbytes = round64(c->n * kb);
    vbytes = round64(c->n * c->vs);
    shared = round64(chunks * 2 * sizeof(uint64_t))
             + round64(chunks * mr * sizeof(size_t));
    c->tls_stride = round64(sizeof(ps_omp_tls)) + buckets * PS_UNIT_BYTES
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
        p += round64(chunks * 2 * sizeof(uint64_t));
        c->ccount = (size_t *)(void *)p;
        c->tls = base + kbytes + vbytes + shared;
        for (t = 0; t < members; t++) {
            ps_omp_tls *tl;
            p = c->tls + t * c->tls_stride;
            tl = (ps_omp_tls *)(void *)p;
            p += round64(sizeof(ps_omp_tls));
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
    return kbytes + vbytes + shared + members * c->tls_stride;
}

/* Arrays of at most this many keys are sorted by the width's insertion
 * sort, with no scratch at all. */
#define PS_SMALL_N 24

/* The kernels of keys of kb bytes. */
static const ps_omp_kernels *kernels_of(size_t kb)
{
    switch (kb) {
    case 1: return &ps_omp_kernels8;
    case 2: return &ps_omp_kernels16;
    case 4: return &ps_omp_kernels32;
    default: return &ps_omp_kernels64;
    }
}

/* Fill in what a sort of n elements with team t (NULL: the calling
 * thread alone) decides before it has scratch, and return the scratch
 * bytes it needs (0: more than size_t holds).  The bytes never shrink as n
 * grows for one key and value size and team, so the block of the longest
 * of several sorts serves them all (the segmented sort). */
static size_t plan(ps_omp_ctx *c, void *keys, void *values, size_t vs, size_t n,
                   ps_type type, unsigned flags, ps_team *t)
{
    size_t kb = ps_type_bytes(type);
    memset(c, 0, sizeof *c);
    c->kt = kernels_of(kb);
    c->xf = ps_xf_make(type, flags);
    c->k[0] = keys;
    c->v[0] = values;
    c->vs = values != NULL ? vs : 0;
    c->n = n;
    c->bits = (unsigned)(8 * kb);
    c->team = n < PS_PARALLEL_MIN ? NULL : t;
    c->members = ps_team_members(c->team);
    /* Two chunks a member: see chunks_of (ps_openmp_msd.c). */
    c->chunks = c->team != NULL ? 2 * (size_t)c->members : 1;
    c->leaf_cap = (c->vs ? PS_LEAF_BYTES_PAIRS : PS_LEAF_BYTES) / (kb + c->vs);
    c->net = c->vs != 0 ? PS_NET_NONE
             : kb == 4 ? net_isa
             : kb == 8 && net_isa == PS_NET_AVX512 ? PS_NET_AVX512 : PS_NET_NONE;
    c->pk_net = net_isa == PS_NET_AVX512 && kb == 4 && c->vs == 4;
    return layout(c, NULL);
}

/* The sort planned in c, with its scratch. */
static void run(ps_omp_ctx *c, unsigned char *block)
{
    size_t kb = c->bits / 8;
    layout(c, block);
    ps_omp_place(c, c->n * (kb + c->vs) > PS_STREAM_BYTES);
    c->pack = kb == 4 && c->vs == 4;
    ps_omp_sort(c);
}

/* The team of a sort (NULL: the calling thread alone).  The first time
 * the pool could not start a thread (RLIMIT_NPROC, a cgroup's pids.max,
 * no memory for a stack), PORTSORT_VERBOSE=1 says so: the sorts go on
 * with the threads there are. */
static ps_team *team_open(void)
{
    static int told;
    ps_team *t = ps_team_open(team_size);
    int err, failed = ps_team_start_failures(&err);
    if (failed && !__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
        host->log("openmp: %d of the %d threads asked for could be started "
                  "(%s); sorting with %d", ps_team_members(t), team_size,
                  err == EAGAIN ? "the process's thread limit"
                  : err == ENOMEM ? "no memory for another stack"
                  : "pthread_create failed", ps_team_members(t));
    return t;
}

static int openmp_sort(void *keys, void *values, size_t vs, size_t n,
                       ps_type type, unsigned flags)
{
    ps_omp_ctx c;
    size_t bytes;
    unsigned char *block;
    int from_cache, st = PS_OK;
    ps_team *team;

    if (n <= PS_SMALL_N) {
        kernels_of(ps_type_bytes(type))->insert(keys, values, vs, n,
                                                ps_xf_make(type, flags));
        return PS_OK;
    }
    /* The team first: the scratch has an area per member it got. */
    team = n >= PS_PARALLEL_MIN ? team_open() : NULL;
    bytes = plan(&c, keys, values, vs, n, type, flags, team);
    block = bytes != 0 ? scratch_take(bytes, &from_cache) : NULL;
    if (bytes == 0) {
        host->fail("openmp: %zu elements overflow the scratch size", n);
        st = PS_ERR_TOO_LARGE;
    } else if (block == NULL) {
        host->fail("openmp: cannot allocate %zu bytes of scratch", bytes);
        st = PS_ERR_NO_MEMORY;
    } else {
        run(&c, block);
        scratch_put(block, from_cache);
    }
    ps_team_close(team);
    return st;
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
    ps_omp_ctx c;
    if (m <= PS_SMALL_N) {
        kernels_of(ps_type_bytes(type))->insert(keys, values, vs, m,
                                                ps_xf_make(type, flags));
        return;
    }
    plan(&c, keys, values, vs, m, type, flags, NULL);
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
/* The order images of the m keys of kb bytes (4 or 8) at keys, into
 * slot; and, in place, the keys back from their images. */
static void seg_net_in(const unsigned char *keys, size_t kb, size_t m,
                       unsigned char *slot, ps_xf xf)
{
    size_t t;
    if (kb == 4) {
        const uint32_t *k = (const uint32_t *)(const void *)keys;
        uint32_t *s = (uint32_t *)(void *)slot;
        for (t = 0; t < m; t++)
            s[t] = ps_enc32(k[t], xf);
    } else {
        const uint64_t *k = (const uint64_t *)(const void *)keys;
        uint64_t *s = (uint64_t *)(void *)slot;
        for (t = 0; t < m; t++)
            s[t] = ps_enc64(k[t], xf);
    }
}

static void seg_net_out(unsigned char *keys, size_t kb, size_t m, ps_xf xf)
{
    size_t t;
    if (kb == 4) {
        uint32_t *k = (uint32_t *)(void *)keys;
        for (t = 0; t < m; t++)
            k[t] = ps_dec32(k[t], xf);
    } else {
        uint64_t *k = (uint64_t *)(void *)keys;
        for (t = 0; t < m; t++)
            k[t] = ps_dec64(k[t], xf);
    }
}

/* The networks sort slots of images: no transform of their own. */
static const ps_xf seg_net_raw = { 0, 0 };

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
        seg_net_in(keys + a * kb, kb, m, scratch + d * PS_NET_MAX * kb, xf);
        ends[d] = (uint32_t)(d * PS_NET_MAX + m);
    }
    kernels_of(kb)->net(scratch, keys + base * kb, ends, j - i,
                        (uint32_t)total, seg_net_raw, net_isa);
    seg_net_out(keys + base * kb, kb, total, xf);
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
    ps_omp_kernels64.net(slots, sorted, ends, j - i, (uint32_t)total,
                         seg_net_raw, PS_NET_AVX512);
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

/* The short segments' work, handed out `grain` segments at a time. */
typedef struct seg_job {
    unsigned char *k, *v, *block;
    size_t vs, sb, grain, num_segments;
    const size_t *offsets;
    ps_type type;
    unsigned flags;
} seg_job;

/* Chunk g of the segments (the last one shorter), in member's slice of
 * the block. */
static void item_segments(void *arg, int member, size_t g)
{
    const seg_job *j = arg;
    size_t hi = (g + 1) * j->grain < j->num_segments ? (g + 1) * j->grain
                                                     : j->num_segments;
    segments_chunk(j->k, j->v, j->vs, j->offsets, g * j->grain, hi, j->type,
                   j->flags, j->block + (size_t)member * j->sb);
}

/* Short segments are shared out among the team's members, a chunk of
 * segments at a time, each sorted by one member as a plain sort of its
 * size would be, in that member's slice of the block.  Long ones then get
 * the whole team each, one after another, in the block's last part,
 * planned for the longest of them (plan's bytes never shrink with n).
 * Everything is allocated before a key moves, so nothing fails half-way. */
static int openmp_sort_segments(void *state, void *keys, void *values,
                                size_t vs, size_t n, const size_t *offsets,
                                size_t num_segments, ps_type type,
                                unsigned flags)
{
    size_t kb = ps_type_bytes(type), s, longest_short = 0, longest_long = 0;
    size_t short_keys = 0, nshort = 0, sb = 0, lb = 0, chunks, nt;
    unsigned char *block, *k = keys, *v = values;
    int from_cache;
    ps_team *team;
    seg_job job;
    ps_omp_ctx c;

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
    /* One team for both: the chunks of short segments and the long ones. */
    team = short_keys >= PS_SEG_PARALLEL_MIN || longest_long != 0
           ? team_open() : NULL;
    nt = short_keys >= PS_SEG_PARALLEL_MIN ? (size_t)ps_team_members(team) : 1;
    if (longest_short > PS_SMALL_N)
        sb = round64(plan(&c, keys, values, vs, longest_short, type, flags, NULL));
    if (segments_net_kind(kb, vs) != SEG_NET_NONE && sb < PS_SEG_NET_BYTES)
        sb = round64(PS_SEG_NET_BYTES);
    if (longest_long)
        lb = plan(&c, keys, values, vs, longest_long, type, flags, team);
    if ((longest_long && lb == 0) || (sb != 0 && nt > (SIZE_MAX - 64) / sb)
        || lb > SIZE_MAX - nt * sb - 64) {
        ps_team_close(team);
        host->fail("openmp: %zu elements overflow the scratch size", longest_long);
        return PS_ERR_TOO_LARGE;
    }
    block = scratch_take(nt * sb + lb + 64, &from_cache);
    if (block == NULL) {
        ps_team_close(team);
        host->fail("openmp: cannot allocate %zu bytes of scratch",
                   nt * sb + lb + 64);
        return PS_ERR_NO_MEMORY;
    }
    /* Chunks of a few thousand keys: enough work to pay for taking one,
     * small enough to balance segments of very different lengths. */
    job.k = k;
    job.v = v;
    job.block = block;
    job.vs = vs;
    job.sb = sb;
    job.grain = 4096 / (nshort ? short_keys / nshort + 1 : 1) + 1;
    job.num_segments = num_segments;
    job.offsets = offsets;
    job.type = type;
    job.flags = flags;
    chunks = nshort ? (num_segments + job.grain - 1) / job.grain : 0;
    ps_team_for(nt > 1 ? team : NULL, chunks, item_segments, &job);
    for (s = 0; longest_long && s < num_segments; s++) {
        size_t a = offsets[s], m = offsets[s + 1] - a;
        if (m < PS_PARALLEL_MIN)
            continue;
        plan(&c, k + a * kb, v != NULL ? v + a * vs : NULL, vs, m, type, flags,
             team);
        run(&c, block + nt * sb);
    }
    ps_team_close(team);
    scratch_put(block, from_cache);
    return PS_OK;
}

/* The sorts' value-size dispatch (VS_FL in ps_openmp_kernels-inl.h) and their
 * one-value buffers (tmp[8]) know values of 4 and 8 bytes only: the core
 * sends other sizes through its index fallback because of this field. */
#define PS_OPENMP_VALUE_SIZES (PS_VALUE_SIZE_BIT(4) | PS_VALUE_SIZE_BIT(8))

const ps_backend_ops ps_openmp_ops = {
    PS_BACKEND_HEAD,
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
    .check_env = openmp_check_env,
};
