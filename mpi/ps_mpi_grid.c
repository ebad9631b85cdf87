/*
 * ps_mpi_grid.c - cut the global order exactly at the bucket targets, by
 * counting keys in grids of their order images.
 *
 * Bucket r must hold the global positions [target[r], target[r + 1]) of
 * the stable order of (image, rank, index) triples.  Every rank counts
 * its keys in a grid of up to 2^16 cells over the range of a sample of
 * the images (keys beyond it in the edge cells), and one allreduce sums
 * the counts: each cell's global
 * position is then known, and a cell that no target cuts goes whole to
 * one bucket, which is what almost every cell does.  A cell that a target
 * cuts is resolved by one of three means:
 *
 *   - a cell of one image (width 1) holds equal keys, whose order is
 *     (rank, index): an exclusive scan of the ranks' counts in the cell
 *     tells each rank which of its own keys lie past the cut (EQUAL);
 *   - when the cut cells hold at most PS_MPI_GATHER_MAX keys in all,
 *     every rank gathers those keys' triples, sorts them, and takes the
 *     triple at the cut as an exact splitter (SPLIT); after the first
 *     count, this waits for the scatter, which lists those keys on its
 *     way (ps_mpi_sort.c sends them in a second exchange);
 *   - otherwise the cut cells are counted again in finer grids over
 *     their keys' own [min, max] (one more allreduce of the ranges, one
 *     of the counts), on the list of this rank's keys in them, and so on.
 *
 * Every round narrows each cut cell's range by the grid's cells (at least
 * two), and a range that shrinks to one image is an EQUAL cell, so there
 * are at most 64 rounds; on random keys there is one grid and a gather of
 * a few hundred keys, on all-equal keys one grid of one cell.  Compared
 * with the sampled splitters this replaces (doc/mpi.md), the split is
 * exact (so the in-place forms can send each key straight to the rank
 * owning its final position) and the partition looks a key's bucket up in
 * a table instead of walking a splitter tree.
 *
 * Every rank takes the same decisions, from the reduced counts alone;
 * what differs is only where its own keys fall.  Room for the next round
 * is reserved before each reduction, which carries the failures too, so
 * that no rank leaves a collective sequence that another follows.
 */
#include <config.h>

#include <stdlib.h>

#include "ps_mpi_internal.h"

/* A cell that a target cuts and that the round could not resolve: the
 * entry it lies at, its global place and counts, and its images. */
typedef struct ps_mpi_open {
    size_t entry;
    uint64_t start, count, local;
    uint64_t ilo, ihi;     /* the images it spans */
} ps_mpi_open;

typedef struct ps_mpi_round {
    ps_mpi_open *open;     /* the cut cells left open, in image order */
    size_t nopen;
    uint64_t open_keys;    /* their keys on all ranks */
    uint64_t open_local;   /* ... on this rank */
    uint64_t below, above; /* keys under and over the first grid's range */
    size_t first_node;     /* the nodes counted this round */
    size_t first_entry;    /* their first entry */
} ps_mpi_round;

void ps_mpi_plan_free(ps_mpi_plan *p)
{
    free(p->node);
    free(p->entry);
    free(p->equal);
    free(p->split);
    free(p->cut);
    free(p->cand);
    memset(p, 0, sizeof *p);
}

/* Every block of the plan comes from aligned_alloc, as the rest of the
 * call's memory does (ps_mpi_cache.c): one allocator for the tests to
 * make fail (test/ps_test_mpi.c, alloc_failures). */
static void *ps_mpi_alloc(size_t bytes)
{
    return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
}

/* Room for `need` elements of `es` bytes in *a (capacity *cap).  0, or -1
 * when memory is short (the array stays as it was). */
static int ps_mpi_reserve(void **a, size_t *cap, size_t need, size_t es)
{
    size_t n = *cap;
    void *q;

    if (need <= n)
        return 0;
    if (need > SIZE_MAX / 2 / es)
        return -1;
    while (n < need)
        n = n < 16 ? 16 : 2 * n;
    q = ps_mpi_alloc(n * es);
    if (q == NULL)
        return -1;
    if (*cap > 0)
        memcpy(q, *a, *cap * es);
    free(*a);
    *a = q;
    *cap = n;
    return 0;
}

/* Room for everything that resolving or refining one round's cells can
 * add: the new grids' entries (at most hist_room), and per cut cell
 * (fewer than size: each holds a target) one node, cell and cut.  Taken
 * before each reduction that agrees on the failures.  -1 when memory is
 * short. */
static int ps_mpi_reserve_round(ps_mpi_ctx *c, ps_mpi_round *rd)
{
    ps_mpi_plan *p = &c->plan;
    size_t s = (size_t)c->size;
    int bad = 0;

    bad |= ps_mpi_reserve((void **)&p->node, &p->cap[0], p->nnodes + s, sizeof *p->node);
    bad |= ps_mpi_reserve((void **)&p->entry, &p->cap[1], p->nentries + c->hist_room,
                          sizeof *p->entry);
    bad |= ps_mpi_reserve((void **)&p->equal, &p->cap[2], p->nequal + s, sizeof *p->equal);
    bad |= ps_mpi_reserve((void **)&p->split, &p->cap[3], p->nsplit + s, sizeof *p->split);
    bad |= ps_mpi_reserve((void **)&p->cut, &p->cap[4], p->ncuts + s, sizeof *p->cut);
    return bad | (rd->open == NULL);
}

/* A new node over [lo, lo + ncells << shift) whose first key has global
 * position `start`, its entries PENDING (to be counted).  Room reserved. */
static size_t ps_mpi_add_node(ps_mpi_plan *p, uint64_t lo, uint64_t start, uint64_t span,
                              size_t max_cells)
{
    ps_mpi_node *nd = &p->node[p->nnodes];
    unsigned shift = 0;

    /* The fewest doublings that put [lo, lo + span] in max_cells cells. */
    while ((span >> shift) >= max_cells)
        shift++;
    nd->lo = lo;
    nd->hi = lo + span;
    nd->start = start;
    nd->base = p->nentries;
    nd->shift = shift;
    nd->ncells = (uint32_t)((span >> shift) + 1);
    for (uint32_t k = 0; k < nd->ncells; k++)
        p->entry[p->nentries++] = ps_mpi_special(PS_MPI_PENDING, 0);
    return p->nnodes++;
}

/* The first target above global position g: targets 1 .. size - 1 are
 * the cuts, target[size] = total is past every key. */
static size_t ps_mpi_first_above(const ps_mpi_ctx *c, uint64_t g)
{
    size_t lo = 1, hi = (size_t)c->size;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->target[mid] > g)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* A cell with cuts j .. j_end - 1 inside it: a new cell record whose cuts
 * hold, for now, each target's place relative to the cell (hi). */
static void ps_mpi_cut_cell(ps_mpi_ctx *c, ps_mpi_cell *q, uint64_t start, uint64_t count,
                            uint64_t local, size_t j, size_t j_end)
{
    ps_mpi_plan *p = &c->plan;

    memset(q, 0, sizeof *q);
    q->start = start;
    q->count = count;
    q->local = local;
    q->d0 = (int)j - 1;
    q->first = p->ncuts;
    q->ncuts = j_end - j;
    for (; j < j_end; j++) {
        ps_mpi_cut *t = &p->cut[p->ncuts++];
        t->hi = c->target[j] - start;
        t->lo = 0;
        t->dest = (int)j;
    }
}

/* An open cell becomes a cell record with the cuts inside it, in q. */
static void ps_mpi_open_cut_cell(ps_mpi_ctx *c, const ps_mpi_open *o, ps_mpi_cell *q)
{
    size_t j = ps_mpi_first_above(c, o->start), j_end = j;

    while (c->target[j_end] < o->start + o->count)
        j_end++;
    ps_mpi_cut_cell(c, q, o->start, o->count, o->local, j, j_end);
}

/* Buckets d0 .. d1 may hold keys of images [lo, hi]: their ranges, the
 * wire's narrow keys' bases (ps_mpi_wire_plan), take it in. */
static void ps_mpi_extend(ps_mpi_ctx *c, int d0, int d1, uint64_t lo, uint64_t hi)
{
    for (int d = d0; d <= d1; d++) {
        c->rlo[d] = lo < c->rlo[d] ? lo : c->rlo[d];
        c->rhi[d] = hi > c->rhi[d] ? hi : c->rhi[d];
    }
}

/* The images cell k of node nd may hold: its share of the grid, past it
 * only in the first grid's edge cells when keys lie beyond its range
 * (down to 0, up to the top: ps_mpi_wire_plan clamps them to the keys'
 * true extremes). */
static void ps_mpi_cell_range(const ps_mpi_node *nd, uint32_t k, int first_grid,
                              const ps_mpi_round *rd, uint64_t *lo, uint64_t *hi)
{
    uint64_t a = nd->lo + ((uint64_t)k << nd->shift);
    uint64_t w = nd->shift >= 64 ? UINT64_MAX : (UINT64_C(1) << nd->shift) - 1;
    uint64_t b = a > UINT64_MAX - w ? UINT64_MAX : a + w;

    b = b < nd->hi ? b : nd->hi;
    if (first_grid && k == 0 && rd->below > 0)
        a = 0;
    if (first_grid && k == nd->ncells - 1 && rd->above > 0)
        b = UINT64_MAX;
    *lo = a;
    *hi = b;
}

/* Resolve the cells counted this round (hist_all: global counts,
 * hist_mine: this rank's): whole cells to their bucket, one-image cells
 * to EQUAL, the others into rd->open. */
static void ps_mpi_resolve(ps_mpi_ctx *c, ps_mpi_round *rd)
{
    ps_mpi_plan *p = &c->plan;
    size_t first = rd->first_entry, last_node = p->nnodes;

    rd->nopen = 0;
    rd->open_keys = rd->open_local = 0;
    for (size_t v = rd->first_node; v < last_node; v++) {
        const ps_mpi_node nd = p->node[v];
        uint64_t g = nd.start;
        size_t j = ps_mpi_first_above(c, g);

        for (uint32_t k = 0; k < nd.ncells; k++) {
            size_t e = nd.base + k;
            uint64_t count = c->hist_all[e - first], local = c->hist_mine[e - first];
            size_t j_end = j;
            uint64_t ilo, ihi;

            ps_mpi_cell_range(&nd, k, v == 0, rd, &ilo, &ihi);
            while (j_end < (size_t)c->size && c->target[j_end] < g + count)
                j_end++;
            if (j_end == j) {
                /* No cut inside: the cell's keys all go to one bucket. */
                p->entry[e] = (int32_t)(j - 1);
                c->scount[j - 1] += (size_t)local;
                if (count > 0)
                    ps_mpi_extend(c, (int)j - 1, (int)j - 1, ilo, ihi);
            } else if (nd.shift == 0
                       && !(v == 0 && ((k == 0 && rd->below > 0)
                                       || (k == nd.ncells - 1 && rd->above > 0)))) {
                /* One image wide, and not an edge of the first grid that
                 * also holds keys beyond its range. */
                ps_mpi_cut_cell(c, &p->equal[p->nequal], g, count, local, j, j_end);
                p->entry[e] = ps_mpi_special(PS_MPI_EQUAL, p->nequal++);
                ps_mpi_extend(c, (int)j - 1, (int)j_end - 1, ilo, ihi);
            } else {
                ps_mpi_open *o = &rd->open[rd->nopen];
                o->entry = e;
                o->start = g;
                o->count = count;
                o->local = local;
                o->ilo = ilo;
                o->ihi = ihi;
                p->entry[e] = ps_mpi_special(PS_MPI_PENDING, rd->nopen++);
                rd->open_keys += count;
                rd->open_local += local;
            }
            g += count;
            while (j < (size_t)c->size && c->target[j] <= g)
                j++;
        }
    }
}

/* This rank's keys in the open cells, into plan.cand: from all keys after
 * the first round (the list is allocated: 1 when that fails), from the
 * list itself after later ones. */
static int ps_mpi_candidates(ps_mpi_ctx *c, const void *keys, size_t n, ps_mpi_round *rd,
                             int first)
{
    ps_mpi_plan *p = &c->plan;

    if (first) {
        p->cand = ps_mpi_alloc((rd->open_local > 0 ? (size_t)rd->open_local : 1)
                               * sizeof *p->cand);
        if (p->cand == NULL)
            return 1;
    }
    ps_mpi_gather_cands(c, keys, n, first);
    return 0;
}

static int ps_mpi_sample_cmp(const void *pa, const void *pb)
{
    const ps_mpi_sample *a = pa, *b = pb;

    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->pos != b->pos)
        return a->pos < b->pos ? -1 : 1;
    return 0;
}

/* The open cells' keys are few: they become SPLIT cells, whose cuts the
 * gathered triples of their keys will place (ps_mpi_gather_cuts). */
static void ps_mpi_split_cells(ps_mpi_ctx *c, const ps_mpi_round *rd)
{
    ps_mpi_plan *p = &c->plan;

    for (size_t u = 0; u < rd->nopen; u++) {
        const ps_mpi_open *o = &rd->open[u];
        ps_mpi_cell *q = &p->split[p->nsplit];
        ps_mpi_open_cut_cell(c, o, q);
        ps_mpi_extend(c, q->d0, q->d0 + (int)q->ncuts, o->ilo, o->ihi);
        p->entry[o->entry] = ps_mpi_special(PS_MPI_SPLIT, p->nsplit++);
    }
}

int ps_mpi_gather_cuts(ps_mpi_ctx *c, const void *keys, int bad)
{
    ps_mpi_plan *p = &c->plan;
    int *counts = c->icount[0], *displs = c->icount[1];
    uint64_t *got = c->gather, me = (uint64_t)c->rank;
    size_t all = 0, ks = c->key_size;
    const unsigned char *kb = keys;

    /* A rank that could not list its keys says so with its count. */
    uint64_t mine = bad ? UINT64_MAX : (uint64_t)p->ncand;
    if (MPI_Allgather(&mine, 1, MPI_UINT64_T, got, 1, MPI_UINT64_T, c->comm) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    for (int r = 0; r < c->size; r++)
        if (got[r] == UINT64_MAX)
            return PS_ERR_NO_MEMORY;
    /* Counted in uint64_t words, three per triple: at most 3 x 2^16. */
    for (int r = 0; r < c->size; r++) {
        counts[r] = (int)(3 * got[r]);
        displs[r] = (int)(3 * all);
        all += (size_t)got[r];
    }
    ps_mpi_sample *s = c->samples + (size_t)displs[c->rank] / 3;
    for (size_t k = 0; k < p->ncand; k++) {
        size_t i = p->cand[k];
        s[k].key = ps_mpi_image(&c->order, ps_mpi_key_bits(kb + i * ks, ks));
        s[k].rank = me;
        s[k].pos = i;
    }
    if (MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->samples, counts, displs,
                       MPI_UINT64_T, c->comm) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    /* The triples arrive in (rank, index) order, so a stable sort by image
     * gives the global order; should the library's sort fail on some rank,
     * qsort by (image, rank, index) gives that rank the very same order,
     * so the ranks need not agree on it. */
    uint64_t *img = c->sample_keys;
    uint32_t *at = c->sample_at;
    for (size_t i = 0; i < all; i++) {
        img[i] = c->samples[i].key;
        at[i] = (uint32_t)i;
    }
    if (ps_sort_pairs(img, at, sizeof *at, all, PS_U64, 0) != PS_OK) {
        qsort(c->samples, all, sizeof *c->samples, ps_mpi_sample_cmp);
        for (size_t i = 0; i < all; i++)
            at[i] = (uint32_t)i;
    }
    p->ngathered = all;
    /* The cells' keys lie one cell after the other in that order.  A key
     * (x, me, i) is at or past the cut's triple (hi, r, pos) when x > hi,
     * or x == hi and (me, i) >= (r, pos): i >= 0 when r < me, i >= pos
     * when r == me, never when r > me. */
    size_t off = 0;
    for (size_t v = 0; v < p->nsplit; v++) {
        ps_mpi_cell *q = &p->split[v];
        for (size_t k = q->first; k < q->first + q->ncuts; k++) {
            ps_mpi_cut *t = &p->cut[k];
            const ps_mpi_sample *sp = &c->samples[at[off + (size_t)t->hi]];
            t->hi = sp->key;
            t->lo = sp->rank < me ? 0 : sp->rank == me ? sp->pos : UINT64_MAX;
        }
        off += (size_t)q->count;
    }
    return PS_OK;
}

void ps_mpi_gathered_from(const ps_mpi_ctx *c, size_t *from)
{
    const ps_mpi_plan *p = &c->plan;
    uint64_t lo = c->target[c->rank], hi = c->target[c->rank + 1];
    size_t off = 0;

    for (int r = 0; r < c->size; r++)
        from[r] = 0;
    /* The k-th triple of a cell, in the global order, is the key at the
     * cell's start + k. */
    for (size_t v = 0; v < p->nsplit; v++) {
        const ps_mpi_cell *q = &p->split[v];
        for (uint64_t k = 0; k < q->count; k++) {
            uint64_t g = q->start + k;
            if (g >= lo && g < hi)
                from[c->samples[c->sample_at[off + k]].rank]++;
        }
        off += (size_t)q->count;
    }
}

/* This rank's listed keys, by the cuts now placed, into scount. */
static void ps_mpi_count_cands(ps_mpi_ctx *c, const void *keys)
{
    ps_mpi_plan *p = &c->plan;
    size_t ks = c->key_size;
    const unsigned char *kb = keys;

    for (size_t k = 0; k < p->ncand; k++) {
        size_t i = p->cand[k];
        uint64_t x = ps_mpi_image(&c->order, ps_mpi_key_bits(kb + i * ks, ks));
        c->scount[ps_mpi_dest(p, x, i)]++;
    }
}

/* The EQUAL cells: the keys of the lower ranks in each (one exclusive
 * scan) place this rank's keys of the cell in the cell's (rank, index)
 * order, so each cut becomes an ordinal among this rank's keys. */
static int ps_mpi_equal_cuts(ps_mpi_ctx *c)
{
    ps_mpi_plan *p = &c->plan;
    uint64_t *lower = c->hist_all;

    if (p->nequal == 0)
        return PS_OK;
    for (size_t v = 0; v < p->nequal; v++)
        c->hist_mine[v] = p->equal[v].local;
    if (MPI_Exscan(c->hist_mine, lower, (int)p->nequal, MPI_UINT64_T, MPI_SUM, c->comm)
        != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    for (size_t v = 0; v < p->nequal; v++) {
        ps_mpi_cell *q = &p->equal[v];
        uint64_t below = c->rank == 0 ? 0 : lower[v], from = 0;
        int d = q->d0;
        for (size_t k = q->first; k < q->first + q->ncuts; k++) {
            ps_mpi_cut *t = &p->cut[k];
            uint64_t o = t->hi <= below ? 0 : t->hi - below;
            t->lo = o < q->local ? o : q->local;
            c->scount[d] += (size_t)(t->lo - from);
            from = t->lo;
            d = t->dest;
        }
        c->scount[d] += (size_t)(q->local - from);
        q->seen = 0;
        q->at = q->first;
        q->dest = q->d0;
    }
    return PS_OK;
}

/* Refine the open cells: every rank's range of each (one allreduce), then
 * a grid over each that the budget of cells allows, or an EQUAL cell where
 * the range is one image.  `bad`: this rank could not list its keys. */
static int ps_mpi_refine(ps_mpi_ctx *c, const void *keys, ps_mpi_round *rd, int bad)
{
    ps_mpi_plan *p = &c->plan;
    uint64_t *mm = c->hist_mine;
    size_t ks = c->key_size, per = 2;
    const unsigned char *kb = keys;

    for (size_t u = 0; u < rd->nopen; u++) {
        mm[2 * u] = 0;              /* the largest image */
        mm[2 * u + 1] = 0;          /* the complement of the smallest */
    }
    for (size_t k = 0; k < p->ncand && !bad; k++) {
        uint64_t x = ps_mpi_image(&c->order, ps_mpi_key_bits(kb + p->cand[k] * ks, ks));
        int32_t e = p->entry[ps_mpi_locate(p, x)];
        size_t u = (size_t)(-(e + 1)) >> 2;
        if (x > mm[2 * u])
            mm[2 * u] = x;
        if (~x > mm[2 * u + 1])
            mm[2 * u + 1] = ~x;
    }
    mm[2 * rd->nopen] = (uint64_t)bad;
    int st = ps_mpi_max_u64(c, mm, (int)(2 * rd->nopen + 1));
    if (st != PS_OK)
        return st;
    if (mm[2 * rd->nopen] != 0)
        return PS_ERR_NO_MEMORY;

    /* Cells per new grid: a power of two, at least 2, PS_MPI_GRID_CELLS
     * in all when they fit. */
    while (per * 2 * rd->nopen <= PS_MPI_GRID_CELLS)
        per *= 2;
    rd->first_node = p->nnodes;
    rd->first_entry = p->nentries;
    for (size_t u = 0; u < rd->nopen; u++) {
        const ps_mpi_open *o = &rd->open[u];
        uint64_t hi = mm[2 * u], lo = ~mm[2 * u + 1];
        if (lo == hi) {
            ps_mpi_cell *q = &p->equal[p->nequal];
            ps_mpi_open_cut_cell(c, o, q);
            ps_mpi_extend(c, q->d0, q->d0 + (int)q->ncuts, lo, lo);
            p->entry[o->entry] = ps_mpi_special(PS_MPI_EQUAL, p->nequal++);
        } else {
            size_t v = ps_mpi_add_node(p, lo, o->start, hi - lo, per);
            p->entry[o->entry] = ps_mpi_special(PS_MPI_NODE, v);
        }
    }
    return PS_OK;
}

/* Count this rank's listed keys in the cells of the nodes just added. */
static void ps_mpi_count_round(ps_mpi_ctx *c, const void *keys, const ps_mpi_round *rd)
{
    ps_mpi_plan *p = &c->plan;
    size_t ks = c->key_size, cells = p->nentries - rd->first_entry;
    const unsigned char *kb = keys;

    for (size_t e = 0; e < cells; e++)
        c->hist_mine[e] = 0;
    for (size_t k = 0; k < p->ncand; k++) {
        uint64_t x = ps_mpi_image(&c->order, ps_mpi_key_bits(kb + p->cand[k] * ks, ks));
        size_t e = ps_mpi_locate(p, x);
        if (e >= rd->first_entry)
            c->hist_mine[e - rd->first_entry]++;
    }
}

/* The first grid, drawn over [lo, hi], counted over all n keys: in runs
 * of fewer than 2^32 keys through 32-bit counters; the keys below lo and
 * above hi into hist_mine[cells] and [cells + 1]. */
static void ps_mpi_count_all(ps_mpi_ctx *c, const void *keys, size_t n, uint64_t hi)
{
    uint32_t cells = c->plan.node[0].ncells;
    uint64_t out[4] = { 0, 0, 0, 0 };

    for (uint32_t k = 0; k < cells; k++)
        c->hist_mine[k] = 0;
    for (size_t from = 0; from < n;) {
        size_t len = n - from < UINT32_MAX ? n - from : UINT32_MAX;
        memset(c->count32, 0, (cells + 2) * sizeof *c->count32);
        ps_mpi_count_first(c, keys, from, len, hi, out);
        for (uint32_t k = 0; k < cells; k++)
            c->hist_mine[k] += c->count32[k];
        from += len;
    }
    c->hist_mine[cells] = out[0];
    c->hist_mine[cells + 1] = out[1];
    c->kmax = out[2];
    c->kmin = ~out[3];
}

/* The range of a sample of this rank's keys: up to 1024 of them, one from
 * each stride at a hashed place (splitmix64's finaliser of rank and
 * stride), so that periodic data cannot fool it and the same input always
 * gives the same grid.  The first grid is drawn over the range on all
 * ranks; keys beyond it fall into its edge cells, which then count as
 * wider than one image.  Reading the range exactly would cost a pass over
 * the keys. */
static void ps_mpi_sample_range(const ps_mpi_ctx *c, const void *keys, size_t n, uint64_t *lo,
                                uint64_t *hi)
{
    const unsigned char *kb = keys;
    size_t ks = c->key_size, s = n < 1024 ? n : 1024, stride = s > 0 ? n / s : 1;
    uint64_t a = UINT64_MAX, b = 0;

    for (size_t k = 0; k < s; k++) {
        uint64_t z = ((uint64_t)c->rank << 40) ^ k ^ UINT64_C(0x9E3779B97F4A7C15);
        z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
        z ^= z >> 31;
        size_t i = k * stride + (size_t)(z % stride);
        uint64_t x = ps_mpi_image(&c->order, ps_mpi_key_bits(kb + i * ks, ks));
        a = x < a ? x : a;
        b = x > b ? x : b;
    }
    *lo = a;
    *hi = b;
}

/* Cells of the first grid: about sqrt(3 (size - 1) total), a power of two
 * from 2^8 to 2^16.  A cut cell then holds about total / cells keys, whose
 * 24-byte triples every rank gathers, and the grid costs 8 bytes a cell in
 * the reduction: this balances the two for random keys (2^13 cells for
 * 2^24 keys on 2 ranks: 64 KiB of counts, 2K triples), and a smaller grid
 * is counted in a faster cache. */
static size_t ps_mpi_first_cells(const ps_mpi_ctx *c)
{
    uint64_t total = 0;
    double want;
    size_t cells = (size_t)1 << 8;

    for (int r = 0; r < c->size; r++)
        total += c->n_all[r];
    want = 3.0 * (double)(c->size - 1) * (double)total;
    while (cells < PS_MPI_GRID_CELLS && (double)cells * (double)cells < want)
        cells *= 2;
    return cells;
}

int ps_mpi_split(ps_mpi_ctx *c, const void *keys, size_t n)
{
    ps_mpi_plan *p = &c->plan;
    ps_mpi_round rd = { 0 };
    uint64_t lo, hi, r[2];
    size_t cells;
    int st = PS_OK, first = 1, bad;

    for (int d = 0; d < c->size; d++) {
        c->scount[d] = 0;
        c->rlo[d] = UINT64_MAX;
        c->rhi[d] = 0;
    }
    c->kmin = UINT64_MAX;
    c->kmax = 0;
    ps_mpi_sample_range(c, keys, n, &lo, &hi);
    r[0] = hi;
    r[1] = ~lo;
    st = ps_mpi_max_u64(c, r, 2);
    if (st != PS_OK)
        return st;
    lo = ~r[1];
    hi = r[0];

    rd.open = ps_mpi_alloc((size_t)c->size * sizeof *rd.open);
    bad = ps_mpi_reserve_round(c, &rd);
    size_t first_cells = ps_mpi_first_cells(c);
    if (!bad) {
        ps_mpi_add_node(p, lo, 0, hi - lo, first_cells);
        PS_MPI_TIMED(c, PS_MPI_T_COUNT, ps_mpi_count_all(c, keys, n, hi));
        cells = p->node[0].ncells;
    } else {
        /* Without the room to count, this rank still takes part in the
         * reduction, with as many cells as the others, to say so. */
        unsigned shift = 0;
        while (((hi - lo) >> shift) >= first_cells)
            shift++;
        cells = (size_t)((hi - lo) >> shift) + 1;
        memset(c->hist_mine, 0, (cells + 2) * sizeof *c->hist_mine);
    }
    for (;;) {
        /* Room for what the round may add.  Three more words ride with
         * the counts: the keys below and above the first grid's range
         * (0 in later rounds) and the failures. */
        bad |= ps_mpi_reserve_round(c, &rd);
        if (!first)
            c->hist_mine[cells] = c->hist_mine[cells + 1] = 0;
        c->hist_mine[cells + 2] = (uint64_t)bad;
        if (MPI_Allreduce(c->hist_mine, c->hist_all, (int)cells + 3, MPI_UINT64_T, MPI_SUM,
                          c->comm) != MPI_SUCCESS) {
            st = PS_ERR_DEVICE;
            break;
        }
        if (c->hist_all[cells + 2] != 0) {
            st = PS_ERR_NO_MEMORY;
            break;
        }
        if (first) {
            rd.below = c->hist_all[cells];
            rd.above = c->hist_all[cells + 1];
        } else {
            rd.below = rd.above = 0;
        }
        ps_mpi_resolve(c, &rd);
        if (rd.nopen == 0)
            break;
        if (rd.open_keys <= c->gather_max && first) {
            /* The usual case: the scatter lists the cut cells' keys on
             * its way (ps_mpi_dest), and their cuts follow it. */
            ps_mpi_split_cells(c, &rd);
            p->deferred = 1;
            p->cand = ps_mpi_alloc((rd.open_local > 0 ? (size_t)rd.open_local : 1)
                                   * sizeof *p->cand);
            p->bad = p->cand == NULL;
            break;
        }
        PS_MPI_TIMED(c, PS_MPI_T_LIST, bad = ps_mpi_candidates(c, keys, n, &rd, first));
        first = 0;
        if (rd.open_keys <= c->gather_max) {
            ps_mpi_split_cells(c, &rd);
            st = ps_mpi_gather_cuts(c, keys, bad);
            if (st == PS_OK)
                ps_mpi_count_cands(c, keys);
            break;
        }
        bad |= ps_mpi_reserve_round(c, &rd);
        st = ps_mpi_refine(c, keys, &rd, bad);
        if (st != PS_OK)
            break;
        PS_MPI_TIMED(c, PS_MPI_T_LIST, ps_mpi_count_round(c, keys, &rd));
        cells = p->nentries - rd.first_entry;
    }
    free(rd.open);
    if (st == PS_OK)
        st = ps_mpi_equal_cuts(c);
    if (!p->deferred) {
        free(p->cand);
        p->cand = NULL;
        p->ncand = 0;
    }
    return st;
}
