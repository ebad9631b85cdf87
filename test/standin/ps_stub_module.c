/*
 * ps_stub_module.c - a stand-in backend module for the loader tests.  It
 * poses as the "cuda" module (the tests install it as ps_cuda.so in a
 * private module directory) so that the real code path for GPU modules is
 * what gets tested.  PS_STUB_MODE selects its behaviour:
 *   0  works: a GPU that sorts (stable insertion sort, small n only)
 *   1  carries the wrong backend ABI
 *   2  its probe finds no device
 *   3  probes fine, then fails in the middle of every sort
 *   4  works, with the shortest table the core takes (PS_BACKEND_OPS_MIN:
 *      a module built before release, trim, device_api, sort_segments
 *      and check_env existed); this file sets them all to traps that
 *      fail loudly, reached only if the core reads past the table's size
 *   5  works, with a table longer than the core's (members of a later
 *      revision of the ABI at its end, not NULL): the core must take it,
 *      ignore them and copy no more than its own table holds
 *   6  a table that stops before sort_pairs: shorter than every backend's,
 *      refused (sort_pairs itself is set, so only the size tells)
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
#if PS_STUB_MODE != 4 && PS_STUB_MODE != 6
static const unsigned stub_device_api[2] = { 0x50535441u, PS_STUB_MODE };
#endif

#if PS_STUB_MODE == 4
/* The members a module of mode 4 predates.  Each is reached only if the
 * core reads past the table's size, and then it says so: check_env refuses
 * (the scenario's ps_init fails with this text), sort_segments fails the
 * sort, trim and release (ps_release_cache, the process's exit) abort the
 * test's child, and the device API is a table the test recognises. */
static int stub_segments_trap(void *state, void *keys, void *values,
                              size_t value_size, size_t n, const size_t *offsets,
                              size_t num_segments, ps_type type, unsigned flags)
{
    (void)state, (void)keys, (void)values, (void)value_size, (void)n;
    (void)offsets, (void)num_segments, (void)type, (void)flags;
    host->fail("stand-in module: sort_segments read past the table's size");
    return PS_ERR_DEVICE;
}

static int stub_env_trap(char *why, size_t why_len)
{
    snprintf(why, why_len, "stand-in module: check_env read past the table's size");
    return -1;
}

static void stub_state_trap(void *state)
{
    (void)state;
    fprintf(stderr, "stand-in module: trim or release read past the table's size\n");
    abort();
}
#endif

#if PS_STUB_MODE == 5
/* Members of a later revision: a core that calls one is wrong. */
static int stub_future_trap(void *state)
{
    (void)state;
    fprintf(stderr, "stand-in module: a member the core predates was called\n");
    abort();
}
#endif

#define STUB_OPS(table_size)                                                 \
    .abi = PS_STUB_MODE == 1 ? PS_BACKEND_ABI + 100 : PS_BACKEND_ABI,        \
    .size = (table_size),                                                    \
    .name = "cuda",                                                          \
    .priority = 300,                                                         \
    .device = 1,                                                             \
    .value_sizes = PS_VALUE_SIZE_BIT(4) | PS_VALUE_SIZE_BIT(8),              \
    .probe = stub_probe,                                                     \
    .init = stub_init,                                                       \
    .sort_keys = stub_sort_keys,                                             \
    .sort_pairs = stub_sort_pairs

#if PS_STUB_MODE == 5
/* A table as a later revision of the ABI might have it. */
typedef struct stub_newer {
    ps_backend_ops ops;
    int (*future[4])(void *state);
} stub_newer;

__attribute__((visibility("default")))
const stub_newer PS_BACKEND_ENTRY = {
    { STUB_OPS(sizeof(stub_newer)), .device_api = stub_device_api },
    { stub_future_trap, stub_future_trap, stub_future_trap, stub_future_trap },
};
#elif PS_STUB_MODE == 4
static const unsigned stub_device_api_trap[2] = { 0x54524150u, PS_STUB_MODE };

__attribute__((visibility("default")))
const ps_backend_ops PS_BACKEND_ENTRY = {
    STUB_OPS(PS_BACKEND_OPS_MIN),
    .release = stub_state_trap,
    .trim = stub_state_trap,
    .device_api = stub_device_api_trap,
    .sort_segments = stub_segments_trap,
    .check_env = stub_env_trap,
};
#elif PS_STUB_MODE == 6
__attribute__((visibility("default")))
const ps_backend_ops PS_BACKEND_ENTRY = {
    STUB_OPS(offsetof(ps_backend_ops, sort_pairs)),
};
#else
__attribute__((visibility("default")))
const ps_backend_ops PS_BACKEND_ENTRY = {
    STUB_OPS(sizeof(ps_backend_ops)),
    .device_api = stub_device_api,
};
#endif
