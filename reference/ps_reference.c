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
