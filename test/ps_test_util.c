/*
 * ps_test_util.c - see ps_test_util.h.
 */
#include <malloc.h>
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
                                   "i16", "i32", "i64", "f32", "f64" };
    return type >= PS_U8 && type <= PS_F64 ? names[type] : "?";
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

/* ---- allocation fault injection ------------------------------------- */

static long fail_at;          /* 0: disarmed */
static long alloc_count;
static int alloc_failed;

/* Disarming (k = 0) keeps the counters, so that a test can disarm right
 * after the call it probes and then ask what happened in it. */
void t_fail_alloc_at(long k)
{
    if (k > 0) {
        __atomic_store_n(&alloc_count, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&alloc_failed, 0, __ATOMIC_SEQ_CST);
    }
    __atomic_store_n(&fail_at, k, __ATOMIC_SEQ_CST);
}

long t_alloc_count(void)
{
    return __atomic_load_n(&alloc_count, __ATOMIC_SEQ_CST);
}

int t_alloc_failed(void)
{
    return __atomic_load_n(&alloc_failed, __ATOMIC_SEQ_CST);
}

/* Interposes the C library's aligned_alloc for libportsort too (ELF symbol
 * interposition), so the library's own allocations can be made to fail
 * without any hook in the library.  memalign is what glibc's aligned_alloc
 * does underneath.  The tests are compiled with -fvisibility=hidden like the
 * library, so the definition must be made visible explicitly: a hidden one
 * stays out of the dynamic symbol table and interposes nothing. */
__attribute__((visibility("default")))
void *aligned_alloc(size_t align, size_t size)
{
    long k = __atomic_load_n(&fail_at, __ATOMIC_SEQ_CST);
    if (k > 0) {
        long c = __atomic_add_fetch(&alloc_count, 1, __ATOMIC_SEQ_CST);
        if (c == k) {
            __atomic_store_n(&alloc_failed, 1, __ATOMIC_SEQ_CST);
            return NULL;
        }
    }
    return memalign(align, size);
}
