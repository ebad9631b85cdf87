/*
 * ps_mpi_cache.c - the work memory a call keeps for the next one.
 *
 * Each call needs a bucket and a send buffer, about 1.5 times the rank's
 * input.  Fresh from malloc, such blocks come from mmap, and touching them
 * the first time costs a page fault per 4 KiB: at 2 ranks and 16M u32 keys
 * that was as much as a fifth of the call, a cost that one rank sorting in
 * place does not pay (the backends keep their own scratch).  So the block
 * of the last call is kept, as the OpenMP backend keeps its scratch: one
 * block, taken by one call at a time (a concurrent call on another
 * communicator allocates its own), replaced when too small, and given back
 * by ps_mpi_release_cache().
 */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>

#include "ps_mpi_internal.h"

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static void *cache_block;      /* NULL or the kept block */
static size_t cache_bytes;
static int cache_busy;         /* a call holds cache_block */
static int cache_drop;         /* released while busy: free it on return */

void *ps_mpi_cache_take(size_t bytes, int *from_cache)
{
    void *p = NULL, *stale = NULL;

    pthread_mutex_lock(&cache_lock);
    if (!cache_busy) {
        if (cache_block != NULL && cache_bytes < bytes) {
            stale = cache_block;    /* too small: replaced below */
            cache_block = NULL;
            cache_bytes = 0;
        }
        cache_busy = 1;
        cache_drop = 0;
        *from_cache = 1;
        p = cache_block;
    } else {
        *from_cache = 0;
    }
    pthread_mutex_unlock(&cache_lock);
    free(stale);
    if (p != NULL)
        return p;
    p = malloc(bytes > 0 ? bytes : 1);
    if (*from_cache) {
        pthread_mutex_lock(&cache_lock);
        if (p != NULL) {
            cache_block = p;
            cache_bytes = bytes;
        } else {
            cache_busy = 0;
            *from_cache = 0;
        }
        pthread_mutex_unlock(&cache_lock);
    }
    return p;
}

void ps_mpi_cache_put(void *p, int from_cache)
{
    void *drop = NULL;

    if (!from_cache) {
        free(p);
        return;
    }
    pthread_mutex_lock(&cache_lock);
    cache_busy = 0;
    if (cache_drop) {
        drop = cache_block;
        cache_block = NULL;
        cache_bytes = 0;
        cache_drop = 0;
    }
    pthread_mutex_unlock(&cache_lock);
    free(drop);
}

int ps_mpi_release_cache(void)
{
    void *drop = NULL;

    pthread_mutex_lock(&cache_lock);
    if (cache_busy) {
        cache_drop = 1;
    } else {
        drop = cache_block;
        cache_block = NULL;
        cache_bytes = 0;
    }
    pthread_mutex_unlock(&cache_lock);
    free(drop);
    return PS_OK;
}
