/*
 * ps_fuzz_shapes - structured libFuzzer target: the input bytes do not become
 * keys (as in ps_fuzz_sort) but choose a case: key type, n (up to 2^21, most
 * often near the sizes where the backends change paths), a distribution of
 * the sorting literature with its parameters, a seed, the direction and the
 * operation, or the top-k of that operation (ps_topk) with its k.  The keys are generated from those, deterministically, sorted
 * through the public API by the backend PORTSORT_BACKEND names, and checked
 * against the stable merge sort of the tests (test/ps_test_util.c, which
 * shares no code with the library).  Values are index tags, so pairs check
 * stability and that every value travelled with its key.  A mismatch aborts
 * with a message that names the case.
 *
 * The OpenMP backend reads PORTSORT_THREADS once, when it is chosen, so the
 * thread count cannot vary per input: .ci/fuzz.sh runs this target once per
 * thread count instead.
 *
 * Input layout (bytes past the end read as 0, so every input is a case;
 * bytes beyond the 20th are ignored).  The bytes that change the case most
 * come first, so that short inputs already vary them:
 *   0      type: PS_U8 + byte % 12
 *   1      distribution (byte % DIST_COUNT), see the dist_names table
 *   2      size class (byte % 16), see decode_n()
 *   3      bit 0 PS_DESCENDING; bits 1-2 operation: 0 keys, 1 and 3 pairs,
 *          2 argsort; bit 3: ps_topk instead, with the operation's
 *          outputs (keys; keys and values; keys and indices); bit 4:
 *          strings instead (ps_argsort_strings, then ps_sort_strings on
 *          NUL-terminated copies): string i is a shared prefix of
 *          {0, 3, 8, 15, 64, 1000}[c % 6] bytes (64 at most past 2^16
 *          strings) then key i's bytes, most significant first, less its
 *          last (key's low byte % (width + 1)) bytes; bit 5
 *          (without bits 3 and 4): records instead, {u8 group, the key, a 3-byte
 *          tag} by group (bit 6: descending), then the key, through
 *          ps_argsort_records and ps_sort_records (a group of 1 + a % 4
 *          values); bit 7 (without bits 3, 4 and 5): the operation under
 *          a memory limit of one byte (ps_set_memory_limit): keys alone
 *          sorted in place on serial and openmp, right as ever; anything
 *          else right, or refused with every array as it was
 *   4      distribution parameter a
 *   5-6    size parameter, little-endian
 *   7      value size for pairs: byte % 20 < 4 gives 4 or 8 (even/odd),
 *          else 1 + (byte % 20 - 4), so 1..16
 *   8-9    distribution parameters b and c (what a, b and c mean for each
 *          distribution is in gen_keys())
 *   10-17  seed of the generator, little-endian
 *   18-19  k for ps_topk, see decode_k() (0, 1, n - 1, n, past n, small,
 *          anywhere, around n / 2)
 *
 * Setting PS_FUZZ_SHAPES_VERBOSE prints each decoded case on stderr.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ps_test_util.h"

#define SHAPES_MAX_N ((size_t)1 << 21)
#define SHAPES_HEADER 20

enum { OP_KEYS, OP_PAIRS, OP_ARGSORT };

enum {
    D_UNIFORM, D_LOGUNIFORM, D_ZIPF, D_EXPONENTIAL, D_ROOTDUP, D_TWODUP,
    D_EIGHTDUP, D_FEW, D_NESTED, D_LOWBITS, D_RUNS, D_EQUAL, D_SPECIALS,
    DIST_COUNT
};

static const char *const dist_names[DIST_COUNT] = {
    "uniform", "loguniform", "zipf", "exponential", "rootdup", "twodup",
    "eightdup", "fewdistinct", "nestedheavy", "lowbits", "runs", "allequal",
    "specials"
};

typedef struct shape_case {
    ps_type type;
    unsigned flags;
    int op;
    int topk;                   /* ps_topk of op, with k */
    int records;                /* ps_sort_records by (group, key) */
    unsigned group_flags;
    int strings;                /* the keys made strings instead */
    int memlimit;               /* sorted under a one-byte memory limit */
    size_t k;
    size_t vs;                  /* value size, pairs only */
    size_t n;
    int dist;
    unsigned a, b, c;           /* distribution parameters, 0..255 */
    uint64_t seed;
} shape_case;

/* Sizes the backends switch paths at or near: OpenMP's calling-thread
 * cutoff (48K), its two-pass and leaf sizes, the GPU hosts' one-work-group
 * and tile sizes, and the sizes of issue 16. */
static const size_t n_marks[16] = {
    16384, 32768, 49152, 65536, 131072, 4096, 12288, 24576,
    98304, 196608, 262144, 100000, 8192, 2048, 1024, 256
};
static const size_t n_large[8] = {
    (size_t)1 << 20, (size_t)1 << 21, 1000000, (size_t)1 << 19,
    200000, 300000, 500000, 1500000
};

static unsigned byte_at(const uint8_t *d, size_t size, size_t i)
{
    return i < size ? d[i] : 0;
}

/* n from the size class: small sizes and the marks above most often,
 * large ones (over 256K) in about one input in seven, so that a run of
 * fixed length spends its time on many cases rather than on a few big
 * ones. */
static size_t decode_n(unsigned cls, unsigned p)
{
    long long n, delta;
    switch (cls % 16) {
    case 0: n = p % 64; break;
    case 1: n = p % 512; break;
    case 2: n = p % 4096; break;
    case 3: n = p % 32768; break;
    case 4: n = (long long)n_marks[p % 16] + (long long)((p >> 4) % 3) - 1; break;
    case 5: n = (long long)n_marks[p % 16] + (long long)((p >> 4) % 129) - 64; break;
    case 6:
        delta = (long long)((p >> 4) % 4097) - 2048;
        n = (long long)n_marks[p % 16] + delta;
        break;
    case 7: n = (1ll << (p % 22)) + (long long)((p >> 8) % 3) - 1; break;
    case 8:
    case 9:                     /* log-uniform over 4K..256K */
        n = (long long)exp2(12.0 + 6.0 * p / 65536.0);
        break;
    case 10: n = 40000 + p % 30000; break;   /* around the 48K cutoff */
    case 11: n = (long long)n_marks[p % 16] * (1 + (p >> 4) % 4) + (long long)((p >> 6) % 3) - 1; break;
    case 12:
    case 13:
        n = (long long)n_large[p % 8] + (long long)((p >> 3) % 3) - 1;
        break;
    case 14: n = (long long)exp2(21.0 * p / 65536.0); break;
    default: n = 100000 + (long long)(p % 129) - 64; break;
    }
    if (n < 0)
        n = 0;
    if (n > (long long)SHAPES_MAX_N)
        n = (long long)SHAPES_MAX_N;
    return (size_t)n;
}

/* k for ps_topk: the edges (0, 1, n - 1, n, beyond n) as often as the
 * small k of most uses and any k up to n. */
static size_t decode_k(size_t n, unsigned p)
{
    size_t q = p >> 3;
    switch (p % 8) {
    case 0: return 0;
    case 1: return 1;
    case 2: return n > 0 ? n - 1 : 0;
    case 3: return n;
    case 4: return q % 4 == 3 ? (size_t)-1 : n + 1 + q % 5;
    case 5: return 1 + q % 100;
    case 6: return q % (n + 1);
    default: return n / 2 + q % 3;
    }
}

static void decode(const uint8_t *d, size_t size, shape_case *c)
{
    unsigned b3 = byte_at(d, size, 3), b7 = byte_at(d, size, 7) % 20;
    int i;
    c->type = (ps_type)(PS_U8 + byte_at(d, size, 0) % 12);
    c->dist = (int)(byte_at(d, size, 1) % DIST_COUNT);
    c->n = decode_n(byte_at(d, size, 2),
                    byte_at(d, size, 5) | byte_at(d, size, 6) << 8);
    c->flags = b3 & 1u ? PS_DESCENDING : 0u;
    c->op = (int)(b3 >> 1 & 3);
    if (c->op == 3)
        c->op = OP_PAIRS;
    c->topk = (b3 & 8u) != 0;
    c->strings = (b3 & 16u) != 0;
    c->records = !c->topk && !(b3 & 16u) && (b3 & 32u) != 0;
    c->group_flags = b3 & 64u ? PS_DESCENDING : 0u;
    c->memlimit = !c->topk && !c->strings && !c->records && (b3 & 128u) != 0;
    c->k = decode_k(c->n, byte_at(d, size, 18) | byte_at(d, size, 19) << 8);
    c->a = byte_at(d, size, 4);
    c->vs = b7 < 4 ? (b7 & 1 ? 8 : 4) : 1 + (b7 - 4);
    c->b = byte_at(d, size, 8);
    c->c = byte_at(d, size, 9);
    c->seed = 0;
    for (i = 7; i >= 0; i--)
        c->seed = c->seed << 8 | byte_at(d, size, 10 + (size_t)i);
}

static const char *op_name(int op)
{
    return op == OP_KEYS ? "keys" : op == OP_PAIRS ? "pairs" : "argsort";
}

static void describe(const shape_case *c, char *buf, size_t len)
{
    const char *thr = getenv("PORTSORT_THREADS");
    int k = snprintf(buf, len, "%s n=%zu dist=%s a=%u b=%u c=%u seed=0x%016llx %s %s",
                     t_type_name(c->type), c->n, dist_names[c->dist], c->a, c->b,
                     c->c, (unsigned long long)c->seed,
                     c->flags & PS_DESCENDING ? "desc" : "asc", op_name(c->op));
    if (k > 0 && (size_t)k < len && c->strings)
        k += snprintf(buf + k, len - (size_t)k, " strings");
    if (k > 0 && (size_t)k < len && c->topk)
        k += snprintf(buf + k, len - (size_t)k, " topk k=%zu", c->k);
    if (k > 0 && (size_t)k < len && c->records)
        k += snprintf(buf + k, len - (size_t)k, " records, groups %s",
                      c->group_flags ? "desc" : "asc");
    if (k > 0 && (size_t)k < len && c->op == OP_PAIRS)
        k += snprintf(buf + k, len - (size_t)k, " value_size=%zu", c->vs);
    if (k > 0 && (size_t)k < len && c->memlimit)
        k += snprintf(buf + k, len - (size_t)k, " under a 1-byte memory limit");
    if (k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, ", backend %s, PORTSORT_THREADS=%s",
                 ps_backend_name(), thr ? thr : "(unset)");
}

static void fail(const shape_case *c, const char *what, size_t at)
{
    char buf[512];
    describe(c, buf, sizeof buf);
    fprintf(stderr, "ps_fuzz_shapes: %s at index %zu: %s (detail '%s')\n", what,
            at, buf, ps_error_detail());
    abort();
}

/* ---- key generation ---------------------------------------------------- */

typedef struct gen {
    ps_type type;
    unsigned char *k;
    size_t kb;                  /* bytes per key */
    int w;                      /* bits per key */
    int is_float, is_signed;
    uint64_t rng;
} gen;

static uint64_t rnd(gen *g)
{
    return t_rand(&g->rng);
}

static double unit(gen *g)      /* [0, 1) */
{
    return (double)(rnd(g) >> 11) * 0x1p-53;
}

static uint64_t low_mask(int bits)
{
    return bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
}

/* Store the low kb bytes of a bit pattern as key i. */
static void put_bits(gen *g, size_t i, uint64_t v)
{
    unsigned char *p = g->k + i * g->kb;
    switch (g->kb) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* Store a real number: floats round to the type (beyond its range to an
 * infinity), integers saturate. */
static void put_real(gen *g, size_t i, double x)
{
    if (g->is_float) {
        if (g->kb == 2) {
            put_bits(g, i, g->type == PS_F16 ? t_f16_bits(x) : t_bf16_bits(x));
        } else if (g->kb == 4) {
            float f;
            uint32_t b;
            if (x > FLT_MAX || x < -FLT_MAX)
                f = x > 0 ? INFINITY : -INFINITY;
            else
                f = (float)x;
            memcpy(&b, &f, 4);
            put_bits(g, i, b);
        } else {
            uint64_t b;
            memcpy(&b, &x, 8);
            put_bits(g, i, b);
        }
        return;
    }
    if (g->is_signed) {
        double hi = ldexp(1.0, g->w - 1);
        int64_t v;
        if (!(x < hi))
            v = (int64_t)(low_mask(g->w - 1));
        else if (!(x >= -hi))
            v = -(int64_t)(low_mask(g->w - 1)) - 1;
        else
            v = (int64_t)x;
        put_bits(g, i, (uint64_t)v);
    } else {
        double hi = ldexp(1.0, g->w);
        uint64_t v;
        if (!(x >= 0))
            v = 0;
        else if (!(x < hi))
            v = low_mask(g->w);
        else
            v = (uint64_t)x;
        put_bits(g, i, v);
    }
}

/* Store an integer: modulo 2^w for integer types, exactly (below 2^53) for
 * floats. */
static void put_int(gen *g, size_t i, int64_t v)
{
    if (g->is_float)
        put_real(g, i, (double)v);
    else
        put_bits(g, i, (uint64_t)v);
}

/* How integer-shaped distributions (Zipf ranks, dup patterns) become keys,
 * by mode: the integer itself, a hash of it (the same multiset of
 * frequencies spread over the whole range), or shifted up so that the
 * keys differ in their top bits and share the low ones. */
static void put_shaped(gen *g, size_t i, uint64_t v, unsigned mode, int vbits)
{
    switch (mode % 4) {
    case 1: {
        uint64_t h = v * 0x9E3779B97F4A7C15ull;
        put_bits(g, i, h ^ (h >> 29));
        break;
    }
    case 2:
        if (g->is_float)
            put_real(g, i, ldexp((double)v, 40));
        else
            put_bits(g, i, vbits >= g->w ? v : v << (g->w - vbits));
        break;
    case 3:                     /* negative, where the type has a sign */
        put_int(g, i, -(int64_t)v);
        break;
    default:
        put_int(g, i, (int64_t)v);
        break;
    }
}

static int bit_length(uint64_t v)
{
    int b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

static uint64_t pow_mod(uint64_t x, unsigned e, uint64_t m)
{
    uint64_t r = 1 % m;
    x %= m;
    while (e) {
        if (e & 1)
            r = r * x % m;
        x = x * x % m;
        e >>= 1;
    }
    return r;
}

static void apply_perm(gen *g, const size_t *perm, size_t n, unsigned char *tmp)
{
    size_t i;
    for (i = 0; i < n; i++)
        memcpy(tmp + i * g->kb, g->k + perm[i] * g->kb, g->kb);
    memcpy(g->k, tmp, n * g->kb);
}

static void gen_specials(gen *g, size_t n)
{
    size_t i;
    if (g->is_float && g->kb == 2) {
        /* One table for both half types: each entry is a special value in
         * one of them and an ordinary or NaN pattern in the other. */
        static const uint16_t t[] = {
            0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0xfc01,
            0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x0001, 0x8001, 0x03ff, 0x83ff,
            0x0400, 0x007f, 0x7bff, 0xfbff, 0x7f7f, 0xff7f, 0x3c00, 0xbf80
        };
        for (i = 0; i < n; i++) {
            uint64_t r = rnd(g);
            size_t j = r % 28;
            put_bits(g, i, j < 24 ? t[j] : (uint16_t)(r >> 32));
        }
    } else if (g->is_float && g->kb == 4) {
        static const uint32_t t[] = {
            0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, /* 0 -0 inf -inf */
            0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, /* NaNs */
            0x7fffffffu, 0xffffffffu, 0x00000001u, 0x80000001u, /* subnormals */
            0x007fffffu, 0x807fffffu, 0x00800000u, 0x80800000u, /* min normal */
            0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u  /* max, +-1 */
        };
        for (i = 0; i < n; i++) {
            uint64_t r = rnd(g);
            size_t j = r % 24;
            put_bits(g, i, j < 20 ? t[j] : r >> 32);
        }
    } else if (g->is_float) {
        static const uint64_t t[] = {
            0x0ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
            0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
            0x7ff0000000000001ull, 0xfff0000000000001ull, 0x7fffffffffffffffull,
            0xffffffffffffffffull, 0x1ull, 0x8000000000000001ull,
            0x000fffffffffffffull, 0x800fffffffffffffull, 0x0010000000000000ull,
            0x8010000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
            0x3ff0000000000000ull, 0xbff0000000000000ull
        };
        for (i = 0; i < n; i++) {
            uint64_t r = rnd(g);
            size_t j = r % 24;
            put_bits(g, i, j < 20 ? t[j] : rnd(g));
        }
    } else {
        uint64_t top = (uint64_t)1 << (g->w - 1);
        uint64_t t[8];
        t[0] = 0, t[1] = 1, t[2] = ~(uint64_t)0, t[3] = top, t[4] = top | 1;
        t[5] = top - 1, t[6] = top - 2, t[7] = 2;
        for (i = 0; i < n; i++) {
            uint64_t r = rnd(g);
            size_t j = r % 10;
            put_bits(g, i, j < 8 ? t[j] : rnd(g));
        }
    }
}

/* Fill g->k with c->n keys.  tmp (n keys) is scratch for the run shapes,
 * perm (n entries) too. */
static void gen_keys(const shape_case *c, gen *g, unsigned char *tmp, size_t *perm)
{
    size_t n = c->n, i;
    unsigned a = c->a, b = c->b, cc = c->c;
    int w = g->w;

    switch (c->dist) {
    case D_UNIFORM:             /* a: bits that vary (0: all) */
        for (i = 0; i < n; i++)
            put_bits(g, i, rnd(g) & low_mask(a % 65 ? (int)(a % 65) : 64));
        break;

    case D_LOGUNIFORM: {
        /* Magnitudes spread evenly over the decades (file sizes,
         * latencies).  Integers: a number of bits uniform in 0..maxbits
         * (a: maxbits = 1 + a % w), c bit 0: both signs (for unsigned
         * types, -m wraps to the top).  Floats: exponents uniform in
         * -E..E, E from a (up to the subnormal range). */
        int both = cc & 1;
        if (g->is_float) {
            int emax = g->kb == 2 ? (g->type == PS_F16 ? 25 : 134)
                       : g->kb == 4 ? 150 : 1075;
            int e_hi = 1 + (int)((long)a * emax / 255);
            for (i = 0; i < n; i++) {
                int e = (int)(rnd(g) % (uint64_t)(2 * e_hi + 1)) - e_hi;
                double x = ldexp(1.0 + unit(g), e);
                put_real(g, i, both && (rnd(g) & 1) ? -x : x);
            }
        } else {
            int maxbits = 1 + (int)(a % (unsigned)w);
            for (i = 0; i < n; i++) {
                uint64_t r = rnd(g);
                int bits = (int)(r % (uint64_t)(maxbits + 1));
                uint64_t m = bits == 0 ? 0
                    : ((uint64_t)1 << (bits - 1)) | (rnd(g) & low_mask(bits - 1));
                put_bits(g, i, both && (r >> 40 & 1) ? (uint64_t)0 - m : m);
            }
        }
        break;
    }

    case D_ZIPF: {
        /* Ranks 1..K with P(k) ~ 1/k^s: s = 0.25 + a / 32, K = 2^(1 + b % 24),
         * by the continuous inverse; c: how ranks become keys (put_shaped). */
        double s = 0.25 + a / 32.0;
        int kbits = 1 + (int)(b % 24);
        double K = ldexp(1.0, kbits);
        double t = 1.0 - s, top = fabs(t) < 1e-9 ? 0 : pow(K + 1, t) - 1;
        for (i = 0; i < n; i++) {
            double u = unit(g), x;
            uint64_t r;
            x = fabs(t) < 1e-9 ? exp(u * log(K + 1)) : pow(u * top + 1, 1 / t);
            r = x >= K ? (uint64_t)K : x < 1 ? 1 : (uint64_t)x;
            put_shaped(g, i, r, cc, kbits + 1);
        }
        break;
    }

    case D_EXPONENTIAL: {
        /* -ln(u) scaled by 2^(a % w) for integers, 2^(a % 64 - 32) for
         * floats; c bit 0: random signs. */
        double scale = g->is_float ? ldexp(1.0, (int)(a % 64) - 32)
                                   : ldexp(1.0, (int)(a % (unsigned)w));
        for (i = 0; i < n; i++) {
            double x = -log1p(-unit(g)) * scale;
            if ((cc & 1) && (rnd(g) & 1))
                x = -x;
            put_real(g, i, x);
        }
        break;
    }

    case D_ROOTDUP: {           /* i mod floor(sqrt n); c: put_shaped mode */
        size_t r = (size_t)sqrt((double)n);
        if (r == 0)
            r = 1;
        for (i = 0; i < n; i++)
            put_shaped(g, i, i % r, cc, bit_length(r));
        break;
    }

    case D_TWODUP:              /* i^2 + n/2 mod n */
        for (i = 0; i < n; i++)
            put_shaped(g, i, ((uint64_t)i * i + n / 2) % n, cc, bit_length(n));
        break;

    case D_EIGHTDUP:            /* i^8 + n/2 mod n */
        for (i = 0; i < n; i++)
            put_shaped(g, i, (pow_mod(i, 8, n) + n / 2) % n, cc, bit_length(n));
        break;

    case D_FEW: {
        /* 1 + a % 64 distinct values, random bit patterns (c bit 0) or
         * evenly spread over the range; b bit 0 skews the choice towards
         * the first values. */
        uint64_t v[64];
        unsigned d = 1 + a % 64, j;
        for (j = 0; j < d; j++)
            v[j] = (cc & 1) ? rnd(g)
                 : (uint64_t)((double)j / d * ldexp(1.0, w > 63 ? 63 : w)) << (w > 63);
        for (i = 0; i < n; i++) {
            uint64_t r = rnd(g);
            j = (unsigned)(r % d);
            if ((b & 1) && j > 0)
                j = (unsigned)((r >> 32) % j);
            put_bits(g, i, v[j]);
        }
        break;
    }

    case D_NESTED: {
        /* A heavy bucket at every level: most keys share their top `step`
         * bits, most of those their top 2 * step bits, and so on for
         * 1 + a % 8 levels; step = 1 + b % 16; a key leaves the heavy
         * bucket at each level with probability 1 / (2 + c % 14). */
        uint64_t prefix = rnd(g);
        int levels = 1 + (int)(a % 8), step = 1 + (int)(b % 16), l;
        unsigned leave = 2 + cc % 14;
        for (i = 0; i < n; i++) {
            uint64_t key = rnd(g);
            for (l = 1; l <= levels; l++) {
                int kbits = l * step > w ? w : l * step;
                uint64_t mask = low_mask(kbits) << (w - kbits);
                if (rnd(g) % leave == 0)
                    break;
                key = (key & ~mask) | (prefix & mask);
            }
            put_bits(g, i, key);
        }
        break;
    }

    case D_LOWBITS: {
        /* Keys that differ only in 1 + a % 24 bits, the lowest (c bit 0
         * clear) or a window starting at bit b % w. */
        int vb = 1 + (int)(a % 24), pos = 0;
        uint64_t base = rnd(g), mask;
        if (vb > w)
            vb = w;
        if (cc & 1)
            pos = (int)(b % (unsigned)(w - vb + 1));
        mask = low_mask(vb) << pos;
        for (i = 0; i < n; i++)
            put_bits(g, i, (base & ~mask) | (rnd(g) & mask));
        break;
    }

    case D_RUNS: {
        /* Random keys (b bit 0: full bit patterns, else small integers),
         * then by a % 5: sorted, reverse sorted, almost sorted (1 + c
         * random swaps), 2 + c % 64 ascending runs, or runs alternating
         * ascending and descending. */
        size_t runs = 2 + cc % 64, len, r, j;
        int mode = (int)(a % 5);
        for (i = 0; i < n; i++) {
            if (b & 1)
                put_bits(g, i, rnd(g));
            else
                put_int(g, i, (int64_t)(rnd(g) % (n + 1)));
        }
        if (n < 2)
            break;
        if (mode <= 2) {
            t_oracle_perm(g->k, n, g->type, mode == 1 ? PS_DESCENDING : 0, perm);
            apply_perm(g, perm, n, tmp);
            if (mode == 2)
                for (j = 0; j <= cc; j++) {
                    size_t x = rnd(g) % n, y = rnd(g) % n;
                    memcpy(tmp, g->k + x * g->kb, g->kb);
                    memcpy(g->k + x * g->kb, g->k + y * g->kb, g->kb);
                    memcpy(g->k + y * g->kb, tmp, g->kb);
                }
            break;
        }
        len = (n + runs - 1) / runs;
        for (r = 0; r * len < n; r++) {
            size_t lo = r * len, m = n - lo < len ? n - lo : len;
            unsigned f = mode == 4 && (r & 1) ? PS_DESCENDING : 0;
            gen sub = *g;
            sub.k = g->k + lo * g->kb;
            t_oracle_perm(sub.k, m, g->type, f, perm);
            apply_perm(&sub, perm, m, tmp);
        }
        break;
    }

    case D_EQUAL: {             /* one value, and a % 4 keys different */
        uint64_t v = rnd(g);
        for (i = 0; i < n; i++)
            put_bits(g, i, v);
        for (i = 0; n > 0 && i < a % 4; i++)
            put_bits(g, rnd(g) % n, rnd(g));
        break;
    }

    default:
        gen_specials(g, n);
        break;
    }
}

/* ---- the target -------------------------------------------------------- */

/* Value j of a pairs call: its index in the low three bytes (n <= 2^21, so
 * value sizes from 3 up identify the key's input position exactly), then
 * bytes that differ by position within the value. */
static void tag(unsigned char *v, size_t vs, size_t j)
{
    size_t b;
    for (b = 0; b < vs; b++)
        v[b] = b < 3 ? (unsigned char)(j >> (8 * b)) : (unsigned char)(j * 31 + b * 77);
}

/* ps_topk of the case's operation: keys alone, keys and values (the
 * tags), keys and indices.  The results must be the first min(k, n) of
 * the oracle's stable order, the inputs unchanged, and nothing written
 * past the results: keys is the input, vals its tags, perm and outk room
 * for n + 1 indices and keys. */
static void check_topk(const shape_case *c, const unsigned char *keys,
                       const unsigned char *vals, size_t vs, size_t *perm,
                       unsigned char *outk)
{
    size_t n = c->n, kb = ps_type_size(c->type), m = c->k < n ? c->k : n, i;
    size_t *want = malloc((n + 1) * sizeof *want);
    unsigned char *outv = malloc((m + 1) * (vs ? vs : 1)), *copy = malloc(n * kb + 1);
    unsigned char want_tag[16];
    int st;

    if (want == NULL || outv == NULL || copy == NULL)
        fail(c, "out of memory in the test", 0);
    memcpy(copy, keys, n * kb);
    memset(outk, 0xa5, (m + 1) * kb);
    memset(outv, 0x5a, (m + 1) * (vs ? vs : 1));
    st = ps_topk(keys, vs ? vals : NULL, vs, n, c->k, outk, vs ? outv : NULL,
                 c->op == OP_ARGSORT ? perm : NULL, c->type, c->flags);
    if (st != PS_OK) {
        fprintf(stderr, "ps_fuzz_shapes: status %d: %s\n", st, ps_strerror(st));
        fail(c, "valid ps_topk call failed", 0);
    }
    if (memcmp(copy, keys, n * kb) != 0)
        fail(c, "ps_topk changed its keys", 0);
    t_oracle_perm(keys, n, c->type, c->flags, want);
    for (i = 0; i < m; i++)
        if (memcmp(outk + i * kb, keys + want[i] * kb, kb) != 0)
            fail(c, "top-k keys differ from the oracle's first k", i);
    for (i = 0; i < kb; i++)
        if (outk[m * kb + i] != 0xa5)
            fail(c, "ps_topk wrote past its min(k, n) keys", m);
    if (c->op == OP_ARGSORT) {
        for (i = 0; i < m; i++)
            if (perm[i] != want[i])
                fail(c, "top-k indices differ from the oracle's first k", i);
        if (perm[m] != (size_t)-1)
            fail(c, "ps_topk wrote past its min(k, n) indices", m);
    }
    for (i = 0; i < m && vs; i++) {
        tag(want_tag, vs, want[i]);
        if (memcmp(outv + i * vs, want_tag, vs) != 0)
            fail(c, "top-k values differ from the oracle's (unstable or lost)", i);
    }
    for (i = 0; i < vs; i++)
        if (outv[m * vs + i] != 0x5a)
            fail(c, "ps_topk wrote past its min(k, n) values", m);
    free(want);
    free(outv);
    free(copy);
}

/* Records {u8 group, the case's key, a 3-byte tag of the index} sorted
 * by group (in its own direction), then by the key: ps_argsort_records
 * must give the oracle's order (the key's stable order, then a stable
 * counting sort by group), ps_sort_records the records in that order.
 * Keys of 8 bytes make the two fields two words; narrower ones one word
 * with the tag as the rest (the pairs route). */
static void check_records(const shape_case *c, const unsigned char *keys)
{
    size_t n = c->n, kb = ps_type_size(c->type), rs = kb + 4, i, g;
    size_t groups = 1 + c->a % 4, count[5] = { 0 };
    ps_field f[2];
    unsigned char *rec = malloc(n * rs + 1), *out = malloc(n * rs + 1);
    size_t *by_key = malloc((n + 1) * sizeof *by_key);
    size_t *want = malloc((n + 1) * sizeof *want), *perm = malloc((n + 1) * sizeof *perm);
    int st;

    if (!rec || !out || !by_key || !want || !perm)
        fail(c, "out of memory in the test", 0);
    f[0].offset = 0, f[0].type = PS_U8, f[0].flags = c->group_flags;
    f[1].offset = 1, f[1].type = c->type, f[1].flags = c->flags;
    for (i = 0; i < n; i++) {
        unsigned char *r = rec + i * rs;
        r[0] = (unsigned char)((i * 2654435761u >> 7) % groups);
        memcpy(r + 1, keys + i * kb, kb);
        tag(r + 1 + kb, 3, i);
    }
    t_oracle_perm(keys, n, c->type, c->flags, by_key);
    for (i = 0; i < n; i++)
        count[rec[by_key[i] * rs]]++;
    /* Where each group starts, in the groups' direction. */
    {
        size_t at = 0, start[4];
        for (g = 0; g < groups; g++) {
            size_t gg = c->group_flags ? groups - 1 - g : g;
            start[gg] = at;
            at += count[gg];
        }
        for (i = 0; i < n; i++)
            want[start[rec[by_key[i] * rs]]++] = by_key[i];
    }
    st = ps_argsort_records(rec, rs, n, f, 2, perm);
    if (st != PS_OK)
        fail(c, "valid ps_argsort_records call failed", 0);
    for (i = 0; i < n; i++)
        if (perm[i] != want[i])
            fail(c, "ps_argsort_records differs from the oracle's order", i);
    memcpy(out, rec, n * rs);
    st = ps_sort_records(out, rs, n, f, 2);
    if (st != PS_OK)
        fail(c, "valid ps_sort_records call failed", 0);
    for (i = 0; i < n; i++)
        if (memcmp(out + i * rs, rec + want[i] * rs, rs) != 0)
            fail(c, "ps_sort_records: a record out of place, or changed", i);
    free(rec);
    free(out);
    free(by_key);
    free(want);
    free(perm);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
/* The strings case: the keys become byte strings (see the layout above),
 * sorted by ps_argsort_strings and, cut at their first NUL, by
 * ps_sort_strings, each checked against the tests' stable merge sort. */
static void check_strings(const shape_case *c, const unsigned char *keys,
                          size_t kb)
{
    static const size_t prefixes[6] = { 0, 3, 8, 15, 64, 1000 };
    size_t n = c->n, pre = prefixes[c->c % 6], i, j, at = 0;
    unsigned char *bytes, *cbuf;
    size_t *off, *coff, *perm, *want;
    const char **ptr;
    int st;

    if (pre > 64 && n > ((size_t)1 << 16))
        pre = 64;
    bytes = malloc(n * (pre + kb) + 1);
    cbuf = malloc(n * (pre + kb + 1) + 1);
    off = malloc((n + 1) * sizeof *off);
    coff = malloc((n + 1) * sizeof *coff);
    perm = malloc((n + 1) * sizeof *perm);
    want = malloc((n + 1) * sizeof *want);
    ptr = malloc((n + 1) * sizeof *ptr);
    if (!bytes || !cbuf || !off || !coff || !perm || !want || !ptr)
        fail(c, "out of memory in the test", 0);
    off[0] = 0;
    for (i = 0; i < n; i++) {
        const unsigned char *k = keys + i * kb;
        /* Key bytes in memory order are little-endian: the most
         * significant first is the string. */
        size_t len = kb - k[0] % (kb + 1);
        memset(bytes + at, 'p', pre);
        at += pre;
        for (j = 0; j < len; j++)
            bytes[at++] = k[kb - 1 - j];
        off[i + 1] = at;
    }
    t_oracle_strings_perm(bytes, off, n, c->flags, want);
    for (i = 0; i <= n; i++)
        perm[i] = (size_t)-1;
    st = ps_argsort_strings(bytes, off, n, perm, c->flags);
    if (st != PS_OK)
        fail(c, "valid ps_argsort_strings call failed", 0);
    for (i = 0; i < n; i++)
        if (perm[i] != want[i])
            fail(c, "ps_argsort_strings: wrong index", i);
    if (perm[n] != (size_t)-1)
        fail(c, "ps_argsort_strings wrote past perm[n - 1]", n);

    /* The same strings up to their first NUL: flat in cut (offsets coff)
     * for the oracle, NUL-terminated in cbuf, each at its own address
     * (cptr, which ptr is sorted from), so that stability shows. */
    {
        unsigned char *cut = malloc(at + 1);
        const char **cptr = malloc((n + 1) * sizeof *cptr);
        size_t w = 0, cat = 0;
        if (cut == NULL || cptr == NULL)
            fail(c, "out of memory in the test", 0);
        coff[0] = 0;
        for (i = 0; i < n; i++) {
            size_t len = 0;
            while (off[i] + len < off[i + 1] && bytes[off[i] + len] != 0)
                len++;
            memcpy(cut + w, bytes + off[i], len);
            w += len;
            coff[i + 1] = w;
            memcpy(cbuf + cat, bytes + off[i], len);
            cbuf[cat + len] = 0;
            cptr[i] = ptr[i] = (const char *)cbuf + cat;
            cat += len + 1;
        }
        t_oracle_strings_perm(cut, coff, n, c->flags, want);
        st = ps_sort_strings(ptr, n, c->flags);
        if (st != PS_OK)
            fail(c, "valid ps_sort_strings call failed", 0);
        for (i = 0; i < n; i++)
            if (ptr[i] != cptr[want[i]])
                fail(c, "ps_sort_strings: wrong pointer", i);
        free(cut);
        free(cptr);
    }
    free(bytes);
    free(cbuf);
    free(off);
    free(coff);
    free(perm);
    free(want);
    free(ptr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Choose the backend once: exits 77 when the backend PORTSORT_BACKEND names
 * is not usable here, so scripts can skip it. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    t_init_or_skip("ps_fuzz_shapes");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    shape_case c;
    gen g;
    size_t n, kb, i, vs;
    unsigned char *keys, *keys0, *vals, *tmp, want_tag[16];
    size_t *perm, *want;
    int st;

    decode(data, size, &c);
    n = c.n;
    kb = ps_type_size(c.type);
    vs = c.op == OP_PAIRS ? c.vs : 0;
    if (getenv("PS_FUZZ_SHAPES_VERBOSE") != NULL) {
        char buf[512];
        describe(&c, buf, sizeof buf);
        fprintf(stderr, "ps_fuzz_shapes: %s\n", buf);
    }

    keys = malloc(n * kb + 1);
    keys0 = malloc(n * kb + 1);
    tmp = malloc((n + 1) * kb);   /* also ps_topk's keys and a guard */
    vals = malloc(n * vs + 1);
    perm = malloc((n + 1) * sizeof *perm);
    want = malloc((n + 1) * sizeof *want);
    if (!keys || !keys0 || !tmp || !vals || !perm || !want)
        fail(&c, "out of memory in the test", 0);

    memset(&g, 0, sizeof g);
    g.type = c.type;
    g.k = keys;
    g.kb = kb;
    g.w = (int)(8 * kb);
    g.is_float = c.type == PS_F16 || c.type == PS_BF16 || c.type == PS_F32
                 || c.type == PS_F64;
    g.is_signed = c.type >= PS_I8 && c.type <= PS_I64;
    g.rng = c.seed;
    gen_keys(&c, &g, tmp, perm);
    memcpy(keys0, keys, n * kb);
    for (i = 0; i < n * vs; i += vs)
        tag(vals + i, vs, i / vs);
    for (i = 0; i <= n; i++)
        perm[i] = (size_t)-1;

    if (c.strings) {
        check_strings(&c, keys, kb);
        free(keys); free(keys0); free(tmp); free(vals); free(perm); free(want);
        return 0;
    }
    if (c.records) {
        check_records(&c, keys);
        free(keys); free(keys0); free(tmp); free(vals); free(perm); free(want);
        return 0;
    }
    if (c.topk) {
        check_topk(&c, keys, vals, vs, perm, tmp);
        free(keys); free(keys0); free(tmp); free(vals); free(perm); free(want);
        return 0;
    }
    /* Under the limit keys alone are sorted in place on the CPU backends
     * (reference/ps_inplace.c), as right as ever; anything else may be
     * refused, but then with every array as it was. */
    if (c.memlimit)
        ps_set_memory_limit(1);
    switch (c.op) {
    case OP_KEYS: st = ps_sort_keys(keys, n, c.type, c.flags); break;
    case OP_ARGSORT: st = ps_argsort(keys, perm, n, c.type, c.flags); break;
    default: st = ps_sort_pairs(keys, vals, vs, n, c.type, c.flags); break;
    }
    if (c.memlimit)
        ps_set_memory_limit(0);
    if (st == PS_ERR_NO_MEMORY && c.memlimit &&
        (c.op != OP_KEYS || (strcmp(ps_backend_name(), "serial") != 0 &&
                             strcmp(ps_backend_name(), "openmp") != 0))) {
        if (memcmp(keys, keys0, n * kb) != 0)
            fail(&c, "refused under the memory limit, but the keys changed", 0);
        for (i = 0; i < n * vs; i += vs) {
            tag(want_tag, vs, i / vs);
            if (memcmp(vals + i, want_tag, vs) != 0)
                fail(&c, "refused under the memory limit, but the values "
                     "changed", i / vs);
        }
        for (i = 0; i <= n; i++)
            if (perm[i] != (size_t)-1)
                fail(&c, "refused under the memory limit, but perm was "
                     "written", i);
        free(keys); free(keys0); free(tmp); free(vals); free(perm); free(want);
        return 0;
    }
    if (st != PS_OK) {
        fprintf(stderr, "ps_fuzz_shapes: status %d: %s\n", st, ps_strerror(st));
        fail(&c, "valid call failed", 0);
    }

    t_oracle_perm(keys0, n, c.type, c.flags, want);
    if (c.op == OP_ARGSORT) {
        if (memcmp(keys, keys0, n * kb) != 0)
            fail(&c, "argsort changed the keys", 0);
        for (i = 0; i < n; i++)
            if (perm[i] != want[i])
                fail(&c, "argsort permutation differs from the oracle's", i);
        if (perm[n] != (size_t)-1)
            fail(&c, "argsort wrote past the end of perm", n);
    } else {
        for (i = 0; i < n; i++)
            if (memcmp(keys + i * kb, keys0 + want[i] * kb, kb) != 0)
                fail(&c, "keys differ from the oracle's", i);
        for (i = 0; i < n && vs; i++) {
            tag(want_tag, vs, want[i]);
            if (memcmp(vals + i * vs, want_tag, vs) != 0)
                fail(&c, "values differ from the oracle's (unstable or lost)", i);
        }
    }
    free(keys); free(keys0); free(tmp); free(vals); free(perm); free(want);
    return 0;
}
