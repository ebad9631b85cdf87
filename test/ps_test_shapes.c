/*
 * ps_test_shapes - the shapes of real data, at sizes around every
 * threshold the backends use, sorted by the backend PORTSORT_BACKEND names
 * and compared bit for bit with the tests' stable merge sort.
 *
 * Issue 16: the default backend returned PS_OK with keys out of order, and
 * crashed, on u64 keys with log-uniform magnitudes, while every test passed,
 * because every test dataset split evenly at every level of the MSD
 * recursion.  The shapes here come from the sorting literature (the IPS4o
 * and vqsort benchmark sets) and from what a radix sort's recursion finds
 * hardest: a heavy bucket at every level, keys that differ only in their
 * lowest bits, a few values spread over the whole range, text (bytes
 * that take 26 of their 256 values, as a string sort's prefixes do), and
 * the two distributions most measured numbers follow (uniform in [0, 1)
 * and normal: floats of a few exponents, which skew a radix sort's top
 * digits).
 *
 * Cases: every shape x every type x both directions, each sorted as keys,
 * as pairs with values of 4, 8 and 3 bytes (index tags, so stability is
 * checked) and by argsort, at sizes up to 2^17 + 1 (the OpenMP
 * calling-thread cutoff at 48K, its leaves of 16K-64K keys, the 2^14-key
 * split leaves, the GPU tiles of 4K-8K keys); then at 1M + 3 and 4M, a
 * subset (u64, i64, u32 and f64 keys and pairs) of every shape.
 *
 * PS_TEST_MAX_N caps the sizes, PS_TEST_TYPES and PS_TEST_OPS (comma lists
 * of names: u32,f64 / keys,pairs8) narrow the matrix, for slow backends
 * (pocl, the CPU stand-in).  PS_SHAPES_MAX_N caps them further (the lower
 * of the two wins): the scripts set PS_TEST_MAX_N per run, CI sets this one
 * for its sanitizer builds.
 * The first mismatch fails the test, naming the case.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_util.h"

enum { S_LOGUNIFORM, S_ZIPF, S_ZIPF_SPREAD, S_EXPONENTIAL, S_ROOTDUP,
       S_TWODUP, S_EIGHTDUP, S_ALMOST, S_SORTED, S_REVERSE, S_RUNS,
       S_ORGANPIPE, S_HEAVY, S_HEAVY_PREFIX, S_LOWBITS, S_ONE_OFF,
       S_OUTLIERS, S_POW2, S_FEW_SPREAD, S_TEXT, S_UNIT, S_NORMAL, S_COUNT };
static const char *snames[] = { "log-uniform", "zipf", "zipf-spread",
    "exponential", "root-dup", "two-dup", "eight-dup", "almost-sorted",
    "sorted", "reverse", "runs", "organ-pipe", "heavy-bucket-every-level",
    "heavy-prefix-every-level", "low-bits-only", "all-equal-but-one",
    "outliers", "powers-of-two", "few-spread", "text-bytes", "unit-uniform",
    "normal" };

#define T_TWO_PI 6.283185307179586

/* A uniform double in (0, 1). */
static double unit(uint64_t *s)
{
    return ((double)(t_rand(s) >> 11) + 0.5) * 0x1p-53;
}

/* A Zipf-like rank (probability ~ 1/r^1.5), at most 2^60. */
static uint64_t zipf_rank(uint64_t *s)
{
    double z = pow(unit(s), -2.0);
    return z < 0x1p60 ? (uint64_t)z : (uint64_t)1 << 60;
}

/* (a * b) mod m without overflow. */
static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m)
{
    return (uint64_t)((unsigned __int128)a * b % m);
}

/* Element i of shape `shape` as a key of `bits` bits (its low bits hold the
 * key; signed types take it as two's complement), for integer types. */
static uint64_t int_key(int shape, size_t i, size_t n, unsigned bits,
                        int is_signed, uint64_t salt, uint64_t *s)
{
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1, r = t_rand(s);
    unsigned mag_bits = is_signed ? bits - 1 : bits;
    size_t root = (size_t)sqrt((double)n) + 1;
    switch (shape) {
    case S_LOGUNIFORM: {
        uint64_t m = (uint64_t)exp2(unit(s) * (mag_bits - 0.01));
        return is_signed && (r & 1) ? 0 - m : m;
    }
    case S_ZIPF:
        return zipf_rank(s) & mask;
    case S_ZIPF_SPREAD:     /* the same ranks, scattered over the range */
        return zipf_rank(s) * 0x9E3779B97F4A7C15ull ^ salt;
    case S_EXPONENTIAL:
        return (uint64_t)(-log(unit(s)) * exp2(mag_bits / 2.0));
    case S_ROOTDUP:
        return i % root;
    case S_TWODUP:
        return (mulmod(i, i, n) + n / 2) % n;
    case S_EIGHTDUP: {
        uint64_t x = mulmod(i, i, n);
        x = mulmod(x, x, n);
        return (mulmod(x, x, n) + n / 2) % n;
    }
    case S_ALMOST:          /* sorted, then about sqrt(n) swaps: below */
    case S_SORTED:
        return (uint64_t)i * (mask / (n + 1) + 1);
    case S_REVERSE:
        return (uint64_t)(n - i) * (mask / (n + 1) + 1);
    case S_RUNS:            /* 16 ascending runs of random keys */
        return ((uint64_t)(i % (n / 16 + 1)) << (bits > 24 ? bits - 24 : 0))
               + (r & 0xff);
    case S_ORGANPIPE:
        return i < n / 2 ? i : n - i;
    case S_HEAVY:           /* most keys in bucket 0 of every 8-bit level */
    case S_HEAVY_PREFIX: {  /* ... or of one random prefix */
        unsigned level = 0;
        while (level < bits / 8 && unit(s) < 0.6)
            level++;
        /* level * 8 == bits would shift by the type's width: undefined. */
        if (level * 8 >= bits)
            return shape == S_HEAVY_PREFIX ? salt & mask : 0;
        r = (r & mask) >> (level * 8);
        if (shape == S_HEAVY_PREFIX && level > 0)
            r |= salt & mask & ~(mask >> (level * 8));
        return r;
    }
    case S_LOWBITS:
        return (salt & ~0xffull) | (r & 0xff);
    case S_ONE_OFF:
        return i == n / 3 ? salt ^ 1 : salt;
    case S_OUTLIERS:        /* a narrow band, 1% at both extremes */
        if (r % 100 == 0)
            return (r >> 8) & 1 ? mask : 0;
        return (salt & mask) / 2 + (r >> 40) % 1000;
    case S_POW2:
        return 1ull << (r % bits);
    case S_UNIT:            /* uniform in [0, 2^(bits/2)): the top half 0 */
        return r >> (64 - bits / 2);
    case S_NORMAL: {        /* N(0, 2^(mag_bits/4)), rounded: most near 0 */
        double g = sqrt(-2.0 * log(unit(s))) * cos(T_TWO_PI * unit(s));
        int64_t v = (int64_t)llround(g * exp2(mag_bits / 4.0));
        return is_signed ? (uint64_t)v : (uint64_t)(v < 0 ? -v : v);
    }
    case S_TEXT: {          /* a word's first bytes, big-endian: 26 of 256 */
        uint64_t x = 0;     /* values a byte, zeros after its end */
        unsigned j, len = 1 + (unsigned)(r % (bits / 8 + 4));
        for (j = 0; j < bits / 8; j++)
            x = x << 8 | (j < len ? 'a' + t_rand(s) % 26 : 0);
        return x;
    }
    default:                /* S_FEW_SPREAD: 7 values over the range */
        return (r % 7) * (mask / 7) ^ (salt & 0xff);
    }
}

/* The same shapes as real numbers, for float keys. */
static double float_key(int shape, size_t i, size_t n, int is_f32,
                        uint64_t salt, uint64_t *s)
{
    double span = is_f32 ? 250.0 : 2000.0, u = unit(s);
    uint64_t r = t_rand(s);
    switch (shape) {
    case S_LOGUNIFORM:      /* both signs, subnormals to near the maximum */
        return (r & 1 ? -1 : 1) * exp2((u - 0.5) * span);
    case S_POW2:
        return exp2((double)(r % 200) - 100.0);
    case S_OUTLIERS:
        if (r % 100 == 0)
            return (r >> 8) & 1 ? INFINITY : -INFINITY;
        if (r % 100 == 1)
            return (r >> 8) & 1 ? NAN : -NAN;
        return 1.0 + u * 1e-3;
    case S_LOWBITS:         /* neighbours of one value: last mantissa bits */
        return is_f32 ? nextafterf(1.5f, 2.0f) * (float)(1.0 + (r & 7) * 0x1p-23)
                      : 1.5 * (1.0 + (double)(r & 0xff) * 0x1p-52);
    case S_ONE_OFF:
        return i == n / 3 ? -0.0 : 0.0;
    case S_UNIT:            /* as rand() / RAND_MAX: half in one exponent */
        return (double)(r >> 11) * 0x1p-53;
    case S_NORMAL:          /* Box-Muller: exponents near 0, both signs */
        return sqrt(-2.0 * log(u)) * cos(T_TWO_PI * unit(s));
    default:
        /* The integer shape, signed, as a double: duplicates, runs and
         * heavy buckets carry over. */
        return (double)(int64_t)int_key(shape, i, n, 32, 1, salt, s);
    }
}

static void make_keys(unsigned char *keys, int shape, ps_type t, size_t n,
                      uint64_t seed)
{
    size_t kb = ps_type_size(t), i;
    uint64_t s = seed, salt = t_rand(&s);
    int is_signed = t >= PS_I8 && t <= PS_I64;
    for (i = 0; i < n; i++) {
        if (t == PS_F32) {
            float f = (float)float_key(shape, i, n, 1, salt, &s);
            memcpy(keys + i * 4, &f, 4);
        } else if (t == PS_F64) {
            double d = float_key(shape, i, n, 0, salt, &s);
            memcpy(keys + i * 8, &d, 8);
        } else if (t == PS_F16 || t == PS_BF16) {
            double d = float_key(shape, i, n, 1, salt, &s);
            uint16_t h = t == PS_F16 ? t_f16_bits(d) : t_bf16_bits(d);
            memcpy(keys + i * 2, &h, 2);
        } else {
            uint64_t v = int_key(shape, i, n, (unsigned)(8 * kb), is_signed,
                                 salt, &s);
            memcpy(keys + i * kb, &v, kb);   /* little-endian: low bytes */
        }
    }
    if (shape == S_ALMOST && n > 1) {
        size_t swaps = (size_t)sqrt((double)n) + 1;
        unsigned char tmp[8];
        for (i = 0; i < swaps; i++) {
            size_t a = t_rand(&s) % n, b = t_rand(&s) % n;
            memcpy(tmp, keys + a * kb, kb);
            memcpy(keys + a * kb, keys + b * kb, kb);
            memcpy(keys + b * kb, tmp, kb);
        }
    }
}

enum { OP_KEYS, OP_PAIRS4, OP_PAIRS8, OP_PAIRS3, OP_ARGSORT, OP_COUNT };
static const char *onames[] = { "keys", "pairs4", "pairs8", "pairs3", "argsort" };
static const size_t ovs[] = { 0, 4, 8, 3, 0 };

static size_t cases;


/* Sort keys (n of type t, shape `shape`) by every operation in `ops` (a
 * bit set) and compare with the oracle's stable permutation. */
/* 1 when the backend sorts on the host's CPU (serial, openmp). */
static int cpu_backend;

static void check(int shape, ps_type t, unsigned flags, size_t n, unsigned ops,
                  uint64_t seed)
{
    size_t kb = ps_type_size(t), i;
    unsigned char *keys = malloc(n * kb + 1), *out = malloc(n * kb + 1);
    unsigned char *vals = malloc(n * 8 + 1);
    size_t *want = malloc((n + 1) * sizeof *want);
    size_t *perm = malloc((n + 1) * sizeof *perm);
    int op, st, argsorted;

    if (!t_wanted("PS_TEST_TYPES", t_type_name(t))) {
        free(keys);
        free(out);
        free(vals);
        free(want);
        free(perm);
        return;
    }

    if (!keys || !out || !vals || !want || !perm)
        t_fail("out of memory at n = %zu", n);
    make_keys(keys, shape, t, n, seed);
    /* The library's argsort, once proven to be the stable permutation in
     * O(n) (t_oracle_perm_from), else the merge sort: the argsort case
     * below then compares with it. */
    /* Where argsort is not a case of its own (the large sizes), it runs
     * for the oracle's sake on the CPU backends from 4096 keys: one sort
     * against a merge sort that took seconds at 1M keys.  On the device
     * stand-ins (pocl, the CUDA stand-in: at most 32769 keys here) a sort
     * costs more than the merge sort. */
    argsorted = (ops & (1u << OP_ARGSORT)) && t_wanted("PS_TEST_OPS", onames[OP_ARGSORT]);
    if (argsorted || (n >= 4096 && cpu_backend)) {
        memcpy(out, keys, n * kb);
        st = ps_argsort(out, perm, n, t, flags);
        if (st != PS_OK)
            t_fail("%s %s argsort n=%zu %s: %s (%s)", snames[shape], t_type_name(t),
                   n, flags ? "desc" : "asc", ps_strerror(st), ps_error_detail());
        if (memcmp(out, keys, n * kb) != 0)
            t_fail("%s %s argsort n=%zu %s: the keys changed", snames[shape],
                   t_type_name(t), n, flags ? "desc" : "asc");
        t_oracle_perm_from(keys, n, t, flags, perm, want);
    } else {
        t_oracle_perm(keys, n, t, flags, want);
    }
    for (op = 0; op < OP_COUNT; op++) {
        size_t vs = ovs[op];
        if (!(ops & (1u << op)) || !t_wanted("PS_TEST_OPS", onames[op]))
            continue;
        memcpy(out, keys, n * kb);
        for (i = 0; i < n; i++) {       /* value i names input position i */
            uint64_t tag = i * 0x0100000001000193ull + 0x5bd1e995u;
            memcpy(vals + i * vs, &tag, vs);
        }
        if (op == OP_KEYS)
            st = ps_sort_keys(out, n, t, flags);
        else if (op == OP_ARGSORT)
            st = PS_OK;         /* run above: perm, keys checked unchanged */
        else
            st = ps_sort_pairs(out, vals, vs, n, t, flags);
        if (st != PS_OK)
            t_fail("%s %s %s n=%zu %s: %s (%s)", snames[shape], t_type_name(t),
                   onames[op], n, flags ? "desc" : "asc", ps_strerror(st),
                   ps_error_detail());
        for (i = 0; i < n; i++) {
            int bad;
            if (op == OP_ARGSORT) {
                bad = perm[i] != want[i] || memcmp(out + i * kb, keys + i * kb, kb);
            } else {
                uint64_t tag = want[i] * 0x0100000001000193ull + 0x5bd1e995u;
                bad = memcmp(out + i * kb, keys + want[i] * kb, kb) != 0
                      || (vs && memcmp(vals + i * vs, &tag, vs) != 0);
            }
            if (bad)
                t_fail("%s %s %s n=%zu %s, backend %s: wrong at index %zu",
                       snames[shape], t_type_name(t), onames[op], n,
                       flags ? "desc" : "asc", ps_backend_name(), i);
        }
        cases++;
    }
    free(keys);
    free(out);
    free(vals);
    free(want);
    free(perm);
}

int main(void)
{
    /* Around the thresholds: tiny leaves (16), whole-input networks (up
     * to 128 8-byte and 256 4-byte keys), GPU tiles (4K-8K), split leaves
     * (2^14), OpenMP leaves (16K u64 .. 64K pairs), the calling-thread
     * cutoff (48K), and two and three MSD levels. */
    static const size_t mid[] = { 1, 2, 17, 129, 256, 300, 4097, 16385,
                                  32769, 49153, 65537, 131073 };
    static const struct { ps_type t; unsigned flags, ops; } big[] = {
        { PS_U64, 0, 1u << OP_KEYS },
        { PS_I64, PS_DESCENDING, 1u << OP_PAIRS8 },
        { PS_U32, 0, 1u << OP_PAIRS4 },
        { PS_F64, PS_DESCENDING, 1u << OP_KEYS },
    };
    const char *cap = getenv("PS_TEST_MAX_N");
    const char *cap2 = getenv("PS_SHAPES_MAX_N");
    size_t max_n = cap ? strtoull(cap, NULL, 0) : (size_t)1 << 22;
    uint64_t seed = 777;
    int shape, t, f;
    size_t s, b;

    if (cap2 && strtoull(cap2, NULL, 0) < max_n)
        max_n = strtoull(cap2, NULL, 0);
    t_init_or_skip("ps_test_shapes");
    cpu_backend = strcmp(ps_backend_name(), "serial") == 0
                  || strcmp(ps_backend_name(), "openmp") == 0;
    for (shape = 0; shape < S_COUNT; shape++)
        for (t = PS_U8; t <= T_TYPE_LAST; t++)
            for (f = 0; f < 2; f++)
                for (s = 0; s < sizeof mid / sizeof mid[0]; s++) {
                    /* Every operation up to 16K; beyond, keys and one
                     * kind of pairs in turn, to bound the time. */
                    unsigned ops = mid[s] <= 16385 ? (1u << OP_COUNT) - 1
                                   : 1u << OP_KEYS | 1u << (1 + (shape + t + f) % 4);
                    if (mid[s] <= max_n)
                        check(shape, (ps_type)t, f ? PS_DESCENDING : 0, mid[s],
                              ops, seed++);
                }
    /* Large: the sizes of the OpenMP team's recursion (issue 16 failed from
     * 100K up), a subset of types and operations, every shape. */
    for (s = 0; s < 2; s++) {
        size_t n = s == 0 ? ((size_t)1 << 20) + 3 : (size_t)1 << 22;
        if (n > max_n)
            continue;
        for (shape = 0; shape < S_COUNT; shape++)
            for (b = 0; b < sizeof big / sizeof big[0]; b++)
                if (s == 0 || b % 2 == (size_t)shape % 2)
                    check(shape, big[b].t, big[b].flags, n, big[b].ops, seed++);
    }
    printf("ps_test_shapes: %zu cases of %d shapes passed on %s\n", cases,
           S_COUNT, ps_backend_name());
    return 0;
}
