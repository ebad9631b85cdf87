/*
 * ps_bench_peer_stub.c - stand-in peers for bench/ps_cpubench's tests
 * (test/cpubench.sh), loaded through PS_BENCH_PEERS like x86-simd-sort's
 * or IPS4o's shims.  PS_STUB_MODE selects the shared object:
 *   0  five sorters: stub-sort (right, pairs unstable: equal keys' values
 *      come out reversed), stub-liar (the same, but claims stable pairs),
 *      stub-fail (every call fails), stub-wrong (wrong results), stub-keys
 *      (keys only); and one whose name is too long
 *   1  declines: says the CPU lacks what it needs
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "ps_bench_peer.h"

#ifndef PS_STUB_MODE
#  define PS_STUB_MODE 0
#endif

/* qsort has no context argument in ISO C; the benchmark calls one sorter
 * at a time. */
static const unsigned char *cmp_keys;
static size_t cmp_ks;
static int cmp_how;     /* 0 unsigned, 1 signed, 2 float */

static uint64_t image(const unsigned char *k, size_t ks, int how)
{
    uint64_t x = 0, sign;
    memcpy(&x, k, ks);
    sign = (uint64_t)1 << (ks * 8 - 1);
    if (how == 1)
        x ^= sign;
    else if (how == 2)
        x ^= (x & sign) ? (sign | (sign - 1)) : sign;
    return x;
}

static int by_key_then_index(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    uint64_t x = image(cmp_keys + i * cmp_ks, cmp_ks, cmp_how);
    uint64_t y = image(cmp_keys + j * cmp_ks, cmp_ks, cmp_how);
    if (x != y)
        return x < y ? -1 : 1;
    return (i > j) - (i < j);
}

/* Sort by key through a permutation; with values, reverse the values of
 * each run of equal keys afterwards (a valid unstable result). */
static int stub_sort(void *keys, void *values, size_t n, size_t ks, size_t vs, int how)
{
    size_t *perm = malloc(n * sizeof *perm), i, a;
    unsigned char *k2 = malloc(n * ks), *v2 = vs ? malloc(n * vs) : NULL;
    unsigned char *k = keys, *v = values;
    if (perm == NULL || k2 == NULL || (vs && v2 == NULL)) {
        free(perm); free(k2); free(v2);
        return -1;
    }
    for (i = 0; i < n; i++)
        perm[i] = i;
    cmp_keys = k;
    cmp_ks = ks;
    cmp_how = how;
    qsort(perm, n, sizeof *perm, by_key_then_index);
    for (i = 0; i < n; i++) {
        memcpy(k2 + i * ks, k + perm[i] * ks, ks);
        if (vs)
            memcpy(v2 + i * vs, v + perm[i] * vs, vs);
    }
    memcpy(k, k2, n * ks);
    for (a = 0; vs && a < n; a = i) {
        size_t j;
        for (i = a + 1; i < n && memcmp(k + a * ks, k + i * ks, ks) == 0; i++)
            ;
        for (j = a; j < i; j++)
            memcpy(v + j * vs, v2 + (i - 1 - (j - a)) * vs, vs);
    }
    free(perm); free(k2); free(v2);
    return 0;
}

/* The sorters' functions, per kind: s_ sorts, f_ fails, w_ sorts and then
 * swaps the first and last key (out of order unless equal) or, for pairs,
 * value (moved to another key's place). */
#define STUB_KEYS(NAME, T, HOW)                                                \
static int s_##NAME(T *k, size_t n, int t)                                     \
{                                                                              \
    (void)t;                                                                   \
    return stub_sort(k, NULL, n, sizeof(T), 0, HOW);                           \
}                                                                              \
static int f_##NAME(T *k, size_t n, int t)                                     \
{                                                                              \
    (void)k; (void)n; (void)t;                                                 \
    return -1;                                                                 \
}                                                                              \
static int w_##NAME(T *k, size_t n, int t)                                     \
{                                                                              \
    T x;                                                                       \
    if (s_##NAME(k, n, t) != 0 || n < 2)                                       \
        return -1;                                                             \
    x = k[0], k[0] = k[n - 1], k[n - 1] = x;                                   \
    return 0;                                                                  \
}
#define STUB_PAIRS(NAME, T)                                                    \
static int s_##NAME(T *k, T *v, size_t n, int t)                               \
{                                                                              \
    (void)t;                                                                   \
    return stub_sort(k, v, n, sizeof(T), sizeof(T), 0);                        \
}                                                                              \
static int f_##NAME(T *k, T *v, size_t n, int t)                               \
{                                                                              \
    (void)k; (void)v; (void)n; (void)t;                                        \
    return -1;                                                                 \
}                                                                              \
static int w_##NAME(T *k, T *v, size_t n, int t)                               \
{                                                                              \
    T x;                                                                       \
    if (s_##NAME(k, v, n, t) != 0 || n < 2)                                    \
        return -1;                                                             \
    x = v[0], v[0] = v[n - 1], v[n - 1] = x;                                   \
    return 0;                                                                  \
}
STUB_KEYS(u32, uint32_t, 0)
STUB_KEYS(u64, uint64_t, 0)
STUB_KEYS(f32, float, 2)
STUB_KEYS(i64, int64_t, 1)
STUB_PAIRS(u32_u32, uint32_t)
STUB_PAIRS(u64_u64, uint64_t)

static const ps_bench_peer peers[] = {
    { "stub-sort", "stand-in: qsort, pairs unstable", 0, 0,
      s_u32, s_u64, s_f32, s_i64, s_u32_u32, s_u64_u64 },
    { "stub-liar", "stand-in: unstable pairs, claims stable", 0, 1,
      s_u32, s_u64, s_f32, s_i64, s_u32_u32, s_u64_u64 },
    { "stub-fail", "stand-in: fails every call", 1, 0,
      f_u32, f_u64, f_f32, f_i64, f_u32_u32, f_u64_u64 },
    { "stub-wrong", "stand-in: wrong results", 0, 0,
      w_u32, w_u64, w_f32, w_i64, w_u32_u32, w_u64_u64 },
    { "stub-keys", "stand-in: keys only", 0, 0,
      s_u32, s_u64, s_f32, s_i64, NULL, NULL },
    { "stub-name-much-too-long", "stand-in: a name the table has no room for", 0, 0,
      s_u32, s_u64, s_f32, s_i64, NULL, NULL },
};

int ps_bench_peer_list(unsigned abi, const ps_bench_peer **out, const char **why)
{
    if (abi != PS_BENCH_PEER_ABI) {
        *why = "built for another ABI";
        return -1;
    }
    if (PS_STUB_MODE == 1) {
        *why = "stand-in: this CPU lacks what it was built for";
        return -1;
    }
    *out = peers;
    return (int)(sizeof peers / sizeof peers[0]);
}
