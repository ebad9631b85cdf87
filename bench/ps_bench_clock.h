/*
 * ps_bench_clock.h - the clock and the median of the small C benchmarks
 * (ps_topkbench, ps_strbench): wall-clock seconds, the median of a few
 * runs so that one run disturbed by the machine's other work does not
 * make the figure.
 */
#ifndef PS_BENCH_CLOCK_H
#define PS_BENCH_CLOCK_H

#include <stdlib.h>
#include <time.h>

static inline double ps_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int ps_bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of t[0 .. n-1] (reorders t). */
static inline double ps_bench_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, ps_bench_cmp_double);
    return t[n / 2];
}

#endif /* PS_BENCH_CLOCK_H */
