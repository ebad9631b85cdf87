/*
 * ps_test_errors - bad arguments, overlapping arrays and allocation failures
 * on the backend that PORTSORT_BACKEND names: each gets the right status, a
 * detail message, and leaves every caller array byte for byte as it was;
 * arrays that only touch must still sort right.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_overlap.h"
#include "ps_test_util.h"

#define N 5000

static uint32_t keys[N], keys0[N];
static uint64_t vals[N], vals0[N];
static unsigned char wide[N * 12], wide0[N * 12];
static size_t perm[N], perm0[N];

static void reset(void)
{
    uint64_t s = 99;
    size_t i;
    for (i = 0; i < N; i++) {
        keys[i] = keys0[i] = (uint32_t)t_rand(&s) % 977;  /* duplicates */
        vals[i] = vals0[i] = t_rand(&s);
        perm[i] = perm0[i] = (size_t)-1;
    }
    for (i = 0; i < sizeof wide; i++)
        wide[i] = wide0[i] = (unsigned char)t_rand(&s);
}

static void untouched(const char *what)
{
    if (memcmp(keys, keys0, sizeof keys) || memcmp(vals, vals0, sizeof vals)
        || memcmp(perm, perm0, sizeof perm) || memcmp(wide, wide0, sizeof wide))
        t_fail("%s: the caller's data changed", what);
}

static void expect(const char *what, int got, int want)
{
    if (got != want)
        t_fail("%s: got %d (%s), expected %d (%s)", what, got, ps_strerror(got),
               want, ps_strerror(want));
    if (want != PS_OK && ps_error_detail()[0] == '\0')
        t_fail("%s: no detail message", what);
    if (want != PS_OK)
        printf("  %-40s -> %s: %s\n", what, ps_strerror(got), ps_error_detail());
    untouched(what);
}

static void bad_arguments(void)
{
    reset();
    expect("keys NULL", ps_sort_keys(NULL, 10, PS_U32, 0), PS_ERR_INVALID_ARG);
    expect("type 0", ps_sort_keys(keys, N, (ps_type)0, 0), PS_ERR_INVALID_ARG);
    expect("type 13", ps_sort_keys(keys, N, (ps_type)13, 0), PS_ERR_INVALID_ARG);
    expect("type 0, n 0", ps_sort_keys(keys, 0, (ps_type)0, 0), PS_ERR_INVALID_ARG);
    expect("flags 2", ps_sort_keys(keys, N, PS_U32, 2), PS_ERR_INVALID_ARG);
    expect("flags ~0", ps_sort_keys(keys, N, PS_U32, ~0u), PS_ERR_INVALID_ARG);
    expect("keys misaligned", ps_sort_keys((char *)keys + 1, 10, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("argsort keys misaligned", ps_argsort((char *)vals + 4, perm, 10, PS_U64, 0),
           PS_ERR_INVALID_ARG);
    expect("n*8 overflows", ps_sort_keys(keys, SIZE_MAX / 4, PS_U64, 0),
           PS_ERR_INVALID_ARG);
    expect("pairs keys NULL", ps_sort_pairs(NULL, vals, 8, N, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("pairs values NULL", ps_sort_pairs(keys, NULL, 8, N, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("pairs value_size 0", ps_sort_pairs(keys, vals, 0, N, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("pairs value_size 0, n 0", ps_sort_pairs(keys, vals, 0, 0, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("pairs bad type", ps_sort_pairs(keys, vals, 8, N, (ps_type)42, 0),
           PS_ERR_INVALID_ARG);
    expect("pairs bad flags", ps_sort_pairs(keys, vals, 8, N, PS_U32, 4),
           PS_ERR_INVALID_ARG);
    expect("pairs n*value_size overflows",
           ps_sort_pairs(keys, vals, SIZE_MAX / 2, 3, PS_U32, 0), PS_ERR_INVALID_ARG);
    expect("argsort keys NULL", ps_argsort(NULL, perm, N, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("argsort perm NULL", ps_argsort(keys, NULL, N, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("argsort bad type", ps_argsort(keys, perm, N, (ps_type)-1, 0),
           PS_ERR_INVALID_ARG);
    expect("argsort n*8 overflows", ps_argsort(keys, perm, SIZE_MAX / 2, PS_U8, 0),
           PS_ERR_INVALID_ARG);
    /* n == 0 is success, with NULL pointers too. */
    expect("keys n 0", ps_sort_keys(NULL, 0, PS_F64, PS_DESCENDING), PS_OK);
    expect("pairs n 0", ps_sort_pairs(NULL, NULL, 3, 0, PS_I8, 0), PS_OK);
    expect("argsort n 0", ps_argsort(NULL, NULL, 0, PS_U16, 0), PS_OK);
}

/* Values need no alignment: a misaligned 4-byte value array takes the
 * byte-wise path and must still come out right. */
static void misaligned_values(void)
{
    uint32_t k[1000];
    unsigned char raw[4 * 1000 + 1], *v = raw + 1;
    size_t i;
    uint32_t x;
    for (i = 0; i < 1000; i++) {
        k[i] = (uint32_t)(1000 - i) % 97;
        x = (uint32_t)i;
        memcpy(v + 4 * i, &x, 4);
    }
    if (ps_sort_pairs(k, v, 4, 1000, PS_U32, 0) != PS_OK)
        t_fail("misaligned values: %s", ps_error_detail());
    for (i = 1; i < 1000; i++) {
        uint32_t a, b;
        memcpy(&a, v + 4 * (i - 1), 4);
        memcpy(&b, v + 4 * i, 4);
        if (k[i - 1] > k[i] || (k[i - 1] == k[i] && a > b)
            || k[i] != (uint32_t)(1000 - b) % 97)
            t_fail("misaligned values: wrong result at %zu", i);
    }
}

/* ------------------------------------------------------------------------
 * Overlapping arrays.  Each case places the arrays of one call in `arena`
 * at byte offsets, fills the arena, and then either expects
 * PS_ERR_INVALID_ARG with a detail naming the function and both arrays and
 * every byte of the arena as it was, or (arrays that only touch, n == 0)
 * a correct result with every byte outside the arrays as it was.
 * ------------------------------------------------------------------------ */

#define ARENA 4096
static _Alignas(64) unsigned char arena[ARENA];
static unsigned char arena0[ARENA];

/* Value j of a pairs case holds its key's index, little-endian in vs
 * bytes, so the result shows where every value came from. */
static size_t index_of(const unsigned char *v, size_t vs)
{
    size_t i = 0, b;
    for (b = vs; b-- > 0;)
        i = i << 8 | v[b];
    return i;
}

static void fill_arena(uint64_t seed)
{
    size_t i;
    for (i = 0; i < ARENA; i++)
        arena[i] = (unsigned char)t_rand(&seed);
}

/* Keys (u32 keys, or u64 when kb is 8) at koff and values at voff, as the
 * pairs cases need them: few distinct keys, values their indices. */
static void fill_pairs(size_t koff, size_t kb, size_t voff, size_t vs, size_t n,
                       uint64_t seed)
{
    size_t i, b;
    fill_arena(seed);
    for (i = 0; i < n; i++) {
        uint64_t k = t_rand(&seed) % 7;
        memcpy(arena + koff + i * kb, &k, kb);   /* little-endian */
    }
    for (i = 0; i < n && vs > 0; i++)
        for (b = 0; b < vs; b++)
            arena[voff + i * vs + b] = (unsigned char)(b < sizeof i ? i >> (8 * b) : 0);
    memcpy(arena0, arena, ARENA);
}

static uint64_t key_at(const unsigned char *base, size_t kb, size_t i)
{
    uint64_t k = 0;
    memcpy(&k, base + i * kb, kb);
    return k;
}

/* A refused overlap: the status, a detail naming fn, a and b, and the
 * arena byte for byte. */
static void refused_overlap(const char *what, int st, const char *fn,
                            const char *a, const char *b)
{
    const char *d = ps_error_detail();
    if (st != PS_ERR_INVALID_ARG)
        t_fail("%s: got %d (%s), expected PS_ERR_INVALID_ARG", what, st,
               ps_strerror(st));
    if (strstr(d, fn) == NULL || strstr(d, a) == NULL || strstr(d, b) == NULL
        || strstr(d, "overlap") == NULL)
        t_fail("%s: the detail \"%s\" does not name %s, %s and %s", what, d, fn,
               a, b);
    if (memcmp(arena, arena0, ARENA) != 0)
        t_fail("%s: a refused call changed the caller's bytes", what);
    printf("  %-40s -> %s\n", what, d);
}

/* Bytes of the arena outside [a, a + al) and [b, b + bl) are as they were. */
static void outside_untouched(const char *what, size_t a, size_t al, size_t b,
                              size_t bl)
{
    size_t i;
    for (i = 0; i < ARENA; i++)
        if (!(i >= a && i - a < al) && !(i >= b && i - b < bl) && arena[i] != arena0[i])
            t_fail("%s: byte %zu outside the arrays changed", what, i);
}

/* The pairs result at koff/voff: keys ascending, each value the index of
 * its key in the input, in input order among equal keys. */
static void check_pairs(const char *what, size_t koff, size_t kb, size_t voff,
                        size_t vs, size_t n)
{
    size_t j, prev = 0;
    for (j = 0; j < n; j++) {
        size_t idx = index_of(arena + voff + j * vs, vs);
        uint64_t k = key_at(arena + koff, kb, j);
        if (idx >= n || k != key_at(arena0 + koff, kb, idx))
            t_fail("%s: value %zu does not belong to its key", what, j);
        if (j > 0 && (key_at(arena + koff, kb, j - 1) > k
                      || (key_at(arena + koff, kb, j - 1) == k && prev > idx)))
            t_fail("%s: not sorted stably at %zu", what, j);
        prev = idx;
    }
    outside_untouched(what, koff, n * kb, voff, n * vs);
}

static void pairs_case(const char *what, size_t koff, size_t voff, size_t vs,
                       size_t n, int refused)
{
    int st;
    fill_pairs(koff, 4, voff, vs, n, koff * 31 + voff * 7 + vs + n);
    st = ps_sort_pairs(arena + koff, arena + voff, vs, n, PS_U32, 0);
    if (refused) {
        refused_overlap(what, st, "ps_sort_pairs", "keys", "values");
        return;
    }
    if (st != PS_OK)
        t_fail("%s: %s: %s", what, ps_strerror(st), ps_error_detail());
    check_pairs(what, koff, 4, voff, vs, n);
}

/* ps_argsort of n u64 keys at koff into perm at poff. */
static void argsort_case(const char *what, size_t koff, size_t poff, size_t n,
                         int refused)
{
    size_t j, perm_j, prev = 0;
    int st;
    fill_pairs(koff, 8, 0, 0, n, koff + poff * 3 + n);
    st = ps_argsort(arena + koff, (size_t *)(void *)(arena + poff), n, PS_U64, 0);
    if (refused) {
        refused_overlap(what, st, "ps_argsort", "keys", "perm");
        return;
    }
    if (st != PS_OK)
        t_fail("%s: %s: %s", what, ps_strerror(st), ps_error_detail());
    for (j = 0; j < n; j++) {
        memcpy(&perm_j, arena + poff + j * sizeof perm_j, sizeof perm_j);
        if (perm_j >= n || (j > 0 && (key_at(arena0 + koff, 8, prev)
                                      > key_at(arena0 + koff, 8, perm_j)
                                      || (key_at(arena0 + koff, 8, prev)
                                          == key_at(arena0 + koff, 8, perm_j)
                                          && prev > perm_j))))
            t_fail("%s: wrong permutation at %zu", what, j);
        prev = perm_j;
    }
    outside_untouched(what, poff, n * sizeof(size_t), 0, 0);
}

/* ps_sort_segments of n u64 keys at koff, values (vs 8, or 0 for none) at
 * voff, and two segments [0, n/2), [n/2, n) whose offsets are at ooff. */
static void segments_case(const char *what, size_t koff, size_t voff, size_t vs,
                          size_t ooff, size_t n, const char *a, const char *b)
{
    size_t offs[3] = { 0, n / 2, n }, j;
    int st;
    fill_pairs(koff, 8, voff, vs, n, koff + voff * 5 + ooff * 11 + n);
    memcpy(arena + ooff, offs, sizeof offs);
    memcpy(arena0, arena, ARENA);
    /* The offsets written last: where they overlap the keys or values, the
     * call still sees a valid segmentation, so only the overlap refuses it. */
    st = ps_sort_segments(arena + koff, vs ? arena + voff : NULL, vs, n,
                          (const size_t *)(const void *)(arena + ooff), 2, PS_U64, 0);
    if (a != NULL) {
        refused_overlap(what, st, "ps_sort_segments", a, b);
        return;
    }
    if (st != PS_OK)
        t_fail("%s: %s: %s", what, ps_strerror(st), ps_error_detail());
    if (memcmp(arena + ooff, arena0 + ooff, sizeof offs) != 0)
        t_fail("%s: the offsets changed", what);
    for (j = 0; j < n; j++) {
        size_t idx = vs ? index_of(arena + voff + j * vs, vs) : 0;
        if (j > 0 && j != n / 2
            && key_at(arena + koff, 8, j - 1) > key_at(arena + koff, 8, j))
            t_fail("%s: segment not sorted at %zu", what, j);
        if (vs && (idx >= n || (idx < n / 2) != (j < n / 2)
                   || key_at(arena + koff, 8, j) != key_at(arena0 + koff, 8, idx)))
            t_fail("%s: value %zu does not belong to its key", what, j);
    }
    outside_untouched(what, koff, n * 8, voff, n * vs);
}

/* The shared check's arithmetic where a naive end address would wrap: the
 * top of the address space, a span reaching it, ranges that only touch. */
static void span_arithmetic(void)
{
    static const struct {
        uintptr_t a;
        size_t al;
        uintptr_t b;
        size_t bl;
        int meet;
    } c[] = {
        { 4096, 8, 4104, 8, 0 },                        /* touching */
        { 4096, 8, 4103, 1, 1 },                        /* last byte */
        { 4096, 0, 4096, 8, 0 },                        /* empty */
        { UINTPTR_MAX - 15, 16, UINTPTR_MAX, 1, 1 },    /* end would wrap to 0 */
        { UINTPTR_MAX, 1, UINTPTR_MAX - 15, 16, 1 },
        { 0, SIZE_MAX, UINTPTR_MAX, 1, 0 },             /* ends just before it */
        { 0, SIZE_MAX, UINTPTR_MAX - 1, 1, 1 },
        { UINTPTR_MAX - 7, 8, 0, SIZE_MAX, 1 },
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        ps_span a = { "a", 0, c[i].a, c[i].al }, b = { "b", 0, c[i].b, c[i].bl };
        if (ps_spans_meet(&a, &b) != c[i].meet || ps_spans_meet(&b, &a) != c[i].meet)
            t_fail("span case %zu: [%#jx, +%zu) and [%#jx, +%zu) %s", i,
                   (uintmax_t)c[i].a, c[i].al, (uintmax_t)c[i].b, c[i].bl,
                   c[i].meet ? "overlap, not seen" : "seen overlapping");
        b.space = 1;    /* another OpenCL buffer: never the same bytes */
        if (ps_spans_meet(&a, &b))
            t_fail("span case %zu: spans of two buffers overlap", i);
    }
}

static void overlapping_arrays(void)
{
    /* Byte offsets in the arena, value size, n, and whether the call must
     * be refused: 64 u32 keys are 256 bytes, 64 values of 8 bytes 512. */
    static const struct {
        const char *what;
        size_t koff, voff, vs, n;
        int refused;
    } pairs[] = {
        { "pairs: values == keys", 0, 0, 8, 64, 1 },
        { "pairs: values == keys, 4-byte values", 64, 64, 4, 64, 1 },
        { "pairs: values == keys + 1 key", 0, 4, 4, 64, 1 },
        { "pairs: values start in keys' last byte", 0, 255, 8, 64, 1 },
        { "pairs: keys start in values' last byte", 192, 1, 3, 64, 1 },
        { "pairs: keys inside values", 8, 0, 8, 64, 1 },
        { "pairs: 12-byte values start in keys", 0, 16, 12, 8, 1 },
        { "pairs: n == 1, values == keys", 0, 0, 4, 1, 1 },
        { "pairs: keys, then values adjacent", 0, 256, 8, 64, 0 },
        { "pairs: values, then keys adjacent", 512, 0, 8, 64, 0 },
        { "pairs: 3-byte values right after keys", 0, 256, 3, 64, 0 },
        { "pairs: n == 1, adjacent", 0, 4, 4, 1, 0 },
        { "pairs: n == 0, values == keys", 0, 0, 4, 0, 0 },
    };
    /* 64 u64 keys and 64 indices are 512 bytes each. */
    static const struct {
        const char *what;
        size_t koff, poff, n;
        int refused;
    } argsorts[] = {
        { "argsort: perm == keys", 0, 0, 64, 1 },
        { "argsort: perm == keys + 1 key", 0, 8, 64, 1 },
        { "argsort: keys start in perm's last index", 504, 0, 64, 1 },
        { "argsort: n == 1, perm == keys", 0, 0, 1, 1 },
        { "argsort: keys, then perm adjacent", 0, 512, 64, 0 },
        { "argsort: perm, then keys adjacent", 512, 0, 64, 0 },
        { "argsort: n == 0, perm == keys", 0, 0, 0, 0 },
    };
    /* 64 u64 keys, 64 8-byte values: 512 bytes each; 3 offsets, 24.  The
     * two arrays the refusal must name, or NULL where the call must work. */
    static const struct {
        const char *what;
        size_t koff, voff, vs, ooff, n;
        const char *a, *b;
    } segs[] = {
        { "segments: values == keys", 0, 0, 8, 2048, 64, "keys", "values" },
        { "segments: values in keys' last byte", 0, 511, 8, 2048, 64, "keys", "values" },
        { "segments: offsets == keys", 0, 1024, 8, 0, 64, "keys", "offsets" },
        { "segments: offsets in keys' last key", 0, 1024, 0, 504, 64, "keys", "offsets" },
        { "segments: keys start in the offsets", 16, 1024, 8, 0, 64, "keys", "offsets" },
        { "segments: offsets inside values", 0, 1024, 8, 1280, 64, "values", "offsets" },
        { "segments: n == 1, values == keys", 0, 0, 8, 2048, 1, "keys", "values" },
        { "segments: keys, values, offsets adjacent", 0, 512, 8, 1024, 64, NULL, NULL },
        { "segments: offsets, keys adjacent, no values", 24, 0, 0, 0, 64, NULL, NULL },
        { "segments: n == 0, offsets where keys are", 0, 0, 8, 0, 0, NULL, NULL },
    };
    size_t i;
    for (i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        pairs_case(pairs[i].what, pairs[i].koff, pairs[i].voff, pairs[i].vs,
                   pairs[i].n, pairs[i].refused);
    for (i = 0; i < sizeof argsorts / sizeof argsorts[0]; i++)
        argsort_case(argsorts[i].what, argsorts[i].koff, argsorts[i].poff,
                     argsorts[i].n, argsorts[i].refused);
    for (i = 0; i < sizeof segs / sizeof segs[0]; i++)
        segments_case(segs[i].what, segs[i].koff, segs[i].voff, segs[i].vs,
                      segs[i].ooff, segs[i].n, segs[i].a, segs[i].b);
}

static void check_sorted(const char *what, int descending)
{
    size_t i;
    for (i = 1; i < N; i++)
        if (descending ? keys[i - 1] < keys[i] : keys[i - 1] > keys[i])
            t_fail("%s: result not sorted", what);
}

/* Segments for the faults below: an empty one, one of 1, a short one, one
 * of 4500 (over the shortest piece), and tiny ones of 0 to 6; the expected
 * result is the same sort with nothing failing.  The faults hit the sort
 * in steps (lib/ps_seglimit.c), under a limit that refuses the usual
 * scratch (the reference sort's for the long segment: 54112 bytes) but
 * holds the pieces of that segment alone: each block the steps take is
 * refused by malloc in turn. */
#define SEG_LIMIT 52000
static size_t seg_off[N + 2], seg_ns;
static uint32_t seg_keys[N];
static uint64_t seg_vals[N];

static void segments_expected(void)
{
    static const size_t head[4] = { 0, 1, 37, 4500 };
    size_t at = 0, i;
    seg_ns = 0;
    seg_off[0] = 0;
    for (i = 0; i < 4; i++)
        seg_off[++seg_ns] = at += head[i];
    while (at < N) {
        size_t m = seg_ns % 7;
        at += m < N - at ? m : N - at;
        seg_off[++seg_ns] = at;
    }
    reset();
    if (ps_sort_segments(keys, vals, 8, N, seg_off, seg_ns, PS_U32,
                         PS_DESCENDING) != PS_OK)
        t_fail("segments with values: %s", ps_error_detail());
    memcpy(seg_keys, keys, sizeof keys);
    memcpy(seg_vals, vals, sizeof vals);
}

static void check_op(const char *what, int op)
{
    if (op < 3)
        check_sorted(what, op == 1);
    if (op == 4 && (memcmp(keys, seg_keys, sizeof keys) != 0 ||
                    memcmp(vals, seg_vals, sizeof vals) != 0))
        t_fail("%s: not what the sort without a failure gives", what);
}

/* Fail the k-th host allocation of one call, for k = 1, 2, ... until the
 * call makes no more allocations: each run must succeed correctly or fail
 * with PS_ERR_NO_MEMORY and the arrays unchanged. */
static void allocation_faults(const char *what, int op)
{
    long k;
    for (k = 1; k < 1000; k++) {
        int st;
        reset();
        t_fail_alloc_at(k);
        switch (op) {
        case 0: st = ps_sort_keys(keys, N, PS_U32, 0); break;
        case 1: st = ps_sort_pairs(keys, vals, 8, N, PS_U32, PS_DESCENDING); break;
        case 2: st = ps_sort_pairs(keys, wide, 12, N, PS_U32, 0); break;
        case 3: st = ps_argsort(keys, perm, N, PS_U32, 0); break;
        default:
            ps_set_memory_limit(SEG_LIMIT);
            st = ps_sort_segments(keys, vals, 8, N, seg_off, seg_ns, PS_U32,
                                  PS_DESCENDING);
            ps_set_memory_limit(0);
            break;
        }
        t_fail_alloc_at(0);
        if (!t_alloc_failed()) {
            if (st != PS_OK)
                t_fail("%s: no injected failure, yet status %s", what, ps_strerror(st));
            check_op(what, op);
            /* argsort always needs scratch: seeing none means the injection
             * does not reach the library and this test proves nothing. */
            if (op == 3 && k == 1)
                t_fail("%s: no allocation observed: fault injection is not active",
                       what);
            printf("  %-40s %ld allocation(s), each failure handled\n", what, k - 1);
            return;
        }
        if (st == PS_OK) {
            /* A backend may survive a failed allocation (e.g. by using
             * less scratch); then the result must be right. */
            check_op(what, op);
            continue;
        }
        if (st != PS_ERR_NO_MEMORY)
            t_fail("%s: allocation %ld failed, got %s", what, k, ps_strerror(st));
        untouched(what);
    }
    t_fail("%s: more than 1000 allocations in one call", what);
}

int main(void)
{
    int s;
    t_init_or_skip("ps_test_errors");
    bad_arguments();
    span_arithmetic();
    overlapping_arrays();
    misaligned_values();
    /* Under valgrind its own allocator replaces aligned_alloc before the
     * test's interposer can: .ci/sanitize.sh sets PS_TEST_NO_FAULTS there
     * (the plain and ASan runs cover the faults). */
    if (getenv("PS_TEST_NO_FAULTS") != NULL) {
        printf("  allocation faults skipped (PS_TEST_NO_FAULTS)\n");
    } else {
        allocation_faults("keys, failing allocation k", 0);
        allocation_faults("pairs/8, failing allocation k", 1);
        allocation_faults("pairs/12, failing allocation k", 2);
        allocation_faults("argsort, failing allocation k", 3);
        segments_expected();
        allocation_faults("segments/8, failing allocation k", 4);
    }
    for (s = -2; s <= 8; s++)
        if (ps_strerror(s) == NULL || ps_strerror(s)[0] == '\0')
            t_fail("ps_strerror(%d) is empty", s);
    if (strcmp(ps_strerror(PS_OK), ps_strerror(PS_ERR_DEVICE)) == 0)
        t_fail("ps_strerror does not tell statuses apart");
    printf("ps_test_errors: passed on backend %s\n", ps_backend_name());
    return 0;
}
