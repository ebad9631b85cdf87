/*
 * ps_topk.c - ps_topk and ps_topk_segments: the first k of the stable
 * sorted order without sorting the rest.
 *
 * Each segment is selected on the host, by one of five ways chosen by k
 * and its length (doc/topk.md has the figures behind the thresholds):
 * the best k kept sorted while reading (small k); a bound from column
 * minima (short segments); sampled bounds (long segments, small k); a
 * wide-digit histogram (long segments, large k); and underneath them all
 * a radix select on the order images (ps_keytype.h), which counts the
 * top 8 bits, keeps the keys below the k-th's digit, drops those above
 * it, and counts the next digit over the rest (the survivors) until every
 * survivor is in, or the last digit, where the first survivors by index
 * complete k.  The selected elements (the candidates) are then sorted by
 * the backend's segmented sort, a sort of k and not of n, packed into
 * 64-bit words when the keys and the indices fit.
 *
 * Ties: the candidates are appended group by group (those found below the
 * digit of one pass, then of the next, then the last survivors), each
 * group in index order, and two groups never hold equal images (they
 * differ in the digit that separated them).  So equal images are in index
 * order among the candidates, and a stable sort of them by image is the
 * stable sorted order of the whole: the first k of ps_argsort, bit for bit.
 * (The packed words carry the index, so their sort needs no stability.)
 *
 * Nothing is written to the caller's outputs before every allocation and
 * the sort have succeeded; the inputs are only read.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ps_internal.h"
#include "ps_topk_vec.h"

/* The survivors of a select: their indices and their images (kb bytes
 * each), so that the passes after the first read them in order instead of
 * gathering keys from all over the array.  Grown as a segment needs (the
 * first pass's count says how many), kept over the segments of one call. */
typedef struct topk_buf {
    size_t *idx;
    unsigned char *img;
    size_t cap;
    int sorted;     /* the last select wrote its candidates sorted */
} topk_buf;

static int buf_reserve(topk_buf *b, size_t need, size_t kb)
{
    size_t *idx;
    unsigned char *img;
    if (need <= b->cap)
        return PS_OK;
    /* need <= n, whose indices and keys topk_check made sure fit. */
    idx = ps_alloc(need * sizeof(size_t));
    img = ps_alloc(need * kb);
    if (idx == NULL || img == NULL) {
        ps_release(idx);
        ps_release(img);
        return PS_ERR_NO_MEMORY;
    }
    ps_release(b->idx);
    ps_release(b->img);
    b->idx = idx;
    b->img = img;
    b->cap = need;
    return PS_OK;
}

/* Word i of an array of kb-byte words, for a kb that is a constant
 * wherever this is inlined (select_w below). */
PS_FORCE_INLINE uint64_t word_at(const void *p, size_t i, unsigned kb)
{
    switch (kb) {
    case 1: return ((const uint8_t *)p)[i];
    case 2: return ((const uint16_t *)p)[i];
    case 4: return ((const uint32_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
    }
}

PS_FORCE_INLINE void word_put(void *p, size_t i, unsigned kb, uint64_t v)
{
    switch (kb) {
    case 1: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)p)[i] = (uint32_t)v; break;
    default: ((uint64_t *)p)[i] = v; break;
    }
}

PS_FORCE_INLINE uint64_t image_of(uint64_t k, unsigned kb, ps_xf xf)
{
    switch (kb) {
    case 1: return ps_enc8((uint8_t)k, xf);
    case 2: return ps_enc16((uint16_t)k, xf);
    case 4: return ps_enc32((uint32_t)k, xf);
    default: return ps_enc64(k, xf);
    }
}

/* Which digit holds the r-th smallest (1-based) of the counted elements:
 * *d, with *c elements, and *r becomes the rank within them.  Needs
 * 1 <= *r <= the total counted, so the loop stops inside the 256 bins. */
static void pick_digit(const size_t *hist, size_t *r, unsigned *d, size_t *c)
{
    size_t below = 0;
    unsigned i;
    for (i = 0; i < 255; i++) {
        if (*r - below <= hist[i])
            break;
        below += hist[i];
    }
    *d = i;
    *c = hist[i];
    *r -= below;
}

/* What a pass reads: the segment's keys a .. a + len - 1 (sv NULL), or
 * the first len survivors of sv, in index order. */
typedef struct topk_src {
    const void *keys;
    size_t a, len;
    const topk_buf *sv;
} topk_src;

PS_FORCE_INLINE uint64_t src_image(const topk_src *s, size_t j, unsigned kb,
                                   ps_xf xf, size_t *i)
{
    if (s->sv == NULL) {
        *i = s->a + j;
        return image_of(word_at(s->keys, s->a + j, kb), kb, xf);
    }
    *i = s->sv->idx[j];
    return word_at(s->sv->img, j, kb);
}

/* Candidates are staged on the stack and copied out this many at a time:
 * a key's side of the k-th is a coin toss for a large k, which a branch
 * per key would mispredict, and a store per key straight into cand could
 * run one past the segment's candidates into the next's, another job's. */
#define TOPK_STAGE 256u

/* Split the source by digit (image >> shift) & 255 against d: below it
 * the elements are candidates, above it dropped; equal to it they are
 * candidates too while `take` lasts, and after that survivors, written to
 * keep in order (keep may be the source itself: it is written behind
 * where it is read), or dropped when keep is NULL (the last split of a
 * select).  Candidates keep index order.  Returns the number of survivors
 * kept. */
PS_FORCE_INLINE size_t split(const topk_src *s, unsigned kb, ps_xf xf,
                             unsigned shift, unsigned d, size_t take,
                             size_t *cand, size_t *nc, topk_buf *keep)
{
    size_t j, kept = 0, c = *nc, stage[TOPK_STAGE], ns = 0;
    for (j = 0; j < s->len; j++) {
        size_t i;
        uint64_t img = src_image(s, j, kb, xf, &i);
        unsigned g = (unsigned)(img >> shift) & 255u;
        size_t eq = g == d, tk = eq & (take > 0);
        stage[ns] = i;
        ns += (g < d) | tk;
        take -= tk;
        if (eq && !tk && keep != NULL) {
            keep->idx[kept] = i;
            word_put(keep->img, kept++, kb, img);
        }
        if (ns == TOPK_STAGE) {
            memcpy(cand + c, stage, sizeof stage);
            c += ns;
            ns = 0;
        }
    }
    if (ns > 0)
        memcpy(cand + c, stage, ns * sizeof *stage);
    *nc = c + ns;
    return kept;
}

/* The histogram of digit (image >> shift) & 255; with var, also the bits
 * in which the images differ (their OR and AND, in the same read). */
PS_FORCE_INLINE void count(const topk_src *s, unsigned kb, ps_xf xf,
                           unsigned shift, size_t *hist, uint64_t *var)
{
    size_t j, i;
    uint64_t o = 0, a = ~(uint64_t)0;
    memset(hist, 0, 256 * sizeof *hist);
    for (j = 0; j < s->len; j++) {
        uint64_t img = src_image(s, j, kb, xf, &i);
        hist[(img >> shift) & 255u]++;
        if (var != NULL) {
            o |= img;
            a &= img;
        }
    }
    if (var != NULL)
        *var = o ^ a;
}

/* The first r (1 <= r <= surv->len) of the survivors in the stable order,
 * appended to cand at *nc: count the digit at `shift`, keep those with the
 * r-th one's digit, and so on down.  sv is surv's own buffer, which the
 * kept ones are written back into.  At most 8 * kb / 8 passes. */
PS_FORCE_INLINE void select_survivors(topk_src *surv, unsigned kb, ps_xf xf,
                                      unsigned shift, size_t r, size_t *cand,
                                      size_t *nc, topk_buf *sv)
{
    size_t hist[256], c;
    unsigned d;
    for (;;) {
        count(surv, kb, xf, shift, hist, NULL);
        pick_digit(hist, &r, &d, &c);
        /* Every one with digit d is in (r == c), or this is the last
         * digit: no survivors to keep. */
        if (r == c || shift == 0) {
            split(surv, kb, xf, shift, d, r, cand, nc, NULL);
            return;
        }
        /* When they all share this digit nothing drops: no split. */
        if (c != surv->len)
            surv->len = split(surv, kb, xf, shift, d, 0, cand, nc, sv);
        shift -= 8;
    }
}

/* Segments shorter than this are selected by the counting passes alone:
 * a sample of TOPK_SAMPLE keys would cost more than the pass it saves. */
#define TOPK_SAMPLE_MIN ((size_t)1 << 15)
#define TOPK_SAMPLE 1024u
/* Keys classified a block at a time: a block with no key at or below the
 * upper bound (most of them, for a small k) is skipped after one
 * comparison per key, which the compiler vectorises. */
#define TOPK_BLOCK 32u

/* The vector types of the macros below, for keys of type UT (ST the
 * signed type of its width): vu, vs and the lane type ut, 16 bytes a
 * vector, in the vector extension GCC and Clang share. */
#define TOPK_VEC_TYPES(UT, ST)                                               \
    typedef UT vu __attribute__((vector_size(16)));                          \
    typedef ST vs __attribute__((vector_size(16)));                          \
    typedef UT ut

/* The order images of a vector x of vu (lanes of ut; vs signed). */
#define TOPK_IMG(x)                                                          \
    ((x) ^ (ut)xf.flip ^ ((vu)((vs)(x) >> (8 * sizeof(ut) - 1)) & (ut)xf.fneg))

/* x = the images of the vector at src; any = whether a lane is <= T. */
#define TOPK_LOAD_LE(x, src, T, any)                                         \
    do {                                                                     \
        vs le_;                                                              \
        size_t l_;                                                           \
        memcpy(&(x), (src), 16);                                             \
        (x) = TOPK_IMG(x);                                                   \
        le_ = (vs)((x) <= (ut)(T));                                          \
        for (l_ = 0, (any) = 0; l_ < 16 / sizeof(ut); l_++)                  \
            (any) |= le_[l_];                                                \
    } while (0)

/* Whether any of the TOPK_BLOCK keys at p has an image <= hi: 16 bytes
 * of keys at a time, in the vector extension GCC and Clang share (the
 * OpenMP kernels use it too), as the library is built for the baseline
 * ISA, whose compilers at -O2 would not vectorise the plain loop. */
#define TOPK_ANY_LE(UT, ST)                                                  \
    do {                                                                     \
        TOPK_VEC_TYPES(UT, ST);                                              \
        vs acc = { 0 };                                                      \
        size_t v;                                                            \
        for (v = 0; v < TOPK_BLOCK * sizeof(ut) / 16; v++) {                 \
            vu x;                                                            \
            memcpy(&x, (const unsigned char *)p + 16 * v, 16);               \
            x = TOPK_IMG(x);                                                 \
            acc |= (vs)(x <= (ut)hi);                                        \
        }                                                                    \
        for (v = 1; v < 16 / sizeof(ut); v++)                                \
            acc[0] |= acc[v];                                                \
        return acc[0] != 0;                                                  \
    } while (0)

PS_FORCE_INLINE int block_any_le(const void *p, unsigned kb, ps_xf xf,
                                 uint64_t hi)
{
    switch (kb) {
    case 1: TOPK_ANY_LE(uint8_t, int8_t);
    case 2: TOPK_ANY_LE(uint16_t, int16_t);
    case 4: TOPK_ANY_LE(uint32_t, int32_t);
    default: TOPK_ANY_LE(uint64_t, int64_t);
    }
}

/* The r-th smallest (1-based, r <= n) of v[0 .. n - 1], images of kb
 * bytes: counting passes from the top digit, v compacted in place to
 * those with the r-th's digit after each. */
static uint64_t kth_image(uint64_t *v, size_t n, size_t r, unsigned kb)
{
    unsigned shift = 8u * kb - 8u, d;
    size_t hist[256], c, i, kept;
    for (;;) {
        memset(hist, 0, sizeof hist);
        for (i = 0; i < n; i++)
            hist[(v[i] >> shift) & 255u]++;
        pick_digit(hist, &r, &d, &c);
        if (c == 1 || shift == 0)
            break;
        if (c != n) {
            for (i = 0, kept = 0; i < n; i++) {
                v[kept] = v[i];
                kept += ((v[i] >> shift) & 255u) == d;
            }
            n = kept;
        }
        shift -= 8;
    }
    for (i = 0; ((v[i] >> shift) & 255u) != d; i++)
        ;
    return v[i];
}

/* Bounds lo <= hi of the images between which the m-th smallest very
 * probably lies, from a sample of S images spread over the segment (one
 * a stratum, at a jittered place in it, so that sorted and periodic
 * inputs are sampled as well as random ones).  lo = 0 when the m-th may
 * be among the smallest of the sample.  The sample's rank of the m-th is
 * binomial, mean m S / len: the bounds are 3 standard deviations and 2
 * ranks either side.  Returns 0 when the bounds would hold more than an
 * eighth of the keys, or none above (then the counting passes are as
 * good), or the sample cannot be allocated.  *cap: room for the keys
 * between them (twice the expected).
 *
 * S is TOPK_SAMPLE, or TOPK_SAMPLE_BIG from TOPK_SAMPLE_BIG_MIN keys: at
 * k = 100 in 2^24 keys, 1024 put hi near the 6th of 1024 (0.6 % of the
 * keys, 1000 times k, a key at or below it in 17 % of the 32-key blocks,
 * which the scan cannot skip); 16384 put it near 0.04 %. */
#define TOPK_SAMPLE_BIG 16384u
#define TOPK_SAMPLE_BIG_MIN ((size_t)1 << 21)

static int sample_bounds(const topk_src *w, unsigned kb, ps_xf xf, size_t m,
                         uint64_t *lo, uint64_t *hi, size_t *cap)
{
    size_t S = w->len >= TOPK_SAMPLE_BIG_MIN ? TOPK_SAMPLE_BIG : TOPK_SAMPLE;
    uint64_t *img, *copy, h = 0x9e3779b97f4a7c15u;
    size_t stride = w->len / S, j, i;
    double p = (double)m / (double)w->len, q = p * (double)S, a, b;
    double var = (double)S * p * (1.0 - p), sd = 0;
    size_t ra, rb;

    while (sd * sd < var)       /* <= 64 steps: var <= S / 4 */
        sd += 1;
    a = q - 3 * sd - 2;
    b = q + 3 * sd + 2;

    /* hi is the sample's image at rank b + 1, which must be in it. */
    if (b + 1 >= (double)S || b - (a > 0 ? a : 0) > (double)(S / 8))
        return 0;
    img = ps_alloc(2 * S * sizeof *img);
    if (img == NULL)
        return 0;
    copy = img + S;
    for (j = 0; j < S; j++) {
        h += 0x9e3779b97f4a7c15u;
        img[j] = src_image(w, j * stride + (size_t)((h >> 33) % stride), kb,
                           xf, &i);
    }
    memcpy(copy, img, S * sizeof *img);
    ra = a > 0 ? (size_t)a : 0;
    rb = (size_t)b + 1;
    /* The image at rank r of the sample sorted is its (r + 1)-th smallest;
     * kth_image reorders what it reads, hence the copy. */
    *lo = ra > 0 ? kth_image(copy, S, ra + 1, kb) : 0;
    *hi = kth_image(img, S, rb + 1, kb);
    ps_release(img);
    *cap = 2 * ((rb - ra + 1) * stride + 1024);
    if (*cap > w->len)
        *cap = w->len;
    return 1;
}

/* Indices (and, for survivors, images) that one chunk of the sampled
 * select collects, in index order; grown by doubling. */
typedef struct topk_list {
    size_t *idx;
    unsigned char *img;         /* NULL for the keys below the bounds */
    size_t n, cap;
} topk_list;

static int list_grow(topk_list *l, unsigned kb, int with_img)
{
    size_t cap = l->cap ? 2 * l->cap : 1024;
    size_t *idx = ps_alloc(cap * sizeof *idx);
    unsigned char *img = with_img ? ps_alloc(cap * kb) : NULL;
    if (idx == NULL || (with_img && img == NULL)) {
        ps_release(idx);
        ps_release(img);
        return -1;
    }
    if (l->n > 0) {
        memcpy(idx, l->idx, l->n * sizeof *idx);
        if (with_img)
            memcpy(img, l->img, l->n * kb);
    }
    ps_release(l->idx);
    ps_release(l->img);
    l->idx = idx;
    l->img = img;
    l->cap = cap;
    return 0;
}

static void list_free(topk_list *l)
{
    ps_release(l->idx);
    ps_release(l->img);
    memset(l, 0, sizeof *l);
}

/* One pass of the sampled select over keys j0 .. j1 - 1 of w: those below
 * lo into `below`, those in [lo, hi] into `mid` with their images.
 * Returns PS_OK, 1 when more than m are below or more than cap in the
 * middle (the bounds missed: no need to read on), or PS_ERR_NO_MEMORY. */
typedef struct topk_chunk {
    size_t j0, j1;
    topk_list below, mid;
    int st;
} topk_chunk;

PS_FORCE_INLINE int scan_w(const topk_src *w, size_t j0, size_t j1,
                           unsigned kb, ps_xf xf, uint64_t lo, uint64_t hi,
                           size_t m, size_t cap, topk_list *below,
                           topk_list *mid, size_t *tot)
{
    size_t j, t, i;
    for (j = j0; j < j1; j += TOPK_BLOCK) {
        size_t end = j1 - j < TOPK_BLOCK ? j1 : j + TOPK_BLOCK, nb, nm;
        if (end - j == TOPK_BLOCK &&
            !block_any_le((const unsigned char *)w->keys + (w->a + j) * kb, kb,
                          xf, hi))
            continue;
        /* Room for the whole block in both lists, then no branch per key:
         * with a large k a key's side is a coin toss, which a branch
         * would mispredict. */
        while (below->cap - below->n < TOPK_BLOCK)
            if (list_grow(below, kb, 0) != 0)
                return PS_ERR_NO_MEMORY;
        while (mid->cap - mid->n < TOPK_BLOCK)
            if (list_grow(mid, kb, 1) != 0)
                return PS_ERR_NO_MEMORY;
        nb = below->n;
        nm = mid->n;
        for (t = j; t < end; t++) {
            uint64_t img = src_image(w, t, kb, xf, &i);
            below->idx[nb] = i;
            nb += img < lo;
            mid->idx[nm] = i;
            word_put(mid->img, nm, kb, img);
            nm += img >= lo && img <= hi;
        }
        /* The bounds missed when all chunks together pass m or cap, not
         * only this one: on ties (a band of one value) every chunk would
         * otherwise collect up to cap keys before it stopped (1M equal u32
         * keys, k = 100: 16 chunks' lists, 9.7 ms against 0.3 for their
         * sort). */
        if (nb > below->n &&
            __atomic_add_fetch(&tot[0], nb - below->n, __ATOMIC_RELAXED) > m)
            return 1;
        if (nm > mid->n &&
            __atomic_add_fetch(&tot[1], nm - mid->n, __ATOMIC_RELAXED) > cap)
            return 1;
        below->n = nb;
        mid->n = nm;
    }
    return PS_OK;
}

/* The chunks of one sampled select, as run_jobs hands them out. */
typedef struct topk_scan {
    const topk_src *w;
    unsigned kb;
    ps_xf xf;
    uint64_t lo, hi;
    size_t m, cap;
    topk_chunk *chunk;
    size_t tot[2];              /* below and in the band, all chunks */
} topk_scan;

static void scan_job(void *ctx, size_t i)
{
    topk_scan *sc = ctx;
    topk_chunk *c = &sc->chunk[i];
    switch (sc->kb) {
    case 2:
        c->st = scan_w(sc->w, c->j0, c->j1, 2, sc->xf, sc->lo, sc->hi, sc->m,
                       sc->cap, &c->below, &c->mid, sc->tot);
        break;
    case 4:
        c->st = scan_w(sc->w, c->j0, c->j1, 4, sc->xf, sc->lo, sc->hi, sc->m,
                       sc->cap, &c->below, &c->mid, sc->tot);
        break;
    default:
        c->st = scan_w(sc->w, c->j0, c->j1, 8, sc->xf, sc->lo, sc->hi, sc->m,
                       sc->cap, &c->below, &c->mid, sc->tot);
        break;
    }
}

/* How the select runs its chunks: a backend's run_jobs (its CPU threads),
 * or NULL for the calling thread alone. */
typedef struct topk_runner {
    const ps_backend_ops *ops;
    void *state;
} topk_runner;

/* Segments at least this long are scanned in TOPK_CHUNKS chunks on the
 * runner's threads: shorter ones take a few hundred microseconds on one. */
#define TOPK_PAR_MIN ((size_t)1 << 18)
#define TOPK_CHUNKS 16u

static void run_jobs(const topk_runner *run, size_t jobs,
                     void (*job)(void *ctx, size_t i), void *ctx)
{
    size_t i;
    if (run != NULL && run->ops != NULL && run->ops->run_jobs != NULL) {
        run->ops->run_jobs(run->state, jobs, job, ctx);
        return;
    }
    for (i = 0; i < jobs; i++)
        job(ctx, i);
}

/* The sampled select: one pass over the segment (in chunks, on the
 * runner's threads when it is long) collects the keys below lo, which are
 * all in, and those in [lo, hi] as survivors; then select_survivors
 * finishes among those.  Returns 1 when done, 0 when the bounds missed
 * (more than m keys below lo, more than the room between them, or fewer
 * than m at or below hi), cand then to be filled again from its start;
 * -1 when memory ran out. */
static int select_sampled(const topk_src *w, size_t m, unsigned kb, ps_xf xf,
                          size_t *cand, topk_buf *sv, const topk_runner *run)
{
    topk_chunk chunk[TOPK_CHUNKS];
    topk_scan sc = { w, kb, xf, 0, 0, m, 0, chunk, { 0, 0 } };
    size_t jobs = run != NULL && w->len >= TOPK_PAR_MIN ? TOPK_CHUNKS : 1;
    size_t nc = 0, kept = 0, c;
    topk_src surv = { NULL, 0, 0, sv };
    int got = 1;

    if (!sample_bounds(w, kb, xf, m, &sc.lo, &sc.hi, &sc.cap))
        return 0;
    memset(chunk, 0, sizeof chunk);
    for (c = 0; c < jobs; c++) {
        chunk[c].j0 = w->len / jobs * c;
        chunk[c].j1 = c + 1 == jobs ? w->len : w->len / jobs * (c + 1);
    }
    run_jobs(run, jobs, scan_job, &sc);
    for (c = 0; c < jobs; c++) {
        if (chunk[c].st == PS_ERR_NO_MEMORY)
            got = -1;
        else if (chunk[c].st != PS_OK && got == 1)
            got = 0;
        nc += chunk[c].below.n;
        kept += chunk[c].mid.n;
    }
    if (got == 1 && (nc > m || kept > sc.cap || nc + kept < m))
        got = 0;
    if (got == 1 && buf_reserve(sv, kept, kb) != PS_OK)
        got = -1;
    if (got == 1) {
        /* Chunk by chunk: index order, as the groups need. */
        size_t at = 0;
        nc = 0;
        /* An empty list has no buffer: memcpy must not see its NULL. */
        for (c = 0; c < jobs; c++) {
            if (chunk[c].below.n > 0)
                memcpy(cand + nc, chunk[c].below.idx,
                       chunk[c].below.n * sizeof *cand);
            nc += chunk[c].below.n;
            if (chunk[c].mid.n > 0) {
                memcpy(sv->idx + at, chunk[c].mid.idx,
                       chunk[c].mid.n * sizeof *sv->idx);
                memcpy(sv->img + at * kb, chunk[c].mid.img, chunk[c].mid.n * kb);
            }
            at += chunk[c].mid.n;
        }
        if (nc + kept == m) {   /* every survivor is in */
            if (kept > 0)
                memcpy(cand + nc, sv->idx, kept * sizeof *cand);
            nc = m;
        } else if (nc < m) {
            surv.len = kept;
            select_survivors(&surv, kb, xf, 8u * kb - 8u, m - nc, cand, &nc,
                             sv);
        }
        PS_DEBUG_ASSERT(nc == m);
    }
    for (c = 0; c < jobs; c++) {
        list_free(&chunk[c].below);
        list_free(&chunk[c].mid);
    }
    return got;
}

/* ---- large k in long segments: one wide digit counted ----------------
 *
 * When a 64th or more of a long segment is in, the sampled bounds hold a
 * band of 1-5 % of the keys, each kept with its image, and no block is
 * skipped.  Instead the top TOPK_HB bits of every image are
 * counted (in chunks on the runner's threads, a histogram each), which
 * fixes the digit d of the m-th: a second pass writes the keys below d
 * straight to the candidates and keeps those with digit d (about n / 2048
 * of random keys) as survivors, each chunk at the place its counts give,
 * so the candidates stay in index order without lists to merge.  When
 * digit d holds too many (keys alike in their top bits), the sampled
 * select runs instead. */
#define TOPK_HB 11u
#define TOPK_HBINS (1u << TOPK_HB)
/* The histogram select from a 64th of the keys in (below that the sampled
 * bounds skip enough blocks to win: on Zen 5, 2^24 u32 keys, k = 10^5
 * 9.6 ms against 11.4, 2 x 10^5 14.9 against 14.3, 10^6 28.8 against
 * 19.5). */
#define TOPK_HIST_FROM 64u

typedef struct topk_hist {
    const topk_src *w;
    unsigned kb, shift, d;      /* d: the k-th's digit, TOPK_HBINS before */
    ps_xf xf;
    size_t *hist;               /* TOPK_CHUNKS x TOPK_HBINS; a chunk may
                                 * pass 2^32 keys */
    size_t jobs;
    size_t *cand, *below_at, *mid_at;
    topk_buf *sv;
} topk_hist;

PS_FORCE_INLINE void chunk_of(const topk_hist *h, size_t c, size_t *j0,
                              size_t *j1)
{
    *j0 = h->w->len / h->jobs * c;
    *j1 = c + 1 == h->jobs ? h->w->len : h->w->len / h->jobs * (c + 1);
}

PS_FORCE_INLINE void hist_count_w(const topk_hist *h, size_t c, unsigned kb)
{
    size_t *H = h->hist + c * TOPK_HBINS;
    size_t j, j0, j1, i;
    chunk_of(h, c, &j0, &j1);
    memset(H, 0, TOPK_HBINS * sizeof *H);
    for (j = j0; j < j1; j++)
        H[src_image(h->w, j, kb, h->xf, &i) >> h->shift]++;
}

PS_FORCE_INLINE void hist_split_w(const topk_hist *h, size_t c, unsigned kb)
{
    size_t stage[TOPK_STAGE + TOPK_BLOCK], ns = 0, j, t, i, j0, j1;
    size_t *out = h->cand + h->below_at[c], mid = h->mid_at[c];
    uint64_t hi = ((uint64_t)h->d + 1) << h->shift;
    const unsigned char *base = (const unsigned char *)h->w->keys
                                + h->w->a * kb;
    chunk_of(h, c, &j0, &j1);
    for (j = j0; j < j1; j += TOPK_BLOCK) {
        size_t end = j1 - j < TOPK_BLOCK ? j1 : j + TOPK_BLOCK;
        if (end - j == TOPK_BLOCK &&
            !block_any_le(base + j * kb, kb, h->xf, hi - 1))
            continue;
        for (t = j; t < end; t++) {
            uint64_t img = src_image(h->w, t, kb, h->xf, &i);
            unsigned g = (unsigned)(img >> h->shift);
            stage[ns] = i;
            ns += g < h->d;
            if (g == h->d) {
                h->sv->idx[mid] = i;
                word_put(h->sv->img, mid++, kb, img);
            }
        }
        if (ns >= TOPK_STAGE) {
            memcpy(out, stage, ns * sizeof *out);
            out += ns;
            ns = 0;
        }
    }
    if (ns > 0)
        memcpy(out, stage, ns * sizeof *out);
}

/* Chunk c's count (h->d == TOPK_HBINS: no digit picked yet) or split. */
PS_FORCE_INLINE void hist_pass_w(const topk_hist *h, size_t c, unsigned kb)
{
    if (h->d == TOPK_HBINS)
        hist_count_w(h, c, kb);
    else
        hist_split_w(h, c, kb);
}

static void hist_job(void *ctx, size_t c)
{
    const topk_hist *h = ctx;
    switch (h->kb) {
    case 2: hist_pass_w(h, c, 2); break;
    case 4: hist_pass_w(h, c, 4); break;
    default: hist_pass_w(h, c, 8); break;
    }
}

/* The select above for the m-th of w (kb of 2 to 8 bytes, a long
 * segment).  Returns 1 when done, 0 when digit d holds more than an
 * eighth of the keys (cand then to be filled again), -1 when memory ran
 * out. */
static int select_hist(const topk_src *w, size_t m, unsigned kb, ps_xf xf,
                       size_t *cand, topk_buf *sv, const topk_runner *run)
{
    size_t below_at[TOPK_CHUNKS], mid_at[TOPK_CHUNKS], tot[TOPK_HBINS];
    size_t c, b, r = m, below = 0, nc;
    topk_hist h = { w, kb, 8u * kb - TOPK_HB, TOPK_HBINS, xf, NULL, 1, cand,
                    below_at, mid_at, sv };
    topk_src surv = { NULL, 0, 0, sv };

    if (run != NULL && w->len >= TOPK_PAR_MIN)
        h.jobs = TOPK_CHUNKS;
    h.hist = ps_alloc(h.jobs * TOPK_HBINS * sizeof *h.hist);
    if (h.hist == NULL)
        return -1;
    run_jobs(run, h.jobs, hist_job, &h);
    for (b = 0; b < TOPK_HBINS; b++)
        for (tot[b] = 0, c = 0; c < h.jobs; c++)
            tot[b] += h.hist[c * TOPK_HBINS + b];
    for (b = 0; r > tot[b]; b++) {      /* 1 <= r <= len: stops in range */
        r -= tot[b];
        below += tot[b];
    }
    h.d = (unsigned)b;
    if (tot[b] > w->len / 8) {
        ps_release(h.hist);
        return 0;
    }
    if (buf_reserve(sv, tot[b], kb) != PS_OK) {
        ps_release(h.hist);
        return -1;
    }
    /* Chunk c's keys below d go after the earlier chunks', and so do its
     * survivors. */
    below_at[0] = mid_at[0] = 0;
    for (c = 1; c < h.jobs; c++) {
        size_t lo = 0;
        const size_t *H = h.hist + (c - 1) * TOPK_HBINS;
        for (b = 0; b < h.d; b++)
            lo += H[b];
        below_at[c] = below_at[c - 1] + lo;
        mid_at[c] = mid_at[c - 1] + H[h.d];
    }
    run_jobs(run, h.jobs, hist_job, &h);
    ps_release(h.hist);
    nc = below;
    surv.len = tot[h.d];
    if (r == surv.len) {        /* every survivor is in */
        memcpy(cand + nc, sv->idx, r * sizeof *cand);
        nc += r;
    } else {
        select_survivors(&surv, kb, xf, 8u * kb - 8u, r, cand, &nc, sv);
    }
    PS_DEBUG_ASSERT(nc == m);
    return 1;
}

/* ---- small k: the best k kept sorted while reading -------------------
 *
 * For k up to TOPK_INSERT_MAX a segment is read once, keeping its best k
 * so far in sorted order (images and indices): a key enters only when its
 * image is below the k-th's (an equal one comes later in index order, so
 * it loses the tie), and is inserted after every kept image not above it,
 * which keeps equal ones in index order.  Once k are kept, a block of keys
 * none of which is below the k-th is skipped after one vector compare, so
 * the read runs at the speed of memory for random data; the worst case,
 * keys arriving best first (reversed for k smallest), costs k moves a key.
 * The results come out sorted: no candidates' sort follows. */
#define TOPK_INSERT_MAX 32u
/* In segments shorter than TOPK_SAMPLE_MIN, for k from TOPK_BOUND_MAX + 1
 * on and below one key in TOPK_BEST_RATIO, the inserts cost more than
 * the column bound and a sort of the candidates (Zen 5, u32, ms for 10^8
 * keys: segments of 1000, k = 4 33 against 41, k = 5 43 against 42,
 * k = 16 84 against 59; of 10000, k = 16 26 against 30, k = 32 38
 * against 34; of 30000, k = 32 24 against 28). */
#define TOPK_BOUND_MAX 4u
#define TOPK_BEST_RATIO 320u

typedef struct topk_best {
    uint64_t img[TOPK_INSERT_MAX];
    size_t idx[TOPK_INSERT_MAX];
    size_t n;
} topk_best;

PS_FORCE_INLINE void best_offer(topk_best *b, size_t k, uint64_t img, size_t i)
{
    size_t p = b->n;
    if (p == k) {
        if (img >= b->img[k - 1])
            return;
        p = k - 1;
    } else {
        b->n++;
    }
    while (p > 0 && b->img[p - 1] > img) {
        b->img[p] = b->img[p - 1];
        b->idx[p] = b->idx[p - 1];
        p--;
    }
    b->img[p] = img;
    b->idx[p] = i;
}

/* Offer keys j0 .. j1 - 1 of the segment at w to b. */
PS_FORCE_INLINE void best_scan_w(const topk_src *w, size_t j0, size_t j1,
                                 size_t k, unsigned kb, ps_xf xf, topk_best *b)
{
    size_t j, t, i;
    for (j = j0; j < j1; j += TOPK_BLOCK) {
        size_t end = j1 - j < TOPK_BLOCK ? j1 : j + TOPK_BLOCK;
        if (b->n == k && end - j == TOPK_BLOCK &&
            (b->img[k - 1] == 0 ||
             !block_any_le((const unsigned char *)w->keys + (w->a + j) * kb,
                           kb, xf, b->img[k - 1] - 1)))
            continue;
        for (t = j; t < end; t++) {
            uint64_t img = src_image(w, t, kb, xf, &i);
            best_offer(b, k, img, i);
        }
    }
}

static void best_scan(const topk_src *w, size_t j0, size_t j1, size_t k,
                      unsigned kb, ps_xf xf, topk_best *b)
{
    switch (kb) {
    case 1: best_scan_w(w, j0, j1, k, 1, xf, b); break;
    case 2: best_scan_w(w, j0, j1, k, 2, xf, b); break;
    case 4: best_scan_w(w, j0, j1, k, 4, xf, b); break;
    default: best_scan_w(w, j0, j1, k, 8, xf, b); break;
    }
}

/* ---- small k in short segments: a bound from block minima ------------
 *
 * In a short segment the best-k threshold above stays weak for most of
 * it (after j keys about k / j of them pass it), so most keys would be
 * offered one by one and many inserted, k moves each.  Instead a first
 * pass takes the minimum image of each block of TOPK_MB keys (vector
 * compares), and the k-th smallest of those minima, T, bounds the k-th
 * key: k blocks hold a key at or below it.  A second pass reads only the
 * blocks whose minimum is at or below T, and offers their keys at or
 * below T (found without a branch per key); for random keys there are
 * about k of them in about k blocks.  The offers keep index order, so
 * ties still go to the lower index.  Segments of up to TOPK_SAMPLE_MIN
 * keys, so that the minima fit in an array on the stack. */
#define TOPK_MB 16u
#define TOPK_MIN_BLOCKS (TOPK_SAMPLE_MIN / TOPK_MB)

#define TOPK_MIN(UT, ST)                                                     \
    do {                                                                     \
        TOPK_VEC_TYPES(UT, ST);                                              \
        vu acc, x, lt;                                                       \
        UT lo;                                                               \
        size_t v;                                                            \
        memcpy(&acc, p, 16);                                                 \
        acc = TOPK_IMG(acc);                                                 \
        _Pragma("GCC unroll 16")                                             \
        for (v = 1; v < TOPK_MB * sizeof(UT) / 16; v++) {                 \
            memcpy(&x, (const unsigned char *)p + 16 * v, 16);               \
            x = TOPK_IMG(x);                                                 \
            lt = (vu)(x < acc);                                              \
            acc = (x & lt) | (acc & ~lt);                                    \
        }                                                                    \
        lo = acc[0];                                                         \
        for (v = 1; v < 16 / sizeof(UT); v++)                                \
            lo = acc[v] < lo ? acc[v] : lo;                                  \
        return lo;                                                           \
    } while (0)

/* The smallest image of the TOPK_MB keys at p. */
PS_FORCE_INLINE uint64_t block_min(const void *p, unsigned kb, ps_xf xf)
{
    switch (kb) {
    case 1: TOPK_MIN(uint8_t, int8_t);
    case 2: TOPK_MIN(uint16_t, int16_t);
    case 4: TOPK_MIN(uint32_t, int32_t);
    default: TOPK_MIN(uint64_t, int64_t);
    }
}

/* Offer to b (best m kept) the keys of the TOPK_MB at p, the first of
 * which has index i0, whose images are at or below T: a vector compare
 * says which 16 bytes hold one, and only their lanes are looked at. */
#define TOPK_OFFER_LE(UT, ST)                                                \
    do {                                                                     \
        TOPK_VEC_TYPES(UT, ST);                                              \
        const size_t lanes = 16 / sizeof(ut);                                \
        size_t v, l;                                                         \
        for (v = 0; v < TOPK_MB / lanes; v++) {                           \
            vu x;                                                            \
            ST any;                                                          \
            TOPK_LOAD_LE(x, (const unsigned char *)p + 16 * v, T, any);      \
            if (any == 0)                                                    \
                continue;                                                    \
            for (l = 0; l < lanes; l++)                                      \
                if (x[l] <= T)                                               \
                    best_offer(b, m, x[l], i0 + v * lanes + l);              \
        }                                                                    \
    } while (0)

PS_FORCE_INLINE void block_offer_le(const void *p, unsigned kb, ps_xf xf,
                                    uint64_t T, size_t i0, topk_best *b,
                                    size_t m)
{
    switch (kb) {
    case 1: TOPK_OFFER_LE(uint8_t, int8_t); break;
    case 2: TOPK_OFFER_LE(uint16_t, int16_t); break;
    case 4: TOPK_OFFER_LE(uint32_t, int32_t); break;
    default: TOPK_OFFER_LE(uint64_t, int64_t); break;
    }
}

/* The best m of the segment at w into b, by the bound above; needs
 * m * TOPK_MB <= w->len < TOPK_SAMPLE_MIN: m blocks, and their minima
 * fit in mins. */
PS_FORCE_INLINE void bound_scan_w(const topk_src *w, size_t m, unsigned kb,
                                  ps_xf xf, topk_best *b)
{
    const unsigned char *base = (const unsigned char *)w->keys + w->a * kb;
    size_t len = w->len, nb = len / TOPK_MB, j, t;
    uint64_t T, mins[TOPK_MIN_BLOCKS];

    /* The minima first, then the offers: the blocks' vector work then
     * overlaps, where an offer's mispredicted branch between two blocks
     * would make each wait for the one before. */
    for (j = 0; j < nb; j++)
        mins[j] = block_min(base + j * TOPK_MB * kb, kb, xf);
    b->n = 0;
    for (j = 0; j < nb; j++)
        best_offer(b, m, mins[j], j);
    /* b->n == m: there are m blocks. */
    T = b->n == m ? b->img[m - 1] : UINT64_MAX;
    b->n = 0;
    for (j = 0; j < nb; j++)
        if (mins[j] <= T)
            block_offer_le(base + j * TOPK_MB * kb, kb, xf, T,
                           w->a + j * TOPK_MB, b, m);
    for (t = nb * TOPK_MB; t < len; t++) {
        uint64_t img = image_of(word_at(base, t, kb), kb, xf);
        if (img <= T)
            best_offer(b, m, img, w->a + t);
    }
}

static void bound_scan(const topk_src *w, size_t m, unsigned kb, ps_xf xf,
                       topk_best *b)
{
    switch (kb) {
    case 1: bound_scan_w(w, m, 1, xf, b); break;
    case 2: bound_scan_w(w, m, 2, xf, b); break;
    case 4: bound_scan_w(w, m, 4, xf, b); break;
    default: bound_scan_w(w, m, 8, xf, b); break;
    }
}

/* The chunks of one long segment's scan, as run_jobs hands them out. */
typedef struct topk_bestjobs {
    const topk_src *w;
    size_t k, jobs;
    unsigned kb;
    ps_xf xf;
    topk_best *b;
} topk_bestjobs;

static void best_job(void *ctx, size_t i)
{
    const topk_bestjobs *bj = ctx;
    size_t len = bj->w->len, j0 = len / bj->jobs * i;
    size_t j1 = i + 1 == bj->jobs ? len : len / bj->jobs * (i + 1);
    bj->b[i].n = 0;
    best_scan(bj->w, j0, j1, bj->k, bj->kb, bj->xf, &bj->b[i]);
}

/* The first m = min(k, len) elements of the segment, sorted, into cand:
 * in chunks on the runner's threads when it is long, their best k then
 * offered again in chunk order (index order, so ties keep theirs). */
static void select_best(const topk_src *w, size_t m, unsigned kb, ps_xf xf,
                        size_t *cand, const topk_runner *run)
{
    topk_best b[TOPK_CHUNKS];
    topk_bestjobs bj = { w, m, 1, kb, xf, b };
    size_t c, i;

    if (run != NULL && w->len >= TOPK_PAR_MIN)
        bj.jobs = TOPK_CHUNKS;
    if (bj.jobs == 1 && w->len < TOPK_SAMPLE_MIN &&
        w->len >= m * TOPK_MB) {
        bound_scan(w, m, kb, xf, &b[0]);
    } else if (bj.jobs == 1) {
        best_job(&bj, 0);
    } else {
        topk_best all;
        run_jobs(run, bj.jobs, best_job, &bj);
        all.n = 0;
        for (c = 0; c < bj.jobs; c++)
            for (i = 0; i < b[c].n; i++)
                best_offer(&all, m, b[c].img[i], b[c].idx[i]);
        b[0] = all;
    }
    PS_DEBUG_ASSERT(b[0].n == m);
    memcpy(cand, b[0].idx, m * sizeof *cand);
}

/* ---- larger k in short segments: a bound from column minima ----------
 *
 * Counting a segment's top digit costs a dependent increment a key and
 * the split after it a few instructions more: in segments of 1000 keys
 * that was slower than sorting them.  Instead the segment is read as rows
 * of W >= 2m keys (W a multiple of 16, the last row short), and the
 * minimum image of each column is taken with vector compares.  The m-th
 * smallest of those W minima, T, bounds the m-th key: m columns hold a
 * key at or below it.  A second vector pass keeps only the keys at or
 * below T (for random keys about 1.3m to 1.6m of them) as survivors,
 * and the counting passes finish among those few.  Segments of at least
 * 8 rows (about 16m keys) and m up to TOPK_COLS / 2: with fewer rows the
 * minima bound less and the counting passes alone were faster (Zen 5,
 * segments of 1000 u32, k = 64: 107 ms against 118 with 7 rows; k = 100
 * 116 against 160 with 4; k = 33, 12 rows, 82 against 107). */
#define TOPK_COLS 1024u

/* Column minima of the rows of the len keys at p (rows of W, then the
 * short last row), images into mins[0 .. W - 1].  Row by row, so that
 * the keys are read in order (the first read of the segment, from
 * memory: column by column strided, it waited on every load). */
#define TOPK_COLMIN(UT, ST)                                                  \
    do {                                                                     \
        TOPK_VEC_TYPES(UT, ST);                                              \
        const size_t lanes = 16 / sizeof(ut);                                \
        vu acc[TOPK_COLS / (16 / sizeof(ut))], x, lt;                        \
        size_t c, r, t, R = len / W;                                         \
        for (c = 0; c < W / lanes; c++) {                                    \
            memcpy(&x, (const ut *)p + c * lanes, 16);                       \
            acc[c] = TOPK_IMG(x);                                            \
        }                                                                    \
        for (r = 1; r < R; r++)                                              \
            for (c = 0; c < W / lanes; c++) {                                \
                memcpy(&x, (const ut *)p + r * W + c * lanes, 16);           \
                x = TOPK_IMG(x);                                             \
                lt = (vu)(x < acc[c]);                                       \
                acc[c] = (x & lt) | (acc[c] & ~lt);                          \
            }                                                                \
        for (c = 0; c < W; c++)                                              \
            mins[c] = acc[c / lanes][c % lanes];                             \
        for (t = R * W; t < len; t++) {                                      \
            uint64_t img = image_of(((const ut *)p)[t], kb, xf);             \
            if (img < mins[t - R * W])                                       \
                mins[t - R * W] = img;                                       \
        }                                                                    \
    } while (0)

/* The keys at p (indices a on) whose images are at or below T, with
 * their images, into sv from *c on, in index order: every lane of a
 * vector written, each advancing by its compare (no branch per lane).
 * Unless dense, a vector with none is skipped after one test: under the
 * column bound few are kept, and writing every lane of every vector was
 * slower for k = 17 to 64 in segments of 1000; under select_cut's bound
 * many are, and the test would be a mispredicted branch. */
#define TOPK_KEEP_LE(UT, ST)                                                 \
    do {                                                                     \
        TOPK_VEC_TYPES(UT, ST);                                              \
        const size_t lanes = 16 / sizeof(ut);                                \
        size_t j, l, n = *c, full = len - len % lanes;                       \
        size_t *idx = sv->idx;                                               \
        ut *img = (ut *)(void *)sv->img;                                     \
        for (j = 0; j < full; j += lanes) {                                  \
            vu x;                                                            \
            ST any;                                                          \
            TOPK_LOAD_LE(x, (const ut *)p + j, T, any);                      \
            if (!dense && any == 0)                                          \
                continue;                                                    \
            for (l = 0; l < lanes; l++) {                                    \
                idx[n] = a + j + l;                                          \
                img[n] = x[l];                                               \
                n += x[l] <= T;                                              \
            }                                                                \
        }                                                                    \
        for (j = full; j < len; j++) {                                       \
            uint64_t im = image_of(((const ut *)p)[j], kb, xf);              \
            if (im <= T) {                                                   \
                idx[n] = a + j;                                              \
                img[n++] = (ut)im;                                           \
            }                                                                \
        }                                                                    \
        *c = n;                                                              \
    } while (0)

PS_FORCE_INLINE void col_minima(const void *p, size_t len, size_t W,
                                unsigned kb, ps_xf xf, uint64_t *mins)
{
    switch (kb) {
    case 1: TOPK_COLMIN(uint8_t, int8_t); break;
    case 2: TOPK_COLMIN(uint16_t, int16_t); break;
    case 4: TOPK_COLMIN(uint32_t, int32_t); break;
    default: TOPK_COLMIN(uint64_t, int64_t); break;
    }
}

PS_FORCE_INLINE void keep_le(const void *p, size_t a, size_t len, unsigned kb,
                             ps_xf xf, uint64_t T, int dense, topk_buf *sv,
                             size_t *c)
{
    switch (kb) {
    case 1: TOPK_KEEP_LE(uint8_t, int8_t); break;
    case 2: TOPK_KEEP_LE(uint16_t, int16_t); break;
    case 4: TOPK_KEEP_LE(uint32_t, int32_t); break;
    default: TOPK_KEEP_LE(uint64_t, int64_t); break;
    }
}

/* The columns' width for m: at least 2m, whole vectors of every width. */
#define TOPK_COLS_W(m) ((2 * (m) + 15) & ~(size_t)15)

/* Whether select_cols takes a segment of len keys for m (see above). */
static int cols_fit(size_t len, size_t m)
{
    return len < TOPK_SAMPLE_MIN && m <= TOPK_COLS / 2 &&
           8 * TOPK_COLS_W(m) <= len;
}

/* The first m of the keys of the segment at w whose images are at or
 * below T, appended to cand: keep_le gathers them as survivors, the
 * counting passes finish among those few.  Returns 1, 0 when fewer than
 * m are at or below T (T bounded nothing), or -1 when the survivors
 * cannot be allocated. */
static int select_below(const topk_src *w, size_t m, unsigned kb, ps_xf xf,
                        uint64_t T, int dense, size_t *cand, topk_buf *sv)
{
    size_t c = 0, nc = 0;
    const unsigned char *p = (const unsigned char *)w->keys + w->a * kb;
    topk_src surv = { NULL, 0, 0, sv };

    if (buf_reserve(sv, w->len + 16, kb) != PS_OK)  /* + a vector's lanes */
        return -1;
    if (dense)
        keep_le(p, w->a, w->len, kb, xf, T, 1, sv, &c);
    else
        keep_le(p, w->a, w->len, kb, xf, T, 0, sv, &c);
    if (c < m)
        return 0;
    surv.len = c;
    if (c == m)
        memcpy(cand, sv->idx, m * sizeof *cand);
    else
        select_survivors(&surv, kb, xf, 8u * kb - 8u, m, cand, &nc, sv);
    return 1;
}

#if PS_TOPK_VEC
/* select_cols in vector registers (ps_topk_vec.h: AVX-512 or AVX2), for
 * 4- and 8-byte keys and m <= 16: 32 columns.  Returns 1 with m
 * candidates appended to cand, 0 when fewer than m keys met the bound (it
 * cannot happen: m columns hold a key at or below it; but then the
 * baseline select runs, so that the result never rests on the vector
 * code's bound), -1 when out of memory. */
static int select_cols_vec(const ps_topk_vec *v, const topk_src *w,
                           size_t m, unsigned kb, ps_xf xf, size_t *cand,
                           topk_buf *sv)
{
    const unsigned char *p = (const unsigned char *)w->keys + w->a * kb;
    uint64_t T = ps_topk_vec_bound(v, p, w->len, m, kb, xf);
    size_t c, nc = 0;
    if (buf_reserve(sv, w->len + 16, kb) != PS_OK)
        return -1;
    c = ps_topk_vec_keep_le(v, p, w->a, w->len, kb, xf, T, sv->idx, sv->img);
    PS_DEBUG_ASSERT(c >= m);
    if (c < m)
        return 0;
    if (c <= 32) {      /* 1.3m to 1.6m of random keys */
        ps_topk_vec_first_m(v, sv->img, sv->idx, c, m, kb, cand);
        sv->sorted = 1;
    } else {            /* many equal keys at the bound */
        topk_src surv = { NULL, 0, c, sv };
        select_survivors(&surv, kb, xf, 8u * kb - 8u, m, cand, &nc, sv);
    }
    return 1;
}
#endif

/* The select above for the m < len of the segment at w (cols_fit),
 * appended to cand.  Fails only to allocate the survivors. */
static int select_cols(const topk_src *w, size_t m, unsigned kb, ps_xf xf,
                       size_t *cand, topk_buf *sv)
{
    uint64_t mins[TOPK_COLS];
    size_t W = TOPK_COLS_W(m);
    int got;

#if PS_TOPK_VEC
    const ps_topk_vec *v = ps_topk_vec_get();
    if ((kb == 4 || kb == 8) && m <= 16 && v != NULL) {
        got = select_cols_vec(v, w, m, kb, xf, cand, sv);
        if (got != 0)
            return got > 0 ? PS_OK : PS_ERR_NO_MEMORY;
    }
#endif

    col_minima((const unsigned char *)w->keys + w->a * kb, w->len, W, kb,
               xf, mins);
    got = select_below(w, m, kb, xf, kth_image(mins, W, m, kb), 0, cand,
                       sv);
    PS_DEBUG_ASSERT(got != 0);
    return got > 0 ? PS_OK : PS_ERR_NO_MEMORY;
}

/* ---- mid k in short segments: a bound from a small sample -------------
 *
 * Where the columns do not fit (m above about len / 16), the counting
 * passes read the whole segment twice a key at a time.  Instead the
 * images of TOPK_CUT_S keys spread over it (one a stratum, at a jittered
 * place) are counted to their r-th smallest, T, with r three standard
 * deviations of the sample's binomial rank above its mean m S / len: T
 * very probably bounds the m-th key with 1.3 to 2.3 m keys below it, and
 * select_below keeps those with one vector pass, dense (10 to 40 % of the
 * vectors' lanes are kept: a branch a vector on whether any is would be
 * a coin toss; it was, at k = 64, 150 ms against 83).  When the sample misled
 * (fewer than m at or below T: sorted or periodic segments can do that),
 * the counting passes run as before, a vector pass later. */
#define TOPK_CUT_S 128u

/* Whether select_w tries select_cut for m of len keys. */
static int cut_fit(size_t len, size_t m)
{
    return len < TOPK_SAMPLE_MIN && len >= 4 * TOPK_CUT_S && 3 * m < len &&
           !cols_fit(len, m);
}

/* Returns 1 with m candidates appended to cand, 0 when the bound keeps
 * nothing worth it or missed, -1 when out of memory. */
static int select_cut(const topk_src *w, size_t m, unsigned kb, ps_xf xf,
                      size_t *cand, topk_buf *sv)
{
    uint64_t img[TOPK_CUT_S], h = 0x9e3779b97f4a7c15u;
    size_t stride = w->len / TOPK_CUT_S, j, i, r;
    double p = (double)m / (double)w->len, q = p * TOPK_CUT_S;
    double var = q * (1.0 - p), sd = 0;

    while (sd * sd < var)       /* <= 6 steps: var <= TOPK_CUT_S / 4 */
        sd += 1;
    r = (size_t)(q + 3 * sd) + 2;
    if (r >= TOPK_CUT_S - TOPK_CUT_S / 8)  /* would keep nearly all */
        return 0;
    for (j = 0; j < TOPK_CUT_S; j++) {
        h += 0x9e3779b97f4a7c15u;
        img[j] = src_image(w, j * stride + (size_t)((h >> 33) % stride), kb,
                           xf, &i);
    }
    return select_below(w, m, kb, xf, kth_image(img, TOPK_CUT_S, r, kb), 1,
                        cand, sv);
}

/* The m < len elements of the segment a .. a + len - 1 that come first in
 * the stable sorted order, appended to cand (m entries, grouped as the top
 * of the file says).  Fails only to allocate the survivors. */
PS_FORCE_INLINE int select_w(const void *keys, size_t a, size_t len, size_t m,
                             unsigned kb, ps_xf xf, size_t *cand, topk_buf *sv,
                             const topk_runner *run)
{
    size_t hist[256], r = m, c, nc = 0;
    unsigned shift = 8u * kb - 8u, d;
    uint64_t var;
    topk_src whole = { keys, a, len, NULL }, surv = { keys, 0, 0, sv };

    if (cols_fit(len, m))
        return select_cols(&whole, m, kb, xf, cand, sv);
    if (cut_fit(len, m)) {
        int got = select_cut(&whole, m, kb, xf, cand, sv);
        if (got != 0)
            return got > 0 ? PS_OK : PS_ERR_NO_MEMORY;
    }
    if (len >= TOPK_SAMPLE_MIN && kb > 1) {
        int got = 0;
        if (m >= len / TOPK_HIST_FROM)
            got = select_hist(&whole, m, kb, xf, cand, sv, run);
        if (got == 0)
            got = select_sampled(&whole, m, kb, xf, cand, sv, run);
        if (got != 0)
            return got > 0 ? PS_OK : PS_ERR_NO_MEMORY;
    }
    count(&whole, kb, xf, shift, hist, &var);
    pick_digit(hist, &r, &d, &c);
    /* Every key shares the top digit (small integers' top bytes, a common
     * exponent, ties): nothing would drop, so count the first digit that
     * varies, which the OR and AND name, instead of copying all keys out
     * as survivors or counting every constant byte in turn (equal u64
     * keys took eight reads).  Keys all equal need nothing more: the first
     * m are in (no split pass either). */
    if (c == len && shift > 0) {
        if (var == 0) {         /* all equal: the first m, in order */
            for (nc = 0; nc < m; nc++)
                cand[nc] = a + nc;
            return PS_OK;
        }
        /* The byte of the top varying bit varies: c < len after this. */
        shift = (63u - (unsigned)__builtin_clzll(var)) / 8u * 8u;
        count(&whole, kb, xf, shift, hist, NULL);
        pick_digit(hist, &r, &d, &c);
    }
    /* Every one with digit d is in (r == c), or this is the last digit:
     * no survivors to keep. */
    if (r == c || shift == 0) {
        split(&whole, kb, xf, shift, d, r, cand, &nc, NULL);
        return PS_OK;
    }
    if (buf_reserve(sv, c, kb) != PS_OK)
        return PS_ERR_NO_MEMORY;
    surv.len = split(&whole, kb, xf, shift, d, 0, cand, &nc, sv);
    /* At most 8 * kb / 8 - 1 more passes; each keeps the r-th survivor. */
    select_survivors(&surv, kb, xf, shift - 8, r, cand, &nc, sv);
    PS_DEBUG_ASSERT(nc == m);
    return PS_OK;
}

/* select_w with the key width as a constant, one instance per width. */
static int select_any(const void *k, size_t a, size_t len, size_t m,
                      unsigned kb, ps_xf xf, size_t *cand, topk_buf *sv,
                      const topk_runner *run)
{
    switch (kb) {
    case 1: return select_w(k, a, len, m, 1, xf, cand, sv, run);
    case 2: return select_w(k, a, len, m, 2, xf, cand, sv, run);
    case 4: return select_w(k, a, len, m, 4, xf, cand, sv, run);
    default: return select_w(k, a, len, m, 8, xf, cand, sv, run);
    }
}

/* One call: its arguments, and m_total, the sum over the segments of
 * min(k, length), once topk_check has passed. */
typedef struct topk_call {
    const char *fn;
    const unsigned char *keys;
    const unsigned char *values;
    size_t value_size;
    size_t n;
    const size_t *offsets;
    size_t num_segments;
    size_t k;
    size_t m_total;
    ps_type type;
    unsigned flags;
} topk_call;

/* Jobs for the segments: about 8 a thread of 2 to 8, each a run of whole
 * segments of about equal total length. */
#define TOPK_SEG_JOBS 64u

/* A call's segments as jobs for the runner's threads (job i: segments
 * seg[i] .. seg[i + 1] - 1), and what the jobs read and write.  cand
 * holds each segment's candidates' indices from coff[s] on; w, when not
 * NULL, the same candidates packed (pack_segment below). */
typedef struct topk_jobs {
    const topk_call *t;
    size_t *cand, *coff;
    uint64_t *w;
    unsigned char *ckeys;       /* the candidates' keys, sorted with cand */
    size_t mc;                  /* how many candidates in all */
    size_t seg[TOPK_SEG_JOBS + 1], jobs;
    int st[TOPK_SEG_JOBS];
    int unsorted[TOPK_SEG_JOBS];    /* a job's select left some unsorted */
    int sort;                   /* the candidates need sorting */
    size_t *out_index;
    unsigned char *out_keys, *out_values;
} topk_jobs;

/* Keys of up to 4 bytes in segments shorter than 2^32, when the
 * candidates need sorting, are packed: each becomes one 64-bit word, its
 * image above its index within the segment, and the backend sorts the
 * words as keys.  Images are distinct for distinct keys and equal images
 * order by index, so the words' order is the stable order; a sort of keys
 * alone runs the backend's sorting networks where a sort of (key, index)
 * pairs moves two arrays; and the image gives the key back, so the
 * results are written without reading the keys again. */
PS_FORCE_INLINE void pack_w(const topk_call *t, size_t s, const size_t *cand,
                            size_t j0, size_t j1, uint64_t *w, unsigned kb)
{
    ps_xf xf = ps_xf_make(t->type, t->flags);
    size_t a = t->offsets[s], j;
    for (j = j0; j < j1; j++) {
        uint64_t img = image_of(word_at(t->keys, cand[j], kb), kb, xf);
        w[j] = img << 32 | (uint64_t)(cand[j] - a);
    }
}

/* Candidates j0 .. j1 - 1 (all of segment s) packed into w. */
static void pack_range(const topk_call *t, size_t s, const size_t *cand,
                       size_t j0, size_t j1, uint64_t *w)
{
    switch (ps_type_bytes(t->type)) {
    case 1: pack_w(t, s, cand, j0, j1, w, 1); break;
    case 2: pack_w(t, s, cand, j0, j1, w, 2); break;
    default: pack_w(t, s, cand, j0, j1, w, 4); break;
    }
}

typedef struct topk_pack {
    const topk_call *t;
    size_t s, j0, j1;
    const size_t *cand;
    uint64_t *w;
} topk_pack;

static void pack_job(void *ctx, size_t c)
{
    const topk_pack *p = ctx;
    size_t per = (p->j1 - p->j0) / TOPK_CHUNKS;
    size_t a = p->j0 + per * c, b = c + 1 == TOPK_CHUNKS ? p->j1 : a + per;
    pack_range(p->t, p->s, p->cand, a, b, p->w);
}

/* Segment s's candidates packed into w: a long one's (the whole array of
 * ps_topk, a million candidates and more) in chunks on run's threads, as
 * reading the keys back by index costs about a cache miss each. */
static void pack_segment(const topk_call *t, size_t s, const size_t *cand,
                         const size_t *coff, uint64_t *w,
                         const topk_runner *run)
{
    topk_pack p = { t, s, coff[s], coff[s + 1], cand, w };
    if (run != NULL && p.j1 - p.j0 >= TOPK_PAR_MIN)
        run_jobs(run, TOPK_CHUNKS, pack_job, &p);
    else
        pack_range(t, s, cand, p.j0, p.j1, w);
}

/* Whether a segment of len keys is selected by keeping its best k
 * sorted (select_best), which needs no sort after. */
static int keeps_best(size_t k, size_t len, size_t kb)
{
#if PS_TOPK_VEC
    /* The AVX-512 column bound beats the inserts for k <= 16 wherever it
     * fits, but for k = 1 past 2048 keys, where the inserts read the keys
     * once and the bound twice (Zen 5, 10^8 u32 keys in segments of 1000:
     * k = 1 21-41 -> 16-25 ms, k = 4 54-70 -> 30-36; of 3000 and 30000,
     * k = 1 24-29 -> 28-36 ms: noisy runs, two of them). */
    if ((kb == 4 || kb == 8) && k <= 16 && cols_fit(len, k) &&
        !(k == 1 && len > 2048) && ps_topk_vec_get() != NULL)
        return 0;
#else
    (void)kb;
#endif
    return k <= TOPK_INSERT_MAX &&
           (k <= TOPK_BOUND_MAX || len >= TOPK_SAMPLE_MIN ||
            len / TOPK_BEST_RATIO >= k || !cols_fit(len, k));
}

/* How many of a segment of len keys are candidates for the first k: all
 * of them from k >= 5 len / 8 (unless the best k are kept as they are
 * read), as selecting most of a segment costs more than sorting the rest
 * with it (Zen 5, 10^5 segments of 1000 u32: k = 999, 323 -> 209 ms;
 * k = 700, 253 -> 235; k = 500, 209 -> 225, so not there). */
static size_t cands_of(size_t k, size_t len, size_t kb)
{
    if (len <= k || (k / 5 >= len / 8 && !keeps_best(k, len, kb)))
        return len;
    return k;
}

/* Segments s0 .. s1 - 1 of the call, one after the other, on the calling
 * thread (the whole array's one segment takes run's threads for its
 * scan), packed into j->w as they are selected when it is not NULL. */
static int select_segments(const topk_jobs *j, size_t s0, size_t s1,
                           const topk_runner *run, int *unsorted)
{
    const topk_call *t = j->t;
    size_t kb = ps_type_bytes(t->type), s, i, *cand = j->cand;
    const size_t *coff = j->coff;
    ps_xf xf = ps_xf_make(t->type, t->flags);
    topk_buf sv = { NULL, NULL, 0, 0 };
    int st = PS_OK;

    *unsorted = 0;
    for (s = s0; s < s1 && st == PS_OK; s++) {
        size_t a = t->offsets[s], len = t->offsets[s + 1] - a;
        size_t m = coff[s + 1] - coff[s];
        topk_src w = { t->keys, a, len, NULL };
        if (m > 0 && keeps_best(t->k, len, kb)) {
            select_best(&w, m, (unsigned)kb, xf, cand + coff[s], run);
        } else if (m == len) {  /* all of it, already in index order */
            for (i = 0; i < len; i++)
                cand[coff[s] + i] = a + i;
            *unsorted |= len > 1;
        } else if (m > 0) {
            sv.sorted = 0;
            st = select_any(t->keys, a, len, m, (unsigned)kb, xf,
                            cand + coff[s], &sv, run);
            *unsorted |= !sv.sorted;
        }
        if (st == PS_OK && j->w != NULL)
            pack_segment(t, s, cand, coff, j->w, run);
    }
    ps_release(sv.idx);
    ps_release(sv.img);
    return st;
}

static void select_job(void *ctx, size_t i)
{
    topk_jobs *j = ctx;
    j->st[i] = select_segments(j, j->seg[i], j->seg[i + 1], NULL,
                               &j->unsorted[i]);
}

/* The results of segment s, in the stable sorted order in cand (or w), to
 * the caller's outputs at slots s * k on. */
PS_FORCE_INLINE void write_w(const topk_jobs *j, size_t s, unsigned kb)
{
    const topk_call *t = j->t;
    size_t first = j->coff[s], m = j->coff[s + 1] - first, r;
    if (m > j->t->k)
        m = j->t->k;            /* the segment's all were candidates */
    size_t slot = s * t->k, a = t->offsets[s], vs = t->value_size;
    ps_xf xf = ps_xf_make(t->type, t->flags);
    unsigned char *ok = j->out_keys + slot * kb;

    for (r = 0; r < m; r++) {
        size_t i;
        if (j->w != NULL) {
            uint64_t x = j->w[first + r];
            i = a + (size_t)(x & 0xffffffffu);
            switch (kb) {
            case 1: ok[r] = ps_dec8((uint8_t)(x >> 32), xf); break;
            case 2: ((uint16_t *)ok)[r] = ps_dec16((uint16_t)(x >> 32), xf);
                    break;
            default: ((uint32_t *)ok)[r] = ps_dec32((uint32_t)(x >> 32), xf);
                     break;
            }
        } else {
            i = j->cand[first + r];
            memcpy(ok + r * kb, j->ckeys != NULL ? j->ckeys + (first + r) * kb
                                                 : t->keys + i * kb, kb);
        }
        if (j->out_index != NULL)
            j->out_index[slot + r] = i;
        if (j->out_values != NULL)
            memcpy(j->out_values + (slot + r) * vs, t->values + i * vs, vs);
    }
}

static void write_job(void *ctx, size_t i)
{
    const topk_jobs *j = ctx;
    size_t s;
    for (s = j->seg[i]; s < j->seg[i + 1]; s++)
        switch (ps_type_bytes(j->t->type)) {
        case 1: write_w(j, s, 1); break;
        case 2: write_w(j, s, 2); break;
        case 4: write_w(j, s, 4); break;
        default: write_w(j, s, 8); break;
        }
}

/* Fill j->coff (each segment's min(k, length) candidates from coff[s]
 * on), split the segments into jobs of about n / TOPK_SEG_JOBS keys, a
 * segment longer than that a job alone, and set j->sort: whether any
 * segment's candidates come out of the select unsorted.  Returns whether
 * every segment is shorter than 2^32 (its indices fit in a packed word's
 * 32 bits). */
static int plan_jobs(topk_jobs *j)
{
    const topk_call *t = j->t;
    size_t s, at = 0, per = t->n / TOPK_SEG_JOBS + 1, acc = 0;
    int short_all = 1;

    j->jobs = 0;
    j->seg[0] = 0;
    for (s = 0; s < t->num_segments; s++) {
        size_t len = t->offsets[s + 1] - t->offsets[s];
        j->coff[s] = at;
        at += cands_of(t->k, len, ps_type_bytes(t->type));
        short_all &= len <= (size_t)0xffffffffu;
        if (len > 1 && !keeps_best(t->k, len, ps_type_bytes(t->type)))
            j->sort = 1;
        acc += len;
        if (acc >= per && j->jobs + 1 < TOPK_SEG_JOBS) {
            j->seg[++j->jobs] = s + 1;
            acc = 0;
        }
    }
    j->coff[t->num_segments] = at;
    j->mc = at;
    if (j->seg[j->jobs] < t->num_segments)
        j->seg[++j->jobs] = t->num_segments;
    return short_all;
}

/* Select every segment's candidates into j->cand at j->coff, in index
 * groups as the top of the file says: many segments in jobs of whole
 * segments on the runner's threads; one long segment (the whole array of
 * ps_topk) gives its scan to them instead. */
static int select_all(topk_jobs *j, const topk_runner *run)
{
    const topk_call *t = j->t;
    int st = PS_OK, unsorted = 0;
    size_t i;

    if (j->jobs <= 1 || run == NULL) {
        st = select_segments(j, 0, t->num_segments, run, &unsorted);
    } else {
        run_jobs(run, j->jobs, select_job, j);
        for (i = 0; i < j->jobs; i++) {
            if (j->st[i] != PS_OK)
                st = j->st[i];
            unsorted |= j->unsorted[i];
        }
    }
    /* Every segment's candidates came out in the stable sorted order (the
     * kept best k, the AVX-512 column bound's few survivors ranked): the
     * candidates' sort has nothing to do (k = 10 in 10^5 segments of
     * 1000, Zen 5: 21.2-21.7 -> 20.2-20.6 ms). */
    if (!unsorted)
        j->sort = 0;
    if (st != PS_OK)
        ps_detail_set("%s: cannot allocate the survivors' indices and "
                      "images (up to %zu bytes)", t->fn,
                      t->n * (sizeof(size_t) + ps_type_bytes(t->type)));
    return st;
}

/* Order each segment's candidates into the stable sorted order on the
 * backend: the packed words as keys, else the keys (gathered into
 * j->ckeys, which the outputs are then written from) with their indices
 * as size_t values, a size every backend moves natively (4 or 8 bytes). */
static int sort_candidates(topk_jobs *j, const ps_backend_ops *ops,
                           void *state)
{
    const topk_call *t = j->t;
    size_t M = j->mc, kb = ps_type_bytes(t->type), i;
    unsigned char *ckeys;
    int st;

    if (j->w != NULL)
        return ps_segments_on(ops, state, j->w, NULL, 0, M, j->coff,
                              t->num_segments, PS_U64, 0);
    ckeys = ps_alloc(M * kb);
    if (ckeys == NULL) {
        ps_detail_set("%s: cannot allocate %zu bytes for %zu candidates' "
                      "keys", t->fn, M * kb, M);
        return PS_ERR_NO_MEMORY;
    }
    for (i = 0; i < M; i++)
        memcpy(ckeys + i * kb, t->keys + j->cand[i] * kb, kb);
    st = ps_segments_on(ops, state, ckeys, j->cand, sizeof(size_t), M,
                        j->coff, t->num_segments, t->type, t->flags);
    j->ckeys = ckeys;
    return st;
}

/* Everything after the checks: select, sort the candidates on the
 * backend, then write the outputs (the only step that writes them, so
 * that an error leaves them unchanged). */
static int topk_run(topk_call *t, size_t *out_index,
                    unsigned char *out_keys, unsigned char *out_values)
{
    const ps_backend_ops *ops;
    void *state;
    size_t M = t->m_total;
    topk_jobs j;
    topk_runner run;
    int st, kc = 0, kw = 0, short_all;

    /* The select's jobs on the threads of the backend an array of n would
     * go to; the candidates' sort on the one for M. */
    st = ps_backend_for(t->n, &run.ops, &run.state);
    if (st == PS_OK)
        st = ps_backend_for(M, &ops, &state);
    if (st != PS_OK || M == 0)
        return st;
    memset(&j, 0, sizeof j);
    j.t = t;
    j.out_index = out_index;
    j.out_keys = out_keys;
    j.out_values = out_values;
    /* M <= n, and topk_check made sure that n indices and keys fit. */
    j.coff = ps_alloc((t->num_segments + 1) * sizeof(size_t));
    if (j.coff == NULL) {
        ps_detail_set("%s: cannot allocate %zu bytes for %zu offsets",
                      t->fn, (t->num_segments + 1) * sizeof(size_t),
                      t->num_segments + 1);
        st = PS_ERR_NO_MEMORY;
        goto out;
    }
    short_all = plan_jobs(&j);
    M = j.mc;                   /* t->m_total <= j.mc <= n */
    j.cand = ps_scratch_take(M * sizeof(size_t), &kc);
    if (j.cand == NULL) {
        ps_detail_set("%s: cannot allocate %zu bytes for %zu candidates",
                      t->fn, M * sizeof(size_t), M);
        st = PS_ERR_NO_MEMORY;
        goto out;
    }
    if (short_all && ps_type_bytes(t->type) <= 4 && j.sort && M > 1) {
        j.w = ps_scratch_take(M * sizeof(uint64_t), &kw);
        if (j.w == NULL) {
            ps_detail_set("%s: cannot allocate %zu bytes for %zu "
                          "candidates", t->fn, M * sizeof(uint64_t), M);
            st = PS_ERR_NO_MEMORY;
            goto out;
        }
    }
    st = select_all(&j, &run);
    if (st == PS_OK && M > 1 && j.sort)
        st = sort_candidates(&j, ops, state);
    if (st != PS_OK)
        goto out;
    if (j.jobs > 1)
        run_jobs(&run, j.jobs, write_job, &j);
    else
        write_job(&j, 0);
out:
    ps_release(j.ckeys);
    ps_scratch_put(j.w, kw);
    ps_scratch_put(j.cand, kc);
    ps_release(j.coff);
    return st;
}

/* The checks both entry points share, after the keys', the values' and
 * the offsets': the extent of the outputs (slots up to the last non-empty
 * segment's), the outputs given where needed, and no overlap among all the
 * arrays.  Sets t->m_total; *extent is 0 when nothing is to be written. */
static int topk_check(topk_call *t, const void *out_keys,
                      const void *out_values, const size_t *out_index,
                      int with_offsets)
{
    size_t kb = ps_type_bytes(t->type), s, last = 0, m_last = 0, E = 0, M = 0;
    size_t vs = t->values != NULL ? t->value_size : 0;
    int st;

    if (t->k > 0)
        for (s = 0; s < t->num_segments; s++) {
            size_t len = t->offsets[s + 1] - t->offsets[s];
            size_t m = len < t->k ? len : t->k;
            if (m > 0)
                last = s, m_last = m;
            M += m;             /* <= n */
        }
    /* Slots of segment s start at s * k: the last non-empty one's end is
     * the extent written, which must fit in memory with each element's
     * bytes (8 bytes an index; the widest of key, value and index). */
    if (M > 0) {
        size_t widest = kb > vs ? kb : vs;
        if (widest < sizeof(size_t))
            widest = sizeof(size_t);
        if (last > (SIZE_MAX - m_last) / t->k
            || last * t->k + m_last > SIZE_MAX / widest) {
            ps_detail_set("%s: %zu segments of k = %zu result slots overflow "
                          "size_t", t->fn, last + 1, t->k);
            return PS_ERR_INVALID_ARG;
        }
        E = last * t->k + m_last;
        /* The candidates' indices and keys, and the survivors' indices,
         * are at most n of each. */
        if (t->n > SIZE_MAX / (sizeof(size_t) + kb)) {
            ps_detail_set("%s: n = %zu: its scratch indices would overflow "
                          "size_t", t->fn, t->n);
            return PS_ERR_TOO_LARGE;
        }
        if (out_keys == NULL) {
            ps_detail_set("%s: out_keys is NULL with %zu results to write",
                          t->fn, M);
            return PS_ERR_INVALID_ARG;
        }
        if ((t->values == NULL) != (out_values == NULL)) {
            ps_detail_set("%s: %s is NULL and %s is not: pass both (values "
                          "to move with their keys) or neither", t->fn,
                          t->values == NULL ? "values" : "out_values",
                          t->values == NULL ? "out_values" : "values");
            return PS_ERR_INVALID_ARG;
        }
    }
    {
        ps_span sp[6] = {
            ps_span_of("keys", t->keys, t->n * kb),
            ps_span_of("values", t->values, t->n * vs),
            ps_span_of("out_keys", out_keys, E * kb),
            ps_span_of("out_values", out_values,
                       out_values != NULL ? E * vs : 0),
            ps_span_of("out_index", out_index,
                       out_index != NULL ? E * sizeof(size_t) : 0),
            ps_span_of("offsets", t->offsets,
                       with_offsets && t->offsets != NULL
                       ? (t->num_segments + 1) * sizeof(size_t) : 0),
        };
        st = ps_spans_check(t->fn, sp, 6, ps_detail_set);
        if (st != PS_OK)
            return st;
    }
    t->m_total = M;
    return PS_OK;
}

/* Both entry points: t holds the call (offsets: the caller's, or the
 * whole array as one segment when `segmented` is 0). */
static int topk_entry(topk_call *t, int segmented, void *out_keys,
                      void *out_values, size_t *out_index)
{
    int st;

    ps_detail_clear();
    st = ps_check_keys(t->fn, t->keys, t->n, t->type, t->flags);
    if (st == PS_OK)
        st = ps_check_seg_values(t->fn, t->values, t->value_size, t->n,
                                 t->num_segments);
    if (st == PS_OK && segmented)
        st = ps_check_offsets(t->fn, t->offsets, t->num_segments, t->n);
    if (st == PS_OK)
        st = topk_check(t, out_keys, out_values, out_index, segmented);
    if (st != PS_OK)
        return st;
    return topk_run(t, out_index, out_keys, out_values);
}

int ps_topk_segments(const void *keys, const void *values, size_t value_size,
                     size_t n, const size_t *offsets, size_t num_segments,
                     size_t k, void *out_keys, void *out_values,
                     size_t *out_index, ps_type type, unsigned flags)
{
    topk_call t = { "ps_topk_segments", keys, values, value_size, n, offsets,
                    num_segments, k, 0, type, flags };
    return topk_entry(&t, 1, out_keys, out_values, out_index);
}

int ps_topk(const void *keys, const void *values, size_t value_size, size_t n,
            size_t k, void *out_keys, void *out_values, size_t *out_index,
            ps_type type, unsigned flags)
{
    size_t whole[2] = { 0, n };
    topk_call t = { "ps_topk", keys, values, value_size, n, whole, 1, k, 0,
                    type, flags };
    return topk_entry(&t, 0, out_keys, out_values, out_index);
}
