/*
 * ps_squeeze.h - squeeze 64-bit order images down to the bits that vary
 * among them, and put the other bits back.
 *
 * Keys packed by hand or by ps_sort_records often leave bits that are the
 * same in every key: a COO entry's (row << 32 | col) with 2^21 rows and
 * 2^20 columns varies in bits 0-19 and 32-52 only.  A radix sort skips
 * constant top bits, but not a gap in the middle: its digits there count
 * nothing, and a leaf split on bits 29-41 of that key gets 1024 buckets
 * of 8 keys where 8192 buckets of one key each were wanted (16M u64 pairs:
 * 126 ms as they come, 86 ms squeezed to 41 bits; Zen 5, 2 threads).
 *
 * Squeezing keeps the varying bits, in their order, packed at the bottom
 * (at most PS_SQUEEZE_RUNS runs of them, each moved by one shift and
 * mask), so the squeezed images sort as the images do; the bits left out
 * are the same in every image and are put back from `fixed`.
 */
#ifndef PS_SQUEEZE_H
#define PS_SQUEEZE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Few runs, so that a key costs a few instructions: gaps are filled,
 * smallest first, until no more runs are left than this. */
#define PS_SQUEEZE_RUNS 6
/* A gap narrower than this is kept: it would save less than a digit's
 * worth of counting for a shift and a mask more a key. */
#define PS_SQUEEZE_MIN_GAP 4

typedef struct ps_squeeze {
    unsigned nruns;
    unsigned bits;                      /* squeezed width, 0 to 64 */
    unsigned down[PS_SQUEEZE_RUNS];     /* run r moves down by down[r] */
    uint64_t mask[PS_SQUEEZE_RUNS];     /* run r's bits once squeezed */
    uint64_t keep;                      /* the image bits kept */
    uint64_t fixed;                     /* the others, as in every image */
} ps_squeeze;

static inline unsigned ps_squeeze_runs_of(uint64_t keep)
{
    unsigned r = 0, b;
    for (b = 0; b < 64; b++)
        r += (unsigned)((keep >> b) & 1) && (b == 0 || !((keep >> (b - 1)) & 1));
    return r;
}

/* Fill the narrowest gap between two runs of keep (only gaps with runs on
 * both sides: a constant top never costs a digit, a constant bottom is
 * dropped like any gap); returns keep with it filled, or keep when there
 * is one run or none. */
static inline uint64_t ps_squeeze_fill_narrowest(uint64_t keep)
{
    unsigned b = 0, best = 65, at = 0;
    while (b < 64 && !((keep >> b) & 1))
        b++;
    while (b < 64) {
        unsigned g0, g1;
        while (b < 64 && ((keep >> b) & 1))
            b++;
        g0 = b;
        while (b < 64 && !((keep >> b) & 1))
            b++;
        g1 = b;
        if (g1 < 64 && g1 - g0 < best) {
            best = g1 - g0;
            at = g0;
        }
    }
    if (best == 65)
        return keep;
    return keep | (((uint64_t)1 << best) - 1) << at;
}

/* The squeeze of images whose bits in `vary` are the only ones that may
 * differ from ref's (vary: the OR of every image XOR ref). */
static inline void ps_squeeze_plan(ps_squeeze *s, uint64_t vary, uint64_t ref)
{
    uint64_t keep = vary;
    unsigned b, at = 0;
    for (;;) {      /* gaps narrower than PS_SQUEEZE_MIN_GAP, then the rest */
        uint64_t k2 = ps_squeeze_fill_narrowest(keep);
        if (k2 == keep)
            break;
        if (ps_squeeze_runs_of(keep) <= PS_SQUEEZE_RUNS
            && (unsigned)__builtin_popcountll(k2 ^ keep) >= PS_SQUEEZE_MIN_GAP)
            break;
        keep = k2;
    }
    s->keep = keep;
    s->fixed = ref & ~keep;
    s->nruns = 0;
    b = 0;
    while (b < 64) {
        unsigned lo;
        while (b < 64 && !((keep >> b) & 1))
            b++;
        if (b == 64)
            break;
        lo = b;
        while (b < 64 && ((keep >> b) & 1))
            b++;
        s->down[s->nruns] = lo - at;
        s->mask[s->nruns] = (b - lo == 64 ? ~(uint64_t)0
                             : (((uint64_t)1 << (b - lo)) - 1) << at);
        s->nruns++;
        at += b - lo;
    }
    s->bits = at;
}

/* v[0, m) squeezed (or expanded), the run count a constant in each case so
 * that the compiler unrolls the runs and vectorises the keys. */
#define PS_SQUEEZE_CASES(BODY)                                              \
    switch (s->nruns) {                                                     \
    case 1: BODY(1); break;                                                 \
    case 2: BODY(2); break;                                                 \
    case 3: BODY(3); break;                                                 \
    case 4: BODY(4); break;                                                 \
    case 5: BODY(5); break;                                                 \
    default: BODY(PS_SQUEEZE_RUNS); break;                                  \
    }

static inline void ps_squeeze_block(const ps_squeeze *s, uint64_t *v, size_t m)
{
    size_t i;
    unsigned r;
    if (s->nruns == 0) {        /* every image the same: all squeeze to 0 */
        memset(v, 0, m * sizeof *v);
        return;
    }
#define PS_SQ_BODY(NR)                                                      \
    for (i = 0; i < m; i++) {                                               \
        uint64_t y = 0;                                                     \
        for (r = 0; r < (NR); r++)                                          \
            y |= (v[i] >> s->down[r]) & s->mask[r];                         \
        v[i] = y;                                                           \
    }
    PS_SQUEEZE_CASES(PS_SQ_BODY)
#undef PS_SQ_BODY
}

static inline void ps_squeeze_expand_block(const ps_squeeze *s, uint64_t *v,
                                           size_t m)
{
    size_t i;
    unsigned r;
    if (s->nruns == 0) {
        for (i = 0; i < m; i++)
            v[i] = s->fixed;
        return;
    }
#define PS_SQ_BODY(NR)                                                      \
    for (i = 0; i < m; i++) {                                               \
        uint64_t x = s->fixed;                                              \
        for (r = 0; r < (NR); r++)                                          \
            x |= (v[i] & s->mask[r]) << s->down[r];                         \
        v[i] = x;                                                           \
    }
    PS_SQUEEZE_CASES(PS_SQ_BODY)
#undef PS_SQ_BODY
}

#undef PS_SQUEEZE_CASES

#endif /* PS_SQUEEZE_H */
