/*
 * ps_serial.c - the serial backend: the reference sort behind the backend
 * interface.  Always built in and always usable, so `auto` can never fail.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>

#include "ps_backend.h"
#include "ps_inplace.h"
#include "ps_reference.h"

static void serial_probe(ps_probe *out)
{
    out->usable = 1;
    out->gpu = 0;
    snprintf(out->detail, sizeof out->detail, "host CPU, one thread");
}

static int serial_init(const ps_host *host, void **state)
{
    *state = (void *)host;
    return PS_OK;
}

static int serial_sort_pairs(void *state, void *keys, void *values,
                             size_t value_size, size_t n, ps_type type,
                             unsigned flags)
{
    const ps_host *host = state;
    int st = ps_reference_sort(keys, values, value_size, n, type, flags,
                               host->alloc, host->release);
    if (st == PS_ERR_NO_MEMORY && values == NULL) {
        /* Keys alone: in place, slower but allocating nothing. */
        host->log("serial: no scratch for %zu keys: sorting them in place", n);
        ps_inplace_sort_keys(keys, n, type, flags, NULL, NULL);
        return PS_OK;
    }
    /* Pairs: the core sorts them in pieces that fit (lib/ps_pieces.c). */
    if (st != PS_OK)
        host->fail("serial: cannot allocate scratch for %zu elements%s", n,
                   values != NULL ? " (a stable sort of pairs needs it)" : "");
    return st;
}

static int serial_sort_keys(void *state, void *keys, size_t n, ps_type type,
                            unsigned flags)
{
    return serial_sort_pairs(state, keys, NULL, 0, n, type, flags);
}

/* One scratch block, for the longest segment, serves every segment. */
static int serial_sort_segments(void *state, void *keys, void *values,
                                size_t value_size, size_t n,
                                const size_t *offsets, size_t num_segments,
                                ps_type type, unsigned flags)
{
    const ps_host *host = state;
    size_t s, longest = 0;
    void *scratch;
    for (s = 0; s < num_segments; s++)
        if (offsets[s + 1] - offsets[s] > longest)
            longest = offsets[s + 1] - offsets[s];
    if (ps_reference_scratch_bytes(longest, type, value_size) == 0) {
        host->fail("serial: a segment of %zu elements overflows the scratch "
                   "size", longest);
        return PS_ERR_TOO_LARGE;
    }
    scratch = host->alloc(ps_reference_scratch_bytes(longest, type, value_size));
    if (scratch == NULL && values == NULL) {
        host->log("serial: no scratch for a segment of %zu keys: sorting "
                  "the segments in place", longest);
        for (s = 0; s < num_segments; s++)
            ps_inplace_sort_keys((unsigned char *)keys +
                                 offsets[s] * ps_type_bytes(type),
                                 offsets[s + 1] - offsets[s], type, flags,
                                 NULL, NULL);
        return PS_OK;
    }
    if (scratch == NULL) {
        host->fail("serial: cannot allocate scratch for a segment of %zu "
                   "elements (of %zu)", longest, n);
        return PS_ERR_NO_MEMORY;
    }
    ps_reference_sort_segments(keys, values, value_size, offsets, 0,
                               num_segments, type, flags, scratch);
    host->release(scratch);
    return PS_OK;
}

/* ps_backend_ops.scratch_bytes: ps_reference_sort's two arrays, n keys
 * and n values. */
static size_t serial_scratch_bytes(void *state, size_t n, size_t value_size,
                                   ps_type type, unsigned flags)
{
    size_t w = ps_type_bytes(type) + value_size;
    (void)state;
    (void)flags;
    return n > SIZE_MAX / w ? SIZE_MAX : n * w;
}

const ps_backend_ops ps_serial_ops = {
    PS_BACKEND_HEAD,
    .name = "serial",
    .priority = 10,
    .device = 0,
    .value_sizes = PS_VALUE_SIZE_BIT(4) | PS_VALUE_SIZE_BIT(8),
    .probe = serial_probe,
    .init = serial_init,
    .sort_keys = serial_sort_keys,
    .sort_pairs = serial_sort_pairs,
    .sort_segments = serial_sort_segments,
    .scratch_bytes = serial_scratch_bytes,
};
