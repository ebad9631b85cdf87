/*
 * ps_opencl_entry.h - the OpenCL module's device-buffer entry points, as
 * seen by the core's thin wrappers (lib/ps_opencl_api.c) that implement
 * <portsort_opencl.h>.
 *
 * libportsort must not link libOpenCL, so the public device API functions
 * live in libportsort as wrappers that load ps_opencl.so on first use and
 * call through this table (symbol PS_OPENCL_ENTRY_NAME).  OpenCL handles
 * travel as void pointers here because the core never includes CL headers;
 * they are the caller's cl_command_queue and cl_mem, unchanged.
 */
#ifndef PS_OPENCL_ENTRY_H
#define PS_OPENCL_ENTRY_H

#include <stddef.h>

#include "ps_backend.h"

#define PS_OPENCL_ENTRY ps_opencl_entry
#define PS_OPENCL_ENTRY_NAME "ps_opencl_entry"
#define PS_OPENCL_ENTRY_ABI 1u

typedef struct ps_opencl_entry_ops {
    unsigned abi;                   /* PS_OPENCL_ENTRY_ABI */
    /* Bytes of scratch a sort of n keys (values of value_size, 0 for keys
     * only) needs on the device of queue. */
    int (*scratch_size)(const ps_host *host, void *queue, size_t n,
                        ps_type type, size_t value_size, size_t *bytes);
    /* Sort keys[key_offset .. +n) (and values[value_offset .. +n), or
     * values NULL) on queue.  scratch may be NULL (allocated here). */
    int (*sort)(const ps_host *host, void *queue, void *keys,
                size_t key_offset, void *values, size_t value_offset,
                size_t value_size, size_t n, ps_type type, unsigned flags,
                void *scratch, size_t scratch_bytes);
} ps_opencl_entry_ops;

#endif /* PS_OPENCL_ENTRY_H */
