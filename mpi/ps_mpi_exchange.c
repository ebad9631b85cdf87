/*
 * ps_mpi_exchange.c - the all-to-all that moves keys and values, for any
 * count.
 *
 * MPI_Alltoallv takes int counts and displacements, so it can move at most
 * INT_MAX bytes per peer and address at most INT_MAX bytes of a buffer.
 * When every count and displacement of every rank fits (the usual case,
 * and the fast path of MPI libraries), that is what runs.  Otherwise each
 * peer's span is described by a derived datatype whose displacement is an
 * MPI_Aint and whose length is a vector of blocks of at most max_msg
 * bytes, moved by MPI_Alltoallw with count 1 and displacement 0: the large
 * message technique of BigMPI, with no size limit left but memory.
 *
 * Two things make the wire smaller (doc/mpi.md, "Smaller wire").  Keys
 * may travel narrow: every key of bucket r has an order image in a range
 * [rlo[r], rhi[r]] that the plan knows on every rank, so when that range
 * spans fewer bytes than the key, the scatter writes only the image's low
 * bytes, and the receiver completes them from rlo[r] (ps_mpi_widen).  And
 * when most pairs of ranks have nothing to send each other (presorted
 * input, keys on few ranks), only the non-empty spans move, as
 * point-to-point messages: an all-to-all still visits every pair.  Both
 * choices come from data every rank has, so every rank makes the same one
 * without a collective of its own.
 */
#include <config.h>

#include <limits.h>
#include <stdint.h>

#include "ps_mpi_internal.h"

/* A datatype covering `bytes` bytes at byte offset `off` of a buffer:
 * q blocks of `block` bytes, then the r remaining bytes. */
static int ps_mpi_span_type(size_t off, size_t bytes, size_t block, MPI_Datatype *out)
{
    size_t q = bytes / block, r = bytes % block;
    MPI_Datatype vec = MPI_DATATYPE_NULL;
    int lens[2], n = 0;
    MPI_Aint disps[2];
    MPI_Datatype types[2];
    int rc = MPI_SUCCESS;

    if (q > (size_t)INT_MAX)
        return MPI_ERR_COUNT;
    if (q > 0) {
        rc = MPI_Type_create_hvector((int)q, (int)block, (MPI_Aint)block, MPI_BYTE, &vec);
        if (rc != MPI_SUCCESS)
            return rc;
        lens[n] = 1;
        disps[n] = (MPI_Aint)off;
        types[n++] = vec;
    }
    if (r > 0) {
        lens[n] = (int)r;
        disps[n] = (MPI_Aint)(off + q * block);
        types[n++] = MPI_BYTE;
    }
    rc = MPI_Type_create_struct(n, lens, disps, types, out);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(out);
    if (vec != MPI_DATATYPE_NULL)
        MPI_Type_free(&vec);
    return rc;
}

/* What one exchange moves, per peer, in bytes: elements of es bytes
 * placed as such (displacements in elements), but sw[r] bytes of each
 * element sent to r (es when sw is NULL) and rw bytes of each received. */
typedef struct ps_mpi_bytes {
    size_t es;
    const unsigned char *sw;
    size_t rw;
} ps_mpi_bytes;

static size_t ps_mpi_sbytes(const ps_mpi_ctx *c, const ps_mpi_bytes *b, int r)
{
    return c->scount[r] * (b->sw != NULL ? b->sw[r] : b->es);
}

static int ps_mpi_exchange_w(ps_mpi_ctx *c, const void *send, void *recv,
                             const ps_mpi_bytes *b)
{
    int rc = MPI_SUCCESS;
    int r;

    for (r = 0; r < c->size; r++) {
        c->wtype[0][r] = MPI_BYTE;
        c->wtype[1][r] = MPI_BYTE;
        c->wcount[0][r] = 0;
        c->wcount[1][r] = 0;
    }
    for (r = 0; r < c->size && rc == MPI_SUCCESS; r++) {
        size_t sb = ps_mpi_sbytes(c, b, r), rb = c->rcount[r] * b->rw;
        if (sb > 0) {
            rc = ps_mpi_span_type(c->sdispl[r] * b->es, sb, c->max_msg, &c->wtype[0][r]);
            c->wcount[0][r] = rc == MPI_SUCCESS;
        }
        if (rc == MPI_SUCCESS && rb > 0) {
            rc = ps_mpi_span_type(c->rdispl[r] * b->es, rb, c->max_msg, &c->wtype[1][r]);
            c->wcount[1][r] = rc == MPI_SUCCESS;
        }
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Alltoallw(send, c->wcount[0], c->wzero, c->wtype[0],
                           recv, c->wcount[1], c->wzero, c->wtype[1], c->comm);
    for (r = 0; r < c->size; r++) {
        if (c->wcount[0][r])
            MPI_Type_free(&c->wtype[0][r]);
        if (c->wcount[1][r])
            MPI_Type_free(&c->wtype[1][r]);
    }
    return rc == MPI_SUCCESS ? PS_OK : PS_ERR_DEVICE;
}

/* The sparse exchange's messages travel on a duplicate of the caller's
 * communicator, made the first time one is needed and kept as an
 * attribute of it (freed with it): point-to-point messages on the
 * caller's own communicator could match receives the caller has posted.
 * The duplicate is kept by its Fortran handle, an integer, so the
 * attribute needs no memory of its own. */
static int ps_mpi_keyval = MPI_KEYVAL_INVALID;

static int ps_mpi_dup_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    MPI_Comm dup = MPI_Comm_f2c((MPI_Fint)(intptr_t)attr);

    (void)comm;
    (void)keyval;
    (void)extra;
    return MPI_Comm_free(&dup);
}

static int ps_mpi_own_comm(ps_mpi_ctx *c, MPI_Comm *out)
{
    int kv = __atomic_load_n(&ps_mpi_keyval, __ATOMIC_ACQUIRE), found = 0;
    void *attr = NULL;
    MPI_Comm dup;

    if (c->sparse_comm != MPI_COMM_NULL) {
        *out = c->sparse_comm;
        return MPI_SUCCESS;
    }
    if (kv == MPI_KEYVAL_INVALID) {
        int mine = MPI_KEYVAL_INVALID, none = MPI_KEYVAL_INVALID;
        int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, ps_mpi_dup_delete, &mine, NULL);
        if (rc != MPI_SUCCESS)
            return rc;
        /* Another thread may have made one meanwhile: keep the first. */
        if (!__atomic_compare_exchange_n(&ps_mpi_keyval, &none, mine, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            MPI_Comm_free_keyval(&mine);
        kv = __atomic_load_n(&ps_mpi_keyval, __ATOMIC_ACQUIRE);
    }
    if (MPI_Comm_get_attr(c->comm, kv, &attr, &found) != MPI_SUCCESS)
        return MPI_ERR_OTHER;
    if (found) {
        dup = MPI_Comm_f2c((MPI_Fint)(intptr_t)attr);
    } else {
        int rc = MPI_Comm_dup(c->comm, &dup);
        if (rc != MPI_SUCCESS)
            return rc;
        rc = MPI_Comm_set_attr(c->comm, kv, (void *)(intptr_t)MPI_Comm_c2f(dup));
        if (rc != MPI_SUCCESS) {
            MPI_Comm_free(&dup);
            return rc;
        }
    }
    c->sparse_comm = dup;
    *out = dup;
    return MPI_SUCCESS;
}

/* One span of `bytes` at byte `off` of buf, to or from rank r: a plain
 * message when it fits max_msg, else one element of a derived datatype
 * (kept in *type, to be freed after the wait). */
static int ps_mpi_post(ps_mpi_ctx *c, int send, const void *buf, size_t off, size_t bytes,
                       int r, MPI_Comm comm, MPI_Datatype *type, MPI_Request *req)
{
    enum { PS_MPI_TAG = 0x5053 };
    unsigned char *p = (unsigned char *)(uintptr_t)buf;
    int rc;

    if (bytes <= c->max_msg)
        return send ? MPI_Isend(p + off, (int)bytes, MPI_BYTE, r, PS_MPI_TAG, comm, req)
                    : MPI_Irecv(p + off, (int)bytes, MPI_BYTE, r, PS_MPI_TAG, comm, req);
    rc = ps_mpi_span_type(off, bytes, c->max_msg, type);
    if (rc != MPI_SUCCESS)
        return rc;
    return send ? MPI_Isend(p, 1, *type, r, PS_MPI_TAG, comm, req)
                : MPI_Irecv(p, 1, *type, r, PS_MPI_TAG, comm, req);
}

/* The non-empty spans only.  Every send has its receive: the receiver's
 * count from a source is the source's count to it, and both sides size
 * the span with the same width.  This rank's own span is a copy. */
static int ps_mpi_exchange_sparse(ps_mpi_ctx *c, const void *send, void *recv,
                                  const ps_mpi_bytes *b)
{
    MPI_Comm comm = MPI_COMM_NULL;
    int rc = ps_mpi_own_comm(c, &comm), nreq = 0, me = c->rank;

    for (int r = 0; r < c->size; r++) {
        c->wtype[0][r] = c->wtype[1][r] = MPI_DATATYPE_NULL;
    }
    for (int r = 0; r < c->size && rc == MPI_SUCCESS; r++) {
        size_t rb = c->rcount[r] * b->rw;
        if (r != me && rb > 0)
            rc = ps_mpi_post(c, 0, recv, c->rdispl[r] * b->es, rb, r, comm, &c->wtype[1][r],
                             &c->req[nreq++]);
    }
    for (int r = 0; r < c->size && rc == MPI_SUCCESS; r++) {
        size_t sb = ps_mpi_sbytes(c, b, r);
        if (r != me && sb > 0)
            rc = ps_mpi_post(c, 1, send, c->sdispl[r] * b->es, sb, r, comm, &c->wtype[0][r],
                             &c->req[nreq++]);
    }
    if (rc == MPI_SUCCESS && ps_mpi_sbytes(c, b, me) > 0)
        memcpy((unsigned char *)recv + c->rdispl[me] * b->es,
               (const unsigned char *)send + c->sdispl[me] * b->es, ps_mpi_sbytes(c, b, me));
    /* Posted messages are waited for even after a failure to post more:
     * their buffers must not be given back under them.  One MPI_Wait
     * each (every one drives all of them on): gcc 12 takes MPICH's
     * MPI_Waitall with MPI_STATUSES_IGNORE for an overflow. */
    for (int k = 0; k < nreq; k++)
        if (MPI_Wait(&c->req[k], MPI_STATUS_IGNORE) != MPI_SUCCESS)
            rc = MPI_ERR_OTHER;
    for (int r = 0; r < c->size; r++) {
        if (c->wtype[0][r] != MPI_DATATYPE_NULL)
            MPI_Type_free(&c->wtype[0][r]);
        if (c->wtype[1][r] != MPI_DATATYPE_NULL)
            MPI_Type_free(&c->wtype[1][r]);
    }
    return rc == MPI_SUCCESS ? PS_OK : PS_ERR_DEVICE;
}

static int ps_mpi_exchange_as(ps_mpi_ctx *c, const void *send, void *recv,
                              const ps_mpi_bytes *b, uint64_t largest)
{
    size_t es = b->es;

    if (c->sparse)
        return ps_mpi_exchange_sparse(c, send, recv, b);
    /* A displacement plus its count never exceeds the largest total a rank
     * sends or receives, so one comparison, the same on every rank,
     * decides for all of them: both collectives must be the same one.
     * Narrow spans are shorter than the elements' room, so the same
     * bound holds for them. */
    if (largest > c->max_msg / es)
        return ps_mpi_exchange_w(c, send, recv, b);
    for (int r = 0; r < c->size; r++) {
        c->icount[0][r] = (int)ps_mpi_sbytes(c, b, r);
        c->icount[1][r] = (int)(c->sdispl[r] * es);
        c->icount[2][r] = (int)(c->rcount[r] * b->rw);
        c->icount[3][r] = (int)(c->rdispl[r] * es);
    }
    if (MPI_Alltoallv(send, c->icount[0], c->icount[1], MPI_BYTE,
                      recv, c->icount[2], c->icount[3], MPI_BYTE, c->comm) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    return PS_OK;
}

int ps_mpi_exchange(ps_mpi_ctx *c, const void *send, void *recv, size_t es,
                    uint64_t largest)
{
    ps_mpi_bytes b = { es, NULL, es };

    return ps_mpi_exchange_as(c, send, recv, &b, largest);
}

int ps_mpi_exchange_narrow(ps_mpi_ctx *c, const void *send, void *recv, size_t es,
                           uint64_t largest)
{
    ps_mpi_bytes b = { es, c->width, c->width[c->rank] };

    return ps_mpi_exchange_as(c, send, recv, &b, largest);
}

int ps_mpi_sparse_choice(const ps_mpi_ctx *c, uint64_t nonzero)
{
    uint64_t p = (uint64_t)c->size;

    if (c->sparse_knob != 2)
        return c->sparse_knob;
    return nonzero * 4 <= p * (p - 1);
}

/* The fewest bytes that hold every number up to span. */
static unsigned ps_mpi_bytes_for(uint64_t span)
{
    unsigned w = 0;

    while (w < 8 && (span >> (8 * w)) != 0)
        w++;
    return w;
}

void ps_mpi_wire_plan(ps_mpi_ctx *c, uint64_t gmin, uint64_t gmax)
{
    uint64_t full = 0, saved = 0;
    size_t ks = c->key_size;

    for (int r = 0; r < c->size; r++) {
        uint64_t lo = c->rlo[r] > gmin ? c->rlo[r] : gmin;
        uint64_t hi = c->rhi[r] < gmax ? c->rhi[r] : gmax;
        uint64_t m = c->target[r + 1] - c->target[r];
        unsigned w;

        /* A bucket that can hold no key (hi < lo) has nothing to send. */
        w = hi < lo ? 0 : ps_mpi_bytes_for(hi - lo);
        w = w < ks ? w : (unsigned)ks;
        c->rlo[r] = hi < lo ? 0 : lo;
        c->width[r] = (unsigned char)w;
        full += m * ks;
        saved += m * (ks - w);
    }
    /* Narrow keys cost the receiver a pass to widen them: worth it when
     * an eighth of the key bytes or more stay home. */
    c->narrow = c->narrow_knob && saved > 0 && saved >= full / 8;
}
