/*
 * portsort_mpi.h - public interface of libportsort_mpi, the distributed
 * sort of libportsort over MPI (link with `pkg-config --libs portsort-mpi`).
 *
 * Each function is collective: every rank of comm calls it, with the same
 * type, flags (and value_size for pairs), and the data it holds.  The
 * global array is the concatenation of the ranks' arrays in rank order.
 *
 * Contract shared by the functions below:
 *
 *  - Order.  As ps_sort_keys (portsort.h): integers by value, floats by
 *    IEEE 754 totalOrder with bit patterns preserved exactly.
 *  - Stability.  Equal keys keep their global input order, i.e. they are
 *    ordered by (rank, index) in ascending and in descending sorts alike.
 *  - Collective errors.  Before any data moves the ranks agree on type,
 *    flags, value_size and on every local check and allocation; any
 *    mismatch or failure makes every rank return the same status, with
 *    every rank's arrays exactly as they were.  A call never hangs on an
 *    error that some ranks see and others do not.
 *  - Separate arrays.  As in portsort.h: the arrays one rank passes
 *    (keys and values; in, out and n_out) must not share a byte.  An
 *    overlap on any rank is PS_ERR_INVALID_ARG on every rank, with every
 *    rank's arrays unchanged.  Arrays of 0 bytes overlap nothing.  (These
 *    functions set no ps_error_detail() message.)
 *  - MPI failures.  The communicator's error handler is left alone: under
 *    MPI_ERRORS_ARE_FATAL (MPI's default) a failing MPI call ends the job;
 *    under MPI_ERRORS_RETURN the function returns PS_ERR_DEVICE, and then
 *    the arrays may have been partly written.
 *  - Requirements.  MPI is initialised (and not finalised); comm is an
 *    intra-communicator.  If several threads call MPI, the application
 *    must have MPI_THREAD_MULTIPLE, and two concurrent calls must use
 *    different communicators (as for any MPI collective).
 *  - Local sorting goes through ps_sort_keys / ps_sort_pairs, so each rank
 *    sorts on the backend libportsort chooses there (PORTSORT_BACKEND).
 *  - Silence.  Nothing is printed; the process is never ended.
 *
 * All functions return a ps_status value (PS_OK on success).
 */
#ifndef PORTSORT_MPI_H
#define PORTSORT_MPI_H

#include <stddef.h>

#include <mpi.h>
#include <portsort.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * ps_mpi_sort_keys - sort the keys distributed over comm, in place.
 *
 * keys:    this rank's n_local keys of `type`; may be NULL when n_local is
 *          0.  Ranks may hold any counts, 0 included.
 * flags:   0 (ascending) or PS_DESCENDING, the same on every rank.
 *
 * On success every rank holds exactly n_local keys again: its slice of the
 * globally sorted sequence, at global positions [offset, offset + n_local)
 * where offset is the sum of n_local over the lower ranks.
 *
 * Errors (the same on every rank, arrays unchanged): PS_ERR_INVALID_ARG
 * (MPI not initialised, comm null or an inter-communicator, and on any
 * rank: keys NULL with n_local > 0, unknown type or flag, the type or
 * flags differing between ranks, sizes overflowing size_t, arrays sharing
 * a byte),
 * PS_ERR_NO_MEMORY (an allocation failed on some rank), and the statuses
 * of ps_sort_keys on some rank.  (An MPI call that fails: see "MPI
 * failures" above.)
 *
 * Data moved: each key crosses the network at most twice (once to the rank
 * that sorts its range, once back to the rank that owns its position).
 */
PS_API int ps_mpi_sort_keys(MPI_Comm comm, void *keys, size_t n_local, ps_type type,
                            unsigned flags);

/*
 * ps_mpi_sort_pairs - sort keys and move their values with them, in place.
 *
 * values:      n_local values of value_size bytes each (value i belongs to
 *              key i), opaque bytes, no alignment required; may be NULL
 *              when n_local is 0.
 * value_size:  >= 1, the same on every rank.
 *
 * As ps_mpi_sort_keys, and stable: among equal keys the values end in
 * (rank, index) order of their input.  Errors as ps_mpi_sort_keys, plus
 * PS_ERR_INVALID_ARG when value_size is 0 or differs between ranks, or
 * values is NULL with n_local > 0 or shares a byte with keys on some
 * rank.
 */
PS_API int ps_mpi_sort_pairs(MPI_Comm comm, void *keys, void *values, size_t value_size,
                             size_t n_local, ps_type type, unsigned flags);

/*
 * ps_mpi_sort_keys_v - sort the keys distributed over comm into `out`,
 * with free output counts.
 *
 * in:        this rank's n_in keys, only read (NULL allowed when n_in is 0).
 * out:       room for `capacity` keys (NULL allowed when capacity is 0).
 * n_out:     set to the number of keys this rank holds on return.
 *
 * On success the concatenation of the ranks' out arrays (their first
 * *n_out keys) in rank order is the sorted global sequence; the counts are
 * roughly balanced (each rank gets about total / size keys; a rank may get
 * a few percent more, never all when keys are all equal) but are not the
 * input counts.  Prefer this form when the caller can take the sorted data
 * wherever it lands (to write it out, to merge it, to search it): it moves
 * each key over the network once, where ps_mpi_sort_keys moves it twice,
 * and it has fewer collective rounds.
 *
 * If capacity is smaller than the count this rank would receive, every
 * rank returns PS_ERR_TOO_LARGE, out is unchanged, and *n_out is the count
 * each rank needs (so a second call with that capacity succeeds for the
 * same input).  The total count over all ranks is always enough.
 * PS_ERR_TOO_LARGE for another reason (a count past size_t, or from the
 * local sort) also sets *n_out to this rank's count where the counts were
 * already agreed, and to 0 before that.  On other errors *n_out is 0,
 * except where n_out itself lies inside in or out: it is then not written
 * at all.  Errors otherwise as ps_mpi_sort_keys (n_out NULL, or any two of
 * in, out and n_out sharing a byte on some rank, is PS_ERR_INVALID_ARG).
 */
PS_API int ps_mpi_sort_keys_v(MPI_Comm comm, const void *in, size_t n_in, void *out,
                              size_t capacity, size_t *n_out, ps_type type,
                              unsigned flags);

/*
 * ps_mpi_release_cache - give back the work memory kept between calls.
 *
 * Each call on more than one rank works in a block of about 1.5 times its
 * input (the bucket it sorts and what it sends), and keeps that block for
 * the next call, so that repeated sorts do not pay the page faults of fresh
 * memory again; at most one block is kept per process.  This frees it (a
 * call running at the same time in another thread may keep its block
 * when it returns).  Local, not collective; thread-safe.  Returns PS_OK.
 * libportsort's own cache is ps_release_cache().
 */
PS_API int ps_mpi_release_cache(void);

#ifdef __cplusplus
}
#endif

#endif /* PORTSORT_MPI_H */
