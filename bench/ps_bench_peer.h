/*
 * ps_bench_peer.h - the C interface of a sorter that bench/ps_cpubench
 * measures beside libportsort.
 *
 * The sorters built with the benchmark (std::sort, oneTBB, Boost.Sort,
 * vqsort, the plain LSD...) are tables of this type, and so are the ones
 * it loads at run time: a shared object named in PS_BENCH_PEERS (paths
 * separated by ':') that exports
 *
 *     int ps_bench_peer_list(unsigned abi, const ps_bench_peer **peers,
 *                            const char **why);
 *
 * The benchmark passes PS_BENCH_PEER_ABI.  The function returns the number
 * of sorters in the array it stores in *peers (static storage, valid while
 * the object stays loaded), or -1 after storing in *why a one-line reason
 * that the sorters cannot run (an ABI other than its own, a CPU without
 * the instructions it was compiled for).  The benchmark prints the reason
 * and goes on without them.  This is how sorters whose code the project
 * does not carry (x86-simd-sort, IPS4o, IPS2Ra) are measured:
 * doc/results-openmp.md says which snapshot and which flags built them.
 *
 * Every sort function sorts n keys ascending, in place: integers by value,
 * f32 by value (the benchmark's float keys are never NaN and never -0.0,
 * so that order is IEEE 754 totalOrder, libportsort's).  The pair
 * functions move values[i] with keys[i]; the benchmark passes index tags
 * as values and checks a sorter whose stable_pairs is 0 only for the
 * multiset of values of each run of equal keys, one whose stable_pairs is
 * 1 for their input order too.  `threads` (>= 1) is the number of
 * threads libportsort sorts with in the same run; a parallel sorter uses
 * at most that many, a serial one ignores it.  A sort function returns 0,
 * or nonzero when it could not sort (out of memory): the benchmark then
 * reports the sorter as failed for that case.  A function that the sorter
 * lacks is NULL, and its column stays empty.
 *
 * The functions are called from one thread at a time, never at once.
 */
#ifndef PS_BENCH_PEER_H
#define PS_BENCH_PEER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Changes whenever struct ps_bench_peer or the entry point changes. */
#define PS_BENCH_PEER_ABI 1u

/* The entry point's name, for dlsym. */
#define PS_BENCH_PEER_ENTRY "ps_bench_peer_list"

typedef struct ps_bench_peer {
    const char *name;   /* the table's column: unique, at most 15 chars */
    const char *what;   /* one line: algorithm, version, mode */
    int parallel;       /* 1: follows `threads`; 0: always one thread */
    int stable_pairs;   /* 1: pairs keep equal keys in input order */
    int (*u32)(uint32_t *keys, size_t n, int threads);
    int (*u64)(uint64_t *keys, size_t n, int threads);
    int (*f32)(float *keys, size_t n, int threads);
    int (*i64)(int64_t *keys, size_t n, int threads);
    int (*u32_u32)(uint32_t *keys, uint32_t *values, size_t n, int threads);
    int (*u64_u64)(uint64_t *keys, uint64_t *values, size_t n, int threads);
} ps_bench_peer;

typedef int (*ps_bench_peer_list_fn)(unsigned abi, const ps_bench_peer **peers,
                                     const char **why);

/* What a peer's shared object defines, exported even when it is built
 * with -fvisibility=hidden. */
#if defined(__GNUC__) && __GNUC__ >= 4
#  define PS_BENCH_PEER_EXPORT __attribute__((visibility("default")))
#else
#  define PS_BENCH_PEER_EXPORT
#endif
PS_BENCH_PEER_EXPORT int ps_bench_peer_list(unsigned abi, const ps_bench_peer **peers,
                                            const char **why);

#ifdef __cplusplus
}
#endif

#endif /* PS_BENCH_PEER_H */
