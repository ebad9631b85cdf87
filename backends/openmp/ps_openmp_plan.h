/*
 * ps_openmp_plan.h - what the files of the OpenMP backend's top layer
 * share (the layer above the control; ps_openmp_sort.h draws the layers):
 *
 *   ps_openmp.c           the ops table, the backend's settings read
 *                         from the environment, the sort of one array;
 *   ps_openmp_plan.c      the plan of one sort (with the settings it is
 *                         planned with and its team) and its scratch's
 *                         layout;
 *   ps_openmp_scratch.c   the one-slot cache of scratch blocks;
 *   ps_openmp_segments.c  the segmented sort.
 *
 * The control and the kernels below see none of this.
 */
#ifndef PS_OPENMP_PLAN_H
#define PS_OPENMP_PLAN_H

#include <stddef.h>

#include "ps_backend.h"
#include "ps_openmp_sort.h"
#include "ps_openmp_team.h"

/* The settings every sort is planned with (ps_openmp_plan.c), set once by
 * the backend's init (ps_openmp.c) before any sort: the core's services,
 * the threads a sort asks for (PORTSORT_THREADS, else OMP_NUM_THREADS,
 * else the CPUs), and the sorting networks that sorts may use (PS_NET_*,
 * ps_openmp_net.h: the best this CPU runs, or less when
 * PORTSORT_OPENMP_SIMD says so). */
extern const ps_host *ps_omp_host;
extern int ps_omp_threads;
extern int ps_omp_nets;

/* Arrays of at most this many keys are sorted by the width's insertion
 * sort, with no scratch at all. */
#define PS_SMALL_N 24

/* Sort n keys (no values) that fit sixteen 512-bit registers (at most
 * PS_NET_SMALL32 4-byte or PS_NET_SMALL64 8-byte ones) by one sorting
 * network, in place, without scratch, when the CPU runs the AVX-512
 * networks (ps_omp_nets).  Returns 1 when it sorted, 0 when that does not
 * apply (ps_openmp_plan.c): a whole sort of that size and a segment of it
 * (ps_openmp_segments.c) then take their usual routes. */
int ps_omp_small_net(void *keys, size_t n, ps_type type, unsigned flags);

/* The kernels of keys of kb bytes (1, 2, 4 or 8). */
static inline const ps_omp_kernels *ps_omp_kernels_of(size_t kb)
{
    switch (kb) {
    case 1: return &ps_omp_kernels8;
    case 2: return &ps_omp_kernels16;
    case 4: return &ps_omp_kernels32;
    default: return &ps_omp_kernels64;
    }
}

/* Fill in what a sort of n elements (values of vs bytes, none when values
 * is NULL) with team t (NULL: the calling thread alone) decides before it
 * has scratch, and return the scratch bytes it needs (0: more than size_t
 * holds).  The bytes never shrink as n grows for one key and value size
 * and team, so the block of the longest of several sorts serves them all
 * (the segmented sort).  Writes nothing but c (ps_openmp_plan.c). */
size_t ps_omp_plan(ps_omp_ctx *c, void *keys, void *values, size_t vs,
                   size_t n, ps_type type, unsigned flags, ps_team *t);

/* The scratch bytes a sort of n elements (values of vs bytes, 0 for none)
 * takes when its team has `members` members (1: the calling thread), as
 * ps_omp_plan would say: for ps_scratch_bytes, which must not depend on
 * whether the pool happens to be free when it is asked. */
size_t ps_omp_plan_bytes(size_t n, size_t vs, ps_type type, unsigned flags,
                         int members);

/* Run the sort planned in c in `block`, 64-byte aligned scratch of at
 * least the bytes ps_omp_plan returned: lays the block out, then sorts.
 * Cannot fail (ps_openmp_plan.c). */
void ps_omp_run(ps_omp_ctx *c, unsigned char *block);

/* The team of a sort (NULL: the calling thread alone), of up to
 * ps_omp_threads members; give it back with ps_team_close. */
ps_team *ps_omp_team_open(void);


/* ps_backend_ops.sort_segments (ps_openmp_segments.c). */
int ps_omp_sort_segments(void *state, void *keys, void *values, size_t vs,
                         size_t n, const size_t *offsets, size_t num_segments,
                         ps_type type, unsigned flags);

#endif /* PS_OPENMP_PLAN_H */
