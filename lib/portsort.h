/*
 * portsort.h - public interface of libportsort.
 *
 * libportsort sorts arrays of numeric keys, and keys with values, on the
 * fastest backend usable where the program runs (CUDA, HIP, OpenCL, OpenMP
 * or the serial reference sort).  The backend is chosen once per process,
 * either by ps_init() or by the first sort, from the environment variable
 * PORTSORT_BACKEND (auto, serial, openmp, opencl, cuda or hip).
 *
 * Contract shared by every sort function below:
 *
 *  - Order.  Integers sort by value.  Floats (f16, bf16, f32, f64) sort by
 *    IEEE 754 totalOrder:
 *    -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN; NaNs of one sign
 *    are ordered by payload; bit patterns, NaN payloads included, are
 *    preserved exactly.
 *  - Stability.  Equal keys keep their input order, in ascending and in
 *    descending sorts alike (a descending sort is not a reversed ascending
 *    sort).
 *  - Nothing lost.  On any error every array the caller passed is exactly as
 *    it was before the call, and the returned status says why.  n == 0 is
 *    success and touches nothing (pointers may then be NULL).
 *  - Separate arrays.  The arrays passed to one call (keys, values, perm,
 *    offsets) must not share a byte: any overlap, an exact alias or a
 *    single byte, is PS_ERR_INVALID_ARG with nothing changed, and
 *    ps_error_detail() names the two arrays and their byte ranges.  An
 *    array of 0 bytes (n == 0) overlaps nothing; arrays that only touch
 *    (values starting where keys end, in one allocation) are fine.
 *  - Threads.  Every function may be called from several threads at once.
 *  - fork().  A child process may keep sorting on the serial and OpenMP
 *    backends, whenever it was forked (during another thread's sort, or
 *    after the program's own OpenMP regions, included); the OpenMP backend
 *    sorts on the child's calling thread alone there (GNU libgomp cannot
 *    start threads in a child whose parent had them).  Once a GPU or
 *    OpenCL backend module has been loaded, a forked child gets
 *    PS_ERR_BACKEND_UNAVAILABLE from it (device runtimes do not survive
 *    fork), and its exit never calls into that runtime; the parent is
 *    unaffected.
 *  - Silence.  The library never prints, unless PORTSORT_VERBOSE=1 is set,
 *    and never exits the process: where the OpenMP runtime cannot start
 *    the threads a sort wants (a limit on threads or memory), the sort runs
 *    on those it can, down to one.
 *  - Environment.  Every variable is read with secure_getenv (or, without
 *    it, not at all when real and effective ids differ): a setuid or
 *    setgid program's caller cannot choose its backend or the modules it
 *    loads.  PORTSORT_MODULE_PATH entries that are not absolute are not
 *    searched.
 *  - Loading.  The library stays loaded once loaded: dlclose() leaves it in
 *    place (its OpenMP runtime's threads run its code).
 *
 * All functions return a ps_status value (PS_OK on success).
 */
#ifndef PORTSORT_H
#define PORTSORT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* PS_API marks the exported symbols; everything else in the library is
 * built with hidden visibility. */
#if defined(_WIN32)
#  define PS_API
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define PS_API __attribute__((visibility("default")))
#else
#  define PS_API
#endif

/* Element types of the keys.  The values are fixed and never renumbered.
 * The half-precision types are passed as arrays of 16-bit words holding the
 * bit patterns (uint16_t, _Float16 or __bf16 alike): no compiler support for
 * half-precision arithmetic is needed by the caller or the library. */
typedef enum ps_type {
    PS_U8 = 1, PS_U16, PS_U32, PS_U64,
    PS_I8, PS_I16, PS_I32, PS_I64,
    PS_F32, PS_F64,
    PS_F16 = 11,    /* IEEE 754 binary16, as 16-bit words */
    PS_BF16 = 12    /* bfloat16 (the top half of a binary32), as 16-bit words */
} ps_type;

/* Flags.  Ascending order is 0. */
#define PS_DESCENDING 1u

/* Status codes.  The values are fixed and never renumbered. */
typedef enum ps_status {
    PS_OK = 0,
    PS_ERR_INVALID_ARG = 1,         /* NULL with n > 0, unknown type or flag, value_size 0, ... */
    PS_ERR_NO_MEMORY = 2,           /* host allocation failed */
    PS_ERR_DEVICE_MEMORY = 3,       /* device allocation failed */
    PS_ERR_BACKEND_UNAVAILABLE = 4, /* requested backend unknown, not built, or no device */
    PS_ERR_DEVICE = 5,              /* runtime or kernel failure on the device */
    PS_ERR_TOO_LARGE = 6            /* n beyond what the backend can address */
} ps_status;

/*
 * ps_init - choose the backend now instead of on the first sort.
 *
 * Optional.  Reads PORTSORT_BACKEND once per process ("auto" when unset or
 * empty): "auto" tries the backends from the highest priority down (CUDA,
 * then HIP, then OpenCL on a GPU device, then OpenMP, then serial, and any
 * other module by the priority it declares), taking a device backend only
 * when its device is a GPU.  A named backend that is unknown,
 * not built, or has no usable device is an error: ps_init and every later
 * sort return PS_ERR_BACKEND_UNAVAILABLE, and ps_error_detail() says why.
 * Before that, every PORTSORT_* variable the library knows is checked,
 * whichever backend it belongs to and whichever is chosen (README.md,
 * "Environment", lists what each accepts; unset or empty means the
 * default): a malformed one makes ps_init and every later sort return
 * PS_ERR_INVALID_ARG, ps_error_detail() naming the variable, its value
 * and what is accepted.
 * The choice is made exactly once even when several threads race to it;
 * later calls return the same status.  With PORTSORT_VERBOSE=1 the choice
 * and the reason each candidate was skipped are printed on stderr.
 */
PS_API int ps_init(void);

/*
 * ps_backend_name - name of the chosen backend: "serial", "openmp",
 * "opencl", "cuda" or "hip".  Chooses the backend if that has not happened
 * yet.  Returns "none" when the choice failed.  Never NULL; the string is
 * static.
 */
PS_API const char *ps_backend_name(void);

/*
 * ps_strerror - a short English description of a status value.  Never NULL;
 * unknown values get a generic text.  The string is static.
 */
PS_API const char *ps_strerror(int status);

/*
 * ps_error_detail - a message for the last call in this thread that failed,
 * saying what went wrong in more detail than ps_strerror() (which argument,
 * which backend and why it is unusable, the device runtime's error...).
 * Returns "" when no call in this thread has failed.  The string belongs to
 * the library and stays valid until the next libportsort call in this
 * thread.  Never NULL.
 */
PS_API const char *ps_error_detail(void);

/*
 * ps_sort_keys - sort n keys of the given type in place.
 *
 * keys:  array of n elements of `type`, aligned as that type requires
 *        (a pointer to such an array always is); may be NULL when n == 0.
 * flags: 0 for ascending, PS_DESCENDING for descending.
 *
 * Errors: PS_ERR_INVALID_ARG (keys NULL with n > 0, keys not aligned to the
 * key size, unknown type or flag, n * sizeof(key) overflows size_t),
 * PS_ERR_NO_MEMORY, and the backend's
 * PS_ERR_DEVICE_MEMORY, PS_ERR_DEVICE, PS_ERR_TOO_LARGE,
 * PS_ERR_BACKEND_UNAVAILABLE.  On error keys are unchanged.
 *
 * A kernel fault on a GPU (PS_ERR_DEVICE, "the device is lost") kills the
 * device's context for the rest of the process.  After it, under
 * PORTSORT_BACKEND=auto every sort runs on the CPU backend (and
 * ps_backend_name() names it); with the GPU backend named, every sort
 * fails with PS_ERR_DEVICE and the reason, never touching the device
 * again; ps_backends() reports the GPU backend unusable, saying why.
 * The same holds for ps_sort_pairs and ps_argsort.
 */
PS_API int ps_sort_keys(void *keys, size_t n, ps_type type, unsigned flags);

/*
 * ps_sort_pairs - sort n keys in place and move their values with them.
 *
 * values:     array of n values of value_size bytes each; value i belongs
 *             to key i.  Values are opaque bytes and may be of any size
 *             >= 1, with no alignment required; sizes 4 and 8 take the
 *             fastest paths when values is aligned to value_size.
 *
 * The sort is stable: among equal keys the values keep their input order.
 * Errors as ps_sort_keys, plus PS_ERR_INVALID_ARG for values NULL with
 * n > 0, value_size 0, n * value_size overflowing size_t, or values
 * sharing a byte with keys (ps_sort_pairs(k, k, ...) included).  On error
 * keys and values are unchanged.
 */
PS_API int ps_sort_pairs(void *keys, void *values, size_t value_size, size_t n,
                         ps_type type, unsigned flags);

/*
 * ps_argsort - write the stable sorting permutation of keys into perm.
 *
 * After success, keys[perm[0]], keys[perm[1]], ... is the sorted sequence,
 * and among equal keys perm lists their indices in increasing order.  keys
 * are only read.  Errors as ps_sort_keys, plus PS_ERR_INVALID_ARG for perm
 * NULL with n > 0 or perm sharing a byte with keys; on error perm is
 * unchanged.
 */
PS_API int ps_argsort(const void *keys, size_t *perm, size_t n, ps_type type,
                      unsigned flags);

/*
 * ps_sort_segments - sort each segment of an array on its own, in one call.
 *
 * offsets:      num_segments + 1 entries, non-decreasing, from
 *               offsets[0] == 0 to offsets[num_segments] == n.  Segment i
 *               is elements offsets[i] to offsets[i + 1] - 1; empty
 *               segments are allowed.  May be NULL only when num_segments
 *               and n are both 0.
 * values:       NULL with value_size 0 to sort keys only; otherwise n
 *               values of value_size bytes that move with their keys, as
 *               in ps_sort_pairs.
 *
 * Each segment ends sorted under the contract above (totalOrder, stable,
 * descending with PS_DESCENDING); no element leaves its segment.  The
 * result is what a loop of ps_sort_keys / ps_sort_pairs over the segments
 * would give, in one call: many small segments (the rows of a CSR sparse
 * matrix) are sorted in parallel, one segment to a thread, and long ones
 * with the whole backend.
 *
 * Errors as ps_sort_pairs, plus PS_ERR_INVALID_ARG for offsets that are
 * NULL, do not start at 0, decrease or do not end at n, num_segments + 1
 * offsets that would not fit in memory, values given with value_size 0 or
 * NULL with value_size > 0, and any two of keys, values and the
 * num_segments + 1 offsets sharing a byte (the offsets are read all
 * through the sort).  On error keys, values and offsets are unchanged.  Every backend sorts
 * the segments itself: the device backends (CUDA, HIP, OpenCL) sort all of
 * them on their device, in one launch per size class, however short.
 */
PS_API int ps_sort_segments(void *keys, void *values, size_t value_size,
                            size_t n, const size_t *offsets,
                            size_t num_segments, ps_type type, unsigned flags);

/*
 * ps_topk - the first k elements of the stable sorted order, without
 * sorting the rest.
 *
 * keys:       n keys of `type`, aligned as ps_sort_keys requires; only
 *             read.
 * values:     NULL (value_size then 0), or n values of value_size bytes,
 *             any size >= 1, no alignment required; only read.
 * k:          how many results: min(k, n) are written.  Any value, up to
 *             SIZE_MAX; k == 0 writes nothing and succeeds.
 * out_keys:   min(k, n) keys: the smallest first (the largest first with
 *             PS_DESCENDING), in sorted order, bit patterns preserved.
 * out_values: NULL exactly when values is NULL; else the min(k, n) values
 *             of the keys in out_keys.
 * out_index:  NULL, or min(k, n) indices into keys of the results.
 *
 * The results are the first min(k, n) elements of what ps_argsort /
 * ps_sort_pairs give, bit for bit: same order (totalOrder for floats),
 * and among equal keys the lower index first, in both directions.  The
 * work is two reads of the keys (a count of their leading bits, then a
 * split), more passes over only those that share the k-th key's leading
 * bits, and a sort of the min(k, n) results on the chosen backend: for k
 * much smaller than n it is several times faster than sorting, except on
 * keys with few distinct values, where a sort (which stops early on
 * them) can be faster (doc/topk.md, "ties").  It takes
 * up to n indices of scratch (when most keys share the k-th key's leading
 * bits) plus min(k, n) keys and indices.
 *
 * Errors: as ps_sort_keys for keys, type and flags; PS_ERR_INVALID_ARG
 * for values given with value_size 0 or NULL with value_size > 0,
 * n * value_size overflowing size_t, out_keys NULL with results to write,
 * out_values NULL with values given or given without values, and any
 * two of keys, values, out_keys, out_values and out_index sharing a byte
 * (inputs with outputs, outputs among themselves, keys with values; the
 * outputs' span is min(k, n) elements); PS_ERR_TOO_LARGE when n indices
 * and keys would not fit in size_t; PS_ERR_NO_MEMORY; and the backend's
 * errors (the results are sorted on it).  On any error the outputs are
 * unchanged.
 */
PS_API int ps_topk(const void *keys, const void *values, size_t value_size,
                   size_t n, size_t k, void *out_keys, void *out_values,
                   size_t *out_index, ps_type type, unsigned flags);

/*
 * ps_topk_segments - ps_topk on each segment of an array, in one call.
 *
 * offsets:    num_segments + 1 entries as in ps_sort_segments (from 0 to n,
 *             non-decreasing); only read.
 *
 * Segment i's first min(k, len_i) elements (len_i = offsets[i + 1] -
 * offsets[i]), in the order ps_topk gives them for that segment alone, go
 * to slots i * k .. i * k + min(k, len_i) - 1 of out_keys, out_values and
 * out_index; out_index holds indices into the whole array (offsets[i]
 * plus the index in the segment).  Slots past a short segment's results
 * are not written, nor is anything for an empty segment: num_segments * k
 * slots always suffice, and the outputs need room only up to the last
 * non-empty segment's last result, which is their span in the overlap
 * check.
 *
 * Errors as ps_topk, plus those of ps_sort_segments for offsets
 * (PS_ERR_INVALID_ARG: NULL, not from 0 to n, decreasing, too many to fit
 * in memory, sharing a byte with any other array), and PS_ERR_INVALID_ARG
 * when the slots written would not fit in size_t bytes (a segment index
 * times k).  On any error the outputs are unchanged.
 */
PS_API int ps_topk_segments(const void *keys, const void *values,
                            size_t value_size, size_t n, const size_t *offsets,
                            size_t num_segments, size_t k, void *out_keys,
                            void *out_values, size_t *out_index, ps_type type,
                            unsigned flags);

/*
 * ps_field - one key of a record: the field of `type` at byte `offset` of
 * every record, sorted ascending (flags 0) or with PS_DESCENDING.
 */
typedef struct ps_field {
    size_t offset;
    ps_type type;
    unsigned flags;
} ps_field;

/*
 * ps_sort_records - sort n records of record_size bytes in place by
 * several fields, fields[0] most significant.
 *
 * Each field is compared in its own order: its type's (integers by value,
 * floats by totalOrder, as ps_sort_keys) and its own direction; records
 * equal in every field keep their input order (stable, whatever the
 * directions).  Records need no alignment and fields may sit at any
 * offset (packed structs included); a field must lie inside the record
 * (offset + its size <= record_size).  Fields may overlap each other.
 * Consecutive fields are sorted together when their keys fit in 64 bits
 * (u16 + i32 + f16: one radix sort); a wider combination is sorted by its
 * first 64-bit group, then by each next group only among records still
 * equal (a segmented sort), and not at all once all records differ; each
 * sort runs on the chosen backend.  Scratch: n records plus 25 bytes per
 * record.
 *
 * Errors: PS_ERR_INVALID_ARG for records NULL with n > 0, record_size 0,
 * n * record_size overflowing size_t, fields NULL or num_fields 0, a field
 * with an unknown type, flags other than PS_DESCENDING, or lying outside
 * the record, and records sharing a byte with fields; PS_ERR_NO_MEMORY,
 * PS_ERR_TOO_LARGE, and the backend's errors.  On error the records are
 * unchanged.
 */
PS_API int ps_sort_records(void *records, size_t record_size, size_t n,
                           const ps_field *fields, size_t num_fields);

/*
 * ps_argsort_records - the stable sorting permutation of n records (as
 * ps_sort_records orders them) into perm; records are only read.
 *
 * Errors as ps_sort_records, plus PS_ERR_INVALID_ARG for perm NULL with
 * n > 0 or perm sharing a byte with records or fields.  On error perm is
 * unchanged.
 */
PS_API int ps_argsort_records(const void *records, size_t record_size,
                              size_t n, const ps_field *fields,
                              size_t num_fields, size_t *perm);

/*
 * ps_argsort_columns - the stable sorting permutation of n rows given as
 * num_columns columns, column 0 most significant (NumPy's lexsort takes
 * its keys the other way round, last most significant).
 *
 * columns:  num_columns pointers, column c holding n keys of types[c]; no
 *           alignment required; only read.
 * flags:    NULL (every column ascending), or num_columns entries of 0 or
 *           PS_DESCENDING.
 *
 * Rows equal in every column keep their index order.  Errors:
 * PS_ERR_INVALID_ARG for columns or types NULL, num_columns 0, a column
 * NULL with n > 0, an unknown type or flag, perm NULL with n > 0, and any
 * two of perm, the columns, and the columns, types and flags arrays
 * sharing a byte; PS_ERR_NO_MEMORY, PS_ERR_TOO_LARGE, and the backend's
 * errors.  On error perm is unchanged.
 */
PS_API int ps_argsort_columns(const void *const *columns, const ps_type *types,
                              const unsigned *flags, size_t num_columns,
                              size_t n, size_t *perm);

/*
 * ps_sort_strings - sort n NUL-terminated strings by permuting the array of
 * pointers to them.
 *
 * strings: n pointers, none NULL, each to a NUL-terminated string; the
 *          strings are only read, the pointers are reordered in place.
 *          May be NULL when n == 0.
 * flags:   0 for ascending, PS_DESCENDING for descending.
 *
 * Order: bytewise, the bytes as unsigned (0x80..0xff after ASCII), a
 * proper prefix before every longer string that starts with it: the order
 * of strcmp() in the C locale, and of `LC_ALL=C sort`.  Stable: pointers to
 * equal strings keep their input order, in ascending and descending sorts
 * alike.  The work is an MSD radix sort that reads each string's bytes up
 * to where it differs from the others (its distinguishing prefix), 8 bytes
 * at a time, plus a constant number of passes over the pointers per
 * 8 bytes of prefix that whole groups share (groups of up to 24 strings
 * are finished by insertion sort, which may read a shared prefix once per
 * pair): a long common prefix, many equal strings or a million empty ones
 * are never quadratic in n, and the recursion's depth is bounded by memory
 * allocated before the sort.  Scratch: about 40 bytes a string, plus, for
 * arrays of 2^16 strings and more, what the backend's pair sort takes.
 * Arrays of 2^16 strings and more are sorted by their 8-byte prefixes with
 * the backend's own stable pair sort, level by level (OpenMP's threads;
 * the device of CUDA, HIP and OpenCL), and the runs of equal prefixes
 * that are left by a serial sort on the host (on OpenMP's threads); the
 * serial backend sorts everything with the serial sort.
 *
 * Errors: PS_ERR_INVALID_ARG (strings NULL with n > 0, a NULL element,
 * flags other than 0 and PS_DESCENDING), PS_ERR_TOO_LARGE (n so large that
 * the scratch's size would overflow size_t), PS_ERR_NO_MEMORY, and
 * PS_ERR_BACKEND_UNAVAILABLE or PS_ERR_INVALID_ARG when no backend could
 * be chosen.  On error the array is unchanged.
 */
PS_API int ps_sort_strings(const char **strings, size_t n, unsigned flags);

/*
 * ps_argsort_strings - the stable sorting permutation of n byte strings
 * stored end to end (the layout of Arrow's string arrays).
 *
 * bytes:   the strings' bytes; string i is bytes[offsets[i]] ..
 *          bytes[offsets[i + 1] - 1], of any bytes, NUL included.  Only
 *          read.  May be NULL when every string is empty.
 * offsets: n + 1 entries, non-decreasing (offsets[0] need not be 0); only
 *          read.  May be NULL when n == 0.
 * perm:    n entries, written: bytes of string perm[0], perm[1], ... in
 *          sorted order, and among equal strings their indices increasing
 *          (in both directions).  May be NULL when n == 0.
 *
 * Order: memcmp() on the common length, then a proper prefix first;
 * otherwise as ps_sort_strings (same algorithm, same bounds).
 *
 * Errors: PS_ERR_INVALID_ARG (offsets or perm NULL with n > 0, offsets
 * decreasing, bytes NULL with a non-empty string, flags other than 0 and
 * PS_DESCENDING, any two of the strings' bytes (offsets[0] ..
 * offsets[n] - 1), the n + 1 offsets and perm sharing a byte),
 * PS_ERR_TOO_LARGE, PS_ERR_NO_MEMORY, and the backend choice's errors.  On
 * error perm is unchanged, and ps_error_detail() says which argument is
 * wrong.
 */
PS_API int ps_argsort_strings(const void *bytes, const size_t *offsets,
                              size_t n, size_t *perm, unsigned flags);

/*
 * ps_type_size - size in bytes of one key of the given type, or 0 when the
 * type is not a ps_type value.
 */
PS_API size_t ps_type_size(ps_type type);

/* One backend, as listed by ps_backends(). */
typedef struct ps_backend_info {
    const char *name;   /* "serial", "openmp", "opencl", "cuda", "hip", or
                           the name of another module found */
    int built;          /* 1 when built in or its module file was found (a
                           module that fails to load is built, not usable,
                           and detail says why) */
    int usable;         /* 1 when it could sort here */
    int gpu;            /* 1 when its device is a GPU */
    const char *detail; /* the device it would use, or why it is unusable */
} ps_backend_info;

/*
 * ps_backends - describe every backend libportsort knows, probing each one
 * (loading modules as needed) without changing the chosen backend.  Known
 * are the built-in ones, the modules this package can build (listed as not
 * built when absent), and every ps_<name>.so in the module directories.
 * They are listed in the order `auto` tries them, highest priority first,
 * then those that did not load.
 *
 * Writes at most `max` entries to `out` and returns the number of backends
 * known, which may exceed max.  `out` may be NULL only with max == 0 (to
 * count them); NULL with max > 0 is taken as max == 0: nothing is written,
 * and ps_error_detail() says so.  A backend whose environment variable is
 * malformed is listed unusable, with the refusal as its detail.  The
 * strings stay valid until the process ends.  Safe to call from several
 * threads; the probing happens once per process.
 */
PS_API size_t ps_backends(ps_backend_info *out, size_t max);

/*
 * ps_release_cache - give back the memory the library and the chosen
 * backend keep between calls to save allocation time (host scratch blocks
 * of sorts of numbers and strings, device buffers, staging memory).  Sorts
 * running in other threads are not disturbed; later sorts allocate again.
 * The cache is also released when the library is unloaded.  Returns PS_OK,
 * or PS_ERR_BACKEND_UNAVAILABLE when no backend could be chosen.
 */
PS_API int ps_release_cache(void);

/*
 * ps_set_memory_limit - cap the host memory each later call of the library
 * allocates for itself: its blocks taken on the calling thread (a sort's
 * scratch, argsort's copy and indices, the kept blocks it reuses), counted
 * together per call, at most `bytes`; 0 removes the cap.  Overrules
 * PORTSORT_MEMORY_LIMIT (bytes, with an optional K, M or G suffix), which
 * sets it until this is called (a malformed value fails ps_init).  Applies to every thread, from the next
 * call on.  Device memory is not counted.
 *
 * Under the cap, a sort of keys alone on the serial and openmp backends
 * (ps_sort_keys, and ps_sort_segments without values) sorts in place
 * when its scratch would pass it or cannot be allocated: an MSD radix
 * sort that allocates nothing (slower: see doc/memory.md).  Pairs there
 * (ps_sort_pairs with 4- or 8-byte values, ps_argsort and other value
 * sizes once their own copies and indices fit) are sorted in pieces that
 * fit and merged stably in place; segments with values (ps_sort_segments)
 * in groups of segments that fit, a segment too long for that alone in
 * pieces: the same bytes as without the cap, slower.  Every other call
 * that needs more than the cap allows (and these, under a cap too small
 * for one piece of 4096 pairs) fails with PS_ERR_NO_MEMORY, its arrays
 * unchanged, and ps_error_detail() names the limit and the block it
 * refused: a stable sort of pairs needs some scratch, and is never done
 * unstably instead.  Returns PS_OK.
 */
PS_API int ps_set_memory_limit(size_t bytes);

/*
 * ps_scratch_bytes - the host memory the chosen backend would allocate for
 * ps_sort_keys (value_size 0) or ps_sort_pairs (values of value_size bytes)
 * of n elements of `type` with `flags`: a limit of at least this lets such
 * a call run its usual path.  0 when n < 2, when the sort allocates
 * nothing (small arrays), when type, flags or the sizes are invalid
 * (ps_error_detail() says which), or when no backend can be chosen.  Chooses the backend (as the first sort would) if none is yet.
 */
PS_API size_t ps_scratch_bytes(size_t n, size_t value_size, ps_type type,
                               unsigned flags);

/*
 * ps_device_api - the device API of a backend, for sorting data that is
 * already on its device (a CUDA device pointer, an OpenCL cl_mem...).
 *
 * name is "cuda", "hip" or "opencl".  Returns the backend's API table, or
 * NULL when the backend is unknown, not built, has no usable device here,
 * failed to initialise, or has no device API (ps_error_detail() says
 * which).  The table's type is declared in that backend's header
 * (portsort_cuda.h, portsort_hip.h, portsort_opencl.h), which wraps this
 * call, so applications normally use those headers rather than this
 * function.  Independent of PORTSORT_BACKEND: asking for the CUDA device
 * API works whichever backend sorts host arrays.  Thread-safe; the backend
 * is initialised at most once per process.
 */
PS_API const void *ps_device_api(const char *name);

/*
 * ps_version - the library version as a string, e.g. "0.1.0".  Never NULL.
 */
PS_API const char *ps_version(void);

#ifdef __cplusplus
}
#endif

#endif /* PORTSORT_H */
