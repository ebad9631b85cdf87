/*
 * ps_test_memory - sorts under a memory limit (ps_set_memory_limit,
 * PORTSORT_MEMORY_LIMIT) and ps_scratch_bytes, on the backend named by
 * PORTSORT_BACKEND.
 *
 * Under a limit no scratch fits in, a sort of keys alone must still come
 * out exactly as without one (on serial and openmp, by the in-place sort
 * of reference/ps_inplace.c; elsewhere it may instead fail with
 * PS_ERR_NO_MEMORY, keys unchanged), on every type and every shape of
 * t_make_keys (one value, two, few, a shared prefix, presorted both ways,
 * specials, log-uniform magnitudes: buckets of every size).  Pairs,
 * argsort and segments with values under it fail with PS_ERR_NO_MEMORY,
 * arrays unchanged, and the message names the limit.  Pairs under limits
 * of a half down to a sixty-fourth of their usual scratch (and fixed ones
 * far below n x (key + value)) are
 * sorted in pieces and merged (lib/ps_pieces.c) on serial and openmp: the
 * same bytes as without a limit, every key type, values of 4 and 8 bytes,
 * both directions, runs of equal keys cut by the pieces; a limit too small
 * for one piece refuses them unchanged.  Segments with values under such
 * limits (ps_seglimit.c: groups of segments, a long one alone in pieces)
 * come out as without a limit too, or, below the smallest piece's
 * scratch, are refused unchanged.  A limit of ps_scratch_bytes()
 * lets a sort of pairs through on the CPU backends, one byte less does not
 * where the array is a single piece (so the answer is what the sort
 * takes).  Last, in a child process whose address space is capped
 * (RLIMIT_AS) below what the scratch needs, a sort of 2^25 keys completes
 * in place, and one of 2^24 pairs in pieces.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "portsort.h"
#include "ps_test_util.h"

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        t_fail("out of memory (%zu bytes)", bytes);
    return p;
}

/* PS_TEST_MAX_N caps the sizes (for sanitizer and slow-backend runs). */
static size_t max_n(void)
{
    const char *cap = getenv("PS_TEST_MAX_N");
    return cap != NULL && *cap != '\0' ? (size_t)strtoull(cap, NULL, 10)
                                        : SIZE_MAX;
}

static int is_cpu(void)
{
    const char *b = ps_backend_name();
    return strcmp(b, "serial") == 0 || strcmp(b, "openmp") == 0;
}

/* The backends whose ps_scratch_bytes is their own answer (their
 * scratch_bytes op), not the core's estimate. */
static int says_scratch(void)
{
    return is_cpu() || strcmp(ps_backend_name(), "sample") == 0;
}

/* Keys alone, n of them, whole and in segments, under a limit of one byte
 * against the same keys sorted without a limit. */
static void keys_under_limit(ps_type t, unsigned flags, int shape, size_t n,
                             uint64_t *rng)
{
    size_t kb = ps_type_size(t), *off = NULL, ns;
    unsigned char *k = xmalloc(n * kb), *want = xmalloc(n * kb);
    unsigned char *got = xmalloc(n * kb);
    const char *what;
    int st, pass;

    ps_set_memory_limit(0);
    t_make_keys(k, n, t, shape, rng);
    for (pass = 0; pass < 2; pass++) {
        what = pass == 0 ? "ps_sort_keys" : "ps_sort_segments";
        ns = pass == 0 ? 0 : t_mixed_offsets(n, rng, &off);
        memcpy(want, k, n * kb);
        memcpy(got, k, n * kb);
        ps_set_memory_limit(0);
        st = pass == 0 ? ps_sort_keys(want, n, t, flags)
                       : ps_sort_segments(want, NULL, 0, n, off, ns, t, flags);
        if (st != PS_OK)
            t_fail("%s %s n=%zu without a limit: %s", what, t_type_name(t), n,
                   ps_error_detail());
        ps_set_memory_limit(1);
        st = pass == 0 ? ps_sort_keys(got, n, t, flags)
                       : ps_sort_segments(got, NULL, 0, n, off, ns, t, flags);
        ps_set_memory_limit(0);
        if (st == PS_ERR_NO_MEMORY && !is_cpu() &&
            memcmp(got, k, n * kb) == 0) {
            free(off);          /* refused, keys unchanged: allowed here */
            off = NULL;
            continue;
        }
        if (st != PS_OK)
            t_fail("%s %s %s %s n=%zu under a limit: status %d (%s)", what,
                   t_type_name(t), flags ? "desc" : "asc", t_shape_names[shape], n,
                   st, ps_error_detail());
        if (memcmp(got, want, n * kb) != 0)
            t_fail("%s %s %s %s n=%zu under a limit: keys differ from the "
                   "sort without one", what, t_type_name(t),
                   flags ? "desc" : "asc", t_shape_names[shape], n);
        free(off);
        off = NULL;
    }
    free(k);
    free(want);
    free(got);
}

/* Pairs, argsort and segments with values under a limit too small for
 * any stable sort of them (64 bytes: not even the smallest piece's
 * scratch, nor the segments' block): each refused, everything unchanged,
 * the message naming the limit. */
static void refused_under_limit(size_t n, uint64_t *rng)
{
    uint32_t *k = xmalloc(n * 4), *kc = xmalloc(n * 4);
    uint64_t *v = xmalloc(n * 8), *vc = xmalloc(n * 8);
    size_t *perm = xmalloc(n * sizeof *perm), *pc = xmalloc(n * sizeof *pc);
    size_t off[3] = { 0, n / 3, n }, i;
    int st, call;

    for (i = 0; i < n; i++) {
        k[i] = (uint32_t)t_rand(rng);
        v[i] = t_rand(rng);
        perm[i] = i ^ 5;
    }
    memcpy(kc, k, n * 4);
    memcpy(vc, v, n * 8);
    memcpy(pc, perm, n * sizeof *perm);
    for (call = 0; call < 3; call++) {
        memcpy(k, kc, n * 4);   /* as they were, after a call that ran */
        memcpy(v, vc, n * 8);
        memcpy(perm, pc, n * sizeof *perm);
        ps_set_memory_limit(64);
        st = call == 0 ? ps_sort_pairs(k, v, 8, n, PS_U32, 0)
             : call == 1 ? ps_argsort(k, perm, n, PS_U32, 0)
             : ps_sort_segments(k, v, 8, n, off, 2, PS_U32, 0);
        ps_set_memory_limit(0);
        if (st == PS_OK && !is_cpu())
            continue;           /* a device backend's host part fit */
        if (st != PS_ERR_NO_MEMORY)
            t_fail("call %d under a 64-byte limit: status %d, not "
                   "PS_ERR_NO_MEMORY (%s)", call, st, ps_error_detail());
        if (strstr(ps_error_detail(), "memory limit") == NULL)
            t_fail("call %d: the message does not name the limit: %s", call,
                   ps_error_detail());
        if (memcmp(k, kc, n * 4) || memcmp(v, vc, n * 8) ||
            memcmp(perm, pc, n * sizeof *perm))
            t_fail("call %d refused, but its arrays changed", call);
    }
    free(k); free(kc); free(v); free(vc); free(perm); free(pc);
}

/* Keys of the shape "runs": runs of equal keys 1000 to 9000 long, so
 * that the pieces of a sort under a limit (4096 elements and up) cut
 * through many of them; the keys of the runs random, so equal keys also
 * come back in other runs far apart. */
static void make_runs(void *k, size_t n, size_t kb, uint64_t *rng)
{
    size_t i = 0;
    uint64_t pool[7];
    for (i = 0; i < 7; i++)
        pool[i] = t_rand(rng);
    i = 0;
    while (i < n) {
        uint64_t r = t_rand(rng), key = pool[r % 7];
        size_t len = 1000 + (size_t)(r >> 32) % 8001, j;
        for (j = 0; j < len && i < n; j++, i++)
            memcpy((unsigned char *)k + i * kb, &key, kb);
    }
}

/* ps_sort_pairs when off is NULL, else ps_sort_segments of the ns
 * segments of off. */
static int sort_call(void *k, void *v, size_t vs, size_t n, const size_t *off,
                     size_t ns, ps_type t, unsigned flags)
{
    if (off == NULL)
        return ps_sort_pairs(k, v, vs, n, t, flags);
    return ps_sort_segments(k, v, vs, n, off, ns, t, flags);
}

/* Pairs (off NULL) or segments of pairs under limits of several sizes:
 * keys with values of vs bytes (their input index, so that any reordering
 * of equal keys shows), sorted without a limit and then under `limit`,
 * must agree byte for byte, keys and values.  A limit too small for the
 * smallest piece may refuse, with both arrays unchanged and the limit
 * named; `must` says it may not.  Returns 1 when the call sorted. */
static int limited_case(ps_type t, unsigned flags, const void *k0, size_t n,
                        const size_t *off, size_t ns, size_t vs, size_t limit,
                        int must, const char *shape)
{
    size_t kb = ps_type_size(t), i;
    unsigned char *k = xmalloc(n * kb), *v = xmalloc(n * vs);
    unsigned char *wk = xmalloc(n * kb), *wv = xmalloc(n * vs);
    const char *what = off == NULL ? "pairs" : "segments";
    int st, sorted = 0;

    for (i = 0; i < n; i++) {
        uint64_t x = i * 0x9E3779B97F4A7C15ull ^ i;
        memcpy(v + i * vs, &x, vs);
    }
    memcpy(wk, k0, n * kb);
    memcpy(wv, v, n * vs);
    ps_set_memory_limit(0);
    if (sort_call(wk, wv, vs, n, off, ns, t, flags) != PS_OK)
        t_fail("%s %s n=%zu without a limit: %s", what, t_type_name(t), n,
               ps_error_detail());
    memcpy(k, k0, n * kb);
    ps_set_memory_limit(limit);
    st = sort_call(k, v, vs, n, off, ns, t, flags);
    ps_set_memory_limit(0);
    if (st == PS_OK) {
        if (memcmp(k, wk, n * kb) != 0 || memcmp(v, wv, n * vs) != 0)
            t_fail("%s %s+%zu %s %s n=%zu under a limit of %zu bytes: "
                   "differ from the sort without one", what, t_type_name(t),
                   vs, flags ? "desc" : "asc", shape, n, limit);
        sorted = 1;
    } else if (st != PS_ERR_NO_MEMORY || must || !is_cpu()) {
        if (!(st == PS_ERR_NO_MEMORY && !is_cpu()))
            t_fail("%s %s+%zu %s %s n=%zu under a limit of %zu bytes: "
                   "status %d (%s)", what, t_type_name(t), vs,
                   flags ? "desc" : "asc", shape, n, limit, st,
                   ps_error_detail());
    }
    if (st != PS_OK) {
        for (i = 0; i < n; i++) {
            uint64_t x = i * 0x9E3779B97F4A7C15ull ^ i;
            if (memcmp(v + i * vs, &x, vs) != 0)
                t_fail("%s refused under %zu bytes, but values changed",
                       what, limit);
        }
        if (memcmp(k, k0, n * kb) != 0)
            t_fail("%s refused under %zu bytes, but keys changed", what,
                   limit);
        if (strstr(ps_error_detail(), "memory limit") == NULL)
            t_fail("%s refused under %zu bytes: the message does not name "
                   "the limit: %s", what, limit, ps_error_detail());
    }
    free(k); free(v); free(wk); free(wv);
    return sorted;
}

static int pairs_case(ps_type t, unsigned flags, const void *k0, size_t n,
                      size_t vs, size_t limit, int must, const char *shape)
{
    return limited_case(t, flags, k0, n, NULL, 0, vs, limit, must, shape);
}

/* One case under the limits of the sorts below: 1/2, 1/8 and 1/64 of
 * ps_scratch_bytes for the whole array (as pairs) and a fixed 96 KiB, from
 * which the call must sort where the array is longer than one piece
 * (PS_TEST_MAX_N may cut it).  Returns how many of the four refused. */
static size_t under_four_limits(ps_type t, unsigned flags, const void *k0,
                                size_t n, const size_t *off, size_t ns,
                                size_t vs, const char *shape)
{
    size_t need = ps_scratch_bytes(n, vs, t, flags), refused = 0;
    size_t lims[4] = { need / 2, need / 8, need / 64, 96 << 10 };
    int li;
    for (li = 0; li < 4; li++)
        refused += !limited_case(t, flags, k0, n, off, ns, vs, lims[li],
                                 lims[li] >= (96 << 10) && n > 4096, shape);
    return refused;
}

/* Every key type, values of 4 and 8 bytes, both directions, the shapes of
 * t_make_keys and runs cut by the pieces, odd n, under limits of 1/2,
 * 1/8 and 1/64 of what the usual sort takes and a fixed 96 KiB; and
 * larger arrays (2^20 + 3) under 1/64 and 256 KiB, far below
 * n x (key + value).  On serial and openmp every limit from 96 KiB up
 * must sort. */
static void pairs_under_limits(uint64_t *rng)
{
    static const size_t vss[2] = { 4, 8 };
    size_t n = 50001, big = ((size_t)1 << 20) + 3, cases = 0, refused = 0;
    int t, shape, vi;

    if (n > max_n())
        n = max_n() | 1;
    for (t = PS_U8; t <= T_TYPE_LAST; t++) {
        size_t kb = ps_type_size((ps_type)t);
        unsigned char *k0 = xmalloc(n * kb);
        if (!t_wanted("PS_TEST_TYPES", t_type_name((ps_type)t))) {
            free(k0);
            continue;
        }
        for (shape = 0; shape <= T_SHAPES; shape++) {
            const char *sn = shape < T_SHAPES ? t_shape_names[shape] : "runs";
            if (shape < T_SHAPES)
                t_make_keys(k0, n, (ps_type)t, shape, rng);
            else
                make_runs(k0, n, kb, rng);
            for (vi = 0; vi < 2; vi++) {
                unsigned flags = (unsigned)(shape + vi + t) & 1u;
                refused += under_four_limits((ps_type)t, flags, k0, n, NULL,
                                             0, vss[vi], sn);
                cases += 4;
            }
        }
        free(k0);
    }
    if (big <= max_n()) {
        static const ps_type bt[2] = { PS_U32, PS_U64 };
        for (t = 0; t < 2; t++) {
            size_t kb = ps_type_size(bt[t]);
            unsigned char *k0 = xmalloc(big * kb);
            for (shape = 0; shape < 3; shape++) {
                size_t need = ps_scratch_bytes(big, kb, bt[t], 0);
                int sh = shape == 0 ? T_RANDOM : shape == 1 ? T_FEW : -1;
                if (sh >= 0)
                    t_make_keys(k0, big, bt[t], sh, rng);
                else
                    make_runs(k0, big, kb, rng);
                pairs_case(bt[t], (unsigned)shape & 1u, k0, big, kb, need / 64,
                           1, sh >= 0 ? t_shape_names[sh] : "runs");
                pairs_case(bt[t], PS_DESCENDING, k0, big, kb, 256 << 10, 1,
                           sh >= 0 ? t_shape_names[sh] : "runs");
                cases += 2;
            }
            free(k0);
        }
    }
    /* At the floor: 20001 pairs in pieces of 4096, whose reference sort
     * takes 4096 x (key + value) + 64 bytes, after the pieces' bounds
     * (6 x 8 bytes).  100 bytes more leave no room for a merge buffer
     * (64 elements at least): the merges run by rotations alone.  One
     * byte less than the floor: refused, arrays unchanged. */
    if (is_cpu()) {
        static const ps_type ft[2] = { PS_U32, PS_U64 };
        size_t fn = 20001;
        for (t = 0; t < 2; t++) {
            size_t kb = ps_type_size(ft[t]), floor = 4096 * 2 * kb + 64 + 48;
            unsigned char *k0 = xmalloc(fn * kb);
            for (shape = 0; shape < 3; shape++) {
                int sh = shape == 0 ? T_RANDOM : shape == 1 ? T_TWO : -1;
                const char *sn = sh >= 0 ? t_shape_names[sh] : "runs";
                if (sh >= 0)
                    t_make_keys(k0, fn, ft[t], sh, rng);
                else
                    make_runs(k0, fn, kb, rng);
                pairs_case(ft[t], (unsigned)shape & 1u, k0, fn, kb, floor + 100,
                           1, sn);
                if (pairs_case(ft[t], (unsigned)shape & 1u, k0, fn, kb,
                               floor - 1, 0, sn))
                    t_fail("pairs %s+%zu n=%zu sorted under %zu bytes, below "
                           "the smallest piece's", t_type_name(ft[t]), kb, fn,
                           floor - 1);
                cases += 2;
                refused++;
            }
            free(k0);
        }
    }
    printf("ps_test_memory: %zu sorts of pairs under a limit matched the "
           "sort without one (%zu refused, arrays unchanged)\n",
           cases - refused, refused);
}

/* A segmentation of n elements for the sorts of segments with values
 * under a limit: an empty segment, one of 1, a short one, one of 5/8 of
 * the array (longer than any limit below lets be sorted whole, so it goes
 * in pieces), one of 6000 (over the shortest piece: sorted whole under
 * some limits, alone in pieces under the others), then many tiny ones of 0
 * to 12 (more than one group's worth of segments) around a short one of
 * 300, and an empty one last.  Returns the number of segments, the
 * offsets in *out (to be freed). */
static size_t limit_offsets(size_t n, uint64_t *rng, size_t **out)
{
    size_t *off = xmalloc((n + 8) * sizeof *off), ns = 0, at = 0, i;
    const size_t head[5] = { 0, 1, 37, n * 5 / 8, 6000 };

    off[0] = 0;
    for (i = 0; i < 5 && at + head[i] <= n; i++) {
        at += head[i];
        off[++ns] = at;
    }
    while (at < n) {
        size_t m = ns == 5 + 700 ? 300 : (size_t)(t_rand(rng) % 13);
        at += m < n - at ? m : n - at;
        off[++ns] = at;
    }
    off[++ns] = n;
    *out = off;
    return ns;
}

/* Segments with values under limits: every key type, values of 4 and 8
 * bytes, both directions, a shape of t_make_keys and runs of equal keys,
 * the segments of limit_offsets, under 1/2, 1/8 and 1/64 of
 * ps_scratch_bytes for the whole array (as pairs) and a fixed 96 KiB:
 * the same bytes as without a limit (from 96 KiB up they must sort on
 * serial and openmp; below, a refusal must leave everything unchanged and
 * name the limit).  Values of 3 bytes go by the index route once its
 * indices and copy fit.  Under 2 KiB, below the smallest piece's scratch,
 * the long segment cannot be sorted: refused, unchanged, limit named. */
static void segments_under_limits(uint64_t *rng)
{
    static const size_t vss[2] = { 4, 8 };
    size_t n = 40001, cases = 0, refused = 0, *off, ns;
    int t, shape, vi;

    if (n > max_n())
        return;
    for (t = PS_U8; t <= T_TYPE_LAST; t++) {
        size_t kb = ps_type_size((ps_type)t);
        unsigned char *k0;
        if (!t_wanted("PS_TEST_TYPES", t_type_name((ps_type)t)))
            continue;
        k0 = xmalloc(n * kb);
        for (shape = 0; shape < 2; shape++) {
            int sh = (t & 1) ? T_FEW : T_RANDOM;
            ns = limit_offsets(n, rng, &off);
            if (shape == 0)
                t_make_keys(k0, n, (ps_type)t, sh, rng);
            else
                make_runs(k0, n, kb, rng);
            for (vi = 0; vi < 2; vi++) {
                unsigned flags = (unsigned)(shape + vi + t) & 1u;
                refused += under_four_limits((ps_type)t, flags, k0, n, off, ns,
                                             vss[vi], shape ? "runs"
                                                     : t_shape_names[sh]);
                cases += 4;
            }
            if (t == PS_U32 && shape == 1) {
                size_t w = 4;   /* the index route's indices below 2^32 */
                limited_case((ps_type)t, PS_DESCENDING, k0, n, off, ns, 3,
                             n * (w + 3) + (96 << 10), 1, "runs");
                cases++;
            }
            if (is_cpu() &&
                limited_case((ps_type)t, 0, k0, n, off, ns, 8, 2048, 0,
                             "below the floor"))
                t_fail("segments %s n=%zu sorted under 2048 bytes, below "
                       "the smallest piece's scratch",
                       t_type_name((ps_type)t), n);
            cases++;
            refused++;
            free(off);
        }
        free(k0);
    }
    printf("ps_test_memory: %zu sorts of segments with values under a limit "
           "matched the sort without one (%zu refused, arrays unchanged)\n",
           cases - refused, refused);
}

/* argsort and pairs of 3-byte values under a limit: their own blocks (the
 * keys' copy and the indices; the indices and the values' copy) fit, the
 * sort of keys and indices under them does not, and goes in pieces: the
 * same permutation, the same bytes as without the limit. */
static void routes_under_limit(uint64_t *rng)
{
    size_t n = 200003, i;
    uint32_t *k = xmalloc(n * 4), *k2 = xmalloc(n * 4), *k0 = xmalloc(n * 4);
    unsigned char *v = xmalloc(n * 3), *v2 = xmalloc(n * 3);
    size_t *p = xmalloc(n * sizeof *p), *p2 = xmalloc(n * sizeof *p2);
    int st;

    if (!is_cpu() || n > max_n()) {
        free(k); free(k2); free(k0); free(v); free(v2); free(p); free(p2);
        return;
    }
    for (i = 0; i < n; i++) {
        k0[i] = (uint32_t)(t_rand(rng) % 1000);
        v[3 * i] = (unsigned char)i;
        v[3 * i + 1] = (unsigned char)(i >> 8);
        v[3 * i + 2] = (unsigned char)(i >> 16);
    }
    memcpy(v2, v, n * 3);
    if (ps_argsort(k0, p, n, PS_U32, PS_DESCENDING) != PS_OK)
        t_fail("argsort without a limit: %s", ps_error_detail());
    ps_set_memory_limit(n * (4 + 4) + (200 << 10));
    st = ps_argsort(k0, p2, n, PS_U32, PS_DESCENDING);
    ps_set_memory_limit(0);
    if (st != PS_OK || memcmp(p, p2, n * sizeof *p) != 0)
        t_fail("argsort under a limit: status %d (%s), or another "
               "permutation", st, ps_error_detail());
    memcpy(k, k0, n * 4);
    memcpy(k2, k0, n * 4);
    if (ps_sort_pairs(k2, v2, 3, n, PS_U32, 0) != PS_OK)
        t_fail("3-byte pairs without a limit: %s", ps_error_detail());
    ps_set_memory_limit(n * (4 + 3) + (200 << 10));
    st = ps_sort_pairs(k, v, 3, n, PS_U32, 0);
    ps_set_memory_limit(0);
    if (st != PS_OK || memcmp(k, k2, n * 4) != 0 || memcmp(v, v2, n * 3) != 0)
        t_fail("3-byte pairs under a limit: status %d (%s), or other bytes",
               st, ps_error_detail());
    printf("ps_test_memory: argsort and 3-byte pairs under a limit matched\n");
    free(k); free(k2); free(k0); free(v); free(v2); free(p); free(p2);
}

/* ps_scratch_bytes: 0 for n < 2 and for bad arguments; on the backends
 * that answer for themselves, exactly what a sort of pairs takes. */
static void scratch_bytes(uint64_t *rng)
{
    static const size_t sizes[] = { 100, 5000, 300000 };
    size_t si, i;

    if (ps_scratch_bytes(1, 0, PS_U32, 0) != 0 ||
        ps_scratch_bytes(1000, 0, (ps_type)99, 0) != 0 ||
        ps_scratch_bytes(1000, 0, PS_U32, 0x100) != 0 ||
        ps_scratch_bytes(SIZE_MAX / 2, 8, PS_U32, 0) != 0)
        t_fail("ps_scratch_bytes: not 0 for n = 1 or bad arguments");
    if (strstr(ps_error_detail(), "overflow") == NULL)
        t_fail("ps_scratch_bytes: no reason given for n * 8 overflowing: %s",
               ps_error_detail());
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si], need = ps_scratch_bytes(n, 8, PS_U32, 0);
        uint32_t *k = xmalloc(n * 4);
        uint64_t *v = xmalloc(n * 8);
        int st;
        if (ps_scratch_bytes(n, 0, PS_U64, 0) == 0 || need == 0)
            t_fail("ps_scratch_bytes(%zu): 0", n);
        for (i = 0; i < n; i++) {
            k[i] = (uint32_t)t_rand(rng);
            v[i] = i;
        }
        if (!says_scratch()) {
            free(k);
            free(v);
            continue;
        }
        ps_set_memory_limit(need);
        st = ps_sort_pairs(k, v, 8, n, PS_U32, 0);
        if (st != PS_OK)
            t_fail("pairs of %zu under a limit of ps_scratch_bytes = %zu: %s",
                   n, need, ps_error_detail());
        for (i = 1; i < n; i++)
            if (k[i - 1] > k[i] || (k[i - 1] == k[i] && v[i - 1] > v[i]))
                t_fail("pairs of %zu under the limit: out of order at %zu",
                       n, i);
        /* One byte less: refused where the array is one piece (the
         * smallest the sort in pieces takes, 4096), else sorted in pieces,
         * stably: the values are the input order, so a descending sort
         * must keep equal keys' values ascending. */
        {
            ps_set_memory_limit(need - 1);
            st = ps_sort_pairs(k, v, 8, n, PS_U32, PS_DESCENDING);
            if (n <= 4096 && st != PS_ERR_NO_MEMORY)
                t_fail("pairs of %zu under ps_scratch_bytes - 1 = %zu: "
                       "status %d: the answer is more than the sort takes",
                       n, need - 1, st);
            if (n > 4096 && st != PS_OK)
                t_fail("pairs of %zu under ps_scratch_bytes - 1 = %zu: "
                       "not sorted in pieces: %s", n, need - 1,
                       ps_error_detail());
            for (i = 1; n > 4096 && i < n; i++)
                if (k[i - 1] < k[i] || (k[i - 1] == k[i] && v[i - 1] > v[i]))
                    t_fail("pairs of %zu in pieces: out of order at %zu",
                           n, i);
        }
        ps_set_memory_limit(0);
        free(k);
        free(v);
    }
}

/* A records sort counts the sort it makes inside (ps_sort_pairs of its
 * packed images) against its own limit, on top of the blocks it took for
 * them (16 bytes a record here, images and values).  Under a limit of
 * those blocks and 1 KiB more, the inner sort has 1 KiB left, too little
 * even for its sort in pieces (4096 x 16 bytes): refused, the records
 * unchanged (had the inner call started a count of its own, it would have
 * had the whole limit and gone through).  Under a limit of the inner
 * sort's usual scratch, the inner sort runs in pieces in what the images
 * leave: the records come out as without a limit (or, on a backend that
 * does not sort in pieces, refused unchanged). */
static void records_nested(uint64_t *rng)
{
    size_t n = 200000, i, li;
    unsigned char *rec = xmalloc(n * 16), *copy = xmalloc(n * 16);
    unsigned char *want = xmalloc(n * 16);
    ps_field f = { 0, PS_U64, 0 };
    int st;

    if (!says_scratch()) {
        free(rec);
        free(copy);
        free(want);
        return;
    }
    for (i = 0; i < n * 16; i += 8) {
        uint64_t r = t_rand(rng);
        memcpy(rec + i, &r, 8);
    }
    memcpy(copy, rec, n * 16);
    memcpy(want, rec, n * 16);
    if (ps_sort_records(want, 16, n, &f, 1) != PS_OK)
        t_fail("records without a limit: %s", ps_error_detail());
    for (li = 0; li < 2; li++) {
        size_t lim = li == 0 ? n * 16 + 64 + 1024
                             : ps_scratch_bytes(n, 8, PS_U64, 0);
        memcpy(rec, copy, n * 16);
        ps_set_memory_limit(lim);
        st = ps_sort_records(rec, 16, n, &f, 1);
        ps_set_memory_limit(0);
        if (st == PS_OK && li == 1) {
            if (memcmp(rec, want, n * 16) != 0)
                t_fail("records under the inner sort's scratch: differ "
                       "from the sort without a limit");
            continue;
        }
        if (st != PS_ERR_NO_MEMORY)
            t_fail("records under a limit of %zu: status %d, not "
                   "PS_ERR_NO_MEMORY (%s)", lim, st, ps_error_detail());
        if (memcmp(rec, copy, n * 16) != 0)
            t_fail("records refused under the limit, but they changed");
    }
    free(rec);
    free(copy);
    free(want);
}

/* A child whose address space ends a little above what it holds: the
 * scratch of a sort of 2^25 u32 keys (128 MiB) cannot be mapped, so only
 * the in-place sort can finish; nor that of 2^24 u32/u32 pairs, which are
 * sorted in pieces (lib/ps_pieces.c).  Not under AddressSanitizer, whose
 * allocator aborts rather than fail a malloc, nor ThreadSanitizer (its
 * shadow mappings), nor where the library's backend is not a CPU one, nor
 * with PS_TEST_NO_RLIMIT set. */
static void address_space_capped(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    printf("ps_test_memory: RLIMIT_AS case skipped under a sanitizer\n");
#else
    size_t n = (size_t)1 << 25, i;
    pid_t pid;
    int status;

    if (!is_cpu() || getenv("PS_TEST_NO_RLIMIT") != NULL)
        return;
    pid = fork();
    if (pid < 0)
        t_fail("fork failed");
    if (pid == 0) {
        size_t np = n / 2 + 1001;       /* odd, cut into pieces unevenly */
        uint32_t *k = malloc(n * 4), *pk = malloc(np * 4), *pv = malloc(np * 4);
        uint64_t rng = 7, vm = 0;
        struct rlimit rl;
        char line[256];
        FILE *f;
        if (k == NULL || pk == NULL || pv == NULL)
            _exit(3);
        for (i = 0; i < n; i++)
            k[i] = (uint32_t)t_rand(&rng);
        /* Pairs: 2^16 distinct keys, so every key has some 128 values. */
        for (i = 0; i < np; i++) {
            pk[i] = (uint32_t)t_rand(&rng) & 0xFFFF0000u;
            pv[i] = (uint32_t)i;
        }
        /* The pool's threads first (their stacks are mapped once). */
        if (ps_sort_keys(k, 1000, PS_U32, 0) != PS_OK)
            _exit(4);
        f = fopen("/proc/self/status", "r");
        while (f != NULL && fgets(line, sizeof line, f) != NULL)
            if (sscanf(line, "VmSize: %llu", (unsigned long long *)&vm) == 1)
                break;
        if (f != NULL)
            fclose(f);
        if (vm == 0)
            _exit(77);
        rl.rlim_cur = rl.rlim_max = (rlim_t)(vm * 1024 + ((size_t)48 << 20));
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(77);
        if (malloc(n * 4) != NULL)
            _exit(5);           /* the cap did not bite: nothing tested */
        if (ps_sort_keys(k, n, PS_U32, 0) != PS_OK)
            _exit(6);
        for (i = 1; i < n; i++)
            if (k[i - 1] > k[i])
                _exit(7);
        /* 2^24 pairs: their usual scratch (over 128 MiB) cannot be mapped
         * either, so they are sorted in pieces and merged with the buffer
         * malloc still gives; stable, so equal keys' values (their input
         * places) rise. */
        if (ps_sort_pairs(pk, pv, 4, np, PS_U32, PS_DESCENDING) != PS_OK)
            _exit(8);
        for (i = 1; i < np; i++)
            if (pk[i - 1] < pk[i] || (pk[i - 1] == pk[i] && pv[i - 1] >= pv[i]))
                _exit(9);
        _exit(0);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        t_fail("RLIMIT_AS child: did not exit");
    switch (WEXITSTATUS(status)) {
    case 0: printf("ps_test_memory: 2^25 keys, and 2^24 pairs stably, sorted "
                   "with the address space capped below their scratch\n");
            break;
    case 77: printf("ps_test_memory: RLIMIT_AS case skipped (no VmSize, or "
                    "setrlimit refused)\n"); break;
    case 5: t_fail("RLIMIT_AS child: a 128 MiB malloc still succeeded");
    case 6: t_fail("RLIMIT_AS child: ps_sort_keys failed under the cap");
    case 7: t_fail("RLIMIT_AS child: keys out of order");
    case 8: t_fail("RLIMIT_AS child: ps_sort_pairs failed under the cap");
    case 9: t_fail("RLIMIT_AS child: pairs out of order or not stable");
    default: t_fail("RLIMIT_AS child: exit %d", WEXITSTATUS(status));
    }
#endif
}

int main(void)
{
    static const size_t sizes[] = { 2, 33, 1000, 70001, 1100000 };
    uint64_t rng = 3232;
    size_t si, cases = 0;
    int t, shape;

    t_init_or_skip("ps_test_memory");
    for (t = PS_U8; t <= T_TYPE_LAST; t++) {
        if (!t_wanted("PS_TEST_TYPES", t_type_name((ps_type)t)))
            continue;
        for (shape = 0; shape < T_SHAPES; shape++)
            for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                if (sizes[si] > max_n())
                    continue;
                keys_under_limit((ps_type)t, (unsigned)(shape + si) & 1u,
                                 shape, sizes[si], &rng);
                cases++;
            }
    }
    printf("ps_test_memory: %zu key sorts under a limit matched on backend "
           "%s\n", cases, ps_backend_name());
    refused_under_limit(50000, &rng);
    pairs_under_limits(&rng);
    segments_under_limits(&rng);
    routes_under_limit(&rng);
    scratch_bytes(&rng);
    records_nested(&rng);
    address_space_capped();
    return 0;
}
