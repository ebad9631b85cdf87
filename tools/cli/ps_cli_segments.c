/*
 * ps_cli_segments.c - the segmentations `portsort bench --segments` sorts:
 * the shapes users have, from the rows of a CSR sparse matrix to a few
 * huge segments.  Like the datasets, each depends only on (shape, param,
 * n), so every child process builds the same one.
 */
#include <string.h>

#include "ps_cli_bench_parts.h"

/* Segment lengths from a fixed stream (splitmix64 of a counter). */
static uint64_t draw(uint64_t *ctr)
{
    return ps_cli_mix64(++*ctr);
}

/* Lengths len(i) until n keys are covered, the last one cut to fit.
 * Every length is at least 1, so there are at most n segments. */
static size_t fill_offsets(size_t n, size_t *offsets, unsigned param,
                           size_t (*len)(uint64_t *ctr, unsigned param, size_t n))
{
    size_t ns = 0, at = 0;
    uint64_t ctr = 0x5e65;
    offsets[0] = 0;
    while (at < n) {
        size_t m = len(&ctr, param, n);
        if (m < 1)
            m = 1;
        at += m < n - at ? m : n - at;
        offsets[++ns] = at;
    }
    return ns;
}

static size_t len_csr(uint64_t *ctr, unsigned param, size_t n)
{
    (void)param, (void)n;
    return 5 + (size_t)(draw(ctr) % 11);
}

static size_t len_uniform(uint64_t *ctr, unsigned param, size_t n)
{
    (void)n;
    return 1 + (size_t)(draw(ctr) % (2 * (uint64_t)param - 1));
}

static size_t len_power(uint64_t *ctr, unsigned param, size_t n)
{
    uint64_t r = draw(ctr);
    size_t top = (size_t)1 << (r % (param + 1));
    (void)n;
    return (size_t)((top * ((r >> 8) % 1024 + 1)) >> 10);
}

static size_t len_equal(uint64_t *ctr, unsigned param, size_t n)
{
    (void)ctr;
    return (n + param - 1) / param;
}

#define SHAPE(f) \
static size_t f##_offsets(size_t n, unsigned p, size_t *off) \
{ \
    return fill_offsets(n, off, p, len_##f); \
}
SHAPE(csr)
SHAPE(uniform)
SHAPE(power)
SHAPE(equal)
#undef SHAPE

const ps_cli_segshape ps_cli_segshapes[] = {
    { "csr", "rows of a sparse matrix: 5 to 15 keys, 10 on average", 0,
      csr_offsets },
    { "uniform", "lengths 1 to 2K-1, K on average (K = 100)", 100,
      uniform_offsets },
    { "power-law", "lengths up to 2^K (K = 20), log-uniform", 20,
      power_offsets },
    { "equal", "K segments of equal length (K = 4)", 4, equal_offsets },
};
const size_t ps_cli_nsegshapes = sizeof ps_cli_segshapes / sizeof ps_cli_segshapes[0];

const ps_cli_segshape *ps_cli_segshape_by_name(const char *name)
{
    size_t i;
    for (i = 0; i < ps_cli_nsegshapes; i++)
        if (strcmp(ps_cli_segshapes[i].name, name) == 0)
            return &ps_cli_segshapes[i];
    return NULL;
}
