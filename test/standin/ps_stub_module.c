/*
 * ps_stub_module.c - a stand-in backend module for the loader tests.  It
 * poses as the "cuda" module (the tests install it as ps_cuda.so in a
 * private module directory) so that the real code path for GPU modules is
 * what gets tested.  PS_STUB_MODE selects its behaviour:
 *   0  works: a GPU that sorts (stable insertion sort, small n only)
 *   1  carries the wrong backend ABI
 *   2  its probe finds no device
 *   3  probes fine, then fails in the middle of every sort
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ps_backend.h"

#ifndef PS_STUB_MODE
#  define PS_STUB_MODE 0
#endif

static const ps_host *host;

/* Code a module runs as soon as it is loaded, before the core sees its
 * table: what a planted module would use.  With PS_STUB_ANNOUNCE set it
 * says so on stderr, with the effective user it runs as, so that the
 * privilege test (test/process.sh) can tell whether a setuid program
 * loaded it. */
__attribute__((constructor)) static void stub_loaded(void)
{
    if (getenv("PS_STUB_ANNOUNCE") != NULL)
        fprintf(stderr, "ps_stub: module loaded, euid %d\n", (int)geteuid());
}

static void stub_probe(ps_probe *out)
{
    out->gpu = 1;
    out->usable = PS_STUB_MODE != 2;
    snprintf(out->detail, sizeof out->detail, "%s",
             PS_STUB_MODE == 2 ? "no CUDA device (stand-in module)"
                               : "stand-in GPU for tests");
}

static int stub_init(const ps_host *h, void **state)
{
    host = h;
    *state = NULL;
    return PS_OK;
}

static uint64_t enc(const unsigned char *k, unsigned kb, ps_xf xf)
{
    uint8_t a; uint16_t b; uint32_t c; uint64_t d;
    switch (kb) {
    case 1: memcpy(&a, k, 1); return ps_enc8(a, xf);
    case 2: memcpy(&b, k, 2); return ps_enc16(b, xf);
    case 4: memcpy(&c, k, 4); return ps_enc32(c, xf);
    default: memcpy(&d, k, 8); return ps_enc64(d, xf);
    }
}

static int stub_sort_pairs(void *state, void *keys, void *values,
                           size_t vs, size_t n, ps_type type, unsigned flags)
{
    unsigned char *k = keys, *v = values, tk[8], tv[8];
    unsigned kb = ps_type_bytes(type);
    ps_xf xf = ps_xf_make(type, flags);
    size_t i, j;
    (void)state;
    if (PS_STUB_MODE == 3) {
        host->fail("stand-in module: simulated kernel failure");
        return PS_ERR_DEVICE;
    }
    for (i = 1; i < n; i++) {
        uint64_t e = enc(k + i * kb, kb, xf);
        memcpy(tk, k + i * kb, kb);
        if (v)
            memcpy(tv, v + i * vs, vs);
        for (j = i; j > 0 && enc(k + (j - 1) * kb, kb, xf) > e; j--) {
            memcpy(k + j * kb, k + (j - 1) * kb, kb);
            if (v)
                memcpy(v + j * vs, v + (j - 1) * vs, vs);
        }
        memcpy(k + j * kb, tk, kb);
        if (v)
            memcpy(v + j * vs, tv, vs);
    }
    return PS_OK;
}

static int stub_sort_keys(void *state, void *keys, size_t n, ps_type type,
                          unsigned flags)
{
    return stub_sort_pairs(state, keys, NULL, 0, n, type, flags);
}

/* A device API table for ps_device_api() to hand out: the tests only check
 * that the very table comes back. */
static const unsigned stub_device_api[2] = { 0x50535441u, PS_STUB_MODE };

__attribute__((visibility("default")))
const ps_backend_ops PS_BACKEND_ENTRY = {
    .abi = PS_STUB_MODE == 1 ? PS_BACKEND_ABI + 100 : PS_BACKEND_ABI,
    .name = "cuda",
    .priority = 300,
    .device = 1,
    .value_sizes = PS_VALUE_SIZE_BIT(4) | PS_VALUE_SIZE_BIT(8),
    .probe = stub_probe,
    .init = stub_init,
    .sort_keys = stub_sort_keys,
    .sort_pairs = stub_sort_pairs,
    .device_api = stub_device_api,
};
