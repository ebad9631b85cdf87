/*
 * ps_mpi_sort.c - the public functions: check and agree, sample, split
 * the unsorted keys into buckets, exchange, sort each bucket once, and
 * (for the in-place forms) send each key back to the rank that owns its
 * global position.
 *
 * The caller's arrays are only read until every rank has agreed that the
 * bucket sort succeeded, and written only after that; all earlier work
 * happens on copies.  That is what lets every error leave them untouched.
 */
#include <config.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_env.h"
#include "ps_mpi_internal.h"

/* The arguments of one call, whichever public function it came from. */
typedef struct ps_mpi_call {
    int op;
    MPI_Comm comm;
    const void *in;        /* the keys to sort (ps_mpi_sort_keys_v: only read) */
    void *keys;            /* in-place forms: where the result goes */
    void *values;
    size_t value_size;     /* 0 for keys only */
    size_t n;
    void *out;
    size_t capacity;
    size_t *n_out;
    ps_type type;
    unsigned flags;
} ps_mpi_call;

/* Work memory of one call, given back by ps_mpi_release. */
typedef struct ps_mpi_work {
    void *block;           /* the per-rank arrays of the context */
    void *data;            /* the four below, from ps_mpi_cache_take */
    void *skeys, *svalues; /* the keys (values) for the other ranks, by bucket */
    void *rkeys, *rvalues; /* this rank's bucket: its own part, then what it
                              received; sorted in place */
} ps_mpi_work;

static void ps_mpi_release(ps_mpi_work *w)
{
    free(w->block);
    if (w->data != NULL)
        ps_mpi_cache_put(w->data);
}

/* Room for `n` elements of `es` bytes at *at of a block, rounded up to 64
 * bytes; *at becomes SIZE_MAX when it overflows. */
static size_t ps_mpi_carve(size_t *at, size_t n, size_t es)
{
    size_t start = *at, bytes;

    if (start == SIZE_MAX || (es > 0 && n > (SIZE_MAX - 64) / es)) {
        *at = SIZE_MAX;
        return 0;
    }
    bytes = (n * es + 63) & ~(size_t)63;
    *at = bytes > SIZE_MAX - start ? SIZE_MAX : start + bytes;
    return start;
}

/* The bucket and the send buffer, keys and values, as one block. */
static int ps_mpi_work_alloc(ps_mpi_work *w, size_t m, size_t send, size_t ks, size_t vs)
{
    size_t at = 0;
    size_t rk = ps_mpi_carve(&at, m, ks), sk = ps_mpi_carve(&at, send, ks);
    size_t rv = ps_mpi_carve(&at, m, vs), sv = ps_mpi_carve(&at, send, vs);
    unsigned char *b;

    if (at == SIZE_MAX)
        return PS_ERR_TOO_LARGE;
    b = ps_mpi_cache_take(at);
    if (b == NULL)
        return PS_ERR_NO_MEMORY;
    w->data = b;
    w->rkeys = b + rk;
    w->skeys = b + sk;
    w->rvalues = vs > 0 ? b + rv : NULL;
    w->svalues = vs > 0 ? b + sv : NULL;
    return PS_OK;
}

/* The testing knobs, into c: PORTSORT_MPI_MAX_MSG lowers the largest
 * bytes in one block of a message, so that tests can drive small sorts
 * through the path that large ones take (ps_mpi_exchange.c);
 * PORTSORT_MPI_GATHER_MAX lowers the most keys of cut cells that are
 * gathered rather than counted again, down to 0, so that small sorts take
 * the counting rounds of large ones (ps_mpi_grid.c); PORTSORT_MPI_NARROW=0
 * keeps keys full width on the wire, PORTSORT_MPI_SPARSE=0 or 1 makes
 * the exchanges all-to-alls or point-to-point messages whatever the
 * counts (2, the default, chooses: ps_mpi_exchange.c).  Each must be the
 * same on every rank, and the argument agreement checks that it is.
 * PORTSORT_MPI_TRACE=1 makes this rank print where the call's time went.  A
 * value out of range is PS_ERR_INVALID_ARG (ps_env.h: never silently
 * replaced by the default), agreed like any local check. */
static int ps_mpi_knobs(ps_mpi_ctx *c)
{
    unsigned long long v = INT_MAX, g = PS_MPI_GATHER_MAX, t = 0, nw = 1, sp = 2;
    char why[256];          /* the message is not kept: no detail here */

    if (ps_env_number("PORTSORT_MPI_MAX_MSG", 1, INT_MAX, &v, why, sizeof why) < 0
        || ps_env_number("PORTSORT_MPI_GATHER_MAX", 0, PS_MPI_GATHER_MAX, &g, why,
                         sizeof why) < 0
        || ps_env_number("PORTSORT_MPI_NARROW", 0, 1, &nw, why, sizeof why) < 0
        || ps_env_number("PORTSORT_MPI_SPARSE", 0, 2, &sp, why, sizeof why) < 0)
        return PS_ERR_INVALID_ARG;
    c->max_msg = (size_t)v;
    c->gather_max = (size_t)g;
    c->narrow_knob = (int)nw;
    c->sparse_knob = (int)sp;
    /* A diagnostic of this rank alone: the ranks need not agree on it. */
    if (ps_env_number("PORTSORT_MPI_TRACE", 0, 1, &t, why, sizeof why) < 0)
        return PS_ERR_INVALID_ARG;
    c->tracing = t == 1;
    return PS_OK;
}

/* Carve every per-rank array of the context, and the plan's fixed
 * arrays, out of one allocation. */
static int ps_mpi_ctx_alloc(ps_mpi_ctx *c, ps_mpi_work *w)
{
    size_t p = (size_t)c->size, g = PS_MPI_GATHER_MAX;
    /* A counting round has at most 2^16 cells, or two per open cell when
     * there are more (fewer than p), and three words after them. */
    size_t room = (PS_MPI_GRID_CELLS > 2 * p ? PS_MPI_GRID_CELLS : 2 * p) + 3;
    /* Largest alignment first, so each array stays aligned. */
    size_t bytes = g * (sizeof(ps_mpi_sample) + sizeof(uint64_t))
                 + 2 * room * sizeof(uint64_t) + (11 * p + 1) * sizeof(uint64_t)
                 + 4 * p * sizeof(size_t) + 2 * p * sizeof(void *)
                 + 2 * p * sizeof(MPI_Datatype) + 2 * p * sizeof(MPI_Request)
                 + 7 * p * sizeof(int) + g * sizeof(uint32_t)
                 + (PS_MPI_GRID_CELLS + 2) * sizeof(uint32_t) + p;
    unsigned char *b;

    /* aligned_alloc, as for the work block (ps_mpi_cache.c). */
    bytes = (bytes + 63) & ~(size_t)63;
    b = aligned_alloc(64, bytes);
    if (b == NULL)
        return PS_ERR_NO_MEMORY;
    w->block = b;
    c->samples = (ps_mpi_sample *)b;         b += g * sizeof(ps_mpi_sample);
    c->sample_keys = (uint64_t *)b;          b += g * sizeof(uint64_t);
    c->hist_mine = (uint64_t *)b;            b += room * sizeof(uint64_t);
    c->hist_all = (uint64_t *)b;             b += room * sizeof(uint64_t);
    c->hist_room = room - 3;
    c->n_all = (uint64_t *)b;                b += p * sizeof(uint64_t);
    c->m_all = (uint64_t *)b;                b += p * sizeof(uint64_t);
    c->target = (uint64_t *)b;               b += (p + 1) * sizeof(uint64_t);
    c->gather = (uint64_t *)b;               b += 6 * p * sizeof(uint64_t);
    c->rlo = (uint64_t *)b;                  b += p * sizeof(uint64_t);
    c->rhi = (uint64_t *)b;                  b += p * sizeof(uint64_t);
    c->scount = (size_t *)b;                 b += p * sizeof(size_t);
    c->sdispl = (size_t *)b;                 b += p * sizeof(size_t);
    c->rcount = (size_t *)b;                 b += p * sizeof(size_t);
    c->rdispl = (size_t *)b;                 b += p * sizeof(size_t);
    c->dkeys = (unsigned char **)b;          b += p * sizeof(void *);
    c->dvalues = (unsigned char **)b;        b += p * sizeof(void *);
    c->wtype[0] = (MPI_Datatype *)b;         b += p * sizeof(MPI_Datatype);
    c->wtype[1] = (MPI_Datatype *)b;         b += p * sizeof(MPI_Datatype);
    c->req = (MPI_Request *)b;               b += 2 * p * sizeof(MPI_Request);
    for (int i = 0; i < 4; i++) {
        c->icount[i] = (int *)b;             b += p * sizeof(int);
    }
    c->wcount[0] = (int *)b;                 b += p * sizeof(int);
    c->wcount[1] = (int *)b;                 b += p * sizeof(int);
    c->wzero = (int *)b;                     b += p * sizeof(int);
    c->sample_at = (uint32_t *)b;            b += g * sizeof(uint32_t);
    c->count32 = (uint32_t *)b;              b += (PS_MPI_GRID_CELLS + 2) * sizeof(uint32_t);
    c->width = b;
    memset(c->wzero, 0, p * sizeof(int));
    /* Read for _v's answer to "no room" even when the call fails earlier. */
    memset(c->m_all, 0, p * sizeof(uint64_t));
    return PS_OK;
}

/* Where the buckets end: bucket r holds global positions [target[r],
 * target[r + 1]).  The in-place forms take each rank's own final
 * positions when the input counts are about even (the largest within an
 * eighth of the mean), so every key moves once and no redistribution
 * follows; otherwise, and for _v, equal shares (differing by at most one
 * key), and the in-place forms redistribute.  Returns 1 for the first. */
static int ps_mpi_targets(ps_mpi_ctx *c, int in_place, uint64_t total)
{
    uint64_t p = (uint64_t)c->size, mean = total / p, rem = total % p, most = 0;
    int own;

    for (int r = 0; r < c->size; r++)
        most = c->n_all[r] > most ? c->n_all[r] : most;
    own = in_place && most - mean <= mean / 8;
    c->target[0] = 0;
    for (uint64_t r = 1; r <= p; r++)
        c->target[r] = own ? c->target[r - 1] + c->n_all[r - 1]
                           : r * mean + r * rem / p;
    return own;
}

/* 1 when n_out shares a byte with in or out (ps_mpi_sort_keys_v): then it
 * must not be written either, not even the 0 of an error.  A size that
 * overflows counts as reaching the end of memory, which errs on the side
 * of not writing; an unknown type (ks 0) as keys of one byte, the least
 * any type has. */
static int ps_mpi_n_out_clashes(const ps_mpi_call *a, size_t ks)
{
    size_t es = ks > 0 ? ks : 1;
    ps_span s[3] = {
        ps_span_of("n_out", a->n_out, sizeof *a->n_out),
        ps_span_of("in", a->in, a->n <= SIZE_MAX / es ? a->n * es : SIZE_MAX),
        ps_span_of("out", a->out, a->capacity <= SIZE_MAX / es ? a->capacity * es : SIZE_MAX),
    };
    return a->op == PS_MPI_OP_KEYS_V && a->n_out != NULL
           && (ps_spans_meet(&s[0], &s[1]) || ps_spans_meet(&s[0], &s[2]));
}

/* The checks each rank makes on its own arguments, as ps_sort_keys does;
 * arrays that share a byte included, which each rank can only see of its
 * own arrays and which the agreement then makes every rank's error. */
static int ps_mpi_check(const ps_mpi_call *a, size_t ks)
{
    if (ks == 0 || (a->flags & ~PS_DESCENDING) != 0)
        return PS_ERR_INVALID_ARG;
    if (a->n > 0 && (a->in == NULL || (uintptr_t)a->in % ks != 0))
        return PS_ERR_INVALID_ARG;
    if (a->n > SIZE_MAX / ks)
        return PS_ERR_INVALID_ARG;
    if (a->op == PS_MPI_OP_PAIRS) {
        if (a->value_size == 0 || (a->n > 0 && a->values == NULL)
            || a->n > SIZE_MAX / a->value_size)
            return PS_ERR_INVALID_ARG;
    }
    if (a->op == PS_MPI_OP_KEYS_V) {
        if (a->n_out == NULL || (a->capacity > 0 && a->out == NULL)
            || (uintptr_t)a->out % ks != 0 || a->capacity > SIZE_MAX / ks
            || ps_mpi_n_out_clashes(a, ks))
            return PS_ERR_INVALID_ARG;
    }
    {
        ps_span s[2] = {
            ps_span_of("keys", a->in, a->n * ks),
            a->op == PS_MPI_OP_PAIRS ? ps_span_of("values", a->values, a->n * a->value_size)
                                     : ps_span_of("out", a->out, a->capacity * ks),
        };
        return ps_spans_meet(&s[0], &s[1]) ? PS_ERR_INVALID_ARG : PS_OK;
    }
}

static int ps_mpi_local_sort(const ps_mpi_call *a, void *keys, void *values, size_t n)
{
    if (a->op == PS_MPI_OP_PAIRS)
        return ps_sort_pairs(keys, values, a->value_size, n, a->type, a->flags);
    return ps_sort_keys(keys, n, a->type, a->flags);
}

uint64_t ps_mpi_largest(const ps_mpi_ctx *c)
{
    uint64_t largest = 0;

    for (int r = 0; r < c->size; r++) {
        if (c->n_all[r] > largest)
            largest = c->n_all[r];
        if (c->m_all[r] > largest)
            largest = c->m_all[r];
    }
    return largest;
}

/* The keys of the cut cells that the scatter listed (ps_mpi_grid.c,
 * deferred cuts): gather their triples, place the cuts, and send each to
 * its bucket in a second, small exchange, after the bulk.  In a bucket
 * they follow the bulk's runs (send_at, recv_at: where the bulk ends),
 * again in source-rank and input order.  A cell is in one exchange or the
 * other on every rank, so equal keys never straddle the two and the
 * stable sort still sees them in (rank, index) order. */
static int ps_mpi_send_cut_keys(ps_mpi_ctx *c, const ps_mpi_call *a, ps_mpi_work *w,
                                size_t send_at, size_t recv_at, size_t m)
{
    ps_mpi_plan *p = &c->plan;
    size_t ks = c->key_size, vs = a->value_size, sat = send_at, rat = recv_at;
    const unsigned char *kb = a->in, *vb = a->values;
    int me = c->rank, st;

    PS_MPI_TIMED(c, PS_MPI_T_LIST, st = ps_mpi_gather_cuts(c, a->in, 0));
    if (st != PS_OK)
        return st;
    p->deferred = 0;
    ps_mpi_gathered_from(c, c->rcount);
    for (int r = 0; r < c->size; r++)
        c->scount[r] = 0;
    for (size_t k = 0; k < p->ncand; k++) {
        size_t i = p->cand[k];
        uint64_t x = ps_mpi_image(&c->order, ps_mpi_key_bits(kb + i * ks, ks));
        c->scount[ps_mpi_dest(p, x, i)]++;
    }
    for (int r = 0; r < c->size; r++) {
        c->sdispl[r] = sat;
        sat += r == me ? 0 : c->scount[r];
        c->rdispl[r] = rat;
        rat += c->rcount[r];
    }
    /* Every key of the bucket is accounted for, or the plan is wrong. */
    if (rat != m || c->rcount[me] != c->scount[me])
        return PS_ERR_DEVICE;
    for (size_t k = 0; k < p->ncand; k++) {
        size_t i = p->cand[k];
        uint64_t x = ps_mpi_image(&c->order, ps_mpi_key_bits(kb + i * ks, ks));
        int d = ps_mpi_dest(p, x, i);
        size_t slot = d == me ? c->rdispl[d]++ : c->sdispl[d]++;
        unsigned char *kd = (unsigned char *)(d == me ? w->rkeys : w->skeys);
        memcpy(kd + slot * ks, kb + i * ks, ks);
        if (vs > 0)
            memcpy((unsigned char *)(d == me ? w->rvalues : w->svalues) + slot * vs,
                   vb + i * vs, vs);
    }
    /* The counters moved to the ends of their runs: back to the starts. */
    for (int r = 0; r < c->size; r++) {
        c->sdispl[r] -= r == me ? 0 : c->scount[r];
        c->rdispl[r] -= r == me ? c->rcount[r] : 0;
    }
    c->rcount[me] = c->scount[me] = 0;
    uint64_t largest = ps_mpi_largest(c);
    PS_MPI_TIMED(c, PS_MPI_T_EXCHANGE, {
        st = ps_mpi_exchange(c, w->skeys, w->rkeys, ks, largest);
        if (st == PS_OK && vs > 0)
            st = ps_mpi_exchange(c, w->svalues, w->rvalues, vs, largest);
    });
    return st;
}

/* From the agreed arguments and counts to this rank's bucket, received
 * and sorted in w->rkeys (w->rvalues): *m keys.  Returns the common
 * status; on PS_OK every rank knows every bucket count (m_all). */
static int ps_mpi_to_bucket(ps_mpi_ctx *c, const ps_mpi_call *a, ps_mpi_work *w, size_t *m)
{
    size_t ks = c->key_size, vs = a->value_size, own;
    uint64_t mm = 0, *sent = c->gather, *got = c->gather + 3 * (size_t)c->size;
    uint64_t want = c->target[c->rank + 1] - c->target[c->rank];
    uint64_t gmin = UINT64_MAX, gmax = 0, nonzero = 0;
    int me = c->rank, st;

    PS_MPI_TIMED(c, PS_MPI_T_SPLIT, st = ps_mpi_split(c, a->in, a->n));
    if (st != PS_OK)
        return st;
    /* The counts of the bulk: every key but the cut cells' when their
     * cuts are deferred.  This rank's extreme images ride with them, so
     * that every rank learns the keys' true range, which the plan's edge
     * buckets reach to (ps_mpi_wire_plan). */
    for (int r = 0; r < c->size; r++) {
        sent[3 * r] = c->scount[r];
        sent[3 * r + 1] = c->kmin;
        sent[3 * r + 2] = c->kmax;
        nonzero += r != me && c->scount[r] > 0;
    }
    if (MPI_Alltoall(sent, 3, MPI_UINT64_T, got, 3, MPI_UINT64_T, c->comm) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    for (int r = 0; r < c->size; r++) {
        gmin = got[3 * r + 1] < gmin ? got[3 * r + 1] : gmin;
        gmax = got[3 * r + 2] > gmax ? got[3 * r + 2] : gmax;
        got[r] = got[3 * r];
    }
    ps_mpi_wire_plan(c, gmin, gmax);
    /* The bucket: this rank's own keys go straight to their place in it,
     * between the runs of the lower and of the higher ranks, and do not
     * travel. */
    own = c->scount[me];
    uint64_t at = 0;
    for (int r = 0; r < c->size; r++) {
        c->rdispl[r] = (size_t)mm;
        c->rcount[r] = r == me ? 0 : (size_t)got[r];
        mm += got[r];
        c->sdispl[r] = (size_t)at;
        at += r == me ? 0 : c->scount[r];
    }
    size_t own_at = c->rdispl[me];
    c->scount[me] = 0;

    /* Room for the bucket, for what goes to other ranks, and for _v room
     * in the caller's output, must be there on every rank before any
     * data moves. */
    st = c->plan.bad ? PS_ERR_NO_MEMORY : PS_OK;
    if ((uint64_t)(size_t)want != want)
        st = PS_ERR_TOO_LARGE;
    /* The plan cut the order exactly at the targets. */
    if (c->plan.deferred ? mm > want : mm != want)
        st = PS_ERR_DEVICE;
    *m = (size_t)want;
    if (st == PS_OK)
        st = ps_mpi_work_alloc(w, *m, a->n - own, ks, vs);
    if (st == PS_OK && a->op == PS_MPI_OP_KEYS_V && *m > a->capacity)
        st = PS_ERR_TOO_LARGE;
    /* The bucket counts travel with that status, and the pairs of ranks
     * that have keys to exchange, which choose the exchange. */
    st = ps_mpi_agree_counts(c, *m, st, c->m_all, &nonzero);
    if (st != PS_OK)
        return st;
    c->sparse = c->bulk_sparse = ps_mpi_sparse_choice(c, nonzero);
    c->wire_width = c->width[me];   /* for the trace: the block goes first */

    for (int r = 0; r < c->size; r++) {
        int mine = r == me;
        c->dkeys[r] = (unsigned char *)(mine ? w->rkeys : w->skeys)
                    + (mine ? own_at : c->sdispl[r]) * ks;
        c->dvalues[r] = vs == 0 ? NULL : (unsigned char *)(mine ? w->rvalues : w->svalues)
                      + (mine ? own_at : c->sdispl[r]) * vs;
    }
    PS_MPI_TIMED(c, PS_MPI_T_SCATTER, ps_mpi_scatter(c, a->in, a->values, vs, a->n));
    uint64_t largest = ps_mpi_largest(c);
    PS_MPI_TIMED(c, PS_MPI_T_EXCHANGE, {
        st = c->narrow ? ps_mpi_exchange_narrow(c, w->skeys, w->rkeys, ks, largest)
                       : ps_mpi_exchange(c, w->skeys, w->rkeys, ks, largest);
        if (st == PS_OK && vs > 0)
            st = ps_mpi_exchange(c, w->svalues, w->rvalues, vs, largest);
    });
    /* Every run of the bulk, this rank's own among them, starts its room
     * with its keys narrow. */
    if (st == PS_OK && c->narrow)
        PS_MPI_TIMED(c, PS_MPI_T_WIDEN, {
            for (int r = 0; r < c->size; r++)
                ps_mpi_widen(c, (unsigned char *)w->rkeys + c->rdispl[r] * ks,
                             r == me ? own : c->rcount[r], c->width[me], c->rlo[me]);
        });
    if (st == PS_OK && c->plan.deferred)
        st = ps_mpi_send_cut_keys(c, a, w, (size_t)at, (size_t)mm, *m);
    if (st != PS_OK)
        return st;

    /* The runs lie in source-rank order and each in its rank's input
     * order, so a stable sort of the bucket orders equal keys by (rank,
     * index): the global stable order.  The status is agreed on before
     * the caller's memory changes. */
    int64_t v[1];
    PS_MPI_TIMED(c, PS_MPI_T_SORT,
                 v[0] = ps_mpi_status_rank(ps_mpi_local_sort(a, w->rkeys, w->rvalues, *m)));
    return ps_mpi_agree_max(c, v, 1);
}

/* One line per rank and call: the library prints only when asked. */
static void ps_mpi_trace_print(const ps_mpi_ctx *c, size_t n, size_t m)
{
    const double *t = c->trace;
    double plan = t[PS_MPI_T_SPLIT] - t[PS_MPI_T_COUNT] - t[PS_MPI_T_LIST];

    fprintf(stderr, "portsort_mpi: rank %d of %d, %zu keys in, %zu out (ms): count %.3f "
            "list %.3f plan %.3f scatter %.3f exchange %.3f widen %.3f sort %.3f back %.3f; "
            "wire: keys of %u of %zu bytes, %s\n",
            c->rank, c->size, n, m, 1e3 * t[PS_MPI_T_COUNT], 1e3 * t[PS_MPI_T_LIST],
            1e3 * plan, 1e3 * t[PS_MPI_T_SCATTER], 1e3 * t[PS_MPI_T_EXCHANGE],
            1e3 * t[PS_MPI_T_WIDEN], 1e3 * t[PS_MPI_T_SORT], 1e3 * t[PS_MPI_T_BACK],
            c->narrow ? c->wire_width : (unsigned)c->key_size, c->key_size,
            c->bulk_sparse ? "sparse" : "all-to-all");
}

static int ps_mpi_run(const ps_mpi_call *a)
{
    ps_mpi_ctx c;
    ps_mpi_work w = { 0 };
    int flag = 0, st, own = 0;
    size_t m = 0;
    uint64_t total = 0;

    if (a->op == PS_MPI_OP_KEYS_V && a->n_out != NULL
        && !ps_mpi_n_out_clashes(a, ps_type_size(a->type)))
        *a->n_out = 0;
    /* Without a working communicator no agreement is possible; these
     * checks give the same answer on every rank of a correct program. */
    if (MPI_Initialized(&flag) != MPI_SUCCESS || !flag)
        return PS_ERR_INVALID_ARG;
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag)
        return PS_ERR_INVALID_ARG;
    if (a->comm == MPI_COMM_NULL || MPI_Comm_test_inter(a->comm, &flag) != MPI_SUCCESS
        || flag)
        return PS_ERR_INVALID_ARG;

    memset(&c, 0, sizeof c);
    c.comm = a->comm;
    c.sparse_comm = MPI_COMM_NULL;
    c.narrow_knob = 1;
    c.sparse_knob = 2;
    if (MPI_Comm_rank(a->comm, &c.rank) != MPI_SUCCESS
        || MPI_Comm_size(a->comm, &c.size) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    c.type = a->type;
    c.flags = a->flags;
    c.key_size = ps_type_size(a->type);
    c.max_msg = INT_MAX;
    c.gather_max = PS_MPI_GATHER_MAX;
    ps_mpi_order_init(&c.order, a->type, a->flags);

    st = ps_mpi_knobs(&c);
    if (st == PS_OK)
        st = ps_mpi_check(a, c.key_size);
    /* One rank alone: the library's own sort in place already keeps the
     * arrays on error. */
    if (c.size == 1 && a->op != PS_MPI_OP_KEYS_V)
        return st != PS_OK ? st : ps_mpi_local_sort(a, a->keys, a->values, a->n);

    if (st == PS_OK)
        st = ps_mpi_ctx_alloc(&c, &w);
    st = ps_mpi_agree_args(&c, a->op, a->value_size, st);
    if (st == PS_OK)
        st = ps_mpi_agree_counts(&c, a->n, PS_OK, c.n_all, NULL);
    if (st == PS_OK) {
        for (int r = 0; r < c.size; r++)
            total += c.n_all[r];
        own = ps_mpi_targets(&c, a->op != PS_MPI_OP_KEYS_V, total);
        if (total > 0)
            st = ps_mpi_to_bucket(&c, a, &w, &m);
        ps_mpi_plan_free(&c.plan);
    }
    if (a->op == PS_MPI_OP_KEYS_V && st == PS_ERR_TOO_LARGE && c.m_all != NULL)
        *a->n_out = (size_t)c.m_all[c.rank];
    if (st != PS_OK || total == 0) {
        ps_mpi_release(&w);
        return st;
    }

    double back = MPI_Wtime();
    if (a->op == PS_MPI_OP_KEYS_V) {
        if (m > 0)
            memcpy(a->out, w.rkeys, m * c.key_size);
        *a->n_out = m;
    } else if (own) {
        /* The bucket is this rank's part of the result already. */
        if (m > 0) {
            memcpy(a->keys, w.rkeys, m * c.key_size);
            if (a->op == PS_MPI_OP_PAIRS)
                memcpy(a->values, w.rvalues, m * a->value_size);
        }
    } else {
        uint64_t largest = ps_mpi_largest(&c);

        ps_mpi_redistribution(&c);
        st = ps_mpi_exchange(&c, w.rkeys, a->keys, c.key_size, largest);
        if (st == PS_OK && a->op == PS_MPI_OP_PAIRS)
            st = ps_mpi_exchange(&c, w.rvalues, a->values, a->value_size, largest);
    }
    ps_mpi_release(&w);
    if (c.tracing) {
        c.trace[PS_MPI_T_BACK] = MPI_Wtime() - back;
        ps_mpi_trace_print(&c, a->n, m);
    }
    return st;
}

int ps_mpi_sort_keys(MPI_Comm comm, void *keys, size_t n_local, ps_type type,
                     unsigned flags)
{
    ps_mpi_call a = { .op = PS_MPI_OP_KEYS, .comm = comm, .in = keys, .keys = keys,
                      .n = n_local, .type = type, .flags = flags };
    return ps_mpi_run(&a);
}

int ps_mpi_sort_pairs(MPI_Comm comm, void *keys, void *values, size_t value_size,
                      size_t n_local, ps_type type, unsigned flags)
{
    ps_mpi_call a = { .op = PS_MPI_OP_PAIRS, .comm = comm, .in = keys, .keys = keys,
                      .values = values, .value_size = value_size, .n = n_local,
                      .type = type, .flags = flags };
    return ps_mpi_run(&a);
}

int ps_mpi_sort_keys_v(MPI_Comm comm, const void *in, size_t n_in, void *out,
                       size_t capacity, size_t *n_out, ps_type type, unsigned flags)
{
    ps_mpi_call a = { .op = PS_MPI_OP_KEYS_V, .comm = comm, .in = in, .out = out,
                      .capacity = capacity, .n_out = n_out, .n = n_in, .type = type,
                      .flags = flags };
    return ps_mpi_run(&a);
}
