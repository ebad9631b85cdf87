/*
 * ps_test_recdev.c - the device records sorts' cases (ps_test_recdev.h).
 * The expected results are the host form's (ps_argsort_records,
 * ps_sort_records), taken only once a qsort by t_cmp per field (the
 * index last) agrees with them, so that a fault shared by the host form
 * and the device kernels cannot hide.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_recdev.h"
#include "ps_test_util.h"

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        t_fail("out of memory (%zu bytes)", bytes);
    return p;
}

static const ps_type all_types[] = { PS_U8, PS_U16, PS_U32, PS_U64, PS_I8, PS_I16,
                                     PS_I32, PS_I64, PS_F32, PS_F64, PS_F16,
                                     PS_BF16 };
#define NTYPES (sizeof all_types / sizeof all_types[0])

/* The oracle's comparison: the fields in order, each in its direction,
 * then the index. */
static const unsigned char *o_recs;
static size_t o_size, o_nf;
static const ps_field *o_fields;

static int o_cmp(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b, f;
    for (f = 0; f < o_nf; f++) {
        int c = t_cmp(o_recs + i * o_size + o_fields[f].offset,
                      o_recs + j * o_size + o_fields[f].offset, o_fields[f].type);
        if (c != 0)
            return o_fields[f].flags & PS_DESCENDING ? -c : c;
    }
    return i < j ? -1 : i > j;
}

/* A random layout of nf fields in records of `size` bytes: any type that
 * fits, anywhere, overlapping or not. */
static void make_fields(ps_field *f, size_t nf, size_t size, uint64_t *rng)
{
    size_t i;
    for (i = 0; i < nf; i++) {
        ps_type t;
        size_t kb;
        do {
            t = all_types[t_rand(rng) % NTYPES];
            kb = ps_type_size(t);
        } while (kb > size);
        f[i].type = t;
        f[i].offset = t_rand(rng) % (size - kb + 1);
        f[i].flags = t_rand(rng) % 2 ? PS_DESCENDING : 0;
    }
}

enum { V_RANDOM, V_FEW, V_SPECIAL, V_SHAPES };
static const char *vnames[] = { "random", "few-distinct", "special" };

/* Records of one shape: random bytes; or each a copy of one of three
 * random records (every field few-valued, so later fields decide); or
 * copies of two, with each field's value replaced by a special one (NaNs,
 * +-0, infinities, extremes) half the time. */
static void make_records(unsigned char *r, size_t size, size_t n, const ps_field *f,
                         size_t nf, int shape, uint64_t *rng)
{
    unsigned char tmpl[3][128];
    size_t i, b, j;
    for (j = 0; j < 3; j++)
        for (b = 0; b < size; b++)
            tmpl[j][b] = (unsigned char)t_rand(rng);
    for (i = 0; i < n; i++) {
        unsigned char *p = r + i * size;
        if (shape == V_RANDOM) {
            for (b = 0; b < size; b++)
                p[b] = (unsigned char)t_rand(rng);
            continue;
        }
        memcpy(p, tmpl[t_rand(rng) % (shape == V_FEW ? 3 : 2)], size);
        if (shape == V_SPECIAL)
            for (j = 0; j < nf; j++)
                if (t_rand(rng) % 2) {
                    uint64_t v = t_special(f[j].type, t_rand(rng));
                    memcpy(p + f[j].offset, &v, ps_type_size(f[j].type));
                }
    }
}

/* The host form's permutation, checked against the qsort oracle. */
static void expected_perm(const unsigned char *recs, size_t size, size_t n,
                          const ps_field *f, size_t nf, size_t *perm)
{
    size_t *o = xmalloc(n * sizeof *o), i;
    int st = ps_argsort_records(recs, size, n, f, nf, perm);
    if (st != PS_OK)
        t_fail("host ps_argsort_records: %s", ps_error_detail());
    for (i = 0; i < n; i++)
        o[i] = i;
    o_recs = recs;
    o_size = size;
    o_nf = nf;
    o_fields = f;
    qsort(o, n, sizeof *o, o_cmp);
    if (n > 0 && memcmp(o, perm, n * sizeof *o) != 0)
        t_fail("host ps_argsort_records disagrees with the oracle (n=%zu)", n);
    free(o);
}

static void describe(char *buf, size_t len, size_t size, size_t n,
                     const ps_field *f, size_t nf, int shape)
{
    size_t i, at;
    at = (size_t)snprintf(buf, len, "%zu-byte records n=%zu %s by", size, n,
                          vnames[shape]);
    for (i = 0; i < nf && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, " %s@%zu%s",
                               t_type_name(f[i].type), f[i].offset,
                               f[i].flags ? "desc" : "");
}

/* One layout and shape at one n, through the three calls. */
static long one_case(const char *who, const t_rec_dev *dev, size_t size, size_t n,
                     const ps_field *f, size_t nf, int shape, uint64_t *rng)
{
    unsigned char *recs = xmalloc(n * size), *work = xmalloc(n * size);
    size_t *want = xmalloc(n * sizeof *want), *got = xmalloc(n * sizeof *got);
    void *cols[4];
    ps_type types[4];
    unsigned flags[4];
    char what[256];
    size_t i, c;
    int st;

    make_records(recs, size, n, f, nf, shape, rng);
    describe(what, sizeof what, size, n, f, nf, shape);
    expected_perm(recs, size, n, f, nf, want);

    memcpy(work, recs, n * size);
    memset(got, 0xA5, n * sizeof *got);
    st = dev->argsort_records(work, size, n, f, nf, n ? got : NULL);
    if (st != PS_OK)
        t_fail("%s argsort_records %s: %s", who, what, ps_error_detail());
    if (memcmp(work, recs, n * size) != 0)
        t_fail("%s argsort_records %s: the records changed", who, what);
    for (i = 0; i < n; i++)
        if (got[i] != want[i])
            t_fail("%s argsort_records %s: perm[%zu] = %zu, want %zu", who, what, i,
                   got[i], want[i]);

    memcpy(work, recs, n * size);
    st = dev->sort_records(work, size, n, f, nf);
    if (st != PS_OK)
        t_fail("%s sort_records %s: %s", who, what, ps_error_detail());
    for (i = 0; i < n; i++)
        if (memcmp(work + i * size, recs + want[i] * size, size) != 0)
            t_fail("%s sort_records %s: record %zu is not record %zu", who, what, i,
                   want[i]);
    /* The host form's in-place sort, for the record: the same bytes. */
    if (n > 0) {
        unsigned char *host = xmalloc(n * size);
        memcpy(host, recs, n * size);
        if (ps_sort_records(host, size, n, f, nf) != PS_OK
            || memcmp(host, work, n * size) != 0)
            t_fail("%s sort_records %s: differs from ps_sort_records", who, what);
        free(host);
    }

    for (c = 0; c < nf; c++) {
        size_t kb = ps_type_size(f[c].type);
        cols[c] = xmalloc(n * kb);
        for (i = 0; i < n; i++)
            memcpy((unsigned char *)cols[c] + i * kb, recs + i * size + f[c].offset, kb);
        types[c] = f[c].type;
        flags[c] = f[c].flags;
    }
    memset(got, 0xA5, n * sizeof *got);
    st = dev->argsort_columns(cols, types, shape == V_RANDOM && nf == 1 && flags[0] == 0
                              ? NULL : flags, nf, n, n ? got : NULL);
    if (st != PS_OK)
        t_fail("%s argsort_columns %s: %s", who, what, ps_error_detail());
    for (i = 0; i < n; i++)
        if (got[i] != want[i])
            t_fail("%s argsort_columns %s: perm[%zu] = %zu, want %zu", who, what, i,
                   got[i], want[i]);
    for (c = 0; c < nf; c++)
        free(cols[c]);
    free(recs);
    free(work);
    free(want);
    free(got);
    return 3;
}

/* Calls that must be refused before anything runs: the arrays as they
 * were. */
static long refusals(const char *who, const t_rec_dev *dev)
{
    enum { N = 50, SIZE = 7 };
    unsigned char recs[N * SIZE], orig[N * SIZE];
    size_t perm[N], i, j;
    ps_field ok = { 1, PS_U32, 0 };
    ps_field bad[][2] = {
        { { 1, PS_U32, 0 }, { 4, PS_U32, 0 } },         /* past the record */
        { { 1, PS_U32, 0 }, { 7, PS_U8, 0 } },          /* at its end */
        { { 1, PS_U32, 0 }, { 0, (ps_type)99, 0 } },    /* unknown type */
        { { 1, PS_U32, 0x4 }, { 0, PS_U8, 0 } },        /* unknown flag */
    };
    long calls = 0;
    uint64_t rng = 99;
    for (i = 0; i < sizeof recs; i++)
        orig[i] = (unsigned char)t_rand(&rng);
#define REFUSED(call) do {                                                    \
        int st_;                                                              \
        memcpy(recs, orig, sizeof recs);                                      \
        memset(perm, 0xA5, sizeof perm);                                      \
        st_ = (call);                                                         \
        calls++;                                                              \
        if (st_ != PS_ERR_INVALID_ARG)                                        \
            t_fail("%s: %s: got %d (%s), want PS_ERR_INVALID_ARG", who,       \
                   #call, st_, ps_error_detail());                            \
        if (memcmp(recs, orig, sizeof recs) != 0)                             \
            t_fail("%s: %s: a refused call changed the records", who, #call); \
        for (j = 0; j < N; j++)                                               \
            if (perm[j] != (size_t)0xA5A5A5A5A5A5A5A5ull)                     \
                t_fail("%s: %s: a refused call wrote perm", who, #call);      \
    } while (0)
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        REFUSED(dev->sort_records(recs, SIZE, N, bad[i], 2));
        REFUSED(dev->argsort_records(recs, SIZE, N, bad[i], 2, perm));
    }
    REFUSED(dev->sort_records(recs, 0, N, &ok, 1));
    REFUSED(dev->argsort_records(recs, SIZE, N, &ok, 0, perm));
    REFUSED(dev->argsort_records(recs, SIZE, N, NULL, 1, perm));
    {
        void *cols[2] = { recs, recs + 200 };
        ps_type types[2] = { PS_U16, (ps_type)0 };
        unsigned flags[2] = { 0, 2 };
        REFUSED(dev->argsort_columns(cols, types, NULL, 2, N, perm));
        types[1] = PS_I8;
        REFUSED(dev->argsort_columns(cols, types, flags, 2, N, perm));
        REFUSED(dev->argsort_columns(cols, types, NULL, 0, N, perm));
    }
#undef REFUSED
    return calls;
}

long t_records_device(const char *who, const t_rec_dev *dev)
{
    static const size_t sizes[] = { 3, 7, 24, 100 };
    static const size_t ns[] = { 0, 1, 2, 1000 };
    /* PS_TEST_MAX_N (the sanitizer runs) leaves out the larger arrays. */
    const char *cap = getenv("PS_TEST_MAX_N");
    size_t max_n = cap != NULL ? strtoull(cap, NULL, 10) : (size_t)-1;
    if (dev->max_n != 0 && dev->max_n < max_n)
        max_n = dev->max_n;
    uint64_t rng = 31;
    long calls = 0;
    size_t s, k, nf;
    int shape;
    for (s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (nf = 1; nf <= 4; nf++)
            for (shape = 0; shape < V_SHAPES; shape++) {
                ps_field f[4];
                make_fields(f, nf, sizes[s], &rng);
                for (k = 0; k < sizeof ns / sizeof *ns && ns[k] <= max_n; k++)
                    calls += one_case(who, dev, sizes[s], ns[k], f, nf, shape, &rng);
            }
    /* Larger arrays, on a few layouts: several tiles and passes. */
    for (s = 0; s < sizeof sizes / sizeof *sizes && max_n >= 70000; s++) {
        ps_field f[3];
        nf = 1 + s % 3;
        make_fields(f, nf, sizes[s], &rng);
        calls += one_case(who, dev, sizes[s], 70000, f, nf, (int)(s % V_SHAPES), &rng);
    }
    return calls + refusals(who, dev);
}
