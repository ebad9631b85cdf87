/*
 * ps_test_openmp_large - the sizes where the OpenMP backend's large-array
 * paths run (MSD passes, streaming stores, power-of-two aliasing): 2^24 and
 * 16,000,000 elements of several types, with the scratch cache released
 * between sorts, an allocation failure after a release, and two threads
 * sorting big arrays while a third keeps releasing the cache.
 *
 * The merge-sort oracle is too slow at these sizes, so each result is
 * checked exactly in linear time instead: the values are the original
 * indices, so they must form a permutation, each key must be the original
 * key at its value's index, adjacent keys must be in order (t_cmp), and
 * equal adjacent keys must have increasing indices (stability).  A
 * keys-only sort of the same data must give the same keys.
 *
 * Three smaller cases aim at corners of the leaves' sorting networks.
 *
 * PS_TEST_LARGE_N, when set, replaces both large sizes (for quick runs).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_util.h"

enum { G_RANDOM, G_FEW, G_LOWENT, G_NARROW, G_THIN, G_SLOT33 };

static void generate(unsigned char *keys, size_t n, ps_type type, int g,
                     uint64_t seed)
{
    size_t kb = ps_type_size(type), i;
    uint64_t s = seed, few[5];
    for (i = 0; i < 5; i++)
        few[i] = t_rand(&s);
    for (i = 0; i < n; i++) {
        uint64_t v;
        switch (g) {
        case G_FEW: v = few[t_rand(&s) % 5]; break;
        case G_LOWENT: v = t_rand(&s) & t_rand(&s) & t_rand(&s); break;
        case G_NARROW: v = t_rand(&s) % 3000; break;
        /* 34 keys under 2^30, the rest above, all multiples of 64: for
         * u32 pairs, the first pass takes two bits (the constant low ones
         * leave too few for more), and one of its buckets gets 34 keys
         * whose bits 27-29 differ. */
        case G_THIN:
            v = (i < 34 ? t_rand(&s) >> 34 : t_rand(&s) | 1u << 30) & ~(uint64_t)63;
            break;
        /* 33 copies of one key, which no other key matches in its top
         * 12 bits: the leaf bucket holding them (its digit takes at
         * least those bits) overflows the networks' 32-key slots by
         * exactly one. */
        case G_SLOT33:      /* (kb is 4 or 8: v's low kb bytes count) */
            v = t_rand(&s);
            if (i < 33)
                v = few[0];
            else if (((v ^ few[0]) << (64 - 8 * kb)) >> 52 == 0)
                v ^= (uint64_t)1 << (8 * kb - 1);
            break;
        default: v = t_rand(&s); break;
        }
        memcpy(keys + i * kb, &v, kb);
    }
}

static void *xmalloc(size_t b)
{
    void *p = malloc(b ? b : 1);
    if (p == NULL)
        t_fail("out of memory (%zu bytes)", b);
    return p;
}

static size_t index_of(const unsigned char *vals, size_t vs, size_t i)
{
    if (vs == 4) {
        uint32_t x;
        memcpy(&x, vals + i * 4, 4);
        return x;
    }
    {
        uint64_t x;
        memcpy(&x, vals + i * 8, 8);
        return (size_t)x;
    }
}

/* Sort n keys of `type` (dataset g) as pairs with index values of vs bytes
 * and as keys only, and check both exactly. */
static void check(const char *what, ps_type type, unsigned flags, size_t n,
                  int g, size_t vs, uint64_t seed)
{
    size_t kb = ps_type_size(type), i;
    unsigned char *orig = xmalloc(n * kb), *k = xmalloc(n * kb);
    unsigned char *v = xmalloc(n * (vs > kb ? vs : kb)), *seen = xmalloc(n);
    int sign = (flags & PS_DESCENDING) ? -1 : 1, st;

    generate(orig, n, type, g, seed);
    memcpy(k, orig, n * kb);
    for (i = 0; i < n; i++) {
        uint64_t x = i;
        if (vs == 4) {
            uint32_t y = (uint32_t)i;
            memcpy(v + i * 4, &y, 4);
        } else {
            memcpy(v + i * 8, &x, 8);
        }
    }
    st = ps_sort_pairs(k, v, vs, n, type, flags);
    if (st != PS_OK)
        t_fail("%s: pairs: %s: %s", what, ps_strerror(st), ps_error_detail());
    memset(seen, 0, n);
    for (i = 0; i < n; i++) {
        size_t x = index_of(v, vs, i);
        if (x >= n || seen[x]++)
            t_fail("%s: values are not a permutation (at %zu)", what, i);
        if (memcmp(k + i * kb, orig + x * kb, kb) != 0)
            t_fail("%s: key at %zu is not the key of its value", what, i);
        if (i > 0) {
            int c = sign * t_cmp(k + (i - 1) * kb, k + i * kb, type);
            if (c > 0)
                t_fail("%s: out of order at %zu", what, i);
            if (c == 0 && index_of(v, vs, i - 1) > x)
                t_fail("%s: not stable at %zu", what, i);
        }
    }
    /* Keys only, after giving the cache back: a fresh scratch block. */
    if (ps_release_cache() != PS_OK)
        t_fail("%s: ps_release_cache failed", what);
    memcpy(v, orig, n * kb);    /* v is at least n * kb bytes */
    st = ps_sort_keys(v, n, type, flags);
    if (st != PS_OK)
        t_fail("%s: keys: %s: %s", what, ps_strerror(st), ps_error_detail());
    if (memcmp(v, k, n * kb) != 0)
        t_fail("%s: keys-only sort differs from the pairs sort", what);
    printf("  %-40s n=%zu ok\n", what, n);
    free(orig); free(k); free(v); free(seen);
}

/* After ps_release_cache the next big sort must allocate; make that fail.
 * Keys alone are then sorted in place (reference/ps_inplace.c); a sort of
 * pairs, which needs scratch to stay stable, is sorted in pieces whose
 * scratch malloc still gives, merged stably (lib/ps_pieces.c). */
static void allocation_failure(size_t n)
{
    uint32_t *k = xmalloc(n * 4), *k0 = xmalloc(n * 4);
    uint32_t *v = xmalloc(n * 4), *v0 = xmalloc(n * 4);
    uint64_t s = 7;
    size_t i;
    int st;
    for (i = 0; i < n; i++) {
        k[i] = k0[i] = (uint32_t)t_rand(&s);
        v[i] = v0[i] = (uint32_t)i;
    }
    if (ps_release_cache() != PS_OK)
        t_fail("ps_release_cache failed");
    t_fail_alloc_at(1);
    st = ps_sort_pairs(k, v, 4, n, PS_U32, 0);
    t_fail_alloc_at(0);
    if (!t_alloc_failed())
        t_fail("allocation failure: the sort allocated nothing after "
               "ps_release_cache");
    if (st != PS_OK)
        t_fail("allocation failure: pairs got %s (%s), not a sort in pieces",
               ps_strerror(st), ps_error_detail());
    for (i = 1; i < n; i++)
        if (k[i - 1] > k[i] || (k[i - 1] == k[i] && v[i - 1] >= v[i]))
            t_fail("allocation failure: pairs sorted in pieces out of order "
                   "or unstable at %zu", i);
    for (i = 0; i < n; i++)
        if (k0[v[i]] != k[i])
            t_fail("allocation failure: pair %zu lost its key", i);
    printf("  %-40s n=%zu ok\n", "failed allocation: pairs in pieces", n);
    memcpy(k, k0, n * 4);
    if (ps_release_cache() != PS_OK)
        t_fail("ps_release_cache failed");
    t_fail_alloc_at(1);
    st = ps_sort_keys(k, n, PS_U32, 0);
    t_fail_alloc_at(0);
    if (!t_alloc_failed())
        t_fail("allocation failure: the keys' sort allocated nothing");
    if (st != PS_OK)
        t_fail("allocation failure: keys got %s (%s), not a sort in place",
               ps_strerror(st), ps_error_detail());
    for (i = 1; i < n; i++)
        if (k[i - 1] > k[i])
            t_fail("allocation failure: keys sorted in place out of order "
                   "at %zu", i);
    printf("  %-40s n=%zu ok\n", "failed allocation: keys sorted in place", n);
    free(k); free(k0); free(v); free(v0);
}

/* Two threads sort big arrays over and over while a third releases the
 * cache: nobody may free scratch a sort is using. */
static volatile int stop;

static void *releaser(void *arg)
{
    (void)arg;
    while (!stop)
        ps_release_cache();
    return NULL;
}

static void *sorter(void *arg)
{
    long id = (long)arg;
    size_t n = ((size_t)1 << 21) + (size_t)id * 77, i;
    uint64_t *k = xmalloc(n * 8), s = 100 + (uint64_t)id;
    int r;
    for (r = 0; r < 4; r++) {
        for (i = 0; i < n; i++)
            k[i] = t_rand(&s);
        if (ps_sort_keys(k, n, PS_U64, 0) != PS_OK)
            t_fail("thread %ld: %s", id, ps_error_detail());
        for (i = 1; i < n; i++)
            if (k[i - 1] > k[i])
                t_fail("thread %ld: round %d out of order at %zu", id, r, i);
    }
    free(k);
    return NULL;
}

static void concurrent_release(void)
{
    pthread_t th[3];
    long i;
    if (pthread_create(&th[2], NULL, releaser, NULL) != 0)
        t_fail("pthread_create");
    for (i = 0; i < 2; i++)
        if (pthread_create(&th[i], NULL, sorter, (void *)i) != 0)
            t_fail("pthread_create");
    for (i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    stop = 1;
    pthread_join(th[2], NULL);
    printf("  %-40s ok\n", "concurrent sorts with ps_release_cache");
}

int main(void)
{
    const char *cap = getenv("PS_TEST_LARGE_N");
    size_t p2 = (size_t)1 << 24, m16 = 16000000;
    if (cap != NULL && cap[0] != '\0')
        p2 = m16 = strtoull(cap, NULL, 0);
    t_init_or_skip("ps_test_openmp_large");
    check("u32 random, 2^24", PS_U32, 0, p2, G_RANDOM, 4, 1);
    check("u32 random, 16M", PS_U32, 0, m16, G_RANDOM, 4, 2);
    check("u64 random desc, 16M", PS_U64, PS_DESCENDING, m16, G_RANDOM, 8, 3);
    check("i64 low-entropy, 2^24", PS_I64, 0, p2, G_LOWENT, 4, 4);
    check("f32 few-distinct desc, 2^24", PS_F32, PS_DESCENDING, p2, G_FEW, 4, 5);
    check("f64 random, 16M", PS_F64, 0, m16, G_RANDOM, 8, 6);
    check("i32 narrow, 16M", PS_I32, 0, m16, G_NARROW, 4, 7);
    check("u16 random desc, 2^24", PS_U16, PS_DESCENDING, p2, G_RANDOM, 4, 8);
    check("i8 random, 16M", PS_I8, 0, m16, G_RANDOM, 8, 9);
    /* A bucket too thin for the pairs' sorting networks (pk_net_leaf):
     * its keys share fewer than the 5 top bits those need. */
    check("u32 one thin bucket, 39034", PS_U32, 0, 39034, G_THIN, 4, 10);
    check("u32 a bucket of 33, 50000", PS_U32, 0, 50000, G_SLOT33, 4, 11);
    check("u64 a bucket of 33, 50000", PS_U64, 0, 50000, G_SLOT33, 8, 12);
    allocation_failure(p2);
    concurrent_release();
    printf("ps_test_openmp_large: passed on backend %s\n", ps_backend_name());
    return 0;
}
