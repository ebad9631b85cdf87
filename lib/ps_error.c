/*
 * ps_error.c - status messages and the per-thread detail message.
 *
 * Status values are pinned in portsort.h; every message lives here.  The
 * detail is thread-local so that concurrent failing calls never see each
 * other's messages, and it is never reported through errno, which device
 * runtimes overwrite.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>

#include "ps_internal.h"

static _Thread_local char detail[512];

const char *ps_strerror(int status)
{
    switch (status) {
    case PS_OK:                      return "success";
    case PS_ERR_INVALID_ARG:         return "invalid argument";
    case PS_ERR_NO_MEMORY:           return "out of host memory";
    case PS_ERR_DEVICE_MEMORY:       return "out of device memory";
    case PS_ERR_BACKEND_UNAVAILABLE: return "backend unavailable";
    case PS_ERR_DEVICE:              return "device or runtime failure";
    case PS_ERR_TOO_LARGE:           return "too many elements for the backend";
    default:                         return "unknown status";
    }
}

const char *ps_error_detail(void)
{
    return detail;
}

void ps_detail_clear(void)
{
    detail[0] = '\0';
}

void ps_detail_vset(const char *fmt, va_list ap)
{
    vsnprintf(detail, sizeof detail, fmt, ap);
}

void ps_detail_set(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ps_detail_vset(fmt, ap);
    va_end(ap);
}
