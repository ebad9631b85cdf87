/*
 * ps_cli_peers.c - the sorts `portsort bench` compares the library with.
 *
 * The C library's qsort is always there; Highway's vqsort is there when
 * configure found libhwy.  Further peers (Boost.Compute, CUB) would be one
 * entry each in ps_cli_peers[].
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ps_cli_bench_parts.h"
#include "peers/ps_peers.h"

/* qsort has no context argument, so there is one comparison per type. */
#define PS_CMP_INT(name, T)                                                   \
    static int name(const void *a, const void *b)                            \
    {                                                                         \
        T x, y;                                                               \
        memcpy(&x, a, sizeof x);                                              \
        memcpy(&y, b, sizeof y);                                              \
        return (x > y) - (x < y);                                             \
    }
PS_CMP_INT(cmp_u8, uint8_t)
PS_CMP_INT(cmp_u16, uint16_t)
PS_CMP_INT(cmp_u32, uint32_t)
PS_CMP_INT(cmp_u64, uint64_t)
PS_CMP_INT(cmp_i8, int8_t)
PS_CMP_INT(cmp_i16, int16_t)
PS_CMP_INT(cmp_i32, int32_t)
PS_CMP_INT(cmp_i64, int64_t)

/* Floats compare by totalOrder, as the library sorts them: `<` would leave
 * NaNs anywhere and -0.0 beside +0.0 in input order, and the output would
 * not verify. */
static int cmp_f32(const void *a, const void *b)
{
    uint32_t x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    x = (x & 0x80000000u) ? ~x : x | 0x80000000u;
    y = (y & 0x80000000u) ? ~y : y | 0x80000000u;
    return (x > y) - (x < y);
}

/* f16 and bf16 alike: both are sign and magnitude in 16 bits. */
static int cmp_half(const void *a, const void *b)
{
    uint16_t x, y;
    memcpy(&x, a, 2);
    memcpy(&y, b, 2);
    x = (x & 0x8000u) ? (uint16_t)~x : (uint16_t)(x | 0x8000u);
    y = (y & 0x8000u) ? (uint16_t)~y : (uint16_t)(y | 0x8000u);
    return (x > y) - (x < y);
}

static int cmp_f64(const void *a, const void *b)
{
    uint64_t x, y, s = (uint64_t)1 << 63;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    x = (x & s) ? ~x : x | s;
    y = (y & s) ? ~y : y | s;
    return (x > y) - (x < y);
}

typedef int (*cmp_fn)(const void *, const void *);

static cmp_fn key_cmp(ps_type type)
{
    static const cmp_fn cmp[] = {
        NULL, cmp_u8, cmp_u16, cmp_u32, cmp_u64,
        cmp_i8, cmp_i16, cmp_i32, cmp_i64, cmp_f32, cmp_f64,
        cmp_half, cmp_half,
    };
    return (unsigned)type < sizeof cmp / sizeof cmp[0] ? cmp[type] : NULL;
}

static int qsort_keys(void *keys, size_t n, ps_type type)
{
    cmp_fn cmp = key_cmp(type);
    if (cmp == NULL)
        return -1;
    qsort(keys, n, ps_type_size(type), cmp);
    return 0;
}

/* Pairs with qsort, the way a C programmer would: records of (input index,
 * key) sorted by key then index (qsort is not stable), then the keys and
 * values gathered in that order.  The records' extra memory and the gather
 * are part of the time, as they would be in a program. */
#define REC 16      /* 8-byte index, then the key */
#define PS_CMP_REC(name, keycmp)                                              \
    static int name(const void *a, const void *b)                            \
    {                                                                         \
        uint64_t x, y;                                                        \
        int c = keycmp((const char *)a + 8, (const char *)b + 8);             \
        if (c != 0)                                                           \
            return c;                                                         \
        memcpy(&x, a, 8);                                                     \
        memcpy(&y, b, 8);                                                     \
        return (x > y) - (x < y);                                             \
    }
PS_CMP_REC(rec_u8, cmp_u8)
PS_CMP_REC(rec_u16, cmp_u16)
PS_CMP_REC(rec_u32, cmp_u32)
PS_CMP_REC(rec_u64, cmp_u64)
PS_CMP_REC(rec_i8, cmp_i8)
PS_CMP_REC(rec_i16, cmp_i16)
PS_CMP_REC(rec_i32, cmp_i32)
PS_CMP_REC(rec_i64, cmp_i64)
PS_CMP_REC(rec_f32, cmp_f32)
PS_CMP_REC(rec_f64, cmp_f64)
PS_CMP_REC(rec_half, cmp_half)

static int qsort_pairs(void *keys, void *values, size_t vs, size_t n, ps_type type)
{
    static const cmp_fn cmp[] = {
        NULL, rec_u8, rec_u16, rec_u32, rec_u64,
        rec_i8, rec_i16, rec_i32, rec_i64, rec_f32, rec_f64,
        rec_half, rec_half,
    };
    size_t ks = ps_type_size(type), i;
    unsigned char *rec, *tmp;
    if (ks == 0 || (unsigned)type >= sizeof cmp / sizeof cmp[0])
        return -1;
    rec = malloc(n * REC + 1);
    tmp = malloc(n * vs + 1);
    if (rec == NULL || tmp == NULL) {
        free(rec);
        free(tmp);
        return -1;
    }
    for (i = 0; i < n; i++) {
        uint64_t idx = i;
        memcpy(rec + i * REC, &idx, 8);
        memcpy(rec + i * REC + 8, (unsigned char *)keys + i * ks, ks);
    }
    qsort(rec, n, REC, cmp[type]);
    memcpy(tmp, values, n * vs);
    for (i = 0; i < n; i++) {
        uint64_t idx;
        memcpy(&idx, rec + i * REC, 8);
        memcpy((unsigned char *)keys + i * ks, rec + i * REC + 8, ks);
        memcpy((unsigned char *)values + i * vs, tmp + idx * vs, vs);
    }
    free(rec);
    free(tmp);
    return 0;
}

static const ps_cli_peer peer_qsort = {
    .name = "qsort",
    .what = "the C library's qsort (totalOrder for floats; pairs as records)",
    .supports = NULL,
    .sort_keys = qsort_keys,
    .sort_pairs = qsort_pairs,
};

/* Highway's vqsort (one thread), when configure found libhwy.  It orders
 * floats as numbers, not by totalOrder (NaNs and -0.0 would not verify),
 * and has no 1-byte keys: integers of 2, 4 and 8 bytes only. */
static int vqsort_supports(ps_type type)
{
    switch (type) {
    case PS_U16: case PS_U32: case PS_U64: case PS_I16: case PS_I32: case PS_I64:
        return ps_peer_vqsort_available();
    default:
        return 0;
    }
}

static int vqsort_keys(void *keys, size_t n, ps_type type)
{
    return ps_peer_vqsort(keys, n, (int)type);
}

static const ps_cli_peer peer_vqsort = {
    .name = "vqsort",
    .what = "Highway's vqsort, one thread (integer keys; needs libhwy-dev)",
    .supports = vqsort_supports,
    .sort_keys = vqsort_keys,
    .sort_pairs = NULL,
};

const ps_cli_peer *const ps_cli_peers[] = {
    &peer_qsort,
    &peer_vqsort,
    NULL,
};
