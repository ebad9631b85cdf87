/*
 * ps_mpi_agree.c - the collective agreement that makes errors the same on
 * every rank.  Each step that can fail on some ranks only (a bad argument,
 * an allocation, a local sort) is followed by one reduction of the status
 * before any rank acts on it, so no rank waits in a collective that
 * another has left.
 */
#include <config.h>

#include "ps_mpi_internal.h"

/* Statuses are small positive numbers; ranking them as 100 - status lets
 * one MPI_MAX pick the smallest non-zero one. */
int64_t ps_mpi_status_rank(int status)
{
    return status == PS_OK ? 0 : 100 - (int64_t)status;
}

int ps_mpi_status_of_rank(int64_t rank)
{
    return rank == 0 ? PS_OK : (int)(100 - rank);
}

int ps_mpi_agree_max(ps_mpi_ctx *c, int64_t *v, int n)
{
    /* An MPI failure returns here only under MPI_ERRORS_RETURN, and then
     * the ranks cannot be assumed to agree on anything any more. */
    if (MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MAX, c->comm) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    return ps_mpi_status_of_rank(v[0]);
}

int ps_mpi_agree_args(ps_mpi_ctx *c, int op, size_t value_size, int local_status)
{
    /* One reduction gives both the maximum and (negated) the minimum of
     * each parameter: they agree when the two are equal.  value_size is
     * capped so the negation cannot overflow; any cap above every real
     * size keeps a mismatch a mismatch. */
    int64_t vs = value_size > (size_t)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)value_size;
    int64_t mm = (int64_t)c->max_msg, gm = (int64_t)c->gather_max;
    int64_t nw = c->narrow_knob, sp = c->sparse_knob;
    int64_t v[17] = {
        ps_mpi_status_rank(local_status),
        op, -(int64_t)op,
        (int64_t)c->type, -(int64_t)c->type,
        (int64_t)c->flags, -(int64_t)c->flags,
        vs, -vs,
        mm, -mm,
        gm, -gm,
        nw, -nw,
        sp, -sp,
    };
    if (MPI_Allreduce(MPI_IN_PLACE, v, 17, MPI_INT64_T, MPI_MAX, c->comm) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    for (int i = 1; i < 17; i += 2)
        if (v[i] != -v[i + 1])
            return PS_ERR_INVALID_ARG;
    return ps_mpi_status_of_rank(v[0]);
}

int ps_mpi_agree_counts(ps_mpi_ctx *c, size_t count, int local_status, uint64_t *out,
                        uint64_t *extra)
{
    /* The status rides along with the count: one round instead of two;
     * so does the extra word, summed. */
    uint64_t mine[3] = { count, (uint64_t)ps_mpi_status_rank(local_status),
                         extra != NULL ? *extra : 0 };
    uint64_t *both = c->gather, sum = 0;
    int64_t worst = 0;

    if (MPI_Allgather(mine, 3, MPI_UINT64_T, both, 3, MPI_UINT64_T, c->comm) != MPI_SUCCESS)
        return PS_ERR_DEVICE;
    for (int r = 0; r < c->size; r++) {
        out[r] = both[3 * r];
        if ((int64_t)both[3 * r + 1] > worst)
            worst = (int64_t)both[3 * r + 1];
        sum += both[3 * r + 2];
    }
    if (extra != NULL)
        *extra = sum;
    return ps_mpi_status_of_rank(worst);
}

int ps_mpi_max_u64(ps_mpi_ctx *c, uint64_t *v, int n)
{
    const uint64_t top = UINT64_C(1) << 63;
    int rc;

    for (int i = 0; i < n; i++)
        v[i] ^= top;
    rc = MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MAX, c->comm);
    for (int i = 0; i < n; i++)
        v[i] ^= top;
    return rc == MPI_SUCCESS ? PS_OK : PS_ERR_DEVICE;
}
