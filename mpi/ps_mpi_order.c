/*
 * ps_mpi_order.c - map keys to unsigned integers that compare as the keys
 * sort.  The splitters are compared with keys of every type through this
 * one map, so the splitting code has no per-type branches.
 */
#include <config.h>

#include <string.h>

#include "ps_mpi_internal.h"

/* Signed integers: flipping the sign bit moves the negatives below the
 * positives and keeps each half in order.  Floats (IEEE 754 totalOrder by
 * bit pattern): a negative value's magnitude grows as its bits grow, so
 * all its bits are flipped; a positive one just gets the sign bit set, to
 * land above every negative.  -0.0 and +0.0, and NaNs by sign and payload,
 * stay distinct, as in ps_sort_keys. */
uint64_t ps_mpi_ordered_key(const void *keys, size_t i, ps_type type, unsigned flags)
{
    const unsigned char *p = keys;
    uint64_t v = 0;

    switch (type) {
    case PS_U8:  { uint8_t x;  memcpy(&x, p + i, 1); v = x; break; }
    case PS_I8:  { uint8_t x;  memcpy(&x, p + i, 1); v = (uint8_t)(x ^ 0x80u); break; }
    case PS_U16: { uint16_t x; memcpy(&x, p + 2 * i, 2); v = x; break; }
    case PS_I16: { uint16_t x; memcpy(&x, p + 2 * i, 2); v = (uint16_t)(x ^ 0x8000u); break; }
    case PS_U32: { uint32_t x; memcpy(&x, p + 4 * i, 4); v = x; break; }
    case PS_I32: { uint32_t x; memcpy(&x, p + 4 * i, 4); v = x ^ 0x80000000u; break; }
    case PS_U64: memcpy(&v, p + 8 * i, 8); break;
    case PS_I64: memcpy(&v, p + 8 * i, 8); v ^= UINT64_C(1) << 63; break;
    case PS_F16: case PS_BF16: {
        uint16_t x;
        memcpy(&x, p + 2 * i, 2);
        v = (x & 0x8000u) ? (uint16_t)~x : (uint16_t)(x | 0x8000u);
        break;
    }
    case PS_F32: {
        uint32_t x;
        memcpy(&x, p + 4 * i, 4);
        v = (x & 0x80000000u) ? (uint32_t)~x : (x | 0x80000000u);
        break;
    }
    case PS_F64:
        memcpy(&v, p + 8 * i, 8);
        v = (v >> 63) ? ~v : (v | (UINT64_C(1) << 63));
        break;
    }
    /* Inverting every bit reverses the order whatever the key's width;
     * ties are still broken by (rank, position) ascending, which is what
     * makes the descending sort stable rather than a reversed one. */
    return (flags & PS_DESCENDING) ? ~v : v;
}
