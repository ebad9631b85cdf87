/*
 * ps_host.c - the services the core lends to backends (logging, failure
 * messages, scratch memory), gathered in one ps_host table because modules
 * cannot link against the core's hidden functions.
 */
#include <config.h>

#include <sys/mman.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
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
void *ps_alloc_raw(size_t bytes)
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

void *ps_alloc(size_t bytes)
{
    void *p;
    if (!ps_mem_admit(bytes))
        return NULL;
    p = ps_alloc_raw(bytes);
    if (p == NULL)
        ps_mem_unadmit(bytes);
    return p;
}

void ps_release(void *p)
{
    free(p);
}

/* ---- the memory limit ------------------------------------------------
 *
 * mem_limit is 0 (none) or the limit in bytes; until ps_set_memory_limit
 * is called it is read from PORTSORT_MEMORY_LIMIT once (a malformed value
 * fails ps_init first, at the choice of backend, and means no limit here).
 * Each thread counts what its current call has taken, so that concurrent
 * calls on other threads never share a budget. */
static size_t mem_limit;
static pthread_once_t mem_once = PTHREAD_ONCE_INIT;
static _Thread_local int call_open, call_nested;
static _Thread_local size_t call_bytes, call_refused;

int ps_mem_limit_check(char *why, size_t why_len)
{
    size_t v;
    return ps_env_bytes("PORTSORT_MEMORY_LIMIT", &v, why, why_len) < 0 ? -1 : 0;
}

static void mem_read_env(void)
{
    char why[200];
    size_t v = 0;
    if (ps_env_bytes("PORTSORT_MEMORY_LIMIT", &v, why, sizeof why) == 1)
        __atomic_store_n(&mem_limit, v, __ATOMIC_RELAXED);
}

static size_t mem_limit_now(void)
{
    pthread_once(&mem_once, mem_read_env);
    return __atomic_load_n(&mem_limit, __ATOMIC_RELAXED);
}

int ps_set_memory_limit(size_t bytes)
{
    pthread_once(&mem_once, mem_read_env);  /* the environment is overruled */
    __atomic_store_n(&mem_limit, bytes, __ATOMIC_RELAXED);
    return PS_OK;
}

void ps_mem_call_begin(void)
{
    if (call_nested)
        return;                 /* a public call made by the core's own */
    call_open = 1;
    call_bytes = 0;
    call_refused = 0;
}

void ps_mem_nest(int enter)
{
    call_nested += enter ? 1 : -1;
}

int ps_mem_admit(size_t bytes)
{
    size_t lim;
    if (!call_open)
        return 1;
    lim = mem_limit_now();
    if (lim != 0 && (call_bytes > lim || bytes > lim - call_bytes)) {
        call_refused = bytes;
        return 0;
    }
    call_bytes += bytes;
    return 1;
}

void ps_mem_unadmit(size_t bytes)
{
    if (call_open && bytes <= call_bytes)
        call_bytes -= bytes;
}

size_t ps_mem_mark(void)
{
    return call_open ? call_bytes : 0;
}

void ps_mem_rewind(size_t mark)
{
    if (call_open && mark <= call_bytes)
        call_bytes = mark;
}

size_t ps_mem_left(void)
{
    size_t lim;
    if (!call_open)
        return SIZE_MAX;
    lim = mem_limit_now();
    if (lim == 0)
        return SIZE_MAX;
    return call_bytes < lim ? lim - call_bytes : 0;
}

void ps_mem_note(char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    if (call_open && call_refused != 0)
        snprintf(buf, len, " (the memory limit, %zu bytes, refused a block "
                 "of %zu after %zu: raise PORTSORT_MEMORY_LIMIT or "
                 "ps_set_memory_limit, or 0 for none)", mem_limit_now(),
                 call_refused, call_bytes);
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
