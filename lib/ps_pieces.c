/*
 * ps_pieces.c - a stable sort of pairs on a CPU backend whose scratch for
 * the whole array cannot be had (the memory limit refused it, or malloc
 * returned NULL): in pieces whose scratch fits, merged stably in place
 * with whatever memory is left as the merge's buffer (issue 32, part 1).
 *
 * Keys alone are sorted in place by the backends themselves
 * (reference/ps_inplace.c); an in-place radix sort of pairs would reorder
 * equal keys' values, so pairs come here instead:
 *  - the pieces, equal runs of the array, are sorted by the backend's own
 *    segmented sort, which takes one block for all of them before a key
 *    moves, or, where that sort's fixed tables would leave much shorter
 *    pieces, by the reference sort in a block of one piece's keys and
 *    values; the pieces are halved while the block is refused, down to
 *    PS_PIECE_MIN elements, below which the call fails with the arrays as
 *    they were;
 *  - neighbouring runs are then merged, pairwise, level by level, each
 *    merge taking equal keys from the earlier run first, so the result is
 *    bit for bit what one stable sort of the whole gives.  A merge whose
 *    shorter run fits the buffer is one linear pass through it; a longer
 *    one is split (the longer run cut in half, the cut's place in the
 *    other run found by binary search, the middle rotated) until its parts
 *    fit.  With no buffer at all the splitting goes down to single
 *    elements: slower, but it allocates nothing and cannot fail.
 * Everything the call takes is counted against the limit as any other
 * block is (ps_alloc, ps_scratch_take): the pieces' bounds and block,
 * then the buffer, out of what they left; only a try that was refused
 * and gave back all it took is not charged to the next (ps_mem_rewind).
 * The caller's arrays are changed only after the pieces' sort has its
 * scratch, and the merges cannot fail.  doc/memory.md has the figures.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_internal.h"
#include "ps_reference.h"

/* A buffer shorter than this many elements is not worth taking: the
 * merges run without one. */
#define PS_MERGE_BUF_MIN ((size_t)64)

/* One merge job: the two parallel arrays and the buffer (bk keys, bv
 * values, cap elements of each; cap 0 for none). */
typedef struct ps_mctx {
    unsigned char *k, *v, *bk, *bv;
    size_t cap;
    ps_xf xf;
} ps_mctx;

/* The order image of key i (ps_keytype.h): unsigned order is the order
 * asked for, equal keys have equal images. */
PS_FORCE_INLINE uint64_t m_img(const unsigned char *k, size_t i, size_t kb,
                               ps_xf xf)
{
    switch (kb) {
    case 1: return ps_enc8(k[i], xf);
    case 2: { uint16_t x; memcpy(&x, k + 2 * i, 2); return ps_enc16(x, xf); }
    case 4: { uint32_t x; memcpy(&x, k + 4 * i, 4); return ps_enc32(x, xf); }
    default: { uint64_t x; memcpy(&x, k + 8 * i, 8); return ps_enc64(x, xf); }
    }
}

PS_FORCE_INLINE void m_swap(const ps_mctx *c, size_t i, size_t j, size_t kb,
                            size_t vs)
{
    unsigned char t[8];
    memcpy(t, c->k + i * kb, kb);
    memcpy(c->k + i * kb, c->k + j * kb, kb);
    memcpy(c->k + j * kb, t, kb);
    memcpy(t, c->v + i * vs, vs);
    memcpy(c->v + i * vs, c->v + j * vs, vs);
    memcpy(c->v + j * vs, t, vs);
}

/* The first place in [lo, hi) whose image is >= x (lower) or > x (upper). */
PS_FORCE_INLINE size_t m_bound(const ps_mctx *c, size_t lo, size_t hi,
                               uint64_t x, int upper, size_t kb)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t y = m_img(c->k, mid, kb, c->xf);
        if (y < x || (upper && y == x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Swap the `len` elements at x with those at y (apart), through the
 * buffer, a buffer's worth at a time: memcpy's speed, not a swap's. */
PS_FORCE_INLINE void m_swap_blocks(const ps_mctx *c, size_t x, size_t y,
                                   size_t len, size_t kb, size_t vs)
{
    while (len > 0) {
        size_t m = len < c->cap ? len : c->cap;
        memcpy(c->bk, c->k + x * kb, m * kb);
        memcpy(c->bv, c->v + x * vs, m * vs);
        memcpy(c->k + x * kb, c->k + y * kb, m * kb);
        memcpy(c->v + x * vs, c->v + y * vs, m * vs);
        memcpy(c->k + y * kb, c->bk, m * kb);
        memcpy(c->v + y * vs, c->bv, m * vs);
        x += m;
        y += m;
        len -= m;
    }
}

/* [lo, mid) [mid, hi) -> [mid, hi) [lo, mid).  A side that fits the
 * buffer goes through it; else, with a buffer, the shorter side is swapped
 * block-wise with its place at the other end (Gries and Mills), which
 * leaves a smaller rotation of the same kind; without one, three
 * reversals. */
PS_FORCE_INLINE void m_rotate(const ps_mctx *c, size_t lo, size_t mid,
                              size_t hi, size_t kb, size_t vs)
{
    size_t a = mid - lo, b = hi - mid, i, j;
    while (c->cap > 0 && a > c->cap && b > c->cap) {
        if (a <= b) {           /* A B1 B2 -> B2 B1 A: rotate B2 B1 */
            m_swap_blocks(c, lo, hi - a, a, kb, vs);
            hi -= a;
            b -= a;
        } else {                /* A1 A2 B -> B A2 A1: rotate A2 A1 */
            m_swap_blocks(c, lo, mid, b, kb, vs);
            lo += b;
            a -= b;
        }
        mid = lo + a;
    }
    if (a == 0 || b == 0)
        return;
    if (a <= b && a <= c->cap) {
        memcpy(c->bk, c->k + lo * kb, a * kb);
        memcpy(c->bv, c->v + lo * vs, a * vs);
        memmove(c->k + lo * kb, c->k + mid * kb, b * kb);
        memmove(c->v + lo * vs, c->v + mid * vs, b * vs);
        memcpy(c->k + (lo + b) * kb, c->bk, a * kb);
        memcpy(c->v + (lo + b) * vs, c->bv, a * vs);
        return;
    }
    if (b <= c->cap) {
        memcpy(c->bk, c->k + mid * kb, b * kb);
        memcpy(c->bv, c->v + mid * vs, b * vs);
        memmove(c->k + (lo + b) * kb, c->k + lo * kb, a * kb);
        memmove(c->v + (lo + b) * vs, c->v + lo * vs, a * vs);
        memcpy(c->k + lo * kb, c->bk, b * kb);
        memcpy(c->v + lo * vs, c->bv, b * vs);
        return;
    }
    for (i = lo, j = mid; i + 1 < j; i++, j--)
        m_swap(c, i, j - 1, kb, vs);
    for (i = mid, j = hi; i + 1 < j; i++, j--)
        m_swap(c, i, j - 1, kb, vs);
    for (i = lo, j = hi; i + 1 < j; i++, j--)
        m_swap(c, i, j - 1, kb, vs);
}

/* [lo, mid) fits the buffer: it goes there, and is merged forward with
 * [mid, hi) into [lo, hi); on equal images the buffer's (earlier) wins.
 * Both heads are loaded and one is chosen by a mask, not a branch: on
 * random keys a branch would be mispredicted every other element.  The
 * pointers are copied out of *c, which the byte stores could otherwise
 * alias, so that they stay in registers.  o < j while the buffer has
 * elements, so no head is overwritten unread. */
PS_FORCE_INLINE void m_merge_lo(const ps_mctx *c, size_t lo, size_t mid,
                                size_t hi, size_t kb, size_t vs)
{
    unsigned char *const k = c->k, *const v = c->v;
    unsigned char *const bk = c->bk, *const bv = c->bv;
    const ps_xf xf = c->xf;
    size_t a = mid - lo, i = 0, j = mid, o = lo;
    memcpy(bk, k + lo * kb, a * kb);
    memcpy(bv, v + lo * vs, a * vs);
    while (i < a && j < hi) {
        uint64_t kj = 0, ki = 0, vj = 0, vi = 0, take;
        size_t tb;
        memcpy(&kj, k + j * kb, kb);
        memcpy(&ki, bk + i * kb, kb);
        memcpy(&vj, v + j * vs, vs);
        memcpy(&vi, bv + i * vs, vs);
        tb = m_img(k, j, kb, xf) < m_img(bk, i, kb, xf);
        take = (uint64_t)0 - (uint64_t)tb;
        kj = (kj & take) | (ki & ~take);
        vj = (vj & take) | (vi & ~take);
        memcpy(k + o * kb, &kj, kb);        /* the bytes put in, either order */
        memcpy(v + o * vs, &vj, vs);
        j += tb;
        i += 1 - tb;
        o++;
    }
    /* What is left of [mid, hi) is in place already. */
    memcpy(k + o * kb, bk + i * kb, (a - i) * kb);
    memcpy(v + o * vs, bv + i * vs, (a - i) * vs);
}

/* [mid, hi) fits the buffer: merged backward; on equal images the
 * buffer's (later) element goes last. */
PS_FORCE_INLINE void m_merge_hi(const ps_mctx *c, size_t lo, size_t mid,
                                size_t hi, size_t kb, size_t vs)
{
    unsigned char *const k = c->k, *const v = c->v;
    unsigned char *const bk = c->bk, *const bv = c->bv;
    const ps_xf xf = c->xf;
    size_t b = hi - mid, i = mid, j = b, o = hi;
    memcpy(bk, k + mid * kb, b * kb);
    memcpy(bv, v + mid * vs, b * vs);
    while (i > lo && j > 0) {
        uint64_t ka = 0, kx = 0, va = 0, vx = 0, take;
        size_t ta;
        o--;
        memcpy(&ka, k + (i - 1) * kb, kb);
        memcpy(&kx, bk + (j - 1) * kb, kb);
        memcpy(&va, v + (i - 1) * vs, vs);
        memcpy(&vx, bv + (j - 1) * vs, vs);
        ta = m_img(k, i - 1, kb, xf) > m_img(bk, j - 1, kb, xf);
        take = (uint64_t)0 - (uint64_t)ta;
        ka = (ka & take) | (kx & ~take);
        va = (va & take) | (vx & ~take);
        memcpy(k + o * kb, &ka, kb);
        memcpy(v + o * vs, &va, vs);
        i -= ta;
        j -= 1 - ta;
    }
    memcpy(k + lo * kb, bk, j * kb);
    memcpy(v + lo * vs, bv, j * vs);
}

/* Merge the sorted runs [lo, mid) and [mid, hi) stably.  Each split
 * leaves two merges, each at most three quarters of this one; the smaller
 * is recursed into and the larger looped on, so the stack holds at most
 * log2(hi - lo) frames (`depth` counts them, for the debug check). */
PS_FORCE_INLINE void m_merge(const ps_mctx *c, size_t lo, size_t mid,
                             size_t hi, unsigned depth, size_t kb, size_t vs,
                             void (*self)(const ps_mctx *, size_t, size_t,
                                          size_t, unsigned))
{
    PS_DEBUG_ASSERT(depth <= 8 * sizeof(size_t));
    for (;;) {
        size_t a, b, cut1, cut2, nmid;
        if (lo == mid || mid == hi ||
            m_img(c->k, mid - 1, kb, c->xf) <= m_img(c->k, mid, kb, c->xf))
            return;             /* already in order */
        /* The head of [lo, mid) not above [mid]'s key, and the tail of
         * [mid, hi) not below [mid - 1]'s, stay where they are. */
        lo = m_bound(c, lo, mid, m_img(c->k, mid, kb, c->xf), 1, kb);
        hi = m_bound(c, mid, hi, m_img(c->k, mid - 1, kb, c->xf), 0, kb);
        a = mid - lo;
        b = hi - mid;
        if (a <= b && a <= c->cap) {
            m_merge_lo(c, lo, mid, hi, kb, vs);
            return;
        }
        if (b <= c->cap) {
            m_merge_hi(c, lo, mid, hi, kb, vs);
            return;
        }
        /* Split: the longer run's middle element, and the place in the
         * other run before which it goes (after equal keys of the first
         * run, before equal keys of the second). */
        if (a >= b) {
            cut1 = lo + a / 2;
            cut2 = m_bound(c, mid, hi, m_img(c->k, cut1, kb, c->xf), 0, kb);
        } else {
            cut2 = mid + b / 2;
            cut1 = m_bound(c, lo, mid, m_img(c->k, cut2, kb, c->xf), 1, kb);
        }
        m_rotate(c, cut1, mid, cut2, kb, vs);
        nmid = cut1 + (cut2 - mid);
        if (nmid - lo <= hi - nmid) {
            self(c, lo, cut1, nmid, depth + 1);
            lo = nmid;
            mid = cut2;
        } else {
            self(c, nmid, cut2, hi, depth + 1);
            hi = nmid;
            mid = cut1;
        }
    }
}

/* One merge function per key width and value width, the element moves
 * and images compiled for them. */
#define PS_MERGE_DEFINE(KB, VS)                                              \
static void merge_##KB##_##VS(const ps_mctx *c, size_t lo, size_t mid,       \
                              size_t hi, unsigned depth)                     \
{                                                                            \
    m_merge(c, lo, mid, hi, depth, KB, VS, merge_##KB##_##VS);               \
}
PS_MERGE_DEFINE(1, 4)
PS_MERGE_DEFINE(2, 4)
PS_MERGE_DEFINE(4, 4)
PS_MERGE_DEFINE(8, 4)
PS_MERGE_DEFINE(1, 8)
PS_MERGE_DEFINE(2, 8)
PS_MERGE_DEFINE(4, 8)
PS_MERGE_DEFINE(8, 8)

typedef void (*ps_merge_fn)(const ps_mctx *, size_t, size_t, size_t, unsigned);

static ps_merge_fn merge_for(size_t kb, size_t vs)
{
    static const ps_merge_fn fns[2][4] = {
        { merge_1_4, merge_2_4, merge_4_4, merge_8_4 },
        { merge_1_8, merge_2_8, merge_4_8, merge_8_8 },
    };
    int w = kb == 1 ? 0 : kb == 2 ? 1 : kb == 4 ? 2 : 3;
    return fns[vs == 8][w];
}

/* One level of the merges: runs of w pieces merged pairwise, the pairs
 * dealt out to `jobs` jobs (on the backend's threads, run_jobs), job g
 * taking pairs g, g + jobs, ... with the g-th slice of the buffer, of
 * `slice` elements. */
typedef struct merge_level {
    const ps_mctx *c;
    ps_merge_fn merge;
    const size_t *off;
    size_t np, w, jobs, slice, kb, vs;
} merge_level;

static void level_job(void *ctx, size_t g)
{
    const merge_level *L = ctx;
    ps_mctx c = *L->c;
    size_t i, step = 2 * L->w;
    if (c.bk != NULL) {
        c.bk += g * L->slice * L->kb;
        c.bv += g * L->slice * L->vs;
    }
    c.cap = c.bk != NULL ? L->slice : 0;
    for (i = g * step; i + L->w < L->np; i += L->jobs * step)
        L->merge(&c, L->off[i], L->off[i + L->w],
                 L->off[i + step < L->np ? i + step : L->np], 0);
}

/* The pieces' bounds for pieces of about `piece` elements: *np of them,
 * equal to within one, into off[0 .. *np]. */
static void piece_bounds(size_t *off, size_t n, size_t piece, size_t *np)
{
    size_t p = (n + piece - 1) / piece, i, q = n / p, r = n % p;
    off[0] = 0;
    for (i = 0; i < p; i++)
        off[i + 1] = off[i] + q + (i < r);
    *np = p;
}

/* The backend's scratch for a sort of `piece`, or the core's estimate. */
static size_t piece_bytes(const ps_backend_ops *ops, void *state, size_t piece,
                          size_t vs, ps_type type, unsigned flags)
{
    size_t w = ps_type_bytes(type) + vs;
    if (ops->scratch_bytes != NULL)
        return ops->scratch_bytes(state, piece, vs, type, flags);
    return piece > SIZE_MAX / w ? SIZE_MAX : piece * w;
}

/* The next piece length to try after `piece`: half, or PS_PIECE_MIN
 * itself as the last, or 0 when piece was that. */
static size_t smaller(size_t piece)
{
    if (piece / 2 >= PS_PIECE_MIN)
        return piece / 2;
    return piece > PS_PIECE_MIN ? PS_PIECE_MIN : 0;
}

/* The longest piece, halving from half the array down to PS_PIECE_MIN,
 * whose sort's scratch (the backend's, or the reference sort's when ops
 * is NULL) is at most `room`; PS_PIECE_MIN (or less, for a short array)
 * when none is. */
static size_t first_piece(const ps_backend_ops *ops, void *state, size_t n,
                          size_t vs, ps_type type, unsigned flags, size_t room)
{
    size_t piece = (n + 1) / 2;
    while (smaller(piece) != 0) {
        size_t b = ops != NULL ? piece_bytes(ops, state, piece, vs, type, flags)
                               : ps_reference_scratch_bytes(piece, type, vs);
        if (b != 0 && b <= room)
            break;
        piece = smaller(piece);
    }
    return piece;
}

int ps_pairs_in_pieces(const ps_backend_ops *ops, void *state, void *keys,
                       void *values, size_t vs, size_t n, ps_type type,
                       unsigned flags)
{
    size_t kb = ps_type_bytes(type), most = n / PS_PIECE_MIN + 1;
    size_t *off, piece, np = 0, left, cap, w, mark, most_jobs = 1;
    void *buf = NULL;
    int st, kept = 0;
    ps_mctx c;

    if ((vs != 4 && vs != 8) || ops->device || n <= PS_PIECE_MIN)
        return PS_ERR_NO_MEMORY;    /* the backend's message stands */
    off = ps_alloc((most + 1) * sizeof *off);
    if (off == NULL) {
        ps_detail_set("cannot sort %zu pairs stably: no scratch for one "
                      "sort of them, nor %zu bytes for the bounds of their "
                      "sort in pieces (their keys and values are unchanged)",
                      n, (most + 1) * sizeof *off);
        return PS_ERR_NO_MEMORY;
    }
    /* Pieces whose scratch takes at most half of what is left, the other
     * half for the merges' buffer; halved again while the backend still
     * cannot have its block. */
    mark = ps_mem_mark();
    left = ps_mem_left();
    piece = first_piece(ops, state, n, vs, type, flags, left / 2);
    st = PS_ERR_NO_MEMORY;
    /* The backend's sort, parallel, unless its fixed tables leave it
     * pieces under half those of the reference sort (below): each halving
     * costs a level of merges, slower than the reference sort's passes. */
    if (left == SIZE_MAX ||
        (piece_bytes(ops, state, piece, vs, type, flags) <= left / 2 &&
         piece >= first_piece(NULL, NULL, n, vs, type, flags, left / 2) / 2)) {
        for (;;) {
            ps_mem_rewind(mark);    /* a refused try gave back its blocks */
            piece_bounds(off, n, piece, &np);
            st = ps_segments_on(ops, state, keys, values, vs, n, off, np,
                                type, flags);
            if (st != PS_ERR_NO_MEMORY || smaller(piece) == 0)
                break;
            piece = smaller(piece);
        }
    }
    /* The backend's sort has a floor of its own (the OpenMP backend's
     * tables take megabytes whatever the length): the reference sort then
     * sorts the pieces, on this thread, in a block of just the pieces'
     * keys and values. */
    if (st == PS_ERR_NO_MEMORY) {
        void *blk = NULL;
        int bk = 0;
        ps_mem_rewind(mark);
        piece = first_piece(NULL, NULL, n, vs, type, flags, left / 2);
        for (;;) {
            size_t bytes = ps_reference_scratch_bytes(piece, type, vs);
            blk = bytes != 0 ? ps_scratch_take(bytes, &bk) : NULL;
            if (blk != NULL || smaller(piece) == 0)
                break;
            piece = smaller(piece);
        }
        if (blk != NULL) {
            piece_bounds(off, n, piece, &np);
            ps_reference_sort_segments(keys, values, vs, off, 0, np, type,
                                       flags, blk);
            ps_scratch_put(blk, bk);
            st = PS_OK;
        }
    }
    if (st != PS_OK) {
        if (st == PS_ERR_NO_MEMORY)
            ps_detail_set("cannot sort %zu pairs stably: no scratch for one "
                          "sort of them, nor for their sort in pieces of %zu "
                          "(a stable sort of pairs needs scratch; their keys "
                          "and values are unchanged)", n, piece);
        ps_release(off);
        return st;
    }
    /* The buffer: what the pieces left, up to half the array (no merge's
     * shorter run is longer), halved while malloc refuses it. */
    c.k = keys;
    c.v = values;
    c.xf = ps_xf_make(type, flags);
    left = ps_mem_left();
    cap = left / (kb + vs);
    if (cap > n / 2 + 1)
        cap = n / 2 + 1;
    cap &= ~(size_t)7;          /* the values after the keys stay aligned */
    while (cap >= PS_MERGE_BUF_MIN &&
           (buf = ps_scratch_take(cap * (kb + vs), &kept)) == NULL)
        cap = (cap / 2) & ~(size_t)7;
    if (buf == NULL)
        cap = 0;
    c.bk = buf;
    c.bv = buf != NULL ? (unsigned char *)buf + cap * kb : NULL;
    c.cap = cap;
    {
        merge_level L = { &c, merge_for(kb, vs), off, np, 1, 1, 0, kb, vs };
        for (w = 1; w < np; w *= 2) {
            /* Jobs only as many as the merges of the level and as slices
             * of the buffer that still hold a whole run (off[1], the
             * longest piece, times w): sharing the buffer must not make a
             * merge split that would have fitted.  How many of them run at
             * once is the backend's choice (run_jobs: its threads, as
             * PORTSORT_THREADS, the CPU affinity and a cgroup quota allow);
             * jobs beyond its threads wait their turn. */
            size_t merges = (np - w + 2 * w - 1) / (2 * w);
            size_t fit = cap / (off[1] * w), jobs = merges;
            jobs = fit < jobs ? fit : jobs;
            L.w = w;
            L.jobs = ops->run_jobs == NULL || jobs < 1 ? 1 : jobs;
            L.slice = (cap / L.jobs) & ~(size_t)7;
            most_jobs = L.jobs > most_jobs ? L.jobs : most_jobs;
            if (L.jobs > 1)
                ops->run_jobs(state, L.jobs, level_job, &L);
            else
                level_job(&L, 0);
        }
    }
    if (ps_verbose())
        ps_log("%zu pairs: no scratch for one stable sort of them; sorted in "
               "%zu pieces of about %zu, merged with a buffer of %zu "
               "elements (up to %zu merges at once)", n, np, piece, cap,
               most_jobs);
    if (buf != NULL)
        ps_scratch_put(buf, kept);
    ps_release(off);
    ps_detail_drop();       /* the backend's refusal of the whole is moot */
    return PS_OK;
}
