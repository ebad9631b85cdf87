/*
 * ps_topkbench - ps_topk against a full sort of the same keys.
 *
 *   ps_topkbench [n [reps]]          n random u32 and f32 keys (default
 *                                    2^24), k = 1, 100, 10^4, 10^6
 *   ps_topkbench --segments S L K    S segments of L random u32 keys,
 *                                    ps_topk_segments with K against
 *                                    ps_sort_segments
 *   ps_topkbench --segments64 S L K  the same with u64 keys
 *
 * PS_TOPKBENCH_DISTINCT=D draws the keys from D distinct values instead
 * (1: all equal): ties, doc/topk.md.
 *
 * Each figure is the median of `reps` runs (default 5), each on a fresh
 * copy of the keys for the sort; the ratio is sort time / top-k time,
 * both measured in the same run of this program, on the backend
 * PORTSORT_BACKEND chooses.  doc/topk.md has the figures.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "portsort.h"
#include "ps_bench_clock.h"

/* malloc's answer, or the end of the program when it has none. */
static void *need(void *p)
{
    if (p == NULL) {
        fputs("ps_topkbench: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static void check(int st, const char *what)
{
    if (st != PS_OK) {
        fprintf(stderr, "ps_topkbench: %s: %s\n", what, ps_error_detail());
        exit(1);
    }
}

/* splitmix64: the same keys on every run. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* How many distinct values the keys take (PS_TOPKBENCH_DISTINCT); 0: as
 * many as random keys do. */
static uint64_t distinct;

/* Random u32 keys, or f32 keys uniform in [-1, 1) (no NaNs); with
 * `distinct`, D values spread over the type's range. */
static void fill(uint32_t *k, size_t n, ps_type t)
{
    uint64_t s = 1;
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t r = next(&s);
        if (distinct != 0)
            r = (r % distinct + 1) * 0x9E3779B97F4A7C15ull;
        if (t == PS_F32) {
            float f = (float)((double)(r >> 11) / 9007199254740992.0 * 2 - 1);
            memcpy(&k[i], &f, 4);
        } else {
            k[i] = (uint32_t)r;
        }
    }
}

static void arrays(size_t n, int reps)
{
    static const size_t ks[] = { 1, 100, 10000, 1000000 };
    static const ps_type types[] = { PS_U32, PS_F32 };
    uint32_t *keys = need(malloc(n * 4)), *copy = need(malloc(n * 4));
    uint32_t *out = need(malloc(1000000 * 4));
    size_t *idx = need(malloc(1000000 * sizeof(size_t)));
    double *t = need(malloc((size_t)reps * sizeof *t)), sort;
    size_t ti, j;
    int r;

    printf("backend %s, n = %zu, median of %d\n", ps_backend_name(), n, reps);
    printf("%-5s %9s %12s %12s %8s\n", "type", "k", "topk_ms", "sort_ms",
           "ratio");
    for (ti = 0; ti < 2; ti++) {
        fill(keys, n, types[ti]);
        for (r = 0; r < reps; r++) {
            double t0;
            memcpy(copy, keys, n * 4);
            t0 = ps_bench_now();
            check(ps_sort_keys(copy, n, types[ti], 0), "ps_sort_keys");
            t[r] = ps_bench_now() - t0;
        }
        sort = ps_bench_median(t, reps);
        for (j = 0; j < sizeof ks / sizeof ks[0]; j++) {
            size_t k = ks[j] < n ? ks[j] : n;
            double tk;
            for (r = 0; r < reps; r++) {
                double t0 = ps_bench_now();
                check(ps_topk(keys, NULL, 0, n, k, out, NULL, idx, types[ti], 0),
                      "ps_topk");
                t[r] = ps_bench_now() - t0;
            }
            tk = ps_bench_median(t, reps);
            /* The last run's results, checked against the sort. */
            memcpy(copy, keys, n * 4);
            check(ps_sort_keys(copy, n, types[ti], 0), "ps_sort_keys");
            if (memcmp(out, copy, k * 4) != 0) {
                fprintf(stderr, "ps_topkbench: ps_topk k = %zu differs from "
                        "the sort\n", k);
                exit(1);
            }
            printf("%-5s %9zu %12.2f %12.2f %8.1f\n",
                   types[ti] == PS_U32 ? "u32" : "f32", k, tk * 1e3, sort * 1e3,
                   sort / tk);
        }
    }
    free(keys); free(copy); free(out); free(idx); free(t);
}

/* S segments of len random keys of kb (4 or 8) bytes. */
static void segments(size_t ns, size_t len, size_t k, int reps, size_t kb)
{
    ps_type type = kb == 4 ? PS_U32 : PS_U64;
    size_t n = ns * len, s, i, *off = need(malloc((ns + 1) * sizeof(size_t)));
    unsigned char *keys = need(malloc(n * kb)), *copy = need(malloc(n * kb));
    unsigned char *out = need(malloc(ns * k * kb));
    double *t = need(malloc((size_t)reps * sizeof *t)), sort, tk;
    uint64_t seed = 7;
    int r;

    for (s = 0; s <= ns; s++)
        off[s] = s * len;
    if (kb == 4)
        fill((uint32_t *)(void *)keys, n, PS_U32);
    else
        for (i = 0; i < n; i++)
            ((uint64_t *)(void *)keys)[i] = next(&seed);
    for (r = 0; r < reps; r++) {
        double t0;
        memcpy(copy, keys, n * kb);
        t0 = ps_bench_now();
        check(ps_sort_segments(copy, NULL, 0, n, off, ns, type, 0),
              "ps_sort_segments");
        t[r] = ps_bench_now() - t0;
    }
    sort = ps_bench_median(t, reps);
    for (r = 0; r < reps; r++) {
        double t0 = ps_bench_now();
        check(ps_topk_segments(keys, NULL, 0, n, off, ns, k, out, NULL, NULL,
                               type, 0), "ps_topk_segments");
        t[r] = ps_bench_now() - t0;
    }
    tk = ps_bench_median(t, reps);
    for (s = 0; s < ns; s++)
        if (memcmp(out + s * k * kb, copy + s * len * kb,
                   (k < len ? k : len) * kb) != 0) {
            fprintf(stderr, "ps_topkbench: segment %zu differs\n", s);
            exit(1);
        }
    printf("backend %s, %zu segments of %zu u%zu, k = %zu, median of %d\n",
           ps_backend_name(), ns, len, 8 * kb, k, reps);
    printf("topk_segments %.2f ms, sort_segments %.2f ms, ratio %.1f\n",
           tk * 1e3, sort * 1e3, sort / tk);
    free(off); free(keys); free(copy); free(out); free(t);
}

/* A count from the command line, or the usage and exit 2: "--help" or a
 * typo must not run the benchmark with n = 0. */
static size_t num(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*s < '0' || *s > '9' || *end != 0 || v == 0) {
        fprintf(stderr, "usage: ps_topkbench [n [reps]]\n"
                        "       ps_topkbench --segments S L K [reps]\n"
                        "       ps_topkbench --segments64 S L K [reps]\n"
                        "(counts are positive integers; got '%s')\n", s);
        exit(2);
    }
    return (size_t)v;
}

int main(int argc, char **argv)
{
    const char *d = getenv("PS_TOPKBENCH_DISTINCT");
    if (d != NULL && *d != '\0')
        distinct = num(d);
    if (argc >= 2 && (strcmp(argv[1], "--segments") == 0 ||
                      strcmp(argv[1], "--segments64") == 0)) {
        if (argc < 5 || argc > 6)
            num("--segments needs S L K");
        check(ps_init(), "ps_init");
        segments(num(argv[2]), num(argv[3]), num(argv[4]),
                 argc > 5 ? (int)num(argv[5]) : 5,
                 strcmp(argv[1], "--segments64") == 0 ? 8 : 4);
        return 0;
    }
    if (argc > 3)
        num(argv[3]);
    {
        size_t n = argc > 1 ? num(argv[1]) : (size_t)1 << 24;
        int reps = argc > 2 ? (int)num(argv[2]) : 5;
        check(ps_init(), "ps_init");
        arrays(n, reps);
    }
    return 0;
}
