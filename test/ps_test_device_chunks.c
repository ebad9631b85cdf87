/*
 * ps_test_device_chunks.c - host arrays larger than the device holds
 * (issue 32, part 2; lib/ps_chunks.c).  On a device backend whose buffers
 * PORTSORT_TEST_DEVICE_MEMORY caps below the arrays' size, ps_sort_keys,
 * ps_sort_pairs (values of 4 and 8 bytes, and of 3 through the index
 * route) and ps_argsort must still give the stable order, bit for bit:
 * the device sorts pieces and the core merges them.  Every type, both
 * directions, shapes with long runs of equal keys (which the pieces cut),
 * checked against the test oracle.  A cap that no piece fits must give
 * PS_ERR_DEVICE_MEMORY with the arrays as they were.
 *
 * Run by test/opencl-chunks.sh with PORTSORT_BACKEND=opencl (pocl in CI);
 * skipped on a backend that is not a device's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portsort.h"
#include "ps_test_util.h"

enum { M_KEYS, M_PAIRS4, M_PAIRS8, M_PAIRS3, M_ARGSORT, M_COUNT };
static const size_t mode_vs[M_COUNT] = { 0, 4, 8, 3, 0 };
static const char *const mode_name[M_COUNT] = { "keys", "pairs4", "pairs8", "pairs3",
                                                "argsort" };

static void put_index(unsigned char *v, size_t vs, size_t i, size_t g)
{
    for (size_t b = 0; b < vs; b++)
        v[vs * i + b] = (unsigned char)(g >> (8 * (b % sizeof g)));
}

/* The cap: a third of the largest array the device would hold whole, so
 * the whole sort is refused and pieces of an eighth fit. */
static size_t cap_for(size_t n, size_t ks, int mode)
{
    size_t w = mode_vs[mode] == 3 || mode == M_ARGSORT ? 4 : mode_vs[mode];
    return n * (ks > w ? ks : w) / 3;
}

static int run(int mode, void *keys, void *vals, size_t *perm, size_t n, ps_type t,
               unsigned flags)
{
    switch (mode) {
    case M_KEYS: return ps_sort_keys(keys, n, t, flags);
    case M_ARGSORT: return ps_argsort(keys, perm, n, t, flags);
    default: return ps_sort_pairs(keys, vals, mode_vs[mode], n, t, flags);
    }
}

static void one_case(ps_type t, int mode, unsigned flags, int shape, size_t n, uint64_t *rng)
{
    size_t ks = ps_type_size(t), vs = mode_vs[mode];
    unsigned char *keys = malloc(n * ks), *orig = malloc(n * ks);
    unsigned char *vals = malloc(n * (vs ? vs : 1)), *vorig = malloc(n * (vs ? vs : 1));
    size_t *perm = malloc(n * sizeof *perm), *want = malloc(n * sizeof *want);
    char cap[32], what[128];
    int st;

    if (!keys || !orig || !vals || !vorig || !perm || !want)
        t_fail("out of memory");
    snprintf(what, sizeof what, "%s %s %s %s n=%zu", t_type_name(t), mode_name[mode],
             flags ? "descending" : "ascending", t_shape_names[shape], n);
    t_make_keys(orig, n, t, shape, rng);
    for (size_t i = 0; i < n; i++)
        put_index(vorig, vs, i, i);
    t_oracle_perm(orig, n, t, flags, want);

    /* Pieces: the device refuses the whole, the core merges. */
    memcpy(keys, orig, n * ks);
    memcpy(vals, vorig, n * vs);
    snprintf(cap, sizeof cap, "%zu", cap_for(n, ks, mode));
    ps_release_cache();
    setenv("PORTSORT_TEST_DEVICE_MEMORY", cap, 1);
    st = run(mode, keys, vals, perm, n, t, flags);
    unsetenv("PORTSORT_TEST_DEVICE_MEMORY");
    if (st != PS_OK)
        t_fail("%s, device buffers capped at %s bytes: status %d (%s)", what, cap, st,
               ps_error_detail());
    if (mode == M_ARGSORT) {
        for (size_t i = 0; i < n; i++)
            if (perm[i] != want[i])
                t_fail("%s: perm[%zu] = %zu, want %zu", what, i, perm[i], want[i]);
    } else {
        size_t bad = t_gathered_mismatch(keys, orig, want, n, ks);
        if (bad != SIZE_MAX)
            t_fail("%s: key %zu is not the stable order's", what, bad);
        if (vs > 0 && (bad = t_gathered_mismatch(vals, vorig, want, n, vs)) != SIZE_MAX)
            t_fail("%s: value %zu did not follow its key (unstable across pieces?)", what,
                   bad);
    }

    /* No piece fits: refused, nothing changed.  On random keys: the
     * backend sees presorted and one-value arrays through without a
     * buffer. */
    t_make_keys(orig, n, t, T_RANDOM, rng);
    memcpy(keys, orig, n * ks);
    memcpy(vals, vorig, n * vs);
    memset(perm, 0xA5, n * sizeof *perm);
    /* Buffers the backend kept from the last call would serve it. */
    ps_release_cache();
    setenv("PORTSORT_TEST_DEVICE_MEMORY", "64", 1);
    st = run(mode, keys, vals, perm, n, t, flags);
    unsetenv("PORTSORT_TEST_DEVICE_MEMORY");
    if (st != PS_ERR_DEVICE_MEMORY)
        t_fail("%s, device buffers capped at 64 bytes: status %d, want "
               "PS_ERR_DEVICE_MEMORY", what, st);
    if (memcmp(keys, orig, n * ks) != 0 || memcmp(vals, vorig, n * vs) != 0)
        t_fail("%s: refused, but the arrays changed", what);
    for (size_t i = 0; i < n; i++)
        if (perm[i] != (size_t)0xA5A5A5A5A5A5A5A5ull)
            t_fail("%s: refused, but perm was written", what);

    free(keys);
    free(orig);
    free(vals);
    free(vorig);
    free(perm);
    free(want);
}

int main(void)
{
    uint64_t rng = 0x5eed;
    long cases = 0;

    t_init_or_skip("ps_test_device_chunks");
    const char *b = ps_backend_name();
    if (strcmp(b, "opencl") != 0) {
        printf("ps_test_device_chunks: backend %s has no device buffers to cap: skipped\n", b);
        return 77;
    }
    /* Pieces of n / 8 are at least the core's smallest (2^12): n just past
     * a power of two, so the last piece is short. */
    const size_t n = ((size_t)1 << 15) + 5;
    for (int t = PS_U8; t <= T_TYPE_LAST; t++)
        for (int mode = 0; mode < M_COUNT; mode++)
            for (unsigned flags = 0; flags <= PS_DESCENDING; flags++) {
                /* Two shapes a case, in turn: runs of equal keys (two
                 * values, five values, one value) come up for every type. */
                int shape = (int)((t * 7 + mode * 3 + (int)flags) % T_SHAPES);
                one_case((ps_type)t, mode, flags, shape, n, &rng);
                one_case((ps_type)t, mode, flags, (shape + 4) % T_SHAPES, n, &rng);
                cases += 2;
            }
    printf("ps_test_device_chunks: %ld cases in pieces on %s, and refused whole\n", cases, b);
    return 0;
}
