/*
 * ps_inplace.c - the in-place sort of keys (see ps_inplace.h).
 *
 * Each level counts one digit of the images, then moves every key to its
 * bucket by swaps: the key at an unfilled place of bucket d goes to the
 * next unfilled place of its own bucket and the key found there comes
 * back (by rounds over the buckets in large ones, by whole cycles in
 * small ones).  A digit that every key shares (small integers' top
 * bytes, a common exponent) is skipped without moving anything; keys
 * that share every digit are equal and done; at the last digit, keys are
 * written back from the counts.  Buckets of up to 2 KiB are finished by
 * LSD counting passes through a buffer of that size on the stack, tiny
 * ones by insertion.  The keys are moved as their own bits; the images
 * only give the digits.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_inplace.h"

/* Buckets this small are sorted by insertion. */
#define IP_SMALL 32
/* Buckets that fit this many bytes are sorted through a buffer on the
 * stack (lsd below): 512 u32 keys, which takes the last two levels of
 * 2^24 random keys (buckets of about 256) off the swaps.  Zen 5, 2^24
 * u32 on 2 threads: 152 ms without it, 116 with 1 KiB, 80 with 2 KiB,
 * 82 with 4 KiB.  16 KiB would take 2^20 keys' buckets of 4096 too (9.1
 * -> 6.3 ms: their buckets of 16 are most of the time, in insertion
 * sorts), but the sort runs on the caller's thread, whose stack may be
 * small. */
#define IP_BUF_BYTES 2048
/* Buckets of at most this many keys are distributed by whole cycles (a
 * chain of dependent swaps, in cache), larger ones by rounds whose loads
 * overlap: 2^24 u32, 208 ms by rounds alone, 152 with this. */
#define IP_CHAIN_MAX 4096
/* How far ahead of a bucket's next place its line is fetched: the
 * rounds write 256 streams at once, more than the hardware prefetcher
 * follows (2^24 u32: 400 -> 315 ms, before the rounds). */
#define IP_AHEAD 256

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
 * begins (start[256] = n).  Returns 0 when that leaves them sorted: all  \
 * equal, or split by the last digit only (then written back from the     \
 * counts). */                                                             \
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
    if (sh == 0) {                                                           \
        /* The last digit: keys that share the others and this one are    \
         * equal bit for bit, so they are written back from the counts,   \
         * without moving any. */                                           \
        uint##W##_t top = (uint##W##_t)(ps_enc##W(k[0], xf) >> 8 << 8);      \
        size_t j = 0;                                                        \
        for (d = 0; d < 256; d++) {                                          \
            uint##W##_t key = ps_dec##W((uint##W##_t)(top | d), xf);         \
            for (i = 0; i < cnt[d]; i++)                                     \
                k[j++] = key;                                                \
        }                                                                    \
        return 0;                                                            \
    }                                                                        \
    start[0] = 0;                                                            \
    for (d = 0; d < 256; d++) {                                              \
        head[d] = start[d];                                                  \
        start[d + 1] = start[d] + cnt[d];                                    \
    }                                                                        \
    /* Rounds over the buckets not yet full: each place of a bucket's      \
     * unplaced part swaps its key into the next place of that key's own   \
     * bucket, taking back an unplaced one.  Every swap places one key,    \
     * and the places are read in order, independent of the swap before:  \
     * the loads overlap instead of waiting on each other. */              \
    if (n <= IP_CHAIN_MAX) {                                                 \
        /* Few keys: whole cycles, one bucket at a time (the rounds' walk  \
         * over 256 buckets would cost more than the keys). */             \
        for (d = 0; d < 256; d++) {                                          \
            size_t end = start[d + 1];                                       \
            while (head[d] < end) {                                          \
                uint##W##_t v = k[head[d]];                                  \
                unsigned dv = (unsigned)(ps_enc##W(v, xf) >> sh) & 255u;     \
                while (dv != d) {                                            \
                    uint##W##_t t = k[head[dv]];                             \
                    k[head[dv]++] = v;                                       \
                    v = t;                                                   \
                    dv = (unsigned)(ps_enc##W(v, xf) >> sh) & 255u;          \
                }                                                            \
                k[head[d]++] = v;                                            \
            }                                                                \
        }                                                                    \
        *shift = sh;                                                         \
        return 1;                                                            \
    }                                                                        \
    for (;;) {                                                               \
        int left = 0;                                                        \
        for (d = 0; d < 256; d++) {                                          \
            size_t i = head[d], end = start[d + 1];                          \
            for (; i < end; i++) {                                           \
                uint##W##_t v = k[i];                                        \
                unsigned dv = (unsigned)(ps_enc##W(v, xf) >> sh) & 255u;     \
                size_t at = head[dv]++;                                      \
                __builtin_prefetch(k + at + IP_AHEAD / (W / 8), 1);          \
                k[i] = k[at];                                                \
                k[at] = v;                                                   \
            }                                                                \
            left |= head[d] < end;                                           \
        }                                                                    \
        if (!left)                                                           \
            break;                                                           \
    }                                                                        \
    *shift = sh;                                                             \
    return 1;                                                                \
}

/* Sort the n keys at k by the digits from shift down: one level a digit,
 * so at most W / 8 levels deep.  (One-byte keys need no second level.) */
#define IP_DEFINE_SORT(W)                                                    \
/* A bucket that fits IP_BUF_BYTES: LSD counting passes through a buffer   \
 * on the stack, digits shift .. 0 (the higher ones are shared). */         \
static void lsd##W(uint##W##_t *k, size_t n, unsigned shift, ps_xf xf)       \
{                                                                            \
    uint##W##_t buf[IP_BUF_BYTES / (W / 8)], *src = k, *dst = buf;          \
    uint32_t cnt[256];                                                       \
    unsigned sh, d;                                                          \
    size_t i;                                                                \
    for (sh = 0; sh <= shift; sh += 8) {                                     \
        uint32_t at = 0, c;                                                  \
        uint##W##_t *t;                                                      \
        memset(cnt, 0, sizeof cnt);                                          \
        for (i = 0; i < n; i++)                                              \
            cnt[(ps_enc##W(src[i], xf) >> sh) & 255u]++;                     \
        for (d = 0; d < 256; d++) {                                          \
            c = cnt[d];                                                      \
            cnt[d] = at;                                                     \
            at += c;                                                         \
        }                                                                    \
        for (i = 0; i < n; i++)                                              \
            dst[cnt[(ps_enc##W(src[i], xf) >> sh) & 255u]++] = src[i];       \
        t = src;                                                             \
        src = dst;                                                           \
        dst = t;                                                             \
    }                                                                        \
    if (src != k)                                                            \
        memcpy(k, src, n * sizeof *k);                                       \
}                                                                            \
                                                                             \
static void sort##W(uint##W##_t *k, size_t n, unsigned shift, ps_xf xf)      \
{                                                                            \
    size_t start[257];                                                       \
    unsigned d;                                                              \
    if (n <= IP_SMALL) {                                                     \
        insert##W(k, n, xf);                                                 \
        return;                                                              \
    }                                                                        \
    if (n <= IP_BUF_BYTES / (W / 8)) {                                       \
        lsd##W(k, n, shift, xf);                                             \
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
