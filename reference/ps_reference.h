/*
 * ps_reference.h - the serial reference radix sort.
 *
 * A stable LSD counting sort with 8-bit digits: one read pass builds the
 * histogram of every digit, each remaining pass does an exclusive scan and
 * a stable scatter, and a pass whose digit is the same for every key is
 * skipped.  Keys are moved as their original bits; the order transforms
 * (signed, float totalOrder, descending) are applied only to compute digits,
 * so nothing has to be transformed back.  It is the backend of last resort
 * and the algorithm other backends are checked against.
 */
#ifndef PS_REFERENCE_H
#define PS_REFERENCE_H

#include <stddef.h>

#include "ps_keytype.h"

/*
 * Sort n keys of `type` in place, with values (value_size bytes each, any
 * size >= 1) moving with them when values is not NULL.  Scratch of n keys
 * (and n values) comes from alloc/release and is obtained before anything
 * is written, so on PS_ERR_NO_MEMORY the arrays are unchanged.  Returns
 * PS_OK or PS_ERR_NO_MEMORY.
 */
int ps_reference_sort(void *keys, void *values, size_t value_size, size_t n,
                      ps_type type, unsigned flags,
                      void *(*alloc)(size_t), void (*release)(void *));

/* Segments of at most this many keys are sorted by insertion instead. */
#define PS_REFERENCE_TINY 32

/*
 * Bytes of scratch ps_reference_sort_segments needs for segments of at
 * most n keys (and values of value_size bytes, 0 for none), or 0 when that
 * overflows size_t.
 */
size_t ps_reference_scratch_bytes(size_t n, ps_type type, size_t value_size);

/*
 * Sort segments first..last-1 of a segmented array, each on its own, in
 * this thread: segment s is elements offsets[s] to offsets[s + 1] - 1 of
 * keys (and values, NULL for keys only).  Tiny segments take an insertion
 * sort, the others the LSD sort, both stable.  scratch is 64-byte aligned
 * memory of ps_reference_scratch_bytes(the longest segment's length, ...)
 * bytes, so nothing is allocated and nothing can fail.  The arguments must
 * have been checked (offsets non-decreasing, within the arrays).
 */
void ps_reference_sort_segments(void *keys, void *values, size_t value_size,
                                const size_t *offsets, size_t first,
                                size_t last, ps_type type, unsigned flags,
                                void *scratch);

#endif /* PS_REFERENCE_H */
