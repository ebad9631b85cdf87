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
 */
#include <config.h>

#include <limits.h>

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

static int ps_mpi_exchange_w(ps_mpi_ctx *c, const void *send, void *recv, size_t es)
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
        if (c->scount[r] > 0) {
            rc = ps_mpi_span_type(c->sdispl[r] * es, c->scount[r] * es, c->max_msg,
                                  &c->wtype[0][r]);
            c->wcount[0][r] = rc == MPI_SUCCESS;
        }
        if (rc == MPI_SUCCESS && c->rcount[r] > 0) {
            rc = ps_mpi_span_type(c->rdispl[r] * es, c->rcount[r] * es, c->max_msg,
                                  &c->wtype[1][r]);
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

int ps_mpi_exchange(ps_mpi_ctx *c, const void *send, void *recv, size_t es,
                    uint64_t largest)
{
    /* A displacement plus its count never exceeds the largest total a rank
     * sends or receives, so one comparison, the same on every rank,
     * decides for all of them: both collectives must be the same one. */
    if (largest > c->max_msg / es)
        return ps_mpi_exchange_w(c, send, recv, es);
    for (int r = 0; r < c->size; r++) {
        c->icount[0][r] = (int)(c->scount[r] * es);
        c->icount[1][r] = (int)(c->sdispl[r] * es);
        c->icount[2][r] = (int)(c->rcount[r] * es);
        c->icount[3][r] = (int)(c->rdispl[r] * es);
    }
    if (MPI_Alltoallv(send, c->icount[0], c->icount[1], MPI_BYTE,
                      recv, c->icount[2], c->icount[3], MPI_BYTE, c->comm) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    return PS_OK;
}
