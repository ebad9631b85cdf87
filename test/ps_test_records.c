/*
 * ps_test_records - ps_sort_records, ps_argsort_records and
 * ps_argsort_columns on the backend PORTSORT_BACKEND names, against a
 * comparison sort written here: each field compared by t_cmp (values and
 * signs, not bit tricks), in its own direction, the index last.
 *
 * Layouts: a packed 9-byte record of u16 + i32 + f16 (one 64-bit word), a
 * 23-byte one of four fields across three words, and random ones (1 to 6
 * fields of any type and direction, at any offset, overlapping fields
 * included).  Values: random, few distinct (so that the later fields
 * decide), and the specials (NaN of both signs, -0 and +0, infinities,
 * the extreme integers).  Sizes up to 70000 records (the images built in
 * chunks on the backend's threads).  Then the refusals, each leaving every
 * array as it was, and allocation faults.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portsort.h"
#include "ps_test_util.h"

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        t_fail("out of memory for %zu bytes", bytes);
    return p;
}

/* The call the reference compares for. */
static const unsigned char *g_rec;
static size_t g_size;
static const ps_field *g_fields;
static size_t g_nf;

static int cmp_rows(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b, f;
    for (f = 0; f < g_nf; f++) {
        /* Fields may be unaligned: compared from aligned copies. */
        uint64_t x = 0, y = 0;
        size_t kb = ps_type_size(g_fields[f].type);
        int c;
        memcpy(&x, g_rec + i * g_size + g_fields[f].offset, kb);
        memcpy(&y, g_rec + j * g_size + g_fields[f].offset, kb);
        c = t_cmp(&x, &y, g_fields[f].type);
        if (g_fields[f].flags & PS_DESCENDING)
            c = -c;
        if (c != 0)
            return c;
    }
    return i < j ? -1 : i > j;
}

static void reference(const unsigned char *rec, size_t size, size_t n,
                      const ps_field *fields, size_t nf, size_t *perm)
{
    size_t i;
    for (i = 0; i < n; i++)
        perm[i] = i;
    g_rec = rec, g_size = size, g_fields = fields, g_nf = nf;
    qsort(perm, n, sizeof *perm, cmp_rows);   /* a total order: stable */
}

/* A value of `kb` bytes for a field of type t: random, one of a few, or
 * a special. */
static uint64_t value(ps_type t, int shape, uint64_t *rng, const uint64_t *few)
{
    static const uint64_t f64[] = { 0x7FF8000000000000ull, 0xFFF8000000000001ull,
        0x8000000000000000ull, 0, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
        0x3FF0000000000000ull, 0xBFF0000000000000ull };
    static const uint64_t f32[] = { 0x7FC00000, 0xFFC00001, 0x80000000, 0,
        0x7F800000, 0xFF800000, 0x3F800000, 0xBF800000 };
    static const uint64_t h16[] = { 0x7E00, 0xFE01, 0x8000, 0, 0x7C00, 0xFC00,
        0x3C00, 0xBC00 };
    uint64_t r = t_rand(rng);
    unsigned i = (unsigned)(r >> 61);
    switch (shape) {
    case 1:
        return few[r % 3];
    case 2:
        switch (t) {
        case PS_F64: return f64[i];
        case PS_F32: return f32[i];
        case PS_F16: case PS_BF16: return h16[i];
        default: {
            unsigned bits = 8u * (unsigned)ps_type_size(t);
            uint64_t all = bits == 64 ? ~0ull : ((1ull << bits) - 1);
            uint64_t ints[8] = { 0, 1, all, all >> 1, (all >> 1) + 1, 2,
                                 all - 1, 0 };
            return ints[i];
        }
        }
    default:
        return r;
    }
}

static void make_records(unsigned char *rec, size_t size, size_t n,
                         const ps_field *fields, size_t nf, uint64_t *rng)
{
    size_t i, f;
    uint64_t few[3];
    int shape[8];
    for (i = 0; i < n * size; i++)
        rec[i] = (unsigned char)t_rand(rng);
    for (f = 0; f < nf; f++)
        shape[f] = (int)(t_rand(rng) % 3);
    for (f = 0; f < nf; f++) {
        size_t kb = ps_type_size(fields[f].type);
        for (i = 0; i < 3; i++)
            few[i] = t_rand(rng);
        for (i = 0; i < n; i++) {
            uint64_t v = value(fields[f].type, shape[f], rng, few);
            memcpy(rec + i * size + fields[f].offset, &v, kb);
        }
    }
}

/* A permutation a call returned (status st) against the reference's. */
static void check_perm(const char *what, const char *fn, size_t n, int st,
                       const size_t *got, const size_t *want)
{
    size_t i;
    if (st != PS_OK)
        t_fail("%s n=%zu: %s: %s", what, n, fn, ps_error_detail());
    for (i = 0; i < n; i++)
        if (got[i] != want[i])
            t_fail("%s n=%zu: %s: perm[%zu] = %zu, want %zu", what, n, fn, i,
                   got[i], want[i]);
}

/* The three functions on the records rec (which it frees), against the
 * reference. */
static void check_case(const char *what, unsigned char *rec, size_t size,
                       size_t n, const ps_field *fields, size_t nf)
{
    unsigned char *sorted = xmalloc(n * size);
    unsigned char *colmem = xmalloc(nf * (n * 8 + 1));
    size_t *want = xmalloc(n * sizeof(size_t)), *got = xmalloc(n * sizeof(size_t));
    const void *cols[8];
    ps_type types[8];
    unsigned flags[8];
    size_t i, f;
    int st, allasc = 1;

    reference(rec, size, n, fields, nf, want);

    for (i = 0; i < n; i++)
        got[i] = (size_t)-1;
    check_perm(what, "ps_argsort_records", n,
               ps_argsort_records(rec, size, n, fields, nf, got), got, want);

    memcpy(sorted, rec, n * size);
    st = ps_sort_records(sorted, size, n, fields, nf);
    if (st != PS_OK)
        t_fail("%s n=%zu: ps_sort_records: %s", what, n, ps_error_detail());
    for (i = 0; i < n; i++)
        if (memcmp(sorted + i * size, rec + want[i] * size, size) != 0)
            t_fail("%s n=%zu: ps_sort_records: record %zu is not record %zu",
                   what, n, i, want[i]);

    /* The same keys as columns, each one byte past an aligned address. */
    for (f = 0; f < nf; f++) {
        size_t kb = ps_type_size(fields[f].type);
        unsigned char *c = colmem + f * (n * 8 + 1) + 1;
        for (i = 0; i < n; i++)
            memcpy(c + i * kb, rec + i * size + fields[f].offset, kb);
        cols[f] = c;
        types[f] = fields[f].type;
        flags[f] = fields[f].flags;
        allasc &= fields[f].flags == 0;
    }
    for (i = 0; i < n; i++)
        got[i] = (size_t)-1;
    check_perm(what, "ps_argsort_columns", n,
               ps_argsort_columns(cols, types, allasc && (n & 1) ? NULL : flags,
                                  nf, n, got), got, want);
    free(rec);
    free(sorted);
    free(colmem);
    free(want);
    free(got);
}

/* The three functions on random records of one layout. */
static void one_case(const char *what, size_t size, size_t n,
                     const ps_field *fields, size_t nf, uint64_t *rng)
{
    unsigned char *rec = xmalloc(n * size);
    make_records(rec, size, n, fields, nf, rng);
    check_case(what, rec, size, n, fields, nf);
}

/* Keys whose images vary in some bits only (the library keeps just those,
 * lib/ps_squeeze.h): a u64 key random under `vary` over a constant, in
 * 16-byte records {u64 key, 8 bytes} (sorted as pairs and rebuilt) and in
 * 24-byte ones {u64 key, u64 key2, 8 bytes} (two words: argsort, gather),
 * key2 one of three values.  With `rare`, all but a few rows (1, 7 and
 * n - 2: at n = 5000 and 70000, rows the library's sample of 256 evenly
 * spaced rows skips) have vary's bits 0, so only the whole fill can show
 * that they vary. */
static void squeezed(const char *what, size_t n, uint64_t vary, int rare,
                     uint64_t *rng)
{
    static const ps_field one[] = { { 0, PS_U64, 0 } };
    static const ps_field two[] = { { 0, PS_U64, PS_DESCENDING }, { 8, PS_U64, 0 } };
    uint64_t fixed = t_rand(rng) & ~vary;
    int layout;
    for (layout = 0; layout < 2; layout++) {
        size_t size = layout == 0 ? 16 : 24, i;
        unsigned char *rec = xmalloc(n * size);
        for (i = 0; i < n * size; i++)
            rec[i] = (unsigned char)t_rand(rng);
        for (i = 0; i < n; i++) {
            int varies = !rare || i == 1 || i == 7 || i + 2 == n;
            uint64_t k = fixed | (varies ? t_rand(rng) & vary : 0);
            uint64_t k2 = t_rand(rng) % 3;
            memcpy(rec + i * size, &k, 8);
            if (layout == 1)
                memcpy(rec + i * size + 8, &k2, 8);
        }
        check_case(what, rec, size, n, layout == 0 ? one : two, layout + 1);
    }
}

static void squeezed_layouts(uint64_t *rng)
{
    static const size_t sizes[] = { 2, 300, 5000, 70000 };
    size_t s;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        /* (row << 32 | col): 2^21 rows, 2^20 columns. */
        squeezed("row,col gap", n, 0x001FFFFF000FFFFFull, 0, rng);
        squeezed("row,col gap, few rows vary", n, 0x001FFFFF000FFFFFull, 1, rng);
        squeezed("low bits constant", n, 0xFFFFFFFFFF000000ull, 0, rng);
        squeezed("high bit only, few rows", n, 0x8000000000000000ull, 1, rng);
        /* One bit in five: 13 runs with gaps of 4, merged down to 6;
         * runs of 2 bits with gaps of 3, filled into one. */
        squeezed("13 runs", n, 0x1084210842108421ull, 0, rng);
        squeezed("13 runs, few rows", n, 0x1084210842108421ull, 1, rng);
        squeezed("narrow gaps", n, 0x318C6318C6318C63ull, 1, rng);
        squeezed("all equal", n, 0, 0, rng);
        squeezed("one bit in the middle", n, 0x0000000100000000ull, 0, rng);
    }
}

static void fixed_layouts(uint64_t *rng)
{
    /* struct __attribute__((packed)) { u16 a; i32 b; f16 c; u8 pad; } */
    static const ps_field three[] = {
        { 0, PS_U16, 0 }, { 2, PS_I32, PS_DESCENDING }, { 6, PS_F16, 0 } };
    /* f64 desc, u8, i64, f32 desc in 23 bytes: three 64-bit words. */
    static const ps_field four[] = {
        { 0, PS_F64, PS_DESCENDING }, { 8, PS_U8, 0 }, { 9, PS_I64, 0 },
        { 17, PS_F32, PS_DESCENDING } };
    /* COO entries {u32 row, u32 col, f64 val}: 8 key bytes and 8 others,
     * sorted as pairs and rebuilt; and {i16 desc, u8, 5 bytes} likewise. */
    static const ps_field coo[] = { { 0, PS_U32, 0 }, { 4, PS_U32, 0 } };
    static const ps_field small[] = { { 1, PS_I16, PS_DESCENDING }, { 6, PS_U8, 0 } };
    static const ps_field twelve[] = { { 4, PS_F32, PS_DESCENDING }, { 0, PS_U32, 0 } };
    /* The odd sizes issue 31 names: 3 bytes {u8, u16 desc}; 7 bytes
     * {i8 desc, f16, u32} (all key, one word); 24 bytes {u64, i32 desc,
     * f64, 4 bytes} (two words); 100 bytes with bf16, i64 and u8 fields
     * far apart (one word, 87 bytes of rest: the argsort and gather). */
    static const ps_field b3[] = { { 0, PS_U8, 0 }, { 1, PS_U16, PS_DESCENDING } };
    static const ps_field b7[] = { { 0, PS_I8, PS_DESCENDING }, { 1, PS_F16, 0 },
                                   { 3, PS_U32, 0 } };
    static const ps_field b24[] = { { 0, PS_U64, 0 }, { 8, PS_I32, PS_DESCENDING },
                                    { 12, PS_F64, 0 } };
    static const ps_field b100[] = { { 97, PS_BF16, 0 }, { 40, PS_I64, PS_DESCENDING },
                                     { 3, PS_U8, 0 } };
    static const size_t sizes[] = { 0, 1, 2, 3, 17, 1000, 70000 };
    size_t s;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        one_case("coo u32+u32 in 16 bytes", 16, sizes[s], coo, 2, rng);
        one_case("i16desc+u8 in 8 bytes", 8, sizes[s], small, 2, rng);
        one_case("f32desc+u32 in 12 bytes", 12, sizes[s], twelve, 2, rng);
        one_case("u16+i32desc+f16 in 9 bytes", 9, sizes[s], three, 3, rng);
        one_case("f64desc+u8+i64+f32desc in 23 bytes", 23, sizes[s], four, 4, rng);
        one_case("u8+u16desc in 3 bytes", 3, sizes[s], b3, 2, rng);
        one_case("i8desc+f16+u32 in 7 bytes", 7, sizes[s], b7, 3, rng);
        one_case("u64+i32desc+f64 in 24 bytes", 24, sizes[s], b24, 3, rng);
        one_case("bf16+i64desc+u8 in 100 bytes", 100, sizes[s], b100, 3, rng);
    }
}

static void random_layouts(uint64_t *rng)
{
    int c;
    for (c = 0; c < 120; c++) {
        ps_field f[6];
        size_t nf = 1 + (size_t)(t_rand(rng) % 6), size = 8 + t_rand(rng) % 33;
        size_t n = c % 10 == 0 ? 20000 : (size_t)(t_rand(rng) % 700), i;
        char what[64];
        for (i = 0; i < nf; i++) {
            f[i].type = (ps_type)(PS_U8 + (int)(t_rand(rng) % (PS_BF16 - PS_U8 + 1)));
            f[i].flags = (unsigned)(t_rand(rng) & 1) * PS_DESCENDING;
            f[i].offset = (size_t)(t_rand(rng) % (size - ps_type_size(f[i].type) + 1));
        }
        snprintf(what, sizeof what, "random layout %d (%zu fields, %zu bytes)",
                 c, nf, size);
        one_case(what, size, n, f, nf, rng);
    }
}

#define REFUSE(what, call)                                                   \
    do {                                                                     \
        int st_ = (call);                                                    \
        if (st_ != PS_ERR_INVALID_ARG)                                       \
            t_fail("refusal '%s': status %d (%s)", what, st_,                \
                   ps_error_detail());                                       \
        if (ps_error_detail()[0] == '\0')                                    \
            t_fail("refusal '%s': no detail", what);                         \
        if (memcmp(rec, rec0, sizeof rec) || memcmp(perm, perm0, sizeof perm)) \
            t_fail("refusal '%s': an array changed", what);                  \
    } while (0)

static void refusals(void)
{
    enum { N = 16, SZ = 12 };
    _Alignas(16) unsigned char rec[N * SZ];
    unsigned char rec0[N * SZ];
    size_t perm[N], perm0[N], i;
    ps_field ok[2] = { { 0, PS_U32, 0 }, { 4, PS_F64, PS_DESCENDING } };
    ps_field bad;
    const void *cols[2] = { rec, rec + 64 };
    ps_type types[2] = { PS_U32, PS_U32 };
    unsigned fl[2] = { 0, 4 };

    for (i = 0; i < sizeof rec; i++)
        rec[i] = (unsigned char)(i * 37);
    for (i = 0; i < N; i++)
        perm[i] = 1000 + i;
    memcpy(rec0, rec, sizeof rec);
    memcpy(perm0, perm, sizeof perm);

    REFUSE("records NULL", ps_sort_records(NULL, SZ, N, ok, 2));
    REFUSE("record_size 0", ps_sort_records(rec, 0, N, ok, 2));
    REFUSE("n * record_size overflows", ps_argsort_records(rec, SZ, SIZE_MAX / 8, ok, 2, perm));
    REFUSE("fields NULL", ps_sort_records(rec, SZ, N, NULL, 2));
    REFUSE("no fields", ps_sort_records(rec, SZ, N, ok, 0));
    bad = ok[1];
    bad.offset = 5;
    REFUSE("field past the record", ps_sort_records(rec, SZ, N, &bad, 1));
    bad.offset = SIZE_MAX - 2;
    REFUSE("field offset near SIZE_MAX", ps_argsort_records(rec, SZ, N, &bad, 1, perm));
    bad = ok[0];
    bad.type = (ps_type)99;
    REFUSE("field type", ps_sort_records(rec, SZ, N, &bad, 1));
    bad = ok[0];
    bad.flags = 2;
    REFUSE("field flags", ps_argsort_records(rec, SZ, N, &bad, 1, perm));
    REFUSE("perm NULL", ps_argsort_records(rec, SZ, N, ok, 2, NULL));
    REFUSE("perm over the records",
           ps_argsort_records(rec, SZ, N, ok, 2, (size_t *)(void *)(rec + 8)));
    {
        /* Fields inside the records they sort. */
        ps_field *inside = (ps_field *)(void *)(rec + 40);
        ps_field saved[2];
        memcpy(saved, inside, sizeof saved);
        memcpy(inside, ok, sizeof ok);
        memcpy(rec0, rec, sizeof rec);
        REFUSE("fields inside the records", ps_sort_records(rec, SZ, N, inside, 2));
        memcpy(inside, saved, sizeof saved);
        memcpy(rec0, rec, sizeof rec);
    }
    REFUSE("columns NULL", ps_argsort_columns(NULL, types, NULL, 2, N, perm));
    REFUSE("types NULL", ps_argsort_columns(cols, NULL, NULL, 2, N, perm));
    REFUSE("no columns", ps_argsort_columns(cols, types, NULL, 0, N, perm));
    REFUSE("column flags", ps_argsort_columns(cols, types, fl, 2, N, perm));
    REFUSE("perm NULL (columns)", ps_argsort_columns(cols, types, NULL, 2, N, NULL));
    {
        const void *nullcol[2] = { rec, NULL };
        REFUSE("a column NULL", ps_argsort_columns(nullcol, types, NULL, 2, N, perm));
    }
    REFUSE("perm over a column",
           ps_argsort_columns(cols, types, NULL, 2, 4, (size_t *)(void *)(rec + 64 + 8)));
    printf("ps_test_records: refusals kept every array\n");
}

/* With the j-th host allocation failing, j = 1, 2, ...: each call either
 * succeeds right or fails with a memory status, the records as they were.
 * Two layouts: four fields over three words (the argsort and gather), and
 * 16-byte COO entries by row and column (sorted as pairs, rebuilt). */
static void faults_on(const ps_field *f, size_t nf, size_t size)
{
    size_t n = 5000, *want = xmalloc(n * sizeof(size_t)), i;
    unsigned char *rec = xmalloc(n * size), *work = xmalloc(n * size);
    uint64_t rng = 5;
    long j;

    make_records(rec, size, n, f, nf, &rng);
    reference(rec, size, n, f, nf, want);
    for (j = 1; j < 64; j++) {
        int st;
        memcpy(work, rec, n * size);
        t_fail_alloc_at(j);
        st = ps_sort_records(work, size, n, f, nf);
        t_fail_alloc_at(0);
        if (st == PS_OK) {
            for (i = 0; i < n; i++)
                if (memcmp(work + i * size, rec + want[i] * size, size))
                    t_fail("faults %ld: record %zu wrong", j, i);
            if (!t_alloc_failed())
                break;
            continue;
        }
        if (st != PS_ERR_NO_MEMORY && st != PS_ERR_DEVICE_MEMORY)
            t_fail("faults: allocation %ld failed: status %d (%s)", j, st,
                   ps_error_detail());
        if (memcmp(work, rec, n * size) != 0)
            t_fail("faults: allocation %ld failed and the records changed", j);
    }
    if (j == 64)
        t_fail("faults: allocations still failing after 63 tries");
    printf("ps_test_records: %ld allocation faults injected, records kept\n",
           j - 1);
    free(want);
    free(rec);
    free(work);
}

static void faults(void)
{
    static const ps_field wide[] = { { 0, PS_F64, PS_DESCENDING }, { 8, PS_U8, 0 },
                                     { 9, PS_I64, 0 }, { 17, PS_F32, 0 } };
    static const ps_field coo[] = { { 0, PS_U32, 0 }, { 4, PS_U32, 0 } };
    faults_on(wide, 4, 21);
    faults_on(coo, 2, 16);
}

int main(void)
{
    uint64_t rng = 31;
    t_init_or_skip("ps_test_records");
    fixed_layouts(&rng);
    squeezed_layouts(&rng);
    random_layouts(&rng);
    printf("ps_test_records: every layout matched the reference on backend %s\n",
           ps_backend_name());
    refusals();
    faults();
    return 0;
}
