/*
 * ps_records.c - ps_sort_records, ps_argsort_records and
 * ps_argsort_columns: sort by several keys, each with its own type and
 * order, fields of records or columns alike.
 *
 * Each key becomes its order image (ps_keytype.h: an unsigned word whose
 * unsigned order is the key's order in its own direction, floats by
 * totalOrder).  The images of consecutive keys are packed, most
 * significant first, into words of at most 64 bits: u16 + i32 + f16 is one
 * 64-bit word, so three keys cost one radix sort.  Wider combinations take
 * several words, sorted most significant first: the first word's images
 * with the row numbers, then each later word only inside the runs of rows
 * equal in every word so far, by one segmented sort whose segments are
 * those runs, and no more once every run is one row long.  Every sort runs
 * on the chosen backend (ps_argsort, ps_sort_pairs, ps_sort_segments on
 * u8, u16, u32 or u64 images, the narrowest that holds the word), and a
 * word narrower than its type has constant top digits, which the backends
 * skip.  Bits that are the same in every image, a gap between fields
 * included (row << 32 | col with 2^20 columns), are squeezed out before
 * the sort (ps_squeeze.h) and put back when records are rebuilt.
 *
 * The images are built in one pass over the records per word (gathered
 * through the permutation for every word but the first), in chunks on the
 * backend's threads (run_jobs).  Scratch: n images of the widest word, n
 * indices, n + 1 run offsets and n cut flags (25 bytes a row), and for
 * ps_sort_records n records more; all of it is allocated
 * before the caller's arrays are written, so an error leaves them as they
 * were.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_internal.h"
#include "ps_recplan.h"
#include "ps_squeeze.h"

/* One key and one word: the shared plan's (ps_recplan.h), which the
 * device forms make too; a key's base is where key 0 lies. */
typedef ps_rec_key rec_key;
typedef ps_rec_word rec_word;

/* A call, once checked: its keys, packed into words. */
typedef struct rec_plan {
    const char *fn;
    size_t n;
    rec_key *key;
    rec_word *word;
    size_t nkeys, nwords;
} rec_plan;

static size_t ps_round_up8(size_t x)
{
    return (x + 7) & ~(size_t)7;
}

static unsigned word_bytes(unsigned bits)
{
    return ps_rec_word_bytes(bits);
}

static ps_type word_type(unsigned bits)
{
    return bits <= 8 ? PS_U8 : bits <= 16 ? PS_U16 : bits <= 32 ? PS_U32 : PS_U64;
}

/* The keys packed into words, each given its shift (ps_rec_pack). */
static void plan_words(rec_plan *p)
{
    p->nwords = ps_rec_pack(p->key, p->nkeys, p->word);
}

/* The images of word w for rows row(i), i in [i0, i1): row(i) = i when
 * perm is NULL, else perm[i]; squeezed by sq (ps_squeeze.h) and stored
 * at its width.  diff[i] gets chunk i's OR of every image XOR ref, taken
 * before the squeeze: what shows whether sq, planned from a sample, kept
 * every bit that varies. */
typedef struct rec_fill {
    const rec_plan *p;
    const rec_word *w;
    const size_t *perm;
    void *img;
    size_t chunks;
    const ps_squeeze *sq;
    uint64_t ref;
    uint64_t *diff;
} rec_fill;

/* Key k's images of rows r(i), i in [i0, i1), shifted into place and
 * ORed into v[i - i0] (or stored there, for the word's first key): one
 * loop a key with its width fixed, rather than a switch a key and row. */
#define REC_KEY_LOOP(UT, ENC)                                                \
    for (i = i0; i < i1; i++) {                                              \
        UT x;                                                                \
        uint64_t img;                                                        \
        memcpy(&x, k->base + (perm != NULL ? perm[i] : i) * k->stride,       \
               sizeof x);                                                    \
        img = (uint64_t)ENC(x, k->xf) << k->shift;                           \
        v[i - i0] = first ? img : v[i - i0] | img;                           \
    }                                                                        \
    break

static void key_images(const rec_key *k, const size_t *perm, size_t i0,
                       size_t i1, int first, uint64_t *v)
{
    size_t i;
    switch (k->kb) {
    case 1: REC_KEY_LOOP(uint8_t, ps_enc8);
    case 2: REC_KEY_LOOP(uint16_t, ps_enc16);
    case 4: REC_KEY_LOOP(uint32_t, ps_enc32);
    default: REC_KEY_LOOP(uint64_t, ps_enc64);
    }
}

/* Word w's whole images of rows r(i), i in [i0, i1), into v[0 ..]. */
static void word_images(const rec_plan *p, const rec_word *w,
                        const size_t *perm, size_t i0, size_t i1, uint64_t *v)
{
    size_t j;
    for (j = 0; j < w->count; j++)
        key_images(&p->key[w->first + j], perm, i0, i1, j == 0, v);
}

/* Rows a block at a time: the block's images, squeezed, then stored at
 * the squeezed width; the images' OR XOR ref into *diff. */
#define REC_BLOCK 256u

static void fill_range(const rec_fill *c, size_t i0, size_t i1, uint64_t *diff)
{
    size_t a, i;
    unsigned wb = word_bytes(c->sq->bits);
    uint64_t v[REC_BLOCK], d = 0;
    for (a = i0; a < i1; a += REC_BLOCK) {
        size_t e = i1 - a < REC_BLOCK ? i1 : a + REC_BLOCK;
        word_images(c->p, c->w, c->perm, a, e, v);
        for (i = 0; i < e - a; i++)
            d |= v[i] ^ c->ref;
        ps_squeeze_block(c->sq, v, e - a);
        for (i = a; i < e; i++)
            switch (wb) {
            case 1: ((uint8_t *)c->img)[i] = (uint8_t)v[i - a]; break;
            case 2: ((uint16_t *)c->img)[i] = (uint16_t)v[i - a]; break;
            case 4: ((uint32_t *)c->img)[i] = (uint32_t)v[i - a]; break;
            default: ((uint64_t *)c->img)[i] = v[i - a]; break;
            }
    }
    *diff |= d;
}

static void fill_job(void *ctx, size_t i)
{
    const rec_fill *c = ctx;
    size_t n = c->p->n;
    fill_range(c, n / c->chunks * i,
               i + 1 == c->chunks ? n : n / c->chunks * (i + 1), &c->diff[i]);
}

/* Arrays of at least this many elements have their images built in
 * chunks on the backend's threads. */
#define REC_PAR_MIN ((size_t)1 << 16)
#define REC_CHUNKS 16u
/* Rows sampled, evenly spaced, to plan a word's squeeze. */
#define REC_SAMPLE 256u

/* The squeeze of word w planned from row r(0)'s image (the reference) and
 * a sample of the others: the bits in which they differ from it. */
static void plan_squeeze(const rec_plan *p, const rec_word *w,
                         const size_t *perm, ps_squeeze *sq, uint64_t *ref)
{
    size_t rows[REC_SAMPLE], j, m = p->n < REC_SAMPLE ? p->n : REC_SAMPLE;
    uint64_t v[REC_SAMPLE], vary = 0;
    if (m == 0) {               /* callers have rows; kept whole anyway */
        *ref = 0;
        ps_squeeze_plan(sq, 0, 0);
        return;
    }
    for (j = 0; j < m; j++) {
        size_t i = m > 1 ? (p->n - 1) / (m - 1) * j : 0;
        rows[j] = perm != NULL ? perm[i] : i;
    }
    word_images(p, w, rows, 0, m, v);
    for (j = 0; j < m; j++)
        vary |= v[j] ^ v[0];
    *ref = v[0];
    ps_squeeze_plan(sq, vary, v[0]);
}

/* How many chunks the rows are filled or moved in. */
static size_t rec_chunks(size_t n, const ps_backend_ops *ops)
{
    return n >= REC_PAR_MIN && ops != NULL && ops->run_jobs != NULL
           ? REC_CHUNKS : 1;
}

/* job(ctx, i) for the fill c's chunks i (on the backend's threads when
 * there are several); returns the images' OR XOR c->ref. */
static uint64_t fill_chunks(rec_fill *c, void (*job)(void *, size_t),
                            void *ctx, const ps_backend_ops *ops, void *state)
{
    uint64_t diff[REC_CHUNKS] = { 0 }, all = 0;
    size_t i;
    c->diff = diff;
    if (c->chunks > 1)
        ops->run_jobs(state, c->chunks, job, ctx);
    else
        job(ctx, 0);
    for (i = 0; i < c->chunks; i++)
        all |= diff[i];
    c->diff = NULL;
    return all;
}

/* Word w's images of rows r(i) into img, squeezed by *sq: planned from a
 * sample, and when the whole fill shows a bit varying that the sample
 * did not (a rare row unlike the others), planned from every image and
 * filled again, so that the squeeze always keeps every varying bit. */
static void fill_word(const rec_plan *p, const rec_word *w,
                      const size_t *perm, void *img, ps_squeeze *sq,
                      const ps_backend_ops *ops, void *state)
{
    rec_fill c = { p, w, perm, img, rec_chunks(p->n, ops), sq, 0, NULL };
    uint64_t vary;
    plan_squeeze(p, w, perm, sq, &c.ref);
    vary = fill_chunks(&c, fill_job, &c, ops, state);
    if ((vary & ~sq->keep) != 0) {
        ps_squeeze_plan(sq, vary, c.ref);
        (void)fill_chunks(&c, fill_job, &c, ops, state);
    }
}

/* A failed sort of ours: its detail, which names the public function we
 * called, said as this call's. */
static int sort_failed(const rec_plan *p, int st)
{
    char why[512];
    snprintf(why, sizeof why, "%s", ps_error_detail());
    ps_detail_set("%s: %s", p->fn, why);
    return st;
}

/* Where runs of equal images of a sorted word start, on top of the runs
 * cut already marks (cut[i] != 0: a run starts at row i): marks them in
 * cut, writes the runs' starts and then n to off, returns how many. */
static size_t runs(const void *img, unsigned wb, size_t n, unsigned char *cut,
                   size_t *off)
{
    size_t i, r = 0;
    for (i = 0; i < n; i++) {
        int start = i == 0 || cut[i];
        switch (wb) {
        case 1: start |= i > 0 && ((const uint8_t *)img)[i] != ((const uint8_t *)img)[i - 1]; break;
        case 2: start |= i > 0 && ((const uint16_t *)img)[i] != ((const uint16_t *)img)[i - 1]; break;
        case 4: start |= i > 0 && ((const uint32_t *)img)[i] != ((const uint32_t *)img)[i - 1]; break;
        default: start |= i > 0 && ((const uint64_t *)img)[i] != ((const uint64_t *)img)[i - 1]; break;
        }
        if (start) {
            cut[i] = 1;
            off[r++] = i;
        }
    }
    off[r] = n;
    return r;
}

/* The stable sorting permutation of the plan's rows into perm (n > 1).
 * One word: an argsort of its images.  Several: the first word's images
 * sorted with the row numbers, then each next word only inside the runs
 * of rows equal in every word so far (one segmented sort, the runs as
 * its segments), and none once every run is one row long: a first word
 * that tells the rows apart (a COO matrix's row and column) costs one
 * sort, whatever follows.  img holds n images of the widest word, off
 * n + 1 offsets and cut n bytes (used with several words only). */
static int plan_argsort_in(const rec_plan *p, void *img, size_t *perm,
                           size_t *off, unsigned char *cut)
{
    const ps_backend_ops *ops;
    void *state;
    ps_squeeze sq;
    size_t w, i, n = p->n;
    int st = ps_backend_for(n, &ops, &state);
    if (st != PS_OK)
        return st;
    fill_word(p, &p->word[0], NULL, img, &sq, ops, state);
    if (p->nwords == 1) {
        st = ps_argsort(img, perm, n, word_type(sq.bits), 0);
        return st != PS_OK ? sort_failed(p, st) : PS_OK;
    }
    for (i = 0; i < n; i++)
        perm[i] = i;
    st = ps_sort_pairs(img, perm, sizeof *perm, n, word_type(sq.bits), 0);
    memset(cut, 0, n);
    for (w = 1; st == PS_OK && w < p->nwords; w++) {
        size_t nseg = runs(img, word_bytes(sq.bits), n, cut, off);
        if (nseg == n)
            break;          /* every row apart: nothing later reorders */
        fill_word(p, &p->word[w], perm, img, &sq, ops, state);
        st = ps_sort_segments(img, perm, sizeof *perm, n, off, nseg,
                              word_type(sq.bits), 0);
    }
    return st != PS_OK ? sort_failed(p, st) : PS_OK;
}

/* plan_argsort_in, its sorts counted against the caller's memory limit
 * with the blocks the records call took before them. */
static int plan_argsort(const rec_plan *p, void *img, size_t *perm,
                        size_t *off, unsigned char *cut)
{
    int st;
    ps_mem_nest(1);
    st = plan_argsort_in(p, img, perm, off, cut);
    ps_mem_nest(0);
    return st;
}

static void plan_free(rec_plan *p)
{
    ps_release(p->key);
    ps_release(p->word);
}

static int plan_alloc(rec_plan *p, size_t nkeys)
{
    /* nkeys comes from a caller's array of that many structs or
     * pointers, so these products fit. */
    p->nkeys = nkeys;
    p->key = ps_alloc(nkeys * sizeof *p->key);
    p->word = ps_alloc(nkeys * sizeof *p->word);
    if (p->key == NULL || p->word == NULL) {
        plan_free(p);
        ps_detail_set("%s: cannot allocate the plan of %zu keys", p->fn, nkeys);
        return PS_ERR_NO_MEMORY;
    }
    return PS_OK;
}

/* Scratch for the images, the permutation, the runs' offsets and cut
 * flags (and, with extra > 0, extra more bytes), in one block: *img,
 * *perm, *off, *cut and *more. */
typedef struct rec_scratch {
    unsigned char *block;       /* kept between calls when kept (ps_scratch.c) */
    int kept;
    void *img;
    size_t *perm, *off;
    unsigned char *cut, *more;
} rec_scratch;

static int scratch(const rec_plan *p, size_t extra, rec_scratch *sc)
{
    size_t ib = 8 * p->n, pb = p->n * sizeof(size_t), ob = pb + sizeof(size_t);
    size_t bytes;
    /* 8 + 8 + 8 + 1 bytes a row: refused before any of it can wrap. */
    if (p->n > SIZE_MAX / 32 - 1 || extra > SIZE_MAX / 2 - 4 * (ib + 64)) {
        ps_detail_set("%s: n = %zu: its scratch would overflow size_t", p->fn,
                      p->n);
        return PS_ERR_TOO_LARGE;
    }
    bytes = ib + pb + ob + ps_round_up8(p->n) + extra + 64;
    sc->block = ps_scratch_take(bytes, &sc->kept);
    if (sc->block == NULL) {
        ps_detail_set("%s: cannot allocate %zu bytes of scratch", p->fn, bytes);
        return PS_ERR_NO_MEMORY;
    }
    sc->img = sc->block;
    sc->perm = (size_t *)(void *)(sc->block + ib);
    sc->off = (size_t *)(void *)(sc->block + ib + pb);
    sc->cut = sc->block + ib + pb + ob;
    sc->more = sc->cut + ps_round_up8(p->n);
    return PS_OK;
}

/* The fields of a records call checked and made into keys. */
static int fields_plan(rec_plan *p, const void *records, size_t record_size,
                       const ps_field *fields, size_t num_fields)
{
    size_t f;
    int st = ps_rec_check_fields(p->fn, record_size, p->n, fields, num_fields,
                                 ps_detail_set);
    if (st != PS_OK)
        return st;
    if (p->n > 0 && records == NULL) {
        ps_detail_set("%s: records is NULL with n = %zu", p->fn, p->n);
        return PS_ERR_INVALID_ARG;
    }
    st = plan_alloc(p, num_fields);
    if (st != PS_OK)
        return st;
    for (f = 0; f < num_fields; f++) {
        p->key[f] = ps_rec_field_key(&fields[f], record_size);
        p->key[f].base = (const unsigned char *)records + fields[f].offset;
    }
    plan_words(p);
    return PS_OK;
}

/* Records, fields and perm (NULL for none) must not share a byte. */
static int records_spans(const rec_plan *p, const void *records,
                         size_t record_size, const ps_field *fields,
                         size_t num_fields, const size_t *perm)
{
    ps_span sp[3] = {
        ps_span_of("records", records, p->n * record_size),
        ps_span_of("fields", fields, num_fields * sizeof *fields),
        ps_span_of("perm", perm, perm != NULL ? p->n * sizeof *perm : 0),
    };
    return ps_spans_check(p->fn, sp, 3, ps_detail_set);
}

int ps_argsort_records(const void *records, size_t record_size, size_t n,
                       const ps_field *fields, size_t num_fields, size_t *perm)
{
    rec_plan p = { "ps_argsort_records", n, NULL, NULL, 0, 0 };
    rec_scratch sc = { NULL, 0, NULL, NULL, NULL, NULL, NULL };
    int st;

    ps_detail_clear();
    st = fields_plan(&p, records, record_size, fields, num_fields);
    if (st != PS_OK)
        return st;
    if (n > 0 && perm == NULL) {
        ps_detail_set("%s: perm is NULL with n = %zu", p.fn, n);
        st = PS_ERR_INVALID_ARG;
    } else if (n > SIZE_MAX / sizeof *perm) {
        ps_detail_set("%s: n = %zu indices overflow size_t", p.fn, n);
        st = PS_ERR_INVALID_ARG;
    }
    if (st == PS_OK)
        st = records_spans(&p, records, record_size, fields, num_fields, perm);
    if (st == PS_OK && n == 1)
        perm[0] = 0;
    if (st == PS_OK && n > 1)
        st = scratch(&p, 0, &sc);
    if (st == PS_OK && n > 1)
        st = plan_argsort(&p, sc.img, sc.perm, sc.off, sc.cut);
    if (st == PS_OK && n > 1)
        memcpy(perm, sc.perm, n * sizeof *perm);
    ps_scratch_put(sc.block, sc.kept);
    plan_free(&p);
    return st;
}

/* Records perm[i] into slot i of dst, for i in chunk `c` of `chunks`:
 * the common sizes copied as constants (one or two moves, not a call). */
typedef struct rec_gather {
    unsigned char *dst;
    const unsigned char *src;
    const size_t *perm;
    size_t size, n, chunks;
} rec_gather;

#define REC_COPY(SZ)                                                         \
    for (i = i0; i < i1; i++)                                                \
        memcpy(g->dst + i * (SZ), g->src + g->perm[i] * (SZ), (SZ));         \
    break

static void gather_job(void *ctx, size_t c)
{
    const rec_gather *g = ctx;
    size_t i0 = g->n / g->chunks * c, i, sz = g->size;
    size_t i1 = c + 1 == g->chunks ? g->n : g->n / g->chunks * (c + 1);
    switch (sz) {
    case 4: REC_COPY(4);
    case 8: REC_COPY(8);
    case 12: REC_COPY(12);
    case 16: REC_COPY(16);
    case 24: REC_COPY(24);
    case 32: REC_COPY(32);
    default: REC_COPY(sz);
    }
}

/* ---- small records, one word: sorted as pairs, no gather ------------
 *
 * When the keys fit one word and the record's other bytes (those no key
 * covers) are at most 8, the record is its word's images (which decode
 * back into the key bytes: the order transform is a bijection) plus those
 * few bytes.  Sorting the images with the rest as 4- or 8-byte values
 * moves everything in the backend's streaming passes, and the records are
 * then rebuilt in order, instead of an argsort followed by a random-access
 * gather of whole records (COO entries {u32 row, u32 col, f64 val} by
 * row and column: 8 key bytes, 8 others). */
#define REC_REST_MAX 8u

typedef struct rec_direct {
    const rec_plan *p;
    unsigned char *rec;
    size_t size;
    const void *img;
    unsigned char *vals;           /* vb bytes a record, or NULL */
    unsigned vb, nrest;
    const unsigned char *rest;     /* the rest's byte positions */
    size_t chunks;
    const rec_fill *fill;          /* the images' fill, into img */
} rec_direct;

/* Key k's bytes, decoded from its bits in the word images v[0 ..] of
 * rows i0 .. i1 - 1, into those records: one loop a key with its width
 * fixed. */
#define REC_PUT_LOOP(UT, DEC)                                                \
    for (i = i0; i < i1; i++) {                                              \
        UT x = DEC((UT)(v[i - i0] >> k->shift), k->xf);                      \
        memcpy(d->rec + i * d->size + k->off, &x, sizeof x);                 \
    }                                                                        \
    break

static void key_put(const rec_direct *d, const rec_key *k, const uint64_t *v,
                    size_t i0, size_t i1)
{
    size_t i;
    switch (k->kb) {
    case 1: REC_PUT_LOOP(uint8_t, ps_dec8);
    case 2: REC_PUT_LOOP(uint16_t, ps_dec16);
    case 4: REC_PUT_LOOP(uint32_t, ps_dec32);
    default: REC_PUT_LOOP(uint64_t, ps_dec64);
    }
}

/* The rest's bytes of rows i0 .. i1 - 1 between the records and the
 * values (to_rec: into the records): one move of 4 or 8 bytes a row when
 * they are one run of that length (a COO entry's f64), else byte by byte. */
static void rest_move(const rec_direct *d, unsigned char *vals, size_t i0,
                      size_t i1, int to_rec)
{
    size_t i;
    unsigned j, run = 1;
    for (j = 1; j < d->nrest; j++)
        run &= d->rest[j] == d->rest[0] + j;
    if (run && (d->nrest == 8 || d->nrest == 4)) {
        size_t at = d->rest[0];
        if (d->nrest == 8)
            for (i = i0; i < i1; i++)
                if (to_rec)
                    memcpy(d->rec + i * d->size + at, vals + i * 8, 8);
                else
                    memcpy(vals + i * 8, d->rec + i * d->size + at, 8);
        else
            for (i = i0; i < i1; i++)
                if (to_rec)
                    memcpy(d->rec + i * d->size + at, vals + i * 4, 4);
                else
                    memcpy(vals + i * 4, d->rec + i * d->size + at, 4);
        return;
    }
    for (i = i0; i < i1; i++)
        for (j = 0; j < d->vb; j++) {
            unsigned char *r = d->rec + i * d->size;
            if (to_rec && j < d->nrest)
                r[d->rest[j]] = vals[i * d->vb + j];
            else if (!to_rec)
                vals[i * d->vb + j] = j < d->nrest ? r[d->rest[j]] : 0;
        }
}

/* Chunk c of the rows: the values gathered from the records (before the
 * sort), or the records rebuilt from the sorted images and values. */
static void chunk_rows(const rec_direct *d, size_t c, size_t *i0, size_t *i1)
{
    *i0 = d->p->n / d->chunks * c;
    *i1 = c + 1 == d->chunks ? d->p->n : d->p->n / d->chunks * (c + 1);
}

/* Chunk c of the rows packed: their images, then (while their records
 * are in cache) the values from the same block of records.  Two passes
 * over the records, one for each, read 256 MB more for 16M COO entries:
 * 166 -> 160-163 ms of ps_sort_records (2 threads, Zen 5). */
static void pack_job(void *ctx, size_t c)
{
    const rec_direct *d = ctx;
    size_t i0, i1, a;
    chunk_rows(d, c, &i0, &i1);
    for (a = i0; a < i1; a += REC_BLOCK) {
        size_t e = i1 - a < REC_BLOCK ? i1 : a + REC_BLOCK;
        fill_range(d->fill, a, e, &d->fill->diff[c]);
        if (d->vb > 0)
            rest_move(d, d->vals, a, e, 0);
    }
}

static void rebuild_job(void *ctx, size_t c)
{
    const rec_direct *d = ctx;
    const rec_word *w = &d->p->word[0];
    unsigned wb = word_bytes(d->fill->sq->bits), j;
    size_t i0, i1, a, i;
    uint64_t v[REC_BLOCK];
    chunk_rows(d, c, &i0, &i1);
    for (a = i0; a < i1; a += REC_BLOCK) {
        size_t e = i1 - a < REC_BLOCK ? i1 : a + REC_BLOCK;
        for (i = a; i < e; i++)
            switch (wb) {
            case 1: v[i - a] = ((const uint8_t *)d->img)[i]; break;
            case 2: v[i - a] = ((const uint16_t *)d->img)[i]; break;
            case 4: v[i - a] = ((const uint32_t *)d->img)[i]; break;
            default: v[i - a] = ((const uint64_t *)d->img)[i]; break;
            }
        ps_squeeze_expand_block(d->fill->sq, v, e - a);
        for (j = 0; j < w->count; j++)
            key_put(d, &d->p->key[w->first + j], v, a, e);
        if (d->nrest > 0)
            rest_move(d, d->vals, a, e, 1);
    }
}

/* When the keys make one word and the record is at most REC_REST_MAX + 8
 * bytes: the positions of the bytes no key covers in rest[0 ..] (room for
 * REC_REST_MAX + 8), how many in *nrest, and 1; else 0. */
static int direct_fits(const rec_plan *p, const ps_field *fields,
                       size_t record_size, unsigned char *rest,
                       unsigned *nrest)
{
    unsigned char covered[REC_REST_MAX + 8];
    size_t f, b;
    if (p->nwords != 1 || record_size > sizeof covered)
        return 0;
    memset(covered, 0, sizeof covered);
    for (f = 0; f < p->nkeys; f++)
        memset(covered + fields[f].offset, 1, ps_type_bytes(fields[f].type));
    *nrest = 0;
    for (b = 0; b < record_size; b++)
        if (!covered[b])
            rest[(*nrest)++] = (unsigned char)b;
    return 1;
}

static int sort_direct(const rec_plan *p, unsigned char *rec,
                       size_t record_size, const unsigned char *rest,
                       unsigned nrest)
{
    const ps_backend_ops *ops;
    void *state;
    unsigned vb = nrest == 0 ? 0 : nrest <= 4 ? 4 : 8;
    size_t n = p->n, ib = 8 * n;
    unsigned char *block, *vals;
    rec_direct d;
    rec_fill f;
    ps_squeeze sq;
    uint64_t vary;
    int kept, st = ps_backend_for(n, &ops, &state);
    if (st != PS_OK)
        return st;
    /* n records of at least one byte fit in memory; 16 bytes each more
     * are refused before they could wrap. */
    if (n > SIZE_MAX / 16 - 8) {
        ps_detail_set("%s: n = %zu: its scratch would overflow size_t", p->fn, n);
        return PS_ERR_TOO_LARGE;
    }
    block = ps_scratch_take(ib + (size_t)vb * n + 64, &kept);
    if (block == NULL) {
        ps_detail_set("%s: cannot allocate %zu bytes of scratch", p->fn,
                      ib + (size_t)vb * n + 64);
        return PS_ERR_NO_MEMORY;
    }
    vals = block + ib;
    {
        rec_fill f0 = { p, &p->word[0], NULL, block, rec_chunks(n, ops),
                        &sq, 0, NULL };
        rec_direct init = { p, rec, record_size, block, vals, vb, nrest, rest,
                            f0.chunks, &f };
        f = f0;
        d = init;
    }
    /* As fill_word, with the values moved in the same pass. */
    plan_squeeze(p, f.w, NULL, &sq, &f.ref);
    vary = fill_chunks(&f, pack_job, &d, ops, state);
    if ((vary & ~sq.keep) != 0) {
        ps_squeeze_plan(&sq, vary, f.ref);
        (void)fill_chunks(&f, pack_job, &d, ops, state);
    }
    ps_mem_nest(1);             /* counted with block and vals */
    st = vb == 0 ? ps_sort_keys(block, n, word_type(sq.bits), 0)
                 : ps_sort_pairs(block, vals, vb, n, word_type(sq.bits), 0);
    ps_mem_nest(0);
    if (st != PS_OK) {
        ps_scratch_put(block, kept);
        return sort_failed(p, st);
    }
    if (d.chunks > 1)
        ops->run_jobs(state, d.chunks, rebuild_job, &d);
    else
        rebuild_job(&d, 0);
    ps_scratch_put(block, kept);
    return PS_OK;
}

int ps_sort_records(void *records, size_t record_size, size_t n,
                    const ps_field *fields, size_t num_fields)
{
    rec_plan p = { "ps_sort_records", n, NULL, NULL, 0, 0 };
    rec_scratch sc = { NULL, 0, NULL, NULL, NULL, NULL, NULL };
    unsigned char *rec = records;
    int st;

    ps_detail_clear();
    st = fields_plan(&p, records, record_size, fields, num_fields);
    if (st != PS_OK)
        return st;
    st = records_spans(&p, records, record_size, fields, num_fields, NULL);
    if (st == PS_OK && n > 1) {
        unsigned char rest[REC_REST_MAX + 8];
        unsigned nrest;
        if (direct_fits(&p, fields, record_size, rest, &nrest)
            && nrest <= REC_REST_MAX) {
            st = sort_direct(&p, rec, record_size, rest, nrest);
            plan_free(&p);
            return st;
        }
    }
    if (st == PS_OK && n > 1)
        st = scratch(&p, n * record_size, &sc);
    if (st == PS_OK && n > 1)
        st = plan_argsort(&p, sc.img, sc.perm, sc.off, sc.cut);
    /* Gathered into the copy, then back: the records move once each way,
     * and nothing was written before every step that can fail passed. */
    if (st == PS_OK && n > 1) {
        rec_gather g = { sc.more, rec, sc.perm, record_size, n, 1 };
        const ps_backend_ops *ops;
        void *state;
        if (n >= REC_PAR_MIN && ps_backend_for(n, &ops, &state) == PS_OK
            && ops->run_jobs != NULL) {
            g.chunks = REC_CHUNKS;
            ops->run_jobs(state, g.chunks, gather_job, &g);
        } else {
            gather_job(&g, 0);
        }
        memcpy(rec, sc.more, n * record_size);
    }
    ps_scratch_put(sc.block, sc.kept);
    plan_free(&p);
    return st;
}

int ps_argsort_columns(const void *const *columns, const ps_type *types,
                       const unsigned *flags, size_t num_columns, size_t n,
                       size_t *perm)
{
    rec_plan p = { "ps_argsort_columns", n, NULL, NULL, 0, 0 };
    rec_scratch sc = { NULL, 0, NULL, NULL, NULL, NULL, NULL };
    ps_span *sp = NULL;
    size_t c;
    int st;

    ps_detail_clear();
    st = ps_rec_check_columns(p.fn, "columns", columns, types, flags, num_columns,
                              ps_detail_set);
    if (st != PS_OK)
        return st;
    if (n > 0 && perm == NULL) {
        ps_detail_set("%s: perm is NULL with n = %zu", p.fn, n);
        return PS_ERR_INVALID_ARG;
    }
    if (n > SIZE_MAX / sizeof *perm || num_columns > SIZE_MAX / sizeof *sp - 4) {
        ps_detail_set("%s: n = %zu or num_columns = %zu overflows size_t",
                      p.fn, n, num_columns);
        return PS_ERR_INVALID_ARG;
    }
    for (c = 0; c < num_columns; c++) {
        if (n > 0 && columns[c] == NULL) {
            ps_detail_set("%s: column %zu is NULL with n = %zu", p.fn, c, n);
            return PS_ERR_INVALID_ARG;
        }
    }
    /* Every array of the call, pairwise: the columns (n keys each), the
     * arrays that describe them, and perm. */
    sp = ps_alloc((num_columns + 4) * sizeof *sp);
    if (sp == NULL) {
        ps_detail_set("%s: cannot allocate the check of %zu columns", p.fn,
                      num_columns);
        return PS_ERR_NO_MEMORY;
    }
    sp[0] = ps_span_of("perm", perm, n * sizeof *perm);
    sp[1] = ps_span_of("columns", columns, num_columns * sizeof *columns);
    sp[2] = ps_span_of("types", types, num_columns * sizeof *types);
    sp[3] = ps_span_of("flags", flags, flags ? num_columns * sizeof *flags : 0);
    for (c = 0; c < num_columns; c++)
        sp[4 + c] = ps_span_of("a column", columns[c], n * ps_type_bytes(types[c]));
    st = ps_spans_check(p.fn, sp, num_columns + 4, ps_detail_set);
    ps_release(sp);
    if (st != PS_OK)
        return st;
    if (n < 2) {
        if (n == 1)
            perm[0] = 0;
        return PS_OK;
    }
    st = plan_alloc(&p, num_columns);
    if (st != PS_OK)
        return st;
    for (c = 0; c < num_columns; c++) {
        p.key[c] = ps_rec_column_key(types[c], flags ? flags[c] : 0);
        p.key[c].base = columns[c];
    }
    plan_words(&p);
    st = scratch(&p, 0, &sc);
    if (st == PS_OK)
        st = plan_argsort(&p, sc.img, sc.perm, sc.off, sc.cut);
    if (st == PS_OK)
        memcpy(perm, sc.perm, n * sizeof *perm);
    ps_scratch_put(sc.block, sc.kept);
    plan_free(&p);
    return st;
}
