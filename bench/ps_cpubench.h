/*
 * ps_cpubench.h - what the parts of bench/ps_cpubench share: the cases it
 * measures, the sorters built with it, the reference sort and the check
 * of every result, the memcpy it compares traffic with, and the processes
 * it starts (ours on one thread, the busy load).
 */
#ifndef PS_CPUBENCH_H
#define PS_CPUBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "portsort.h"
#include "ps_bench_peer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The key and pair types of issue 34. */
typedef enum ps_cb_kind {
    PS_CB_U32, PS_CB_U64, PS_CB_F32, PS_CB_I64, PS_CB_U32_U32, PS_CB_U64_U64,
    PS_CB_NKINDS
} ps_cb_kind;

typedef struct ps_cb_kind_info {
    const char *name;       /* "u32" ... "u64+u64", as typed in --types */
    const char *key_name;   /* the key type's name for the data generators */
    ps_type type;
    size_t key_size;
    size_t value_size;      /* 0: keys only; else the values' size (tags) */
} ps_cb_kind_info;

extern const ps_cb_kind_info ps_cb_kinds[PS_CB_NKINDS];

/* ---- sorters (ps_cpubench_sorters.c, ps_cpubench_peers.cc) ---- */

/* The sorters compiled in: a NULL-free array, in the table's order. */
size_t ps_cb_builtin_peers(const ps_bench_peer *const **out);

/* The plain LSD radix sort: 8-bit digits, one histogram pass, one scatter
 * pass per digit, stable; its scratch is kept between calls. */
extern const ps_bench_peer ps_cb_plain_lsd;

/* 1 when the peer has a function for this kind. */
int ps_cb_peer_has(const ps_bench_peer *p, ps_cb_kind k);

/* Call the peer's function for this kind (values ignored for keys). */
int ps_cb_peer_sort(const ps_bench_peer *p, ps_cb_kind k, void *keys,
                    void *values, size_t n, int threads);

/* Load the peers of every shared object in `list` (paths separated by
 * ':').  Appends up to max - *count tables to out, and prints one line on
 * f for each object that cannot be loaded or declines (with the reason).
 * Objects stay loaded until the process ends. */
void ps_cb_load_peers(const char *list, const ps_bench_peer **out, size_t *count,
                      size_t max, FILE *f);

/* ---- the reference and the check (ps_cpubench_sorters.c) ---- */

/* Sort (keys, values) - a copy of src_keys and the index tags 0..n-1 - with
 * the plain LSD and prove the result right against src_keys alone: keys in
 * order, for pairs every tag once, each with its own key, and equal keys
 * in tag order (stable); for keys, the same multiset (a sum of hashes).
 * Returns 0, or -1 with the reason in why. */
int ps_cb_reference(ps_cb_kind k, const void *src_keys, void *keys, void *values,
                    size_t n, char *why, size_t why_size);

/* Compare a sorter's output with the reference: keys byte for byte; values
 * byte for byte when `stable`, else as the same set of tags in each run of
 * equal keys.  Returns 0, or -1 with where they differ in why. */
int ps_cb_verify(ps_cb_kind k, const void *ref_keys, const void *ref_values,
                 const void *keys, const void *values, size_t n, int stable,
                 char *why, size_t why_size);

/* ---- memcpy with `threads` threads, the traffic reference ---- */

/* Start threads - 1 helper threads (kept for the run).  Returns 0 or -1. */
int ps_cb_copy_start(int threads);

/* memcpy(dst, src, bytes) split over the helpers and the caller, or by the
 * caller alone when threads is 1. */
void ps_cb_copy(void *dst, const void *src, size_t bytes, int threads);

void ps_cb_copy_stop(void);

/* ---- processes (ps_cpubench_proc.c) ---- */

/* CLOCK_MONOTONIC in seconds. */
double ps_cb_now(void);

/* Sort the m arrays of n elements in keys (and values, for pairs) with
 * libportsort, one call each, and store the time of all of them in
 * *seconds (with release_cache: ps_release_cache() before each call, not
 * timed).  Returns PS_OK or the first failing call's status. */
int ps_cb_ours_sort(ps_cb_kind k, void *keys, void *values, size_t n, size_t m,
                    int release_cache, double *seconds);

/* --scratch-div D (0: off): ps_cb_ours_sort runs each call under a memory
 * limit of ps_scratch_bytes(n, ...) / D, set before the timer starts and
 * lifted after (ours-1t's child answers ps_scratch_bytes for its one
 * thread).  Set before ps_cb_solo_start, so that the child has it too. */
extern size_t ps_cb_scratch_div;

/* Fork the process that runs ours on one thread (PORTSORT_THREADS=1): call
 * before ps_init() and before any thread is started.  cap: the most bytes
 * of keys plus values one measurement passes.  Returns 0, or -1 after a
 * message. */
int ps_cb_solo_start(size_t cap);

/* That process's id, 0 when there is none. */
long ps_cb_solo_pid(void);

/* Run ours on one thread in that process: the m arrays of n elements in
 * keys (and values) are copied there, each sorted by one libportsort call
 * timed together (*seconds), and copied back in place.  release_cache:
 * ps_release_cache() before each sort, untimed.  Returns the library's
 * status, or -1 when the process is gone. */
int ps_cb_solo_sort(ps_cb_kind k, void *keys, void *values, size_t n, size_t m,
                    int release_cache, double *seconds);

/* Start `count` processes that spin without end, one per core as on a
 * busy machine; they are killed by ps_cb_busy_stop(), at exit, on a
 * fatal signal, and (Linux) when this process dies.  Returns the number
 * started. */
int ps_cb_busy_start(int count);
void ps_cb_busy_stop(void);

/* The spinning processes now running (count in *count). */
const pid_t *ps_cb_busy_pids(int *count);

/* Kill every child now and on exit, and on SIGINT, SIGTERM, SIGHUP and the
 * crashing signals (which then take their default action).  Call once. */
void ps_cb_guard_children(void);

/* The CPUs this process may run on (sched_getaffinity), at least 1. */
int ps_cb_cpus(void);

/* Print the machine: CPU model, family and model, AVX2/AVX-512, CPUs
 * online and allowed, cgroup CPU quota, load average. */
void ps_cb_machine(FILE *f);

/* "load average 1.02 0.87 0.80" into buf. */
const char *ps_cb_loadavg(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* PS_CPUBENCH_H */
