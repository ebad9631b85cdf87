/*
 * portsort_gpu.h - the device API table shared by the CUDA and HIP backends.
 *
 * Applications include portsort_cuda.h or portsort_hip.h, which wrap this
 * table in functions named after their runtime; this header only declares
 * what both have in common.  It needs no GPU runtime header: device
 * pointers are void *, and a stream is the runtime's stream handle
 * (cudaStream_t / hipStream_t, both pointers) passed as void *; NULL is the
 * runtime's default (legacy) stream.
 *
 * Contract of every sort function in the table:
 *
 *  - Asynchronous.  The functions return once the work is enqueued on the
 *    stream; the result is ready when the stream reaches that point
 *    (cudaStreamSynchronize, an event, or later work on the same stream).
 *    The arrays and the scratch must stay allocated until then.  Nothing is
 *    copied to or from the host, and the host never waits for the device,
 *    except when scratch is not given (see below) on HIP, and once in
 *    sort_segments (see there).
 *  - Device.  Every pointer must be device memory of the device that is
 *    current in the calling thread, and the stream must belong to it.
 *  - Scratch.  CUB-style: call scratch_size() for the operation and n, then
 *    pass a buffer of at least that many bytes.  Or pass d_scratch = NULL:
 *    the backend then allocates scratch itself, stream-ordered (CUDA:
 *    cudaMallocAsync/cudaFreeAsync, which keeps the call asynchronous;
 *    HIP: hipMalloc, then the call waits for the stream before freeing it).
 *    Scratch is 256-byte aligned by the runtimes; any alignment of 16 bytes
 *    or more works.  One scratch buffer must not be used by two sorts that
 *    may run at the same time.
 *  - Sizes.  n is a size_t; the kernels count keys in 32 bits, so
 *    n > 4294967295 returns PS_ERR_TOO_LARGE.  n < 2 is success and enqueues
 *    nothing.
 *  - Order, stability and types as in portsort.h: every ps_type, ascending
 *    or PS_DESCENDING, stable, floats by totalOrder.  Values of sort_pairs
 *    are 4 or 8 opaque bytes each (PS_ERR_INVALID_ARG otherwise; for larger
 *    payloads sort an index with argsort and gather).
 *  - Separate arrays.  For n >= 2 the arrays of one call (d_keys,
 *    d_values or d_perm, d_offsets, and scratch_bytes of d_scratch) must
 *    not share a byte; device pointers are compared as addresses (one
 *    unified address space per process).  An overlap is PS_ERR_INVALID_ARG
 *    before anything is enqueued, with ps_error_detail() naming the two
 *    arrays.  Arrays that only touch, in one allocation, are fine.
 *  - Errors.  PS_ERR_INVALID_ARG (NULL pointer with n >= 2, bad type, flags
 *    or value size, scratch too small, arrays that overlap),
 *    PS_ERR_TOO_LARGE,
 *    PS_ERR_DEVICE_MEMORY (no scratch could be allocated),
 *    PS_ERR_DEVICE (a launch failed; ps_error_detail() has the runtime's
 *    message).  Argument errors are found before anything is enqueued, so
 *    the arrays are untouched; after a launch fails in the middle of a
 *    sort their contents are unspecified (keys may be permuted, or still
 *    in the sort's internal order-preserving encoding), as with CUB.  Errors of earlier, unrelated
 *    work on the stream may surface here, as with any CUDA call.
 *  - Threads.  Any number of threads may sort at once, on their own
 *    streams and scratch buffers.
 */
#ifndef PORTSORT_GPU_H
#define PORTSORT_GPU_H

#include <stddef.h>

#include "portsort.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever the table below changes, appended functions included
 * (a program built with this header must not call past the end of an
 * older module's table); the wrappers refuse a table with another value. */
#define PS_GPU_API_ABI 4u   /* 2: sort_segments appended; 3: topk and
                               topk_segments appended; 4: the records'
                               four functions appended */

/* What scratch_size() is asked about. */
typedef enum ps_gpu_op {
    PS_GPU_SORT_KEYS = 0,
    PS_GPU_SORT_PAIRS = 1,  /* value_size 4 or 8 */
    PS_GPU_ARGSORT = 2,
    PS_GPU_SORT_SEGMENTS = 3, /* value_size 0 (keys only), 4 or 8 */
    PS_GPU_TOPK = 4,        /* value_size 0, 4 or 8; the bytes depend on
                               neither it nor k */
    PS_GPU_TOPK_SEGMENTS = 5 /* as PS_GPU_TOPK; nor on the offsets */
} ps_gpu_op;

typedef struct ps_gpu_api {
    unsigned abi;           /* PS_GPU_API_ABI */
    const char *name;       /* "cuda" or "hip" */
    /* Bytes of scratch the operation needs for n keys of `type` (value_size
     * is checked for PS_GPU_SORT_PAIRS, the segments and the top-k; only
     * the sorts' bytes depend on it).  May be 0.  Returns PS_OK, or
     * PS_ERR_INVALID_ARG / PS_ERR_TOO_LARGE. */
    int (*scratch_size)(ps_gpu_op op, size_t n, ps_type type,
                        size_t value_size, size_t *bytes);
    /* Sort n keys at d_keys in place. */
    int (*sort_keys)(void *d_keys, size_t n, ps_type type, unsigned flags,
                     void *d_scratch, size_t scratch_bytes, void *stream);
    /* Sort n keys in place, moving the values (value_size 4 or 8) along. */
    int (*sort_pairs)(void *d_keys, void *d_values, size_t value_size,
                      size_t n, ps_type type, unsigned flags, void *d_scratch,
                      size_t scratch_bytes, void *stream);
    /* Write the stable sorting permutation, as 64-bit indices (size_t on
     * the 64-bit hosts CUDA and HIP run on), to d_perm; d_keys is only
     * read. */
    int (*argsort)(const void *d_keys, size_t *d_perm, size_t n, ps_type type,
                   unsigned flags, void *d_scratch, size_t scratch_bytes,
                   void *stream);
    /* Sort each segment [d_offsets[i], d_offsets[i + 1]) of the n keys at
     * d_keys on its own, in place, moving the values (value_size 4 or 8;
     * d_values NULL and value_size 0 for keys only) along: ps_sort_segments
     * on device arrays.  d_offsets is device memory holding num_segments + 1
     * offsets (size_t, 64-bit) that run from 0 to n without decreasing;
     * segments may be empty.  num_segments is at most 2^32 - 1.
     * Scratch: scratch_size(PS_GPU_SORT_SEGMENTS, n, type, value_size);
     * it does not depend on the offsets.
     * Unlike the other functions, this one waits once for the stream: the
     * offsets are classified by size on the device and the counts read
     * back, to size the launches that follow (CUB's DeviceSegmentedSort
     * does the same).  So it returns after every earlier piece of work on
     * the stream has finished, with the sort itself enqueued, not
     * finished.  Offsets found invalid there (decreasing, past n, not
     * from 0 to n) give PS_ERR_INVALID_ARG with the keys and values
     * untouched: nothing that moves them has been enqueued yet.  With
     * n < 2 there is nothing to sort: PS_OK at once, without reading the
     * offsets or waiting. */
    int (*sort_segments)(void *d_keys, void *d_values, size_t value_size,
                         size_t n, const size_t *d_offsets, size_t num_segments,
                         ps_type type, unsigned flags, void *d_scratch,
                         size_t scratch_bytes, void *stream);
    /* ps_topk on device arrays: the first min(k, n) elements of the stable
     * sorted order of the n keys at d_keys (the smallest first, the
     * largest first with PS_DESCENDING) go to d_out_keys, their values
     * (d_values and d_out_values, value_size 4 or 8; both NULL and
     * value_size 0 for none) to d_out_values, and their indices into
     * d_keys (64-bit, size_t) to d_out_index unless it is NULL.  Bit for
     * bit the first min(k, n) of argsort / sort_pairs: floats by
     * totalOrder, equal keys by lower index first in both directions.
     * d_keys and d_values are only read.  k is any value: k = 0 (or n = 0)
     * is PS_OK with nothing enqueued; k > n gives n results.
     * Scratch: scratch_size(PS_GPU_TOPK, n, type, value_size), which does
     * not depend on k: a copy of the keys and their indices, sorted as
     * pairs, then one gather writes the results (doc/topk.md counts the
     * traffic).  The contract above holds, with these differences: n = 1
     * enqueues work (a result to write), and the separate arrays are
     * d_keys, d_values, d_out_keys, d_out_values and d_out_index
     * (min(k, n) elements each for the outputs) and the scratch: an
     * output sharing a byte with an input, another output or the scratch
     * is PS_ERR_INVALID_ARG before anything is enqueued.  The outputs are
     * written only by the last kernel: every error before it (argument
     * errors, offsets refused, a failed copy, launch or sort) leaves them
     * untouched; a failure of that kernel leaves them unspecified. */
    int (*topk)(const void *d_keys, const void *d_values, size_t value_size,
                size_t n, size_t k, void *d_out_keys, void *d_out_values,
                size_t *d_out_index, ps_type type, unsigned flags,
                void *d_scratch, size_t scratch_bytes, void *stream);
    /* ps_topk_segments on device arrays: topk on each segment
     * [d_offsets[i], d_offsets[i + 1]) of the n keys, with d_offsets as in
     * sort_segments (device memory, num_segments + 1 64-bit offsets from 0
     * to n, not decreasing; num_segments 1 .. 2^32 - 1).  Segment i's first
     * min(k, len_i) results go to slots i * k .. i * k + min(k, len_i) - 1
     * of the outputs, with indices into the whole array; slots past a
     * short segment's results, and an empty segment's, are not written.
     * Each output must hold (num_segments - 1) * k + min(k, n) elements,
     * the last slot any offsets can reach, which is its span in the
     * overlap check (PS_ERR_INVALID_ARG when that many 8-byte slots would
     * not fit in size_t).  Scratch: scratch_size(PS_GPU_TOPK_SEGMENTS,
     * ...).  Like sort_segments it waits once for the stream (n >= 2),
     * and offsets found invalid there are PS_ERR_INVALID_ARG with the
     * outputs untouched.  With n < 2 the offsets are not checked: n = 1
     * writes its key to slot s * k of the segment s that holds it. */
    int (*topk_segments)(const void *d_keys, const void *d_values,
                         size_t value_size, size_t n, const size_t *d_offsets,
                         size_t num_segments, size_t k, void *d_out_keys,
                         void *d_out_values, size_t *d_out_index, ps_type type,
                         unsigned flags, void *d_scratch, size_t scratch_bytes,
                         void *stream);
    /*
     * Records and columns on the device: ps_sort_records,
     * ps_argsort_records and ps_argsort_columns (portsort.h,
     * doc/records.md) with the records, the columns and the permutation
     * in device memory and their descriptions (fields, the d_columns
     * array of device pointers, types, flags) in host memory, read during
     * the call only.  Same order: field or column 0 most significant, each
     * in its own direction, floats by totalOrder, stable; records need no
     * alignment (any record_size >= 1), a field must lie inside the
     * record.
     *
     * Scratch: records_scratch_size(record_size, n, &bytes), with the
     * records' size for sort_records and 0 for the two argsorts; it
     * depends on n and that size only, not on the fields.  How: the rows
     * are numbered in the scratch; each 64-bit word of the keys' order
     * images (the host form's words, lib/ps_recplan.h), least significant
     * first, is built by a kernel launch per key reading the rows through
     * the permutation so far and sorted with the permutation by the stable
     * pair sort of sort_pairs; then the permutation is copied to d_perm
     * (64-bit indices), or the records are gathered through it into the
     * scratch and copied back.  Nothing is read back: the calls never
     * wait (HIP without scratch aside, as above).
     *
     * The contract above holds, with these differences: n beyond
     * 2^32 - 1 is PS_ERR_TOO_LARGE; sort_records with n < 2 and the
     * argsorts with n = 0 are PS_OK with nothing enqueued (argsorts of
     * n = 1 write d_perm[0] = 0); a bad field (type, flags, not inside
     * the record), record_size 0, no fields or columns, or a NULL array
     * with rows to sort is PS_ERR_INVALID_ARG before anything is
     * enqueued; the separate arrays are d_records (n x record_size
     * bytes), d_perm (n x 8), every column and the scratch.  The caller's
     * records or d_perm are written only by the last step (the copy):
     * every error before it leaves them untouched; a failure of that copy
     * leaves them unspecified.
     */
    int (*records_scratch_size)(size_t record_size, size_t n, size_t *bytes);
    int (*sort_records)(void *d_records, size_t record_size, size_t n,
                        const ps_field *fields, size_t num_fields,
                        void *d_scratch, size_t scratch_bytes, void *stream);
    int (*argsort_records)(const void *d_records, size_t record_size, size_t n,
                           const ps_field *fields, size_t num_fields,
                           size_t *d_perm, void *d_scratch,
                           size_t scratch_bytes, void *stream);
    int (*argsort_columns)(const void *const *d_columns, const ps_type *types,
                           const unsigned *flags, size_t num_columns, size_t n,
                           size_t *d_perm, void *d_scratch,
                           size_t scratch_bytes, void *stream);
} ps_gpu_api;

/* The table of backend `name`, checked for the ABI; NULL with
 * ps_error_detail() saying why (no driver, no device, not built...). */
static inline const ps_gpu_api *ps_gpu_api_get(const char *name)
{
    const ps_gpu_api *api = (const ps_gpu_api *)ps_device_api(name);
    if (api != NULL && api->abi != PS_GPU_API_ABI)
        return NULL;
    return api;
}

/*
 * PS_GPU_WRAPPERS(rt) defines, for backend "rt", the functions
 * portsort_cuda.h and portsort_hip.h document: ps_<rt>_api_get(),
 * ps_<rt>_available(), ps_<rt>_scratch_size(), ps_<rt>_sort_keys(),
 * ps_<rt>_sort_pairs(), ps_<rt>_argsort(), ps_<rt>_sort_segments(),
 * ps_<rt>_topk(), ps_<rt>_topk_segments(), ps_<rt>_records_scratch_size(),
 * ps_<rt>_sort_records(), ps_<rt>_argsort_records() and
 * ps_<rt>_argsort_columns(), each calling the table's
 * function of the same name, or returning PS_ERR_BACKEND_UNAVAILABLE when
 * the backend cannot run here.  One macro, so the two headers cannot drift.
 */
#define PS_GPU_WRAPPERS(rt)                                                  \
static inline const ps_gpu_api *ps_##rt##_api_get(void)                      \
{                                                                            \
    return ps_gpu_api_get(#rt);                                              \
}                                                                            \
static inline int ps_##rt##_available(void)                                  \
{                                                                            \
    return ps_##rt##_api_get() != NULL;                                      \
}                                                                            \
static inline int ps_##rt##_scratch_size(ps_gpu_op op, size_t n,             \
                                         ps_type type, size_t value_size,    \
                                         size_t *bytes)                      \
{                                                                            \
    const ps_gpu_api *a = ps_##rt##_api_get();                               \
    return a != NULL ? a->scratch_size(op, n, type, value_size, bytes)       \
                     : PS_ERR_BACKEND_UNAVAILABLE;                           \
}                                                                            \
static inline int ps_##rt##_sort_keys(void *d_keys, size_t n, ps_type type,  \
                                      unsigned flags, void *d_scratch,       \
                                      size_t scratch_bytes, void *stream)    \
{                                                                            \
    const ps_gpu_api *a = ps_##rt##_api_get();                               \
    return a != NULL ? a->sort_keys(d_keys, n, type, flags, d_scratch,       \
                                    scratch_bytes, stream)                   \
                     : PS_ERR_BACKEND_UNAVAILABLE;                           \
}                                                                            \
static inline int ps_##rt##_sort_pairs(void *d_keys, void *d_values,         \
                                       size_t value_size, size_t n,          \
                                       ps_type type, unsigned flags,         \
                                       void *d_scratch, size_t scratch_bytes,\
                                       void *stream)                         \
{                                                                            \
    const ps_gpu_api *a = ps_##rt##_api_get();                               \
    return a != NULL ? a->sort_pairs(d_keys, d_values, value_size, n, type,  \
                                     flags, d_scratch, scratch_bytes, stream)\
                     : PS_ERR_BACKEND_UNAVAILABLE;                           \
}                                                                            \
static inline int ps_##rt##_argsort(const void *d_keys, size_t *d_perm,      \
                                    size_t n, ps_type type, unsigned flags,  \
                                    void *d_scratch, size_t scratch_bytes,   \
                                    void *stream)                            \
{                                                                            \
    const ps_gpu_api *a = ps_##rt##_api_get();                               \
    return a != NULL ? a->argsort(d_keys, d_perm, n, type, flags, d_scratch, \
                                  scratch_bytes, stream)                     \
                     : PS_ERR_BACKEND_UNAVAILABLE;                           \
}                                                                            \
static inline int ps_##rt##_sort_segments(void *d_keys, void *d_values,      \
                                          size_t value_size, size_t n,       \
                                          const size_t *d_offsets,           \
                                          size_t num_segments, ps_type type, \
                                          unsigned flags, void *d_scratch,   \
                                          size_t scratch_bytes, void *stream)\
{                                                                            \
    const ps_gpu_api *a = ps_##rt##_api_get();                               \
    return a != NULL ? a->sort_segments(d_keys, d_values, value_size, n,     \
                                        d_offsets, num_segments, type,       \
                                        flags, d_scratch, scratch_bytes,     \
                                        stream)                              \
                     : PS_ERR_BACKEND_UNAVAILABLE;                           \
}                                                                            \
static inline int ps_##rt##_topk(const void *d_keys, const void *d_values,   \
                                 size_t value_size, size_t n, size_t k,      \
                                 void *d_out_keys, void *d_out_values,       \
                                 size_t *d_out_index, ps_type type,          \
                                 unsigned flags, void *d_scratch,            \
                                 size_t scratch_bytes, void *stream)         \
{                                                                            \
    const ps_gpu_api *a = ps_##rt##_api_get();                               \
    return a != NULL ? a->topk(d_keys, d_values, value_size, n, k,           \
                               d_out_keys, d_out_values, d_out_index, type,  \
                               flags, d_scratch, scratch_bytes, stream)      \
                     : PS_ERR_BACKEND_UNAVAILABLE;                           \
}                                                                            \
static inline int ps_##rt##_topk_segments(const void *d_keys,                \
                                          const void *d_values,              \
                                          size_t value_size, size_t n,       \
                                          const size_t *d_offsets,           \
                                          size_t num_segments, size_t k,     \
                                          void *d_out_keys,                  \
                                          void *d_out_values,                \
                                          size_t *d_out_index, ps_type type, \
                                          unsigned flags, void *d_scratch,   \
                                          size_t scratch_bytes, void *stream)\
{                                                                            \
    const ps_gpu_api *a = ps_##rt##_api_get();                               \
    return a != NULL ? a->topk_segments(d_keys, d_values, value_size, n,     \
                                        d_offsets, num_segments, k,          \
                                        d_out_keys, d_out_values,            \
                                        d_out_index, type, flags, d_scratch, \
                                        scratch_bytes, stream)               \
                     : PS_ERR_BACKEND_UNAVAILABLE;                           \
}                                                                            \
static inline int ps_##rt##_records_scratch_size(size_t record_size,         \
                                                 size_t n, size_t *bytes)    \
{                                                                            \
    const ps_gpu_api *a = ps_##rt##_api_get();                               \
    return a != NULL ? a->records_scratch_size(record_size, n, bytes)        \
                     : PS_ERR_BACKEND_UNAVAILABLE;                           \
}                                                                            \
static inline int ps_##rt##_sort_records(void *d_records, size_t record_size, \
                                         size_t n, const ps_field *fields,   \
                                         size_t num_fields, void *d_scratch, \
                                         size_t scratch_bytes, void *stream) \
{                                                                            \
    const ps_gpu_api *a = ps_##rt##_api_get();                               \
    return a != NULL ? a->sort_records(d_records, record_size, n, fields,    \
                                       num_fields, d_scratch, scratch_bytes, \
                                       stream)                               \
                     : PS_ERR_BACKEND_UNAVAILABLE;                           \
}                                                                            \
static inline int ps_##rt##_argsort_records(const void *d_records,           \
                                            size_t record_size, size_t n,    \
                                            const ps_field *fields,          \
                                            size_t num_fields, size_t *d_perm,\
                                            void *d_scratch,                 \
                                            size_t scratch_bytes,            \
                                            void *stream)                    \
{                                                                            \
    const ps_gpu_api *a = ps_##rt##_api_get();                               \
    return a != NULL ? a->argsort_records(d_records, record_size, n, fields, \
                                          num_fields, d_perm, d_scratch,     \
                                          scratch_bytes, stream)             \
                     : PS_ERR_BACKEND_UNAVAILABLE;                           \
}                                                                            \
static inline int ps_##rt##_argsort_columns(const void *const *d_columns,    \
                                            const ps_type *types,            \
                                            const unsigned *flags,           \
                                            size_t num_columns, size_t n,    \
                                            size_t *d_perm, void *d_scratch, \
                                            size_t scratch_bytes,            \
                                            void *stream)                    \
{                                                                            \
    const ps_gpu_api *a = ps_##rt##_api_get();                               \
    return a != NULL ? a->argsort_columns(d_columns, types, flags,           \
                                          num_columns, n, d_perm, d_scratch, \
                                          scratch_bytes, stream)             \
                     : PS_ERR_BACKEND_UNAVAILABLE;                           \
}

#ifdef __cplusplus
}
#endif

#endif /* PORTSORT_GPU_H */
