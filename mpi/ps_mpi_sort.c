/*
 * ps_mpi_sort.c - the public functions: check and agree, sort locally,
 * split, exchange, sort the received runs, and (for the in-place forms)
 * send each key back to the rank that owns its global position.
 *
 * The caller's arrays are written only by the last exchange, after every
 * rank has agreed that everything before it succeeded; all earlier work
 * happens on copies.  That is what lets every error leave them untouched.
 */
#include <config.h>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* Work memory of one call, freed by ps_mpi_release. */
typedef struct ps_mpi_work {
    void *block;           /* the per-rank arrays of the context */
    void *keys, *values;   /* the local copies, sorted */
    void *rkeys, *rvalues; /* what this rank received: its bucket */
} ps_mpi_work;

static void ps_mpi_release(ps_mpi_work *w)
{
    free(w->block);
    free(w->keys);
    free(w->values);
    free(w->rkeys);
    free(w->rvalues);
}

/* Largest bytes in one block of a message.  PORTSORT_MPI_MAX_MSG lowers
 * it, so that tests can drive small sorts through the path that large ones
 * take (ps_mpi_exchange.c); it must be the same on every rank, and the
 * argument agreement checks that it is. */
static size_t ps_mpi_max_msg(void)
{
    const char *s = getenv("PORTSORT_MPI_MAX_MSG");
    char *end;
    unsigned long long v;

    if (s == NULL || *s == '\0')
        return INT_MAX;
    v = strtoull(s, &end, 10);
    if (*end != '\0' || v == 0 || v > INT_MAX)
        return INT_MAX;
    return (size_t)v;
}

/* Carve every per-rank array of the context out of one allocation. */
static int ps_mpi_ctx_alloc(ps_mpi_ctx *c, ps_mpi_work *w)
{
    size_t p = (size_t)c->size;
    size_t room = ps_mpi_sample_room(c->size);
    /* Largest alignment first, so each array stays aligned. */
    size_t bytes = room * sizeof(ps_mpi_sample) + p * sizeof(ps_mpi_sample)
                 + 4 * p * sizeof(uint64_t) + 4 * p * sizeof(size_t)
                 + 2 * p * sizeof(MPI_Datatype) + 7 * p * sizeof(int);
    unsigned char *b = malloc(bytes);

    if (b == NULL)
        return PS_ERR_NO_MEMORY;
    w->block = b;
    c->samples = (ps_mpi_sample *)b;         b += room * sizeof(ps_mpi_sample);
    c->sample_room = room;
    c->splitters = (ps_mpi_sample *)b;       b += p * sizeof(ps_mpi_sample);
    c->n_all = (uint64_t *)b;                b += p * sizeof(uint64_t);
    c->m_all = (uint64_t *)b;                b += p * sizeof(uint64_t);
    c->gather = (uint64_t *)b;               b += 2 * p * sizeof(uint64_t);
    c->scount = (size_t *)b;                 b += p * sizeof(size_t);
    c->sdispl = (size_t *)b;                 b += p * sizeof(size_t);
    c->rcount = (size_t *)b;                 b += p * sizeof(size_t);
    c->rdispl = (size_t *)b;                 b += p * sizeof(size_t);
    c->wtype[0] = (MPI_Datatype *)b;         b += p * sizeof(MPI_Datatype);
    c->wtype[1] = (MPI_Datatype *)b;         b += p * sizeof(MPI_Datatype);
    for (int i = 0; i < 4; i++) {
        c->icount[i] = (int *)b;             b += p * sizeof(int);
    }
    c->wcount[0] = (int *)b;                 b += p * sizeof(int);
    c->wcount[1] = (int *)b;                 b += p * sizeof(int);
    c->wzero = (int *)b;
    memset(c->wzero, 0, p * sizeof(int));
    return PS_OK;
}

/* A copy of n elements of size es, or NULL; *st becomes PS_ERR_NO_MEMORY
 * on failure.  Nothing is allocated for n == 0. */
static void *ps_mpi_alloc(size_t n, size_t es, const void *src, int *st)
{
    void *p;

    if (n == 0 || *st != PS_OK)
        return NULL;
    if (n > SIZE_MAX / es) {
        *st = PS_ERR_NO_MEMORY;
        return NULL;
    }
    p = malloc(n * es);
    if (p == NULL)
        *st = PS_ERR_NO_MEMORY;
    else if (src != NULL)
        memcpy(p, src, n * es);
    return p;
}

/* The checks each rank makes on its own arguments, as ps_sort_keys does. */
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
            || (uintptr_t)a->out % ks != 0 || a->capacity > SIZE_MAX / ks)
            return PS_ERR_INVALID_ARG;
    }
    return PS_OK;
}

static int ps_mpi_local_sort(const ps_mpi_call *a, void *keys, void *values, size_t n)
{
    if (a->op == PS_MPI_OP_PAIRS)
        return ps_sort_pairs(keys, values, a->value_size, n, a->type, a->flags);
    return ps_sort_keys(keys, n, a->type, a->flags);
}

/* From the agreed arguments to the buckets received (in w->rkeys and
 * w->rvalues, *m of them, *total over all ranks), not yet sorted.
 * Returns the common status. */
static int ps_mpi_to_buckets(ps_mpi_ctx *c, const ps_mpi_call *a, ps_mpi_work *w,
                             size_t *m, uint64_t *total_out)
{
    size_t ks = c->key_size, vs = a->value_size;
    uint64_t total = 0, *sent = c->gather, *got = c->gather + c->size;
    int st;

    /* The local sort runs on the copies; its status travels with the
     * counts that splitting needs anyway. */
    st = ps_mpi_agree_counts(c, a->n, ps_mpi_local_sort(a, w->keys, w->values, a->n),
                             c->n_all);
    if (st != PS_OK)
        return st;
    for (int r = 0; r < c->size; r++)
        total += c->n_all[r];
    *m = 0;
    *total_out = total;
    if (total == 0)
        return PS_OK;

    st = ps_mpi_split(c, w->keys, a->n);
    if (st != PS_OK)
        return st;
    for (int r = 0; r < c->size; r++)
        sent[r] = c->scount[r];
    if (MPI_Alltoall(sent, 1, MPI_UINT64_T, got, 1, MPI_UINT64_T, c->comm) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    uint64_t mm = 0;
    for (int r = 0; r < c->size; r++) {
        c->rdispl[r] = (size_t)mm;
        c->rcount[r] = (size_t)got[r];
        mm += got[r];
    }

    /* Room for the bucket, and for _v room in the caller's output, must
     * be there on every rank before any data moves. */
    st = PS_OK;
    if (mm > SIZE_MAX / ks || (vs > 0 && mm > SIZE_MAX / vs))
        st = PS_ERR_TOO_LARGE;
    *m = (size_t)mm;
    w->rkeys = ps_mpi_alloc(*m, ks, NULL, &st);
    if (vs > 0)
        w->rvalues = ps_mpi_alloc(*m, vs, NULL, &st);
    if (st == PS_OK && a->op == PS_MPI_OP_KEYS_V && *m > a->capacity)
        st = PS_ERR_TOO_LARGE;
    int64_t v[2] = { ps_mpi_status_rank(st), (int64_t)(a->n > *m ? a->n : *m) };
    st = ps_mpi_agree_max(c, v, 2);
    if (st != PS_OK)
        return st;

    st = ps_mpi_exchange(c, w->keys, w->rkeys, ks, (uint64_t)v[1]);
    if (st == PS_OK && vs > 0)
        st = ps_mpi_exchange(c, w->values, w->rvalues, vs, (uint64_t)v[1]);
    if (st != PS_OK)
        return st;
    free(w->keys);
    free(w->values);
    w->keys = w->values = NULL;
    return PS_OK;
}

static int ps_mpi_run(const ps_mpi_call *a)
{
    ps_mpi_ctx c;
    ps_mpi_work w = { 0 };
    int flag = 0, st;
    size_t m = 0;
    uint64_t total = 0;

    if (a->op == PS_MPI_OP_KEYS_V && a->n_out != NULL)
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
    if (MPI_Comm_rank(a->comm, &c.rank) != MPI_SUCCESS
        || MPI_Comm_size(a->comm, &c.size) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    c.type = a->type;
    c.flags = a->flags;
    c.key_size = ps_type_size(a->type);
    c.max_msg = ps_mpi_max_msg();

    st = ps_mpi_check(a, c.key_size);
    /* One rank alone: the library's own sort in place already keeps the
     * arrays on error. */
    if (c.size == 1 && a->op != PS_MPI_OP_KEYS_V)
        return st != PS_OK ? st : ps_mpi_local_sort(a, a->keys, a->values, a->n);

    if (st == PS_OK)
        st = ps_mpi_ctx_alloc(&c, &w);
    w.keys = ps_mpi_alloc(a->n, c.key_size, a->in, &st);
    if (a->op == PS_MPI_OP_PAIRS)
        w.values = ps_mpi_alloc(a->n, a->value_size, a->values, &st);
    st = ps_mpi_agree_args(&c, a->op, a->value_size, st);
    if (st == PS_OK)
        st = ps_mpi_to_buckets(&c, a, &w, &m, &total);
    if (a->op == PS_MPI_OP_KEYS_V && st == PS_ERR_TOO_LARGE)
        *a->n_out = m;
    if (st != PS_OK || total == 0) {
        ps_mpi_release(&w);
        return st;
    }

    /* Each run arrived sorted, and the runs lie in source-rank order, so a
     * stable sort of their concatenation orders equal keys by (rank,
     * position): the global stable order.  The library's radix sort does
     * that in linear time and with the very same order as the local sort,
     * where a comparison merge would need its own float rules.  One run
     * alone (one rank, or skewed data) is already in order.  The status
     * is agreed on before the caller's memory changes. */
    int runs = 0;
    for (int r = 0; r < c.size; r++)
        runs += c.rcount[r] > 0;
    st = runs > 1 ? ps_mpi_local_sort(a, w.rkeys, w.rvalues, m) : PS_OK;
    if (a->op == PS_MPI_OP_KEYS_V) {
        int64_t v[1] = { ps_mpi_status_rank(st) };
        st = ps_mpi_agree_max(&c, v, 1);
        if (st == PS_OK) {
            if (m > 0)
                memcpy(a->out, w.rkeys, m * c.key_size);
            *a->n_out = m;
        }
    } else {
        /* The bucket counts travel with that status. */
        st = ps_mpi_agree_counts(&c, m, st, c.m_all);
        if (st == PS_OK) {
            uint64_t largest = ps_mpi_redistribution(&c);
            st = ps_mpi_exchange(&c, w.rkeys, a->keys, c.key_size, largest);
            if (st == PS_OK && a->op == PS_MPI_OP_PAIRS)
                st = ps_mpi_exchange(&c, w.rvalues, a->values, a->value_size, largest);
        }
    }
    ps_mpi_release(&w);
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
