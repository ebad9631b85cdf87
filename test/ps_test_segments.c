/*
 * ps_test_segments - ps_sort_segments on the backend PORTSORT_BACKEND
 * names: every segment compared with the tests' stable merge sort of that
 * segment alone, over the segmentations users have (CSR rows of about ten
 * keys, single keys, empty segments, power-law lengths, one giant segment,
 * a few huge ones, long and short mixed), every type, both directions,
 * keys and pairs (native value sizes and the index route); then the
 * refusals and, with host allocations made to fail one by one, the
 * promise that an error leaves both arrays as they were.
 *
 * The keys: random, few distinct, narrow (+-0, subnormals), all equal,
 * presorted, reversed, and the special values (+-0, +-inf, NaNs with
 * payloads) of each float width.  One segmentation puts segment lengths on
 * both sides of every power of two from 32 to 4096, where the device
 * backends' size classes change.
 *
 * PS_TEST_MAX_N caps the sizes (default 300000) for slow backends, and
 * PS_TEST_SEGMENTS_BIG the number of type cases run at the largest size,
 * PS_TEST_SEGMENTS_BIG_N (default: PS_TEST_MAX_N, at most 300000): from
 * 140000 keys the shapes hold two segments of 70000, beyond both the
 * OpenMP backend's whole-team threshold and the core's device threshold.
 * PS_TEST_SEGMENTS_SAMPLE=k runs one in k of the combinations above 100
 * keys, rotating through types, directions, shapes and sizes (the CUDA
 * stand-in is slow).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_util.h"

enum { S_CSR, S_UNIFORM, S_POWER, S_ONES, S_EMPTIES, S_ONE, S_FEW_HUGE,
       S_LONG_SHORT, S_BOUNDS, S_COUNT };
static const char *snames[] = { "csr-rows", "uniform-0..300", "power-law",
    "single-keys", "with-empties", "one-segment", "four-huge",
    "long-and-short", "class-bounds" };

/* Lengths on either side of the size-class boundaries the device
 * backends use (a power of two for the small class and for a tile). */
static const size_t bounds[] = { 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129,
    255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4097 };

enum { D_RANDOM, D_FEW, D_NARROW, D_EQUAL, D_SORTED, D_REVERSE, D_SPECIAL,
       D_COUNT };
static const char *dnames[] = { "random", "few-distinct", "narrow",
    "all-equal", "presorted", "reverse", "specials" };

static const size_t vsizes[] = { 0, 4, 8, 3 };   /* 0: keys only */

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        t_fail("out of memory (%zu bytes)", bytes);
    return p;
}

/* The length of the next segment of a shape, at most `left`. */
static size_t next_len(int shape, size_t n, size_t s, size_t left,
                       uint64_t *rng)
{
    size_t m = 0;
    switch (shape) {
    case S_CSR: m = 5 + t_rand(rng) % 11; break;          /* 5..15 */
    case S_UNIFORM: m = t_rand(rng) % 301; break;
    case S_POWER: {                                       /* 2^0..2^17 */
        unsigned e = (unsigned)(t_rand(rng) % 18);
        m = (size_t)1 << e;
        m = m * (t_rand(rng) % 1000 + 1) / 1000;
        break;
    }
    case S_ONES: m = 1; break;
    case S_EMPTIES: m = s % 2 ? 0 : t_rand(rng) % 50; break;
    case S_ONE: m = n; break;
    case S_FEW_HUGE: m = n / 4 + 1; break;
    case S_LONG_SHORT: m = s % 3 == 0 ? 70000 : t_rand(rng) % 40; break;
    case S_BOUNDS: m = bounds[s % (sizeof bounds / sizeof bounds[0])]; break;
    }
    return m < left ? m : left;
}

/* offsets for n keys in a shape; returns the number of segments.  Some
 * shapes end with empty segments, which must be legal too. */
static size_t make_offsets(int shape, size_t n, size_t **out, uint64_t *rng)
{
    size_t cap = 16, ns = 0, at = 0;
    size_t *off = xmalloc(cap * sizeof *off);
    off[0] = 0;
    while (at < n || (shape == S_EMPTIES && ns < 3)) {
        if (ns + 2 > cap) {
            cap *= 2;
            off = realloc(off, cap * sizeof *off);
            if (off == NULL)
                t_fail("out of memory for offsets");
        }
        at += next_len(shape, n, ns, n - at, rng);
        off[++ns] = at;
    }
    *out = off;
    return ns;
}

/* Bit patterns a float sort must order by totalOrder (and integer
 * extremes): +-0, +-inf, NaNs of both signs with payloads, the smallest
 * subnormal, the largest finite, one and its negative, for the key width;
 * in the sign-magnitude field layout of f16/bf16 (16 bits), f32 and f64. */
static uint64_t special(size_t kb, uint64_t r)
{
    static const uint64_t s16[] = { 0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e01,
        0xfe7f, 0x0001, 0x7bff, 0x3c00, 0xbc00, 0x7f80, 0xff81 };
    static const uint64_t s32[] = { 0, 0x80000000u, 0x7f800000u, 0xff800000u,
        0x7fc00001u, 0xffbfffffu, 1, 0x7f7fffffu, 0x3f800000u, 0xbf800000u };
    static const uint64_t s64[] = { 0, 1ull << 63, 0x7ff0000000000000ull,
        0xfff0000000000000ull, 0x7ff8000000000001ull, 0xfff0000000000042ull, 1,
        0x7fefffffffffffffull, 0x3ff0000000000000ull, 0xbff0000000000000ull };
    switch (kb) {
    case 2: return s16[r % (sizeof s16 / sizeof s16[0])];
    case 4: return s32[r % (sizeof s32 / sizeof s32[0])];
    case 8: return s64[r % (sizeof s64 / sizeof s64[0])];
    }
    return r % 3 == 0 ? 0 : r % 3 == 1 ? 0x80 : 0x7f;
}

static void make_keys(unsigned char *keys, size_t n, size_t kb, int data,
                      uint64_t *rng)
{
    uint64_t few[4];
    size_t i;
    for (i = 0; i < 4; i++)
        few[i] = t_rand(rng);
    for (i = 0; i < n; i++) {
        uint64_t v = t_rand(rng);
        switch (data) {
        case D_FEW: v = few[v % 4]; break;
        case D_NARROW:    /* +-0, tiny subnormals, small ints */
            v = (v & 7) | ((v >> 8) & 1) << (8 * kb - 1);
            break;
        case D_EQUAL: v = few[0]; break;
        /* Ascending and descending as integers of the key width (and as
         * floats, within a sign). */
        case D_SORTED: v = i / 3; break;
        case D_REVERSE: v = n - i / 2; break;
        case D_SPECIAL: v = special(kb, v); break;
        }
        memcpy(keys + i * kb, &v, kb);
    }
}

static long checks;

static void check(ps_type type, unsigned flags, size_t vs, int shape,
                  size_t n, int data, uint64_t seed)
{
    size_t kb = ps_type_size(type), ns, i, *off;
    unsigned char *orig, *keys, *vals, *vorig;
    uint64_t rng = seed;
    char what[160];
    int st;

    ns = make_offsets(shape, n, &off, &rng);
    orig = xmalloc(n * kb);
    keys = xmalloc(n * kb);
    vals = xmalloc(n * (vs ? vs : 1));
    vorig = xmalloc(n * (vs ? vs : 1));
    make_keys(orig, n, kb, data, &rng);
    for (i = 0; i < n * vs; i++)
        vorig[i] = (unsigned char)t_rand(&rng);
    memcpy(keys, orig, n * kb);
    memcpy(vals, vorig, n * vs);

    st = ps_sort_segments(keys, vs ? vals : NULL, vs, n, off, ns, type, flags);
    snprintf(what, sizeof what, "%s %s vs=%zu %s n=%zu %s", t_type_name(type),
             flags ? "desc" : "asc", vs, snames[shape], n, dnames[data]);
    if (st != PS_OK)
        t_fail("%s: %s: %s", what, ps_strerror(st), ps_error_detail());
    t_check_segments(what, orig, keys, vorig, vals, vs, off, ns, type, flags);
    checks++;
    free(off); free(orig); free(keys); free(vals); free(vorig);
}

/* A refused call: PS_ERR_INVALID_ARG, a detail, nothing touched. */
static void refused(const char *what, unsigned char *keys, void *vals,
                    size_t vs, size_t n, const size_t *off, size_t ns,
                    ps_type type, unsigned flags)
{
    unsigned char k0[64], v0[64];
    int st;
    memcpy(k0, keys, 64);
    memcpy(v0, vals, 64);
    st = ps_sort_segments(keys, vs ? vals : NULL, vs, n, off, ns, type, flags);
    if (st != PS_ERR_INVALID_ARG)
        t_fail("%s: got %d (%s), want PS_ERR_INVALID_ARG", what, st,
               ps_strerror(st));
    if (ps_error_detail()[0] == '\0')
        t_fail("%s: refused with no detail", what);
    if (memcmp(k0, keys, 64) != 0 || memcmp(v0, vals, 64) != 0)
        t_fail("%s: refused call changed the arrays", what);
}

static void errors(void)
{
    unsigned char keys[64], vals[64];
    size_t good[] = { 0, 3, 8, 16 }, bad_start[] = { 1, 3, 8, 16 };
    size_t decreasing[] = { 0, 5, 4, 16 }, short_end[] = { 0, 3, 8, 15 };
    size_t long_end[] = { 0, 3, 8, 17 }, none[] = { 0 };
    uint64_t rng = 5;
    size_t i;
    int st;

    for (i = 0; i < 64; i++)
        keys[i] = (unsigned char)t_rand(&rng), vals[i] = (unsigned char)i;
    refused("offsets[0] != 0", keys, vals, 0, 16, bad_start, 3, PS_U32, 0);
    refused("decreasing offsets", keys, vals, 4, 16, decreasing, 3, PS_U32, 0);
    refused("last offset < n", keys, vals, 0, 16, short_end, 3, PS_F16, 0);
    refused("last offset > n", keys, vals, 0, 16, long_end, 3, PS_U8, 0);
    refused("NULL offsets", keys, vals, 0, 16, NULL, 3, PS_U32, 0);
    refused("no segments for n keys", keys, vals, 0, 16, none, 0, PS_U32, 0);
    refused("num_segments SIZE_MAX", keys, vals, 0, 16, good, SIZE_MAX, PS_U32, 0);
    refused("unknown type", keys, vals, 0, 16, good, 3, (ps_type)99, 0);
    refused("unknown flag", keys, vals, 0, 16, good, 3, PS_U32, 2);
    st = ps_sort_segments(keys, vals, 0, 16, good, 3, PS_U32, 0);
    if (st != PS_ERR_INVALID_ARG)
        t_fail("values with value_size 0: got %d", st);
    st = ps_sort_segments(keys, NULL, 4, 16, good, 3, PS_U32, 0);
    if (st != PS_ERR_INVALID_ARG)
        t_fail("NULL values with value_size 4: got %d", st);
    st = ps_sort_segments(NULL, NULL, 0, 16, good, 3, PS_U32, 0);
    if (st != PS_ERR_INVALID_ARG)
        t_fail("NULL keys: got %d", st);
    st = ps_sort_segments(keys + 1, NULL, 0, 4, (size_t[]){ 0, 4 }, 1, PS_U32, 0);
    if (st != PS_ERR_INVALID_ARG)
        t_fail("misaligned keys: got %d", st);
    /* Nothing to sort: success, NULL pointers allowed. */
    if (ps_sort_segments(NULL, NULL, 0, 0, NULL, 0, PS_U32, 0) != PS_OK)
        t_fail("empty segmentation of nothing refused: %s", ps_error_detail());
    if (ps_sort_segments(NULL, NULL, 0, 0, none, 0, PS_U32, 0) != PS_OK)
        t_fail("zero segments, offsets {0}, refused: %s", ps_error_detail());
    if (ps_sort_segments(NULL, NULL, 8, 0, (size_t[]){ 0, 0, 0 }, 2, PS_F64,
                         PS_DESCENDING) != PS_OK)
        t_fail("two empty segments refused: %s", ps_error_detail());
}

/* With the k-th host allocation failing, for k = 1, 2, ... until a call
 * makes no allocation fail: each call either sorts correctly or fails
 * with a memory status and both arrays exactly as they were. */
static void faults(void)
{
    size_t n = 300000, kb = 4, vs = 3, ns, i, *off;
    unsigned char *orig, *keys, *vals, *vorig;
    uint64_t rng = 77;
    long k;

    ns = make_offsets(S_LONG_SHORT, n, &off, &rng);
    orig = xmalloc(n * kb), keys = xmalloc(n * kb);
    vals = xmalloc(n * vs), vorig = xmalloc(n * vs);
    make_keys(orig, n, kb, D_RANDOM, &rng);
    for (i = 0; i < n * vs; i++)
        vorig[i] = (unsigned char)t_rand(&rng);
    for (k = 1; k < 64; k++) {
        int st;
        memcpy(keys, orig, n * kb);
        memcpy(vals, vorig, n * vs);
        t_fail_alloc_at(k);
        st = ps_sort_segments(keys, vals, vs, n, off, ns, PS_I32, 0);
        t_fail_alloc_at(0);
        if (!t_alloc_failed()) {
            if (st != PS_OK)
                t_fail("faults: no allocation failed, yet %s", ps_error_detail());
            break;
        }
        if (st == PS_OK)
            continue;   /* the failed allocation had a fallback */
        if (st != PS_ERR_NO_MEMORY && st != PS_ERR_DEVICE_MEMORY)
            t_fail("faults: allocation %ld failed: status %d (%s)", k, st,
                   ps_error_detail());
        if (memcmp(keys, orig, n * kb) != 0 || memcmp(vals, vorig, n * vs) != 0)
            t_fail("faults: allocation %ld failed and the arrays changed", k);
    }
    if (k == 64)
        t_fail("faults: allocations still failing after 63 tries");
    printf("ps_test_segments: %ld allocation faults injected, arrays kept\n",
           k - 1);
    free(off); free(orig); free(keys); free(vals); free(vorig);
}

int main(void)
{
    static const size_t sizes[] = { 0, 1, 2, 33, 1000, 50000 };
    static const struct { ps_type t; unsigned flags; size_t vs; } big[] = {
        { PS_U32, 0, 0 }, { PS_F64, PS_DESCENDING, 8 }, { PS_I16, 0, 3 },
        { PS_F16, PS_DESCENDING, 0 }, { PS_U64, 0, 4 }, { PS_BF16, 0, 8 },
    };
    const char *cap = getenv("PS_TEST_MAX_N");
    const char *nbig = getenv("PS_TEST_SEGMENTS_BIG");
    const char *bign = getenv("PS_TEST_SEGMENTS_BIG_N");
    const char *every = getenv("PS_TEST_SEGMENTS_SAMPLE");
    unsigned long sample = every ? strtoul(every, NULL, 0) : 1;
    size_t max_n = cap ? strtoull(cap, NULL, 0) : 300000;
    size_t big_n = bign ? strtoull(bign, NULL, 0) : max_n < 300000 ? max_n : 300000;
    size_t big_cases = sizeof big / sizeof big[0];
    uint64_t seed = 1;
    int t, f, shape;
    size_t s, b;

    if (sample == 0)
        sample = 1;
    t_init_or_skip("ps_test_segments");
    errors();
    for (t = PS_U8; t <= T_TYPE_LAST; t++)
        for (f = 0; f < 2; f++)
            for (shape = 0; shape < S_COUNT; shape++)
                for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                    size_t vs = vsizes[(t + f + shape + s) % 4];
                    if (sizes[s] > max_n
                        || (sizes[s] > 100 && (t + f + shape + s) % sample != 0))
                        continue;
                    check((ps_type)t, f ? PS_DESCENDING : 0, vs, shape,
                          sizes[s], (int)((t + shape + s) % D_COUNT), seed++);
                }
    /* Long segments: the backends' whole-team and device paths. */
    if (nbig != NULL && strtoull(nbig, NULL, 0) < big_cases)
        big_cases = strtoull(nbig, NULL, 0);
    for (b = 0; big_n >= 140000 && b < big_cases; b++)
        for (shape = S_POWER; shape < S_COUNT; shape++)
            if (shape == S_POWER || (shape >= S_ONE && shape <= S_LONG_SHORT))
                check(big[b].t, big[b].flags, big[b].vs, shape, big_n,
                      (int)((b + (unsigned)shape) % D_COUNT), seed++);
    if (max_n >= 300000)
        faults();
    printf("ps_test_segments: %ld checks passed on backend %s\n", checks,
           ps_backend_name());
    return 0;
}
