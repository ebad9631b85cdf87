/*
 * ps_host.c - the services the core lends to backends (logging, failure
 * messages, scratch memory), gathered in one ps_host table because modules
 * cannot link against the core's hidden functions.
 */
#include <config.h>

#include <sys/mman.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_internal.h"

/* PORTSORT_VERBOSE: "1" on, "0" (or unset, or empty) off.  Anything else
 * ("no", "true", "yes") is refused at the choice of backend rather than
 * guessed at: "no" used to turn the messages on. */
static const char *const verbose_words[] = { "0", "1", NULL };

int ps_verbose_check(char *why, size_t why_len)
{
    int v = 0;
    int r = ps_env_word("PORTSORT_VERBOSE", verbose_words,
                        "0 or 1; unset or empty is 0", &v, why, why_len);
    return r < 0 ? -1 : v;
}

/* Read once: getenv is not guaranteed thread-safe against setenv, and the
 * answer must not change in the middle of a process's choice of backend.
 * A malformed value leaves the library silent. */
static int verbose_state = -1;

int ps_verbose(void)
{
    int v = __atomic_load_n(&verbose_state, __ATOMIC_RELAXED);
    if (v < 0) {
        char why[160];
        v = ps_verbose_check(why, sizeof why) == 1;
        __atomic_store_n(&verbose_state, v, __ATOMIC_RELAXED);
    }
    return v;
}

void ps_log(const char *fmt, ...)
{
    va_list ap;
    char line[768];
    if (!ps_verbose())
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One fprintf per line keeps lines from concurrent threads whole. */
    fprintf(stderr, "portsort: %s\n", line);
}

static void host_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ps_detail_vset(fmt, ap);
    va_end(ap);
}

/* Scratch of at least this many bytes is asked for in transparent huge
 * pages (Linux's "madvise" mode, a common default, gives them only where
 * asked). */
#define PS_HUGE_MIN ((size_t)8 << 20)
#define PS_HUGE_PAGE ((size_t)2 << 20)

/* Scratch is 64-byte aligned so that backends can use aligned and streaming
 * stores on it.  Sizes are rounded up as aligned_alloc requires.  Large
 * blocks are aligned to 2 MiB and marked MADV_HUGEPAGE: a sort writes all
 * of its scratch once, and taking fresh memory one 4 KiB fault at a time
 * was a fifth of a 10M-string sort (314k faults; 10M duplicates 194-206
 * -> 158-174 ms, 2 threads, Zen 5).  The hint is only a hint: where huge
 * pages are off or unknown nothing changes. */
void *ps_alloc(size_t bytes)
{
    size_t rounded;
    if (bytes == 0)
        bytes = 1;
    rounded = (bytes + 63) & ~(size_t)63;
    if (rounded < bytes)
        return NULL;
#if defined(MADV_HUGEPAGE)
    if (rounded >= PS_HUGE_MIN) {
        size_t huge = (rounded + PS_HUGE_PAGE - 1) & ~(PS_HUGE_PAGE - 1);
        void *p;
        if (huge < rounded)
            return NULL;
        p = aligned_alloc(PS_HUGE_PAGE, huge);
        if (p != NULL)
            (void)madvise(p, huge, MADV_HUGEPAGE);
        return p;
    }
#endif
    return aligned_alloc(64, rounded);
}

void ps_release(void *p)
{
    free(p);
}

static ps_host host_services;
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void host_init(void)
{
    host_services.abi = PS_BACKEND_ABI;
    host_services.size = sizeof host_services;
    host_services.verbose = ps_verbose();
    host_services.log = ps_log;
    host_services.fail = host_fail;
    host_services.alloc = ps_alloc;
    host_services.release = ps_release;
    host_services.lost = ps_backend_lost;
    host_services.take = ps_scratch_take;
    host_services.put = ps_scratch_put;
}

const ps_host *ps_host_get(void)
{
    pthread_once(&host_once, host_init);
    return &host_services;
}
