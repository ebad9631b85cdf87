/*
 * ps_openmp_leaf.h - what the OpenMP backend's control hands its leaves:
 * the MSD passes (ps_openmp_msd.c) cut the keys into buckets that fit in
 * cache, and each bucket, a leaf, is finished by one thread
 * (ps_openmp_leaf.c).  Both address a sort's arrays through the helpers
 * below, inlined where they are used.
 */
#ifndef PS_OPENMP_LEAF_H
#define PS_OPENMP_LEAF_H

#include <stddef.h>

#include "ps_openmp_sort.h"

/* Position i of array `where`, as a pointer (keys or values). */
static inline unsigned char *key_at(const ps_omp_ctx *c, int where, size_t i)
{
    return (unsigned char *)c->k[where] + i * (c->bits / 8);
}

static inline unsigned char *value_at(const ps_omp_ctx *c, int where,
                                      size_t i)
{
    return c->vs ? c->v[where] + i * c->vs : NULL;
}
/* Finish positions [a, a + m) of array `where` by image bits [lo, hi)
 * (the bits above hi are the same in every key of the leaf), leaving
 * them in array 0, in thread tl's part of the scratch.  m < 2^32. */
void ps_omp_leaf(const ps_omp_ctx *c, ps_omp_tls *tl, int where, size_t a,
                 size_t m, unsigned lo, unsigned hi);

/* The same for a leaf of the packed route (c->kt->packed): the packed
 * elements at [a, a + m) of the scratch (array 1), sorted by key image
 * bits [lo, hi), go apart into [a, a + m) of the caller's keys and
 * values.  m <= c->leaf_cap. */
void ps_omp_pk_leaf(const ps_omp_ctx *c, ps_omp_tls *tl, size_t a, size_t m,
                    unsigned lo, unsigned hi);

#endif /* PS_OPENMP_LEAF_H */
