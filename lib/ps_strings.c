/*
 * ps_strings.c - ps_sort_strings and ps_argsort_strings: byte strings in
 * bytewise (memcmp / C-locale strcmp) order, stable.
 *
 * An MSD radix sort with the next characters cached (Bingmann's "radix
 * sort with character caching", the base of pS5 and tlx::sort_strings):
 * each string of a range is read once per level, its next characters
 * packed into one 64-bit word beside it (the cache), and the range is
 * distributed on the first byte of the words in which they differ (found
 * in one pass; two bytes at once for the first levels of a large array),
 * without touching the strings again until a group of equal words needs
 * the characters after them.  Ranges of up to STR_MEDIUM strings are
 * merge-sorted by word instead, up to STR_SMALL insertion-sorted.  The word is the string's next 8 bytes, big-endian, zero-padded,
 * for NUL-terminated strings (a zero byte can only be the end there, so
 * the word alone orders them and the string ends in it exactly when its
 * low byte is 0); for strings with a length, which may hold NULs, it is
 * the next 7 bytes and, in the low byte, how many of them the string has
 * (0 to 7, 7 also when it goes on): a string that ends inside the word
 * then sorts before any longer one with the same bytes, as a proper
 * prefix must.  Equal words whose strings go on are refined at the next
 * level; equal words whose strings end are equal strings, left in input
 * order.  Every distribution is a stable counting sort, and the merge and
 * insertion sorts of the small ranges are stable, so the whole sort is; PS_DESCENDING
 * complements the cached words and reverses the insertion sort's
 * comparison, which is stable descending (equal strings still in input
 * order), not a reversed ascending sort.
 *
 * Bounds.  The recursion is a stack of disjoint ranges of more than
 * STR_SMALL strings each, so it never holds more than n / (STR_SMALL + 1)
 * entries, allocated before the sort.  A range whose cached words are all
 * equal (a long common prefix, all-equal strings) costs one pass over
 * its words and moves on: reading a 1 MB common prefix of m > STR_SMALL
 * strings is m * 1 MB / 8 word loads, no more; a group of up to STR_SMALL
 * compares it once per pair in the insertion sort; nothing is quadratic
 * in n.
 *
 * Threads.  A large array is sorted first on the backend's CPU threads: a
 * level's words are made in parallel chunks (run_jobs), sorted with their
 * positions by the backend's own parallel sort of 64-bit keys (stable),
 * and the strings gathered in parallel; a group of equal words that is
 * still large goes through the same again at the next level, and the
 * smaller groups are then sorted as independent jobs, in batches of
 * similar total size, each by the serial sort above in its own slice of
 * the scratch.  A backend without run_jobs (the serial backend, the
 * device backends: their host arrays are sorted on the host by the same
 * serial code) gets the serial sort of the whole array.
 *
 * Nothing is written to the caller's arrays before the sort is complete:
 * the strings are sorted as (word, pointer, index) items in private scratch,
 * allocated first, and copied out at the end.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_internal.h"
#include "ps_overlap.h"

/* A string of the sort: its cached word k (of the current level, as
 * stored: complemented when descending), where its bytes start (the level
 * at depth d reads p + d) and its index in the caller's array.  The word
 * travels with the string, so that a distribution writes one stream per
 * bucket, not two. */
typedef struct str_item {
    uint64_t k;
    const unsigned char *p;
    size_t i;
} str_item;

/* One call: the mode (lengths from offsets, else NUL-terminated), the
 * direction, the strings and the distributions' target ix. */
typedef struct str_sort {
    const size_t *off;      /* NULL: NUL-terminated strings */
    uint64_t mask;          /* ~0 for descending: the words are complemented */
    int desc;
    str_item *items, *ix;
} str_sort;

/* Ranges at least this long are distributed on two bytes at once (when
 * the sort has 2^16 counters to lend: the serial sort of a whole array). */
#define STR_WIDE_MIN ((size_t)1 << 16)
/* How many strings ahead str_fill asks for a string's bytes. */
#define STR_AHEAD 12
/* A range at or below this many strings is finished by insertion sort. */
#define STR_SMALL 24
/* A range at or below this many is sorted by its words with a merge sort
 * instead of being distributed: 256 counters a byte cost more than a
 * comparison sort of so few. */
#define STR_MEDIUM 384
/* The parallel levels' arrays at least this long; below, one serial sort. */
#define STR_PAR_MIN ((size_t)1 << 16)
/* Jobs of the parallel phases. */
#define STR_JOBS 64

/* A pending range of the serial sort: items [lo, hi) at depth d, their
 * words valid and to be distributed on byte b (7 = top), or b = -1 when
 * the words of depth d are still to be made. */
typedef struct str_task {
    size_t lo, hi, d;
    int b;
} str_task;

static size_t str_len(const str_sort *s, const str_item *it)
{
    return s->off[it->i + 1] - s->off[it->i];
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

/* The raw word of a string at depth d (the string has at least d bytes). */
PS_FORCE_INLINE uint64_t str_word(const str_sort *s, const str_item *it,
                                         size_t d)
{
    const unsigned char *c = it->p + d;
    uint64_t w = 0;
    size_t j;
    if (s->off != NULL) {
        size_t rem = str_len(s, it) - d;
        if (rem >= 8) {
            unsigned char b[8];
            memcpy(b, c, 8);
            for (j = 0; j < 7; j++)
                w = w << 8 | b[j];
            return w << 8 | 7;
        }
        for (j = 0; j < 7; j++)
            w = w << 8 | (j < rem ? c[j] : 0);
        return w << 8 | (rem < 7 ? rem : 7);
    }
    for (j = 0; j < 8; j++) {
        if (c[j] == 0)       /* w is 0 when j is: no shift by 64 */
            return j == 0 ? 0 : w << (8 * (8 - j));
        w = w << 8 | c[j];
    }
    return w;
}

/* memcmp order of two strings from depth d on, a proper prefix first. */
static int str_cmp(const str_sort *s, const str_item *a, const str_item *b,
                   size_t d)
{
    if (s->off != NULL) {
        size_t la = str_len(s, a) - d, lb = str_len(s, b) - d;
        int r = memcmp(a->p + d, b->p + d, la < lb ? la : lb);
        if (r != 0)
            return r;
        return la < lb ? -1 : la > lb;
    }
    {
        const unsigned char *x = a->p + d, *y = b->p + d;
        while (*x != 0 && *x == *y)
            x++, y++;
        return (int)*x - (int)*y;
    }
}

/* Whether item a (word ka, as stored) goes strictly before item b at
 * depth d: by word, then, when the words are equal and the strings go on,
 * by the rest of the strings. */
static int str_before(const str_sort *s, uint64_t ka, const str_item *a,
                      uint64_t kb, const str_item *b, size_t d)
{
    int r;
    if (ka != kb)
        return ka < kb;
    if (str_ends(s, ka ^ s->mask))
        return 0;
    r = str_cmp(s, a, b, d + str_step(s));
    return s->desc ? r > 0 : r < 0;
}

/* Stable insertion sort of [lo, hi), whose words of depth d are valid. */
static void str_insertion(const str_sort *s, size_t lo, size_t hi, size_t d)
{
    str_item *a = s->items;
    size_t i, j;
    for (i = lo + 1; i < hi; i++) {
        str_item it = a[i];
        for (j = i; j > lo && str_before(s, it.k, &it, a[j - 1].k, &a[j - 1], d);
             j--)
            a[j] = a[j - 1];
        a[j] = it;
    }
}

/* Makes the words of [lo, hi) at depth d; returns the bits in which some
 * word differs from the first (0: all equal, a common prefix that the
 * caller passes without distributing; else its top byte is the first
 * worth distributing on). */
static uint64_t str_fill(const str_sort *s, size_t lo, size_t hi, size_t d)
{
    size_t i;
    uint64_t first = str_word(s, &s->items[lo], d) ^ s->mask, diff = 0;
    s->items[lo].k = first;
    for (i = lo + 1; i < hi; i++) {
        uint64_t k;
#if defined(__GNUC__)
        /* The strings are scattered: ask for one well ahead, so that
         * several misses are in flight instead of one at a time. */
        if (i + STR_AHEAD < hi)
            __builtin_prefetch(s->items[i + STR_AHEAD].p + d);
#endif
        k = str_word(s, &s->items[i], d) ^ s->mask;
        s->items[i].k = k;
        diff |= k ^ first;
    }
    return diff;
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
    size_t sp = 0, cnt[256], at[256];
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
            while ((diff = str_fill(s, t.lo, t.hi, t.d)) == 0
                   && !str_ends(s, s->items[t.lo].k ^ s->mask))
                t.d += step;
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

/* ---- The parallel levels ------------------------------------------- */

/* A range left for the jobs: items [lo, hi) at depth d. */
typedef struct str_range {
    size_t lo, hi, d;
} str_range;

typedef struct str_par {
    const str_sort *s;
    const ps_backend_ops *ops;
    void *state;
    uint64_t *pk;           /* the level's raw words, for the backend's sort */
    size_t *pos;            /* positions sorted with them */
    str_range cur;          /* the level's range */
    size_t chunks;
    /* The jobs: ranges [first[j], first[j + 1]) of `small`, with their
     * stacks from stack + sbase[j]. */
    str_range *small;
    size_t *first, *sbase;
    str_task *stack;
} str_par;

static void chunk_of(const str_par *p, size_t j, size_t *lo, size_t *hi)
{
    size_t m = p->cur.hi - p->cur.lo;
    *lo = p->cur.lo + m / p->chunks * j;
    *hi = j + 1 == p->chunks ? p->cur.hi : p->cur.lo + m / p->chunks * (j + 1);
}

/* The level's raw words (the backend's sort takes PS_DESCENDING itself). */
static void fill_job(void *ctx, size_t j)
{
    const str_par *p = ctx;
    size_t lo, hi, i;
    chunk_of(p, j, &lo, &hi);
    for (i = lo; i < hi; i++) {
        p->pk[i] = str_word(p->s, &p->s->items[i], p->cur.d);
        p->pos[i] = i - p->cur.lo;
    }
}

static void gather_job(void *ctx, size_t j)
{
    const str_par *p = ctx;
    size_t lo, hi, i;
    chunk_of(p, j, &lo, &hi);
    for (i = lo; i < hi; i++)
        p->s->ix[i] = p->s->items[p->cur.lo + p->pos[i]];
}

static void copy_job(void *ctx, size_t j)
{
    const str_par *p = ctx;
    size_t lo, hi;
    chunk_of(p, j, &lo, &hi);
    memcpy(p->s->items + lo, p->s->ix + lo, (hi - lo) * sizeof(str_item));
}

static void small_job(void *ctx, size_t j)
{
    const str_par *p = ctx;
    size_t r;
    for (r = p->first[j]; r < p->first[j + 1]; r++)
        str_sort_range(p->s, p->small[r].lo, p->small[r].hi, p->small[r].d,
                       p->stack + p->sbase[j], NULL);
}

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

/* The parallel sort of all n items: the large levels on the backend, then
 * the remaining ranges as jobs.  `stack` has n / (STR_SMALL + 1) +
 * STR_JOBS + 1 tasks. */
static int str_sort_par(const str_sort *s, size_t n, const ps_backend_ops *ops,
                        void *state, uint64_t *pk, size_t *pos,
                        str_task *stack)
{
    str_par p;
    str_list big = { NULL, 0, 0 }, small = { NULL, 0, 0 };
    size_t big_min = n / 32 > STR_PAR_MIN ? n / 32 : STR_PAR_MIN;
    size_t first[STR_JOBS + 1], sbase[STR_JOBS], total, j, r, acc;
    const size_t step = str_step(s);
    int st = list_add(&big, 0, n, 0);

    memset(&p, 0, sizeof p);
    p.s = s, p.ops = ops, p.state = state, p.pk = pk, p.pos = pos;
    while (st == PS_OK && big.n > 0) {
        size_t m, i, run;
        p.cur = big.r[--big.n];
        m = p.cur.hi - p.cur.lo;
        p.chunks = m / 4096 < STR_JOBS ? m / 4096 + 1 : STR_JOBS;
        ops->run_jobs(state, p.chunks, fill_job, &p);
        for (i = p.cur.lo + 1; i < p.cur.hi; i++)
            if (pk[i] != pk[p.cur.lo])
                break;
        if (i == p.cur.hi) {
            /* A common prefix: the next level, with nothing moved. */
            if (!str_ends(s, pk[p.cur.lo]))
                st = list_add(&big, p.cur.lo, p.cur.hi, p.cur.d + step);
            continue;
        }
        st = ops->sort_pairs(state, pk + p.cur.lo, pos + p.cur.lo,
                             sizeof(size_t), m, PS_U64, s->desc ? PS_DESCENDING : 0);
        if (st != PS_OK)
            break;
        ops->run_jobs(state, p.chunks, gather_job, &p);
        ops->run_jobs(state, p.chunks, copy_job, &p);
        for (i = p.cur.lo; i < p.cur.hi && st == PS_OK; i = run) {
            for (run = i + 1; run < p.cur.hi && pk[run] == pk[i];)
                run++;
            if (run - i < 2 || str_ends(s, pk[i]))
                continue;
            st = list_add(run - i >= big_min ? &big : &small, i, run,
                          p.cur.d + step);
        }
    }
    ps_release(big.r);
    if (st != PS_OK) {
        ps_release(small.r);
        return st;
    }
    /* Batches of consecutive ranges of about total / STR_JOBS strings. */
    for (total = 0, r = 0; r < small.n; r++)
        total += small.r[r].hi - small.r[r].lo;
    first[0] = 0;
    for (j = 0, acc = 0, r = 0; j < STR_JOBS && r < small.n; j++) {
        size_t goal = total / STR_JOBS * (j + 1), items = 0;
        sbase[j] = acc / (STR_SMALL + 1) + j;
        while (r < small.n && (items == 0 || acc < goal || j + 1 == STR_JOBS)) {
            items += small.r[r].hi - small.r[r].lo;
            acc += small.r[r].hi - small.r[r].lo;
            r++;
        }
        first[j + 1] = r;
    }
    if (j > 0) {
        p.small = small.r, p.first = first, p.sbase = sbase, p.stack = stack;
        ops->run_jobs(state, j, small_job, &p);
    }
    ps_release(small.r);
    return PS_OK;
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

/* Sort n >= 2 items (filled in by the caller into s->items) on the backend
 * chosen for n.  Allocates the rest of the scratch; on error nothing of
 * the caller's has been touched. */
static int str_run(const char *fn, str_sort *s, size_t n)
{
    const ps_backend_ops *ops;
    void *state;
    size_t ntask = n / (STR_SMALL + 1) + STR_JOBS + 1;
    size_t *pos = NULL;
    uint64_t *pk = NULL;
    str_task *stack;
    int par, st = ps_backend_for(n, &ops, &state);

    if (st != PS_OK)
        return st;
    /* The positions travel as size_t values, which every backend moves
     * natively (4 or 8 bytes) in an aligned array. */
    par = n >= STR_PAR_MIN && ops->run_jobs != NULL
          && (ops->value_sizes & PS_VALUE_SIZE_BIT(sizeof(size_t))) != 0;
    s->ix = ps_alloc(n * sizeof *s->ix);
    stack = ps_alloc(ntask * sizeof *stack);
    if (par) {
        pos = ps_alloc(n * sizeof *pos);
        pk = ps_alloc(n * sizeof *pk);
    }
    if (s->ix == NULL || stack == NULL || (par && (pos == NULL || pk == NULL))) {
        ps_detail_set("%s: cannot allocate %zu bytes of scratch for %zu strings",
                      fn, n * (sizeof(str_item) + 2 * sizeof(uint64_t)), n);
        st = PS_ERR_NO_MEMORY;
    } else if (par) {
        st = str_sort_par(s, n, ops, state, pk, pos, stack);
        if (st == PS_ERR_NO_MEMORY)
            ps_detail_set("%s: cannot allocate the list of ranges of %zu "
                          "strings", fn, n);
    } else {
        /* 2^16 counters for the first levels of a large array; without
         * them the sort only takes more passes. */
        size_t *wide = n >= STR_WIDE_MIN ? ps_alloc(65536 * sizeof *wide) : NULL;
        str_sort_range(s, 0, n, 0, stack, wide);
        ps_release(wide);
    }
    ps_release(s->ix);
    ps_release(stack);
    ps_release(pos);
    ps_release(pk);
    return st;
}

/* Checks shared by both entry points: flags, and n small enough that the
 * scratch (the items with their words and the distributions' copies: 48
 * bytes a string, plus 16 of words and positions for the parallel levels)
 * fits in size_t. */
static int str_check(const char *fn, size_t n, unsigned flags)
{
    const size_t per = 2 * sizeof(str_item) + 2 * sizeof(uint64_t);
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

/* A call's mode and direction, and its items' array (for the caller to
 * fill). */
static int str_begin(const char *fn, str_sort *s, const size_t *off,
                     unsigned flags, size_t n)
{
    memset(s, 0, sizeof *s);
    s->off = off;
    s->desc = (flags & PS_DESCENDING) != 0;
    s->mask = s->desc ? ~(uint64_t)0 : 0;
    s->items = ps_alloc(n * sizeof *s->items);
    if (s->items == NULL) {
        ps_detail_set("%s: cannot allocate %zu bytes for %zu strings", fn,
                      n * sizeof *s->items, n);
        return PS_ERR_NO_MEMORY;
    }
    return PS_OK;
}

int ps_sort_strings(const char **strings, size_t n, unsigned flags)
{
    static const char fn[] = "ps_sort_strings";
    str_sort s;
    size_t i;
    int st;

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
    st = str_begin(fn, &s, NULL, flags, n);
    if (st != PS_OK)
        return st;
    for (i = 0; i < n; i++) {
        s.items[i].p = (const unsigned char *)strings[i];
        s.items[i].i = i;
    }
    st = str_run(fn, &s, n);
    if (st == PS_OK)
        for (i = 0; i < n; i++)
            strings[i] = (const char *)s.items[i].p;
    ps_release(s.items);
    return st;
}

int ps_argsort_strings(const void *bytes, const size_t *offsets, size_t n,
                       size_t *perm, unsigned flags)
{
    static const char fn[] = "ps_argsort_strings";
    const unsigned char *base = bytes;
    str_sort s;
    size_t i, total;
    int st;

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
    st = str_begin(fn, &s, offsets, flags, n);
    if (st != PS_OK)
        return st;
    for (i = 0; i < n; i++) {
        s.items[i].p = base + offsets[i];
        s.items[i].i = i;
    }
    st = str_run(fn, &s, n);
    if (st == PS_OK)
        for (i = 0; i < n; i++)
            perm[i] = s.items[i].i;
    ps_release(s.items);
    return st;
}
