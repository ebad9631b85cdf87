/*
 * ps_inplace.c - the in-place sort of keys (see ps_inplace.h).
 *
 * Each level counts one digit of the images, then moves every key to its
 * bucket by cycles: the key at the next unfilled place of bucket d goes
 * to the next unfilled place of its own bucket, the key found there moves
 * on the same way, until one belongs to d.  A digit that every key shares
 * (small integers' top bytes, a common exponent) is skipped without
 * moving anything; keys that share every digit are equal and done.  The
 * keys are moved as their own bits; the images only give the digits.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_inplace.h"

/* Buckets this small are sorted by insertion. */
#define IP_SMALL 32
#ifndef IP_AHEAD
#define IP_AHEAD 256
#endif

#define IP_DEFINE(W)                                                         \
static void insert##W(uint##W##_t *k, size_t n, ps_xf xf)                    \
{                                                                            \
    size_t i, j;                                                             \
    for (i = 1; i < n; i++) {                                                \
        uint##W##_t x = k[i], ix = ps_enc##W(x, xf);                         \
        for (j = i; j > 0 && ps_enc##W(k[j - 1], xf) > ix; j--)              \
            k[j] = k[j - 1];                                                 \
        k[j] = x;                                                            \
    }                                                                        \
}                                                                            \
                                                                             \
/* Distribute the n keys at k by the first digit from *shift down that    \
 * splits them, setting *shift to it and start[d] to where bucket d       \
 * begins (start[256] = n).  Returns 0, moving nothing, when every digit  \
 * is shared: the keys are all equal. */                                   \
static int spread##W(uint##W##_t *k, size_t n, unsigned *shift, ps_xf xf,    \
                     size_t *start)                                          \
{                                                                            \
    size_t cnt[256], head[256], i;                                           \
    unsigned d, sh = *shift;                                                 \
    for (;;) {                                                               \
        memset(cnt, 0, sizeof cnt);                                          \
        for (i = 0; i < n; i++)                                              \
            cnt[(ps_enc##W(k[i], xf) >> sh) & 255u]++;                       \
        for (d = 0; d < 256 && cnt[d] != n; d++)                             \
            ;                                                                \
        if (d == 256)                                                        \
            break;                                                           \
        if (sh == 0)                                                         \
            return 0;                                                        \
        sh -= 8;                                                             \
    }                                                                        \
    start[0] = 0;                                                            \
    for (d = 0; d < 256; d++) {                                              \
        head[d] = start[d];                                                  \
        start[d + 1] = start[d] + cnt[d];                                    \
    }                                                                        \
    for (d = 0; d < 256; d++) {                                              \
        size_t end = start[d + 1];                                           \
        while (head[d] < end) {                                              \
            uint##W##_t v = k[head[d]];                                      \
            unsigned dv = (unsigned)(ps_enc##W(v, xf) >> sh) & 255u;         \
            while (dv != d) {                                                \
                size_t at = head[dv]++;                                      \
                uint##W##_t t = k[at];                                       \
                __builtin_prefetch(k + at + IP_AHEAD / (W / 8), 1);          \
                k[at] = v;                                                   \
                v = t;                                                       \
                dv = (unsigned)(ps_enc##W(v, xf) >> sh) & 255u;              \
            }                                                                \
            k[head[d]++] = v;                                                \
        }                                                                    \
    }                                                                        \
    *shift = sh;                                                             \
    return 1;                                                                \
}

/* Sort the n keys at k by the digits from shift down: one level a digit,
 * so at most W / 8 levels deep.  (One-byte keys need no second level.) */
#define IP_DEFINE_SORT(W)                                                    \
static void sort##W(uint##W##_t *k, size_t n, unsigned shift, ps_xf xf)      \
{                                                                            \
    size_t start[257];                                                       \
    unsigned d;                                                              \
    if (n <= IP_SMALL) {                                                     \
        insert##W(k, n, xf);                                                 \
        return;                                                              \
    }                                                                        \
    if (!spread##W(k, n, &shift, xf, start) || shift == 0)                   \
        return;                                                              \
    for (d = 0; d < 256; d++)                                                \
        if (start[d + 1] - start[d] > 1)                                     \
            sort##W(k + start[d], start[d + 1] - start[d], shift - 8, xf);   \
}

IP_DEFINE(8)
IP_DEFINE(16)
IP_DEFINE(32)
IP_DEFINE(64)
IP_DEFINE_SORT(16)
IP_DEFINE_SORT(32)
IP_DEFINE_SORT(64)

/* The buckets of the first level, sorted as jobs. */
typedef struct ip_top {
    void *keys;
    unsigned kb, shift;
    ps_xf xf;
    size_t start[257];
} ip_top;

static void bucket_job(void *ctx, size_t d)
{
    const ip_top *t = ctx;
    size_t a = t->start[d], len = t->start[d + 1] - a;
    unsigned sh = t->shift - 8;
    if (len < 2)
        return;
    switch (t->kb) {
    case 2: sort16((uint16_t *)t->keys + a, len, sh, t->xf); break;
    case 4: sort32((uint32_t *)t->keys + a, len, sh, t->xf); break;
    default: sort64((uint64_t *)t->keys + a, len, sh, t->xf); break;
    }
}

void ps_inplace_sort_keys(void *keys, size_t n, ps_type type, unsigned flags,
                          ps_inplace_run run, void *rctx)
{
    ip_top t;
    size_t d;
    int split;

    t.keys = keys;
    t.kb = ps_type_bytes(type);
    t.shift = 8 * t.kb - 8;
    t.xf = ps_xf_make(type, flags);
    if (n <= IP_SMALL) {
        switch (t.kb) {
        case 1: insert8(keys, n, t.xf); break;
        case 2: insert16(keys, n, t.xf); break;
        case 4: insert32(keys, n, t.xf); break;
        default: insert64(keys, n, t.xf); break;
        }
        return;
    }
    switch (t.kb) {
    case 1: split = spread8(keys, n, &t.shift, t.xf, t.start); break;
    case 2: split = spread16(keys, n, &t.shift, t.xf, t.start); break;
    case 4: split = spread32(keys, n, &t.shift, t.xf, t.start); break;
    default: split = spread64(keys, n, &t.shift, t.xf, t.start); break;
    }
    if (!split || t.shift == 0)
        return;
    if (run != NULL) {
        run(rctx, 256, bucket_job, &t);
    } else {
        for (d = 0; d < 256; d++)
            bucket_job(&t, d);
    }
}
