/*
 * ps_api.c - the public sort functions: argument checks, then the chosen
 * backend, with fallbacks for what a backend does not do natively.
 *
 * Every check happens before a backend sees the call, and every allocation
 * happens before the caller's arrays are written, so that an error can
 * always be returned with the arrays exactly as they were.  Arrays that
 * share a byte are refused among those checks (ps_overlap.h): no backend
 * sorts correctly in place over its own output.
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
int ps_check_keys(const char *fn, const void *keys, size_t n, ps_type type,
                  unsigned flags)
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

int ps_sort_keys(void *keys, size_t n, ps_type type, unsigned flags)
{
    const ps_backend_ops *ops;
    void *state;
    int st;

    ps_detail_clear();
    st = ps_check_keys("ps_sort_keys", keys, n, type, flags);
    if (st != PS_OK)
        return st;
    st = ps_backend_for(n, &ops, &state);
    if (st != PS_OK || n < 2)
        return st;
    return ps_backend_sort(ops, state, keys, NULL, 0, n, type, flags);
}

/* The index route's step for ps_sort_pairs: the backend sorts the keys
 * with their indices as the values. */
typedef struct pairs_ctx {
    const ps_backend_ops *ops;
    void *state;
    ps_type type;
    unsigned flags;
} pairs_ctx;

static int pairs_step(void *ctx, void *keys, void *idx, size_t w, size_t n)
{
    pairs_ctx *c = ctx;
    return ps_backend_sort(c->ops, c->state, keys, idx, w, n, c->type, c->flags);
}

int ps_sort_pairs(void *keys, void *values, size_t value_size, size_t n,
                  ps_type type, unsigned flags)
{
    const ps_backend_ops *ops;
    void *state;
    int st;

    ps_detail_clear();
    st = ps_check_keys("ps_sort_pairs", keys, n, type, flags);
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
    {
        ps_span s[2] = { ps_span_of("keys", keys, n * ps_type_bytes(type)),
                         ps_span_of("values", values, n * value_size) };
        st = ps_spans_check("ps_sort_pairs", s, 2, ps_detail_set);
        if (st != PS_OK)
            return st;
    }
    st = ps_backend_for(n, &ops, &state);
    if (st != PS_OK || n < 2)
        return st;
    /* Native paths move values as words: only for aligned arrays.  Values
     * are opaque bytes to the caller, so a misaligned array is legal and
     * takes the byte-wise fallback instead. */
    if (ps_values_native(ops, values, value_size))
        return ps_backend_sort(ops, state, keys, values, value_size, n, type, flags);
    {
        pairs_ctx c = { ops, state, type, flags };
        return ps_sort_by_index("ps_sort_pairs", keys, values, value_size, n,
                                pairs_step, &c);
    }
}

/* What the backend's own sort of n takes, or the core's estimate for a
 * backend that does not say. */
static size_t backend_bytes(const ps_backend_ops *ops, void *state, size_t n,
                            size_t vs, ps_type type, unsigned flags)
{
    size_t kb = ps_type_bytes(type);
    if (ops->scratch_bytes != NULL)
        return ops->scratch_bytes(state, n, vs, type, flags);
    return n > SIZE_MAX / (kb + vs) ? SIZE_MAX : n * (kb + vs);
}

size_t ps_scratch_bytes(size_t n, size_t value_size, ps_type type,
                        unsigned flags)
{
    const ps_backend_ops *ops;
    void *state;
    size_t w, route;

    ps_detail_clear();
    if (ps_check_type_flags("ps_scratch_bytes", type, flags) != PS_OK)
        return 0;
    if (value_size != 0 && n > SIZE_MAX / value_size) {
        ps_detail_set("ps_scratch_bytes: n = %zu values of %zu bytes "
                      "overflow size_t", n, value_size);
        return 0;
    }
    if (n < 2 || ps_backend_for(n, &ops, &state) != PS_OK)
        return 0;
    /* Values of an aligned array of a native size go to the backend as
     * they are; the others by the index route (ps_sort_by_index): the
     * indices, a copy of the values, and the backend's sort with the
     * indices as values. */
    if (value_size == 0 || ps_values_native(ops, NULL, value_size))
        return backend_bytes(ops, state, n, value_size, type, flags);
    w = ps_index_width(n);
    route = backend_bytes(ops, state, n, w, type, flags);
    if (n > SIZE_MAX / (w + value_size) ||
        route > SIZE_MAX - n * (w + value_size))
        return SIZE_MAX;
    return route + n * w + n * value_size;
}

/* argsort sorts a private copy of the keys with their indices, so the
 * caller's keys are only read and perm is written only after success. */
int ps_argsort(const void *keys, size_t *perm, size_t n, ps_type type,
               unsigned flags)
{
    const ps_backend_ops *ops;
    void *state, *copy, *idx;
    size_t kb, w, i;
    int st, kc, ki;

    ps_detail_clear();
    st = ps_check_keys("ps_argsort", keys, n, type, flags);
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
    /* perm is written only after the sort, but from the sorted copy: a perm
     * inside keys would still change the caller's keys. */
    {
        ps_span s[2] = { ps_span_of("keys", keys, n * ps_type_bytes(type)),
                         ps_span_of("perm", perm, n * sizeof(size_t)) };
        st = ps_spans_check("ps_argsort", s, 2, ps_detail_set);
        if (st != PS_OK)
            return st;
    }
    st = ps_backend_for(n, &ops, &state);
    if (st != PS_OK || n == 0)
        return st;
    if (n == 1) {
        perm[0] = 0;
        return PS_OK;
    }
    kb = ps_type_bytes(type);
    w = ps_index_width(n);
    copy = ps_scratch_take(n * kb, &kc);
    idx = ps_scratch_take(n * w, &ki);
    if (copy == NULL || idx == NULL) {
        ps_scratch_put(copy, kc);
        ps_scratch_put(idx, ki);
        ps_detail_set("ps_argsort: cannot allocate %zu bytes of scratch",
                      n * kb + n * w);
        return PS_ERR_NO_MEMORY;
    }
    memcpy(copy, keys, n * kb);
    ps_index_fill(idx, w, n);
    st = ps_backend_sort(ops, state, copy, idx, w, n, type, flags);
    if (st == PS_OK)
        for (i = 0; i < n; i++)
            perm[i] = ps_index_at(idx, w, i);
    ps_scratch_put(copy, kc);
    ps_scratch_put(idx, ki);
    return st;
}
