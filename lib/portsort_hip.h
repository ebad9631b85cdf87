/*
 * portsort_hip.h - sort data already in HIP device memory, on a stream.
 *
 *     #include <portsort_hip.h>      // link with -lportsort only
 *
 *     size_t bytes;
 *     void *scratch;
 *     if (ps_hip_scratch_size(PS_GPU_SORT_PAIRS, n, PS_U32, 4, &bytes) != PS_OK) ...
 *     hipMalloc(&scratch, bytes);
 *     if (ps_hip_sort_pairs(d_keys, d_vals, 4, n, PS_U32, 0,
 *                             scratch, bytes, stream) != PS_OK)
 *         fprintf(stderr, "%s\n", ps_error_detail());
 *     hipStreamSynchronize(stream);   // the sort is done here
 *
 * Functions (defined by PS_GPU_WRAPPERS, see portsort_gpu.h for the whole
 * contract: asynchrony, scratch, sizes, errors):
 *   const ps_hip_api *ps_hip_api_get(void);   the table, or NULL
 *   int ps_hip_available(void);                  1 when usable here
 *   int ps_hip_scratch_size(op, n, type, value_size, &bytes);
 *   int ps_hip_sort_keys(d_keys, n, type, flags, d_scratch, bytes, stream);
 *   int ps_hip_sort_pairs(d_keys, d_values, value_size, n, type, flags,
 *                           d_scratch, bytes, stream);
 *   int ps_hip_argsort(d_keys, d_perm, n, type, flags, d_scratch, bytes,
 *                        stream);
 *   int ps_hip_sort_segments(d_keys, d_values, value_size, n, d_offsets,
 *                            num_segments, type, flags, d_scratch, bytes,
 *                            stream);   each segment on its own; waits once
 *   int ps_hip_topk(d_keys, d_values, value_size, n, k, d_out_keys,
 *                   d_out_values, d_out_index, type, flags, d_scratch,
 *                   bytes, stream);       the first k of the stable order
 *   int ps_hip_topk_segments(d_keys, d_values, value_size, n, d_offsets,
 *                            num_segments, k, d_out_keys, d_out_values,
 *                            d_out_index, type, flags, d_scratch, bytes,
 *                            stream);   per segment; waits once
 *   int ps_hip_records_scratch_size(record_size, n, &bytes);
 *                                  record_size 0 for the two argsorts
 *   int ps_hip_sort_records(d_records, record_size, n, fields, num_fields,
 *                         d_scratch, bytes, stream);   ps_sort_records
 *   int ps_hip_argsort_records(d_records, record_size, n, fields,
 *                            num_fields, d_perm, d_scratch, bytes,
 *                            stream);   ps_argsort_records
 *   int ps_hip_argsort_columns(d_columns, types, flags, num_columns, n,
 *                            d_perm, d_scratch, bytes, stream);
 *                  ps_argsort_columns; d_columns: a host array of device
 *                  pointers; fields, types, flags in host memory
 *
 * They return when the sort is enqueued on the stream.  The stream is a
 * void *, so this header needs no HIP header: a hipStream_t converts to it
 * implicitly.  They work whichever backend PORTSORT_BACKEND picks for host
 * arrays.  The first call loads the hip module and initialises it; when
 * HIP cannot run here (module not built, no driver, no device) every
 * function returns PS_ERR_BACKEND_UNAVAILABLE and ps_error_detail() says
 * why, e.g. "ps_device_api: hip: no HIP device".
 */
#ifndef PORTSORT_HIP_H
#define PORTSORT_HIP_H

#include "portsort_gpu.h"

typedef ps_gpu_api ps_hip_api;

PS_GPU_WRAPPERS(hip)

#endif /* PORTSORT_HIP_H */
