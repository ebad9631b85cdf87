/*
 * ps_cli_peers.c - the sorts `portsort bench` compares the library with.
 *
 * The C library's qsort is always there.  Other peers (Highway's vqsort,
 * Boost.Compute, CUB) are one entry each in ps_cli_peers[], compiled in when
 * configure finds them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ps_cli_bench.h"

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

static int cmp_f64(const void *a, const void *b)
{
    uint64_t x, y, s = (uint64_t)1 << 63;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    x = (x & s) ? ~x : x | s;
    y = (y & s) ? ~y : y | s;
    return (x > y) - (x < y);
}

static int qsort_keys(void *keys, size_t n, ps_type type)
{
    static int (*const cmp[])(const void *, const void *) = {
        NULL, cmp_u8, cmp_u16, cmp_u32, cmp_u64,
        cmp_i8, cmp_i16, cmp_i32, cmp_i64, cmp_f32, cmp_f64,
    };
    if ((unsigned)type >= sizeof cmp / sizeof cmp[0] || cmp[type] == NULL)
        return -1;
    qsort(keys, n, ps_type_size(type), cmp[type]);
    return 0;
}

static const ps_cli_peer peer_qsort = {
    "qsort", "the C library's qsort (totalOrder for floats)", NULL, qsort_keys,
};

const ps_cli_peer *const ps_cli_peers[] = {
    &peer_qsort,
    NULL,
};
