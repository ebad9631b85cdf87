/*
 * ps_test_topk - ps_topk and ps_topk_segments on the backend
 * PORTSORT_BACKEND names, compared bit for bit with the first k of
 * ps_argsort on the same keys: every key type, both directions, k from 0
 * to past n (1, 2, n - 1, n, n + 5, a middle value, SIZE_MAX), keys only
 * and with values of 1, 4, 8 and 12 bytes, with and without out_index,
 * and guard bytes after the results that must stay as they were.
 *
 * The shapes are those that break selections: all keys equal, many ties
 * at the k-th key (two values), keys that share their leading bytes (the
 * select's later passes), few distinct, sorted, reversed, random bits
 * (NaNs of every payload for floats), and the special values (+-0, +-inf,
 * NaNs of both signs, the extremes of each integer type).
 *
 * PS_TEST_TYPES (a comma-separated list of type names) narrows the
 * types of the matrix.
 *
 * Then the refusals, each with every output byte-identical afterwards:
 * overlaps of each output with each input and with each other, bad type
 * and flags, offsets that do not end at n or decrease, values without
 * out_values, slots that overflow size_t; and host allocations made to
 * fail one by one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_util.h"

#define GUARD 0xA5
#define NGUARD 3        /* guard elements after the results */

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        t_fail("out of memory (%zu bytes)", bytes);
    return p;
}

/* The outputs of one call, with guard elements after the results. */
typedef struct outs {
    unsigned char *keys, *vals;
    size_t *index;
    size_t slots, kb, vs;
} outs;

static void outs_init(outs *o, size_t slots, size_t kb, size_t vs, int index)
{
    o->slots = slots + NGUARD;
    o->kb = kb;
    o->vs = vs;
    o->keys = xmalloc(o->slots * kb);
    o->vals = vs ? xmalloc(o->slots * vs) : NULL;
    o->index = index ? xmalloc(o->slots * sizeof(size_t)) : NULL;
    memset(o->keys, GUARD, o->slots * kb);
    if (o->vals)
        memset(o->vals, GUARD, o->slots * vs);
    if (o->index)
        memset(o->index, GUARD, o->slots * sizeof(size_t));
}

static void outs_free(outs *o)
{
    free(o->keys);
    free(o->vals);
    free(o->index);
}

static int is_guard(const void *p, size_t bytes)
{
    const unsigned char *c = p;
    size_t i;
    for (i = 0; i < bytes; i++)
        if (c[i] != GUARD)
            return 0;
    return 1;
}

/* Slot `slot` of o holds element perm_i of keys/vals (index expected). */
static void check_slot(const char *what, const outs *o, size_t slot,
                       const unsigned char *keys, const unsigned char *vals,
                       size_t expect)
{
    if (memcmp(o->keys + slot * o->kb, keys + expect * o->kb, o->kb) != 0)
        t_fail("%s: slot %zu: key is not that of index %zu", what, slot,
               expect);
    if (o->index && o->index[slot] != expect)
        t_fail("%s: slot %zu: index %zu, expected %zu", what, slot,
               o->index[slot], expect);
    if (o->vals && memcmp(o->vals + slot * o->vs, vals + expect * o->vs,
                          o->vs) != 0)
        t_fail("%s: slot %zu: value is not that of index %zu", what, slot,
               expect);
}

static void check_guard(const char *what, const outs *o, size_t slot)
{
    if (!is_guard(o->keys + slot * o->kb, o->kb)
        || (o->vals && !is_guard(o->vals + slot * o->vs, o->vs))
        || (o->index && !is_guard(&o->index[slot], sizeof(size_t))))
        t_fail("%s: slot %zu past the results was written", what, slot);
}

static const size_t vsizes[] = { 0, 1, 4, 8, 12 };

static void one_array(ps_type t, unsigned flags, int shape, size_t n,
                      uint64_t *rng)
{
    size_t kb = ps_type_size(t), ks[8], nk = 0, i, j;
    unsigned char *keys = xmalloc(n * kb), *vals = xmalloc(n * 12);
    unsigned char *kcopy = xmalloc(n * kb), *vcopy = xmalloc(n * 12);
    size_t *perm = xmalloc(n * sizeof(size_t));
    char what[160];

    t_make_keys(keys, n, t, shape, rng);
    for (i = 0; i < n * 12; i++)
        vals[i] = (unsigned char)t_rand(rng);
    memcpy(kcopy, keys, n * kb);
    memcpy(vcopy, vals, n * 12);
    if (ps_argsort(keys, perm, n, t, flags) != PS_OK)
        t_fail("ps_argsort: %s", ps_error_detail());
    ks[nk++] = 0, ks[nk++] = 1, ks[nk++] = 2, ks[nk++] = n - 1;
    ks[nk++] = n, ks[nk++] = n + 5, ks[nk++] = n / 3 + 1, ks[nk++] = SIZE_MAX;
    if (n > 10000)              /* the k of most uses, small against n */
        ks[2] = 32, ks[4] = n - n / 70, ks[5] = 100, ks[7] = n / 40;
    /* n - n / 70: the sample's upper bound at its last rank (lib/ps_topk.c,
     * sample_bounds), which read one past the sample before 2026-11-26. */
    for (j = 0; j < nk; j++) {
        size_t k = ks[j], m = k < n ? k : n;
        size_t vs = vsizes[(j + (size_t)shape + n) % 5];
        int with_index = (j + (size_t)t) % 3 != 0;
        outs o;
        int st;
        snprintf(what, sizeof what, "ps_topk %s %s %s n=%zu k=%zu vs=%zu%s",
                 t_type_name(t), flags ? "desc" : "asc", t_shape_names[shape], n, k,
                 vs, with_index ? " index" : "");
        outs_init(&o, m, kb, vs, with_index);
        st = ps_topk(keys, vs ? vals : NULL, vs, n, k, o.keys, o.vals, o.index,
                     t, flags);
        if (st != PS_OK)
            t_fail("%s: status %d (%s)", what, st, ps_error_detail());
        for (i = 0; i < m; i++)
            check_slot(what, &o, i, keys, vals, perm[i]);
        for (i = m; i < o.slots; i++)
            check_guard(what, &o, i);
        outs_free(&o);
    }
    if (memcmp(keys, kcopy, n * kb) != 0 || memcmp(vals, vcopy, n * 12) != 0)
        t_fail("ps_topk %s %s n=%zu: the inputs changed", t_type_name(t),
               t_shape_names[shape], n);
    free(keys); free(vals); free(kcopy); free(vcopy); free(perm);
}

/* Segments of random lengths 0..maxlen (one long one in the middle), k
 * chosen to cut some segments and not others. */
static void segmented(ps_type t, unsigned flags, int shape, size_t maxlen,
                      size_t longlen, size_t k, size_t vs, uint64_t *rng)
{
    size_t kb = ps_type_size(t), off[64], ns = 0, n = 0, s, i;
    unsigned char *keys, *vals;
    size_t *perm;
    char what[160];
    outs o;
    int st;

    off[0] = 0;
    while (ns < 40) {
        size_t len = ns == 20 ? longlen : t_rand(rng) % (maxlen + 1);
        n += len;
        off[++ns] = n;
    }
    keys = xmalloc(n * kb);
    vals = xmalloc(n * (vs ? vs : 1));
    perm = xmalloc(n * sizeof(size_t));
    t_make_keys(keys, n, t, shape, rng);
    for (i = 0; i < n * vs; i++)
        vals[i] = (unsigned char)t_rand(rng);
    snprintf(what, sizeof what, "ps_topk_segments %s %s %s k=%zu vs=%zu",
             t_type_name(t), flags ? "desc" : "asc", t_shape_names[shape], k, vs);
    outs_init(&o, ns * k, kb, vs, (k + vs) % 2 == 0);
    st = ps_topk_segments(keys, vs ? vals : NULL, vs, n, off, ns, k, o.keys,
                          o.vals, o.index, t, flags);
    if (st != PS_OK)
        t_fail("%s: status %d (%s)", what, st, ps_error_detail());
    for (s = 0; s < ns; s++) {
        size_t a = off[s], len = off[s + 1] - a, m = len < k ? len : k;
        if (len > 0 && ps_argsort(keys + a * kb, perm, len, t, flags) != PS_OK)
            t_fail("ps_argsort: %s", ps_error_detail());
        for (i = 0; i < m; i++)
            check_slot(what, &o, s * k + i, keys, vals, a + perm[i]);
        for (i = m; i < k; i++)
            check_guard(what, &o, s * k + i);
    }
    for (i = ns * k; i < o.slots; i++)
        check_guard(what, &o, i);
    outs_free(&o);
    free(keys); free(vals); free(perm);
}

/* A refused call: the status, and every output as it was. */
static void expect_refusal(const char *what, int st, int want,
                           const unsigned char *buf, const unsigned char *before,
                           size_t bytes)
{
    if (st != want)
        t_fail("refusal %s: status %d (%s), expected %d", what, st,
               ps_error_detail(), want);
    if (memcmp(buf, before, bytes) != 0)
        t_fail("refusal %s: the arrays changed", what);
    if (st != PS_OK && ps_error_detail()[0] == 0)
        t_fail("refusal %s: no detail", what);
}

/* All arrays carved from one buffer, so that overlaps are legal C. */
static void refusals(void)
{
    enum { N = 64 };
    size_t bytes = 4096, i;
    unsigned char *buf = xmalloc(bytes), *before = xmalloc(bytes);
    uint32_t *keys = (uint32_t *)buf;                  /* 0 .. 255 */
    unsigned char *vals = buf + 256;                   /* 256 .. 511, vs 4 */
    unsigned char *ok_k = buf + 1024, *ok_v = buf + 1536;
    size_t *ok_i = (size_t *)(buf + 2048);
    size_t *off = (size_t *)(buf + 3072);              /* 3 segments */
    size_t big[4];
    uint64_t rng = 5;
    int st;

    for (i = 0; i < bytes; i++)
        buf[i] = (unsigned char)t_rand(&rng);
    off[0] = 0, off[1] = 10, off[2] = 40, off[3] = N;
    memcpy(before, buf, bytes);

#define REFUSE(what, call, want)                                        \
    do {                                                                \
        st = (call);                                                    \
        expect_refusal(what, st, want, buf, before, bytes);             \
    } while (0)
    {
        /* ps_topk's refusals: each one argument wrong. */
        const struct {
            const char *what;
            const void *keys, *vals;
            size_t vs, n, k;
            void *ok, *ov;
            size_t *oi;
            ps_type t;
            unsigned flags;
        } c[] = {
            { "out_keys over keys", keys, vals, 4, N, 8, buf + 16, ok_v, ok_i,
              PS_U32, 0 },
            { "out_keys == keys", keys, NULL, 0, N, 8, keys, NULL, NULL,
              PS_U32, 0 },
            { "out_values over values", keys, vals, 4, N, 8, ok_k, vals + 255,
              ok_i, PS_U32, 0 },
            { "out_values over keys", keys, vals, 4, N, 8, ok_k, buf + 200,
              ok_i, PS_U32, 0 },
            { "out_index over values", keys, vals, 4, N, 8, ok_k, ok_v,
              (size_t *)(buf + 504), PS_U32, 0 },
            { "out_index over out_keys", keys, vals, 4, N, 8, ok_k, ok_v,
              (size_t *)(ok_k + 24), PS_U32, 0 },
            { "out_values over out_keys", keys, vals, 4, N, 8, ok_k, ok_k + 31,
              ok_i, PS_U32, 0 },
            { "out_values over out_index", keys, vals, 4, N, 8, ok_k,
              (unsigned char *)ok_i + 63, ok_i, PS_U32, 0 },
            { "values over keys", keys, buf + 252, 4, N, 8, ok_k, ok_v, ok_i,
              PS_U32, 0 },
            { "bad type", keys, NULL, 0, N, 8, ok_k, NULL, NULL, (ps_type)13, 0 },
            { "bad type, k = 0", keys, NULL, 0, N, 0, ok_k, NULL, NULL,
              (ps_type)0, 0 },
            { "bad flags", keys, NULL, 0, N, 8, ok_k, NULL, NULL, PS_U32, 2 },
            { "values without out_values", keys, vals, 4, N, 8, ok_k, NULL,
              ok_i, PS_U32, 0 },
            { "out_values without values", keys, NULL, 0, N, 8, ok_k, ok_v,
              ok_i, PS_U32, 0 },
            { "values with value_size 0", keys, vals, 0, N, 8, ok_k, ok_v,
              ok_i, PS_U32, 0 },
            { "out_keys NULL", keys, NULL, 0, N, 8, NULL, NULL, ok_i, PS_U32,
              0 },
            { "keys NULL", NULL, NULL, 0, N, 8, ok_k, NULL, ok_i, PS_U32, 0 },
            { "keys misaligned", buf + 1, NULL, 0, N - 1, 8, ok_k, NULL, ok_i,
              PS_U32, 0 },
        };
        for (i = 0; i < sizeof c / sizeof c[0]; i++)
            REFUSE(c[i].what,
                   ps_topk(c[i].keys, c[i].vals, c[i].vs, c[i].n, c[i].k,
                           c[i].ok, c[i].ov, c[i].oi, c[i].t, c[i].flags),
                   PS_ERR_INVALID_ARG);
    }
    /* Segments: 3 of them, k = 8, so 24 slots. */
    REFUSE("segments: offsets over out_keys",
           ps_topk_segments(keys, NULL, 0, N, off, 3, 8,
                            (unsigned char *)off - 64, NULL, NULL, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    REFUSE("segments: out_index over offsets",
           ps_topk_segments(keys, NULL, 0, N, off, 3, 8, ok_k, NULL, off + 3,
                            PS_U32, 0), PS_ERR_INVALID_ARG);
    REFUSE("segments: out_keys over keys (last slots)",
           ps_topk_segments(keys, NULL, 0, N, off, 3, 8, buf + 256 - 95, NULL,
                            NULL, PS_U32, 0), PS_ERR_INVALID_ARG);
    REFUSE("segments: bad type",
           ps_topk_segments(keys, NULL, 0, N, off, 3, 8, ok_k, NULL, NULL,
                            (ps_type)99, 0), PS_ERR_INVALID_ARG);
    big[0] = 0, big[1] = 10, big[2] = 40, big[3] = N - 1;
    REFUSE("segments: offsets not ending at n",
           ps_topk_segments(keys, NULL, 0, N, big, 3, 8, ok_k, NULL, ok_i,
                            PS_U32, 0), PS_ERR_INVALID_ARG);
    big[3] = N, big[2] = 5;
    REFUSE("segments: offsets decreasing",
           ps_topk_segments(keys, NULL, 0, N, big, 3, 8, ok_k, NULL, ok_i,
                            PS_U32, 0), PS_ERR_INVALID_ARG);
    REFUSE("segments: offsets NULL",
           ps_topk_segments(keys, NULL, 0, N, NULL, 3, 8, ok_k, NULL, ok_i,
                            PS_U32, 0), PS_ERR_INVALID_ARG);
    REFUSE("segments: slots overflow size_t",
           ps_topk_segments(keys, NULL, 0, N, off, 3, SIZE_MAX / 2, ok_k, NULL,
                            ok_i, PS_U32, 0), PS_ERR_INVALID_ARG);
    /* k = 0 and n = 0 write nothing and succeed, NULL outputs included. */
    REFUSE("k = 0",
           ps_topk(keys, vals, 4, N, 0, NULL, NULL, NULL, PS_U32, 0), PS_OK);
    REFUSE("n = 0",
           ps_topk(NULL, NULL, 0, 0, 5, NULL, NULL, NULL, PS_U32, 0), PS_OK);
    REFUSE("segments: k = 0",
           ps_topk_segments(keys, NULL, 0, N, off, 3, 0, NULL, NULL, NULL,
                            PS_U32, 0), PS_OK);
#undef REFUSE
    /* A huge k with one non-empty segment first: its slots fit. */
    big[0] = 0, big[1] = N, big[2] = N, big[3] = N;
    st = ps_topk_segments(keys, NULL, 0, N, big, 3, SIZE_MAX, ok_k, NULL, ok_i,
                          PS_U32, 0);
    if (st != PS_OK)
        t_fail("k = SIZE_MAX, one non-empty segment: %s", ps_error_detail());
    free(buf);
    free(before);
    printf("ps_test_topk: refusals kept every array\n");
}

/* With the j-th host allocation failing, j = 1, 2, ...: each call either
 * succeeds right or fails with a memory status and the outputs as they
 * were. */
static void faults(void)
{
    size_t n = 100000, k = 1000, i, *perm = xmalloc(n * sizeof(size_t));
    uint32_t *keys = xmalloc(n * 4);
    uint64_t rng = 9;
    long j;
    outs o;

    t_make_keys((unsigned char *)keys, n, PS_U32, T_PREFIX, &rng);
    if (ps_argsort(keys, perm, n, PS_U32, 0) != PS_OK)
        t_fail("ps_argsort: %s", ps_error_detail());
    outs_init(&o, k, 4, 0, 1);
    for (j = 1; j < 64; j++) {
        int st;
        t_fail_alloc_at(j);
        st = ps_topk(keys, NULL, 0, n, k, o.keys, NULL, o.index, PS_U32, 0);
        t_fail_alloc_at(0);
        if (!t_alloc_failed()) {
            if (st != PS_OK)
                t_fail("faults: no allocation failed, yet %s",
                       ps_error_detail());
            break;
        }
        if (st == PS_OK) {
            /* An allocation the select can do without (the sample of the
             * bounds, which the counting passes replace) failed: the
             * results must still be right.  Fresh guards for the next. */
            for (i = 0; i < k; i++)
                check_slot("faults", &o, i, (unsigned char *)keys, NULL,
                           perm[i]);
            outs_free(&o);
            outs_init(&o, k, 4, 0, 1);
            continue;
        }
        if (st != PS_ERR_NO_MEMORY && st != PS_ERR_DEVICE_MEMORY)
            t_fail("faults: allocation %ld failed: status %d (%s)", j, st,
                   ps_error_detail());
        for (i = 0; i < o.slots; i++)
            check_guard("faults", &o, i);
    }
    if (j == 64)
        t_fail("faults: allocations still failing after 63 tries");
    for (i = 0; i < k; i++)
        check_slot("faults", &o, i, (unsigned char *)keys, NULL, perm[i]);
    printf("ps_test_topk: %ld allocation faults injected, outputs kept\n",
           j - 1);
    outs_free(&o);
    free(keys);
    free(perm);
}

int main(void)
{
    static const size_t sizes[] = { 1, 2, 3, 17, 300, 4099 };
    static const size_t segk[] = { 1, 3, 10, 24, 64 };
    uint64_t rng = 2026;
    int t, shape;
    unsigned flags;
    size_t si, calls = 0;

    t_init_or_skip("ps_test_topk");
    for (t = PS_U8; t <= T_TYPE_LAST; t++)
        for (flags = t_wanted("PS_TEST_TYPES", t_type_name((ps_type)t))
                     ? 0 : 2; flags <= PS_DESCENDING; flags++)
            for (shape = 0; shape < T_SHAPES; shape++) {
                for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                    one_array((ps_type)t, flags, shape, sizes[si], &rng);
                    calls += 8;
                }
                segmented((ps_type)t, flags, shape, 30, 3000,
                          segk[(size_t)(t + shape) % 5],
                          vsizes[(size_t)(t + shape + flags) % 5], &rng);
                calls++;
            }
    /* Arrays past 32768 keys, where the select first bounds the k-th key
     * by a sample (lib/ps_topk.c, TOPK_SAMPLE_MIN): every shape, each key
     * width it runs on, both directions; the all-equal and two-value
     * shapes make the bounds miss, so the counting passes run after. */
    {
        static const ps_type big[] = { PS_U16, PS_I32, PS_F32, PS_U64, PS_F64 };
        for (si = 0; si < sizeof big / sizeof big[0]; si++)
            for (flags = 0; flags <= PS_DESCENDING; flags++)
                for (shape = 0; shape < T_SHAPES; shape++) {
                    if (!t_wanted("PS_TEST_TYPES", t_type_name(big[si])))
                        continue;
                    one_array(big[si], flags, shape, 40000 + (size_t)shape, &rng);
                    calls += 8;
                }
    }
    /* Past 2^18 keys the sampled scan runs in chunks on the backend's
     * threads (TOPK_PAR_MIN): every shape once more there, u32 and i64. */
    for (shape = 0; shape < T_SHAPES; shape++) {
        one_array(PS_U32, (unsigned)shape & 1u, shape, 270001, &rng);
        one_array(PS_I64, ~(unsigned)shape & 1u, shape, 262144, &rng);
        calls += 16;
    }
    /* Segments where some keep their best k sorted and the others' are
     * selected by the column bound and sorted after (lib/ps_topk.c,
     * keeps_best, cols_fit): k of 17 to 31, one segment of 40000 keys
     * and the rest up to 3000 (the column bound from about 500 keys, the
     * sorted inserts below); packed words (u32, f32) and pairs (u64). */
    for (shape = 0; shape < T_SHAPES; shape++) {
        static const ps_type mix[] = { PS_U32, PS_F32, PS_U64 };
        segmented(mix[shape % 3], (unsigned)shape & 1u, shape, 3000, 40000,
                  17 + (size_t)shape * 2, (size_t)shape % 2 * 4, &rng);
        calls++;
    }
    /* k of 5 to 16 in segments up to 3000 keys: the column bound, which
     * for 4- and 8-byte keys on an x86 CPU is in vector registers
     * (lib/ps_topk_vec.h; test/openmp.sh runs this test again with
     * PORTSORT_OPENMP_SIMD=avx2 and =none, the AVX2 form and the baseline
     * one): every such type, both directions, every
     * shape, lengths at and off multiples of the 16 and 32 lanes. */
    {
        static const ps_type wide[] = { PS_U32, PS_I32, PS_F32, PS_U64,
                                        PS_I64, PS_F64 };
        for (si = 0; si < sizeof wide / sizeof wide[0]; si++)
            for (flags = 0; flags <= PS_DESCENDING; flags++)
                for (shape = 0; shape < T_SHAPES; shape++) {
                    if (!t_wanted("PS_TEST_TYPES", t_type_name(wide[si])))
                        continue;
                    segmented(wide[si], flags, shape, 3000,
                              256 + (size_t)shape * 33,
                              5 + (size_t)(shape + si + flags) % 12,
                              vsizes[(size_t)(shape + si) % 5], &rng);
                    calls++;
                }
    }
    /* k of 64 to 360 in segments up to 3000 keys, past the column bound:
     * the small sample's bound (lib/ps_topk.c, cut_fit) in segments of
     * 512 keys and more with k < len / 3, the counting passes above that,
     * every key a candidate from k >= 5 len / 8 (cands_of), and the
     * segments of k keys or fewer whole. */
    for (shape = 0; shape < T_SHAPES; shape++) {
        static const ps_type mix[] = { PS_U32, PS_I64, PS_F32, PS_U16 };
        segmented(mix[shape % 4], ~(unsigned)shape & 1u, shape, 3000, 9000,
                  64 + (size_t)shape * 37, (size_t)(shape % 3) * 4, &rng);
        calls++;
    }
    /* From 2^21 keys the bounds come from a larger sample (lib/ps_topk.c,
     * TOPK_SAMPLE_BIG_MIN): k = 100 takes it, in both directions. */
    one_array(PS_U32, 0, T_RANDOM, ((size_t)1 << 21) + 3, &rng);
    one_array(PS_F32, PS_DESCENDING, T_SPECIAL, (size_t)1 << 21, &rng);
    one_array(PS_U32, 0, T_FEW, (size_t)1 << 21, &rng);  /* ties at the k-th */
    calls += 24;
    /* One large array, where the select runs all its passes over many
     * survivors and the candidates' sort is the backend's own. */
    one_array(PS_U32, 0, T_PREFIX, 300000, &rng);
    one_array(PS_F64, PS_DESCENDING, T_RANDOM, 300000, &rng);
    printf("ps_test_topk: %zu calls on backend %s matched ps_argsort\n", calls,
           ps_backend_name());
    refusals();
    faults();
    return 0;
}
