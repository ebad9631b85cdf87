/*
 * ps_reference.c - the serial reference radix sort (see ps_reference.h).
 *
 * Written to be obviously right first: the control below is written once
 * for every key width, and calls the loops over keys of
 * ps_reference_kernels-inl.h, compiled once per width, a pass at a time;
 * the value move is specialised for 4 and 8 bytes only because the
 * indirect pairs and argsort paths of the core lean on those.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_reference.h"

/* The value buffers are accessed as uint32_t/uint64_t when value_size is 4
 * or 8; callers pass arrays of such elements, and scratch is 64-byte
 * aligned. */
#define PS_W 8
#include "ps_reference_kernels-inl.h"
#undef PS_W
#define PS_W 16
#include "ps_reference_kernels-inl.h"
#undef PS_W
#define PS_W 32
#include "ps_reference_kernels-inl.h"
#undef PS_W
#define PS_W 64
#include "ps_reference_kernels-inl.h"
#undef PS_W

/* The kernels of one key width (ps_reference_kernels-inl.h). */
typedef struct ref_kernels {
    unsigned bytes;
    uint64_t (*hist)(const void *keys, size_t n, ps_xf xf,
                     size_t (*hist)[256]);
    void (*pass)(const void *src, void *dst, const unsigned char *vsrc,
                 unsigned char *vdst, size_t vs, size_t n, ps_xf xf,
                 unsigned sh, size_t *off);
    void (*insert)(void *keys, unsigned char *values, size_t vs, size_t n,
                   ps_xf xf, unsigned char *vtmp);
} ref_kernels;

static const ref_kernels ref_kernels_of_width[4] = {
    { 1, ref_hist8, ref_pass8, ref_insert8 },
    { 2, ref_hist16, ref_pass16, ref_insert16 },
    { 4, ref_hist32, ref_pass32, ref_insert32 },
    { 8, ref_hist64, ref_pass64, ref_insert64 },
};

/* The kernels of keys of kb bytes (1, 2, 4 or 8). */
static const ref_kernels *kernels_of(unsigned kb)
{
    return &ref_kernels_of_width[kb == 1 ? 0 : kb == 2 ? 1 : kb == 4 ? 2 : 3];
}

/* The LSD sort proper, with scratch for n keys (kbuf) and n values (vbuf,
 * unused for keys only) given: it cannot fail.  One read counts every
 * 8-bit digit; a digit shared by every key leaves the order as it is and
 * is skipped; each other digit is one stable pass, the passes alternating
 * between the arrays and the scratch, and a result left in the scratch is
 * copied back. */
static void sort_in(const ref_kernels *kt, unsigned char *keys,
                    unsigned char *values, size_t vs, size_t n, ps_xf xf,
                    unsigned char *kbuf, unsigned char *vbuf)
{
    size_t hist[8][256];
    int active[8], nactive = 0, p;
    const int passes = (int)kt->bytes;
    unsigned char *ksrc = keys, *kdst = kbuf, *t;
    unsigned char *vsrc = values, *vdst = values != NULL ? vbuf : NULL;
    uint64_t first;

    memset(hist, 0, (size_t)passes * sizeof hist[0]);
    first = kt->hist(keys, n, xf, hist);
    for (p = 0; p < passes; p++) {
        active[p] = hist[p][(first >> (8 * p)) & 0xff] != n;
        nactive += active[p];
    }
    if (nactive == 0)
        return;
    for (p = 0; p < passes; p++) {
        size_t off[256], sum = 0;
        int d;
        if (!active[p])
            continue;
        for (d = 0; d < 256; d++) {
            off[d] = sum;
            sum += hist[p][d];
        }
        kt->pass(ksrc, kdst, vsrc, vdst, vs, n, xf, 8u * (unsigned)p, off);
        t = ksrc, ksrc = kdst, kdst = t;
        t = vsrc, vsrc = vdst, vdst = t;
    }
    if (ksrc != keys) {
        memcpy(keys, ksrc, n * kt->bytes);
        if (values != NULL)
            memcpy(values, vsrc, n * vs);
    }
}

int ps_reference_sort(void *keys, void *values, size_t value_size, size_t n,
                      ps_type type, unsigned flags,
                      void *(*alloc)(size_t), void (*release)(void *))
{
    const ref_kernels *kt = kernels_of(ps_type_bytes(type));
    unsigned char *kbuf, *vbuf;
    if (n < 2)
        return PS_OK;
    kbuf = alloc(n * kt->bytes);
    vbuf = values != NULL ? alloc(n * value_size) : NULL;
    if (kbuf == NULL || (values != NULL && vbuf == NULL)) {
        release(kbuf);
        release(vbuf);
        return PS_ERR_NO_MEMORY;
    }
    sort_in(kt, keys, values, value_size, n, ps_xf_make(type, flags), kbuf,
            vbuf);
    release(kbuf);
    release(vbuf);
    return PS_OK;
}

/* Where the values' part of a scratch block starts: 64-byte aligned, so
 * the word-wise value moves of the passes may use it. */
static size_t keys_part(size_t n, size_t kb)
{
    return (n * kb + 63) & ~(size_t)63;
}

size_t ps_reference_scratch_bytes(size_t n, ps_type type, size_t value_size)
{
    size_t kb = ps_type_bytes(type), vs = value_size ? value_size : 1;
    if (n > (SIZE_MAX - 128) / (kb + vs))
        return 0;
    return keys_part(n, kb) + n * vs + 64;
}

/* One segment: insertion sort when it is tiny, the LSD sort otherwise.
 * The scratch's value part doubles as the insertion sort's one-value
 * buffer (the block always has room for one value). */
static void sort_one(void *keys, void *values, size_t vs, size_t m,
                     unsigned kb, ps_xf xf, unsigned char *scratch)
{
    const ref_kernels *kt = kernels_of(kb);
    unsigned char *vbuf = scratch + keys_part(m, kb);
    if (m < 2)
        return;
    if (m <= PS_REFERENCE_TINY)
        kt->insert(keys, values, vs, m, xf, vbuf);
    else
        sort_in(kt, keys, values, vs, m, xf, scratch, vbuf);
}

void ps_reference_sort_segments(void *keys, void *values, size_t value_size,
                                const size_t *offsets, size_t first,
                                size_t last, ps_type type, unsigned flags,
                                void *scratch)
{
    unsigned kb = ps_type_bytes(type);
    ps_xf xf = ps_xf_make(type, flags);
    size_t s;
    for (s = first; s < last; s++) {
        size_t a = offsets[s], m = offsets[s + 1] - a;
        sort_one((unsigned char *)keys + a * kb,
                 values != NULL ? (unsigned char *)values + a * value_size : NULL,
                 value_size, m, kb, xf, scratch);
    }
}
