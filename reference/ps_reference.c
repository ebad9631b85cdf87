/*
 * ps_reference.c - the serial reference radix sort (see ps_reference.h).
 *
 * Written to be obviously right first: one code path per key width,
 * instantiated from ps_reference_impl.h, with the value move specialised
 * for 4 and 8 bytes only because the indirect pairs and argsort paths of
 * the core lean on those.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_reference.h"

/* The value buffers are accessed as uint32_t/uint64_t when value_size is 4
 * or 8; callers pass arrays of such elements, and scratch is 64-byte
 * aligned. */
#define PS_W 8
#include "ps_reference_impl.h"
#undef PS_W
#define PS_W 16
#include "ps_reference_impl.h"
#undef PS_W
#define PS_W 32
#include "ps_reference_impl.h"
#undef PS_W
#define PS_W 64
#include "ps_reference_impl.h"
#undef PS_W

int ps_reference_sort(void *keys, void *values, size_t value_size, size_t n,
                      ps_type type, unsigned flags,
                      void *(*alloc)(size_t), void (*release)(void *))
{
    ps_xf xf = ps_xf_make(type, flags);
    if (n < 2)
        return PS_OK;
    switch (ps_type_bytes(type)) {
    case 1: return sort_8(keys, values, value_size, n, xf, alloc, release);
    case 2: return sort_16(keys, values, value_size, n, xf, alloc, release);
    case 4: return sort_32(keys, values, value_size, n, xf, alloc, release);
    default: return sort_64(keys, values, value_size, n, xf, alloc, release);
    }
}

/* Where the values' part of a scratch block starts: 64-byte aligned, so
 * the word-wise value moves of SORT_IN may use it. */
static size_t keys_part(size_t n, size_t kb)
{
    return (n * kb + 63) & ~(size_t)63;
}

size_t ps_reference_scratch_bytes(size_t n, ps_type type, size_t value_size)
{
    size_t kb = ps_type_bytes(type), vs = value_size ? value_size : 1;
    if (n > (SIZE_MAX - 128) / (kb + vs))
        return 0;
    return keys_part(n, kb) + n * vs + 64;
}

/* One segment: insertion sort when it is tiny, the LSD sort otherwise.
 * The scratch's value part doubles as the insertion sort's one-value
 * buffer (the block always has room for one value). */
static void sort_one(void *keys, void *values, size_t vs, size_t m,
                     unsigned kb, ps_xf xf, unsigned char *scratch)
{
    unsigned char *vbuf = scratch + keys_part(m, kb);
    int tiny = m <= PS_REFERENCE_TINY;
    if (m < 2)
        return;
    switch (kb) {
    case 1:
        if (tiny) insert_8(keys, values, vs, m, xf, vbuf);
        else sort_in_8(keys, values, vs, m, xf, (uint8_t *)scratch, vbuf);
        break;
    case 2:
        if (tiny) insert_16(keys, values, vs, m, xf, vbuf);
        else sort_in_16(keys, values, vs, m, xf, (uint16_t *)(void *)scratch, vbuf);
        break;
    case 4:
        if (tiny) insert_32(keys, values, vs, m, xf, vbuf);
        else sort_in_32(keys, values, vs, m, xf, (uint32_t *)(void *)scratch, vbuf);
        break;
    default:
        if (tiny) insert_64(keys, values, vs, m, xf, vbuf);
        else sort_in_64(keys, values, vs, m, xf, (uint64_t *)(void *)scratch, vbuf);
        break;
    }
}

void ps_reference_sort_segments(void *keys, void *values, size_t value_size,
                                const size_t *offsets, size_t first,
                                size_t last, ps_type type, unsigned flags,
                                void *scratch)
{
    unsigned kb = ps_type_bytes(type);
    ps_xf xf = ps_xf_make(type, flags);
    size_t s;
    for (s = first; s < last; s++) {
        size_t a = offsets[s], m = offsets[s + 1] - a;
        sort_one((unsigned char *)keys + a * kb,
                 values != NULL ? (unsigned char *)values + a * value_size : NULL,
                 value_size, m, kb, xf, scratch);
    }
}
