/*
 * ps_test_topkdev.h - the device top-k's cases, shared by the programs of
 * the device APIs (ps_test_gpu_fake: CUDA's on the stand-in;
 * ps_test_opencl api: OpenCL's on pocl), which each supply the call.
 */
#ifndef PS_TEST_TOPKDEV_H
#define PS_TEST_TOPKDEV_H

#include <stddef.h>

#include "portsort.h"

/* One device top-k of host arrays: copies of keys, vals (vs 0, 4 or 8;
 * NULL with 0) and offs (nseg + 1 offsets; offs NULL for the plain form)
 * on the device, the call (ps_<api>_topk or _topk_segments), then `slots`
 * elements of each output read back into okeys, ovals (NULL with vs 0) and
 * oidx (NULL: none asked for), which hold the caller's sentinel bytes on
 * entry and must be device outputs that start with those bytes.  Returns
 * the call's status. */
typedef int (*t_topk_dev_fn)(const void *keys, const void *vals, size_t vs,
                             size_t n, const size_t *offs, size_t nseg,
                             size_t k, void *okeys, void *ovals, size_t *oidx,
                             size_t slots, ps_type type, unsigned flags);

/* The cases: every key type, both directions, k in {0, 1, n - 1, n,
 * n + 5} (and the middle for ties at the k-th key), keys random with
 * the special values (+-0, NaNs of both signs, infinities, extremes) mixed
 * in, all equal, and two values; values of 0, 4 and 8 bytes and out_index
 * or not, rotating; then segments empty, shorter than k and longer.  Each
 * result is compared bit for bit with the first k of the stable sorting
 * permutation (t_oracle_perm: what ps_argsort gives), and every slot past a segment's
 * results must keep its sentinel.  Fails the test, naming `who`, or
 * returns the number of calls. */
int t_topk_device(const char *who, t_topk_dev_fn run);

#endif
