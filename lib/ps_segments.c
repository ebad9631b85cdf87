/*
 * ps_segments.c - ps_sort_segments: many independent sorts in one call.
 *
 * The checks come first, the offsets included, so that a backend sees only
 * a valid segmentation.  A backend with its own segmented sort gets the
 * call whole; for the others (the device modules today) the core sorts
 * each long segment through the backend's plain sort and the short ones on
 * the host with the reference sort, where a device round trip per segment
 * would cost more than the sort.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_internal.h"
#include "ps_reference.h"

/* A segment of at least this many keys goes to a backend's plain sort
 * when the backend has no segmented sort: about where a GPU's sort of a
 * host array starts to beat one host thread. */
#define PS_SEGMENT_LONG ((size_t)1 << 16)

/* offsets must run from 0 to n without decreasing; NULL is accepted only
 * for the empty segmentation of nothing (no segments, n == 0).  Its length
 * was checked with the overlaps. */
int ps_check_offsets(const char *fn, const size_t *offsets,
                     size_t num_segments, size_t n)
{
    size_t s;
    if (offsets == NULL) {
        if (num_segments == 0 && n == 0)
            return PS_OK;
        ps_detail_set("%s: offsets is NULL with %zu segments and n = %zu", fn,
                      num_segments, n);
        return PS_ERR_INVALID_ARG;
    }
    if (offsets[0] != 0) {
        ps_detail_set("%s: offsets[0] = %zu, must be 0", fn, offsets[0]);
        return PS_ERR_INVALID_ARG;
    }
    for (s = 0; s < num_segments; s++)
        if (offsets[s + 1] < offsets[s]) {
            ps_detail_set("%s: offsets decrease at %zu (%zu, then %zu)", fn,
                          s + 1, offsets[s], offsets[s + 1]);
            return PS_ERR_INVALID_ARG;
        }
    if (offsets[num_segments] != n) {
        ps_detail_set("%s: offsets[%zu] = %zu, must be n = %zu", fn,
                      num_segments, offsets[num_segments], n);
        return PS_ERR_INVALID_ARG;
    }
    return PS_OK;
}

/* values NULL (value_size then 0) or n values of value_size bytes, and
 * the number of segments small enough that its offsets fit in memory. */
int ps_check_seg_values(const char *fn, const void *values, size_t value_size,
                        size_t n, size_t num_segments)
{
    if (values != NULL && value_size == 0) {
        ps_detail_set("%s: value_size is 0 with values given (pass values = "
                      "NULL to sort keys only)", fn);
        return PS_ERR_INVALID_ARG;
    }
    if (values == NULL && value_size != 0 && n > 0) {
        ps_detail_set("%s: values is NULL with value_size %zu and n = %zu", fn,
                      value_size, n);
        return PS_ERR_INVALID_ARG;
    }
    if (values != NULL && n > SIZE_MAX / value_size) {
        ps_detail_set("%s: n = %zu values of %zu bytes overflow size_t", fn, n,
                      value_size);
        return PS_ERR_INVALID_ARG;
    }
    if (num_segments >= SIZE_MAX / sizeof(size_t)) {
        ps_detail_set("%s: num_segments = %zu: its num_segments + 1 offsets "
                      "would not fit in memory", fn, num_segments);
        return PS_ERR_INVALID_ARG;
    }
    return PS_OK;
}

typedef struct seg_call {
    const ps_backend_ops *ops;
    void *state;
    const size_t *offsets;
    size_t num_segments;
    ps_type type;
    unsigned flags;
} seg_call;

static int sort_range(const seg_call *c, void *keys, void *values,
                      size_t vs, size_t m)
{
    if (values == NULL)
        return c->ops->sort_keys(c->state, keys, m, c->type, c->flags);
    return c->ops->sort_pairs(c->state, keys, values, vs, m, c->type, c->flags);
}

/* The long segments through the backend's plain sort.  A later one may
 * fail (device memory) after earlier ones were sorted: those are kept in
 * `backup` first, when there are several, and put back on failure. */
static int sort_long(const seg_call *c, unsigned char *keys,
                     unsigned char *values, size_t vs, unsigned char *backup)
{
    size_t kb = ps_type_bytes(c->type), s, done, at = 0;
    int st = PS_OK;
    for (s = 0; s < c->num_segments; s++) {
        size_t a = c->offsets[s], m = c->offsets[s + 1] - a;
        if (m < PS_SEGMENT_LONG)
            continue;
        if (backup != NULL) {
            memcpy(backup + at, keys + a * kb, m * kb);
            if (values != NULL)
                memcpy(backup + at + m * kb, values + a * vs, m * vs);
            at += m * (kb + vs);
        }
    }
    for (s = 0; s < c->num_segments && st == PS_OK; s++) {
        size_t a = c->offsets[s], m = c->offsets[s + 1] - a;
        if (m >= PS_SEGMENT_LONG)
            st = sort_range(c, keys + a * kb, values ? values + a * vs : NULL,
                            vs, m);
    }
    if (st == PS_OK || backup == NULL)
        return st;
    /* Segment s - 1 failed and left itself unchanged; restore those before. */
    for (done = 0, at = 0; done + 1 < s; done++) {
        size_t a = c->offsets[done], m = c->offsets[done + 1] - a;
        if (m < PS_SEGMENT_LONG)
            continue;
        memcpy(keys + a * kb, backup + at, m * kb);
        if (values != NULL)
            memcpy(values + a * vs, backup + at + m * kb, m * vs);
        at += m * (kb + vs);
    }
    return st;
}

/* For backends without a segmented sort: see the top of the file. */
static int segments_generic(const seg_call *c, void *keys, void *values,
                            size_t vs)
{
    size_t kb = ps_type_bytes(c->type), s, longest = 0, nlong = 0, sum = 0;
    size_t first;
    unsigned char *scratch, *backup = NULL;
    int st;

    for (s = 0; s < c->num_segments; s++) {
        size_t m = c->offsets[s + 1] - c->offsets[s];
        if (m >= PS_SEGMENT_LONG)
            nlong++, sum += m;
        else if (m > longest)
            longest = m;
    }
    if (ps_reference_scratch_bytes(longest, c->type, vs) == 0
        || sum > SIZE_MAX / (kb + vs)) {
        ps_detail_set("ps_sort_segments: %zu elements of %zu bytes overflow "
                      "the scratch size", nlong > 1 ? sum : longest, kb + vs);
        return PS_ERR_TOO_LARGE;
    }
    scratch = ps_alloc(ps_reference_scratch_bytes(longest, c->type, vs));
    if (nlong > 1)
        backup = ps_alloc(sum * (kb + vs));
    if (scratch == NULL || (nlong > 1 && backup == NULL)) {
        ps_release(scratch);
        ps_release(backup);
        ps_detail_set("ps_sort_segments: cannot allocate scratch for "
                      "segments of %zu keys", nlong > 1 ? sum : longest);
        return PS_ERR_NO_MEMORY;
    }
    st = nlong ? sort_long(c, keys, values, vs, backup) : PS_OK;
    /* The short ones cannot fail: their scratch is here.  Runs of short
     * segments between long ones go to the reference sort together. */
    for (s = 0, first = 0; st == PS_OK && s <= c->num_segments; s++) {
        int is_long = s < c->num_segments
                      && c->offsets[s + 1] - c->offsets[s] >= PS_SEGMENT_LONG;
        if (s < c->num_segments && !is_long)
            continue;
        if (first < s)
            ps_reference_sort_segments(keys, values, vs, c->offsets, first, s,
                                       c->type, c->flags, scratch);
        first = s + 1;
    }
    ps_release(scratch);
    ps_release(backup);
    return st;
}

static int segments_native(const seg_call *c, void *keys, void *values,
                           size_t vs, size_t n)
{
    if (c->ops->sort_segments != NULL)
        return c->ops->sort_segments(c->state, keys, values, vs, n, c->offsets,
                                     c->num_segments, c->type, c->flags);
    return segments_generic(c, keys, values, vs);
}

int ps_segments_on(const ps_backend_ops *ops, void *state, void *keys,
                   void *values, size_t value_size, size_t n,
                   const size_t *offsets, size_t num_segments, ps_type type,
                   unsigned flags)
{
    seg_call c = { ops, state, offsets, num_segments, type, flags };
    return segments_native(&c, keys, values, value_size, n);
}

/* The backend's segmented sort; when a CPU backend has no scratch for it
 * with values, the same sort in steps that fit (ps_seglimit.c), counted
 * from where this attempt began, since it gave back all it took.  Keys
 * alone the CPU backends sort in place themselves. */
static int segments_fitted(const seg_call *c, void *keys, void *values,
                           size_t vs, size_t n)
{
    size_t mark = ps_mem_mark();
    int st = segments_native(c, keys, values, vs, n);
    if (st != PS_ERR_NO_MEMORY || values == NULL || c->ops->device)
        return st;
    ps_mem_rewind(mark);
    return ps_segments_in_steps(c->ops, c->state, keys, values, vs, n,
                                c->offsets, c->num_segments, c->type,
                                c->flags);
}

static int index_step(void *ctx, void *keys, void *idx, size_t w, size_t n)
{
    return segments_fitted(ctx, keys, idx, w, n);
}

int ps_sort_segments(void *keys, void *values, size_t value_size, size_t n,
                     const size_t *offsets, size_t num_segments, ps_type type,
                     unsigned flags)
{
    const ps_backend_ops *ops;
    void *state;
    int st;

    ps_detail_clear();
    st = ps_check_keys("ps_sort_segments", keys, n, type, flags);
    if (st != PS_OK)
        return st;
    st = ps_check_seg_values("ps_sort_segments", values, value_size, n,
                             num_segments);
    if (st != PS_OK)
        return st;
    /* The offsets are read all through the sort (each segment's bounds), so
     * they may no more share a byte with the keys or values than those two
     * with each other; checked before the offsets' contents, which a sort
     * would be changing under a check that passed. */
    {
        size_t kb = ps_type_bytes(type);
        ps_span sp[3] = {
            ps_span_of("keys", keys, n * kb),
            ps_span_of("values", values, values != NULL ? n * value_size : 0),
            ps_span_of("offsets", offsets,
                       offsets != NULL ? (num_segments + 1) * sizeof(size_t) : 0),
        };
        st = ps_spans_check("ps_sort_segments", sp, 3, ps_detail_set);
        if (st != PS_OK)
            return st;
    }
    st = ps_check_offsets("ps_sort_segments", offsets, num_segments, n);
    if (st != PS_OK)
        return st;
    st = ps_backend_for(n, &ops, &state);
    if (st != PS_OK || n < 2)
        return st;
    {
        seg_call c = { ops, state, offsets, num_segments, type, flags };
        if (values == NULL || ps_values_native(ops, values, value_size))
            return segments_fitted(&c, keys, values, values ? value_size : 0,
                                   n);
        return ps_sort_by_index("ps_sort_segments", keys, values, value_size,
                                n, index_step, &c);
    }
}
