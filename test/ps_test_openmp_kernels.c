/*
 * ps_test_openmp_kernels - unit tests of the OpenMP backend's kernels
 * (issue 28, item 4): every entry of the per-width tables ps_omp_kernels8
 * to ps_omp_kernels64, of the packed-pair table and of the sorting
 * networks (ps_openmp_sort.h and ps_openmp_net.h are their contracts),
 * called directly, as Highway's sort_unit_test.cc calls vqsort's
 * internals, rather than through a whole sort, where a kernel's slip can
 * hide behind a later pass or never be reached.
 *
 * For every key width, value size (0, 4, 8) and transform (unsigned,
 * signed, float where the width has one, descending), at sizes around each
 * boundary a kernel has (0, 1, 2, its vector widths, a write-combining
 * unit's worth of elements, the networks' PS_NET_MAX, a few thousand),
 * each kernel's output is compared with a naive version of its contract.
 * Every array (keys, values, counts, cursors, the thread's line buffers)
 * lies between guard bytes that must be unchanged afterwards, and arrays
 * are placed at every element-aligned offset within a 256-byte unit (the
 * scatters' write-combining and streaming depend on it), values at byte
 * offsets too (they need no alignment), with c->shift and c->stream set
 * by ps_omp_place as run() sets them, streaming on and off.
 *
 * The scatters run as the team runs them: a range cut into slices, each
 * with the cursors the control gives it (its part of every bucket after
 * the parts of the slices before it), one slice at a time into a
 * destination filled with noise, which must change exactly at the places
 * of that slice's elements.
 *
 * The networks run for every ISA this CPU has (ps_omp_net_isa; the
 * PORTSORT_OPENMP_SIMD levels avx2 and avx512), each bucket size
 * 0..PS_NET_MAX, checked against the test's own merge-sort oracle
 * (t_check_segments), stability included for packed pairs.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_backend.h"
#include "ps_openmp_net.h"
#include "ps_openmp_sort.h"
#include "ps_test_util.h"

/* ---- guarded arrays ----------------------------------------------------- */

/* Bytes of guard on each side of every array. */
#define GUARD 256

typedef struct gbuf {
    unsigned char *raw;     /* the allocation, 256-byte aligned */
    unsigned char *p;       /* the array: raw + GUARD + off */
    size_t bytes, off, total;
    const char *name;
} gbuf;

/* What the current case is, for failure messages. */
static char where[320];

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void bad(const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    t_fail("%s: %s", where, msg);
}

/* The guard bytes: byte i of an allocation is pattern[i % 256], a pattern
 * no kernel writes by chance. */
static unsigned char pattern[512];

static void g_pattern(void)
{
    size_t i;
    for (i = 0; i < sizeof pattern; i++)
        pattern[i] = (unsigned char)(0x5a ^ (i * 151));
}

/* Fill or check bytes [lo, hi) of g's allocation with the pattern; the
 * first wrong byte, or hi. */
static size_t g_span(const gbuf *g, size_t lo, size_t hi, int fill)
{
    while (lo < hi) {
        size_t step = 256 - lo % 256;
        if (step > hi - lo)
            step = hi - lo;
        if (fill) {
            memcpy(g->raw + lo, pattern + lo % 256, step);
        } else if (memcmp(g->raw + lo, pattern + lo % 256, step) != 0) {
            while (g->raw[lo] == pattern[lo % 256])
                lo++;
            return lo;
        }
        lo += step;
    }
    return hi;
}

/* An array of `bytes` at byte `off` (0..255) of a 256-byte unit, guard
 * bytes around it; the array holds zeros until filled. */
static unsigned char *g_new(gbuf *g, const char *name, size_t bytes, size_t off)
{
    g->name = name;
    g->bytes = bytes;
    g->off = off;
    g->total = (2 * GUARD + off + bytes + 255) & ~(size_t)255;
    g->raw = aligned_alloc(256, g->total);
    if (g->raw == NULL)
        t_fail("out of memory");
    g->p = g->raw + GUARD + off;
    g_span(g, 0, GUARD + off, 1);
    memset(g->p, 0, bytes);
    g_span(g, GUARD + off + bytes, g->total, 1);
    return g->p;
}

static void g_check(const gbuf *g)
{
    size_t lo = GUARD + g->off, hi = lo + g->bytes, i;
    if ((i = g_span(g, 0, lo, 0)) < lo)
        bad("%s: byte %ld before the array was written", g->name,
            (long)lo - (long)i);
    if ((i = g_span(g, hi, g->total, 0)) < g->total)
        bad("%s: byte %zu after the array was written", g->name, i - hi);
}

static void g_free(gbuf *g)
{
    g_check(g);
    free(g->raw);
    g->raw = NULL;
}

/* ---- keys, images, digits ----------------------------------------------- */

/* A key type and order: the table of its width and its transform. */
typedef struct cfg {
    const ps_omp_kernels *kt;
    size_t kb;
    ps_type type;
    unsigned flags;
    ps_xf xf;
} cfg;

static uint64_t kget(const unsigned char *p, size_t kb, size_t i)
{
    uint8_t a;
    uint16_t b;
    uint32_t c;
    uint64_t d;
    switch (kb) {
    case 1: memcpy(&a, p + i, 1); return a;
    case 2: memcpy(&b, p + 2 * i, 2); return b;
    case 4: memcpy(&c, p + 4 * i, 4); return c;
    default: memcpy(&d, p + 8 * i, 8); return d;
    }
}

static void kput(unsigned char *p, size_t kb, size_t i, uint64_t k)
{
    uint8_t a = (uint8_t)k;
    uint16_t b = (uint16_t)k;
    uint32_t c = (uint32_t)k;
    switch (kb) {
    case 1: memcpy(p + i, &a, 1); break;
    case 2: memcpy(p + 2 * i, &b, 2); break;
    case 4: memcpy(p + 4 * i, &c, 4); break;
    default: memcpy(p + 8 * i, &k, 8); break;
    }
}

/* The order image (ps_backend.h: what every kernel's digits are bits of). */
static uint64_t img(const cfg *g, uint64_t k)
{
    switch (g->kb) {
    case 1: return ps_enc8((uint8_t)k, g->xf);
    case 2: return ps_enc16((uint16_t)k, g->xf);
    case 4: return ps_enc32((uint32_t)k, g->xf);
    default: return ps_enc64(k, g->xf);
    }
}

static unsigned digit(const cfg *g, uint64_t k, unsigned sh, unsigned mask)
{
    return (unsigned)((img(g, k) >> sh) & mask);
}

static uint64_t width_mask(size_t kb)
{
    return kb == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * kb)) - 1;
}

/* qsort's comparison by image, of sort_cfg's keys, sort_dir 1 or -1. */
static const cfg *sort_cfg;
static int sort_dir;

static int by_image(const void *a, const void *b)
{
    uint64_t x = img(sort_cfg, kget(a, sort_cfg->kb, 0));
    uint64_t y = img(sort_cfg, kget(b, sort_cfg->kb, 0));
    return sort_dir * ((x > y) - (x < y));
}

enum { D_RANDOM, D_FEW, D_NARROW, D_SORTED, D_REVERSE, D_NDIST };

/* n keys: random bits (floats of every class, both signs), three values
 * (long runs of equal keys: stability), keys that differ in their low 5
 * bits only, or (for the sorts) nearly sorted and reversed by image. */
static void gen_keys(const cfg *g, unsigned char *k, size_t n, int dist,
                     uint64_t *rng)
{
    uint64_t few[3], base = t_rand(rng);
    size_t i;
    for (i = 0; i < 3; i++)
        few[i] = t_rand(rng);
    for (i = 0; i < n; i++) {
        uint64_t r = t_rand(rng);
        switch (dist) {
        case D_FEW: kput(k, g->kb, i, few[r % 3]); break;
        case D_NARROW: kput(k, g->kb, i, base ^ (r & 31)); break;
        default: kput(k, g->kb, i, r); break;
        }
    }
    if (dist == D_SORTED || dist == D_REVERSE) {
        /* By image, then a few keys out of place. */
        sort_cfg = g;
        sort_dir = dist == D_SORTED ? 1 : -1;
        qsort(k, n, g->kb, by_image);
        for (i = 0; n > 1 && i < n / 16 + 1; i++) {
            size_t a = t_rand(rng) % n, b = t_rand(rng) % n;
            uint64_t x = kget(k, g->kb, a);
            kput(k, g->kb, a, kget(k, g->kb, b));
            kput(k, g->kb, b, x);
        }
    }
}

/* Value i: its index and a tag, so that every value is distinct. */
static void gen_values(unsigned char *v, size_t vs, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t x = (uint64_t)i | (uint64_t)0xa5 << 24 | (uint64_t)0x3c5a << 48;
        memcpy(v + i * vs, &x, vs);
    }
}

static void noise(unsigned char *p, size_t bytes, uint64_t *rng)
{
    size_t i;
    for (i = 0; i < bytes; i += 8) {
        uint64_t r = t_rand(rng);
        memcpy(p + i, &r, bytes - i < 8 ? bytes - i : 8);
    }
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        t_fail("out of memory");
    return p;
}

static void *dup_bytes(const void *p, size_t bytes)
{
    void *q = xmalloc(bytes);
    if (bytes)
        memcpy(q, p, bytes);
    return q;
}

/* Compare an array with what it should hold; name the first wrong element. */
static void same(const char *what, const unsigned char *got,
                 const unsigned char *want, size_t n, size_t es)
{
    size_t i;
    if (n == 0 || memcmp(got, want, n * es) == 0)
        return;
    for (i = 0; i < n; i++)
        if (memcmp(got + i * es, want + i * es, es) != 0)
            bad("%s: element %zu of %zu is wrong", what, i, n);
}

/* A context as plan() and run() make it, for the kernels' fields. */
static void ctx_init(ps_omp_ctx *c, const cfg *g, size_t vs, size_t n,
                     unsigned char *k0, unsigned char *k1, unsigned char *v0,
                     unsigned char *v1, int stream)
{
    memset(c, 0, sizeof *c);
    c->kt = g->kt;
    c->k[0] = k0;
    c->k[1] = k1;
    c->v[0] = vs ? v0 : NULL;
    c->v[1] = vs ? v1 : NULL;
    c->vs = vs;
    c->n = n;
    c->xf = g->xf;
    c->bits = (unsigned)(8 * g->kb);
    c->members = 1;
    c->pack = g->kb == 4 && vs == 4;
    ps_omp_place(c, stream);
}

static unsigned long n_cases;

/* ---- survey, survey_leaf, hist ------------------------------------------ */

/* Does orand hold the OR and AND of keys [a, b) (of their images for a
 * float type, whose image is more than an xor), as `who` must leave them? */
static void check_orand(const char *who, const cfg *g, const unsigned char *k,
                        size_t a, size_t b, const uint64_t *orand)
{
    uint64_t o = 0, an = width_mask(g->kb);
    size_t i;
    for (i = a; i < b; i++) {
        uint64_t x = kget(k, g->kb, i);
        if (g->xf.fneg != 0)
            x = img(g, x);
        o |= x;
        an &= x;
    }
    if (orand[0] != o || orand[1] != an)
        bad("%s: OR, AND %#llx, %#llx, not %#llx, %#llx", who,
            (unsigned long long)orand[0], (unsigned long long)orand[1],
            (unsigned long long)o, (unsigned long long)an);
}

/* survey and hist over positions [a, a + m) of an array of a + m + 2 keys
 * at element offset koff; survey_leaf over its first a + m. */
static void t_survey(const cfg *g, size_t a, size_t m, unsigned sh,
                     unsigned b, size_t koff, int dist, uint64_t *rng)
{
    size_t kb = g->kb, n = a + m + 2, nb = (size_t)1 << b, i, w;
    unsigned mask = (unsigned)nb - 1;
    gbuf K, C, C2, O;
    unsigned char *k = g_new(&K, "keys", n * kb, koff * kb), *kc;
    size_t *cnt, *cnt2, *want = xmalloc(nb * sizeof *want);
    uint64_t *orand;
    ps_omp_ctx c;

    gen_keys(g, k, n, dist, rng);
    kc = dup_bytes(k, n * kb);
    memset(want, 0, nb * sizeof *want);
    for (i = a; i < a + m; i++)
        want[digit(g, kget(k, kb, i), sh, mask)]++;
    ctx_init(&c, g, 0, n, k, NULL, NULL, NULL, 0);

    cnt = (size_t *)(void *)g_new(&C, "cnt", nb * sizeof *cnt, 0);
    cnt2 = (size_t *)(void *)g_new(&C2, "cnt2", nb * sizeof *cnt2, 0);
    orand = (uint64_t *)(void *)g_new(&O, "orand", 2 * sizeof *orand, 0);
    g->kt->survey(&c, a, a + m, sh, mask, cnt, cnt2, orand);
    for (i = 0; i < nb; i++)
        if (cnt[i] != want[i])
            bad("survey: count of digit %zu is %zu, not %zu", i, cnt[i], want[i]);
    check_orand("survey", g, k, a, a + m, orand);
    g_free(&C);
    g_free(&C2);

    /* hist, from either array (the other one is not read). */
    for (w = 0; w < 2; w++) {
        c.k[w] = k;
        c.k[1 - w] = NULL;
        cnt = (size_t *)(void *)g_new(&C, "hist counts", nb * sizeof *cnt, 0);
        g->kt->hist(&c, (int)w, a, a + m, sh, mask, cnt);
        for (i = 0; i < nb; i++)
            if (cnt[i] != want[i])
                bad("hist from array %zu: count of digit %zu is %zu, not %zu",
                    w, i, cnt[i], want[i]);
        g_free(&C);
    }
    c.k[0] = k;
    c.k[1] = NULL;

    /* survey_leaf: all of [0, a + m), one counter each written. */
    cnt = (size_t *)(void *)g_new(&C, "survey_leaf cnt", sizeof *cnt, 0);
    cnt2 = (size_t *)(void *)g_new(&C2, "survey_leaf cnt2", sizeof *cnt2, 0);
    g->kt->survey_leaf(&c, a + m, cnt, cnt2, orand);
    check_orand("survey_leaf", g, k, 0, a + m, orand);
    g_free(&C);
    g_free(&C2);
    g_free(&O);
    same("survey: its keys", k, kc, n, kb);
    g_free(&K);
    free(kc);
    free(want);
    n_cases++;
}

/* ---- scatter ------------------------------------------------------------ */

/* Where a scatter case puts its arrays and how it runs. */
typedef struct place {
    size_t koff[2];     /* elements from a 256-byte unit */
    size_t voff[2];     /* bytes from a 256-byte unit */
    int from;           /* the source array */
    int stream;         /* ps_omp_place's argument */
    int plain;          /* the scatter's: straight, no line buffers */
    unsigned slices;    /* callers sharing the range, one after another */
    size_t ra;          /* where the range starts */
} place;

/* The scatter of positions [pl->ra, pl->ra + m) of array pl->from by
 * digit (sh, mask), or (packed != 0, 4-byte keys and values only) the
 * packed route's scatter into elements.  The range is cut into
 * pl->slices slices, run one after another, each with the cursors that
 * team() gives a thread: bucket d's part of slice t starts after the
 * parts of slices 0..t-1, the buckets after each other from pl->ra.  After
 * each slice the destination must equal what it held with that slice's
 * elements written at their places, the cursors must stand at the ends of
 * those places, and nothing else may have changed. */
static void t_scatter(const cfg *g, size_t vs, size_t m, unsigned sh,
                      unsigned b, const place *pl, int packed, int dist,
                      uint64_t *rng)
{
    size_t kb = g->kb, n = pl->ra + m + 3, nb = (size_t)1 << b, i, t;
    size_t line = PS_UNIT_BYTES / (vs > kb ? vs : kb);
    size_t ke = packed ? 8 : kb, ve = packed ? 0 : vs;  /* destination sizes */
    unsigned mask = (unsigned)nb - 1;
    int from = packed ? 0 : pl->from, to = 1 - from;
    gbuf K[2], V[2], P, S, KL, VL;
    unsigned char *k[2], *v[2] = { NULL, NULL }, *ksrc, *vsrc = NULL;
    unsigned char *kwant, *vwant = NULL;
    size_t *pos, *start, *cur = xmalloc(nb * sizeof *cur);
    size_t *st = xmalloc(nb * sizeof *st);
    ps_omp_ctx c;
    ps_omp_tls tl;

    k[from] = g_new(&K[from], "source keys", n * kb, pl->koff[from] * kb);
    k[to] = g_new(&K[to], packed ? "packed elements" : "destination keys",
                  n * ke, pl->koff[to] * ke);
    if (vs) {
        v[from] = g_new(&V[from], "source values", n * vs, pl->voff[from]);
        gen_values(v[from], vs, n);
        vsrc = dup_bytes(v[from], n * vs);
    }
    if (ve) {
        v[to] = g_new(&V[to], "destination values", n * vs, pl->voff[to]);
        noise(v[to], n * vs, rng);
        vwant = dup_bytes(v[to], n * vs);
    }
    gen_keys(g, k[from], n, dist, rng);
    ksrc = dup_bytes(k[from], n * kb);
    noise(k[to], n * ke, rng);
    kwant = dup_bytes(k[to], n * ke);
    ctx_init(&c, g, vs, n, k[0], k[1], v[0], v[1], pl->stream);
    c.members = (int)pl->slices;

    pos = (size_t *)(void *)g_new(&P, "tl->pos", nb * sizeof *pos, 0);
    start = (size_t *)(void *)g_new(&S, "tl->start", nb * sizeof *start, 0);
    memset(&tl, 0, sizeof tl);
    tl.pos = pos;
    tl.start = start;
    /* Buffers that are not zero (the scratch is not cleared). */
    tl.kline = g_new(&KL, "tl->kline", nb * PS_UNIT_BYTES, 0);
    memset(tl.kline, (int)(t_rand(rng) | 1) & 255, nb * PS_UNIT_BYTES);
    if (ve) {
        tl.vline = g_new(&VL, "tl->vline", nb * line * vs, 0);
        memset(tl.vline, (int)(t_rand(rng) | 1) & 255, nb * line * vs);
    }

    /* The buckets' starts, as bucket_bounds leaves them. */
    memset(cur, 0, nb * sizeof *cur);
    for (i = pl->ra; i < pl->ra + m; i++)
        cur[digit(g, kget(ksrc, kb, i), sh, mask)]++;
    for (i = 0, t = pl->ra; i < nb; i++) {
        size_t x = cur[i];
        cur[i] = t;
        t += x;
    }
    for (t = 0; t < pl->slices; t++) {
        size_t slo = pl->ra + m * t / pl->slices;
        size_t shi = pl->ra + m * (t + 1) / pl->slices;
        memcpy(pos, cur, nb * sizeof *pos);
        memcpy(start, cur, nb * sizeof *start);
        memcpy(st, cur, nb * sizeof *st);
        if (packed)
            g->kt->packed->scatter(&c, &tl, slo, shi, sh, mask);
        else
            g->kt->scatter(&c, &tl, from, slo, shi, sh, mask, pl->plain);
        for (i = slo; i < shi; i++) {
            uint64_t x = kget(ksrc, kb, i);
            size_t q = cur[digit(g, x, sh, mask)]++;
            if (packed) {
                uint32_t val;
                memcpy(&val, vsrc + i * 4, 4);
                kput(kwant, 8, q, x << 32 | val);
            } else {
                kput(kwant, kb, q, x);
                if (vs)
                    memcpy(vwant + q * vs, vsrc + i * vs, vs);
            }
        }
        snprintf(where + strlen(where), sizeof where - strlen(where),
                 " [slice %zu: %zu..%zu]", t, slo, shi);
        same(packed ? "elements" : "keys", k[to], kwant, n, ke);
        if (ve)
            same("values", v[to], vwant, n, vs);
        for (i = 0; i < nb; i++)
            if (pos[i] != cur[i] || start[i] != st[i])
                bad("bucket %zu: cursors at %zu and %zu, not %zu and %zu", i,
                    pos[i], start[i], cur[i], st[i]);
        strrchr(where, '[')[-1] = '\0';
    }
    same("source keys", k[from], ksrc, n, kb);
    if (vs)
        same("source values", v[from], vsrc, n, vs);
    for (i = 0; i < 2; i++) {
        g_free(&K[i]);
        if (vs && (ve || (int)i == from))
            g_free(&V[i]);
    }
    g_free(&P);
    g_free(&S);
    g_free(&KL);
    if (ve)
        g_free(&VL);
    free(ksrc);
    free(vsrc);
    free(kwant);
    free(vwant);
    free(cur);
    free(st);
    n_cases++;
}

/* ---- leaf_hist and the packed hist -------------------------------------- */

/* Histograms of the np digits of w bits of image bits [lo, hi) of m keys
 * (or of the keys of m packed elements), np and w as lsd_leaf chooses them
 * for hi - lo bits. */
static void t_leaf_hist(const cfg *g, size_t m, unsigned lo, unsigned hi,
                        size_t koff, int packed, int dist, uint64_t *rng)
{
    size_t kb = g->kb, es = packed ? 8 : kb, i;
    unsigned nbits = hi - lo, np = (nbits + PS_LEAF_BITS - 1) / PS_LEAF_BITS;
    unsigned w = (nbits + np - 1) / np, j, mask = (1u << w) - 1;
    size_t nh = (size_t)np << w;
    uint64_t below = hi >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << hi) - 1, first;
    gbuf K, H;
    unsigned char *k = g_new(&K, packed ? "elements" : "keys", m * es, koff * es);
    unsigned char *keys = packed ? xmalloc(m * kb) : k, *kc;
    uint32_t *h, *want = xmalloc(nh * sizeof *want);
    ps_omp_ctx c;

    gen_keys(g, keys, m, dist, rng);
    if (packed)
        for (i = 0; i < m; i++)
            kput(k, 8, i, kget(keys, 4, i) << 32 | (t_rand(rng) & 0xffffffffu));
    kc = dup_bytes(k, m * es);
    memset(want, 0, nh * sizeof *want);
    for (i = 0; i < m; i++)
        for (j = 0; j < np; j++)
            want[((size_t)j << w)
                 + (((img(g, kget(keys, kb, i)) & below) >> (lo + j * w)) & mask)]++;
    h = (uint32_t *)(void *)g_new(&H, "histograms", nh * sizeof *h, 0);
    noise((unsigned char *)h, nh * sizeof *h, rng);
    ctx_init(&c, g, packed ? 4 : 0, m, NULL, NULL, NULL, NULL, 0);
    if (packed)
        first = g->kt->packed->hist(&c, (const uint64_t *)(const void *)k, m,
                                    lo, hi, w, np, h);
    else
        first = g->kt->leaf_hist(&c, k, m, lo, hi, w, np, h);
    for (i = 0; i < nh; i++)
        if (h[i] != want[i])
            bad("table %zu, digit %zu: count %u, not %u", i >> w, i & mask,
                h[i], want[i]);
    if (first != img(g, kget(keys, kb, 0)))
        bad("returned %#llx, not the image of the first key",
            (unsigned long long)first);
    same("keys", k, kc, m, es);
    g_free(&K);
    g_free(&H);
    if (packed)
        free(keys);
    free(kc);
    free(want);
    n_cases++;
}

/* ---- split, leaf_pass and the packed pass ------------------------------- */

/* One counting pass over m keys by digit (sh, mask): split (which counts
 * too), or leaf_pass / the packed pass with offsets given, buckets apart
 * by `gap` slots (net_leaf's slots of PS_NET_MAX when gap is -1) and the
 * first at `base`, the places between them left alone. */
static void t_pass(const cfg *g, size_t vs, size_t m, unsigned sh, unsigned b,
                   int kind, long gap, size_t base, const size_t koff[2],
                   const size_t voff[2], int dist, uint64_t *rng)
{
    enum { SPLIT, LEAF_PASS, PK_PASS };
    size_t kb = g->kb, es = kind == PK_PASS ? 8 : kb, nb = (size_t)1 << b;
    size_t i, nd, nv = kind == PK_PASS ? 0 : vs;
    unsigned mask = (unsigned)nb - 1;
    uint32_t big = 0, ret;
    size_t *cnt = xmalloc(nb * sizeof *cnt), *cur = xmalloc(nb * sizeof *cur);
    gbuf KS, KD, VS, VD, O;
    unsigned char *ks, *kd, *vsrc = NULL, *vdst = NULL, *keys, *kc, *vc = NULL;
    unsigned char *kwant, *vwant = NULL;
    uint32_t *off;
    ps_omp_ctx c;

    keys = xmalloc(m * kb);
    gen_keys(g, keys, m, dist, rng);
    memset(cnt, 0, nb * sizeof *cnt);
    for (i = 0; i < m; i++)
        cnt[digit(g, kget(keys, kb, i), sh, mask)]++;
    if (kind == SPLIT)
        gap = 0, base = 0;
    for (i = 0, nd = base; i < nb; i++) {
        cur[i] = gap < 0 ? base + i * PS_NET_MAX : nd;
        nd = gap < 0 ? cur[i] + PS_NET_MAX : nd + cnt[i] + (size_t)gap;
        if (gap < 0 && cnt[i] > PS_NET_MAX)
            t_fail("t_pass: a bucket overflows its slot");
        big |= (uint32_t)cnt[i];
    }
    ks = g_new(&KS, "source", m * es, koff[0] * es);
    if (kind == PK_PASS)
        for (i = 0; i < m; i++)
            kput(ks, 8, i, kget(keys, 4, i) << 32 | (t_rand(rng) & 0xffffffffu));
    else
        memcpy(ks, keys, m * kb);
    kd = g_new(&KD, "destination", nd * es, koff[1] * es);
    noise(kd, nd * es, rng);
    kc = dup_bytes(ks, m * es);
    kwant = dup_bytes(kd, nd * es);
    if (nv) {
        vsrc = g_new(&VS, "source values", m * vs, voff[0]);
        gen_values(vsrc, vs, m);
        vc = dup_bytes(vsrc, m * vs);
        vdst = g_new(&VD, "destination values", nd * vs, voff[1]);
        noise(vdst, nd * vs, rng);
        vwant = dup_bytes(vdst, nd * vs);
    }
    off = (uint32_t *)(void *)g_new(&O, "offsets", nb * sizeof *off, 0);
    noise((unsigned char *)off, nb * sizeof *off, rng);
    if (kind != SPLIT)
        for (i = 0; i < nb; i++)
            off[i] = (uint32_t)cur[i];
    for (i = 0; i < m; i++) {
        size_t q = cur[digit(g, kget(keys, kb, i), sh, mask)]++;
        memcpy(kwant + q * es, kc + i * es, es);
        if (nv)
            memcpy(vwant + q * vs, vc + i * vs, vs);
    }
    ctx_init(&c, g, nv ? vs : kind == PK_PASS ? 4 : 0, m, NULL, NULL, NULL,
             NULL, 0);
    /* The prefetches (npf of m) aim at the source and destination
     * themselves: any address would do, they never fault. */
    if (kind == SPLIT) {
        ret = g->kt->split(&c, ks, kd, vsrc, vdst, m, sh, mask, off);
        if (ret != big)
            bad("split returned %#x, not the OR of the counts %#x", ret, big);
    } else if (kind == LEAF_PASS) {
        g->kt->leaf_pass(&c, ks, kd, vsrc, vdst, m, sh, mask, off, ks, kd,
                         (size_t)(t_rand(rng) % 2) * m);
    } else {
        g->kt->packed->pass(&c, (const uint64_t *)(const void *)ks,
                            (uint64_t *)(void *)kd, m, sh, mask, off,
                            (const uint64_t *)(const void *)ks,
                            (size_t)(t_rand(rng) % 2) * m);
    }
    for (i = 0; i < nb; i++)
        if (off[i] != cur[i])
            bad("offset of bucket %zu left at %u, not at its end %zu", i,
                off[i], cur[i]);
    same("keys", kd, kwant, nd, es);
    same("source keys", ks, kc, m, es);
    if (nv) {
        same("values", vdst, vwant, nd, vs);
        same("source values", vsrc, vc, m, vs);
        g_free(&VS);
        g_free(&VD);
    }
    g_free(&KS);
    g_free(&KD);
    g_free(&O);
    free(keys);
    free(kc);
    free(vc);
    free(kwant);
    free(vwant);
    free(cnt);
    free(cur);
    n_cases++;
}

/* map_pass (a mapped network leaf's slot pass, keys alone) over m keys by
 * digit (sh, b bits): each digit refined by a random 0-3 of the bits below
 * it, empty digits given no bucket (as map_leaf does), every bucket a slot
 * of PS_NET_MAX from `base` on when they hold the keys, else buckets
 * packed. */
static void t_map(const cfg *g, size_t m, unsigned sh, unsigned b,
                  size_t base, int dist, uint64_t *rng)
{
    size_t kb = g->kb, nd = (size_t)1 << b, i, nb = 0, q;
    unsigned mask = (unsigned)nd - 1;
    size_t *cnt = xmalloc(nd * sizeof *cnt);
    uint32_t *map = xmalloc(nd * sizeof *map), *off, *cur;
    unsigned char *keys = xmalloc(m * kb), *ks, *kd, *kc, *kwant;
    size_t *bk = xmalloc((m + 1) * sizeof *bk), *bcnt, cap;
    gbuf KS, KD, O;
    ps_omp_ctx c;

    gen_keys(g, keys, m, dist, rng);
    memset(cnt, 0, nd * sizeof *cnt);
    for (i = 0; i < m; i++)
        cnt[digit(g, kget(keys, kb, i), sh, mask)]++;
    for (i = 0; i < nd; i++) {
        unsigned e = (unsigned)(t_rand(rng) % 4);
        if (e > sh)
            e = sh;
        map[i] = (uint32_t)(nb << 8) | (sh - e);
        nb += cnt[i] ? (size_t)1 << e : 0;
    }
    bcnt = xmalloc((nb + 1) * sizeof *bcnt);
    memset(bcnt, 0, (nb + 1) * sizeof *bcnt);
    for (i = 0; i < m; i++) {
        uint64_t x = img(g, kget(keys, kb, i));
        uint32_t t = map[(x >> sh) & mask];
        uint64_t low = sh == 64 ? x : x & (((uint64_t)1 << sh) - 1);
        bk[i] = (t >> 8) + (size_t)(low >> (t & 0xFFu));
        bcnt[bk[i]]++;
    }
    for (i = 0, cap = 0; i < nb; i++)
        cap = bcnt[i] > cap ? bcnt[i] : cap;
    cap = cap <= PS_NET_MAX ? PS_NET_MAX : 0;   /* 0: buckets packed */
    off = (uint32_t *)(void *)g_new(&O, "offsets", (nb + 1) * sizeof *off, 0);
    cur = xmalloc((nb + 1) * sizeof *cur);
    for (i = 0, q = base; i < nb; i++) {
        off[i] = cur[i] = (uint32_t)q;
        q += cap ? cap : bcnt[i];
    }
    ks = g_new(&KS, "source", m * kb, 0);
    memcpy(ks, keys, m * kb);
    kd = g_new(&KD, "destination", q * kb + 1, 0);
    noise(kd, q * kb, rng);
    kc = dup_bytes(ks, m * kb);
    kwant = dup_bytes(kd, q * kb);
    for (i = 0; i < m; i++)
        memcpy(kwant + (size_t)cur[bk[i]]++ * kb, kc + i * kb, kb);
    ctx_init(&c, g, 0, m, NULL, NULL, NULL, NULL, 0);
    g->kt->map_pass(&c, ks, kd, m, sh, mask, map, off);
    for (i = 0; i < nb; i++)
        if (off[i] != cur[i])
            bad("map_pass: offset of bucket %zu left at %u, not at its end %u",
                i, off[i], cur[i]);
    same("keys", kd, kwant, q, kb);
    same("source keys", ks, kc, m, kb);
    g_free(&KS);
    g_free(&KD);
    g_free(&O);
    free(cnt); free(map); free(keys); free(bk); free(bcnt); free(cur);
    free(kc); free(kwant);
    n_cases++;
}

/* ---- insert and bubble -------------------------------------------------- */

/* insert (values_null: with vs but no values, as a keys-only sort calls
 * it) or bubble over m keys, against the test's stable merge sort. */
static void t_sort(const cfg *g, size_t vs, size_t m, int bubble,
                   int values_null, size_t koff, size_t voff, int dist,
                   uint64_t *rng)
{
    size_t kb = g->kb, nv = values_null ? 0 : vs, offs[2] = { 0, m };
    gbuf K, V;
    unsigned char *k = g_new(&K, "keys", m * kb, koff * kb), *v = NULL;
    unsigned char *kc, *vc = NULL;
    ps_omp_ctx c;

    gen_keys(g, k, m, dist, rng);
    kc = dup_bytes(k, m * kb);
    if (nv) {
        v = g_new(&V, "values", m * vs, voff);
        gen_values(v, vs, m);
        vc = dup_bytes(v, m * vs);
    }
    if (bubble) {
        ctx_init(&c, g, nv, m, NULL, NULL, NULL, NULL, 0);
        g->kt->bubble(&c, k, v, m, kc, vc, (size_t)(t_rand(rng) % 2) * m);
    } else {
        g->kt->insert(k, v, vs, m, g->xf);
    }
    t_check_segments(where, kc, k, vc, v, nv, offs, 1, g->type, g->flags);
    g_free(&K);
    if (nv)
        g_free(&V);
    free(kc);
    free(vc);
    n_cases++;
}

/* ---- unpack ------------------------------------------------------------- */

static void t_unpack(size_t m, size_t eoff, size_t koff, size_t voff,
                     uint64_t *rng)
{
    gbuf E, K, V;
    uint64_t *e = (uint64_t *)(void *)g_new(&E, "elements", m * 8, eoff * 8);
    unsigned char *k = g_new(&K, "keys", m * 4, koff * 4);
    unsigned char *v = g_new(&V, "values", m * 4, voff), *ec;
    size_t i;
    for (i = 0; i < m; i++)
        e[i] = t_rand(rng);
    ec = dup_bytes(e, m * 8);
    ps_omp_kernels32.packed->unpack(k, v, e, m);
    for (i = 0; i < m; i++) {
        uint32_t key, val;
        memcpy(&key, k + 4 * i, 4);
        memcpy(&val, v + 4 * i, 4);
        if (key != (uint32_t)(e[i] >> 32) || val != (uint32_t)e[i])
            bad("element %zu of %zu unpacked wrong", i, m);
    }
    same("elements", (unsigned char *)e, ec, m, 8);
    g_free(&E);
    g_free(&K);
    g_free(&V);
    free(ec);
    n_cases++;
}

/* ---- the sorting networks ----------------------------------------------- */

#if defined(PS_HAVE_AVX512_TARGET)
/* Buckets of sizes[0, nb) in slots of PS_NET_MAX, the keys of a bucket
 * sharing their top bit (top 5 bits for packed pairs, whose values are
 * their places), sorted by g->kt's network for isa, or by the packed
 * network (pairs), into an output at element offset doff.  The slots past
 * each bucket hold noise that must not be read into the output. */
static void t_net(const cfg *g, int isa, int pairs, const uint32_t *sizes,
                  size_t nb, size_t doff, int dist, uint64_t *rng)
{
    size_t kb = g->kb, es = pairs ? 8 : kb, m = 0, d, i, at;
    uint64_t top = 8 * kb - (pairs ? 5 : 1);
    gbuf SL, EN, KD, VD;
    unsigned char *slots = g_new(&SL, "slots", nb * PS_NET_MAX * es, 0);
    unsigned char *keys, *vals = NULL, *kd, *vd = NULL, *sc;
    uint32_t *ends = (uint32_t *)(void *)g_new(&EN, "ends", nb * 4, 0), *ec;
    size_t *offs = xmalloc((nb + 1) * sizeof *offs);

    for (d = 0; d < nb; d++)
        m += sizes[d];
    keys = xmalloc(m * kb);
    vals = xmalloc(m * 4);
    noise(slots, nb * PS_NET_MAX * es, rng);
    gen_keys(g, keys, m, dist, rng);
    for (d = 0, at = 0; d < nb; d++) {
        /* The bucket's top bits: those of a random key. */
        uint64_t hi = t_rand(rng) >> top << top & width_mask(kb);
        offs[d] = at;
        for (i = 0; i < sizes[d]; i++, at++) {
            uint64_t x = (kget(keys, kb, at) & ~(~(uint64_t)0 >> top << top)) | hi;
            uint32_t val = (uint32_t)(at * 2654435761u);
            kput(keys, kb, at, x);
            memcpy(vals + 4 * at, &val, 4);
            kput(slots, es, d * PS_NET_MAX + i, pairs ? x << 32 | val : x);
        }
        ends[d] = (uint32_t)(d * PS_NET_MAX + sizes[d]);
    }
    offs[nb] = m;
    sc = dup_bytes(slots, nb * PS_NET_MAX * es);
    ec = dup_bytes(ends, nb * 4);
    kd = g_new(&KD, "output keys", m * kb, doff * kb);
    noise(kd, m * kb, rng);
    if (pairs) {
        vd = g_new(&VD, "output values", m * 4, (doff * 4 + 4 * (doff & 1)) & 255);
        noise(vd, m * 4, rng);
        g->kt->packed->net((const uint64_t *)(const void *)slots, kd, vd, ends,
                           nb, (uint32_t)m, g->xf);
    } else {
        g->kt->net(slots, kd, ends, nb, (uint32_t)m, g->xf, isa);
    }
    t_check_segments(where, keys, kd, pairs ? vals : NULL, vd, pairs ? 4 : 0,
                     offs, nb, g->type, g->flags);
    same("slots", slots, sc, nb * PS_NET_MAX, es);
    same("ends", (unsigned char *)ends, (unsigned char *)ec, nb, 4);
    g_free(&SL);
    g_free(&EN);
    g_free(&KD);
    if (pairs)
        g_free(&VD);
    free(keys);
    free(vals);
    free(sc);
    free(ec);
    free(offs);
    n_cases++;
}

static const char *const isa_names[] = { "none", "avx2", "avx512" };

/* Every bucket size, alone at every output offset of a unit, then in
 * rows ascending, descending and at random, for the networks of isa. */
static void nets_of(const cfg *g, int isa, int pairs, uint64_t *rng)
{
    uint32_t sizes[64];
    size_t s, d, doff, units = PS_UNIT_BYTES / g->kb;
    int dist;
    for (s = 0; s <= PS_NET_MAX; s++) {
        sizes[0] = (uint32_t)s;
        for (doff = 0; doff < units; doff++) {
            dist = (int)((s + doff) % 3);
            snprintf(where, sizeof where, "%s network (%s) %s%s: one bucket "
                     "of %zu, output at element %zu, keys %d",
                     pairs ? "pairs" : "keys", isa_names[isa], t_type_name(g->type),
                     g->flags ? " desc" : "", s, doff, dist);
            t_net(g, isa, pairs, sizes, 1, doff, dist, rng);
        }
    }
    for (dist = 0; dist < 3; dist++) {
        size_t nb;
        for (d = 0; d <= PS_NET_MAX; d++)
            sizes[d] = (uint32_t)d;
        snprintf(where, sizeof where, "%s network (%s) %s%s: sizes 0..32, "
                 "keys %d", pairs ? "pairs" : "keys", isa_names[isa],
                 t_type_name(g->type), g->flags ? " desc" : "", dist);
        t_net(g, isa, pairs, sizes, PS_NET_MAX + 1, (size_t)dist, dist, rng);
        for (d = 0; d <= PS_NET_MAX; d++)
            sizes[d] = (uint32_t)(PS_NET_MAX - d);
        snprintf(where, sizeof where, "%s network (%s) %s%s: sizes 32..0, "
                 "keys %d", pairs ? "pairs" : "keys", isa_names[isa],
                 t_type_name(g->type), g->flags ? " desc" : "", dist);
        t_net(g, isa, pairs, sizes, PS_NET_MAX + 1, (size_t)dist * 5, dist, rng);
        for (s = 0; s < 8; s++) {
            nb = 1 + t_rand(rng) % 64;
            for (d = 0; d < nb; d++)
                sizes[d] = (uint32_t)(t_rand(rng) % (PS_NET_MAX + 1));
            snprintf(where, sizeof where, "%s network (%s) %s%s: %zu random "
                     "buckets, keys %d", pairs ? "pairs" : "keys",
                     isa_names[isa], t_type_name(g->type),
                     g->flags ? " desc" : "", nb, dist);
            t_net(g, isa, pairs, sizes, nb, s, dist, rng);
        }
    }
}
#endif

/* ---- the sweeps --------------------------------------------------------- */

/* Sizes around the boundaries of the kernels: empty, one, two, the 16-byte
 * vectors of the survey, the 16-key digit blocks of the scatter, a
 * line of 64 bytes, PS_NET_MAX, a write-combining unit (`unit` elements),
 * and a few thousand. */
static size_t sizes_for(size_t unit, size_t kb, size_t *out)
{
    size_t n = 0, i;
    const size_t fixed[] = { 0, 1, 2, 3, 15, 16, 17, PS_NET_MAX - 1, PS_NET_MAX,
                             PS_NET_MAX + 1, 1000, 3001 };
    for (i = 0; i < sizeof fixed / sizeof *fixed; i++)
        out[n++] = fixed[i];
    out[n++] = 16 / kb + 1;
    out[n++] = 64 / kb - 1;
    out[n++] = unit - 1;
    out[n++] = unit;
    out[n++] = unit + 1;
    out[n++] = 2 * unit + 1;
    out[n++] = 3 * unit + 7;
    return n;
}

/* Digit widths and shifts to test at width `bits`: the top bit, the top
 * byte, PS_MSD_BITS at the top (or every bit), 4 bits at the bottom and 8
 * in the middle. */
static size_t digits_for(unsigned bits, unsigned maxb, unsigned *sh,
                         unsigned *b)
{
    size_t n = 0;
    unsigned w = bits < maxb ? bits : maxb;
    sh[n] = bits - 1, b[n++] = 1;
    sh[n] = bits - w, b[n++] = w;
    sh[n] = 0, b[n++] = 4;
    if (bits > 8)
        sh[n] = bits / 2 - 4, b[n++] = 8;
    return n;
}

/* The scatter, or (packed) the packed route's scatter of 4-byte pairs into
 * elements of 8 bytes. */
static void sweep_scatter(const cfg *g, size_t vs, int packed, uint64_t *rng)
{
    size_t kb = g->kb, es = packed ? 8 : vs > kb ? vs : kb, unit = PS_UNIT_BYTES / es;
    size_t sz[24], nsz = sizes_for(unit, kb, sz), s, j, o;
    size_t kplaces = PS_UNIT_BYTES / kb, dplaces = PS_UNIT_BYTES / (packed ? 8 : kb);
    unsigned sh[4], b[4], bits = (unsigned)(8 * kb);
    size_t nd = digits_for(bits, PS_MSD_BITS, sh, b);
    const char *name = packed ? "packed scatter" : "scatter";
    place pl;

    /* Every size and digit, the arrays at a few places. */
    for (s = 0; s < nsz; s++)
        for (j = 0; j < nd; j++) {
            uint64_t r = t_rand(rng);
            memset(&pl, 0, sizeof pl);
            pl.from = packed ? 0 : (int)(r & 1);
            pl.stream = (int)(r >> 1 & 1);
            pl.plain = (int)(r >> 48 & 1);
            pl.slices = 1 + (unsigned)(r >> 2) % 3;
            pl.ra = (r >> 4 & 1) ? 5 : 0;
            pl.koff[pl.from] = (r >> 8) % kplaces;
            pl.koff[1 - pl.from] = (r >> 16) % dplaces;
            pl.voff[0] = (r >> 24) % PS_UNIT_BYTES;
            pl.voff[1] = (r >> 32 & 1) ? (pl.koff[1] * vs) % PS_UNIT_BYTES
                                       : (r >> 40) % PS_UNIT_BYTES;
            snprintf(where, sizeof where, "%s %s%s vs %zu: %zu keys from "
                     "%zu of array %d, digit %u bits at %u, %u slices, keys "
                     "at +%zu/+%zu, values at +%zu/+%zu bytes, stream %d, plain %d",
                     name, t_type_name(g->type), g->flags ? " desc" : "", vs,
                     sz[s], pl.ra, pl.from, b[j], sh[j], pl.slices, pl.koff[0],
                     pl.koff[1], pl.voff[0], pl.voff[1], pl.stream, pl.plain);
            t_scatter(g, vs, sz[s], sh[j], b[j], &pl, packed, (int)(s + j) % 3,
                      rng);
        }
    /* Every place of the destination in a unit (values at the same place,
     * or a few bytes off), streaming: two buckets of about two units from
     * each of two slices (whole units streamed, partial ones shared with
     * the other slice), then a bucket or few of a unit from each of three
     * slices. */
    for (o = 0; o < dplaces; o++) {
        uint64_t r = t_rand(rng);
        memset(&pl, 0, sizeof pl);
        pl.from = packed ? 0 : (int)(o & 1);
        pl.stream = 1;
        pl.slices = 2;
        pl.ra = r % 7;
        pl.koff[pl.from] = (r >> 8) % kplaces;
        pl.koff[1 - pl.from] = o;
        pl.voff[pl.from] = (r >> 16) % PS_UNIT_BYTES;
        pl.voff[1 - pl.from] = (o * vs + ((o >> 1) & 1) * (r >> 24) % 16)
                               % PS_UNIT_BYTES;
        snprintf(where, sizeof where, "%s %s%s vs %zu: destination at "
                 "+%zu, values at +%zu bytes, from array %d, range at %zu",
                 name, t_type_name(g->type), g->flags ? " desc" : "", vs, o,
                 pl.voff[1 - pl.from], pl.from, pl.ra);
        t_scatter(g, vs, 8 * unit + 5, 0, 1, &pl, packed, D_RANDOM, rng);
        pl.slices = 3;
        t_scatter(g, vs, 3 * unit + 2 + o % 3, bits - 3, 3, &pl, packed,
                  D_NARROW, rng);
    }
}

static void sweep_unpack(uint64_t *rng)
{
    size_t sz[24], nsz = sizes_for(PS_UNIT_BYTES / 8, 4, sz), s;
    for (s = 0; s < nsz; s++) {
        snprintf(where, sizeof where, "unpack: %zu pairs", sz[s]);
        t_unpack(sz[s], s % 32, (s * 5) % 64, (s * 37) % PS_UNIT_BYTES, rng);
    }
}

/* Bit ranges [lo, hi) for the leaf histograms: widths of one to three
 * digits and more (64-bit keys: six), at the bottom, the top and between. */
static void sweep_leaf_hist(const cfg *g, int packed, uint64_t *rng)
{
    static const unsigned widths[] = { 1, 7, 12, 13, 24, 25, 36, 37, 50, 64 };
    unsigned bits = (unsigned)(8 * g->kb), i;
    size_t ms[] = { 1, 2, 3, 17, 300, 3001 }, j;
    for (i = 0; i < sizeof widths / sizeof *widths && widths[i] <= bits; i++)
        for (j = 0; j < sizeof ms / sizeof *ms; j++) {
            unsigned nbits = widths[i];
            unsigned lo = j % 3 == 0 ? 0 : j % 3 == 1 ? bits - nbits
                          : (unsigned)(t_rand(rng) % (bits - nbits + 1));
            snprintf(where, sizeof where, "%s %s%s: %zu keys, bits [%u, %u)",
                     packed ? "packed hist" : "leaf_hist", t_type_name(g->type),
                     g->flags ? " desc" : "", ms[j], lo, lo + nbits);
            t_leaf_hist(g, ms[j], lo, lo + nbits, j % 4, packed, (int)(i + j) % 3,
                        rng);
        }
}

static void sweep_passes(const cfg *g, size_t vs, uint64_t *rng)
{
    size_t kb = g->kb, unit = PS_UNIT_BYTES / (vs > kb ? vs : kb), sz[24];
    size_t nsz = sizes_for(unit, kb, sz), s, j;
    unsigned sh[4], b[4], bits = (unsigned)(8 * kb);
    size_t nd = digits_for(bits, PS_SPLIT_BITS, sh, b);
    int pk = kb == 4 && vs == 4;
    for (s = 0; s < nsz; s++)
        for (j = 0; j < nd; j++) {
            uint64_t r = t_rand(rng);
            size_t koff[2] = { r % 64 % (PS_UNIT_BYTES / kb),
                               (r >> 8) % 64 % (PS_UNIT_BYTES / kb) };
            size_t voff[2] = { (r >> 16) % PS_UNIT_BYTES, (r >> 24) % PS_UNIT_BYTES };
            int dist = (int)(s + j) % 3, kind;
            for (kind = 0; kind < 3 + pk; kind++) {
                /* leaf_pass: with gaps of 0-2 between the buckets, and as
                 * net_leaf calls it, into slots, when they hold the
                 * buckets; kind 3: the packed pass. */
                long gap = kind == 2 ? -1 : (long)(r >> 32) % 3;
                int k = kind == 0 ? 0 : kind == 3 ? 2 : 1;
                if (kind == 2 && (vs || sz[s] > PS_NET_MAX || b[j] > 8))
                    continue;
                snprintf(where, sizeof where, "%s %s%s vs %zu: %zu keys, digit "
                         "%u bits at %u, gap %ld, keys at +%zu/+%zu, values at "
                         "+%zu/+%zu bytes, keys %d",
                         k == 0 ? "split" : k == 1 ? "leaf_pass" : "packed pass",
                         t_type_name(g->type), g->flags ? " desc" : "",
                         k == 2 ? (size_t)0 : vs, sz[s], b[j], sh[j], gap,
                         koff[0], koff[1], voff[0], voff[1], dist);
                t_pass(g, vs, sz[s], sh[j], b[j], k, gap, (size_t)(r >> 40) % 5,
                       koff, voff, dist, rng);
            }
            if (vs == 0 && b[j] <= 10) {
                snprintf(where, sizeof where, "map_pass %s%s: %zu keys, digit "
                         "%u bits at %u, keys %d", t_type_name(g->type),
                         g->flags ? " desc" : "", sz[s], b[j], sh[j], dist);
                t_map(g, sz[s], sh[j], b[j], (size_t)(r >> 40) % 5, dist, rng);
            }
        }
}

static void sweep_sorts(const cfg *g, size_t vs, uint64_t *rng)
{
    static const size_t ms[] = { 0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 24, 25,
                                 31, 32, 33, 64, 65, 200, 700 };
    size_t i, kb = g->kb;
    int dist, bubble;
    for (i = 0; i < sizeof ms / sizeof *ms; i++)
        for (dist = 0; dist < D_NDIST; dist++)
            for (bubble = 0; bubble < 2; bubble++) {
                size_t koff = (i * 3 + (size_t)dist) % (PS_UNIT_BYTES / kb);
                size_t voff = (i * 11 + (size_t)dist * 7) % PS_UNIT_BYTES;
                int vnull = vs && !bubble && dist == D_FEW;
                if (bubble && ms[i] == 0)
                    continue;   /* bubble needs a key (split leaves have 2) */
                snprintf(where, sizeof where, "%s %s%s vs %zu%s: %zu keys at "
                         "+%zu, values at +%zu bytes, keys %d",
                         bubble ? "bubble" : "insert", t_type_name(g->type),
                         g->flags ? " desc" : "", vs,
                         vnull ? " (values NULL)" : "", ms[i], koff, voff, dist);
                t_sort(g, vs, ms[i], bubble, vnull, koff, voff, dist, rng);
            }
    /* A few thousand keys, nearly sorted, where the insertion sorts run
     * (leaves of one key a bucket). */
    for (bubble = 0; bubble < 2; bubble++) {
        snprintf(where, sizeof where, "%s %s%s vs %zu: 3001 keys nearly sorted",
                 bubble ? "bubble" : "insert", t_type_name(g->type),
                 g->flags ? " desc" : "", vs);
        t_sort(g, vs, 3001, bubble, 0, 1, 3, D_SORTED, rng);
    }
}

static void sweep_survey(const cfg *g, uint64_t *rng)
{
    size_t kb = g->kb, unit = PS_UNIT_BYTES / kb, sz[24];
    size_t nsz = sizes_for(unit, kb, sz), s, j;
    unsigned sh[4], b[4];
    size_t nd = digits_for((unsigned)(8 * kb), PS_MSD_BITS, sh, b);
    for (s = 0; s < nsz; s++)
        for (j = 0; j < nd; j++) {
            size_t a = (s + j) % 3 == 2 ? 7 : (s + j) % 3, koff = (s * 5 + j) % (16 / kb + 1);
            snprintf(where, sizeof where, "survey/hist %s%s: keys [%zu, %zu) at "
                     "+%zu, digit %u bits at %u", t_type_name(g->type),
                     g->flags ? " desc" : "", a, a + sz[s], koff, b[j], sh[j]);
            t_survey(g, a, sz[s], sh[j], b[j], koff, (int)(s + j) % 3, rng);
        }
}

/* The types and orders of each width: unsigned, signed, float where the
 * width has one, descending. */
static const struct { ps_type type; unsigned flags; } orders[][5] = {
    { { PS_U8, 0 }, { PS_I8, 0 }, { PS_U8, PS_DESCENDING },
      { PS_I8, PS_DESCENDING }, { PS_U8, 0 } },
    { { PS_U16, 0 }, { PS_I16, 0 }, { PS_F16, 0 }, { PS_BF16, PS_DESCENDING },
      { PS_U16, PS_DESCENDING } },
    { { PS_U32, 0 }, { PS_I32, 0 }, { PS_F32, 0 }, { PS_F32, PS_DESCENDING },
      { PS_I32, PS_DESCENDING } },
    { { PS_U64, 0 }, { PS_I64, 0 }, { PS_F64, 0 }, { PS_F64, PS_DESCENDING },
      { PS_U64, PS_DESCENDING } },
};

int main(void)
{
    static const ps_omp_kernels *const tables[] = {
        &ps_omp_kernels8, &ps_omp_kernels16, &ps_omp_kernels32, &ps_omp_kernels64
    };
    uint64_t rng = 0x6b65726e656c73ull;
    int isa = PS_NET_NONE, w, x, have_net[2] = { 0, 0 };
    size_t vs;

    g_pattern();
#if defined(PS_HAVE_AVX512_TARGET)
    isa = ps_omp_net_isa();
#else
    (void)isa;
#endif
    sweep_unpack(&rng);
    for (w = 0; w < 4; w++) {
        const ps_omp_kernels *kt = tables[w];
        size_t kb = (size_t)1 << w;
        int norders = w == 0 ? 4 : 5;
        snprintf(where, sizeof where, "ps_omp_kernels%u", 8u << w);
        /* The table's shape: its width, networks for 4- and 8-byte keys
         * in builds that have them, packed pairs for 4-byte keys. */
        if (kt->bits != 8 * kb || (kt->packed != NULL) != (kb == 4))
            bad("the table's width or packed entry is wrong");
#if defined(PS_HAVE_AVX512_TARGET)
        if ((kt->net != NULL) != (kb >= 4) || (kb == 4 && kt->packed->net == NULL))
            bad("the table's networks are missing or misplaced");
#else
        if (kt->net != NULL || (kb == 4 && kt->packed->net != NULL))
            bad("networks in a build without them");
#endif
        for (x = 0; x < norders; x++) {
            cfg g;
            g.kt = kt;
            g.kb = kb;
            g.type = orders[w][x].type;
            g.flags = orders[w][x].flags;
            g.xf = ps_xf_make(g.type, g.flags);
            if (ps_type_size(g.type) != kb)
                t_fail("test table: type %d is not %zu bytes", (int)g.type, kb);
            sweep_survey(&g, &rng);
            sweep_leaf_hist(&g, 0, &rng);
            for (vs = 0; vs <= 8; vs += 4) {
                sweep_scatter(&g, vs, 0, &rng);
                sweep_passes(&g, vs, &rng);
                sweep_sorts(&g, vs, &rng);
            }
            if (kb == 4) {
                sweep_scatter(&g, 4, 1, &rng);
                sweep_leaf_hist(&g, 1, &rng);
            }
#if defined(PS_HAVE_AVX512_TARGET)
            if (kb == 4 && isa >= PS_NET_AVX2) {
                nets_of(&g, PS_NET_AVX2, 0, &rng);
                have_net[0] = 1;
            }
            if (kb >= 4 && isa >= PS_NET_AVX512) {
                nets_of(&g, PS_NET_AVX512, 0, &rng);
                if (kb == 4)
                    nets_of(&g, PS_NET_AVX512, 1, &rng);
                have_net[1] = 1;
            }
#endif
        }
    }
    printf("ps_test_openmp_kernels: %lu cases passed; networks tested: "
           "avx2 %s, avx512 %s\n", n_cases,
           have_net[0] ? "yes" : "no (not on this CPU or build)",
           have_net[1] ? "yes" : "no (not on this CPU or build)");
    return 0;
}
