/*
 * ps_overlap.h - whether two arrays of one call share a byte.
 *
 * Every entry point refuses arrays that overlap (portsort.h, "Nothing
 * lost"): a sort that reads one array while it writes another that shares
 * its bytes loses keys or returns them unsorted, whatever the backend.
 * The check lives in a header because four places make it and not all of
 * them can call the core's functions: the core's host-array functions, the
 * device modules (OpenCL, CUDA, HIP: modules see the core only through
 * ps_host) and libportsort_mpi (a separate library on the public API).
 * It needs nothing but <stdint.h> and the status values.
 *
 * A span is compared as integers (uintptr_t), never as pointers: relational
 * comparison of pointers into different objects is undefined in C, and an
 * optimiser may fold it.  No end address is ever computed, so a span near
 * the top of the address space cannot wrap into a false answer.
 */
#ifndef PS_OVERLAP_H
#define PS_OVERLAP_H

#include <stddef.h>
#include <stdint.h>

#include "portsort.h"

/* One array of a call: `bytes` bytes from `at` in address space `space`,
 * named as the caller's argument is.  Host and CUDA/HIP device pointers
 * are addresses in one space, 0; an OpenCL buffer is a space of its own,
 * where `at` is a byte offset (sub-buffers are placed in their parent's). */
typedef struct ps_span {
    const char *name;
    uintptr_t space;
    uintptr_t at;
    size_t bytes;
} ps_span;

/* The span of `bytes` bytes at host or device address p. */
static inline ps_span ps_span_of(const char *name, const void *p, size_t bytes)
{
    ps_span s;
    s.name = name;
    s.space = 0;
    s.at = (uintptr_t)p;
    s.bytes = bytes;
    return s;
}

/* 1 when a and b share a byte.  An empty span overlaps nothing (an array
 * of n == 0 elements may be anywhere, NULL included). */
static inline int ps_spans_meet(const ps_span *a, const ps_span *b)
{
    if (a->bytes == 0 || b->bytes == 0 || a->space != b->space)
        return 0;
    /* The later start must lie before the earlier span's end:
     * later - earlier < earlier's length, which cannot overflow. */
    return a->at >= b->at ? a->at - b->at < b->bytes : b->at - a->at < a->bytes;
}

/* 1 when two of the n spans overlap, with the first such pair (in argument
 * order) in *i < *j. */
static inline int ps_spans_clash(const ps_span *s, size_t n, size_t *i, size_t *j)
{
    size_t a, b;
    for (b = 1; b < n; b++)
        for (a = 0; a < b; a++)
            if (ps_spans_meet(&s[a], &s[b])) {
                *i = a;
                *j = b;
                return 1;
            }
    return 0;
}

/* PS_OK when no two of the n address spans overlap; otherwise
 * PS_ERR_INVALID_ARG, after passing fail a message that names fn, the two
 * arrays and their byte ranges. */
static inline int ps_spans_check(const char *fn, const ps_span *s, size_t n,
                                 void (*fail)(const char *fmt, ...))
{
    size_t i, j;
    if (!ps_spans_clash(s, n, &i, &j))
        return PS_OK;
    /* The ends are for the reader only: computed as uintmax_t, they wrap
     * only for a span no real array has. */
    fail("%s: %s [0x%jx, 0x%jx) and %s [0x%jx, 0x%jx) overlap; pass separate "
         "arrays", fn, s[i].name, (uintmax_t)s[i].at, (uintmax_t)s[i].at + s[i].bytes,
         s[j].name, (uintmax_t)s[j].at, (uintmax_t)s[j].at + s[j].bytes);
    return PS_ERR_INVALID_ARG;
}

#endif /* PS_OVERLAP_H */
