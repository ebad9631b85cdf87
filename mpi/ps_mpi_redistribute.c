/*
 * ps_mpi_redistribute.c - send the sorted buckets back to the input
 * counts.  After the exchange, rank r holds global positions
 * [B_r, B_r + m_r) (B the exclusive prefix sum of the bucket counts m) and
 * must end with positions [O_r, O_r + n_r) (O the prefix sum of the input
 * counts n).  Every rank knows every n and m, so each computes its send
 * and receive counts as interval overlaps, with no alltoall of counts.
 */
#include <config.h>

#include "ps_mpi_internal.h"

/* The overlap of [a, a + la) and [b, b + lb): its length, and its start
 * relative to `rel`. */
static void ps_mpi_overlap(uint64_t a, uint64_t la, uint64_t b, uint64_t lb, uint64_t rel,
                           size_t *count, size_t *displ)
{
    uint64_t lo = a > b ? a : b;
    uint64_t hi = a + la < b + lb ? a + la : b + lb;

    *count = hi > lo ? (size_t)(hi - lo) : 0;
    *displ = hi > lo ? (size_t)(lo - rel) : 0;
}

/* The pairs of distinct ranks with keys to move: the pieces of the merge
 * of the two partitions, [B_r, B_r + m_r) against [O_s, O_s + n_s),
 * where r != s.  Every rank counts the same, from n_all and m_all. */
static uint64_t ps_mpi_moving_pairs(const ps_mpi_ctx *c)
{
    uint64_t pairs = 0, bs = 0, os = 0;     /* where intervals r and s start */
    int r = 0, s = 0;

    while (r < c->size && s < c->size) {
        uint64_t be = bs + c->m_all[r], oe = os + c->n_all[s];
        uint64_t lo = bs > os ? bs : os, hi = be < oe ? be : oe;
        pairs += hi > lo && r != s;
        /* Past whichever ends first, both when they end together. */
        if (be <= oe) {
            bs = be;
            r++;
        }
        if (oe <= be) {
            os = oe;
            s++;
        }
    }
    return pairs;
}

void ps_mpi_redistribution(ps_mpi_ctx *c)
{
    /* At most 2 size - 1 pieces: sparse, once there are enough ranks. */
    c->sparse = ps_mpi_sparse_choice(c, ps_mpi_moving_pairs(c));
    uint64_t b_me = 0, o_me = 0, o = 0, b = 0;
    int me = c->rank;

    for (int r = 0; r < me; r++) {
        b_me += c->m_all[r];
        o_me += c->n_all[r];
    }
    for (int r = 0; r < c->size; r++) {
        ps_mpi_overlap(b_me, c->m_all[me], o, c->n_all[r], b_me,
                       &c->scount[r], &c->sdispl[r]);
        ps_mpi_overlap(b, c->m_all[r], o_me, c->n_all[me], o_me,
                       &c->rcount[r], &c->rdispl[r]);
        o += c->n_all[r];
        b += c->m_all[r];
    }
}
