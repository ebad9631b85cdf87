/*
 * ps_quickbench - a small benchmark of the default backend and of the
 * serial reference sort against the C library's qsort, on the same data in
 * one run.  Usage: ps_quickbench [N] [REPS]   (default 16000000 keys, 5 reps)
 *
 * Prints the median rate of each; every result is checked to be sorted.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "portsort.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rng32(void)
{
    /* xorshift64*: fast, and the same data on every run. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int is_sorted(const uint32_t *k, size_t n)
{
    size_t i;
    for (i = 1; i < n; i++)
        if (k[i - 1] > k[i])
            return 0;
    return 1;
}

typedef int (*sorter)(uint32_t *k, size_t n);

static int by_library(uint32_t *k, size_t n)
{
    return ps_sort_keys(k, n, PS_U32, 0);
}

static int by_qsort(uint32_t *k, size_t n)
{
    qsort(k, n, sizeof *k, cmp_u32);
    return PS_OK;
}

/* Median over reps of the time to sort a fresh copy of src. */
static double time_sort(sorter f, const uint32_t *src, uint32_t *work,
                        size_t n, int reps)
{
    double t[64];
    int r;
    if (reps > 64)
        reps = 64;
    for (r = 0; r < reps; r++) {
        double t0;
        int st;
        memcpy(work, src, n * sizeof *src);
        t0 = now();
        st = f(work, n);
        t[r] = now() - t0;
        if (st != PS_OK || !is_sorted(work, n)) {
            fprintf(stderr, "ps_quickbench: sort failed: %s (%s)\n",
                    ps_strerror(st), ps_error_detail());
            exit(1);
        }
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    return t[reps / 2];
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 16000000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    size_t nq = n < 1000000 ? n : 1000000, i;
    uint32_t *src, *work;
    double t_lib, t_q, t_small;
    int st;

    if (n == 0 || reps < 1) {
        fprintf(stderr, "usage: ps_quickbench [N > 0] [REPS > 0]\n");
        return 2;
    }
    st = ps_init();
    if (st != PS_OK) {
        fprintf(stderr, "ps_quickbench: %s: %s\n", ps_strerror(st), ps_error_detail());
        return 1;
    }
    src = malloc(n * sizeof *src);
    work = malloc(n * sizeof *work);
    if (src == NULL || work == NULL) {
        fprintf(stderr, "ps_quickbench: out of memory\n");
        return 1;
    }
    for (i = 0; i < n; i++)
        src[i] = rng32();

    t_lib = time_sort(by_library, src, work, n, reps);
    printf("backend %-8s %10zu random u32: %8.1f Mkeys/s  (median of %d, %.2f ms)\n",
           ps_backend_name(), n, n / t_lib / 1e6, reps, t_lib * 1e3);
    /* qsort is slow: compare on at most 1M keys, both sorters on the same data. */
    t_small = time_sort(by_library, src, work, nq, reps);
    t_q = time_sort(by_qsort, src, work, nq, reps);
    printf("backend %-8s %10zu random u32: %8.1f Mkeys/s\n", ps_backend_name(), nq,
           nq / t_small / 1e6);
    printf("qsort            %10zu random u32: %8.1f Mkeys/s\n", nq, nq / t_q / 1e6);
    printf("speedup over qsort: %.1fx\n", t_q / t_small);
    free(src);
    free(work);
    return 0;
}
