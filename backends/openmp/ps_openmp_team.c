/*
 * ps_openmp_team.c - the CPU backend's pool of threads and its phases
 * (ps_openmp_team.h says why the backend has its own).
 *
 * One pool per process.  A sort takes it with a trylock (a second sort at
 * the same time runs on its own thread), publishes phases on a board, and
 * gives it back.  The board:
 *   seq    the number of the phase published last; workers sleep on it;
 *   desc   what phase seq runs (function, argument, items, members), in
 *          two slots by seq's parity: a slot is rewritten only for phase
 *          seq + 2, which needs every item of phase seq + 1 finished, so a
 *          member that read seq s reads a slot that stays put for as long
 *          as it can still take an item of phase s;
 *   claim  (seq << 32) | the next item: a member takes an item with one
 *          compare-and-swap that also checks the phase, so a member that
 *          wakes late can never take an item of a phase it did not read;
 *   done   items of the phase finished; the caller sleeps on it.
 * Words that every member writes sit on lines of their own.
 */
#define _GNU_SOURCE     /* sched_getaffinity, CPU_COUNT */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

#include "ps_openmp_team.h"

/* How long a member polls a word before it sleeps.  First PS_SPIN_NS of
 * pause instructions: enough to catch the next phase of a sort (the
 * caller's work between two phases is a prefix sum, and a futex wake-up
 * costs tens of microseconds).  Timed rather than counted: a pause takes
 * from 3 to 140 cycles across x86 cores.
 *
 * Then, up to PS_POLL_NS, the member polls with sched_yield() between
 * looks: a worker that sleeps for milliseconds lets a virtual machine halt
 * its vCPU, and waking that takes longer than a sort of 2^20 keys (the
 * caller then claims every item alone: one thread's speed, measured in
 * doc/results-openmp.md).  libgomp's idle workers poll 3-8 ms the same
 * way (GOMP_SPINCOUNT), which is why its users do not see this.
 *
 * A yield that comes back PS_TAKEN_NS or more later means another task
 * ran on this core: the machine is busy, and polling on would take time
 * from it (and cost our own threads their wake-up credit with the
 * scheduler), so the member sleeps at once. */
#define PS_SPIN_NS 50000
#define PS_POLL_NS 10000000
#define PS_TAKEN_NS 30000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

#ifdef __linux__
static void sleep_on(uint32_t *word, uint32_t val)
{
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void wake_all(uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
#else
/* Without futexes a sleeper yields its core and looks again. */
static void sleep_on(uint32_t *word, uint32_t val)
{
    (void)word;
    (void)val;
    sched_yield();
}

static void wake_all(uint32_t *word)
{
    (void)word;
}
#endif

#define LINE_ALIGNED __attribute__((aligned(64)))

/* Each worker's stack. */
#define PS_STACK_BYTES ((size_t)2 << 20)

/* A word others wait on, and how many of them sleep in the kernel. */
typedef struct waitword {
    uint32_t value;
    uint32_t sleepers;
} waitword;

/* Wait until w->value is no longer val: spin, then sleep.  The sleeper
 * count is raised before the last look and read by the writer after its
 * store (both sequentially consistent), so either the sleeper sees the
 * new value or the writer sees the sleeper and wakes it. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void wait_change(waitword *w, uint32_t val)
{
    uint64_t start = 0;
    unsigned i;
    for (i = 1;; i++) {
        if (__atomic_load_n(&w->value, __ATOMIC_ACQUIRE) != val)
            return;
        if (i % 64 == 0) {      /* the clock costs about as much as 64 polls */
            uint64_t t = now_ns();
            if (start == 0)
                start = t;
            else if (t - start >= PS_POLL_NS)
                break;
            else if (t - start >= PS_SPIN_NS) {
                sched_yield();
                if (now_ns() - t >= PS_TAKEN_NS)
                    break;
            }
        }
        cpu_relax();
    }
    for (;;) {
        __atomic_add_fetch(&w->sleepers, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&w->value, __ATOMIC_SEQ_CST) == val)
            sleep_on(&w->value, val);
        __atomic_sub_fetch(&w->sleepers, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&w->value, __ATOMIC_ACQUIRE) != val)
            return;
    }
}

/* Wake whoever sleeps on w (after the store that they wait for). */
static void wake_sleepers(waitword *w)
{
    if (__atomic_load_n(&w->sleepers, __ATOMIC_SEQ_CST) != 0)
        wake_all(&w->value);
}

typedef struct phase {
    ps_team_item fn;
    void *arg;
    uint32_t items;
    int members;
} phase;

struct ps_team {
    pthread_mutex_t lock;       /* held by the sort that uses the pool */
    int workers;                /* threads running worker_main */
    int failures, fail_err;     /* pthread_create failures, the last errno */
    int members;                /* of the open team */
    phase desc[2];              /* phase s in desc[s & 1] */
    LINE_ALIGNED waitword seq;  /* the last phase published */
    LINE_ALIGNED uint64_t claim;/* (seq << 32) | next item */
    LINE_ALIGNED waitword done; /* items of the phase finished */
};

static struct ps_team pool = { .lock = PTHREAD_MUTEX_INITIALIZER };
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* Take and run items of phase s until none is left; returns at once when
 * the board has moved past s or the member is not one of s's. */
static void take_items(int member, uint32_t s)
{
    const phase *p = &pool.desc[s & 1];
    ps_team_item fn = __atomic_load_n(&p->fn, __ATOMIC_RELAXED);
    void *arg = __atomic_load_n(&p->arg, __ATOMIC_RELAXED);
    uint32_t items = __atomic_load_n(&p->items, __ATOMIC_RELAXED);
    int members = __atomic_load_n(&p->members, __ATOMIC_RELAXED);
    uint64_t w = __atomic_load_n(&pool.claim, __ATOMIC_ACQUIRE);

    for (;;) {
        uint32_t i = (uint32_t)w;
        if ((uint32_t)(w >> 32) != s || i >= items || member >= members)
            return;
        if (!__atomic_compare_exchange_n(&pool.claim, &w, w + 1, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;   /* w now holds the board's value: look again */
        fn(arg, member, i);
        if (__atomic_add_fetch(&pool.done.value, 1, __ATOMIC_SEQ_CST) == items)
            wake_sleepers(&pool.done);
        w = __atomic_load_n(&pool.claim, __ATOMIC_ACQUIRE);
    }
}

static void *worker_main(void *arg)
{
    int member = (int)(intptr_t)arg;
    uint32_t seen = __atomic_load_n(&pool.seq.value, __ATOMIC_ACQUIRE);
    for (;;) {
        wait_change(&pool.seq, seen);
        seen = __atomic_load_n(&pool.seq.value, __ATOMIC_ACQUIRE);
        take_items(member, seen);
    }
    return NULL;
}

/* Start workers until there are `want` (with pool.lock held).  Workers
 * block every signal, so that the application's handlers run on its own
 * threads, and are detached: they live as long as the process (the
 * library is never unloaded).  A failure (EAGAIN under RLIMIT_NPROC or a
 * cgroup's pids.max, ENOMEM) stops the growth for good: the sorts use the
 * workers there are, and retrying on every call would cost each one a
 * failing clone. */
static void grow(int want)
{
    sigset_t all, old;
    pthread_attr_t attr;
    if (pool.failures > 0 || pool.workers >= want)
        return;
    if (pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* A stack of its own size, not RLIMIT_STACK's (which may be hundreds
     * of MiB, each reserved in the address space): a member's deepest
     * call is a leaf under a few MSD levels of small frames. */
    pthread_attr_setstacksize(&attr, PS_STACK_BYTES);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (pool.workers < want) {
        pthread_t t;
        int err = pthread_create(&t, &attr, worker_main,
                                 (void *)(intptr_t)(pool.workers + 1));
        if (err != 0) {
            __atomic_store_n(&pool.fail_err, err, __ATOMIC_RELAXED);
            __atomic_add_fetch(&pool.failures, 1, __ATOMIC_RELEASE);
            break;
        }
        pool.workers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

/* fork(): the child has none of the workers (only the forking thread is
 * copied), so it starts with an empty pool and grows its own on its first
 * parallel sort.  The lock is held across the fork, so that no sort is
 * half-way through the board when the child's copy is made. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&pool.lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&pool.lock);
}

static void fork_child(void)
{
    pool.workers = 0;
    pool.failures = 0;
    pool.fail_err = 0;
    pool.seq.sleepers = 0;
    pool.done.sleepers = 0;
    pthread_mutex_unlock(&pool.lock);
}

static void pool_init(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

ps_team *ps_team_open(int want)
{
    if (want <= 1)
        return NULL;
    pthread_once(&pool_once, pool_init);
    if (pthread_mutex_trylock(&pool.lock) != 0)
        return NULL;
    if (want > PS_TEAM_MAX)
        want = PS_TEAM_MAX;
    grow(want - 1);
    if (pool.workers == 0) {
        pthread_mutex_unlock(&pool.lock);
        return NULL;
    }
    pool.members = want < pool.workers + 1 ? want : pool.workers + 1;
    return &pool;
}

int ps_team_members(const ps_team *t)
{
    return t != NULL ? t->members : 1;
}

/* One phase of at most UINT32_MAX items. */
static void run_phase(ps_team *t, uint32_t items, ps_team_item item, void *arg)
{
    uint32_t s = t->seq.value + 1;
    phase *p = &t->desc[s & 1];
    uint32_t d;

    __atomic_store_n(&p->fn, item, __ATOMIC_RELAXED);
    __atomic_store_n(&p->arg, arg, __ATOMIC_RELAXED);
    __atomic_store_n(&p->items, items, __ATOMIC_RELAXED);
    __atomic_store_n(&p->members, t->members, __ATOMIC_RELAXED);
    __atomic_store_n(&t->done.value, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->claim, (uint64_t)s << 32, __ATOMIC_RELEASE);
    __atomic_store_n(&t->seq.value, s, __ATOMIC_SEQ_CST);
    wake_sleepers(&t->seq);
    take_items(0, s);
    /* Wait for the items other members hold. */
    while ((d = __atomic_load_n(&t->done.value, __ATOMIC_ACQUIRE)) != items)
        wait_change(&t->done, d);
}

void ps_team_for(ps_team *t, size_t items, ps_team_item item, void *arg)
{
    size_t i;
    if (t == NULL || items == 1) {
        for (i = 0; i < items; i++)
            item(arg, 0, i);
        return;
    }
    /* Beyond 2^32 - 1 items (never, for a sort's phases), several phases. */
    for (i = 0; items - i > UINT32_MAX; i += UINT32_MAX)
        run_phase(t, UINT32_MAX, item, arg);
    if (items > i)
        run_phase(t, (uint32_t)(items - i), item, arg);
}

void ps_team_close(ps_team *t)
{
    if (t != NULL)
        pthread_mutex_unlock(&t->lock);
}

int ps_team_start_failures(int *err)
{
    int f = __atomic_load_n(&pool.failures, __ATOMIC_ACQUIRE);
    *err = __atomic_load_n(&pool.fail_err, __ATOMIC_RELAXED);
    return f;
}

/* ---- how many CPUs this process may use -------------------------------- */

/* The quota of a cgroup v2 directory's cpu.max, in CPUs rounded up, or 0
 * when it has none ("max") or cannot be read. */
static int cgroup_quota(const char *dir)
{
    char path[4200], line[128];
    long long quota, period;
    FILE *f;
    int cpus = 0;
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max", dir);
    f = fopen(path, "re");
    if (f == NULL)
        return 0;
    if (fgets(line, sizeof line, f) != NULL
        && sscanf(line, "%lld %lld", &quota, &period) == 2
        && quota > 0 && period > 0)
        cpus = (int)((quota + period - 1) / period);
    fclose(f);
    return cpus;
}

/* The smallest quota of this process's cgroup and its ancestors. */
static int cgroup_cpus(void)
{
    char line[4096], *dir, *slash;
    FILE *f = fopen("/proc/self/cgroup", "re");
    int best = 0;
    if (f == NULL)
        return 0;
    dir = NULL;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "0::", 3) == 0) {     /* the unified hierarchy */
            dir = line + 3;
            dir[strcspn(dir, "\n")] = '\0';
            break;
        }
    fclose(f);
    while (dir != NULL && dir[0] == '/' && strstr(dir, "..") == NULL) {
        int q = cgroup_quota(dir[1] != '\0' ? dir : "");
        if (q > 0 && (best == 0 || q < best))
            best = q;
        slash = strrchr(dir, '/');
        if (slash == dir)
            break;
        *slash = '\0';
    }
    return best;
}

int ps_team_cpus(void)
{
    int n = 0, q;
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
#endif
    if (n <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 ? (c < PS_TEAM_MAX ? (int)c : PS_TEAM_MAX) : 1;
    }
    q = cgroup_cpus();
    if (q > 0 && q < n)
        n = q;
    return n;
}
