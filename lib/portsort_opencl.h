/*
 * portsort_opencl.h - sort OpenCL buffers in place on the caller's command
 * queue, with no copies through the host.
 *
 * The functions are inline: each fetches the OpenCL module's table with
 * ps_device_api("opencl") (which loads ps_opencl.so, from
 * PORTSORT_MODULE_PATH or the installed module directory, on first use)
 * and calls through it, as portsort_cuda.h and portsort_hip.h do.
 * libportsort itself does not link OpenCL: a program that uses them links
 * -lportsort and, for its own OpenCL calls, -lOpenCL.  They work whatever
 * PORTSORT_BACKEND chose for the host-array functions: the device is the
 * queue's.
 *
 * Semantics:
 *  - keys is a cl_mem holding n keys of `type` starting at element
 *    key_offset; values (or NULL) holds n values of value_size bytes (4 or
 *    8) starting at element value_offset.  Both are sorted in place,
 *    stably, ascending or with PS_DESCENDING, like ps_sort_pairs().
 *  - The sort is enqueued on queue (in-order or out-of-order; out-of-order
 *    queues get barriers between the steps) after whatever the queue holds
 *    already.  For n above one tile the call waits once, mid-way, for a
 *    small read of the digit histogram (it decides which passes to skip),
 *    so it returns after all earlier work on the queue has finished and the
 *    rest of the sort is enqueued and flushed, not finished.  Commands
 *    enqueued afterwards on an in-order queue see sorted data; use
 *    clFinish(queue) or an event-based wait before reading on the host.
 *  - Scratch: ps_opencl_scratch_size() says how many bytes a sort of n
 *    elements needs on the queue's device (0 when none: small arrays sort
 *    inside one work-group).  Pass a buffer at least that large, or NULL to
 *    let the call allocate one (released when the queued work is done).
 *    The call uses bytes [0, scratch_bytes) of it: scratch_bytes beyond
 *    the buffer's CL_MEM_SIZE is refused.
 *  - Separate ranges: for n >= 2 the byte ranges of one call (keys from
 *    key_offset, values from value_offset, offsets, scratch) must each lie
 *    inside their buffer and must not overlap.  One buffer may hold several
 *    of them side by side; the same cl_mem passed twice, or two
 *    sub-buffers of one buffer, overlap when their bytes do (a sub-buffer
 *    counts by its CL_MEM_OFFSET in its parent).  An overlap is
 *    PS_ERR_INVALID_ARG, found before anything is enqueued, and
 *    ps_error_detail() names the two arguments and their byte ranges.
 *  - Kernels are built on first use per context, device and key/value
 *    width (about a second on pocl; cached on disk, see README.md).  The
 *    built programs, and with them a reference to each context they were
 *    built for, are kept until the process exits or libportsort is
 *    unloaded, so a context you release stays alive until then.
 *  - Several host threads may call these at once; sorts that use the same
 *    built program are enqueued one at a time.
 *
 * Returns PS_OK or a status of <portsort.h>, with ps_error_detail() saying
 * why: PS_ERR_INVALID_ARG (bad type, flags, value_size or queue, offset +
 * n past the end of a buffer, a cl_mem that is not a buffer, scratch too
 * small or smaller than scratch_bytes, ranges that overlap),
 * PS_ERR_BACKEND_UNAVAILABLE (the OpenCL module was not built, cannot be
 * loaded, or carries another version of the table), PS_ERR_DEVICE_MEMORY, PS_ERR_DEVICE (kernel build or run
 * failure; PORTSORT_VERBOSE=1 prints the build log), PS_ERR_TOO_LARGE
 * (n >= 2^32, or scratch beyond the device's largest buffer).  On an error
 * reported before anything was enqueued, the buffers are unchanged; after
 * a run failure their contents are unspecified (keys may be permuted, or
 * still in the sort's internal order-preserving encoding).
 */
#ifndef PORTSORT_OPENCL_H
#define PORTSORT_OPENCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#  define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "portsort.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever ps_opencl_api changes, appended functions included (a
 * program built with this header must not call past the end of an older
 * module's table); a module carrying another value is refused. */
#define PS_OPENCL_API_ABI 5u    /* 3: segments_scratch_size, sort_segments;
                                   4: the top-k's four functions;
                                   5: the records' four functions */

/* The OpenCL module's table, returned by ps_device_api("opencl"). */
typedef struct ps_opencl_api {
    unsigned abi;           /* PS_OPENCL_API_ABI */
    int (*scratch_size)(cl_command_queue queue, size_t n, ps_type type,
                        size_t value_size, size_t *bytes);
    int (*sort_keys)(cl_command_queue queue, cl_mem keys, size_t key_offset,
                     size_t n, ps_type type, unsigned flags, cl_mem scratch,
                     size_t scratch_bytes);
    int (*sort_pairs)(cl_command_queue queue, cl_mem keys, size_t key_offset,
                      cl_mem values, size_t value_offset, size_t value_size,
                      size_t n, ps_type type, unsigned flags, cl_mem scratch,
                      size_t scratch_bytes);
    int (*segments_scratch_size)(cl_command_queue queue, size_t n, ps_type type,
                                 size_t value_size, size_t *bytes);
    int (*sort_segments)(cl_command_queue queue, cl_mem keys, size_t key_offset,
                         cl_mem values, size_t value_offset, size_t value_size,
                         size_t n, cl_mem offsets, size_t num_segments,
                         ps_type type, unsigned flags, cl_mem scratch,
                         size_t scratch_bytes);
    int (*topk_scratch_size)(cl_command_queue queue, size_t n, ps_type type,
                             size_t value_size, size_t *bytes);
    int (*topk)(cl_command_queue queue, cl_mem keys, size_t key_offset,
                cl_mem values, size_t value_offset, size_t value_size, size_t n,
                size_t k, cl_mem out_keys, size_t out_key_offset,
                cl_mem out_values, size_t out_value_offset, cl_mem out_index,
                size_t out_index_offset, ps_type type, unsigned flags,
                cl_mem scratch, size_t scratch_bytes);
    int (*topk_segments_scratch_size)(cl_command_queue queue, size_t n,
                                      ps_type type, size_t value_size,
                                      size_t *bytes);
    int (*topk_segments)(cl_command_queue queue, cl_mem keys, size_t key_offset,
                         cl_mem values, size_t value_offset, size_t value_size,
                         size_t n, cl_mem offsets, size_t num_segments, size_t k,
                         cl_mem out_keys, size_t out_key_offset,
                         cl_mem out_values, size_t out_value_offset,
                         cl_mem out_index, size_t out_index_offset, ps_type type,
                         unsigned flags, cl_mem scratch, size_t scratch_bytes);
    int (*records_scratch_size)(cl_command_queue queue, size_t record_size,
                                size_t n, size_t *bytes);
    int (*sort_records)(cl_command_queue queue, cl_mem records,
                        size_t record_offset, size_t record_size, size_t n,
                        const ps_field *fields, size_t num_fields,
                        cl_mem scratch, size_t scratch_bytes);
    int (*argsort_records)(cl_command_queue queue, cl_mem records,
                           size_t record_offset, size_t record_size, size_t n,
                           const ps_field *fields, size_t num_fields,
                           cl_mem perm, size_t perm_offset, cl_mem scratch,
                           size_t scratch_bytes);
    int (*argsort_columns)(cl_command_queue queue, const cl_mem *columns,
                           const size_t *column_offsets, const ps_type *types,
                           const unsigned *flags, size_t num_columns, size_t n,
                           cl_mem perm, size_t perm_offset, cl_mem scratch,
                           size_t scratch_bytes);
} ps_opencl_api;

/* The table, checked for the ABI; NULL with ps_error_detail() saying why
 * (module not built, no OpenCL platform...) when OpenCL cannot run here. */
static inline const ps_opencl_api *ps_opencl_api_get(void)
{
    const ps_opencl_api *api = (const ps_opencl_api *)ps_device_api("opencl");
    if (api != NULL && api->abi != PS_OPENCL_API_ABI)
        return NULL;
    return api;
}

/* Bytes of scratch for sorting n elements of `type` with values of
 * value_size bytes (0: keys only) on queue's device, in *bytes. */
static inline int ps_opencl_scratch_size(cl_command_queue queue, size_t n,
                                         ps_type type, size_t value_size,
                                         size_t *bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->scratch_size(queue, n, type, value_size, bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

/* Sort n keys of keys[key_offset ..] in place on queue. */
static inline int ps_opencl_sort_keys(cl_command_queue queue, cl_mem keys,
                                      size_t key_offset, size_t n, ps_type type,
                                      unsigned flags, cl_mem scratch,
                                      size_t scratch_bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->sort_keys(queue, keys, key_offset, n, type, flags,
                                    scratch, scratch_bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

/* Sort n keys and move their values (value_size 4 or 8) with them. */
static inline int ps_opencl_sort_pairs(cl_command_queue queue, cl_mem keys,
                                       size_t key_offset, cl_mem values,
                                       size_t value_offset, size_t value_size,
                                       size_t n, ps_type type, unsigned flags,
                                       cl_mem scratch, size_t scratch_bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->sort_pairs(queue, keys, key_offset, values,
                                     value_offset, value_size, n, type, flags,
                                     scratch, scratch_bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

/* Bytes of scratch for ps_opencl_sort_segments() of n elements of `type`
 * with values of value_size bytes (0: keys only) on queue's device, in
 * *bytes; it does not depend on the offsets.  0 when n < 2.
 * PS_ERR_TOO_LARGE, as the sort would return, where the device's tiles are
 * too short for n (a PORTSORT_OPENCL_TUNE of a few keys per tile: the
 * sort's bookkeeping would pass the kernels' 32-bit indices). */
static inline int ps_opencl_segments_scratch_size(cl_command_queue queue,
                                                  size_t n, ps_type type,
                                                  size_t value_size,
                                                  size_t *bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->segments_scratch_size(queue, n, type, value_size, bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

/*
 * Sort each segment of the n keys of keys[key_offset ..] on its own, in
 * place on queue, moving the values (value_size 4 or 8; values NULL and
 * value_size 0 for keys only) along: ps_sort_segments() on buffers.
 * offsets is a buffer of num_segments + 1 cl_ulong words from its start,
 * running from 0 to n without decreasing, relative to key_offset (and
 * value_offset); segment i is [offsets[i], offsets[i + 1]), possibly empty.
 * num_segments is at most 2^32 - 1.  Scratch as for the other sorts, sized
 * by ps_opencl_segments_scratch_size().
 *
 * The call always waits once, for a small read: the offsets are classified
 * by size on the device and the counts read back to size the launches
 * that follow.  It returns with the rest enqueued and flushed.  Offsets
 * found invalid there give PS_ERR_INVALID_ARG with the buffers untouched
 * (nothing that moves keys had been enqueued).  With n < 2 there is
 * nothing to sort: the call returns PS_OK at once, without reading the
 * offsets or waiting.
 */
static inline int ps_opencl_sort_segments(cl_command_queue queue, cl_mem keys,
                                          size_t key_offset, cl_mem values,
                                          size_t value_offset, size_t value_size,
                                          size_t n, cl_mem offsets,
                                          size_t num_segments, ps_type type,
                                          unsigned flags, cl_mem scratch,
                                          size_t scratch_bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->sort_segments(queue, keys, key_offset, values,
                                        value_offset, value_size, n, offsets,
                                        num_segments, type, flags, scratch,
                                        scratch_bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

/* Bytes of scratch for ps_opencl_topk() of n elements of `type` on
 * queue's device, in *bytes (value_size 0, 4 or 8 is checked but does not
 * change them, nor does k): a copy of the keys, their 64-bit indices and
 * the sort of the two.  0 when n is 0. */
static inline int ps_opencl_topk_scratch_size(cl_command_queue queue, size_t n,
                                              ps_type type, size_t value_size,
                                              size_t *bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->topk_scratch_size(queue, n, type, value_size, bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

/*
 * ps_topk() on buffers: the first min(k, n) elements of the stable sorted
 * order of the n keys of keys[key_offset ..] (the smallest first, the
 * largest first with PS_DESCENDING) go to out_keys[out_key_offset ..],
 * their values (values and out_values, value_size 4 or 8; both NULL and
 * value_size 0 for none) to out_values[out_value_offset ..], and their
 * indices (cl_ulong, from 0 at key_offset) to out_index[out_index_offset
 * ..] unless out_index is NULL.  Bit for bit the first min(k, n) of a
 * stable sort: floats by totalOrder, equal keys by lower index first in
 * both directions.  keys and values are only read.  k is any value: k = 0
 * or n = 0 is PS_OK with nothing enqueued, k > n gives n results.
 *
 * As the sorts above: enqueued on queue and flushed, scratch from
 * ps_opencl_topk_scratch_size() (or NULL), every range inside its buffer
 * (the outputs min(k, n) elements each) and no two sharing a byte, an
 * output with an input, another output or the scratch included
 * (PS_ERR_INVALID_ARG before anything is enqueued).  For n above one tile
 * it waits once for a small read, as ps_opencl_sort_pairs() does.  The
 * outputs are written only by the last kernel: on every error before it
 * (every argument error, offsets refused, a failure of an earlier step)
 * they are unchanged; if that kernel itself fails, they are unspecified.
 * How it works and what it moves: doc/topk.md.
 */
static inline int ps_opencl_topk(cl_command_queue queue, cl_mem keys,
                                 size_t key_offset, cl_mem values,
                                 size_t value_offset, size_t value_size,
                                 size_t n, size_t k, cl_mem out_keys,
                                 size_t out_key_offset, cl_mem out_values,
                                 size_t out_value_offset, cl_mem out_index,
                                 size_t out_index_offset, ps_type type,
                                 unsigned flags, cl_mem scratch,
                                 size_t scratch_bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->topk(queue, keys, key_offset, values, value_offset,
                               value_size, n, k, out_keys, out_key_offset,
                               out_values, out_value_offset, out_index,
                               out_index_offset, type, flags, scratch,
                               scratch_bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

/* Bytes of scratch for ps_opencl_topk_segments() of n elements, as
 * ps_opencl_topk_scratch_size() (independent of k and the offsets). */
static inline int ps_opencl_topk_segments_scratch_size(cl_command_queue queue,
                                                       size_t n, ps_type type,
                                                       size_t value_size,
                                                       size_t *bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->topk_segments_scratch_size(queue, n, type, value_size,
                                                     bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

/*
 * ps_topk_segments() on buffers: ps_opencl_topk() on each segment, with
 * offsets as ps_opencl_sort_segments() takes them (num_segments + 1
 * cl_ulong words from 0 to n, not decreasing, relative to key_offset and
 * value_offset; num_segments 1 .. 2^32 - 1).  Segment i's first
 * min(k, len_i) results go to slots i * k .. i * k + min(k, len_i) - 1 of
 * each output (from its offset), indices into the whole array; slots past
 * a short segment's results, and an empty segment's, are not written.
 * Each output must hold (num_segments - 1) * k + min(k, n) elements, the
 * last slot any offsets can reach (PS_ERR_INVALID_ARG when that many
 * 8-byte slots would not fit in size_t).  Like ps_opencl_sort_segments()
 * it waits once (n >= 2), and offsets found invalid there give
 * PS_ERR_INVALID_ARG with the outputs unchanged.  With n < 2 the offsets
 * are not checked: n = 1 writes its key to slot s * k of the segment s
 * that holds it.
 */
static inline int ps_opencl_topk_segments(cl_command_queue queue, cl_mem keys,
                                          size_t key_offset, cl_mem values,
                                          size_t value_offset, size_t value_size,
                                          size_t n, cl_mem offsets,
                                          size_t num_segments, size_t k,
                                          cl_mem out_keys, size_t out_key_offset,
                                          cl_mem out_values,
                                          size_t out_value_offset,
                                          cl_mem out_index,
                                          size_t out_index_offset, ps_type type,
                                          unsigned flags, cl_mem scratch,
                                          size_t scratch_bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->topk_segments(queue, keys, key_offset, values,
                                        value_offset, value_size, n, offsets,
                                        num_segments, k, out_keys,
                                        out_key_offset, out_values,
                                        out_value_offset, out_index,
                                        out_index_offset, type, flags, scratch,
                                        scratch_bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

/*
 * Records and columns on buffers: ps_sort_records(), ps_argsort_records()
 * and ps_argsort_columns() (portsort.h, doc/records.md) with the data in
 * OpenCL buffers and the descriptions (fields, columns, column_offsets,
 * types, flags) in host memory, read during the call only.  Same order:
 * field or column 0 most significant, each its own direction, floats by
 * totalOrder, stable; records need no alignment (any record_size >= 1),
 * a field must lie inside the record.
 *
 *  - records holds n records of record_size bytes from record
 *    record_offset (a byte offset of record_offset x record_size).
 *    sort_records permutes them in place; argsort_records writes the
 *    stable sorting permutation as cl_ulong (0 = the record at
 *    record_offset) to perm from element perm_offset and only reads the
 *    records.
 *  - argsort_columns: column i is n keys of types[i] in buffer columns[i]
 *    from element column_offsets[i] (column_offsets NULL: all 0); flags
 *    NULL is all ascending.
 *  - Scratch: ps_opencl_records_scratch_size(queue, record_size, n, ...)
 *    with the records' size for sort_records and 0 for the argsorts; it
 *    depends on n and that size only, not on the fields.  Or NULL: the
 *    call allocates it (released when the queued work is done).
 *  - How: the rows are numbered in the scratch; each 64-bit word of the
 *    keys' order images (the host form's words, lib/ps_recplan.h), least
 *    significant first, is built by one kernel launch per key reading the
 *    rows through the permutation so far, and sorted with the permutation
 *    by the stable pair sort of ps_opencl_sort_pairs(); then the
 *    permutation is copied to perm, or the records gathered through it
 *    into the scratch and copied back.  Each word's sort waits once, as
 *    ps_opencl_sort_pairs() does for n above one tile.
 *  - As the sorts above: enqueued on queue and flushed; every range inside
 *    its buffer and no two sharing a byte (records, perm, every column,
 *    scratch), else PS_ERR_INVALID_ARG before anything is enqueued; n
 *    beyond 2^32 - 1 is PS_ERR_TOO_LARGE.  A bad field (type, flags, not
 *    inside the record), record_size 0, no fields or columns, a NULL
 *    buffer with rows to sort: PS_ERR_INVALID_ARG, nothing enqueued.
 *    n < 2 (sort_records) or n = 0 (the argsorts) is PS_OK with nothing
 *    enqueued.  The caller's records or perm are written only by the last
 *    step (the copy): every error before it leaves them unchanged; if the
 *    copy itself fails they are unspecified.
 */
static inline int ps_opencl_records_scratch_size(cl_command_queue queue,
                                                 size_t record_size, size_t n,
                                                 size_t *bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->records_scratch_size(queue, record_size, n, bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

static inline int ps_opencl_sort_records(cl_command_queue queue, cl_mem records,
                                         size_t record_offset, size_t record_size,
                                         size_t n, const ps_field *fields,
                                         size_t num_fields, cl_mem scratch,
                                         size_t scratch_bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->sort_records(queue, records, record_offset, record_size,
                                       n, fields, num_fields, scratch,
                                       scratch_bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

static inline int ps_opencl_argsort_records(cl_command_queue queue,
                                            cl_mem records, size_t record_offset,
                                            size_t record_size, size_t n,
                                            const ps_field *fields,
                                            size_t num_fields, cl_mem perm,
                                            size_t perm_offset, cl_mem scratch,
                                            size_t scratch_bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->argsort_records(queue, records, record_offset,
                                          record_size, n, fields, num_fields,
                                          perm, perm_offset, scratch,
                                          scratch_bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

static inline int ps_opencl_argsort_columns(cl_command_queue queue,
                                            const cl_mem *columns,
                                            const size_t *column_offsets,
                                            const ps_type *types,
                                            const unsigned *flags,
                                            size_t num_columns, size_t n,
                                            cl_mem perm, size_t perm_offset,
                                            cl_mem scratch, size_t scratch_bytes)
{
    const ps_opencl_api *a = ps_opencl_api_get();
    return a != NULL ? a->argsort_columns(queue, columns, column_offsets, types,
                                          flags, num_columns, n, perm,
                                          perm_offset, scratch, scratch_bytes)
                     : PS_ERR_BACKEND_UNAVAILABLE;
}

#ifdef __cplusplus
}
#endif

#endif /* PORTSORT_OPENCL_H */
