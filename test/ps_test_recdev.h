/*
 * ps_test_recdev.h - the device records sorts' cases, shared by the
 * programs of the device APIs (ps_test_gpu_fake: CUDA's on the stand-in;
 * ps_test_opencl api: OpenCL's on pocl), which each supply the calls.
 */
#ifndef PS_TEST_RECDEV_H
#define PS_TEST_RECDEV_H

#include <stddef.h>

#include "portsort.h"

/* The three device calls on host arrays: each copies its inputs to the
 * device (perm and the records too, with the caller's bytes in them),
 * makes the call (alternately with the caller's scratch, sized by the
 * API's query, and with none), and reads the records and perm back into
 * the caller's arrays whatever the status, which it returns.  A perm of
 * n = 0 may be NULL. */
typedef struct t_rec_dev {
    int (*sort_records)(void *records, size_t record_size, size_t n,
                        const ps_field *fields, size_t num_fields);
    int (*argsort_records)(void *records, size_t record_size, size_t n,
                           const ps_field *fields, size_t num_fields,
                           size_t *perm);
    int (*argsort_columns)(void *const *columns, const ps_type *types,
                           const unsigned *flags, size_t num_columns, size_t n,
                           size_t *perm);
    size_t max_n;   /* the largest n to try; 0: no cap of its own */
} t_rec_dev;

/* The cases: records of 3, 7, 24 and 100 bytes with 1-4 fields of random
 * types, directions and offsets (overlapping fields included), values
 * random, few distinct, and special (NaNs of both signs, -0/+0,
 * infinities, extremes), n = 0, 1, 2, 1000 and 70000 (those up to
 * PS_TEST_MAX_N when it is set, and up to dev->max_n); each device result compared with the host ps_argsort_records / ps_sort_records (itself
 * checked against a qsort by t_cmp per field, then the index), the
 * columns form with the fields cut into columns; argsort_records must
 * leave the records as they were.  Then refusals (a field past the
 * record, a bad type or flag, record_size 0, no fields), each leaving the
 * arrays unchanged.  Fails the test naming `who`, or returns the number
 * of calls. */
long t_records_device(const char *who, const t_rec_dev *dev);

#endif
