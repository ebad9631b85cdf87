/*
 * ps_opencl_error.c - OpenCL error codes in words, and their libportsort
 * status.  The bottom of the backend: every other file calls down into it,
 * and it calls nothing of theirs.
 */
#include <config.h>

#include "ps_opencl_internal.h"

const char *ps_cl_errname(cl_int err)
{
    switch (err) {
#define E(x) case x: return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE)
    E(CL_COMPILER_NOT_AVAILABLE) E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY) E(CL_BUILD_PROGRAM_FAILURE)
    E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE) E(CL_INVALID_BINARY)
    E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM) E(CL_INVALID_KERNEL_NAME)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_CONTEXT)
    E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL) E(CL_INVALID_OPERATION) E(CL_INVALID_PROGRAM_EXECUTABLE)
    E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_WORK_SIZE)
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_LINK_PROGRAM_FAILURE)
#undef E
    default: return "OpenCL error";
    }
}

int ps_cl_status(const ps_host *host, cl_int err, const char *what)
{
    host->fail("opencl: %s failed: %s (%d)", what, ps_cl_errname(err), (int)err);
    switch (err) {
    case CL_OUT_OF_RESOURCES:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return PS_ERR_DEVICE_MEMORY;
    case CL_OUT_OF_HOST_MEMORY:
        return PS_ERR_NO_MEMORY;
    default:
        return PS_ERR_DEVICE;
    }
}
