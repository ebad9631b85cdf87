/*
 * ps_strings.c - ps_sort_strings and ps_argsort_strings: byte strings in
 * bytewise (memcmp / C-locale strcmp) order, stable.
 *
 * Every string is first reduced to its next 8 bytes, packed into a 64-bit
 * word whose unsigned order is the strings' order as far as those bytes
 * go (the word, below).  A large array is sorted level by level as pairs
 * of (word, reference) by the backend's own stable sort of u64 keys with
 * values, the reference being the string's pointer (ps_sort_strings) or
 * index (ps_argsort_strings): the bulk of the work is then the library's
 * fastest primitive, on whatever backend runs it (the CPU's threads, or a
 * device's, which is the cuDF design: sort prefixes as integer keys,
 * then refine the runs of equal prefixes).  A run of equal words whose
 * strings go on is refined at the next level, by the same pair sort
 * while it is large, else by the serial sort below, the runs of a level
 * in batches of similar size on the backend's CPU threads (run_jobs) when
 * it has them, in order on the calling thread when not.
 *
 * The serial sort, for a small array and the runs the levels leave, is an
 * MSD radix sort with the next characters cached (Bingmann's "radix sort
 * with character caching", the base of pS5 and tlx::sort_strings): each
 * string of a range is read once per level, its word stored beside its
 * reference in a 16-byte item, and the range is distributed on the first
 * byte of the words in which they differ (found in one pass; two bytes at
 * once for the first levels of a large array), without touching the
 * strings again until a group of equal words needs the characters after
 * them.  Ranges of up to STR_MEDIUM strings are merge-sorted by word
 * instead, up to STR_SMALL insertion-sorted.
 *
 * The word is the string's next 8 bytes, big-endian, zero-padded, for
 * NUL-terminated strings (a zero byte can only be the end there, so the
 * word alone orders them and the string ends in it exactly when its low
 * byte is 0); for strings with a length, which may hold NULs, it is the
 * next 7 bytes and, in the low byte, how many of them the string has (0
 * to 7, 7 also when it goes on): a string that ends inside the word then
 * sorts before any longer one with the same bytes, as a proper prefix
 * must.  Equal words whose strings go on are refined at the next level;
 * equal words whose strings end are equal strings, left in input order.
 * The backend's pair sort is stable, every distribution is a stable
 * counting sort, and the merge and insertion sorts are stable, so the
 * whole sort is; PS_DESCENDING is the pair sort's own flag on the levels
 * and, in the serial sort, complemented words and a reversed insertion
 * comparison: stable descending (equal strings still in input order), not
 * a reversed ascending sort.
 *
 * Bounds.  The serial sort's recursion is a stack of disjoint ranges of
 * more than STR_SMALL strings each, so it never holds more than
 * m / (STR_SMALL + 1) entries for m strings, allocated before it starts.
 * The levels keep lists of disjoint runs, in scratch that grows by
 * doubling (a failure is PS_ERR_NO_MEMORY, nothing of the caller's
 * touched).  A range whose words are all equal (a long common prefix,
 * all-equal strings) costs one pass over its words and moves on: reading a
 * 1 MB common prefix of m > STR_SMALL strings is m * 1 MB / 8 word loads,
 * no more; a group of up to STR_SMALL compares it once per pair in the
 * insertion sort; nothing is quadratic in n.
 *
 * Memory: the references (one word a string) and the level's words (one
 * more), with the backend's scratch for its pair sort, then two 16-byte
 * items for each string of the longest run of each batch of the serial
 * sort (str_runs); the serial sort of a whole array takes 40 bytes a
 * string.  (A sort of 24-byte items with a copy of each level took 80.)
 * The references and the words are blocks the core keeps between calls
 * (ps_scratch.c): fresh pages cost 8-15 % of a 10M-string sort, every
 * call.  Nothing is written to the caller's arrays
 * before the sort is complete: the references are sorted in scratch,
 * allocated first, and copied out at the end.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_internal.h"
#include "ps_overlap.h"

/* A string of the serial sort: its cached word k (of the current level,
 * as stored: complemented when descending) and its reference r (its
 * pointer, or its index with offsets).  The word travels with the string,
 * so that a distribution writes one stream per bucket, not two. */
typedef struct str_item {
    uint64_t k;
    uintptr_t r;
} str_item;

/* One call: the mode (lengths from offsets, else NUL-terminated), the
 * direction, the strings and the serial sort's items and their
 * distributions' target ix. */
typedef struct str_sort {
    const unsigned char *base;  /* with offsets: string r at base + off[r] */
    const size_t *off;          /* NULL: NUL-terminated strings */
    uint64_t mask;              /* ~0 for descending: the words are complemented */
    int desc;
    str_item *items, *ix;
} str_sort;

/* Ranges at least this long are distributed on two bytes at once (when
 * the sort has 2^16 counters to lend: the serial sort of a whole array). */
#define STR_WIDE_MIN ((size_t)1 << 16)
/* How many strings ahead the word loops ask for a string's bytes: in a
 * range's first pass, when its strings come from DRAM (a run the levels
 * left, or the strings of a small array), and in the passes after it,
 * when they are in cache and each string costs only a few instructions.
 * 10M duplicates (runs of equal first words, read once from DRAM): 12 for
 * both, 170-188 ms; 20 for the first pass, 156-165 ms; 10M URL-like lines
 * unchanged (484-506, 470-501 ms); 32 for every pass lost 10 % on the
 * URL-like lines (2 threads, Zen 5). */
#define STR_AHEAD_COLD 20
#define STR_AHEAD 12
/* A range at or below this many strings is finished by insertion sort. */
#define STR_SMALL 24
/* A range at or below this many is sorted by its words with a merge sort
 * instead of being distributed: 256 counters a byte cost more than a
 * comparison sort of so few. */
#define STR_MEDIUM 384
/* Arrays at least this long are sorted by levels of the backend's pair
 * sort; below, and runs below max(this, n / 32), by the serial sort. */
#define STR_PAR_MIN ((size_t)1 << 16)
/* Jobs of the parallel phases. */
#define STR_JOBS 64
/* The most words of a common prefix one pass of the levels passes. */
#define STR_SKIP 8

/* A pending range of the serial sort: items [lo, hi) at depth d, their
 * words valid and to be distributed on byte b (7 = top), or b = -1 when
 * the words of depth d are still to be made. */
typedef struct str_task {
    size_t lo, hi, d;
    int b;
} str_task;

/* Where string r's bytes start. */
static const unsigned char *str_ptr(const str_sort *s, uintptr_t r)
{
    return s->off != NULL ? s->base + s->off[r] : (const unsigned char *)r;
}

static size_t str_len(const str_sort *s, uintptr_t r)
{
    return s->off[r + 1] - s->off[r];
}

/* How far one level goes into the strings. */
static size_t str_step(const str_sort *s)
{
    return s->off != NULL ? 7 : 8;
}

/* Whether a (raw, not complemented) word holds the end of its string. */
static int str_ends(const str_sort *s, uint64_t raw)
{
    return s->off != NULL ? (raw & 0xff) < 7 : (raw & 0xff) == 0;
}

/* The strings are scattered: the word loops ask for a string's bytes
 * STR_AHEAD strings before they read them, and (with offsets, which its
 * address needs) for its offsets STR_AHEAD strings before that, so that
 * several misses are in flight instead of one at a time. */
PS_FORCE_INLINE void str_ahead(const str_sort *s, uintptr_t bytes_of,
                               uintptr_t offsets_of, size_t d)
{
#if defined(__GNUC__)
    if (s->off != NULL)
        __builtin_prefetch(s->off + offsets_of);
    __builtin_prefetch(str_ptr(s, bytes_of) + d);
#else
    (void)s, (void)bytes_of, (void)offsets_of, (void)d;
#endif
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) \
    && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && UINTPTR_MAX == UINT64_MAX
#define STR_SWAR 1
/* An aligned 8-byte word of memory that may alias anything. */
typedef uint64_t str_u64 __attribute__((may_alias));

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STR_NO_ASAN __attribute__((no_sanitize("address")))
#endif
#endif
#if !defined(STR_NO_ASAN) && defined(__SANITIZE_ADDRESS__)
#define STR_NO_ASAN __attribute__((no_sanitize_address))
#endif
#ifndef STR_NO_ASAN
#define STR_NO_ASAN
#endif

/* The word of the NUL-terminated string at c: its next 8 bytes up to its
 * NUL, big-endian, zero-padded, read as strlen reads strings: whole
 * aligned 8-byte words, the second only when the string goes on into it.
 * An aligned word never crosses a page, so the bytes read past the NUL
 * cannot fault, and they are masked off; AddressSanitizer would still
 * report them (as it would glibc's strlen, which it replaces), hence
 * STR_NO_ASAN (and no forced inlining: inlined into a checked caller, it
 * would be checked as part of it).  Against a loop over the bytes: 1M URL-like lines sorted
 * in 100-110 ms instead of 120-128 (2 threads, Zen 3; the serial sort's
 * cached words dominate there), words and duplicates unchanged. */
STR_NO_ASAN static inline uint64_t str_word_nul(const unsigned char *c)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uintptr_t a = (uintptr_t)c;
    unsigned skip = (unsigned)(a & 7), more;
    const str_u64 *w = (const str_u64 *)(a - skip);
    uint64_t x = w[0] >> (8 * skip), y, z;
    /* The zeros shifted in above the string's 8 - skip bytes are not its. */
    z = (x - ones) & ~x & highs & (~(uint64_t)0 >> (8 * skip));
    /* Whether the string goes on into the next word.  Without a branch:
     * the next word is read when it does, the same word again when not,
     * so that a mispredicted guess (half of all strings, at random) does
     * not throw away the loads of the strings after it (the serial
     * sort's word loop was 38 % of a 1M URL-like sort, most of it the
     * stall behind this test; 10M URL-like lines 550-590 -> 510-520 ms,
     * 10M duplicates 220 -> 196 ms, 2 threads, Zen 5). */
    more = (z == 0) & (skip != 0);
    y = w[more];
    /* Above the string's bytes of the first word (shifted in two steps:
     * by 64 in one is undefined); when it did not go on, they are past
     * its NUL and masked off below. */
    x |= y << (56 - 8 * skip) << 8;
    z = (x - ones) & ~x & highs;
    /* The bytes below the first NUL (all 8 when there is none: z - 1 is
     * then all ones); the lowest bit of z is always a true NUL's. */
    x &= (z - 1) & ~z;
    return __builtin_bswap64(x);
}
#endif

/* The raw word of string r at depth d (the string has at least d bytes). */
PS_FORCE_INLINE uint64_t str_word(const str_sort *s, uintptr_t r, size_t d)
{
    const unsigned char *c = str_ptr(s, r) + d;
    uint64_t w = 0;
    size_t j;
    if (s->off != NULL) {
        size_t rem = str_len(s, r) - d;
        if (rem >= 8) {
#ifdef STR_SWAR
            memcpy(&w, c, 8);
            return (__builtin_bswap64(w) & ~(uint64_t)0xff) | 7;
#else
            unsigned char b[8];
            memcpy(b, c, 8);
            for (j = 0; j < 7; j++)
                w = w << 8 | b[j];
            return w << 8 | 7;
#endif
        }
        for (j = 0; j < 7; j++)
            w = w << 8 | (j < rem ? c[j] : 0);
        return w << 8 | (rem < 7 ? rem : 7);
    }
#ifdef STR_SWAR
    return str_word_nul(c);
#else
    for (j = 0; j < 8; j++) {
        if (c[j] == 0)       /* w is 0 when j is: no shift by 64 */
            return j == 0 ? 0 : w << (8 * (8 - j));
        w = w << 8 | c[j];
    }
    return w;
#endif
}

/* memcmp order of two strings from depth d on, a proper prefix first. */
static int str_cmp(const str_sort *s, uintptr_t a, uintptr_t b, size_t d)
{
    const unsigned char *x = str_ptr(s, a) + d, *y = str_ptr(s, b) + d;
    if (s->off != NULL) {
        size_t la = str_len(s, a) - d, lb = str_len(s, b) - d;
        int r = memcmp(x, y, la < lb ? la : lb);
        if (r != 0)
            return r;
        return la < lb ? -1 : la > lb;
    }
    while (*x != 0 && *x == *y)
        x++, y++;
    return (int)*x - (int)*y;
}

/* Whether item a goes strictly before item b at depth d: by word, then,
 * when the words are equal and the strings go on, by the rest of the
 * strings. */
static int str_before(const str_sort *s, const str_item *a, const str_item *b,
                      size_t d)
{
    int r;
    if (a->k != b->k)
        return a->k < b->k;
    if (str_ends(s, a->k ^ s->mask))
        return 0;
    r = str_cmp(s, a->r, b->r, d + str_step(s));
    return s->desc ? r > 0 : r < 0;
}

/* Stable insertion sort of [lo, hi), whose words of depth d are valid. */
static void str_insertion(const str_sort *s, size_t lo, size_t hi, size_t d)
{
    str_item *a = s->items;
    size_t i, j;
    for (i = lo + 1; i < hi; i++) {
        str_item it = a[i];
        for (j = i; j > lo && str_before(s, &it, &a[j - 1], d); j--)
            a[j] = a[j - 1];
        a[j] = it;
    }
}

/* Makes the words of [lo, hi) at depth d; returns the bits in which some
 * word differs from the first (0: all equal, a common prefix that the
 * caller passes without distributing; else its top byte is the first
 * worth distributing on). */
PS_FORCE_INLINE uint64_t str_fill_ahead(const str_sort *s, size_t lo,
                                        size_t hi, size_t d, size_t ahead)
{
    str_item *a = s->items;
    uint64_t first = str_word(s, a[lo].r, d) ^ s->mask, diff = 0;
    size_t i;
    a[lo].k = first;
    for (i = lo + 1; i < hi; i++) {
        uint64_t k;
        if (i + 2 * ahead < hi)
            str_ahead(s, a[i + ahead].r, a[i + 2 * ahead].r, d);
        k = str_word(s, a[i].r, d) ^ s->mask;
        a[i].k = k;
        diff |= k ^ first;
    }
    return diff;
}

/* str_fill_ahead for strings in cache. */
static uint64_t str_fill(const str_sort *s, size_t lo, size_t hi, size_t d)
{
    return str_fill_ahead(s, lo, hi, d, STR_AHEAD);
}
/* The bits of bytes 0..b in which some word of [lo, hi) differs from the
 * first. */
static uint64_t str_diff(const str_sort *s, size_t lo, size_t hi, int b)
{
    uint64_t first = s->items[lo].k, diff = 0;
    size_t i;
    for (i = lo + 1; i < hi; i++)
        diff |= s->items[i].k ^ first;
    return b == 7 ? diff : diff & (((uint64_t)1 << (8 * b + 8)) - 1);
}

/* The highest byte in which diff (not 0) has a bit. */
static int str_top_byte(uint64_t diff)
{
    int b = 7;
    while ((diff >> (8 * b)) == 0)
        b--;
    return b;
}

/* Stable merge sort of [lo, hi) by word alone (insertion-sorted runs of 16,
 * then merges through ix), leaving the result in items. */
static void str_merge_words(const str_sort *s, size_t lo, size_t hi)
{
    str_item *a = s->items, *b = s->ix, *t;
    size_t r, i, j, w;
    for (r = lo; r < hi; r += 16) {
        size_t e = r + 16 < hi ? r + 16 : hi;
        for (i = r + 1; i < e; i++) {
            str_item x = a[i];
            for (j = i; j > r && x.k < a[j - 1].k; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
    }
    for (w = 16; w < hi - lo; w *= 2) {
        for (r = lo; r < hi; r += 2 * w) {
            size_t mid = r + w < hi ? r + w : hi;
            size_t end = mid + w < hi ? mid + w : hi, x = r, y = mid, o = r;
            while (x < mid && y < end)
                b[o++] = a[y].k < a[x].k ? a[y++] : a[x++];
            while (x < mid)
                b[o++] = a[x++];
            while (y < end)
                b[o++] = a[y++];
        }
        t = a, a = b, b = t;
    }
    if (a != s->items)
        memcpy(s->items + lo, a + lo, (hi - lo) * sizeof *a);
}

/* One bucket [lo, hi) of a distribution at depth d whose words agree above
 * byte rb (rb = -1: in every byte): sorted now when small, else pushed on
 * the stack at sp.  Returns the new sp. */
static size_t str_bucket(const str_sort *s, size_t lo, size_t hi, size_t d,
                         int rb, str_task *stack, size_t sp)
{
    const size_t step = str_step(s);
    if (hi - lo < 2)
        return sp;
    if (rb < 0) {
        /* Equal words: equal strings, or strings that go on. */
        if (str_ends(s, s->items[lo].k ^ s->mask))
            return sp;
        if (hi - lo <= STR_SMALL) {
            (void)str_fill(s, lo, hi, d + step);
            str_insertion(s, lo, hi, d + step);
            return sp;
        }
        stack[sp].lo = lo, stack[sp].hi = hi;
        stack[sp].d = d + step, stack[sp].b = -1;
        return sp + 1;
    }
    if (hi - lo <= STR_SMALL) {
        str_insertion(s, lo, hi, d);
        return sp;
    }
    stack[sp].lo = lo, stack[sp].hi = hi;
    stack[sp].d = d, stack[sp].b = rb;
    return sp + 1;
}

/* The serial sort of items [lo, hi), all of whose strings have at least d
 * bytes and agree before d, with `stack` room for (hi - lo) / (STR_SMALL
 * + 1) + 1 tasks, and `wide` 2^16 counters or NULL. */
static void str_sort_range(const str_sort *s, size_t lo, size_t hi, size_t d,
                           str_task *stack, size_t *wide)
{
    size_t sp = 0, cnt[256], at[256], ahead = STR_AHEAD_COLD;
    const size_t step = str_step(s);

    if (hi - lo < 2)
        return;
    stack[sp].lo = lo, stack[sp].hi = hi, stack[sp].d = d, stack[sp].b = -1;
    sp++;
    while (sp > 0) {
        str_task t = stack[--sp];
        size_t m = t.hi - t.lo, i, v;
        int b = t.b;
        uint64_t diff;
        if (b < 0) {
            /* Past a prefix that the whole range shares, word by word
             * while the strings are in cache. */
            for (;;) {
                diff = str_fill_ahead(s, t.lo, t.hi, t.d, ahead);
                ahead = STR_AHEAD;      /* only the first pass is from DRAM */
                if (diff != 0 || str_ends(s, s->items[t.lo].k ^ s->mask))
                    break;
                t.d += step;
            }
            if (diff == 0)
                continue;       /* equal strings, in input order */
            if (m <= STR_SMALL) {
                str_insertion(s, t.lo, t.hi, t.d);
                continue;
            }
        } else {
            diff = str_diff(s, t.lo, t.hi, b);
            if (diff == 0) {
                /* Every word equal: equal strings, or the same prefix. */
                if (!str_ends(s, s->items[t.lo].k ^ s->mask)) {
                    stack[sp].lo = t.lo, stack[sp].hi = t.hi;
                    stack[sp].d = t.d + step, stack[sp].b = -1;
                    sp++;
                }
                continue;
            }
        }
        if (m <= STR_MEDIUM) {
            /* By word, then each run of equal words whose strings go on
             * at the next level. */
            str_merge_words(s, t.lo, t.hi);
            for (i = t.lo; i < t.hi; i = v) {
                for (v = i + 1; v < t.hi && s->items[v].k == s->items[i].k;)
                    v++;
                if (v - i < 2 || str_ends(s, s->items[i].k ^ s->mask))
                    continue;
                if (v - i <= STR_SMALL) {
                    (void)str_fill(s, i, v, t.d + step);
                    str_insertion(s, i, v, t.d + step);
                    continue;
                }
                stack[sp].lo = i, stack[sp].hi = v;
                stack[sp].d = t.d + step, stack[sp].b = -1;
                sp++;
            }
            continue;
        }
        /* The first byte in which the words differ: at least two buckets.
         * A large range whose words differ there and below is distributed
         * on two bytes at once when the caller lent 2^16 counters. */
        b = str_top_byte(diff);
        if (wide != NULL && b >= 1 && m >= STR_WIDE_MIN) {
            unsigned sh = 8u * (unsigned)(b - 1);
            size_t sum = t.lo;
            memset(wide, 0, 65536 * sizeof *wide);
            for (i = t.lo; i < t.hi; i++)
                wide[(s->items[i].k >> sh) & 0xffff]++;
            for (v = 0; v < 65536; v++) {
                size_t c = wide[v];
                wide[v] = sum;
                sum += c;
            }
            for (i = t.lo; i < t.hi; i++)
                s->ix[wide[(s->items[i].k >> sh) & 0xffff]++] = s->items[i];
            memcpy(s->items + t.lo, s->ix + t.lo, m * sizeof *s->items);
            /* Bucket v is now [wide[v - 1], wide[v]). */
            for (v = 0; v < 65536; v++)
                sp = str_bucket(s, v > 0 ? wide[v - 1] : t.lo, wide[v], t.d,
                                b - 2, stack, sp);
            continue;
        }
        {
            unsigned sh = 8u * (unsigned)b;
            memset(cnt, 0, sizeof cnt);
            for (i = t.lo; i < t.hi; i++)
                cnt[(s->items[i].k >> sh) & 0xff]++;
            at[0] = t.lo;
            for (v = 1; v < 256; v++)
                at[v] = at[v - 1] + cnt[v - 1];
            for (i = t.lo; i < t.hi; i++)
                s->ix[at[(s->items[i].k >> sh) & 0xff]++] = s->items[i];
            memcpy(s->items + t.lo, s->ix + t.lo, m * sizeof *s->items);
            for (v = 0; v < 256; v++)
                sp = str_bucket(s, at[v] - cnt[v], at[v], t.d, b - 1, stack, sp);
        }
    }
}


/* ---- The levels of the backend's pair sort -------------------------- */

/* A range of the references: [lo, hi) at depth d. */
typedef struct str_range {
    size_t lo, hi, d;
} str_range;

/* A growing list of ranges, in scratch of the call's own. */
typedef struct str_list {
    str_range *r;
    size_t n, cap;
} str_list;

static int list_add(str_list *l, size_t lo, size_t hi, size_t d)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        str_range *r = ps_alloc(cap * sizeof *r);
        if (r == NULL)
            return PS_ERR_NO_MEMORY;
        if (l->n > 0)
            memcpy(r, l->r, l->n * sizeof *r);
        ps_release(l->r);
        l->r = r;
        l->cap = cap;
    }
    l->r[l->n].lo = lo, l->r[l->n].hi = hi, l->r[l->n].d = d;
    l->n++;
    return PS_OK;
}

typedef struct str_par {
    str_sort *s;
    uintptr_t *ref;         /* the references, sorted in place */
    uint64_t *pk;           /* the level's raw words, sorted with them */
    str_range cur;          /* the level's range */
    size_t chunks;
    uint64_t diff[STR_JOBS];    /* per chunk: bits differing from the first word */
    /* The first string's words after the level's, while they do not end
     * (nf of them, at most STR_SKIP), and per chunk how many of them every
     * string of the chunk shares (when every word of the level is equal,
     * the levels of a common prefix are passed in this one pass). */
    uint64_t firstw[STR_SKIP];
    size_t nf, same[STR_JOBS];
    /* The serial sort's jobs: job j sorts runs [first[j], first[j + 1])
     * of `runs`, in items from ibase[j] on, with its stack from stack +
     * sbase[j]. */
    const str_range *runs;
    size_t first[STR_JOBS + 1], ibase[STR_JOBS], sbase[STR_JOBS];
    str_task *stack;
} str_par;

/* job(ctx, 0 .. jobs - 1) on the backend's threads, or in order here. */
static void str_jobs(const ps_backend_ops *ops, void *state, size_t jobs,
                     void (*job)(void *ctx, size_t i), void *ctx)
{
    size_t j;
    if (ops->run_jobs != NULL) {
        ops->run_jobs(state, jobs, job, ctx);
        return;
    }
    for (j = 0; j < jobs; j++)
        job(ctx, j);
}

/* The level's raw words (the backend's sort takes PS_DESCENDING itself),
 * over one chunk of it, and the bits in which they differ from the
 * level's first word. */
static void fill_job(void *ctx, size_t j)
{
    str_par *p = ctx;
    const str_sort *s = p->s;
    const uintptr_t *ref = p->ref;
    const size_t step = str_step(s);
    size_t m = p->cur.hi - p->cur.lo, d = p->cur.d, i, most = p->nf;
    size_t lo = p->cur.lo + m / p->chunks * j;
    size_t hi = j + 1 == p->chunks ? p->cur.hi : lo + m / p->chunks;
    uint64_t first = str_word(s, ref[p->cur.lo], d), diff = 0;
    for (i = lo; i < hi; i++) {
        uint64_t w;
        size_t e;
        if (i + 2 * STR_AHEAD < hi)
            str_ahead(s, ref[i + STR_AHEAD], ref[i + 2 * STR_AHEAD], d);
        w = str_word(s, ref[i], d);
        p->pk[i] = w;
        diff |= w ^ first;
        /* While every string so far shares the first one's next words,
         * read them too, from the lines just fetched: a prefix that every
         * string shares then costs one pass, not one a word.  Once one
         * string differs (most = 0), this costs a compare a string. */
        if (w != first || most == 0) {
            most = w != first ? 0 : most;
            continue;
        }
        for (e = 0; e < most && str_word(s, ref[i], d + (e + 1) * step)
                                    == p->firstw[e]; e++)
            ;
        most = e;
    }
    p->diff[j] = diff;
    p->same[j] = most;
}

/* Sorts the large ranges of ref level by level with the backend's pair
 * sort, until every run of equal words left is either finished (its
 * strings end, or it has one string) or shorter than big_min, each of
 * which goes on `runs` for the serial sort. */
static int str_levels(str_par *p, const ps_backend_ops *ops, void *state,
                      size_t n, str_list *runs)
{
    const str_sort *s = p->s;
    const size_t step = str_step(s);
    size_t big_min = n / 32 > STR_PAR_MIN ? n / 32 : STR_PAR_MIN;
    str_list big = { NULL, 0, 0 };
    int st = list_add(&big, 0, n, 0);

    while (st == PS_OK && big.n > 0) {
        size_t m, i, run, j, skip;
        uint64_t diff = 0, *pk = p->pk;
        p->cur = big.r[--big.n];
        m = p->cur.hi - p->cur.lo;
        p->chunks = m / 4096 < STR_JOBS ? m / 4096 + 1 : STR_JOBS;
        /* The first string's words after this level's while they do not
         * end (none when it ends in this level's: no bytes to read). */
        p->nf = 0;
        if (!str_ends(s, str_word(s, p->ref[p->cur.lo], p->cur.d)))
            for (; p->nf < STR_SKIP; p->nf++) {
                uint64_t w = str_word(s, p->ref[p->cur.lo],
                                      p->cur.d + (p->nf + 1) * step);
                if (str_ends(s, w))
                    break;
                p->firstw[p->nf] = w;
            }
        str_jobs(ops, state, p->chunks, fill_job, p);
        for (j = 0, skip = p->nf; j < p->chunks; j++) {
            diff |= p->diff[j];
            skip = p->same[j] < skip ? p->same[j] : skip;
        }
        if (diff == 0) {
            /* A common prefix: its next `skip` words too are shared (and
             * do not end), so the level after them, with nothing moved. */
            if (!str_ends(s, pk[p->cur.lo]))
                st = list_add(&big, p->cur.lo, p->cur.hi,
                              p->cur.d + (1 + skip) * step);
            continue;
        }
        st = ops->sort_pairs(state, pk + p->cur.lo, p->ref + p->cur.lo,
                             sizeof(uintptr_t), m, PS_U64,
                             s->desc ? PS_DESCENDING : 0);
        for (i = p->cur.lo; i < p->cur.hi && st == PS_OK; i = run) {
            for (run = i + 1; run < p->cur.hi && pk[run] == pk[i];)
                run++;
            if (run - i < 2 || str_ends(s, pk[i]))
                continue;
            st = list_add(run - i >= big_min ? &big : runs, i, run,
                          p->cur.d + step);
        }
    }
    ps_release(big.r);
    return st;
}

/* A position in a batch's runs: run r, string q of ref (in [lo, hi) of
 * run r, or r == end). */
typedef struct str_cursor {
    size_t r, q, end;
} str_cursor;

static void cursor_next(const str_par *p, str_cursor *c)
{
    if (++c->q == p->runs[c->r].hi && ++c->r < c->end)
        c->q = p->runs[c->r].lo;
}

/* The cursor at the start of run r. */
static void cursor_at(const str_par *p, str_cursor *c, size_t r)
{
    c->r = r;
    if (r < c->end)
        c->q = p->runs[r].lo;
}

/* One batch of runs, each copied into the job's items, sorted by the
 * serial sort, and its references copied back.  Most runs can be short (a
 * few strings: 1.8M runs of 10M URL-like lines), too short for the
 * prefetches of the word loop to run ahead of its reads, so that each of
 * their strings cost a whole miss: while the runs are short, their
 * strings are asked for here STR_AHEAD strings ahead, across the runs'
 * bounds (with offsets, the offsets STR_AHEAD strings further still).  A
 * long run's word loop asks for its own.  10M URL-like lines: 1.51-1.55 ->
 * 1.14-1.28 s (ps_argsort_strings, 2 threads, Zen 3). */
static void runs_job(void *ctx, size_t j)
{
    const str_par *p = ctx;
    const str_sort *s = p->s;
    str_item *a = s->items;
    const size_t lead = s->off != NULL ? STR_AHEAD : 0;
    size_t r, i, at = p->ibase[j], done = 0, nc = 0, fc = 0;
    str_cursor near = { 0, 0, p->first[j + 1] }, far = near;

    cursor_at(p, &near, p->first[j]);
    cursor_at(p, &far, p->first[j]);
    for (r = p->first[j]; r < p->first[j + 1]; r++) {
        const str_range *g = &p->runs[r];
        size_t m = g->hi - g->lo;
        done += m;
        if (m >= 2 * STR_AHEAD) {
            if (nc < done)
                cursor_at(p, &near, r + 1), nc = done;
            if (fc < done)
                cursor_at(p, &far, r + 1), fc = done;
        }
#if defined(__GNUC__)
        for (; lead > 0 && fc < done + STR_AHEAD + lead && far.r < far.end; fc++) {
            __builtin_prefetch(s->off + p->ref[far.q]);
            cursor_next(p, &far);
        }
        for (; nc < done + STR_AHEAD && near.r < near.end; nc++) {
            __builtin_prefetch(str_ptr(s, p->ref[near.q]) + p->runs[near.r].d);
            cursor_next(p, &near);
        }
#endif
        for (i = 0; i < m; i++)
            a[at + i].r = p->ref[g->lo + i];
        str_sort_range(s, at, at + m, g->d, p->stack + p->sbase[j], NULL);
        for (i = 0; i < m; i++)
            p->ref[g->lo + i] = a[at + i].r;
    }
}

/* The runs the levels left, sorted by the serial sort in at most STR_JOBS
 * batches of consecutive runs of about equal total size.  Each batch
 * sorts its runs one after the other in items (and ix) of its own, as
 * many as its longest run has strings: a few kilobytes that stay in the
 * cache, where items for every string of every run would be as large as
 * the runs (and, fresh from the system, cost a page fault every 4 KiB). */
static int str_runs(str_par *p, const ps_backend_ops *ops, void *state,
                    const str_list *runs)
{
    str_sort *s = p->s;
    size_t total = 0, acc = 0, items = 0, tasks = 0, r, j;
    str_task *stack;
    int ok;

    for (r = 0; r < runs->n; r++)
        total += runs->r[r].hi - runs->r[r].lo;
    p->first[0] = 0;
    for (j = 0, r = 0; j < STR_JOBS && r < runs->n; j++) {
        size_t goal = total / STR_JOBS * (j + 1), in = 0, most = 0;
        while (r < runs->n && (in == 0 || acc < goal || j + 1 == STR_JOBS)) {
            size_t m = runs->r[r].hi - runs->r[r].lo;
            in += m, acc += m, r++;
            most = m > most ? m : most;
        }
        p->first[j + 1] = r;
        p->ibase[j] = items, p->sbase[j] = tasks;
        items += most;
        tasks += most / (STR_SMALL + 1) + 1;
    }
    s->items = ps_alloc(items * sizeof *s->items);
    s->ix = ps_alloc(items * sizeof *s->ix);
    stack = ps_alloc(tasks * sizeof *stack);
    ok = s->items != NULL && s->ix != NULL && stack != NULL;
    if (ok) {
        p->runs = runs->r, p->stack = stack;
        str_jobs(ops, state, j, runs_job, p);
    }
    ps_release(s->items);
    ps_release(s->ix);
    ps_release(stack);
    s->items = s->ix = NULL;
    return ok ? PS_OK : PS_ERR_NO_MEMORY;
}

/* ---- Entry points ---------------------------------------------------- */

/* The backend's status for a call with nothing to sort, as the numeric
 * sorts return it (a malformed environment fails every call). */
static int str_backend_ok(size_t n)
{
    const ps_backend_ops *ops;
    void *state;
    return ps_backend_for(n, &ops, &state);
}

/* The serial sort of the whole array ref[0, n). */
static int str_serial(str_sort *s, uintptr_t *ref, size_t n)
{
    size_t i;
    str_task *stack = ps_alloc((n / (STR_SMALL + 1) + 1) * sizeof *stack);
    /* 2^16 counters for the first levels of a large array; without them
     * the sort only takes more passes. */
    size_t *wide = n >= STR_WIDE_MIN ? ps_alloc(65536 * sizeof *wide) : NULL;
    int st = PS_OK;
    s->items = ps_alloc(n * sizeof *s->items);
    s->ix = ps_alloc(n * sizeof *s->ix);
    if (stack == NULL || s->items == NULL || s->ix == NULL) {
        st = PS_ERR_NO_MEMORY;
    } else {
        for (i = 0; i < n; i++)
            s->items[i].r = ref[i];
        str_sort_range(s, 0, n, 0, stack, wide);
        for (i = 0; i < n; i++)
            ref[i] = s->items[i].r;
    }
    ps_release(s->items);
    ps_release(s->ix);
    ps_release(stack);
    ps_release(wide);
    s->items = s->ix = NULL;
    return st;
}

/* Sorts the n >= 2 references ref (the caller's copy) on the backend
 * chosen for n.  Allocates its scratch; on error ref may be permuted, the
 * caller's own arrays are untouched. */
static int str_run(const char *fn, str_sort *s, uintptr_t *ref, size_t n)
{
    const ps_backend_ops *ops;
    void *state;
    str_list runs = { NULL, 0, 0 };
    str_par p;
    int pk_kept, st = ps_backend_for(n, &ops, &state);

    if (st != PS_OK)
        return st;
    /* The pair sort pays from STR_PAR_MIN strings on a backend with
     * threads or a device; the serial backend's pair sort is a reference
     * counting sort, slower than the serial string sort. */
    if (n < STR_PAR_MIN || (ops->run_jobs == NULL && !ops->device)) {
        st = str_serial(s, ref, n);
        if (st == PS_ERR_NO_MEMORY)
            ps_detail_set("%s: cannot allocate %zu bytes of scratch for %zu "
                          "strings", fn, n * 2 * sizeof(str_item), n);
        return st;
    }
    memset(&p, 0, sizeof p);
    p.s = s, p.ref = ref;
    p.pk = ps_scratch_take(n * sizeof *p.pk, &pk_kept);
    if (p.pk == NULL) {
        ps_detail_set("%s: cannot allocate %zu bytes of words for %zu "
                      "strings", fn, n * sizeof *p.pk, n);
        return PS_ERR_NO_MEMORY;
    }
    st = str_levels(&p, ops, state, n, &runs);
    ps_scratch_put(p.pk, pk_kept);
    if (st == PS_ERR_NO_MEMORY)
        ps_detail_set("%s: cannot allocate the list of ranges of %zu strings",
                      fn, n);
    if (st == PS_OK && runs.n > 0) {
        st = str_runs(&p, ops, state, &runs);
        if (st == PS_ERR_NO_MEMORY)
            ps_detail_set("%s: cannot allocate the scratch of the last "
                          "levels of %zu strings", fn, n);
    }
    ps_release(runs.r);
    return st;
}

/* Checks shared by both entry points: flags, and n small enough that the
 * scratch (the references, and the serial sort's two 16-byte items or the
 * level's words and the pair sort's copies) fits in size_t. */
static int str_check(const char *fn, size_t n, unsigned flags)
{
    const size_t per = 2 * sizeof(str_item) + 4 * sizeof(uint64_t);
    if (flags & ~PS_DESCENDING) {
        ps_detail_set("%s: unknown flags 0x%x (only PS_DESCENDING)", fn,
                      flags & ~PS_DESCENDING);
        return PS_ERR_INVALID_ARG;
    }
    if (n > SIZE_MAX / per) {
        ps_detail_set("%s: n = %zu strings: the sort's scratch (%zu bytes a "
                      "string) would overflow size_t", fn, n, per);
        return PS_ERR_TOO_LARGE;
    }
    return PS_OK;
}

/* A call's mode and direction, and its references' array (for the caller
 * to fill). */
static uintptr_t *str_begin(const char *fn, str_sort *s,
                            const unsigned char *base, const size_t *off,
                            unsigned flags, size_t n, int *kept)
{
    uintptr_t *ref;
    memset(s, 0, sizeof *s);
    s->base = base;
    s->off = off;
    s->desc = (flags & PS_DESCENDING) != 0;
    s->mask = s->desc ? ~(uint64_t)0 : 0;
    ref = ps_scratch_take(n * sizeof *ref, kept);
    if (ref == NULL)
        ps_detail_set("%s: cannot allocate %zu bytes for %zu strings", fn,
                      n * sizeof *ref, n);
    return ref;
}

int ps_sort_strings(const char **strings, size_t n, unsigned flags)
{
    static const char fn[] = "ps_sort_strings";
    str_sort s;
    uintptr_t *ref;
    size_t i;
    int st, kept;

    ps_detail_clear();
    st = str_check(fn, n, flags);
    if (st != PS_OK)
        return st;
    if (n > 0 && strings == NULL) {
        ps_detail_set("%s: strings is NULL with n = %zu", fn, n);
        return PS_ERR_INVALID_ARG;
    }
    for (i = 0; i < n; i++)
        if (strings[i] == NULL) {
            ps_detail_set("%s: strings[%zu] is NULL (every one of the n = %zu "
                          "pointers must point to a NUL-terminated string)",
                          fn, i, n);
            return PS_ERR_INVALID_ARG;
        }
    if (n < 2)
        return str_backend_ok(n);
    ref = str_begin(fn, &s, NULL, NULL, flags, n, &kept);
    if (ref == NULL)
        return PS_ERR_NO_MEMORY;
    for (i = 0; i < n; i++)
        ref[i] = (uintptr_t)strings[i];
    st = str_run(fn, &s, ref, n);
    if (st == PS_OK)
        for (i = 0; i < n; i++)
            strings[i] = (const char *)ref[i];
    ps_scratch_put(ref, kept);
    return st;
}

int ps_argsort_strings(const void *bytes, const size_t *offsets, size_t n,
                       size_t *perm, unsigned flags)
{
    static const char fn[] = "ps_argsort_strings";
    const unsigned char *base = bytes;
    str_sort s;
    uintptr_t *ref;
    size_t i, total;
    int st, kept;

    ps_detail_clear();
    st = str_check(fn, n, flags);
    if (st != PS_OK)
        return st;
    if (n == 0)
        return str_backend_ok(0);
    if (offsets == NULL) {
        ps_detail_set("%s: offsets is NULL with n = %zu (n + 1 offsets are "
                      "needed)", fn, n);
        return PS_ERR_INVALID_ARG;
    }
    if (perm == NULL) {
        ps_detail_set("%s: perm is NULL with n = %zu", fn, n);
        return PS_ERR_INVALID_ARG;
    }
    for (i = 0; i < n; i++)
        if (offsets[i + 1] < offsets[i]) {
            ps_detail_set("%s: offsets decrease at %zu (%zu, then %zu); they "
                          "must not decrease", fn, i + 1, offsets[i],
                          offsets[i + 1]);
            return PS_ERR_INVALID_ARG;
        }
    total = offsets[n] - offsets[0];
    if (total > 0 && bytes == NULL) {
        ps_detail_set("%s: bytes is NULL with %zu bytes of strings", fn, total);
        return PS_ERR_INVALID_ARG;
    }
    {
        ps_span sp[3] = {
            ps_span_of("bytes", total > 0 ? base + offsets[0] : NULL, total),
            ps_span_of("offsets", offsets, (n + 1) * sizeof *offsets),
            ps_span_of("perm", perm, n * sizeof *perm),
        };
        st = ps_spans_check(fn, sp, 3, ps_detail_set);
        if (st != PS_OK)
            return st;
    }
    if (n == 1 || total == 0) {
        /* One string, or only empty ones: the identity, stable either way. */
        st = str_backend_ok(n);
        for (i = 0; st == PS_OK && i < n; i++)
            perm[i] = i;
        return st;
    }
    ref = str_begin(fn, &s, base, offsets, flags, n, &kept);
    if (ref == NULL)
        return PS_ERR_NO_MEMORY;
    for (i = 0; i < n; i++)
        ref[i] = i;
    st = str_run(fn, &s, ref, n);
    if (st == PS_OK)
        for (i = 0; i < n; i++)
            perm[i] = ref[i];
    ps_scratch_put(ref, kept);
    return st;
}
