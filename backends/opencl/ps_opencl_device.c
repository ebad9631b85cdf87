/*
 * ps_opencl_device.c - which OpenCL device the backend uses.
 *
 * PORTSORT_OPENCL_DEVICE = "P:D" (platform and device indices, as clinfo -l
 * lists them), "P" (that platform's first device) or a substring of the
 * device name picks one; otherwise the
 * first GPU of any platform, else the first device of any kind (pocl's CPU
 * device, on machines without a GPU).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_opencl_internal.h"

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

void ps_cl_device_name(cl_device_id dev, char *buf, size_t len)
{
    if (clGetDeviceInfo(dev, CL_DEVICE_NAME, len, buf, NULL) != CL_SUCCESS)
        snprintf(buf, len, "unknown device");
    buf[len - 1] = '\0';
}

/* "P:D" with both decimal: device D of platform P (as clinfo -l numbers
 * them); "P" alone: platform P's first available device, as PyOpenCL's
 * PYOPENCL_CTX reads it (a bare number is never taken as a piece of a
 * name, which would pick whatever device has that digit in its name).
 * Returns 2 for "P:D", 1 for "P", 0 for anything else: a name substring. */
static int parse_indices(const char *s, unsigned *p, unsigned *d)
{
    char *end;
    unsigned long a, b;
    if (s[0] < '0' || s[0] > '9')
        return 0;
    a = strtoul(s, &end, 10);
    if (*end == '\0' && a <= 1000000) {
        *p = (unsigned)a;
        *d = 0;
        return 1;
    }
    if (*end != ':' || end[1] < '0' || end[1] > '9')
        return 0;
    b = strtoul(end + 1, &end, 10);
    if (*end != '\0')
        return 0;
    *p = (unsigned)a;
    *d = (unsigned)b;
    return 2;
}

int ps_cl_pick_device(cl_platform_id *plat, cl_device_id *dev, char *why,
                      size_t why_len)
{
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0, i;
    const char *want = ps_getenv("PORTSORT_OPENCL_DEVICE");
    unsigned wp = 0, wd = 0;
    int by_index = 0, found_any = 0;
    cl_platform_id any_p = NULL;
    cl_device_id any_d = NULL;

    if (want != NULL && want[0] == '\0')
        want = NULL;
    if (want != NULL)
        by_index = parse_indices(want, &wp, &wd);
    /* The ICD loader returns CL_PLATFORM_NOT_FOUND_KHR (-1001) when no
     * vendor is installed: that is "no platform", not an error to show. */
    if (clGetPlatformIDs(MAX_PLATFORMS, plats, &np) != CL_SUCCESS || np == 0) {
        snprintf(why, why_len, "no OpenCL platform");
        return -1;
    }
    for (i = 0; i < np; i++) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0, j;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd)
            != CL_SUCCESS)
            continue;
        for (j = 0; j < nd; j++) {
            cl_device_type type = 0;
            cl_bool avail = CL_FALSE;
            char name[256];
            clGetDeviceInfo(devs[j], CL_DEVICE_AVAILABLE, sizeof avail, &avail, NULL);
            if (!avail)
                continue;
            found_any = 1;
            if (want != NULL) {
                int match;
                if (by_index == 2) {
                    match = i == wp && j == wd;
                } else if (by_index == 1) {
                    match = i == wp;      /* its first available one */
                } else {
                    ps_cl_device_name(devs[j], name, sizeof name);
                    match = strstr(name, want) != NULL;
                }
                if (match) {
                    *plat = plats[i];
                    *dev = devs[j];
                    return 0;
                }
                continue;
            }
            clGetDeviceInfo(devs[j], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            if (type & CL_DEVICE_TYPE_GPU) {
                *plat = plats[i];
                *dev = devs[j];
                return 0;
            }
            if (any_d == NULL) {
                any_p = plats[i];
                any_d = devs[j];
            }
        }
    }
    if (want != NULL) {
        snprintf(why, why_len, "no device matches PORTSORT_OPENCL_DEVICE=%s", want);
        return -1;
    }
    if (!found_any || any_d == NULL) {
        snprintf(why, why_len, "no OpenCL device");
        return -1;
    }
    *plat = any_p;
    *dev = any_d;
    return 0;
}

/* A test hook, not a tuning knob: device allocation failures cannot be
 * provoked on demand on pocl (it allocates host memory), yet the promise
 * that the caller's arrays survive them must be tested. */
static long device_allocs;

cl_mem ps_cl_create_buffer(cl_context ctx, size_t bytes, cl_int *err)
{
    const char *k = ps_getenv("PORTSORT_TEST_FAIL_DEVICE_ALLOC");
    /* A device smaller than it is (pocl's memory is the host's): no
     * buffer larger than this many bytes, so that the core's sort in
     * pieces (lib/ps_chunks.c) can be tested here. */
    const char *cap = ps_getenv("PORTSORT_TEST_DEVICE_MEMORY");
    long c = __atomic_add_fetch(&device_allocs, 1, __ATOMIC_SEQ_CST);
    if ((k != NULL && atol(k) == c)
        || (cap != NULL && bytes > strtoull(cap, NULL, 10))) {
        *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    return clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, err);
}

/* The same for the reads of host-array results: device loss during the
 * copy back cannot be provoked on pocl either, and the promise that the
 * caller's arrays change all together or not at all must be tested. */
static long result_reads;

cl_int ps_cl_read_result(cl_command_queue q, cl_mem buf, size_t bytes, void *dst)
{
    const char *k = ps_getenv("PORTSORT_TEST_FAIL_DEVICE_READ");
    long c = __atomic_add_fetch(&result_reads, 1, __ATOMIC_SEQ_CST);
    if (k != NULL && atol(k) == c)
        return CL_OUT_OF_RESOURCES;
    return clEnqueueReadBuffer(q, buf, CL_FALSE, 0, bytes, dst, 0, NULL, NULL);
}
