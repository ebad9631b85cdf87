/*
 * ps_api.c - the public sort functions: argument checks, then the chosen
 * backend, with fallbacks for what a backend does not do natively.
 *
 * Every check happens before a backend sees the call, and every allocation
 * happens before the caller's arrays are written, so that an error can
 * always be returned with the arrays exactly as they were.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_internal.h"

size_t ps_type_size(ps_type type)
{
    if (!ps_type_valid(type))
        return 0;
    return ps_type_bytes(type);
}

const char *ps_version(void)
{
    return PACKAGE_VERSION;
}

int ps_check_type_flags(const char *fn, ps_type type, unsigned flags)
{
    if (ps_type_size(type) == 0) {
        ps_detail_set("%s: unknown key type %d", fn, (int)type);
        return PS_ERR_INVALID_ARG;
    }
    if (flags & ~PS_DESCENDING) {
        ps_detail_set("%s: unknown flags 0x%x", fn, flags & ~PS_DESCENDING);
        return PS_ERR_INVALID_ARG;
    }
    return PS_OK;
}

/* Checks shared by every host-array entry point.  The type and flags are
 * checked even when n == 0: a wrong type is a bug in the caller whatever
 * the length. */
static int check_keys(const char *fn, const void *keys, size_t n,
                      ps_type type, unsigned flags)
{
    size_t kb = ps_type_size(type);
    int st = ps_check_type_flags(fn, type, flags);
    if (st != PS_OK)
        return st;
    if (n > 0 && keys == NULL) {
        ps_detail_set("%s: keys is NULL with n = %zu", fn, n);
        return PS_ERR_INVALID_ARG;
    }
    if (n > SIZE_MAX / kb) {
        ps_detail_set("%s: n = %zu keys of %zu bytes overflow size_t", fn, n, kb);
        return PS_ERR_INVALID_ARG;
    }
    /* Backends load keys as words; a misaligned array would be undefined
     * behaviour there, so it is refused here with a reason. */
    if (n > 0 && (uintptr_t)keys % kb != 0) {
        ps_detail_set("%s: keys at %p are not aligned to %zu bytes", fn, keys, kb);
        return PS_ERR_INVALID_ARG;
    }
    return PS_OK;
}

/* The index type the fallbacks sort with: 4 bytes halves the traffic and
 * covers every n below 2^32. */
static size_t index_width(size_t n)
{
    return n <= UINT32_MAX ? 4 : 8;
}

static void fill_index(void *idx, size_t w, size_t n)
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

static inline size_t index_at(const void *idx, size_t w, size_t i)
{
    return w == 4 ? ((const uint32_t *)idx)[i] : (size_t)((const uint64_t *)idx)[i];
}

int ps_sort_keys(void *keys, size_t n, ps_type type, unsigned flags)
{
    const ps_backend_ops *ops;
    void *state;
    int st;

    ps_detail_clear();
    st = check_keys("ps_sort_keys", keys, n, type, flags);
    if (st != PS_OK)
        return st;
    st = ps_backend_for(n, &ops, &state);
    if (st != PS_OK || n < 2)
        return st;
    return ops->sort_keys(state, keys, n, type, flags);
}

/* Pairs whose value size the backend does not move natively: sort the keys
 * with their indices, then gather the values through a scratch copy.  Both
 * buffers are allocated first, and the backend leaves keys unchanged when it
 * fails, so no error leaves the arrays half-sorted. */
static int sort_pairs_indirect(const ps_backend_ops *ops, void *state,
                               void *keys, void *values, size_t value_size,
                               size_t n, ps_type type, unsigned flags)
{
    size_t w = index_width(n), i;
    unsigned char *gathered;
    const unsigned char *src = values;
    void *idx;
    int st;

    idx = ps_alloc(n * w);
    gathered = ps_alloc(n * value_size);
    if (idx == NULL || gathered == NULL) {
        ps_release(idx);
        ps_release(gathered);
        ps_detail_set("ps_sort_pairs: cannot allocate %zu bytes of scratch",
                      n * w + n * value_size);
        return PS_ERR_NO_MEMORY;
    }
    fill_index(idx, w, n);
    st = ops->sort_pairs(state, keys, idx, w, n, type, flags);
    if (st == PS_OK) {
        for (i = 0; i < n; i++)
            memcpy(gathered + i * value_size, src + index_at(idx, w, i) * value_size,
                   value_size);
        memcpy(values, gathered, n * value_size);
    }
    ps_release(idx);
    ps_release(gathered);
    return st;
}

int ps_sort_pairs(void *keys, void *values, size_t value_size, size_t n,
                  ps_type type, unsigned flags)
{
    const ps_backend_ops *ops;
    void *state;
    int st;

    ps_detail_clear();
    st = check_keys("ps_sort_pairs", keys, n, type, flags);
    if (st != PS_OK)
        return st;
    if (value_size == 0) {
        ps_detail_set("ps_sort_pairs: value_size is 0");
        return PS_ERR_INVALID_ARG;
    }
    if (n > 0 && values == NULL) {
        ps_detail_set("ps_sort_pairs: values is NULL with n = %zu", n);
        return PS_ERR_INVALID_ARG;
    }
    if (n > SIZE_MAX / value_size) {
        ps_detail_set("ps_sort_pairs: n = %zu values of %zu bytes overflow size_t",
                      n, value_size);
        return PS_ERR_INVALID_ARG;
    }
    st = ps_backend_for(n, &ops, &state);
    if (st != PS_OK || n < 2)
        return st;
    /* Native paths move values as words: only for aligned arrays.  Values
     * are opaque bytes to the caller, so a misaligned array is legal and
     * takes the byte-wise fallback instead. */
    if (value_size <= 64 && (value_size & (value_size - 1)) == 0
        && (ops->value_sizes & PS_VALUE_SIZE_BIT(value_size))
        && (uintptr_t)values % value_size == 0)
        return ops->sort_pairs(state, keys, values, value_size, n, type, flags);
    return sort_pairs_indirect(ops, state, keys, values, value_size, n, type,
                               flags);
}

/* argsort sorts a private copy of the keys with their indices, so the
 * caller's keys are only read and perm is written only after success. */
int ps_argsort(const void *keys, size_t *perm, size_t n, ps_type type,
               unsigned flags)
{
    const ps_backend_ops *ops;
    void *state, *copy, *idx;
    size_t kb, w, i;
    int st;

    ps_detail_clear();
    st = check_keys("ps_argsort", keys, n, type, flags);
    if (st != PS_OK)
        return st;
    if (n > 0 && perm == NULL) {
        ps_detail_set("ps_argsort: perm is NULL with n = %zu", n);
        return PS_ERR_INVALID_ARG;
    }
    if (n > SIZE_MAX / sizeof(size_t)) {
        ps_detail_set("ps_argsort: n = %zu indices overflow size_t", n);
        return PS_ERR_INVALID_ARG;
    }
    st = ps_backend_for(n, &ops, &state);
    if (st != PS_OK || n == 0)
        return st;
    if (n == 1) {
        perm[0] = 0;
        return PS_OK;
    }
    kb = ps_type_bytes(type);
    w = index_width(n);
    copy = ps_alloc(n * kb);
    idx = ps_alloc(n * w);
    if (copy == NULL || idx == NULL) {
        ps_release(copy);
        ps_release(idx);
        ps_detail_set("ps_argsort: cannot allocate %zu bytes of scratch",
                      n * kb + n * w);
        return PS_ERR_NO_MEMORY;
    }
    memcpy(copy, keys, n * kb);
    fill_index(idx, w, n);
    st = ops->sort_pairs(state, copy, idx, w, n, type, flags);
    if (st == PS_OK)
        for (i = 0; i < n; i++)
            perm[i] = index_at(idx, w, i);
    ps_release(copy);
    ps_release(idx);
    return st;
}
