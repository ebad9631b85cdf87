/*
 * ps_opencl_api.c - the functions of <portsort_opencl.h>, as thin wrappers
 * that reach the OpenCL module's cl_mem entry points through
 * ps_device_api("opencl") (which loads, probes and initialises it once).
 *
 * The core must not include CL headers nor link libOpenCL, so the OpenCL
 * handle types are declared here exactly as CL/cl.h declares them (opaque
 * struct pointers); the wrappers only pass them through.
 */
#include <config.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "ps_internal.h"
#include "ps_opencl_entry.h"

typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;

PS_API int ps_opencl_scratch_size(cl_command_queue queue, size_t n,
                                  ps_type type, size_t value_size,
                                  size_t *bytes);
PS_API int ps_opencl_sort_keys(cl_command_queue queue, cl_mem keys,
                               size_t key_offset, size_t n, ps_type type,
                               unsigned flags, cl_mem scratch,
                               size_t scratch_bytes);
PS_API int ps_opencl_sort_pairs(cl_command_queue queue, cl_mem keys,
                                size_t key_offset, cl_mem values,
                                size_t value_offset, size_t value_size,
                                size_t n, ps_type type, unsigned flags,
                                cl_mem scratch, size_t scratch_bytes);

static const ps_opencl_entry_ops *entry;
static char entry_why[512];
static pthread_once_t entry_once = PTHREAD_ONCE_INIT;

static void load_entry(void)
{
    const ps_opencl_entry_ops *e = ps_device_api("opencl");
    if (e == NULL)
        snprintf(entry_why, sizeof entry_why, "%s", ps_error_detail());
    else if (e->abi != PS_OPENCL_ENTRY_ABI) {
        snprintf(entry_why, sizeof entry_why,
                 "ps_opencl.so has cl_mem entry ABI %u, this libportsort needs %u",
                 e->abi, PS_OPENCL_ENTRY_ABI);
        e = NULL;
    }
    entry = e;
    if (e == NULL)
        ps_log("opencl device API: %s", entry_why);
}

static int get_entry(const char *fn, const ps_opencl_entry_ops **e)
{
    pthread_once(&entry_once, load_entry);
    if (entry == NULL) {
        ps_detail_set("%s: %s", fn, entry_why);
        return PS_ERR_BACKEND_UNAVAILABLE;
    }
    *e = entry;
    return PS_OK;
}

static int check(const char *fn, const void *queue, const void *keys,
                 size_t n, ps_type type, unsigned flags)
{
    int st = ps_check_type_flags(fn, type, flags);
    if (st != PS_OK)
        return st;
    if (queue == NULL || (n > 0 && keys == NULL)) {
        ps_detail_set("%s: queue or keys is NULL", fn);
        return PS_ERR_INVALID_ARG;
    }
    if (n > UINT32_MAX) {
        ps_detail_set("%s: n = %zu is beyond 2^32 - 1", fn, n);
        return PS_ERR_TOO_LARGE;
    }
    return PS_OK;
}

int ps_opencl_scratch_size(cl_command_queue queue, size_t n, ps_type type,
                           size_t value_size, size_t *bytes)
{
    const ps_opencl_entry_ops *e;
    int st;
    ps_detail_clear();
    st = check("ps_opencl_scratch_size", queue, queue, n, type, 0);
    if (st == PS_OK && bytes == NULL) {
        ps_detail_set("ps_opencl_scratch_size: bytes is NULL");
        st = PS_ERR_INVALID_ARG;
    }
    if (st == PS_OK)
        st = get_entry("ps_opencl_scratch_size", &e);
    if (st != PS_OK)
        return st;
    return e->scratch_size(ps_host_get(), queue, n, type, value_size, bytes);
}

int ps_opencl_sort_keys(cl_command_queue queue, cl_mem keys, size_t key_offset,
                        size_t n, ps_type type, unsigned flags, cl_mem scratch,
                        size_t scratch_bytes)
{
    const ps_opencl_entry_ops *e;
    int st;
    ps_detail_clear();
    st = check("ps_opencl_sort_keys", queue, keys, n, type, flags);
    if (st == PS_OK)
        st = get_entry("ps_opencl_sort_keys", &e);
    if (st != PS_OK || n < 2)
        return st;
    return e->sort(ps_host_get(), queue, keys, key_offset, NULL, 0, 0, n, type,
                   flags, scratch, scratch_bytes);
}

int ps_opencl_sort_pairs(cl_command_queue queue, cl_mem keys, size_t key_offset,
                         cl_mem values, size_t value_offset, size_t value_size,
                         size_t n, ps_type type, unsigned flags, cl_mem scratch,
                         size_t scratch_bytes)
{
    const ps_opencl_entry_ops *e;
    int st;
    ps_detail_clear();
    st = check("ps_opencl_sort_pairs", queue, keys, n, type, flags);
    if (st == PS_OK && n > 0 && values == NULL) {
        ps_detail_set("ps_opencl_sort_pairs: values is NULL");
        st = PS_ERR_INVALID_ARG;
    }
    if (st == PS_OK && value_size != 4 && value_size != 8) {
        ps_detail_set("ps_opencl_sort_pairs: value_size %zu (4 or 8 on devices)",
                      value_size);
        st = PS_ERR_INVALID_ARG;
    }
    if (st == PS_OK)
        st = get_entry("ps_opencl_sort_pairs", &e);
    if (st != PS_OK || n < 2)
        return st;
    return e->sort(ps_host_get(), queue, keys, key_offset, values, value_offset,
                   value_size, n, type, flags, scratch, scratch_bytes);
}
