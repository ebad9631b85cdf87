/*
 * ps_inplace.h - the in-place sort of keys, for when a sort's scratch
 * cannot be had (the allocation failed, or it would pass the memory limit,
 * ps_set_memory_limit).
 *
 * An MSD radix sort with 8-bit digits of the keys' order images that
 * permutes each bucket in place (American flag sort: counts, then swaps),
 * finishing buckets of up to 2 KiB through a buffer on the stack.  Extra
 * memory: under 7 KiB of stack per level, at most one level per key byte,
 * so the recursion is bounded by the key width (under 60 KiB in all).  Keys alone only: a sort of
 * keys is not observably unstable (equal images are equal bits), but a
 * pair sort would be, so pairs never come here.
 */
#ifndef PS_INPLACE_H
#define PS_INPLACE_H

#include <stddef.h>

#include "ps_keytype.h"

/* Runs job(ctx, i) for every i in [0, jobs), in any order and possibly at
 * once on several threads, and returns when all have returned; rctx is
 * the runner's own.  NULL runs them in order on the calling thread. */
typedef void (*ps_inplace_run)(void *rctx, size_t jobs,
                               void (*job)(void *ctx, size_t i), void *ctx);

/*
 * Sort n keys of `type` in place (ascending, or descending with
 * PS_DESCENDING in flags) without allocating.  The first digit that
 * splits the keys is distributed on the calling thread; the 256 buckets
 * it makes are then sorted as jobs of `run`.  Cannot fail.
 */
void ps_inplace_sort_keys(void *keys, size_t n, ps_type type, unsigned flags,
                          ps_inplace_run run, void *rctx);

#endif /* PS_INPLACE_H */
