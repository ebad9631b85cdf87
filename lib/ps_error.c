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

/* Every public entry point calls this first: it is where a call begins,
 * for the memory limit's count too. */
void ps_detail_clear(void)
{
    detail[0] = '\0';
    ps_mem_call_begin();
}

void ps_detail_drop(void)
{
    detail[0] = '\0';
}

/* A message of a call in which the memory limit refused a block says so:
 * that refusal is what made the allocation named fail. */
void ps_detail_vset(const char *fmt, va_list ap)
{
    int len = vsnprintf(detail, sizeof detail, fmt, ap);
    if (len >= 0 && (size_t)len < sizeof detail)
        ps_mem_note(detail + len, sizeof detail - (size_t)len);
}

void ps_detail_set(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ps_detail_vset(fmt, ap);
    va_end(ap);
}
