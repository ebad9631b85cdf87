/*
 * ps_backend.h - what a libportsort backend implements.
 *
 * A backend is one const ps_backend_ops table.  The built-in ones (serial,
 * OpenMP) are listed in lib/ps_registry.c's table, the only core file that
 * names a backend; OpenCL, CUDA and HIP are libtool modules named
 * ps_<name>.so in the package library directory, each exporting its table
 * as the symbol PS_BACKEND_ENTRY ("ps_backend_entry").  A backend includes
 * this header and nothing else of the core, and never another backend.
 *
 * Division of labour:
 *  - The core checks every argument before a backend runs: a backend sees
 *    only n > 0, non-NULL arrays that share no byte, a valid type and
 *    flags, and byte sizes that fit in size_t.  A module's device API,
 *    which the core does not see, makes the same checks itself, the
 *    overlap with ps_overlap.h's helpers.
 *  - The core sends pairs whose value_size is not in the table's
 *    value_sizes mask through a fallback (sort with an index as the value,
 *    then gather), and implements argsort the same way, so a backend only
 *    sorts keys and pairs with its native value sizes.
 *  - The backend owns the order transforms (signed, float, descending); the
 *    inline helpers of ps_keytype.h make them a couple of instructions so
 *    they can be fused into the first and last pass.
 *  - A backend must leave the caller's arrays unchanged when it returns an
 *    error: allocate everything before touching them.
 */
#ifndef PS_BACKEND_H
#define PS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "portsort.h"
#include "ps_env.h"     /* ps_getenv and the parsers every variable goes through */
#include "ps_keytype.h" /* widths of the key types, the order transforms */
#include "ps_overlap.h"

/* PS_DEBUG_ASSERT(x): an invariant a backend relies on (a recursion's
 * level budget, a buffer's bound), checked in builds configured with
 * --enable-debug, where a broken one stops the program at the line that
 * broke it instead of corrupting memory.  Other builds check nothing: the
 * library never exits, so the code must keep the invariant by itself. */
#ifdef PS_DEBUG
#include <assert.h>
#define PS_DEBUG_ASSERT(x) assert(x)
#else
#define PS_DEBUG_ASSERT(x) ((void)0)
#endif

/* PS_FORCE_INLINE: the storage and attribute of a per-key body in a width
 * template (a backend's *-inl.h), which only runs fast once it is inlined
 * into the kernel that calls it with constant arguments (a value size, a
 * transform kind): that is how one body becomes a specialised loop per
 * case.  gcc would not always do it unforced (zstd's
 * FORCE_INLINE_TEMPLATE). */
#if defined(__GNUC__)
#define PS_FORCE_INLINE static inline __attribute__((always_inline))
#else
#define PS_FORCE_INLINE static inline
#endif

/* How the two tables below grow without breaking anyone (OpenSSL 3's
 * providers and pocl's device ops work the same way):
 *  - a new member is only ever added at the end of ps_backend_ops or
 *    ps_host, and each table records its own size as it was built
 *    (ps_backend_ops.size, through PS_BACKEND_HEAD; ps_host.size);
 *  - the core reads a backend's table through a whole copy of the part the
 *    backend has (ps_ops_adopt, lib/ps_registry.c), so a member the backend
 *    predates reads as NULL or 0, and each member says what the core does
 *    then: its own default (sort_segments), nothing (trim), or a refusal
 *    whose detail names the backend and what it lacks (device_api; a new
 *    operation without a default returns PS_ERR_BACKEND_UNAVAILABLE);
 *    members the core predates are ignored;
 *  - a module calls a service of ps_host that is newer than this ABI only
 *    when PS_HOST_HAS(host, member), so a module newer than the core runs
 *    with the services the core has.
 * PS_BACKEND_ABI is bumped only when a member's meaning, type or place
 * changes (or ps_probe grows, see there), which breaks every module; the
 * loader refuses a module built for another value, and one whose table is
 * shorter than PS_BACKEND_OPS_MIN.  Adding an operation (strings, top-k,
 * records) does not bump it: see doc/architecture.md, "An operation". */
#define PS_BACKEND_ABI 6u

/* Name of the symbol a backend module exports (a const ps_backend_ops). */
#define PS_BACKEND_ENTRY ps_backend_entry
#define PS_BACKEND_ENTRY_NAME "ps_backend_entry"

/* Services the core gives a backend at init.  Modules cannot call the core's
 * hidden functions, so everything they need from it comes through here. */
typedef struct ps_host {
    unsigned abi;                 /* PS_BACKEND_ABI */
    size_t size;                  /* sizeof(ps_host) in the core */
    int verbose;                  /* PORTSORT_VERBOSE was set */
    /* Print a line on stderr when verbose; a no-op otherwise. */
    void (*log)(const char *fmt, ...);
    /* Record the detail message of the current call's failure, read back by
     * ps_error_detail().  Call it before returning an error status. */
    void (*fail)(const char *fmt, ...);
    /* Host memory for scratch.  Use these rather than malloc so that tests
     * can inject allocation failures.  alloc returns 64-byte aligned memory
     * or NULL; release accepts NULL. */
    void *(*alloc)(size_t bytes);
    void (*release)(void *p);
    /* Tell the core that backend `name`'s device is gone for the rest of
     * the process (a kernel fault: the GPU context cannot be used again),
     * `why` in words a user acts on.  The core sends it no more work:
     * under PORTSORT_BACKEND=auto later sorts run on the CPU backend;
     * a named backend's sorts fail with PS_ERR_DEVICE and `why`; and
     * ps_backends() reports it unusable.  The backend still refuses its
     * own device API calls (which bypass the core). */
    void (*lost)(const char *name, const char *why);
    /* Host scratch kept between calls (check PS_HOST_HAS(h, take)): take
     * at least `bytes` (NULL when there is no memory), *kept saying
     * whether the block is one the core keeps; put gives it back, with
     * that flag.  Blocks are freed by ps_release_cache() and at unload. */
    void *(*take)(size_t bytes, int *kept);
    void (*put)(void *p, int kept);
} ps_host;

/* 1 when the core's ps_host has `member` (see PS_BACKEND_ABI). */
#define PS_HOST_HAS(h, member) \
    ((h)->size >= offsetof(ps_host, member) + sizeof((h)->member))

/* What a probe found.  A probe never aborts: any runtime error is reported
 * as usable = 0 with the reason in detail.  The core owns this struct and
 * the backend writes into it, so it does not grow like the tables: a
 * module newer than the core would write past it.  A member added here
 * bumps PS_BACKEND_ABI. */
typedef struct ps_probe {
    int usable;                   /* 1 when the backend can sort here */
    int gpu;                      /* 1 when its device is a GPU */
    char detail[256];             /* the device, or why it is unusable */
    /* When `auto` chose this backend: host arrays of fewer keys than this
     * go to the CPU backend instead, where copying to a device costs more
     * than it saves.  0 (the core's default) sends every size here.  Last
     * in the struct, so modules built before it leave it 0. */
    size_t min_n;
} ps_probe;

/* Bit for value size s (s a power of two up to 64) in ps_backend_ops.value_sizes. */
#define PS_VALUE_SIZE_BIT(s) ((unsigned)(s))

typedef struct ps_backend_ops {
    /* PS_BACKEND_ABI at the time the backend was built. */
    unsigned abi;
    /* sizeof(ps_backend_ops) at the time the backend was built: how much of
     * this table it has (see PS_BACKEND_ABI).  Every table starts with
     * PS_BACKEND_HEAD, which sets both. */
    size_t size;
    /* The backend's name, as PORTSORT_BACKEND and ps_device_api() spell
     * it: lower-case letters, digits and '_', under PS_MODULE_NAME_MAX
     * bytes.  A module's file must be ps_<name>.so. */
    const char *name;
    /* Order in which `auto` tries the backends: highest first, as hwloc
     * ranks its components.  The core knows no backend by name: this and
     * `device` are all it goes by.  In this package: cuda 300, hip 290,
     * opencl 100, openmp 20, serial 10. */
    int priority;
    /* 1 when the backend sorts on a device that is, or may be, a GPU.
     * `auto` takes such a backend only when its probe reports a GPU, and
     * gives it host arrays from its crossover (ps_probe.min_n) up.  0 for a
     * CPU backend: `auto` hands those the small arrays and the work of a
     * lost device, the highest-priority usable one first. */
    int device;
    /* Value sizes sort_pairs handles natively: an OR of PS_VALUE_SIZE_BIT().
     * Must include 4 and 8, which the core's fallback (index values) and
     * argsort use; the core routes every other size through the fallback. */
    unsigned value_sizes;
    /* Say whether the backend is usable on this machine.  Called once, before
     * init, possibly without init ever following.  Must not fail. */
    void (*probe)(ps_probe *out);
    /* Prepare for sorting; *state is passed to every later call.  host stays
     * valid for the life of the process.  Returns PS_OK or a status, with
     * host->fail() called to say why. */
    int (*init)(const ps_host *host, void **state);
    /* Sort n keys in place (n > 0).  Must be safe to call from several
     * threads at once.  On error keys are unchanged. */
    int (*sort_keys)(void *state, void *keys, size_t n, ps_type type,
                     unsigned flags);
    /* Sort keys in place, moving values (value_size one of value_sizes)
     * with them; stable.  On error keys and values are unchanged. */
    int (*sort_pairs)(void *state, void *keys, void *values, size_t value_size,
                      size_t n, ps_type type, unsigned flags);
    /* Free what init made.  Called once, when libportsort is unloaded or the
     * process exits.  May be NULL. */
    void (*release)(void *state);
    /* Give back memory cached between calls (scratch buffers, pinned
     * staging).  Called by ps_release_cache(), possibly while other threads
     * sort: it must not free what a running sort uses.  May be NULL. */
    void (*trim)(void *state);
    /* The backend's device API, a table defined by its public header (for
     * example ps_cuda_api in portsort_cuda.h), returned to users by
     * ps_device_api().  Its functions run after init, with the module's own
     * state.  NULL when the backend has none (or its module predates this
     * member): ps_device_api() then returns NULL, its detail saying that
     * the backend has no device API. */
    const void *device_api;
    /* Sort each segment of a segmented array on its own, stably
     * (ps_sort_segments): segment s is elements offsets[s] to
     * offsets[s + 1] - 1; the core has checked that offsets runs from 0 to
     * n without decreasing, and n > 1.  values is NULL for keys only, else
     * value_size is one of value_sizes.  On error keys and values are
     * unchanged.  May be NULL: the core then sorts the short segments on
     * the host, one thread, and sends each long one to sort_keys or
     * sort_pairs. */
    int (*sort_segments)(void *state, void *keys, void *values,
                         size_t value_size, size_t n, const size_t *offsets,
                         size_t num_segments, ps_type type, unsigned flags);
    /* Check the environment variables the backend reads (through
     * ps_getenv and the parsers of ps_env.h).  Returns 0 when each is unset
     * or well-formed, else -1 with `why` naming the variable, its value and
     * what is accepted (ps_env_refuse writes that).  The core calls it once
     * per process for every backend it finds, whichever is chosen, before
     * any probe, so that a malformed value fails ps_init with
     * PS_ERR_INVALID_ARG instead of being ignored; a backend refused by it
     * is never probed.  It must only read the environment: no runtime call,
     * no output.  May be NULL (no variables). */
    int (*check_env)(char *why, size_t why_len);
    /* Run job(ctx, i) for every i in [0, jobs) on the backend's CPU
     * threads and return when every one has returned.  The jobs of a call
     * may run in any order and at the same time, each exactly once, on the
     * calling thread too; a job must not call the library.  The core runs
     * the host-side steps of its operations this way (ps_topk's select,
     * over segments or over chunks of one array), so that they use the
     * threads and the pool the CPU backend already has instead of threads
     * of the core's own.  May be NULL (a device backend, one that predates
     * it, or one with one thread): the core then runs the jobs in order on
     * the calling thread. */
    void (*run_jobs)(void *state, size_t jobs, void (*job)(void *ctx, size_t i),
                     void *ctx);
    /* The host memory, in bytes, that sort_keys (value_size 0) or
     * sort_pairs (value_size one of value_sizes) of n > 1 elements would
     * take through host->alloc and host->take (ps_scratch_bytes).  May be
     * NULL: the core then answers n x (key size + value_size), a stable
     * radix sort's second array. */
    size_t (*scratch_bytes)(void *state, size_t n, size_t value_size,
                            ps_type type, unsigned flags);
    /* New members go here, at the end, each saying what NULL or 0 (a
     * backend that predates it) makes the core do; every caller in the
     * core tests for NULL.  Members above sort_pairs are never NULL
     * (PS_BACKEND_OPS_MIN, and the loader checks the function pointers). */
} ps_backend_ops;

/* The first two members of every backend's table: a table written with
 * designated initializers after it records the ABI and size of the header
 * it was compiled against. */
#define PS_BACKEND_HEAD .abi = PS_BACKEND_ABI, .size = sizeof(ps_backend_ops)

/* The members every backend has had since this ABI began (abi to
 * sort_pairs): a table shorter than this is refused.  Fixed for the life
 * of an ABI; the members after it may be NULL in an older module. */
#define PS_BACKEND_OPS_MIN \
    (offsetof(ps_backend_ops, sort_pairs) + sizeof(void (*)(void)))

#endif /* PS_BACKEND_H */
