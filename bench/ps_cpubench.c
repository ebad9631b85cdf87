/*
 * ps_cpubench - the CPU sort benchmark: libportsort's chosen backend (run it
 * with PORTSORT_BACKEND=openmp) against Highway's vqsort on one thread and
 * a plain serial LSD radix sort, on the same data in one process.
 *
 * Usage: ps_cpubench [REPS] [CASE...]
 *   CASE: u32, u32p2 (n = 2^24), u64, pairs (u32 keys, u32 values), or
 *   NAME:N for another size; default: all four at 16,000,000 (2^24 for
 *   u32p2), 7 repetitions.
 *
 * Each round runs every sorter once, in turn.  Prints the median rate of
 * each sorter and the ratios; every result is
 * checked against the others.  PS_CPUBENCH_NOCACHE=1 releases libportsort's
 * scratch cache before each of its sorts (outside the timing).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "portsort.h"
#include "peers/ps_peers.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The plain LSD radix sort the issue measures against: 8-bit digits, one
 * histogram pass, a scatter per digit, no tricks. */
#define PLAIN_LSD(W)                                                         \
static int plain_lsd_##W(uint##W##_t *k, uint32_t *v, size_t n)              \
{                                                                            \
    enum { P = W / 8 };                                                      \
    size_t (*h)[256] = calloc(P, sizeof *h), i;                              \
    uint##W##_t *kb = malloc(n * sizeof *kb), *ks = k, *kd = kb;             \
    uint32_t *vb = v ? malloc(n * sizeof *vb) : NULL, *vsrc = v, *vd = vb;   \
    int p;                                                                   \
    if (h == NULL || kb == NULL || (v && vb == NULL)) {                      \
        free(h); free(kb); free(vb);                                         \
        return -1;                                                           \
    }                                                                        \
    for (i = 0; i < n; i++)                                                  \
        for (p = 0; p < P; p++)                                              \
            h[p][(k[i] >> (8 * p)) & 0xff]++;                                \
    for (p = 0; p < P; p++) {                                                \
        size_t off[256], sum = 0;                                            \
        int d;                                                               \
        for (d = 0; d < 256; d++) {                                          \
            off[d] = sum;                                                    \
            sum += h[p][d];                                                  \
        }                                                                    \
        for (i = 0; i < n; i++) {                                            \
            size_t o = off[(ks[i] >> (8 * p)) & 0xff]++;                     \
            kd[o] = ks[i];                                                   \
            if (v)                                                           \
                vd[o] = vsrc[i];                                             \
        }                                                                    \
        { uint##W##_t *t = ks; ks = kd; kd = t; }                            \
        { uint32_t *t = vsrc; vsrc = vd; vd = t; }                           \
    }                                                                        \
    free(h); free(kb); free(vb);                                             \
    return 0;                                                                \
}
PLAIN_LSD(32)
PLAIN_LSD(64)

typedef struct bcase {
    const char *name;
    ps_type type;
    int pairs;
    size_t n;
} bcase;

enum { OURS, VQSORT, PLAIN, NSORTERS };
/* PS_CPUBENCH_NOCACHE=1: give libportsort's scratch back before every sort,
 * to measure what the cache saves. */
static int no_cache;
static const char *sorter_names[] = { "libportsort", "vqsort-1t", "plain-lsd" };

static int run_sorter(int s, const bcase *bc, void *k, uint32_t *v)
{
    switch (s) {
    case OURS:
        return bc->pairs ? ps_sort_pairs(k, v, 4, bc->n, bc->type, 0)
                         : ps_sort_keys(k, bc->n, bc->type, 0);
    case VQSORT:
        return bc->pairs ? -1 : ps_peer_vqsort(k, bc->n, (int)bc->type);
    default:
        return bc->type == PS_U32 ? plain_lsd_32(k, bc->pairs ? v : NULL, bc->n)
                                  : plain_lsd_64(k, bc->pairs ? v : NULL, bc->n);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bench(const bcase *bc, int reps)
{
    size_t kb = ps_type_size(bc->type), n = bc->n, i;
    unsigned char *src = malloc(n * kb), *work = malloc(n * kb);
    unsigned char *first = malloc(n * kb);
    uint32_t *v = bc->pairs ? malloc(n * 4) : NULL;
    double med[NSORTERS], t[NSORTERS][64];
    uint64_t seed = 42;
    int s, r, ok[NSORTERS], have_first = 0;

    if (src == NULL || work == NULL || first == NULL || (bc->pairs && v == NULL)) {
        fprintf(stderr, "ps_cpubench: out of memory\n");
        exit(1);
    }
    for (i = 0; i < n; i++) {
        uint64_t x = splitmix(&seed);
        memcpy(src + i * kb, &x, kb);
    }
    /* Round-robin: each round runs every sorter once on the same data, so
     * that the machine's drift (shared hosts: 10-30% within minutes)
     * falls on all of them alike instead of on whichever ran last. */
    if (reps > 64)
        reps = 64;
    for (s = 0; s < NSORTERS; s++)
        ok[s] = 1;
    for (r = 0; r < reps; r++) {
        for (s = 0; s < NSORTERS; s++) {
            double t0;
            if (!ok[s])
                continue;
            memcpy(work, src, n * kb);
            if (v != NULL)
                for (i = 0; i < n; i++)
                    v[i] = (uint32_t)i;
            if (s == OURS && no_cache)
                ps_release_cache();
            t0 = now();
            if (run_sorter(s, bc, work, v) != 0) {
                ok[s] = 0;      /* not built in, or failed: shown as "-" */
                continue;
            }
            t[s][r] = now() - t0;
            if (!have_first) {
                memcpy(first, work, n * kb);
                have_first = 1;
            } else if (memcmp(first, work, n * kb) != 0) {
                fprintf(stderr, "ps_cpubench: %s: %s disagrees with %s\n",
                        bc->name, sorter_names[s], sorter_names[OURS]);
                exit(1);
            }
        }
    }
    for (s = 0; s < NSORTERS; s++) {
        med[s] = 0;
        if (ok[s]) {
            qsort(t[s], (size_t)reps, sizeof t[s][0], cmp_double);
            med[s] = t[s][reps / 2];
        }
    }
    printf("%-6s n=%-9zu", bc->name, n);
    for (s = 0; s < NSORTERS; s++) {
        if (med[s] > 0)
            printf("  %s %7.1f M/s", sorter_names[s], (double)n / med[s] / 1e6);
        else
            printf("  %s       -    ", sorter_names[s]);
    }
    for (s = 1; s < NSORTERS; s++)
        if (med[s] > 0 && med[OURS] > 0)
            printf("  x%.2f vs %s", med[s] / med[OURS], sorter_names[s]);
    printf("\n");
    fflush(stdout);
    free(src); free(work); free(first); free(v);
}

static int parse_case(const char *arg, bcase *bc)
{
    static const bcase known[] = {
        { "u32", PS_U32, 0, 16000000 },
        { "u32p2", PS_U32, 0, (size_t)1 << 24 },
        { "u64", PS_U64, 0, 16000000 },
        { "pairs", PS_U32, 1, 16000000 },
    };
    const char *colon = strchr(arg, ':');
    size_t len = colon ? (size_t)(colon - arg) : strlen(arg), i;
    for (i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strlen(known[i].name) == len && strncmp(known[i].name, arg, len) == 0) {
            *bc = known[i];
            if (colon != NULL)
                bc->n = strtoull(colon + 1, NULL, 0);
            return bc->n > 0;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const char *defaults[] = { "u32", "u32p2", "u64", "pairs" };
    int reps = argc > 1 ? atoi(argv[1]) : 7, i, st;
    const char **cases = argc > 2 ? (const char **)argv + 2 : defaults;
    int ncases = argc > 2 ? argc - 2 : 4;

    if (reps < 1) {
        fprintf(stderr, "usage: ps_cpubench [REPS] [u32|u32p2|u64|pairs[:N]...]\n");
        return 2;
    }
    no_cache = getenv("PS_CPUBENCH_NOCACHE") != NULL;
    st = ps_init();
    if (st != PS_OK) {
        fprintf(stderr, "ps_cpubench: %s: %s\n", ps_strerror(st), ps_error_detail());
        return 1;
    }
    printf("backend %s; vqsort %s; median of %d\n", ps_backend_name(),
           ps_peer_vqsort_available() ? "on one thread" : "not built (no libhwy)",
           reps);
    for (i = 0; i < ncases; i++) {
        bcase bc;
        if (!parse_case(cases[i], &bc)) {
            fprintf(stderr, "ps_cpubench: unknown case %s\n", cases[i]);
            return 2;
        }
        bench(&bc, reps);
    }
    return 0;
}
