/*
 * ps_internal.h - declarations shared by the core's files only.  Backends
 * never include this; they see the core through ps_backend.h's ps_host.
 */
#ifndef PS_INTERNAL_H
#define PS_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "ps_backend.h"

#if defined(__GNUC__)
#  define PS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#  define PS_PRINTF(f, a)
#endif

/* ps_error.c: the per-thread detail message behind ps_error_detail(). */
void ps_detail_clear(void);
void ps_detail_set(const char *fmt, ...) PS_PRINTF(1, 2);
void ps_detail_vset(const char *fmt, va_list ap);
/* Forget the detail message without starting a new count of the memory
 * limit: for a call that recovered from the failure the message told of
 * (ps_pieces.c). */
void ps_detail_drop(void);

/* ps_host.c: services handed to backends, also used by the core. */
const ps_host *ps_host_get(void);
int ps_verbose(void);
/* PORTSORT_VERBOSE as 0 or 1, or -1 with `why` set when it is malformed. */
int ps_verbose_check(char *why, size_t why_len);
void ps_log(const char *fmt, ...) PS_PRINTF(1, 2);
/* 64-byte aligned host memory, NULL when there is none or when it would
 * take the calling thread's call past the memory limit (below). */
void *ps_alloc(size_t bytes);
/* ps_alloc without the limit: for blocks already admitted (ps_scratch.c). */
void *ps_alloc_raw(size_t bytes);
void ps_release(void *p);

/* The memory limit (ps_set_memory_limit, PORTSORT_MEMORY_LIMIT): each
 * public call's host blocks, taken on its calling thread, together at most
 * the limit.  ps_mem_call_begin starts a call's count (ps_detail_clear,
 * which every entry point calls first, calls it); ps_mem_admit counts
 * `bytes` against it, or returns 0 when they would pass the limit (and
 * remembers that for the call's messages, ps_mem_note).  Threads that
 * never began a call (the backends' workers) are not counted. */
void ps_mem_call_begin(void);
/* Around a public call the core makes inside one of its own (ps_records.c
 * sorts its images with ps_sort_pairs...): ps_mem_nest(1) before, (0)
 * after, so that the inner call counts on against the outer call's limit
 * instead of starting a count of its own. */
void ps_mem_nest(int enter);
int ps_mem_admit(size_t bytes);
/* Give back to the call's count `bytes` that ps_mem_admit counted but
 * that malloc then could not provide (no block was made of them). */
void ps_mem_unadmit(size_t bytes);
/* How many more bytes the calling thread's call may take: SIZE_MAX with
 * no limit (or outside a call), else the limit less what it has taken. */
size_t ps_mem_left(void);
/* What the call has counted so far, and back to such a mark: for an
 * attempt that failed after giving back every block it took (a backend
 * answers an error only with its scratch released), so that a second
 * attempt in the same call is not charged for the first's blocks. */
size_t ps_mem_mark(void);
void ps_mem_rewind(size_t mark);
/* Into buf, a clause for the call's error message when the limit refused
 * a block in this call ("" otherwise). */
void ps_mem_note(char *buf, size_t len);
/* PORTSORT_MEMORY_LIMIT: 0 when unset, empty or well-formed, -1 with why
 * set when malformed (checked at the choice of backend). */
int ps_mem_limit_check(char *why, size_t why_len);

/* ps_scratch.c: at least `bytes` of 64-byte aligned scratch, NULL when
 * there is no memory: a block kept from an earlier call when one is free
 * and big enough (a too small one is replaced), else a block of the
 * call's own; *kept says which, for ps_scratch_put, which gives it back to
 * be kept, or frees it.  ps_scratch_trim frees the kept blocks no call
 * holds, and the others as they are put back (ps_release_cache). */
void *ps_scratch_take(size_t bytes, int *kept);
void ps_scratch_put(void *p, int kept);
void ps_scratch_trim(void);

/* ps_registry.c: the built-in backends (ops NULL: left out of this build),
 * and the module backends this package can build, space-separated. */
typedef struct ps_builtin {
    const char *name;
    const ps_backend_ops *ops;
} ps_builtin;
extern const ps_builtin ps_builtins[];
extern const size_t ps_nbuiltins;
extern const char ps_module_names[];

/* ps_registry.c: 0 when *in is a table this core can take (its
 * PS_BACKEND_ABI, and at least PS_BACKEND_OPS_MIN bytes); else -1 with
 * `why` saying what it has instead ("backend ABI 5, this libportsort
 * needs 6"), to follow the module's path.  Reads in->size only when abi
 * matches. */
int ps_ops_check(const ps_backend_ops *in, char *why, size_t why_len);

/* ps_registry.c: take a backend's table in: *out becomes a full
 * ps_backend_ops holding the part of *in that its backend was built with
 * (in->size), and NULL or 0 for the members it predates; out->size is the
 * core's.  -1, *out zeroed and `why` as ps_ops_check's, when the check
 * refuses *in. */
int ps_ops_adopt(ps_backend_ops *out, const ps_backend_ops *in, char *why,
                 size_t why_len);

/* ps_dispatch.c: ps_host.lost, marking a backend's device gone. */
void ps_backend_lost(const char *name, const char *why);

/* ps_module.c: the longest backend name a module file may carry, plus 1. */
#define PS_MODULE_NAME_MAX 32

/* ps_module.c: call fn once for each ps_<name>.so in the module directories
 * (PORTSORT_MODULE_PATH, else the build tree's modules when running
 * uninstalled, else the directory beside the library's own file and the
 * configured install directory), with its name.  A name may
 * come more than once, from several directories. */
void ps_module_scan(void (*fn)(const char *name, void *arg), void *arg);

/* ps_module.c: load backend module `name` (ps_<name>.so) from the module
 * path.  Returns the module's ops table, or NULL with a reason in `why`;
 * *present is set to 1 when a file was found (so a broken module can be
 * told apart from an absent one).  A statically linked program loads none
 * (a found one is reported present, with the reason).  Modules stay loaded
 * for the life of the process. */
const ps_backend_ops *ps_module_load(const char *name, int *present,
                                     char *why, size_t why_len);

/* ps_api.c: PS_ERR_INVALID_ARG, with the detail naming fn, unless type is
 * a ps_type and flags only PS_DESCENDING.  For every public entry point,
 * the device-buffer ones included. */
int ps_check_type_flags(const char *fn, ps_type type, unsigned flags);

/* ps_api.c: the checks every host-array entry point makes on keys, type
 * and flags (PS_ERR_INVALID_ARG with the detail naming fn). */
int ps_check_keys(const char *fn, const void *keys, size_t n, ps_type type,
                  unsigned flags);

/* ps_segments.c: PS_ERR_INVALID_ARG, with the detail naming fn, unless
 * offsets runs from 0 to n without decreasing over num_segments + 1
 * entries (NULL only with no segments and n == 0). */
int ps_check_offsets(const char *fn, const size_t *offsets,
                     size_t num_segments, size_t n);

/* ps_segments.c: the checks of a segmented call's optional values (NULL
 * with value_size 0, or n values that fit in size_t) and of num_segments
 * (its num_segments + 1 offsets fit in memory). */
int ps_check_seg_values(const char *fn, const void *values, size_t value_size,
                        size_t n, size_t num_segments);

/* ps_segments.c: sort each segment of keys (and values, NULL for keys
 * only, else of a value_size the backend moves natively) on backend ops:
 * its own segmented sort, else the core's.  Checked arguments, n > 1; on
 * error keys and values are unchanged. */
int ps_segments_on(const ps_backend_ops *ops, void *state, void *keys,
                   void *values, size_t value_size, size_t n,
                   const size_t *offsets, size_t num_segments, ps_type type,
                   unsigned flags);

/* ps_index.c: the index route, for values a backend does not move natively
 * (and argsort).  Indices are 4 bytes below 2^32 elements, else 8. */
size_t ps_index_width(size_t n);
void ps_index_fill(void *idx, size_t w, size_t n);
size_t ps_index_at(const void *idx, size_t w, size_t i);
/* 1 when ops moves values of this size at this address itself. */
int ps_values_native(const ps_backend_ops *ops, const void *values,
                     size_t value_size);
/* Sort keys with the indices 0..n-1 (w bytes each) as values: the step
 * the caller supplies, leaving keys unchanged on error. */
typedef int (*ps_index_step)(void *ctx, void *keys, void *idx, size_t w,
                             size_t n);
/* ps_chunks.c: the backend's sort of host keys (values of vs bytes, or
 * none when vs is 0); when a device answers PS_ERR_DEVICE_MEMORY for the
 * whole, the same sort in runs it can hold, merged on the host, stable,
 * the caller's arrays untouched on any error. */
int ps_backend_sort(const ps_backend_ops *ops, void *state, void *keys, void *values,
                    size_t vs, size_t n, ps_type type, unsigned flags);

/* ps_pieces.c: after a CPU backend answered PS_ERR_NO_MEMORY for a sort
 * of pairs (vs 4 or 8, n > 1), the same stable sort within the memory
 * that is left: pieces sorted by the backend's segmented sort, merged in
 * place with a bounded buffer.  PS_OK, or PS_ERR_NO_MEMORY with keys and
 * values unchanged and the detail saying why (the backend's own message
 * kept when nothing was tried: a device backend, another value size, n at
 * most one piece). */
int ps_pairs_in_pieces(const ps_backend_ops *ops, void *state, void *keys,
                       void *values, size_t vs, size_t n, ps_type type,
                       unsigned flags);

/* ps_pieces.c: the shortest piece: shorter ones would only lengthen the
 * merges, and a limit that cannot hold even this piece's scratch (tens of
 * KiB) is treated as no room for a stable sort at all.  ps_pairs_in_pieces
 * refuses arrays of at most this many pairs (one piece: nothing to cut). */
#define PS_PIECE_MIN ((size_t)4096)

/* ps_seglimit.c: after a CPU backend answered PS_ERR_NO_MEMORY for a
 * segmented sort with values (vs 4 or 8; checked offsets, n > 1), the
 * same stable sort within the memory that is left: consecutive groups of
 * segments by the backend's segmented sort, one block at a time, and each
 * segment too long for that alone by ps_pairs_in_pieces.  PS_OK, or
 * PS_ERR_NO_MEMORY with keys and values unchanged and the detail saying
 * which block the limit (or malloc) refused. */
int ps_segments_in_steps(const ps_backend_ops *ops, void *state, void *keys,
                         void *values, size_t vs, size_t n,
                         const size_t *offsets, size_t num_segments,
                         ps_type type, unsigned flags);

/* Sort keys by `step`, then move values (value_size bytes each, any size)
 * by the indices.  Allocates first; on error nothing has changed. */
int ps_sort_by_index(const char *fn, void *keys, void *values,
                     size_t value_size, size_t n, ps_index_step step,
                     void *ctx);

/* ps_dispatch.c: the chosen backend, chosen on the first call.  Returns
 * PS_OK and sets *ops and *state, or PS_ERR_BACKEND_UNAVAILABLE with the
 * detail message set. */
int ps_backend_get(const ps_backend_ops **ops, void **state);

/* ps_dispatch.c: the backend for a sort of n keys: the chosen one, except
 * that under `auto` arrays below the chosen backend's crossover (its
 * probe's min_n, or PORTSORT_GPU_MIN_N) go to the best CPU backend. */
int ps_backend_for(size_t n, const ps_backend_ops **ops, void **state);

#endif /* PS_INTERNAL_H */
