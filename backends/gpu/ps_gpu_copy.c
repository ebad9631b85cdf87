/*
 * ps_gpu_copy.c - host copies between the caller's arrays and the pinned
 * staging buffers, on several threads.
 *
 * Host-array sorts move every byte through pinned staging twice (in and
 * out), and one core's memcpy (10-20 GB/s on the machines we know) is
 * slower than a PCIe 5 x16 link (about 50 GB/s each way): the copies, not
 * the link, would set the host-array rate.  So each staging chunk is cut
 * into parts copied at once by the calling thread and a few helper
 * threads, started with the backend and waiting on a condition variable
 * between chunks.  Chunks below PS_GPU_COPY_SPLIT_MIN are not worth a
 * wake-up and stay on the caller.
 *
 * One job at a time: the host-array path holds the backend's lock around
 * every copy, so the copier needs no queue.
 */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ps_gpu_internal.h"

#ifndef PS_GPU_COPY_SPLIT_MIN
#  define PS_GPU_COPY_SPLIT_MIN ((size_t)256 << 10)  /* the stand-in's test sets it lower */
#endif
/* Helper threads at most (the caller copies a part too). */
#define MAX_HELPERS 3

struct helper {
    struct ps_gpu_copier *c;
    unsigned index;             /* the part it copies: 1..nhelpers */
    pthread_t th;
};

struct ps_gpu_copier {
    pthread_mutex_t m;
    pthread_cond_t go, done;
    unsigned nhelpers;
    struct helper h[MAX_HELPERS];
    /* The current job, under m. */
    unsigned long gen;          /* bumped for every job */
    unsigned pending;           /* helpers yet to finish it */
    int quit;
    unsigned char *dst;
    const unsigned char *src;
    size_t bytes;
};

/* Part i of nparts of a job: cache-line multiples, the last takes the rest. */
static void copy_part(unsigned char *dst, const unsigned char *src, size_t bytes,
                      unsigned i, unsigned nparts)
{
    size_t per = (bytes / nparts + 63) & ~(size_t)63;
    size_t off = per * i, len;
    if (off >= bytes)
        return;
    len = i + 1 == nparts || bytes - off < per ? bytes - off : per;
    memcpy(dst + off, src + off, len);
}

static void *helper_main(void *arg)
{
    struct helper *h = arg;
    struct ps_gpu_copier *c = h->c;
    unsigned long seen = 0;

    pthread_mutex_lock(&c->m);
    for (;;) {
        unsigned char *dst;
        const unsigned char *src;
        size_t bytes;
        while (!c->quit && c->gen == seen)
            pthread_cond_wait(&c->go, &c->m);
        if (c->quit)
            break;
        seen = c->gen;
        dst = c->dst;
        src = c->src;
        bytes = c->bytes;
        pthread_mutex_unlock(&c->m);
        copy_part(dst, src, bytes, h->index, c->nhelpers + 1);
        pthread_mutex_lock(&c->m);
        if (--c->pending == 0)
            pthread_cond_signal(&c->done);
    }
    pthread_mutex_unlock(&c->m);
    return NULL;
}

ps_gpu_copier *ps_gpu_copier_new(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned want = cpus > 1 ? (unsigned)(cpus - 1) : 0, i;
    ps_gpu_copier *c;

    if (want > MAX_HELPERS)
        want = MAX_HELPERS;
    if (want == 0 || (c = calloc(1, sizeof *c)) == NULL)
        return NULL;
    pthread_mutex_init(&c->m, NULL);
    pthread_cond_init(&c->go, NULL);
    pthread_cond_init(&c->done, NULL);
    /* Fewer helpers than asked for is fine; none means no copier. */
    for (i = 0; i < want; i++) {
        c->h[i].c = c;
        c->h[i].index = i + 1;
        if (pthread_create(&c->h[i].th, NULL, helper_main, &c->h[i]) != 0)
            break;
        c->nhelpers++;
    }
    if (c->nhelpers == 0) {
        ps_gpu_copier_free(c);
        return NULL;
    }
    return c;
}

void ps_gpu_copier_free(ps_gpu_copier *c)
{
    unsigned i;
    if (c == NULL)
        return;
    pthread_mutex_lock(&c->m);
    c->quit = 1;
    pthread_cond_broadcast(&c->go);
    pthread_mutex_unlock(&c->m);
    for (i = 0; i < c->nhelpers; i++)
        pthread_join(c->h[i].th, NULL);
    pthread_cond_destroy(&c->done);
    pthread_cond_destroy(&c->go);
    pthread_mutex_destroy(&c->m);
    free(c);
}

void ps_gpu_copy(ps_gpu_copier *c, void *dst, const void *src, size_t bytes)
{
    if (c == NULL || bytes < PS_GPU_COPY_SPLIT_MIN) {
        memcpy(dst, src, bytes);
        return;
    }
    pthread_mutex_lock(&c->m);
    c->dst = dst;
    c->src = src;
    c->bytes = bytes;
    c->pending = c->nhelpers;
    c->gen++;
    pthread_cond_broadcast(&c->go);
    pthread_mutex_unlock(&c->m);
    copy_part(dst, src, bytes, 0, c->nhelpers + 1);
    pthread_mutex_lock(&c->m);
    while (c->pending > 0)
        pthread_cond_wait(&c->done, &c->m);
    pthread_mutex_unlock(&c->m);
}
