/*
 * ps_mpi_cache.c - the work memory a call keeps for the next one.
 *
 * Each call needs a bucket and a send buffer, about 1.5 times the rank's
 * input.  Fresh from malloc, such blocks come from mmap, and touching them
 * the first time costs a page fault per 4 KiB, a cost that one rank
 * sorting in place does not pay (the backends keep their own scratch).
 * So the block of the last call is kept in one slot.  A call takes the
 * slot's block with an atomic exchange (a call running at the same time on
 * another communicator finds the slot empty and allocates its own) and
 * puts its block back only into an empty slot, so no lock is needed and at
 * most one block is ever kept.
 */
#include <config.h>

#include <stdlib.h>

#include "ps_mpi_internal.h"

/* The block's size sits in front of the memory handed out, in a head of
 * one cache line, which keeps the memory 64-byte aligned. */
#define PS_MPI_CACHE_HEAD 64

static unsigned char *kept;    /* the kept block (its head), or NULL */

void *ps_mpi_cache_take(size_t bytes)
{
    unsigned char *b = __atomic_exchange_n(&kept, NULL, __ATOMIC_ACQUIRE);
    size_t room = 0;

    if (b != NULL)
        memcpy(&room, b, sizeof room);
    if (b != NULL && room < bytes) {
        free(b);
        b = NULL;
    }
    if (b == NULL) {
        /* aligned_alloc, as libportsort allocates: the tests make it fail
         * on one rank to see every rank agree (test/ps_test_faults.c). */
        if (bytes > SIZE_MAX - 2 * PS_MPI_CACHE_HEAD)
            return NULL;
        b = aligned_alloc(PS_MPI_CACHE_HEAD, (PS_MPI_CACHE_HEAD + bytes + PS_MPI_CACHE_HEAD - 1)
                                             & ~(size_t)(PS_MPI_CACHE_HEAD - 1));
        if (b == NULL)
            return NULL;
        memcpy(b, &bytes, sizeof bytes);
    }
    return b + PS_MPI_CACHE_HEAD;
}

void ps_mpi_cache_put(void *p)
{
    unsigned char *b = (unsigned char *)p - PS_MPI_CACHE_HEAD, *empty = NULL;

    if (!__atomic_compare_exchange_n(&kept, &empty, b, 0, __ATOMIC_RELEASE,
                                     __ATOMIC_RELAXED))
        free(b);
}

int ps_mpi_release_cache(void)
{
    free(__atomic_exchange_n(&kept, NULL, __ATOMIC_ACQUIRE));
    return PS_OK;
}
