/*
 * ps_scratch.c - host scratch kept between calls: a few large blocks that
 * a sort takes, uses and puts back, so that a program sorting many arrays
 * does not pay for fresh pages on every call.  On the machines we measure
 * on, memory the process has not touched before costs more than the sort
 * that writes it: the kernel clears each page (and a hypervisor may back
 * it first), a fifth of a 10M-string sort's time.  Used by the core
 * (the string sorts' references and words, the records' images and
 * values, ps_argsort's copy and indices, the index path's) and, through
 * ps_host.take and ps_host.put, by the backends (the OpenMP backend's
 * scratch).
 *
 * A call takes a slot's block exclusively; a call that finds every slot
 * taken, or asks for less than PS_KEEP_MIN or more than PS_KEEP_MAX,
 * allocates a block of its own, freed on put: concurrent sorts never wait
 * for each other here.  ps_release_cache() frees the blocks no sort holds
 * and marks the others to be freed when they come back; so does the
 * library's unload.
 */
#include <config.h>

#include <pthread.h>
#include <stddef.h>

#include "ps_internal.h"

/* How many blocks are kept: a string sort's scratch and, inside it, the
 * OpenMP pair sort's; a segmented or records sort's; and one spare for a
 * concurrent caller. */
#define PS_KEEP_SLOTS 4
/* Smaller blocks cost little to take fresh, and keeping them would hold
 * memory for nothing. */
#define PS_KEEP_MIN ((size_t)1 << 18)
/* The largest block kept. */
#define PS_KEEP_MAX (((size_t)1 << 30) * (sizeof(size_t) >= 8 ? 4 : 1))

typedef struct keep_slot {
    void *block;        /* NULL or the kept block */
    size_t bytes;
    int busy;           /* a sort holds block */
    int drop;           /* trimmed while busy: free it on put */
} keep_slot;

static pthread_mutex_t keep_lock = PTHREAD_MUTEX_INITIALIZER;
static keep_slot keep[PS_KEEP_SLOTS];

/* Under keep_lock: the free slot whose block fits `bytes` most closely,
 * else a free slot to refill (an empty one first, then the largest, whose
 * block is too small anyway), else -1. */
static int keep_choose(size_t bytes, int *fits)
{
    int i, best = -1, spare = -1;
    for (i = 0; i < PS_KEEP_SLOTS; i++) {
        const keep_slot *k = &keep[i];
        if (k->busy)
            continue;
        if (k->block != NULL && k->bytes >= bytes) {
            if (best < 0 || k->bytes < keep[best].bytes)
                best = i;
        } else if (k->block == NULL) {
            if (spare < 0 || keep[spare].block != NULL)
                spare = i;
        } else if (spare < 0 || (keep[spare].block != NULL &&
                                 k->bytes > keep[spare].bytes)) {
            spare = i;
        }
    }
    *fits = best >= 0;
    return best >= 0 ? best : spare;
}

static void *take_admitted(size_t bytes, int *kept)
{
    void *p, *stale = NULL;
    int i, fits;

    if (bytes < PS_KEEP_MIN || bytes > PS_KEEP_MAX)
        return ps_alloc_raw(bytes);
    pthread_mutex_lock(&keep_lock);
    i = keep_choose(bytes, &fits);
    if (i >= 0) {
        keep[i].busy = 1;
        keep[i].drop = 0;
        if (!fits) {
            stale = keep[i].block;
            keep[i].block = NULL;
            keep[i].bytes = 0;
        }
    }
    p = i >= 0 ? keep[i].block : NULL;
    pthread_mutex_unlock(&keep_lock);
    if (i < 0)
        return ps_alloc_raw(bytes);
    *kept = 1;
    if (p != NULL)
        return p;
    ps_release(stale);
    p = ps_alloc_raw(bytes);
    pthread_mutex_lock(&keep_lock);
    if (p != NULL) {
        keep[i].block = p;
        keep[i].bytes = bytes;
    } else {
        keep[i].busy = 0;
    }
    pthread_mutex_unlock(&keep_lock);
    if (p == NULL)
        *kept = 0;
    return p;
}

void *ps_scratch_take(size_t bytes, int *kept)
{
    void *p;
    *kept = 0;
    if (!ps_mem_admit(bytes))   /* a kept block counts as a new one */
        return NULL;
    p = take_admitted(bytes, kept);
    if (p == NULL)
        ps_mem_unadmit(bytes);  /* malloc refused: nothing was taken */
    return p;
}

void ps_scratch_put(void *p, int kept)
{
    void *drop = NULL;
    int i;
    if (!kept) {
        ps_release(p);
        return;
    }
    pthread_mutex_lock(&keep_lock);
    for (i = 0; i < PS_KEEP_SLOTS; i++) {
        keep_slot *k = &keep[i];
        if (k->busy && k->block == p) {
            k->busy = 0;
            if (k->drop) {
                drop = k->block;
                k->block = NULL;
                k->bytes = 0;
                k->drop = 0;
            }
            break;
        }
    }
    pthread_mutex_unlock(&keep_lock);
    ps_release(drop);
}

void ps_scratch_trim(void)
{
    void *drop[PS_KEEP_SLOTS];
    int i, nd = 0;
    pthread_mutex_lock(&keep_lock);
    for (i = 0; i < PS_KEEP_SLOTS; i++) {
        keep_slot *k = &keep[i];
        if (k->busy) {
            k->drop = 1;
        } else if (k->block != NULL) {
            drop[nd++] = k->block;
            k->block = NULL;
            k->bytes = 0;
        }
    }
    pthread_mutex_unlock(&keep_lock);
    for (i = 0; i < nd; i++)
        ps_release(drop[i]);
}

/* ---- fork() ----------------------------------------------------------- */

/* The lock is taken around every fork, so that no other thread of the
 * parent holds it at that moment; the child gets it free, and the blocks,
 * none of which a thread of the child is using (the sorts that held them
 * are the parent's).  Registered by a constructor, before any fork the
 * library could miss. */
static void keep_fork_prepare(void)
{
    pthread_mutex_lock(&keep_lock);
}

static void keep_fork_parent(void)
{
    pthread_mutex_unlock(&keep_lock);
}

static void keep_fork_child(void)
{
    int i;
    for (i = 0; i < PS_KEEP_SLOTS; i++)
        keep[i].busy = keep[i].drop = 0;
    pthread_mutex_unlock(&keep_lock);
}

__attribute__((constructor)) static void keep_watch_forks(void)
{
    pthread_atfork(keep_fork_prepare, keep_fork_parent, keep_fork_child);
}
