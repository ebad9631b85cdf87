/*
 * ps_cpubench_proc.c - the processes bench/ps_cpubench starts: one that
 * runs libportsort on one thread (PORTSORT_THREADS is read once, at init,
 * so another thread count needs another process), and the busy load of
 * issue 34 (processes that spin, one per core, as other jobs on a shared
 * machine do).  Every one of them is killed when the benchmark ends, is
 * interrupted or crashes.
 */
#include <config.h>

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* sched_getaffinity, CPU_COUNT */
#endif
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "ps_cpubench.h"

double ps_cb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

size_t ps_cb_scratch_div;

int ps_cb_ours_sort(ps_cb_kind k, void *keys, void *values, size_t n, size_t m,
                    int release_cache, double *seconds)
{
    const ps_cb_kind_info *ki = &ps_cb_kinds[k];
    double t = 0, t0 = 0;
    size_t j;
    int st = PS_OK;

    if (ps_cb_scratch_div != 0)
        ps_set_memory_limit(ps_scratch_bytes(n, ki->value_size, ki->type, 0) /
                            ps_cb_scratch_div);
    if (!release_cache)
        t0 = ps_cb_now();
    for (j = 0; j < m && st == PS_OK; j++) {
        char *kj = (char *)keys + j * n * ki->key_size;
        char *vj = ki->value_size ? (char *)values + j * n * ki->value_size : NULL;
        if (release_cache) {
            ps_release_cache();
            t0 = ps_cb_now();
        }
        st = vj ? ps_sort_pairs(kj, vj, ki->value_size, n, ki->type, 0)
                : ps_sort_keys(kj, n, ki->type, 0);
        if (release_cache)
            t += ps_cb_now() - t0;
    }
    *seconds = release_cache ? t : ps_cb_now() - t0;
    if (ps_cb_scratch_div != 0)
        ps_set_memory_limit(0);
    return st;
}

/* ---- the children and their guard ------------------------------------- */

enum { MAX_BUSY = 1024 };
static pid_t busy_pid[MAX_BUSY];
static int nbusy;
static pid_t solo_pid;
static int solo_cmd = -1, solo_reply = -1;
static unsigned char *solo_shm;
static size_t solo_cap;

static const int guarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS,
                               SIGILL, SIGFPE, SIGABRT };

/* Async-signal-safe: kill(2) and waitpid(2) only. */
static void kill_children(void)
{
    int i;
    for (i = 0; i < nbusy; i++)
        if (busy_pid[i] > 0)
            kill(busy_pid[i], SIGKILL);
    for (i = 0; i < nbusy; i++)
        if (busy_pid[i] > 0)
            waitpid(busy_pid[i], NULL, 0);
    nbusy = 0;
    if (solo_pid > 0) {
        kill(solo_pid, SIGKILL);
        waitpid(solo_pid, NULL, 0);
        solo_pid = 0;
    }
}

static void on_signal(int sig)
{
    kill_children();
    signal(sig, SIG_DFL);
    raise(sig);
}

void ps_cb_guard_children(void)
{
    size_t i;
    atexit(kill_children);
    for (i = 0; i < sizeof guarded / sizeof guarded[0]; i++)
        signal(guarded[i], on_signal);
}

/* In a new child: forget the parent's children (the guard would kill them
 * from here), take the default action on every signal, and die with the
 * parent.  Returns 0, or -1 when the parent is already gone. */
static int become_child(pid_t parent)
{
    size_t i;
    nbusy = 0;
    solo_pid = 0;
    for (i = 0; i < sizeof guarded / sizeof guarded[0]; i++)
        signal(guarded[i], SIG_DFL);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    return getppid() == parent ? 0 : -1;
}

/* ---- ours on one thread ----------------------------------------------- */

typedef struct solo_request {
    int kind;
    int release_cache;
    size_t n, m;
} solo_request;

typedef struct solo_answer {
    int status;
    double seconds;
} solo_answer;

static int io_full(int fd, void *buf, size_t len, int writing)
{
    char *p = buf;
    while (len > 0) {
        ssize_t r = writing ? write(fd, p, len) : read(fd, p, len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

/* The child: sorts in a private copy of the shared area (private anonymous
 * memory, like the parent's arrays, so that both get the same pages,
 * transparent huge pages included), and answers with the time. */
static void solo_main(int cmd, int reply)
{
    unsigned char *priv = NULL;
    size_t have = 0;
    solo_request rq;
    int st = ps_init();

    for (;;) {
        solo_answer an = { st, 0 };
        size_t kb, vb;
        if (io_full(cmd, &rq, sizeof rq, 0) != 0)
            _exit(0);
        kb = rq.n * rq.m * ps_cb_kinds[rq.kind].key_size;
        vb = rq.n * rq.m * ps_cb_kinds[rq.kind].value_size;
        if (kb + vb > have) {
            unsigned char *p = realloc(priv, kb + vb);
            if (p == NULL) {
                an.status = PS_ERR_NO_MEMORY;
            } else {
                priv = p;
                have = kb + vb;
            }
        }
        if (an.status == PS_OK) {
            memcpy(priv, solo_shm, kb + vb);
            an.status = ps_cb_ours_sort((ps_cb_kind)rq.kind, priv, priv + kb, rq.n, rq.m,
                                        rq.release_cache, &an.seconds);
            memcpy(solo_shm, priv, kb + vb);
        }
        if (io_full(reply, &an, sizeof an, 1) != 0)
            _exit(0);
    }
}

int ps_cb_solo_start(size_t cap)
{
    int to_child[2], from_child[2];
    pid_t parent = getpid(), pid;

    solo_shm = mmap(NULL, cap ? cap : 1, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (solo_shm == MAP_FAILED) {
        solo_shm = NULL;
        fprintf(stderr, "ps_cpubench: cannot map %zu bytes for ours-1t: %s\n", cap,
                strerror(errno));
        return -1;
    }
    solo_cap = cap;
    if (pipe(to_child) != 0 || pipe(from_child) != 0) {
        fprintf(stderr, "ps_cpubench: pipe: %s\n", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "ps_cpubench: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        close(to_child[1]);
        close(from_child[0]);
        if (become_child(parent) != 0)
            _exit(0);
        setenv("PORTSORT_THREADS", "1", 1);
        solo_main(to_child[0], from_child[1]);
    }
    close(to_child[0]);
    close(from_child[1]);
    solo_cmd = to_child[1];
    solo_reply = from_child[0];
    solo_pid = pid;
    /* A child that died must not kill us with SIGPIPE: the write fails. */
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

long ps_cb_solo_pid(void)
{
    return (long)solo_pid;
}

int ps_cb_solo_sort(ps_cb_kind k, void *keys, void *values, size_t n, size_t m,
                    int release_cache, double *seconds)
{
    size_t kb = n * m * ps_cb_kinds[k].key_size, vb = n * m * ps_cb_kinds[k].value_size;
    solo_request rq;
    solo_answer an;

    if (solo_pid <= 0 || kb + vb > solo_cap)
        return -1;
    memset(&rq, 0, sizeof rq);
    rq.kind = (int)k;
    rq.release_cache = release_cache;
    rq.n = n;
    rq.m = m;
    memcpy(solo_shm, keys, kb);
    if (vb)
        memcpy(solo_shm + kb, values, vb);
    if (io_full(solo_cmd, &rq, sizeof rq, 1) != 0 ||
        io_full(solo_reply, &an, sizeof an, 0) != 0)
        return -1;
    memcpy(keys, solo_shm, kb);
    if (vb)
        memcpy(values, solo_shm + kb, vb);
    *seconds = an.seconds;
    return an.status;
}

/* ---- the busy load ---------------------------------------------------- */

static void spin(void)
{
    volatile unsigned long x = 0;
    for (;;)
        x++;
}

int ps_cb_busy_start(int count)
{
    pid_t parent = getpid();
    int i;
    fflush(NULL);
    for (i = 0; i < count && nbusy < MAX_BUSY; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            if (become_child(parent) != 0)
                _exit(0);
            spin();
        }
        if (pid < 0) {
            fprintf(stderr, "ps_cpubench: fork: %s\n", strerror(errno));
            break;
        }
        busy_pid[nbusy++] = pid;
    }
    return i;
}

void ps_cb_busy_stop(void)
{
    int i;
    for (i = 0; i < nbusy; i++)
        kill(busy_pid[i], SIGKILL);
    for (i = 0; i < nbusy; i++)
        waitpid(busy_pid[i], NULL, 0);
    nbusy = 0;
}

const pid_t *ps_cb_busy_pids(int *count)
{
    *count = nbusy;
    return busy_pid;
}

/* ---- the machine ------------------------------------------------------ */

int ps_cb_cpus(void)
{
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
#endif
    {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n > 0 ? (int)n : 1;
    }
}

const char *ps_cb_loadavg(char *buf, size_t size)
{
    double la[3];
    if (getloadavg(la, 3) == 3)
        snprintf(buf, size, "load average %.2f %.2f %.2f", la[0], la[1], la[2]);
    else
        snprintf(buf, size, "load average unknown");
    return buf;
}

/* The value of the first "key<tabs>: value" line of /proc/cpuinfo. */
static int cpuinfo(const char *key, char *out, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    size_t len = strlen(key);
    int found = 0;
    if (f == NULL)
        return 0;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        char *colon = strchr(line, ':');
        size_t klen;
        if (colon == NULL)
            continue;
        for (klen = (size_t)(colon - line); klen > 0 && (line[klen - 1] == '\t' ||
                                                         line[klen - 1] == ' '); klen--)
            ;
        if (klen == len && strncmp(line, key, len) == 0) {
            char *v = colon + 1 + (colon[1] == ' ');
            v[strcspn(v, "\n")] = '\0';
            snprintf(out, size, "%s", v);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

void ps_cb_machine(FILE *f)
{
    char model[256] = "unknown", family[32] = "?", mod[32] = "?", flags[4096] = "";
    char quota[128] = "", la[64];
    FILE *q = fopen("/sys/fs/cgroup/cpu.max", "r");
    int avx2, avx512;

    cpuinfo("model name", model, sizeof model);
    cpuinfo("cpu family", family, sizeof family);
    cpuinfo("model", mod, sizeof mod);
    cpuinfo("flags", flags, sizeof flags - 1);     /* room for the space */
    strcat(flags, " ");
    avx2 = strstr(flags, " avx2 ") != NULL;
    avx512 = strstr(flags, " avx512f ") != NULL;
    if (q != NULL) {
        if (fgets(quota, sizeof quota, q) != NULL)
            quota[strcspn(quota, "\n")] = '\0';
        fclose(q);
    }
    fprintf(f, "cpu: %s (family %s, model %s), %s; %ld CPUs online, %d allowed%s%s%s; %s\n",
            model, family, mod,
            avx512 ? "AVX-512 and AVX2" : avx2 ? "AVX2, no AVX-512" : "no AVX2",
            sysconf(_SC_NPROCESSORS_ONLN), ps_cb_cpus(),
            quota[0] ? ", cgroup cpu.max \"" : "", quota, quota[0] ? "\"" : "",
            ps_cb_loadavg(la, sizeof la));
}
