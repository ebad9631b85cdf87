/*
 * ps_openmp_impl.h - the OpenMP radix sort for one key width.  Included by
 * ps_openmp.c once per width with PS_W defined to 8, 16, 32 or 64, after
 * the width-independent context (omp_ctx, omp_tls) and helpers.
 *
 * Shape: MSD passes over arrays too large for the caches, LSD passes inside
 * each bucket once it fits in cache.  Every pass is a stable counting
 * scatter, so the whole sort is stable.  Keys move as their original bits;
 * digits are computed from the order image on the fly (see ps_backend.h),
 * so nothing is transformed back.
 */
#define PS_CAT_(a, b) a##b
#define PS_CAT(a, b) PS_CAT_(a, b)
#define KEY_T PS_CAT(PS_CAT(uint, PS_W), _t)
#define ENC PS_CAT(ps_enc, PS_W)
#define FN(name) PS_CAT(name, PS_W)
/* Keys per 64-byte line of the write-combining buffers. */
#define LINE (64 / (PS_W / 8))

static inline unsigned FN(digit)(KEY_T k, ps_xf xf, unsigned sh, unsigned mask)
{
    return (unsigned)((ENC(k, xf) >> sh) & mask);
}

/* Histograms of every digit of keys[a, b) at once, one read of the keys:
 * cnt[j * radix + d] for digit j. */
static void FN(hist_all)(const omp_ctx *c, const KEY_T *keys, size_t a,
                         size_t b, size_t *cnt)
{
    unsigned sh[PS_MAX_DIGITS], mask[PS_MAX_DIGITS], j, nd = c->nd;
    size_t i;
    memset(cnt, 0, (size_t)nd * c->radix * sizeof *cnt);
    for (j = 0; j < nd; j++) {
        sh[j] = j * c->db;
        mask[j] = digit_mask(c, j);
    }
    for (i = a; i < b; i++) {
        KEY_T t = ENC(keys[i], c->xf);
        for (j = 0; j < nd; j++)
            cnt[(size_t)j * c->radix + ((t >> sh[j]) & mask[j])]++;
    }
}

/* Histogram of digit j of keys[a, b). */
static void FN(hist_one)(const omp_ctx *c, const KEY_T *keys, size_t a,
                         size_t b, unsigned j, size_t *cnt)
{
    unsigned sh = j * c->db, mask = digit_mask(c, j);
    size_t i;
    memset(cnt, 0, (size_t)c->radix * sizeof *cnt);
    for (i = a; i < b; i++)
        cnt[FN(digit)(keys[i], c->xf, sh, mask)]++;
}


/* Write the last `take` elements of bucket d's current line, which holds
 * `fill` elements and ends at index hi, to array `to`.  A whole line that
 * is ours goes out with streaming stores, which skip the
 * read-for-ownership and leave the caches to the buffers; a partial line
 * (shared with another thread's or bucket's range) is copied with ordinary
 * stores.  Counting back from hi keeps every index in range: the line's
 * first index may lie before the array. */
static inline __attribute__((always_inline)) void
FN(flush)(const omp_ctx *c, omp_tls *tl, int to, unsigned d, size_t hi,
          size_t take, size_t fill, const size_t vs)
{
    KEY_T *kl = (KEY_T *)(void *)tl->kline + (size_t)d * LINE;
    KEY_T *dst = (KEY_T *)c->k[to];
    size_t lo = hi - take, off = fill - take;
    if (take == LINE && (c->stream[to] & 1))
        ps_stream_bytes(dst + lo, kl, 64);
    else
        memcpy(dst + lo, kl + off, take * sizeof(KEY_T));
    if (vs) {
        unsigned char *vl = tl->vline + (size_t)d * LINE * vs;
        unsigned char *vdst = c->v[to] + lo * vs;
        if (take == LINE && (c->stream[to] & 2))
            ps_stream_bytes(vdst, vl, LINE * vs);
        else
            memcpy(vdst, vl + off * vs, take * vs);
    }
}

/* Stable scatter of positions [a, b) of array `from` by digit (sh, mask)
 * into the other array, bucket d starting at tl->pos[d] (advanced as keys
 * are written; tl->start[d] keeps where this caller's part of bucket d
 * begins).  Keys go through one line buffer per bucket (software
 * write-combining): the 2^bits write streams of a plain scatter alias in the
 * caches and the TLB, worst at power-of-two sizes, while a buffer line fills
 * in L1 and leaves as one 64-byte write.  Lines are aligned to the
 * destination's real 64-byte lines (c->shift), so that whole lines can be
 * streamed. */
static inline __attribute__((always_inline)) void
FN(scatter_body)(const omp_ctx *c, omp_tls *tl, int from, size_t a, size_t b,
                 unsigned sh, unsigned mask, const size_t vs)
{
    const KEY_T *src = (const KEY_T *)c->k[from];
    const unsigned char *vsrc = c->v[from];
    KEY_T *kl = (KEY_T *)(void *)tl->kline;
    unsigned char *vl = tl->vline;
    size_t *pos = tl->pos, *start = tl->start;
    const size_t kshift = c->shift[1 - from];
    const ps_xf xf = c->xf;
    unsigned d;
    size_t i;

    for (i = a; i < b; i++) {
        KEY_T k = src[i];
        size_t p, slot;
        d = FN(digit)(k, xf, sh, mask);
        p = pos[d]++;
        slot = (p + kshift) & (LINE - 1);
        kl[(size_t)d * LINE + slot] = k;
        if (vs)
            memcpy(vl + ((size_t)d * LINE + slot) * vs, vsrc + i * vs, vs);
        if (slot == LINE - 1) {
            size_t ours = p + 1 - start[d];
            FN(flush)(c, tl, 1 - from, d, p + 1, ours < LINE ? ours : LINE,
                      LINE, vs);
        }
    }
    /* What is left in every bucket's last, partial line. */
    for (d = 0; d <= mask; d++) {
        size_t end = pos[d], fill = (end + kshift) & (LINE - 1);
        size_t ours = end - start[d];
        if (fill > 0 && ours > 0)
            FN(flush)(c, tl, 1 - from, d, end, ours < fill ? ours : fill,
                      fill, vs);
    }
    ps_stream_fence();
}

static void FN(scatter)(const omp_ctx *c, omp_tls *tl, int from, size_t a,
                        size_t b, unsigned j)
{
    unsigned sh = j * c->db, mask = digit_mask(c, j);
    switch (c->vs) {
    case 0: FN(scatter_body)(c, tl, from, a, b, sh, mask, 0); break;
    case 4: FN(scatter_body)(c, tl, from, a, b, sh, mask, 4); break;
    default: FN(scatter_body)(c, tl, from, a, b, sh, mask, 8); break;
    }
}

/* One LSD pass over a cache-resident bucket: a plain scatter, since the
 * destination is in cache and write-combining would only add work. */
static inline __attribute__((always_inline)) void
FN(leaf_pass_body)(const KEY_T *src, KEY_T *dst, const unsigned char *vsrc,
                   unsigned char *vdst, size_t m, ps_xf xf, unsigned sh,
                   unsigned mask, uint32_t *off, const size_t vs)
{
    size_t i;
    for (i = 0; i < m; i++) {
        KEY_T k = src[i];
        uint32_t o = off[FN(digit)(k, xf, sh, mask)]++;
        dst[o] = k;
        if (vs)
            memcpy(vdst + (size_t)o * vs, vsrc + i * vs, vs);
    }
}

/* Sort positions [a, a + m) by their digits below `top` (those in
 * `active`), LSD, ping-ponging between array `where` and the other one, and
 * leave the result in array 0 (the caller's).  m must fit in 32 bits. */
static void FN(leaf)(const omp_ctx *c, omp_tls *tl, int where, size_t a,
                     size_t m, unsigned top, unsigned active)
{
    uint32_t *h = tl->lhist, *off = tl->loff;
    unsigned j, radix = c->radix;
    int cur = where;
    size_t i;

    if (m <= 1 || top == 0)
        goto done;
    {
        /* One read for the histograms of every digit left. */
        unsigned sh[PS_MAX_DIGITS], mask[PS_MAX_DIGITS];
        const KEY_T *keys = (const KEY_T *)c->k[where] + a;
        for (j = 0; j < top; j++) {
            sh[j] = j * c->db;
            mask[j] = digit_mask(c, j);
            if (active & (1u << j))
                memset(h + (size_t)j * radix, 0, radix * sizeof *h);
        }
        for (i = 0; i < m; i++) {
            KEY_T t = ENC(keys[i], c->xf);
            for (j = 0; j < top; j++)
                if (active & (1u << j))
                    h[(size_t)j * radix + ((t >> sh[j]) & mask[j])]++;
        }
        for (j = 0; j < top; j++) {
            uint32_t *hj = h + (size_t)j * radix, sum = 0;
            unsigned d;
            if (!(active & (1u << j))
                || hj[(ENC(keys[0], c->xf) >> sh[j]) & mask[j]] == m)
                continue;   /* the same digit everywhere: order unchanged */
            for (d = 0; d <= mask[j]; d++) {
                off[d] = sum;
                sum += hj[d];
            }
            {
                const KEY_T *src = (const KEY_T *)c->k[cur] + a;
                KEY_T *dst = (KEY_T *)c->k[1 - cur] + a;
                const unsigned char *vsrc = c->v[cur] ? c->v[cur] + a * c->vs : NULL;
                unsigned char *vdst = c->v[1 - cur] ? c->v[1 - cur] + a * c->vs : NULL;
                switch (c->vs) {
                case 0: FN(leaf_pass_body)(src, dst, vsrc, vdst, m, c->xf, sh[j], mask[j], off, 0); break;
                case 4: FN(leaf_pass_body)(src, dst, vsrc, vdst, m, c->xf, sh[j], mask[j], off, 4); break;
                default: FN(leaf_pass_body)(src, dst, vsrc, vdst, m, c->xf, sh[j], mask[j], off, 8); break;
                }
            }
            cur = 1 - cur;
            keys = (const KEY_T *)c->k[cur] + a;
        }
    }
done:
    if (cur != 0 && m > 0) {
        memcpy((KEY_T *)c->k[0] + a, (const KEY_T *)c->k[1] + a, m * sizeof(KEY_T));
        if (c->vs)
            memcpy(c->v[0] + a * c->vs, c->v[1] + a * c->vs, m * c->vs);
    }
}

/* Turn the counts of one digit over a range starting at `base` into bucket
 * bounds: bounds[d] is where bucket d starts, bounds[radix] the end.
 * Returns 1 when a single bucket holds everything (nothing to do). */
static int FN(bounds)(const size_t *cnt, unsigned buckets, size_t base,
                      size_t m, size_t *bounds)
{
    unsigned d;
    size_t sum = base;
    int constant = 0;
    for (d = 0; d < buckets; d++) {
        bounds[d] = sum;
        sum += cnt[d];
        constant |= cnt[d] == m;
    }
    bounds[buckets] = sum;
    return constant;
}

/* Sort positions [a, a + m) of array `where` by digits below `top`, on one
 * thread: MSD passes while the range is larger than a leaf, then a leaf.
 * Each digit level keeps its bucket bounds in tl->bounds[j], so recursion
 * needs no other storage. */
static void FN(solo)(const omp_ctx *c, omp_tls *tl, int where, size_t a,
                     size_t m, unsigned top, unsigned active)
{
    unsigned j, d, buckets;
    size_t *bounds;

    while (top > 0 && !(active & (1u << (top - 1))))
        top--;
    if (top == 0 || m <= c->leaf_cap) {
        FN(leaf)(c, tl, where, a, m, top, active);
        return;
    }
    j = top - 1;
    buckets = digit_mask(c, j) + 1;
    bounds = tl->bounds + (size_t)j * (c->radix + 1);
    FN(hist_one)(c, (const KEY_T *)c->k[where], a, a + m, j, tl->pos);
    if (FN(bounds)(tl->pos, buckets, a, m, bounds)) {
        FN(solo)(c, tl, where, a, m, j, active);
        return;
    }
    memcpy(tl->pos, bounds, buckets * sizeof *bounds);
    memcpy(tl->start, bounds, buckets * sizeof *bounds);
    FN(scatter)(c, tl, where, a, a + m, j);
    for (d = 0; d < buckets; d++)
        if (bounds[d + 1] > bounds[d])
            FN(solo)(c, tl, 1 - where, bounds[d], bounds[d + 1] - bounds[d], j,
                     active);
}

/* Sort positions [a, a + m) of array `where` by digits below `top`, with
 * every thread of the team calling it alike (it has barriers).  Each thread
 * counts and scatters its own slice of the range; a thread's part of every
 * bucket follows the parts of the threads before it, which keeps the pass
 * stable.  With counted = 1 the counts of the first pass are already in
 * c->tcount (from the up-front histogram). */
static void FN(team)(const omp_ctx *c, int where, size_t a, size_t m,
                     unsigned top, unsigned active, int counted)
{
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    omp_tls *tl = tls_of(c, t);
    size_t lo = a + m * (size_t)t / (size_t)nt;
    size_t hi = a + m * (size_t)(t + 1) / (size_t)nt;
    size_t *bounds, *tot = tl->pos;
    unsigned j, d, buckets;
    int u;

    for (;;) {
        while (top > 0 && !(active & (1u << (top - 1))))
            top--;
        if (top == 0) {
            if (where != 0) {
                memcpy((KEY_T *)c->k[0] + lo, (const KEY_T *)c->k[1] + lo,
                       (hi - lo) * sizeof(KEY_T));
                if (c->vs)
                    memcpy(c->v[0] + lo * c->vs, c->v[1] + lo * c->vs,
                           (hi - lo) * c->vs);
            }
            break;
        }
        j = top - 1;
        buckets = digit_mask(c, j) + 1;
        if (!counted) {
            FN(hist_one)(c, (const KEY_T *)c->k[where], lo, hi, j,
                         tcount_of(c, t, j));
#pragma omp barrier
        }
        counted = 0;
        /* Every thread derives the same bounds from all the counts. */
        memset(tot, 0, buckets * sizeof *tot);
        for (u = 0; u < nt; u++) {
            const size_t *cu = tcount_of(c, u, j);
            for (d = 0; d < buckets; d++)
                tot[d] += cu[d];
        }
        bounds = tl->bounds + (size_t)j * (c->radix + 1);
        if (FN(bounds)(tot, buckets, a, m, bounds)) {
            top = j;        /* constant digit: the data stays where it is */
            continue;
        }
        for (d = 0; d < buckets; d++) {
            size_t p = bounds[d];
            for (u = 0; u < t; u++)
                p += tcount_of(c, u, j)[d];
            tl->pos[d] = tl->start[d] = p;
        }
        FN(scatter)(c, tl, where, lo, hi, j);
#pragma omp barrier
        /* Buckets big enough to be worth the whole team are sorted by it,
         * one after the other; the rest go to single threads, spread
         * dynamically since their sizes differ. */
        for (d = 0; d < buckets; d++) {
            size_t bm = bounds[d + 1] - bounds[d];
            if (team_worthy(c, bm, m, nt))
                FN(team)(c, 1 - where, bounds[d], bm, j, active, 0);
        }
        {
            long bd;
#pragma omp for schedule(dynamic, 4)
            for (bd = 0; bd < (long)buckets; bd++) {
                size_t bm = bounds[bd + 1] - bounds[bd];
                if (bm > 0 && !team_worthy(c, bm, m, nt))
                    FN(solo)(c, tl, 1 - where, bounds[bd], bm, j, active);
            }
        }
        break;
    }
    /* Threads leave together, so that no thread writes the counts of the
     * next range while another still reads them. */
#pragma omp barrier
}

/* The whole sort: the up-front histogram of every digit (which also tells
 * which digits are the same for all keys and need no pass), then the MSD
 * team passes and leaves. */
static void FN(sort)(const omp_ctx *c)
{
    if (c->nthreads <= 1) {
        FN(solo)(c, tls_of(c, 0), 0, 0, c->n, c->nd, c->all_digits);
        return;
    }
#pragma omp parallel num_threads(c->nthreads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads(), u;
        size_t lo = c->n * (size_t)t / (size_t)nt;
        size_t hi = c->n * (size_t)(t + 1) / (size_t)nt;
        unsigned j, active = 0;
        const KEY_T *keys = (const KEY_T *)c->k[0];
        FN(hist_all)(c, keys, lo, hi, tcount_of(c, t, 0));
#pragma omp barrier
        for (j = 0; j < c->nd; j++) {
            /* Digit j is constant when the bucket of key 0 holds all n. */
            unsigned d0 = FN(digit)(keys[0], c->xf, j * c->db, digit_mask(c, j));
            size_t sum = 0;
            for (u = 0; u < nt; u++)
                sum += tcount_of(c, u, j)[d0];
            if (sum != c->n)
                active |= 1u << j;
        }
        FN(team)(c, 0, 0, c->n, c->nd, active, 1);
    }
}

#undef PS_CAT_
#undef PS_CAT
#undef KEY_T
#undef ENC
#undef FN
#undef LINE
