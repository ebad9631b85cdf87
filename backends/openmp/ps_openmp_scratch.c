/*
 * ps_openmp_scratch.c - the OpenMP backend's cache of scratch: one block
 * (n keys, n values, counts and line buffers: ps_openmp_plan.c lays it
 * out), kept between calls so that a program sorting many arrays does not
 * pay for fresh pages every time.  A call takes the block exclusively; a
 * call that finds it taken allocates its own, so concurrent sorts never
 * wait for each other here.
 */
#include <config.h>

#include <pthread.h>
#include <stddef.h>

#include "ps_openmp_plan.h"

/* The cache keeps at most one block of scratch, of at most this size. */
#define PS_CACHE_MAX (((size_t)1 << 30) * (sizeof(size_t) >= 8 ? 4 : 1))

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static void *cache_block;       /* NULL or the cached block */
static size_t cache_bytes;
static int cache_busy;          /* a sort holds cache_block */
static int cache_drop;          /* trim asked while busy: free on return */

void *ps_omp_scratch_take(size_t bytes, int *from_cache)
{
    void *p = NULL, *stale = NULL;
    pthread_mutex_lock(&cache_lock);
    if (!cache_busy && bytes <= PS_CACHE_MAX) {
        if (cache_block != NULL && cache_bytes < bytes) {
            stale = cache_block;    /* too small: replace it */
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
    ps_omp_host->release(stale);
    if (p != NULL)
        return p;
    p = ps_omp_host->alloc(bytes);
    if (*from_cache) {
        pthread_mutex_lock(&cache_lock);
        if (p != NULL) {
            cache_block = p;
            cache_bytes = bytes;
        } else {
            cache_busy = 0;
        }
        pthread_mutex_unlock(&cache_lock);
    }
    return p;
}

void ps_omp_scratch_put(void *p, int from_cache)
{
    void *drop = NULL;
    if (!from_cache) {
        ps_omp_host->release(p);
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
    ps_omp_host->release(drop);
}

void ps_omp_scratch_trim(void)
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
    if (ps_omp_host != NULL)
        ps_omp_host->release(drop);
}

/* ---- fork() ----------------------------------------------------------- */

/* The cache's lock is taken around every fork, so that no other thread of
 * the parent holds it at that moment, and the child gets the lock free
 * and the cached block, which no thread of the child is using.  The
 * handlers are registered by a constructor, before any fork the library
 * could miss.  (The pool of threads has handlers of its own,
 * ps_openmp_team.c: a child starts a pool of its own and sorts in
 * parallel too.) */
static void omp_fork_prepare(void)
{
    pthread_mutex_lock(&cache_lock);
}

static void omp_fork_parent(void)
{
    pthread_mutex_unlock(&cache_lock);
}

static void omp_fork_child(void)
{
    cache_busy = 0;
    cache_drop = 0;
    pthread_mutex_unlock(&cache_lock);
}

__attribute__((constructor)) static void openmp_watch_forks(void)
{
    pthread_atfork(omp_fork_prepare, omp_fork_parent, omp_fork_child);
}
