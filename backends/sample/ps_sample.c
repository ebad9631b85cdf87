/*
 * ps_sample.c - a stand-in backend module, and the template for a new one.
 *
 * A backend is one const ps_backend_ops table exported as PS_BACKEND_ENTRY
 * from ps_<name>.so.  The core finds the file by scanning its module
 * directories, checks the table's ABI, ranks the backend by its priority
 * and asks its probe whether it can run; nothing under lib/ names it.
 *
 * This one sorts on the CPU with the plainest correct algorithm, a stable
 * LSD radix sort of the keys' order images by bytes, carrying the index of
 * each key; keys and values are then gathered in that order.  It is slow
 * and memory-hungry on purpose: its job is to be obviously right, so that
 * the differential tests check the plumbing, not a clever kernel.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ps_backend.h"

/* Set by init; valid for the life of the process (ps_backend_ops.init). */
static const ps_host *host;

static void sample_probe(ps_probe *out)
{
    out->usable = 1;
    out->gpu = 0;
    snprintf(out->detail, sizeof out->detail,
             "stand-in CPU backend (backends/sample, for tests)");
}

static int sample_init(const ps_host *h, void **state)
{
    host = h;
    *state = NULL;
    return PS_OK;
}

/* The order image of key i, widened to 64 bits: its unsigned order is the
 * requested order (ps_backend.h's transforms). */
static uint64_t image(const void *keys, size_t i, unsigned width, ps_xf xf)
{
    const unsigned char *p = (const unsigned char *)keys + i * width;
    uint8_t k8;
    uint16_t k16;
    uint32_t k32;
    uint64_t k64;
    switch (width) {
    case 1: memcpy(&k8, p, 1); return ps_enc8(k8, xf);
    case 2: memcpy(&k16, p, 2); return ps_enc16(k16, xf);
    case 4: memcpy(&k32, p, 4); return ps_enc32(k32, xf);
    default: memcpy(&k64, p, 8); return ps_enc64(k64, xf);
    }
}

/* Put the elements of base (n of `size` bytes) in the order idx gives,
 * through tmp. */
static void gather(void *base, size_t size, size_t n, const size_t *idx,
                   unsigned char *tmp)
{
    const unsigned char *src = base;
    size_t i;
    for (i = 0; i < n; i++)
        memcpy(tmp + i * size, src + idx[i] * size, size);
    memcpy(base, tmp, n * size);
}

/* Stable LSD passes over the bytes of the images, moving the indices with
 * them between the first buffers (img, idx) and the second (img2, idx2).
 * A byte in which every image agrees is skipped: one bucket would hold
 * everything.  Returns the index buffer that holds the sorted order. */
static const size_t *lsd(uint64_t *img, size_t *idx, uint64_t *img2,
                         size_t *idx2, size_t n, unsigned width)
{
    unsigned byte;
    for (byte = 0; byte < width; byte++) {
        size_t count[256] = { 0 }, sum = 0, i;
        unsigned shift = 8 * byte, d;
        uint64_t *ti;
        size_t *tx;
        for (i = 0; i < n; i++)
            count[(img[i] >> shift) & 0xff]++;
        if (count[(img[0] >> shift) & 0xff] == n)
            continue;
        for (d = 0; d < 256; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++) {
            size_t at = count[(img[i] >> shift) & 0xff]++;
            img2[at] = img[i];
            idx2[at] = idx[i];
        }
        ti = img, img = img2, img2 = ti;
        tx = idx, idx = idx2, idx2 = tx;
    }
    return idx;
}

static int sample_sort(void *keys, void *values, size_t value_size, size_t n,
                       ps_type type, unsigned flags)
{
    unsigned width = ps_type_bytes(type);
    size_t widest = value_size > width ? value_size : width;
    ps_xf xf = ps_xf_make(type, flags);
    uint64_t *img;
    size_t *idx;
    unsigned char *tmp;
    const size_t *order;
    size_t i;

    /* Two images and two indices per key must not overflow size_t. */
    if (n > SIZE_MAX / (2 * sizeof *img) || n > SIZE_MAX / widest) {
        host->fail("sample backend: %zu keys overflow its scratch size", n);
        return PS_ERR_TOO_LARGE;
    }
    img = host->alloc(2 * n * sizeof *img);
    idx = host->alloc(2 * n * sizeof *idx);
    tmp = host->alloc(n * widest);

    /* Everything is allocated before the caller's arrays are touched, so a
     * failure leaves them as they were (ps_backend.h). */
    if (img == NULL || idx == NULL || tmp == NULL) {
        host->release(img);
        host->release(idx);
        host->release(tmp);
        host->fail("sample backend: cannot allocate scratch for %zu keys", n);
        return PS_ERR_NO_MEMORY;
    }
    for (i = 0; i < n; i++) {
        img[i] = image(keys, i, width, xf);
        idx[i] = i;
    }
    order = lsd(img, idx, img + n, idx + n, n, width);
    gather(keys, width, n, order, tmp);
    if (values != NULL)
        gather(values, value_size, n, order, tmp);
    host->release(img);
    host->release(idx);
    host->release(tmp);
    return PS_OK;
}

static int sample_sort_keys(void *state, void *keys, size_t n, ps_type type,
                            unsigned flags)
{
    (void)state;
    return sample_sort(keys, NULL, 0, n, type, flags);
}

static int sample_sort_pairs(void *state, void *keys, void *values,
                             size_t value_size, size_t n, ps_type type,
                             unsigned flags)
{
    (void)state;
    return sample_sort(keys, values, value_size, n, type, flags);
}

/* What sample_sort allocates (ps_backend_ops.scratch_bytes): a backend
 * that says lets ps_scratch_bytes answer for it exactly. */
static size_t sample_scratch_bytes(void *state, size_t n, size_t value_size,
                                   ps_type type, unsigned flags)
{
    size_t width = ps_type_bytes(type);
    size_t widest = value_size > width ? value_size : width;
    size_t per = 2 * sizeof(uint64_t) + 2 * sizeof(size_t) + widest;
    (void)state;
    (void)flags;
    return n > SIZE_MAX / per ? SIZE_MAX : n * per;
}

/* Priority 1, below serial's 10: `auto` never prefers the stand-in, and
 * PORTSORT_BACKEND=sample reaches it.  device 0: a CPU backend. */
__attribute__((visibility("default")))
const ps_backend_ops PS_BACKEND_ENTRY = {
    PS_BACKEND_HEAD,
    .name = "sample",
    .priority = 1,
    .device = 0,
    .value_sizes = PS_VALUE_SIZE_BIT(4) | PS_VALUE_SIZE_BIT(8),
    .probe = sample_probe,
    .init = sample_init,
    .sort_keys = sample_sort_keys,
    .sort_pairs = sample_sort_pairs,
    .scratch_bytes = sample_scratch_bytes,
};
