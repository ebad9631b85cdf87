/*
 * ps_test_diff - the differential test: every type x direction x operation
 * (keys, pairs with value sizes 1, 4, 8, 12, argsort) x size x dataset,
 * sorted by the backend PORTSORT_BACKEND names and compared bit for bit
 * with a stable merge sort that shares no code with the library.
 *
 * PS_TEST_MAX_N caps the sizes (default 2^20 + 1) for slow backends, and
 * PS_TEST_TYPES (a comma list of type names: u8,f32) narrows the types, for
 * a second run of a slow backend under another tuning.  PS_TEST_MIN_N
 * skips the sizes below it (default 0): a run aimed at a multi-tile path
 * (Onesweep on pocl) need not sort again the arrays that fit in one tile,
 * which take the one-work-group path another run has just checked.
 * PS_TEST_OPS (keys,pairs1,pairs4,pairs8,pairs12,argsort) narrows the
 * operations: on pocl each value width is a program of its own to compile,
 * about half a minute each on two cores.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_util.h"

enum { D_ZEROS, D_RANDOM, D_RANGE, D_INVERTED, D_FEW, D_LOWENT, D_EQUAL,
       D_NARROW, D_SPECIAL, D_COUNT };
static const char *dnames[] = { "zeros", "random", "range", "inverted-range",
    "few-distinct", "low-entropy", "all-equal", "narrow", "float-specials" };

static void put(unsigned char *dst, size_t kb, uint64_t v)
{
    memcpy(dst, &v, kb); /* little-endian: the low kb bytes */
}

/* The value of a "range" element i as a key of `type`, increasing in i. */
/* 1 for the floating-point types. */
static int is_float(ps_type type)
{
    return type == PS_F16 || type == PS_BF16 || type == PS_F32 || type == PS_F64;
}

/* The half-precision bit pattern of a small non-negative integer: exact
 * in f16 below 2048, truncated to 8 significant bits in bf16. */
static uint64_t half_of_int(ps_type type, uint64_t v)
{
    float f = (float)v;
    uint32_t b;
    int e = 0;
    if (type == PS_BF16) {
        memcpy(&b, &f, 4);
        return b >> 16;
    }
    if (v == 0)
        return 0;
    while ((v >> e) > 1)
        e++;
    return (uint64_t)(e + 15) << 10 | ((v << (10 - e)) & 1023);
}

static uint64_t range_value(ps_type type, size_t i, size_t n)
{
    size_t kb = ps_type_size(type);
    if (type == PS_F16 || type == PS_BF16) {
        /* Every finite value, most negative first: the finite patterns of
         * one sign number `fin`; negatives count down from -max to -0. */
        uint64_t fin = type == PS_F16 ? 0x7c00 : 0x7f80;
        uint64_t j = (uint64_t)i * (2 * fin) / (n ? n : 1);
        return j < fin ? 0x8000 | (fin - 1 - j) : j - fin;
    }
    if (type == PS_F32) {
        float f = (float)((double)i - (double)n / 2) * 0.5f;
        uint32_t b; memcpy(&b, &f, 4); return b;
    }
    if (type == PS_F64) {
        double f = ((double)i - (double)n / 2) * 0.25;
        uint64_t b; memcpy(&b, &f, 8); return b;
    }
    if (type >= PS_I8 && type <= PS_I64) /* start from the minimum */
        return ((uint64_t)1 << (8 * kb - 1)) + i;
    return i;
}

static uint64_t special_value(ps_type type, uint64_t r)
{
    if (type == PS_F16 || type == PS_BF16) {
        static const uint16_t h[] = {
            0x0000, 0x8000, 0x7c00, 0xfc00,     /* +-0, +-inf */
            0x7e00, 0xfe00, 0x7e01, 0xfe37,     /* quiet NaNs, payloads */
            0x7c01, 0xfc01,                     /* signalling NaNs */
            0x0001, 0x8001, 0x03ff, 0x83ff,     /* subnormals */
            0x3c00, 0xbc00, 0x7bff, 0xfbff,     /* +-1, +-max */
        }, b[] = {
            0x0000, 0x8000, 0x7f80, 0xff80,
            0x7fc0, 0xffc0, 0x7fc1, 0xffd5,
            0x7f81, 0xff81,
            0x0001, 0x8001, 0x007f, 0x807f,
            0x3f80, 0xbf80, 0x7f7f, 0xff7f,
        };
        if (r % 3 != 0)
            return (type == PS_F16 ? h : b)[(r >> 8) % (sizeof h / sizeof h[0])];
        return (uint16_t)(r >> 20);    /* any pattern, NaNs included */
    }
    if (type == PS_F32) {
        static const uint32_t s[] = {
            0x00000000u, 0x80000000u,           /* +0, -0 */
            0x7f800000u, 0xff800000u,           /* +inf, -inf */
            0x7fc00000u, 0xffc00000u,           /* quiet NaNs */
            0x7fc00001u, 0xffc12345u,           /* NaNs with payloads */
            0x7f800001u, 0xff800001u,           /* signalling NaNs */
            0x00000001u, 0x80000001u,           /* smallest subnormals */
            0x007fffffu, 0x807fffffu,           /* largest subnormals */
            0x3f800000u, 0xbf800000u,           /* +-1 */
            0x7f7fffffu, 0xff7fffffu,           /* +-max */
        };
        uint32_t f;
        float x;
        if (r % 3 != 0)
            return s[(r >> 8) % (sizeof s / sizeof s[0])];
        x = (float)((int64_t)(r >> 20) % 2001 - 1000) / 7.0f;
        memcpy(&f, &x, 4);
        return f;
    }
    if (type == PS_F64) {
        static const uint64_t s[] = {
            0, 0x8000000000000000ull, 0x7ff0000000000000ull,
            0xfff0000000000000ull, 0x7ff8000000000000ull,
            0xfff8000000000000ull, 0x7ff8000000000abcull,
            0xfff80000000fffffull, 0x7ff0000000000001ull,
            0xfff0000000000001ull, 1, 0x8000000000000001ull,
            0x000fffffffffffffull, 0x800fffffffffffffull,
            0x3ff0000000000000ull, 0xbff0000000000000ull,
            0x7fefffffffffffffull, 0xffefffffffffffffull,
        };
        uint64_t f;
        double x;
        if (r % 3 != 0)
            return s[(r >> 8) % (sizeof s / sizeof s[0])];
        x = (double)((int64_t)(r >> 20) % 2001 - 1000) / 7.0;
        memcpy(&f, &x, 8);
        return f;
    }
    return r;
}

static void generate(unsigned char *keys, size_t n, ps_type type, int d,
                     uint64_t seed)
{
    size_t kb = ps_type_size(type), i;
    uint64_t s = seed, few[4], eq = t_rand(&s);
    for (i = 0; i < 4; i++)
        few[i] = t_rand(&s);
    for (i = 0; i < n; i++) {
        uint64_t v = 0;
        switch (d) {
        case D_ZEROS: v = 0; break;
        case D_RANDOM: v = t_rand(&s); break;
        case D_RANGE: v = range_value(type, i, n); break;
        case D_INVERTED: v = range_value(type, n - 1 - i, n); break;
        case D_FEW: v = few[t_rand(&s) % 4]; break;
        case D_LOWENT: v = t_rand(&s) & t_rand(&s) & t_rand(&s); break;
        case D_EQUAL: v = eq; break;
        case D_NARROW:
            v = t_rand(&s) % 1000;
            if (type == PS_F32) { float f = (float)v; uint32_t b; memcpy(&b, &f, 4); v = b; }
            if (type == PS_F64) { double f = (double)v; memcpy(&v, &f, 8); }
            if (type == PS_F16 || type == PS_BF16) v = half_of_int(type, v);
            break;
        case D_SPECIAL: v = special_value(type, t_rand(&s)); break;
        }
        put(keys + i * kb, kb, v);
    }
}

static long checks;
static int ops_wanted = 63;     /* PS_TEST_OPS: the bits of check_case's mask */

static void check_case(ps_type type, unsigned flags, size_t n, int d,
                       int ops_mask, uint64_t seed)
{
    static const size_t vsizes[] = { 1, 4, 8, 12 };
    size_t kb = ps_type_size(type), i, v;
    size_t alloc_n = n ? n : 1;
    unsigned char *orig = malloc(alloc_n * kb), *work = malloc(alloc_n * kb);
    unsigned char *vals = malloc(alloc_n * 12), *vwork = malloc(alloc_n * 12);
    size_t *perm = malloc(alloc_n * sizeof *perm), *got = malloc(alloc_n * sizeof *got);
    const char *dir = (flags & PS_DESCENDING) ? "desc" : "asc";
    int st;

    ops_mask &= ops_wanted;
    if (!orig || !work || !vals || !vwork || !perm || !got)
        t_fail("out of memory at n = %zu", n);
    generate(orig, n, type, d, seed);
    /* The expected permutation: the library's argsort once proven to be
     * the stable one (t_oracle_perm_from), else the merge sort's; the
     * argsort case below compares with it like every other case. */
    memcpy(work, orig, n * kb);
    st = (ops_mask & 32) ? ps_argsort(work, got, n, type, flags) : PS_OK;
    if (st != PS_OK)
        t_fail("argsort " "%s %s n=%zu %s" ": %s: %s", t_type_name(type), dir, n,
               dnames[d], ps_strerror(st), ps_error_detail());
    if ((ops_mask & 32) && memcmp(work, orig, n * kb) != 0)
        t_fail("argsort %s %s n=%zu %s: keys were modified", t_type_name(type),
               dir, n, dnames[d]);
    t_oracle_perm_from(orig, n, type, flags, (ops_mask & 32) ? got : NULL, perm);
    for (i = 0; i < n * 12; i += 8) {   /* 8 random bytes a draw */
        uint64_t r = t_rand(&seed);
        memcpy(vals + i, &r, n * 12 - i < 8 ? n * 12 - i : 8);
    }

#define WHERE "%s %s n=%zu %s"
#define WHAT t_type_name(type), dir, n, dnames[d]
    if (ops_mask & 1) {
        memcpy(work, orig, n * kb);
        st = ps_sort_keys(work, n, type, flags);
        if (st != PS_OK)
            t_fail("keys " WHERE ": %s: %s", WHAT, ps_strerror(st), ps_error_detail());
        i = t_gathered_mismatch(work, orig, perm, n, kb);
        if (i != SIZE_MAX)
            t_fail("keys " WHERE ": wrong key at %zu", WHAT, i);
        checks++;
    }
    for (v = 0; v < 4; v++) {
        size_t vs = vsizes[v];
        if (!(ops_mask & (2 << v)))
            continue;
        memcpy(work, orig, n * kb);
        memcpy(vwork, vals, n * vs);
        st = ps_sort_pairs(work, vwork, vs, n, type, flags);
        if (st != PS_OK)
            t_fail("pairs/%zu " WHERE ": %s: %s", vs, WHAT, ps_strerror(st),
                   ps_error_detail());
        i = t_gathered_mismatch(work, orig, perm, n, kb);
        if (i != SIZE_MAX)
            t_fail("pairs/%zu " WHERE ": wrong key at %zu", vs, WHAT, i);
        i = t_gathered_mismatch(vwork, vals, perm, n, vs);
        if (i != SIZE_MAX)
            t_fail("pairs/%zu " WHERE ": wrong value at %zu (not stable?)",
                   vs, WHAT, i);
        checks++;
    }
    if (ops_mask & 32) {
        /* got: the argsort run first, above, whose keys were checked. */
        for (i = 0; i < n; i++)
            if (got[i] != perm[i])
                t_fail("argsort " WHERE ": perm[%zu] = %zu, expected %zu", WHAT,
                       i, got[i], perm[i]);
        checks++;
    }
#undef WHERE
#undef WHAT
    free(orig); free(work); free(vals); free(vwork); free(perm); free(got);
}

int main(void)
{
    static const size_t small[] = { 0, 1, 2, 3, 5, 17, 100, 255, 256, 257,
                                    1000, 1023, 1024, 1025, 4095, 4096, 4097 };
    const char *cap = getenv("PS_TEST_MAX_N"), *floor_n = getenv("PS_TEST_MIN_N");
    size_t max_n = cap ? strtoull(cap, NULL, 0) : ((size_t)1 << 20) + 1;
    size_t min_n = floor_n ? strtoull(floor_n, NULL, 0) : 0;
    uint64_t seed = 12345;
    int t, f, d, k;
    size_t s;

    static const char *opnames[] = { "keys", "pairs1", "pairs4", "pairs8", "pairs12",
                                     "argsort" };

    t_init_or_skip("ps_test_diff");
    ops_wanted = 0;
    for (k = 0; k < 6; k++)
        if (t_wanted("PS_TEST_OPS", opnames[k]))
            ops_wanted |= 1 << k;
    if (ops_wanted == 0)
        t_fail("PS_TEST_OPS names no operation (keys,pairs1,pairs4,pairs8,pairs12,argsort)");
    for (t = PS_U8; t <= T_TYPE_LAST; t++) {
        if (!t_wanted("PS_TEST_TYPES", t_type_name((ps_type)t)))
            continue;
        for (f = 0; f < 2; f++) {
            unsigned flags = f ? PS_DESCENDING : 0;
            /* Small sizes: every dataset, every operation. */
            for (s = 0; s < sizeof small / sizeof small[0]; s++) {
                if (small[s] > max_n || small[s] < min_n)
                    continue;
                for (d = 0; d < D_COUNT; d++) {
                    if (d == D_SPECIAL && !is_float((ps_type)t))
                        continue;
                    check_case((ps_type)t, flags, small[s], d, 63, seed++);
                }
            }
            /* Large sizes 2^k - 1, 2^k, 2^k + 1: random data with every
             * operation, and one other dataset in turn with keys only. */
            for (k = 14; k <= 20; k += 3) {
                size_t base = (size_t)1 << k;
                size_t sizes[3] = { base - 1, base, base + 1 };
                for (s = 0; s < 3; s++) {
                    int other = 2 + (int)((t + f + s + k) % (D_COUNT - 2));
                    if (sizes[s] > max_n || sizes[s] < min_n)
                        continue;
                    if (other == D_SPECIAL && !is_float((ps_type)t))
                        other = D_LOWENT;
                    check_case((ps_type)t, flags, sizes[s], D_RANDOM,
                               s == 1 ? 63 : 1 | 4 | 8 | 32, seed++);
                    check_case((ps_type)t, flags, sizes[s], other, 1, seed++);
                }
            }
        }
        printf("ps_test_diff: %s done (%ld checks so far)\n", t_type_name((ps_type)t),
               checks);
    }
    printf("ps_test_diff: %ld checks passed on backend %s\n", checks, ps_backend_name());
    return 0;
}
