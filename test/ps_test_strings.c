/*
 * ps_test_strings.c - ps_sort_strings and ps_argsort_strings on the backend
 * named by PORTSORT_BACKEND, against a plain stable merge sort (memcmp on
 * the common length, a proper prefix first, ties by index), on string
 * shapes that stress a string radix sort: random words, URL-like lines
 * with long shared prefixes, many duplicates, all-equal strings, empty
 * strings, bytes >= 0x80 (unsigned order), strings that differ only in
 * their last byte, NULs inside (argsort only), a 1 MB common prefix, a
 * prefix shared by nine strings in ten; both
 * directions; then the argument errors and allocation faults, each of
 * which must leave the caller's arrays byte-identical.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_util.h"

/* n strings end to end: string i is buf[off[i]] .. buf[off[i + 1] - 1]. */
typedef struct strs {
    unsigned char *buf;
    size_t *off;
    size_t n;
} strs;

enum { SH_WORDS, SH_URLS, SH_DUPS, SH_EQUAL, SH_EMPTYISH, SH_HIGH, SH_LAST,
       SH_NUL, SH_EMPTY, SH_MEGA, SH_SKEW, SH_COUNT };
static const char *const shape_name[SH_COUNT] = {
    "words", "urls", "dups", "all-equal", "empty-and-short", "high-bytes",
    "last-byte", "nul-inside", "all-empty", "1MB-prefix", "skewed-prefix"
};

/* Appends len bytes to the strings being built (grown as needed). */
typedef struct builder {
    strs s;
    size_t cap, used, i;
} builder;

static void put(builder *b, const void *p, size_t len)
{
    if (len == 0)
        return;
    if (b->used + len > b->cap) {
        b->cap = 2 * (b->used + len) + 64;
        b->s.buf = realloc(b->s.buf, b->cap);
        if (b->s.buf == NULL)
            t_fail("out of memory");
    }
    memcpy(b->s.buf + b->used, p, len);
    b->used += len;
}

static void end_string(builder *b)
{
    b->s.off[++b->i] = b->used;
}

static void random_bytes(builder *b, uint64_t *rng, size_t len, unsigned lo,
                         unsigned span)
{
    size_t j;
    for (j = 0; j < len; j++) {
        unsigned char c = (unsigned char)(lo + t_rand(rng) % span);
        put(b, &c, 1);
    }
}

static strs make(int shape, size_t n, uint64_t seed)
{
    static const char *const hosts[] = { "www.example.com", "www.example.org",
        "docs.example.com", "a.b", "www.example.com.evil", "" };
    builder b;
    uint64_t rng = seed;
    size_t i;
    char mega_tail[32];
    memset(&b, 0, sizeof b);
    b.s.n = n;
    b.s.off = malloc((n + 1) * sizeof *b.s.off);
    if (b.s.off == NULL)
        t_fail("out of memory");
    b.s.off[0] = 0;
    put(&b, "", 0);
    for (i = 0; i < n; i++) {
        uint64_t r = t_rand(&rng);
        switch (shape) {
        case SH_WORDS:
            random_bytes(&b, &rng, 1 + r % 20, 'a', 26);
            break;
        case SH_URLS: {
            char line[96];
            int len = snprintf(line, sizeof line, "https://%s/path/to/%u/",
                               hosts[r % 6], (unsigned)(r >> 8) % 40);
            put(&b, line, (size_t)len);
            random_bytes(&b, &rng, (r >> 20) % 12, 'a', 4);
            break;
        }
        case SH_DUPS: {
            uint64_t w = 1000 + r % 20;
            random_bytes(&b, &w, 3 + r % 20 % 9, 'a', 3);
            break;
        }
        case SH_EQUAL:
            put(&b, "all of these strings are equal!", 31);
            break;
        case SH_EMPTYISH:
            put(&b, "aab", r % 4);
            break;
        case SH_HIGH:
            random_bytes(&b, &rng, r % 13, 1, 255);
            break;
        case SH_LAST: {
            static const char pre[101] =
                "0123456789012345678901234567890123456789012345678901234567890"
                "123456789012345678901234567890123456789";
            unsigned char c = (unsigned char)(1 + (r >> 8) % 255);
            put(&b, pre, 100);
            put(&b, &c, 1);
            break;
        }
        case SH_NUL:
            random_bytes(&b, &rng, r % 11, 0, 3);
            break;
        case SH_EMPTY:
            break;
        case SH_SKEW:
            /* Nine strings in ten share 12 bytes, then differ: at 100000
             * strings their run of equal first words is still large after
             * the first level, which sorts again as a whole. */
            if (r % 10 != 0)
                put(&b, "shared/path/", 12);
            random_bytes(&b, &rng, 1 + (r >> 8) % 12, 'a', 26);
            break;
        case SH_MEGA: {
            size_t j;
            for (j = 0; j < ((size_t)1 << 20) / 8; j++)
                put(&b, "prefix!!", 8);
            snprintf(mega_tail, sizeof mega_tail, "%u", (unsigned)(r % 3));
            put(&b, mega_tail, strlen(mega_tail) * (r % 4 != 0));
            break;
        }
        }
        end_string(&b);
    }
    return b.s;
}

static void strs_free(strs *s)
{
    free(s->buf);
    free(s->off);
}

/* NUL-terminated copies (for shapes without NULs): one allocation, each
 * string at its own address, so that equal strings have distinct
 * pointers and stability shows. */
static char *c_copies(const strs *s, const char **ptr)
{
    char *c = malloc(s->off[s->n] + s->n + 1);
    size_t i, at = 0;
    if (c == NULL)
        t_fail("out of memory");
    for (i = 0; i < s->n; i++) {
        size_t len = s->off[i + 1] - s->off[i];
        if (len > 0)
            memcpy(c + at, s->buf + s->off[i], len);
        c[at + len] = 0;
        ptr[i] = c + at;
        at += len + 1;
    }
    return c;
}

static void check_shape(int shape, size_t n, uint64_t seed)
{
    strs s = make(shape, n, seed);
    size_t *want = malloc((n + 1) * sizeof *want);
    size_t *perm = malloc((n + 1) * sizeof *perm);
    const char **ptr = malloc((n + 1) * sizeof *ptr);
    const char **orig = malloc((n + 1) * sizeof *orig);
    char *c = NULL;
    int desc, st;
    size_t i;

    if (want == NULL || perm == NULL || ptr == NULL || orig == NULL)
        t_fail("out of memory");
    if (shape != SH_NUL)
        c = c_copies(&s, orig);
    for (desc = 0; desc < 2; desc++) {
        unsigned flags = desc ? PS_DESCENDING : 0;
        t_oracle_strings_perm(s.buf, s.off, n, flags, want);
        memset(perm, 0xee, (n + 1) * sizeof *perm);
        st = ps_argsort_strings(s.buf, s.off, n, perm, flags);
        if (st != PS_OK)
            t_fail("%s n=%zu %s: ps_argsort_strings: %s (%s)", shape_name[shape],
                   n, desc ? "desc" : "asc", ps_strerror(st), ps_error_detail());
        for (i = 0; i < n; i++)
            if (perm[i] != want[i])
                t_fail("%s n=%zu %s: ps_argsort_strings perm[%zu] = %zu, "
                       "expected %zu", shape_name[shape], n,
                       desc ? "desc" : "asc", i, perm[i], want[i]);
        if (perm[n] != (size_t)0xeeeeeeeeeeeeeeeeull)
            t_fail("%s n=%zu: ps_argsort_strings wrote past perm[n - 1]",
                   shape_name[shape], n);
        if (c == NULL)
            continue;
        memcpy(ptr, orig, n * sizeof *ptr);
        ptr[n] = (const char *)&want;       /* a guard */
        st = ps_sort_strings(ptr, n, flags);
        if (st != PS_OK)
            t_fail("%s n=%zu %s: ps_sort_strings: %s (%s)", shape_name[shape],
                   n, desc ? "desc" : "asc", ps_strerror(st), ps_error_detail());
        for (i = 0; i < n; i++)
            if (ptr[i] != orig[want[i]])
                t_fail("%s n=%zu %s: ps_sort_strings [%zu] is \"%.20s\", "
                       "expected string %zu's pointer (\"%.20s\")",
                       shape_name[shape], n, desc ? "desc" : "asc", i,
                       ptr[i], want[i], orig[want[i]]);
        if (ptr[n] != (const char *)&want)
            t_fail("%s n=%zu: ps_sort_strings wrote past strings[n - 1]",
                   shape_name[shape], n);
        if (n < 100000)
            continue;
        /* Presorted input comes back as it was (stable: equal strings
         * keep their places); reversed input comes back sorted, equal
         * strings in the reversed input's order. */
        for (i = 0; i < n; i++)
            ptr[i] = orig[want[i]];
        st = ps_sort_strings(ptr, n, flags);
        for (i = 0; st == PS_OK && i < n; i++)
            if (ptr[i] != orig[want[i]])
                t_fail("%s n=%zu %s: presorted input moved at %zu",
                       shape_name[shape], n, desc ? "desc" : "asc", i);
        for (i = 0; i < n; i++)
            ptr[i] = orig[want[n - 1 - i]];
        if (st == PS_OK)
            st = ps_sort_strings(ptr, n, flags);
        for (i = 0; st == PS_OK && i < n; i++)
            if (strcmp(ptr[i], orig[want[i]]) != 0
                || (i > 0 && strcmp(ptr[i - 1], ptr[i]) == 0 && ptr[i - 1] < ptr[i]))
                t_fail("%s n=%zu %s: reversed input wrong at %zu",
                       shape_name[shape], n, desc ? "desc" : "asc", i);
        if (st != PS_OK)
            t_fail("%s n=%zu: presorted or reversed: %s", shape_name[shape], n,
                   ps_error_detail());
    }
    free(c);
    free(want);
    free(perm);
    free(ptr);
    free(orig);
    strs_free(&s);
}

/* A refused call: the status, a detail that says `why`, and the arrays as
 * they were (the caller compares them). */
static void expect(int st, int want, const char *what, const char *why)
{
    if (st != want)
        t_fail("%s: status %d (%s), expected %d", what, st, ps_strerror(st), want);
    if (why != NULL && strstr(ps_error_detail(), why) == NULL)
        t_fail("%s: detail \"%s\" does not say \"%s\"", what, ps_error_detail(),
               why);
}

static void check_errors(void)
{
    const char *words[4] = { "b", "a", NULL, "c" }, *keep[4];
    size_t off[5] = { 0, 2, 3, 3, 5 }, perm[8], p0[8];
    /* One allocation holding bytes, offsets and perm, to overlap them. */
    size_t *arena = malloc(64 * sizeof(size_t));
    unsigned char bytes[5] = { 'x', 'y', 'a', 'q', 'r' };
    const size_t BIG = SIZE_MAX / 8;

    if (arena == NULL)
        t_fail("out of memory");
    memcpy(keep, words, sizeof keep);
    memset(perm, 0x5a, sizeof perm);
    memcpy(p0, perm, sizeof perm);

    expect(ps_sort_strings(words, 2, 2u), PS_ERR_INVALID_ARG, "flags 2",
           "flags");
    expect(ps_sort_strings(NULL, 3, 0), PS_ERR_INVALID_ARG, "strings NULL",
           "strings is NULL");
    expect(ps_sort_strings(words, 4, 0), PS_ERR_INVALID_ARG, "NULL element",
           "strings[2] is NULL");
    if (memcmp(words, keep, sizeof keep) != 0)
        t_fail("a refused ps_sort_strings changed its array");
    expect(ps_sort_strings(words, BIG, 0), PS_ERR_TOO_LARGE, "huge n",
           "overflow");
    expect(ps_sort_strings(NULL, 0, 0), PS_OK, "n = 0", NULL);
    expect(ps_argsort_strings(NULL, NULL, 0, NULL, 0), PS_OK, "argsort n = 0",
           NULL);

    expect(ps_argsort_strings(bytes, off, 4, perm, 4u), PS_ERR_INVALID_ARG,
           "argsort flags 4", "flags");
    expect(ps_argsort_strings(bytes, NULL, 4, perm, 0), PS_ERR_INVALID_ARG,
           "offsets NULL", "offsets is NULL");
    expect(ps_argsort_strings(bytes, off, 4, NULL, 0), PS_ERR_INVALID_ARG,
           "perm NULL", "perm is NULL");
    expect(ps_argsort_strings(NULL, off, 4, perm, 0), PS_ERR_INVALID_ARG,
           "bytes NULL", "bytes is NULL");
    off[3] = 1;
    expect(ps_argsort_strings(bytes, off, 4, perm, 0), PS_ERR_INVALID_ARG,
           "decreasing offsets", "offsets decrease at 3");
    off[3] = 3;
    expect(ps_argsort_strings(bytes, off, BIG, perm, 0), PS_ERR_TOO_LARGE,
           "argsort huge n", "overflow");
    /* perm over the offsets, perm over the bytes, offsets over the bytes. */
    memcpy(arena, off, sizeof off);
    memset(arena + 5, 0x5a, 16 * sizeof(size_t));
    expect(ps_argsort_strings(bytes, arena, 4, arena + 4, 0),
           PS_ERR_INVALID_ARG, "perm overlaps offsets", "overlap");
    expect(ps_argsort_strings(arena + 5, off, 4, arena + 5, 0),
           PS_ERR_INVALID_ARG, "perm overlaps bytes", "overlap");
    expect(ps_argsort_strings(arena, arena, 4, perm, 0),
           PS_ERR_INVALID_ARG, "offsets overlap bytes", "overlap");
    if (memcmp(arena, off, sizeof off) != 0 || memcmp(perm, p0, sizeof perm) != 0)
        t_fail("a refused ps_argsort_strings changed its arrays");
    {
        size_t i;
        for (i = 5; i < 21; i++)
            if (arena[i] != p0[0])
                t_fail("a refused ps_argsort_strings wrote perm");
    }
    /* An Arrow slice: offsets that start past 0 ("b", "", "ab", "a"). */
    {
        static const unsigned char sl[] = "xxxbaba";
        size_t so[5] = { 3, 4, 4, 6, 7 }, sp[4], i;
        static const size_t want[4] = { 1, 3, 2, 0 };
        expect(ps_argsort_strings(sl, so, 4, sp, 0), PS_OK, "slice", NULL);
        for (i = 0; i < 4; i++)
            if (sp[i] != want[i])
                t_fail("slice: perm[%zu] = %zu, expected %zu", i, sp[i],
                       want[i]);
    }
    /* Bytes that touch the offsets are fine; empty strings with NULL bytes
     * too. */
    {
        size_t z[4] = { 7, 7, 7, 7 };
        expect(ps_argsort_strings(NULL, z, 3, perm, PS_DESCENDING), PS_OK,
               "all empty, bytes NULL", NULL);
        if (perm[0] != 0 || perm[1] != 1 || perm[2] != 2)
            t_fail("empty strings: perm is not the identity");
    }
    free(arena);
}

/* Every allocation of a sort failing in turn: PS_ERR_NO_MEMORY and the
 * arrays unchanged, on the serial path (1000 strings) and the parallel
 * levels' (70000). */
static void check_faults(void)
{
    static const size_t sizes[2] = { 1000, 70000 };
    int k;
    for (k = 0; k < 2; k++) {
        size_t n = sizes[k], i;
        strs s = make(SH_URLS, n, 99);
        const char **ptr = malloc(n * sizeof *ptr), **orig = malloc(n * sizeof *orig);
        size_t *perm = malloc(n * sizeof *perm);
        char *c;
        long j;
        if (ptr == NULL || orig == NULL || perm == NULL)
            t_fail("out of memory");
        c = c_copies(&s, orig);
        for (j = 1; j < 64; j++) {
            int st1, st2, f1, f2;
            memcpy(ptr, orig, n * sizeof *ptr);
            memset(perm, 0x33, n * sizeof *perm);
            /* Scratch kept from the call before would not be allocated
             * again, and its allocation's failure never tried. */
            (void)ps_release_cache();
            t_fail_alloc_at(j);
            st1 = ps_sort_strings(ptr, n, 0);
            t_fail_alloc_at(0);
            f1 = t_alloc_failed();
            (void)ps_release_cache();
            t_fail_alloc_at(j);
            st2 = ps_argsort_strings(s.buf, s.off, n, perm, 0);
            t_fail_alloc_at(0);
            f2 = t_alloc_failed();
            if (f1 && st1 != PS_OK) {
                if (st1 != PS_ERR_NO_MEMORY)
                    t_fail("faults: allocation %ld: status %d", j, st1);
                if (memcmp(ptr, orig, n * sizeof *ptr) != 0)
                    t_fail("faults: allocation %ld failed and ps_sort_strings "
                           "changed the array", j);
            }
            if (f2 && st2 != PS_OK) {
                if (st2 != PS_ERR_NO_MEMORY)
                    t_fail("faults: allocation %ld: status %d", j, st2);
                for (i = 0; i < n; i++)
                    if (perm[i] != (size_t)0x3333333333333333ull)
                        t_fail("faults: allocation %ld failed and "
                               "ps_argsort_strings wrote perm", j);
            }
            if (!f1 && !f2) {
                if (st1 != PS_OK || st2 != PS_OK)
                    t_fail("faults: no allocation failed, yet %s",
                           ps_error_detail());
                break;
            }
        }
        free(c);
        free(ptr);
        free(orig);
        free(perm);
        strs_free(&s);
    }
}

/* A million empty strings: the identity both ways (the reference's merge
 * sort would take longer than the sort). */
static void check_million_empty(void)
{
    const size_t n = 1000000;
    const char **ptr = malloc(n * sizeof *ptr);
    char *c = calloc(n, 1);
    size_t *perm = malloc(n * sizeof *perm), *off = calloc(n + 1, sizeof *off);
    size_t i;
    int desc;
    if (ptr == NULL || c == NULL || perm == NULL || off == NULL)
        t_fail("out of memory");
    for (desc = 0; desc < 2; desc++) {
        for (i = 0; i < n; i++)
            ptr[i] = c + i;
        if (ps_sort_strings(ptr, n, desc ? PS_DESCENDING : 0) != PS_OK
            || ps_argsort_strings(c, off, n, perm, desc ? PS_DESCENDING : 0) != PS_OK)
            t_fail("a million empty strings: %s", ps_error_detail());
        for (i = 0; i < n; i++)
            if (ptr[i] != c + i || perm[i] != i)
                t_fail("a million empty strings: [%zu] moved", i);
    }
    free(ptr);
    free(c);
    free(perm);
    free(off);
}

int main(void)
{
    static const size_t small[] = { 0, 1, 2, 3, 1000 };
    size_t k;
    int shape;

    t_init_or_skip("ps_test_strings");
    for (shape = 0; shape < SH_COUNT; shape++) {
        if (shape == SH_MEGA) {
            check_shape(shape, 2, 11);
            check_shape(shape, 7, 12);
            continue;
        }
        for (k = 0; k < sizeof small / sizeof *small; k++)
            check_shape(shape, small[k], 1 + k + 16 * (size_t)shape);
        /* 100000 strings take the levels of the backend's pair sort (on
         * a backend with threads or a device); last-byte's 100-byte
         * prefix is passed 8 words a pass there. */
        if (shape == SH_WORDS || shape == SH_URLS || shape == SH_DUPS
            || shape == SH_SKEW || shape == SH_LAST)
            check_shape(shape, 100000, 77 + (size_t)shape);
    }
    check_million_empty();
    check_errors();
    check_faults();
    printf("ps_test_strings: all checks passed on %s\n", ps_backend_name());
    return 0;
}
