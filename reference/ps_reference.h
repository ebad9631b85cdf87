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

#include "ps_backend.h"

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

#endif /* PS_REFERENCE_H */
