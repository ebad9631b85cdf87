/*
 * ps_strbench - ps_sort_strings against qsort(strcmp) and, when built,
 * tlx::sort_strings, on the same pointers to the same strings.
 *
 *   ps_strbench [n [reps]]    n strings of each data set (default 10^6),
 *                             the median of `reps` runs (default 3;
 *                             qsort at most 3 at n > 2 * 10^6: one run
 *                             of 10^7 URL-like lines took 4.3 to 6.0 s)
 *
 * Data sets: random words (1-20 bytes of a-z), URL-like lines (2000 hosts
 * under a shared "https://www." prefix, paths from a small vocabulary),
 * many duplicates (1000 distinct words).  Each run sorts a fresh copy of
 * the pointer array; every result is checked against strcmp order (and
 * ps_sort_strings for stability too).
 *
 * Peers loaded at run time: PS_STRBENCH_PEERS names shared objects
 * (':'-separated), each exporting
 *     const char *ps_strbench_peer_name(void);
 *     int ps_strbench_peer_sort(const char **strings, size_t n);
 * bench/ps_strbench_tlx.cc is tlx's, and doc/strings.md says how to build
 * it; the project never links tlx.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "portsort.h"
#include "ps_bench_clock.h"

static void *need(void *p)
{
    if (p == NULL) {
        fputs("ps_strbench: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A word of 1-20 letters into p (NUL-terminated); returns its length. */
static size_t word(char *p, uint64_t *s)
{
    size_t len = 1 + rnd(s) % 20, j;
    for (j = 0; j < len; j++)
        p[j] = (char)('a' + rnd(s) % 26);
    p[len] = 0;
    return len;
}

/* n strings of data set `set` in one buffer; *ptr gets the pointers. */
static char *make(int set, size_t n, const char ***ptr)
{
    static const char *const seg[] = { "index", "images", "2024", "static",
        "api", "v1", "users", "search", "docs", "blog" };
    char *buf = need(malloc(n * 96)), *at = buf;
    const char **p = need(malloc(n * sizeof *p));
    uint64_t s = 42 + (uint64_t)set;
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t r = rnd(&s);
        p[i] = at;
        if (set == 0) {
            at += word(at, &s) + 1;
        } else if (set == 1) {
            at += sprintf(at, "https://www.host%04u.example.com/%s/%s/%u.html",
                          (unsigned)(r % 2000), seg[(r >> 11) % 10],
                          seg[(r >> 15) % 10], (unsigned)(r >> 20) % 100000) + 1;
        } else {
            uint64_t w = r % 1000;
            at += word(at, &w) + 1;
        }
    }
    *ptr = p;
    return buf;
}

static int by_strcmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* 1 when sorted (and, with stable, equal strings in address order, which
 * is their input order here). */
static int sorted(const char **p, size_t n, int stable)
{
    size_t i;
    for (i = 1; i < n; i++) {
        int r = strcmp(p[i - 1], p[i]);
        if (r > 0 || (stable && r == 0 && p[i - 1] > p[i]))
            return 0;
    }
    return 1;
}

typedef int (*sort_fn)(const char **p, size_t n);

static int run_ps(const char **p, size_t n)
{
    return ps_sort_strings(p, n, 0);
}

static int run_qsort(const char **p, size_t n)
{
    qsort(p, n, sizeof *p, by_strcmp);
    return 0;
}

static double measure(sort_fn f, const char *name, const char **orig,
                      const char **work, size_t n, int reps, int stable)
{
    double t[16];
    int r;
    for (r = 0; r < reps; r++) {
        double t0;
        memcpy(work, orig, n * sizeof *work);
        t0 = ps_bench_now();
        if (f(work, n) != 0) {
            fprintf(stderr, "ps_strbench: %s failed: %s\n", name,
                    ps_error_detail());
            exit(1);
        }
        t[r] = ps_bench_now() - t0;
        if (!sorted(work, n, stable)) {
            fprintf(stderr, "ps_strbench: %s left the strings unsorted\n", name);
            exit(1);
        }
    }
    return ps_bench_median(t, reps);
}

int main(int argc, char **argv)
{
    static const char *const sets[3] = { "random words", "URL-like lines",
                                         "many duplicates" };
    size_t n = argc > 1 ? (size_t)strtod(argv[1], NULL) : 1000000;
    int reps = argc > 2 ? atoi(argv[2]) : 3, set, k, npeer = 0;
    const char *peer_name[4];
    sort_fn peer_sort[4];
    char *env = getenv("PS_STRBENCH_PEERS");

    if (reps < 1 || reps > 16 || n < 2) {
        fputs("usage: ps_strbench [n >= 2 [reps 1-16]]\n", stderr);
        return 2;
    }
    if (env != NULL && *env != 0) {
        char *list = need(strdup(env)), *tok;
        for (tok = strtok(list, ":"); tok != NULL && npeer < 4;
             tok = strtok(NULL, ":")) {
            void *h = dlopen(tok, RTLD_NOW | RTLD_LOCAL);
            const char *(*nm)(void);
            if (h == NULL) {
                fprintf(stderr, "ps_strbench: %s\n", dlerror());
                return 1;
            }
            *(void **)&nm = dlsym(h, "ps_strbench_peer_name");
            *(void **)&peer_sort[npeer] = dlsym(h, "ps_strbench_peer_sort");
            if (nm == NULL || peer_sort[npeer] == NULL) {
                fprintf(stderr, "ps_strbench: %s lacks the peer functions\n", tok);
                return 1;
            }
            peer_name[npeer++] = nm();
        }
    }
    if (ps_init() != PS_OK) {
        fprintf(stderr, "ps_strbench: %s\n", ps_error_detail());
        return 1;
    }
    printf("n = %zu, backend %s, median of %d\n", n, ps_backend_name(), reps);
    printf("| data | ps_sort_strings | qsort(strcmp) | ratio");
    for (k = 0; k < npeer; k++)
        printf(" | %s | ratio", peer_name[k]);
    printf(" |\n|---|---|---|---");
    for (k = 0; k < npeer; k++)
        printf("|---|---");
    printf("|\n");
    for (set = 0; set < 3; set++) {
        const char **orig, **work = need(malloc(n * sizeof *work));
        char *buf = make(set, n, &orig);
        double tp = measure(run_ps, "ps_sort_strings", orig, work, n, reps, 1);
        double tq = measure(run_qsort, "qsort", orig, work, n,
                            n > 2000000 && reps > 3 ? 3 : reps, 0);
        printf("| %s | %.3f s | %.3f s | %.1fx", sets[set], tp, tq, tq / tp);
        for (k = 0; k < npeer; k++) {
            double tk = measure(peer_sort[k], peer_name[k], orig, work, n,
                                reps, 0);
            printf(" | %.3f s | %.2fx", tk, tk / tp);
        }
        printf(" |\n");
        fflush(stdout);
        free(buf);
        free(orig);
        free(work);
    }
    return 0;
}
