/*
 * ps_index.c - sorting with indices as the values: the route for values a
 * backend does not move natively, and the start of argsort.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_internal.h"

size_t ps_index_width(size_t n)
{
    return n <= UINT32_MAX ? 4 : 8;
}

void ps_index_fill(void *idx, size_t w, size_t n)
{
    size_t i;
    if (w == 4) {
        uint32_t *p = idx;
        for (i = 0; i < n; i++)
            p[i] = (uint32_t)i;
    } else {
        uint64_t *p = idx;
        for (i = 0; i < n; i++)
            p[i] = i;
    }
}

size_t ps_index_at(const void *idx, size_t w, size_t i)
{
    return w == 4 ? ((const uint32_t *)idx)[i] : (size_t)((const uint64_t *)idx)[i];
}

int ps_values_native(const ps_backend_ops *ops, const void *values,
                     size_t value_size)
{
    /* Native paths move values as words: only for aligned arrays.  Values
     * are opaque bytes to the caller, so a misaligned array is legal and
     * takes the index route instead. */
    return value_size <= 64 && (value_size & (value_size - 1)) == 0
           && (ops->value_sizes & PS_VALUE_SIZE_BIT(value_size))
           && (uintptr_t)values % value_size == 0;
}

/* Both buffers are allocated first, and the step leaves keys unchanged
 * when it fails, so no error leaves the arrays half-sorted. */
int ps_sort_by_index(const char *fn, void *keys, void *values,
                     size_t value_size, size_t n, ps_index_step step,
                     void *ctx)
{
    size_t w = ps_index_width(n), i;
    unsigned char *gathered;
    const unsigned char *src = values;
    void *idx;
    int st, ki, kg;

    idx = ps_scratch_take(n * w, &ki);
    gathered = ps_scratch_take(n * value_size, &kg);
    if (idx == NULL || gathered == NULL) {
        ps_scratch_put(idx, ki);
        ps_scratch_put(gathered, kg);
        ps_detail_set("%s: cannot allocate %zu bytes of scratch", fn,
                      n * w + n * value_size);
        return PS_ERR_NO_MEMORY;
    }
    ps_index_fill(idx, w, n);
    st = step(ctx, keys, idx, w, n);
    if (st == PS_OK) {
        for (i = 0; i < n; i++)
            memcpy(gathered + i * value_size,
                   src + ps_index_at(idx, w, i) * value_size, value_size);
        memcpy(values, gathered, n * value_size);
    }
    ps_scratch_put(idx, ki);
    ps_scratch_put(gathered, kg);
    return st;
}
