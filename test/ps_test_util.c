/*
 * ps_test_util.c - see ps_test_util.h.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_util.h"

uint64_t t_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void t_fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "FAIL: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    exit(1);
}

const char *t_type_name(ps_type type)
{
    static const char *names[] = { "?", "u8", "u16", "u32", "u64", "i8",
                                   "i16", "i32", "i64", "f32", "f64",
                                   "f16", "bf16" };
    return type >= PS_U8 && type <= PS_BF16 ? names[type] : "?";
}

int t_wanted(const char *var, const char *name)
{
    const char *l = getenv(var), *p;
    size_t k = strlen(name);
    if (l == NULL || *l == 0)
        return 1;
    for (p = strstr(l, name); p != NULL; p = strstr(p + 1, name))
        if ((p == l || p[-1] == ',') && (p[k] == ',' || p[k] == 0))
            return 1;
    return 0;
}

/* 2^e as a double, built from its fields (-1022 <= e <= 1023), so that
 * the half-precision helpers need no libm. */
static double pow2(int e)
{
    uint64_t b = (uint64_t)(e + 1023) << 52;
    double d;
    memcpy(&d, &b, 8);
    return d;
}

/* The value of an IEEE binary16 bit pattern, decoded field by field (not
 * by bit tricks on the order, which the library uses). */
double t_f16_value(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = m * pow2(-24);
    else
        v = (1024 + m) * pow2(e - 25);
    return (h & 0x8000u) ? -v : v;
}

/* sig >> shift rounded to nearest, ties to even (1 <= shift <= 63). */
static uint64_t shift_rne(uint64_t sig, int shift)
{
    uint64_t keep = sig >> shift, rem = sig & (((uint64_t)1 << shift) - 1);
    uint64_t half = (uint64_t)1 << (shift - 1);
    return keep + (rem > half || (rem == half && (keep & 1)));
}

uint16_t t_f16_bits(double x)
{
    uint64_t b, sig;
    uint16_t sign;
    int E;
    memcpy(&b, &x, 8);
    sign = (uint16_t)((b >> 48) & 0x8000);
    E = (int)((b >> 52) & 0x7ff) - 1023;
    sig = (b & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
    if (E == 1024)                     /* inf or NaN */
        return sign | ((b << 12) ? 0x7e00 : 0x7c00);
    if (E == -1023 || 28 - E > 63)     /* far below the least subnormal */
        return sign;
    if (E < -14)                       /* subnormal; 1024 is the least normal */
        return sign | (uint16_t)shift_rne(sig, 28 - E);
    sig = shift_rne(sig, 42);          /* 1024..2048 */
    if (sig == 2048) {
        sig = 1024;
        E++;
    }
    if (E > 15)
        return sign | 0x7c00;
    return sign | (uint16_t)((E + 15) << 10) | (uint16_t)(sig - 1024);
}

uint16_t t_bf16_bits(double x)
{
    float f = (float)x;
    uint32_t b;
    memcpy(&b, &f, 4);
    if (isnan(f))
        return (uint16_t)((b >> 16) | 0x40);
    return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1)) >> 16);
}

/* bfloat16 is the top half of a binary32. */
double t_bf16_value(uint16_t h)
{
    uint32_t b = (uint32_t)h << 16;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* totalOrder on values: NaNs sit beyond the infinities on the side of their
 * sign, ordered among themselves by payload (larger payload further out);
 * -0 sorts before +0. */
static int cmp_float(double x, double y, int xsign, int ysign,
                     uint64_t xpay, uint64_t ypay)
{
    int xn = isnan(x), yn = isnan(y);
    if (xn || yn) {
        int xr = xn ? (xsign ? -1 : 1) : 0;   /* -1: below all, 1: above */
        int yr = yn ? (ysign ? -1 : 1) : 0;
        if (xr != yr)
            return xr < yr ? -1 : 1;
        /* Both NaNs of one sign. */
        if (xpay == ypay)
            return 0;
        if (xr > 0)
            return xpay < ypay ? -1 : 1;
        return xpay < ypay ? 1 : -1;
    }
    if (x < y)
        return -1;
    if (x > y)
        return 1;
    if (x == 0 && xsign != ysign)
        return xsign ? -1 : 1;
    return 0;
}

int t_cmp(const void *a, const void *b, ps_type type)
{
#define CMPV(T) do { T x, y; memcpy(&x, a, sizeof x); memcpy(&y, b, sizeof y); \
        return (x > y) - (x < y); } while (0)
    switch (type) {
    case PS_U8: CMPV(uint8_t);
    case PS_U16: CMPV(uint16_t);
    case PS_U32: CMPV(uint32_t);
    case PS_U64: CMPV(uint64_t);
    case PS_I8: CMPV(int8_t);
    case PS_I16: CMPV(int16_t);
    case PS_I32: CMPV(int32_t);
    case PS_I64: CMPV(int64_t);
    case PS_F32: {
        float x, y;
        uint32_t bx, by;
        memcpy(&x, a, 4); memcpy(&y, b, 4);
        memcpy(&bx, a, 4); memcpy(&by, b, 4);
        return cmp_float(x, y, signbit(x) != 0, signbit(y) != 0,
                         bx & 0x7fffffu, by & 0x7fffffu);
    }
    case PS_F16: case PS_BF16: {
        uint16_t bx, by;
        double x, y;
        memcpy(&bx, a, 2); memcpy(&by, b, 2);
        x = type == PS_F16 ? t_f16_value(bx) : t_bf16_value(bx);
        y = type == PS_F16 ? t_f16_value(by) : t_bf16_value(by);
        return cmp_float(x, y, bx >> 15, by >> 15,
                         bx & (type == PS_F16 ? 0x3ffu : 0x7fu),
                         by & (type == PS_F16 ? 0x3ffu : 0x7fu));
    }
    case PS_F64: {
        double x, y;
        uint64_t bx, by;
        memcpy(&x, a, 8); memcpy(&y, b, 8);
        memcpy(&bx, a, 8); memcpy(&by, b, 8);
        return cmp_float(x, y, signbit(x) != 0, signbit(y) != 0,
                         bx & 0xfffffffffffffull, by & 0xfffffffffffffull);
    }
    }
#undef CMPV
    t_fail("t_cmp: bad type %d", (int)type);
}

static void merge_sort(const unsigned char *keys, size_t kb, ps_type type,
                       int sign, size_t *p, size_t *tmp, size_t n)
{
    size_t h, i, j, k;
    if (n < 2)
        return;
    h = n / 2;
    merge_sort(keys, kb, type, sign, p, tmp, h);
    merge_sort(keys, kb, type, sign, p + h, tmp, n - h);
    i = 0, j = h, k = 0;
    while (i < h && j < n) {
        /* Take from the right only when strictly before: stability. */
        if (sign * t_cmp(keys + p[j] * kb, keys + p[i] * kb, type) < 0)
            tmp[k++] = p[j++];
        else
            tmp[k++] = p[i++];
    }
    while (i < h)
        tmp[k++] = p[i++];
    while (j < n)
        tmp[k++] = p[j++];
    memcpy(p, tmp, n * sizeof *p);
}

/* memcmp order of strings a and b of t_oracle_strings_perm, a proper
 * prefix first. */
static int str_order(const unsigned char *bytes, const size_t *off, size_t a,
                     size_t b)
{
    size_t la = off[a + 1] - off[a], lb = off[b + 1] - off[b];
    int r = la == 0 || lb == 0 ? 0
            : memcmp(bytes + off[a], bytes + off[b], la < lb ? la : lb);
    if (r != 0)
        return r;
    return la < lb ? -1 : la > lb;
}

void t_oracle_strings_perm(const unsigned char *bytes, const size_t *offsets,
                           size_t n, unsigned flags, size_t *perm)
{
    size_t *tmp = malloc((n + 1) * sizeof *tmp), w, lo, i;
    int desc = (flags & PS_DESCENDING) != 0;
    if (tmp == NULL)
        t_fail("out of memory");
    for (i = 0; i < n; i++)
        perm[i] = i;
    for (w = 1; w < n; w *= 2) {
        for (lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = mid + w < n ? mid + w : n, a = lo, b = mid, k = lo;
            while (a < mid && b < hi) {
                int r = str_order(bytes, offsets, perm[b], perm[a]);
                tmp[k++] = (desc ? r > 0 : r < 0) ? perm[b++] : perm[a++];
            }
            while (a < mid)
                tmp[k++] = perm[a++];
            while (b < hi)
                tmp[k++] = perm[b++];
        }
        memcpy(perm, tmp, n * sizeof *perm);
    }
    free(tmp);
}

void t_oracle_perm(const void *keys, size_t n, ps_type type, unsigned flags,
                   size_t *perm)
{
    size_t i, *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (tmp == NULL)
        t_fail("oracle: out of memory");
    for (i = 0; i < n; i++)
        perm[i] = i;
    merge_sort(keys, ps_type_size(type), type, (flags & PS_DESCENDING) ? -1 : 1,
               perm, tmp, n);
    free(tmp);
}

#define T_GATHER_CMP(T)                                                  \
    do {                                                                 \
        for (i = 0; i < n; i++) {                                        \
            T x, y;                                                      \
            memcpy(&x, o + i * sizeof x, sizeof x);                      \
            memcpy(&y, s + perm[i] * sizeof y, sizeof y);                \
            if (x != y)                                                  \
                return i;                                                \
        }                                                                \
        return SIZE_MAX;                                                 \
    } while (0)

size_t t_gathered_mismatch(const void *out, const void *src, const size_t *perm,
                           size_t n, size_t size)
{
    const unsigned char *o = out, *s = src;
    size_t i;
    switch (size) {
    case 1: T_GATHER_CMP(uint8_t);
    case 2: T_GATHER_CMP(uint16_t);
    case 4: T_GATHER_CMP(uint32_t);
    case 8: T_GATHER_CMP(uint64_t);
    default:
        for (i = 0; i < n; i++)
            if (memcmp(o + i * size, s + perm[i] * size, size) != 0)
                return i;
        return SIZE_MAX;
    }
}
#undef T_GATHER_CMP

void t_oracle_perm_from(const void *keys, size_t n, ps_type type,
                        unsigned flags, const size_t *candidate, size_t *perm)
{
    const unsigned char *k = keys;
    size_t kb = ps_type_size(type), i;
    int sign = (flags & PS_DESCENDING) ? -1 : 1, ok = candidate != NULL;
    unsigned char *seen = ok ? calloc(n / 8 + 1, 1) : NULL;

    if (ok && seen == NULL)
        t_fail("oracle: out of memory");
    for (i = 0; ok && i < n; i++) {
        size_t p = candidate[i];
        if (p >= n || (seen[p / 8] >> (p % 8) & 1)) {
            ok = 0;
            break;
        }
        seen[p / 8] |= (unsigned char)(1u << (p % 8));
        if (i > 0) {
            int c = sign * t_cmp(k + candidate[i - 1] * kb, k + p * kb, type);
            if (c > 0 || (c == 0 && candidate[i - 1] > p))
                ok = 0;
        }
    }
    free(seen);
    if (ok)
        memcpy(perm, candidate, n * sizeof *perm);
    else
        t_oracle_perm(keys, n, type, flags, perm);
}

void t_check_segments(const char *what, const void *orig, const void *out,
                      const void *vorig, const void *vout, size_t vs,
                      const size_t *offsets, size_t ns, ps_type type,
                      unsigned flags)
{
    const unsigned char *ko = orig, *k = out, *vo = vorig, *v = vout;
    size_t kb = ps_type_size(type), s, i, *perm = malloc(
        (offsets[ns] ? offsets[ns] : 1) * sizeof *perm);
    if (perm == NULL)
        t_fail("t_check_segments: out of memory");
    for (s = 0; s < ns; s++) {
        size_t a = offsets[s], m = offsets[s + 1] - a;
        t_oracle_perm(ko + a * kb, m, type, flags, perm);
        for (i = 0; i < m; i++) {
            size_t from = a + perm[i];
            if (memcmp(k + (a + i) * kb, ko + from * kb, kb) != 0)
                t_fail("%s: segment %zu [%zu, %zu) of %zu: wrong key at %zu",
                       what, s, a, a + m, ns, a + i);
            if (vs && memcmp(v + (a + i) * vs, vo + from * vs, vs) != 0)
                t_fail("%s: segment %zu [%zu, %zu) of %zu: wrong value at %zu "
                       "(not stable?)", what, s, a, a + m, ns, a + i);
        }
    }
    free(perm);
}

size_t t_mixed_offsets(size_t n, uint64_t *rng, size_t **out)
{
    size_t cap = 64, ns = 0, at = 0, *off = malloc(cap * sizeof *off);
    if (off == NULL)
        t_fail("t_mixed_offsets: out of memory");
    off[0] = 0;
    while (at < n) {
        uint64_t r = t_rand(rng);
        size_t m = r % 10 < 4 ? r % 16                  /* tiny, empty ones too */
                 : r % 10 < 7 ? 16 + r % 300           /* small */
                 : r % 10 < 9 ? 300 + r % 3000         /* medium */
                              : 3000 + r % 20000;      /* long */
        if (ns + 2 > cap) {
            size_t *bigger = realloc(off, 2 * cap * sizeof *off);
            if (bigger == NULL)
                t_fail("t_mixed_offsets: out of memory");
            off = bigger;
            cap *= 2;
        }
        at += m < n - at ? m : n - at;
        off[++ns] = at;
    }
    *out = off;
    return ns;
}

void t_init_or_skip(const char *prog)
{
    const char *want = getenv("PORTSORT_BACKEND");
    ps_backend_info info[16];
    size_t i, count;
    int st = ps_init();
    if (st == PS_OK) {
        printf("%s: backend %s\n", prog, ps_backend_name());
        return;
    }
    count = ps_backends(info, 16);
    for (i = 0; i < count && i < 16; i++) {
        if (want == NULL || strcmp(info[i].name, want) != 0)
            continue;
        if (strcmp(want, "serial") != 0 && (!info[i].built || !info[i].usable)) {
            printf("%s: SKIP: backend %s is not usable here: %s\n", prog, want,
                   info[i].detail);
            exit(PS_TEST_SKIP);
        }
    }
    t_fail("%s: ps_init: %s: %s", prog, ps_strerror(st), ps_error_detail());
}

uint64_t t_special(ps_type t, uint64_t r)
{
    static const uint64_t f64[] = { 0, 0x8000000000000000ull,
        0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FF8000000000000ull,
        0xFFF8000000000001ull, 0x7FF0000000000001ull, 0x3FF0000000000000ull };
    static const uint32_t f32[] = { 0, 0x80000000u, 0x7F800000u, 0xFF800000u,
        0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0x3F800000u };
    static const uint16_t f16[] = { 0, 0x8000u, 0x7C00u, 0xFC00u, 0x7E00u,
        0xFE01u, 0x7C01u, 0x3C00u };
    static const uint16_t bf16[] = { 0, 0x8000u, 0x7F80u, 0xFF80u, 0x7FC0u,
        0xFFC1u, 0x7F81u, 0x3F80u };
    unsigned i = (unsigned)(r % 8);
    unsigned bits = 8u * (unsigned)ps_type_size(t);
    uint64_t all = bits == 64 ? ~0ull : ((1ull << bits) - 1);
    switch (t) {
    case PS_F64: return f64[i];
    case PS_F32: return f32[i];
    case PS_F16: return f16[i];
    case PS_BF16: return bf16[i];
    default: {
        uint64_t ints[8] = { 0, 1, all, all >> 1, (all >> 1) + 1, 2, all - 1,
                             0 };
        return ints[i];
    }
    }
}

const char *const t_shape_names[T_SHAPES] = { "random", "all-equal",
    "two-values", "shared-prefix", "few-distinct", "sorted", "reversed",
    "specials", "log-uniform" };

void t_make_keys(void *k, size_t n, ps_type t, int shape, uint64_t *rng)
{
    size_t kb = ps_type_size(t), i;
    uint64_t a = t_rand(rng), b = t_rand(rng), few[5];
    for (i = 0; i < 5; i++)
        few[i] = t_rand(rng);
    for (i = 0; i < n; i++) {
        uint64_t r = t_rand(rng), v = r;
        switch (shape) {
        case T_EQUAL: v = a; break;
        case T_TWO: v = r % 5 ? a : b; break;
        case T_PREFIX: v = (a & ~0xFFFFull) | (r & (r >> 8) & 0x3FF); break;
        case T_FEW: v = few[r % 5]; break;
        case T_SPECIAL: v = t_special(t, r); break;
        case T_LOGUNI: v = r >> (r % (8 * kb)); break;
        default: break;
        }
        memcpy((unsigned char *)k + i * kb, &v, kb);   /* little-endian */
    }
    if (shape == T_SORTED || shape == T_REVERSE)
        if (ps_sort_keys(k, n, t, shape == T_REVERSE ? PS_DESCENDING : 0)
            != PS_OK)
            t_fail("t_make_keys: ps_sort_keys: %s", ps_error_detail());
}
