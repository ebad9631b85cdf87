/*
 * ps_test_topkdev.c - the device top-k's cases (ps_test_topkdev.h): the
 * expected results come from the host's ps_argsort, taken only once
 * t_oracle_perm_from has proven it the stable sorting permutation.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_topkdev.h"
#include "ps_test_util.h"

#define SENTINEL 0xA5

enum { S_RANDOM, S_EQUAL, S_TWO, S_COUNT };
static const char *snames[] = { "random+specials", "all-equal", "two-values" };

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        t_fail("out of memory (%zu bytes)", bytes);
    return p;
}

static void make_keys(unsigned char *k, size_t n, ps_type t, int shape, uint64_t *rng)
{
    size_t kb = ps_type_size(t), i;
    uint64_t a = t_rand(rng), b = t_rand(rng);
    for (i = 0; i < n; i++) {
        uint64_t r = t_rand(rng), v = r;
        if (shape == S_EQUAL)
            v = a;
        else if (shape == S_TWO)
            v = r % 3 ? a : b;
        else if (r % 4 == 0)
            v = t_special(t, r >> 8);
        memcpy(k + i * kb, &v, kb);     /* little-endian: the low bytes */
    }
}

/* The stable sorting permutation of the n keys at keys: the test's own
 * merge sort (t_oracle_perm, which ps_argsort equals), not the library's
 * ps_argsort, which on the stand-in runs on the backend under test and
 * was most of this test's time. */
static void host_perm(const unsigned char *keys, size_t n, ps_type t, unsigned flags,
                      size_t *perm)
{
    t_oracle_perm(keys, n, t, flags, perm);
}

typedef struct outs {
    unsigned char *keys, *vals, *idx;   /* idx: 8-byte slots, or NULL */
    size_t slots;
} outs;

static void outs_make(outs *o, size_t slots, size_t kb, size_t vs, int index)
{
    o->slots = slots;
    o->keys = xmalloc(slots * kb);
    o->vals = vs ? xmalloc(slots * vs) : NULL;
    o->idx = index ? xmalloc(slots * 8) : NULL;
    memset(o->keys, SENTINEL, slots * kb);
    if (o->vals)
        memset(o->vals, SENTINEL, slots * vs);
    if (o->idx)
        memset(o->idx, SENTINEL, slots * 8);
}

static void outs_free(outs *o)
{
    free(o->keys);
    free(o->vals);
    free(o->idx);
}

static int all_sentinel(const unsigned char *p, size_t bytes)
{
    size_t i;
    for (i = 0; i < bytes; i++)
        if (p[i] != SENTINEL)
            return 0;
    return 1;
}

/* Slot `slot` holds element src of the input (src SIZE_MAX: the slot must
 * keep its sentinel). */
static void check_slot(const char *what, const outs *o, size_t slot, size_t src,
                       const unsigned char *keys, const unsigned char *vals,
                       size_t kb, size_t vs)
{
    if (src == SIZE_MAX) {
        if (!all_sentinel(o->keys + slot * kb, kb)
            || (vs && !all_sentinel(o->vals + slot * vs, vs))
            || (o->idx && !all_sentinel(o->idx + slot * 8, 8)))
            t_fail("%s: slot %zu past the results was written", what, slot);
        return;
    }
    if (memcmp(o->keys + slot * kb, keys + src * kb, kb) != 0)
        t_fail("%s: slot %zu: wrong key (want element %zu's)", what, slot, src);
    if (vs && memcmp(o->vals + slot * vs, vals + src * vs, vs) != 0)
        t_fail("%s: slot %zu: wrong value (want element %zu's)", what, slot, src);
    if (o->idx) {
        uint64_t got;
        memcpy(&got, o->idx + slot * 8, 8);
        if (got != src)
            t_fail("%s: slot %zu: index %llu, want %zu", what, slot,
                   (unsigned long long)got, src);
    }
}

static void call(const char *what, t_topk_dev_fn run, const unsigned char *keys,
                 const unsigned char *vals, size_t vs, size_t n, const size_t *offs,
                 size_t nseg, size_t k, outs *o, ps_type t, unsigned flags)
{
    int st = run(keys, vals, vs, n, offs, nseg, k, o->keys, o->vals,
                 (size_t *)(void *)o->idx, o->slots, t, flags);
    if (st != PS_OK)
        t_fail("%s: %s: %s", what, ps_strerror(st), ps_error_detail());
}

/* ps_topk's form: the first min(k, n) of the host's permutation. */
static void one_array(const char *who, t_topk_dev_fn run, ps_type t, unsigned flags,
                      int shape, size_t n, size_t k, size_t vs, int index,
                      uint64_t seed)
{
    size_t kb = ps_type_size(t), first = k < n ? k : n, i;
    unsigned char *keys = xmalloc(n * kb), *vals = xmalloc(n * 8);
    size_t *perm = xmalloc(n * sizeof *perm);
    uint64_t rng = seed;
    char what[160];
    outs o;

    make_keys(keys, n, t, shape, &rng);
    for (i = 0; i < n * 8; i++)
        vals[i] = (unsigned char)t_rand(&rng);
    host_perm(keys, n, t, flags, perm);
    /* One slot more than the results: it must keep its sentinel. */
    outs_make(&o, first + 1, kb, vs, index);
    snprintf(what, sizeof what, "%s topk %s %s %s n=%zu k=%zu vs=%zu%s", who,
             t_type_name(t), flags ? "desc" : "asc", snames[shape], n, k, vs,
             index ? " +index" : "");
    call(what, run, keys, vs ? vals : NULL, vs, n, NULL, 0, k, &o, t, flags);
    for (i = 0; i < o.slots; i++)
        check_slot(what, &o, i, i < first ? perm[i] : SIZE_MAX, keys, vals, kb, vs);
    outs_free(&o);
    free(keys);
    free(vals);
    free(perm);
}

/* ps_topk_segments' form, on segments of lengths that cycle through
 * empty, shorter than k, as long as k and longer. */
static void segmented(const char *who, t_topk_dev_fn run, ps_type t, unsigned flags,
                      int shape, size_t n, size_t k, size_t vs, int index,
                      uint64_t seed)
{
    static const size_t lens[] = { 0, 1, 5, 0, 37, 2, 130, 3, 0, 260 };
    size_t kb = ps_type_size(t), ns = 0, at = 0, s, i;
    /* At most 3 empty segments in each cycle of 7 that are not: room for
     * every offset with n + 12 to spare. */
    size_t *offs = xmalloc((2 * n + 12) * sizeof *offs), *perm = xmalloc(n * sizeof *perm);
    unsigned char *keys = xmalloc(n * kb), *vals = xmalloc(n * 8);
    uint64_t rng = seed;
    char what[160];
    outs o;

    offs[0] = 0;
    while (at < n) {
        size_t len = lens[ns % (sizeof lens / sizeof lens[0])];
        at = at + len < n ? at + len : n;
        offs[++ns] = at;
    }
    offs[++ns] = n;         /* an empty segment last */
    make_keys(keys, n, t, shape, &rng);
    for (i = 0; i < n * 8; i++)
        vals[i] = (unsigned char)t_rand(&rng);
    outs_make(&o, k == 0 || n == 0 ? 1 : (ns - 1) * k + (k < n ? k : n), kb, vs, index);
    snprintf(what, sizeof what, "%s topk_segments %s %s %s n=%zu segments=%zu k=%zu "
             "vs=%zu%s", who, t_type_name(t), flags ? "desc" : "asc", snames[shape],
             n, ns, k, vs, index ? " +index" : "");
    call(what, run, keys, vs ? vals : NULL, vs, n, offs, ns, k, &o, t, flags);
    for (s = 0; s < ns && k > 0; s++) {
        size_t len = offs[s + 1] - offs[s];
        host_perm(keys + offs[s] * kb, len, t, flags, perm);
        for (i = 0; i < k && s * k + i < o.slots; i++)
            check_slot(what, &o, s * k + i, i < len ? offs[s] + perm[i] : SIZE_MAX,
                       keys, vals, kb, vs);
    }
    if (k == 0)
        check_slot(what, &o, 0, SIZE_MAX, keys, vals, kb, vs);
    outs_free(&o);
    free(offs);
    free(perm);
    free(keys);
    free(vals);
}

int t_topk_device(const char *who, t_topk_dev_fn run)
{
    static const size_t vsizes[] = { 0, 4, 8 };
    uint64_t seed = 7;
    int t, f, j, calls = 0;

    /* Every type and direction twice, rotating through the 3 shapes x 6
     * values of k (every pair within 18 cases), value sizes and out_index:
     * the stand-in runs 256 work-items per group as fibers, a call of 200
     * keys costs it about 20 ms. */
    for (t = PS_U8; t <= T_TYPE_LAST; t++)
        for (f = 0; f < 2; f++)
            for (j = 0; j < 2; j++) {
                size_t i = (size_t)(4 * (t - PS_U8) + 2 * f + j), n = 200;
                size_t ks[] = { 0, 1, n - 1, n, n + 5, n / 2 };
                one_array(who, run, (ps_type)t, f ? PS_DESCENDING : 0,
                          (int)((i / 6) % S_COUNT), n, ks[i % 6], vsizes[(i / 2) % 3],
                          (i / 3) % 2 == 0, seed++);
                calls++;
            }
    /* Several tiles: the sort's passes between blocks; ties at the k-th. */
    one_array(who, run, PS_F32, PS_DESCENDING, S_RANDOM, 2500, 1250, 4, 1, seed++);
    one_array(who, run, PS_I64, 0, S_TWO, 2500, 2499, 8, 0, seed++);
    calls += 2;
    /* Segments: every type once, rotating direction, shape, k and values;
     * one long array (the segmented sort's large class). */
    for (t = PS_U8; t <= T_TYPE_LAST; t++) {
        static const size_t ks[] = { 3, 0, 40, 1, 700 };
        size_t r = (size_t)t;
        segmented(who, run, (ps_type)t, t % 2 ? PS_DESCENDING : 0, (int)(r % S_COUNT),
                  t == PS_U32 ? 3000 : 450, ks[r % 5], vsizes[r % 3], r % 2 == 1,
                  seed++);
        calls++;
    }
    /* The tiny n (0, 1, 2) of both forms. */
    for (t = 0; t < 3; t++) {
        one_array(who, run, PS_F32, 0, S_RANDOM, (size_t)t, 2, 4, 1, seed++);
        segmented(who, run, PS_U16, PS_DESCENDING, S_RANDOM, (size_t)t, 2, 8, 1, seed++);
        calls += 2;
    }
    return calls;
}
