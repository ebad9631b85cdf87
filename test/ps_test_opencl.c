/*
 * ps_test_opencl - tests of the OpenCL backend beyond the differential test.
 *
 *   ps_test_opencl api     the cl_mem API of <portsort_opencl.h>: keys,
 *                          pairs with 4- and 8-byte values, offsets into
 *                          larger buffers, descending, caller scratch and
 *                          scratch allocated by the call, a scratch that is
 *                          too small, bad arguments; segmented sorts (every
 *                          size class) and their refusals; checked against
 *                          the oracle of ps_test_util.c; ranges that overlap
 *                          (one cl_mem twice, sub-buffers of one buffer)
 *                          or pass their buffer's end, refused with every
 *                          buffer unchanged, and ranges side by side in one
 *                          buffer, sorted; the top-k (ps_opencl_topk and
 *                          _segments: the cases of ps_test_topkdev.c) and
 *                          its refusals
 *   ps_test_opencl quick [u64]
 *                          one host-array sort of u32 (or u64) keys through
 *                          PORTSORT_BACKEND, checked key for key; prints
 *                          "device: <detail>" and exits 0, or prints the
 *                          refusal and exits 3 (used by the cache and
 *                          device-selection scripts)
 *   ps_test_opencl records-fault
 *                          the device records sorts with the scratch left
 *                          to the call: right, or PS_ERR_DEVICE_MEMORY with
 *                          the buffers unchanged (test/opencl-api.sh runs
 *                          it under PORTSORT_TEST_FAIL_DEVICE_ALLOC)
 *   ps_test_opencl old-format FILE
 *                          writes a program-cache file of the first format
 *                          whose checksum is right and whose payload is
 *                          not a program (test/opencl-cache.sh)
 *
 * Exits 77 when there is no OpenCL device at all.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portsort_opencl.h"
#include "ps_test_recdev.h"
#include "ps_test_topkdev.h"
#include "ps_test_util.h"

static cl_context ctx;
static cl_command_queue q;
static long checks;

static void setup(void)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_uint np = 0;
    cl_int err;
    if (clGetPlatformIDs(1, &plat, &np) != CL_SUCCESS || np == 0
        || clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) {
        printf("ps_test_opencl: no OpenCL device: skipped\n");
        exit(PS_TEST_SKIP);
    }
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        t_fail("clCreateContext: %d", err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    if (err != CL_SUCCESS)
        t_fail("clCreateCommandQueue: %d", err);
}

static cl_mem buffer(size_t bytes, const void *init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS)
        t_fail("clCreateBuffer %zu: %d", bytes, err);
    if (init != NULL && clEnqueueWriteBuffer(q, m, CL_TRUE, 0, bytes, init, 0, NULL,
                                             NULL) != CL_SUCCESS)
        t_fail("clEnqueueWriteBuffer");
    return m;
}

static void readback(cl_mem m, size_t bytes, void *out)
{
    if (clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL) != CL_SUCCESS)
        t_fail("clEnqueueReadBuffer");
}

/* Sort n keys of `type` that sit at element offset `off` of a buffer with
 * guard elements around them; values (vs 0, 4 or 8) likewise at voff. */
static void one(ps_type type, unsigned flags, size_t n, size_t off, size_t vs,
                size_t voff, int caller_scratch, uint64_t seed)
{
    size_t kb = ps_type_size(type), total = off + n + 7, vtotal = voff + n + 5, i;
    unsigned char *k = malloc(total * kb), *kout = malloc(total * kb);
    unsigned char *v = malloc(vtotal * 8 + 1), *vout = malloc(vtotal * 8 + 1);
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    cl_mem dk, dv = NULL, scratch = NULL;
    size_t sbytes = 0;
    int st;

    for (i = 0; i < total * kb; i++)
        k[i] = (unsigned char)t_rand(&seed);
    /* Few distinct keys every other case, so stability is visible. */
    if (seed & 1)
        for (i = 0; i < total * kb; i++)
            k[i] &= 0x81;
    for (i = 0; i < vtotal * vs; i++)
        v[i] = (unsigned char)t_rand(&seed);
    t_oracle_perm(k + off * kb, n, type, flags, perm);
    dk = buffer(total * kb, k);
    if (vs)
        dv = buffer(vtotal * vs, v);
    if (caller_scratch) {
        st = ps_opencl_scratch_size(q, n, type, vs, &sbytes);
        if (st != PS_OK)
            t_fail("scratch_size: %s", ps_error_detail());
        if (sbytes > 0)
            scratch = buffer(sbytes, NULL);
    }
    st = vs ? ps_opencl_sort_pairs(q, dk, off, dv, voff, vs, n, type, flags,
                                   scratch, sbytes)
            : ps_opencl_sort_keys(q, dk, off, n, type, flags, scratch, sbytes);
    if (st != PS_OK)
        t_fail("%s %s n=%zu off=%zu vs=%zu: %s: %s", t_type_name(type),
               flags ? "desc" : "asc", n, off, vs, ps_strerror(st), ps_error_detail());
    clFinish(q);
    readback(dk, total * kb, kout);
    if (memcmp(kout, k, off * kb) != 0 || memcmp(kout + (off + n) * kb,
                                                 k + (off + n) * kb, 7 * kb) != 0)
        t_fail("%s n=%zu: keys outside [off, off+n) changed", t_type_name(type), n);
    for (i = 0; i < n; i++)
        if (memcmp(kout + (off + i) * kb, k + (off + perm[i]) * kb, kb) != 0)
            t_fail("%s %s n=%zu off=%zu: wrong key at %zu", t_type_name(type),
                   flags ? "desc" : "asc", n, off, i);
    if (vs) {
        readback(dv, vtotal * vs, vout);
        if (memcmp(vout, v, voff * vs) != 0)
            t_fail("values before the offset changed");
        for (i = 0; i < n; i++)
            if (memcmp(vout + (voff + i) * vs, v + (voff + perm[i]) * vs, vs) != 0)
                t_fail("%s n=%zu vs=%zu: wrong value at %zu (not stable?)",
                       t_type_name(type), n, vs, i);
    }
    clReleaseMemObject(dk);
    if (dv) clReleaseMemObject(dv);
    if (scratch) clReleaseMemObject(scratch);
    free(k); free(kout); free(v); free(vout); free(perm);
    checks++;
}

/* ps_opencl_sort_segments: n keys at element `off` of a buffer, cut by
 * t_mixed_offsets (every size class), values (vs 0, 4 or 8) at voff. */
static void segs(ps_type type, unsigned flags, size_t n, size_t off, size_t vs,
                 int caller_scratch, uint64_t seed)
{
    size_t kb = ps_type_size(type), ns, i, sbytes = 0, *offs;
    unsigned char *k = malloc((off + n + 1) * kb), *kout = malloc((off + n + 1) * kb);
    unsigned char *v = malloc((off + n + 1) * 8), *vout = malloc((off + n + 1) * 8);
    cl_ulong *o64;
    cl_mem dk, dv = NULL, doff, scratch = NULL;
    char what[96];
    int st;

    ns = t_mixed_offsets(n, &seed, &offs);
    o64 = malloc((ns + 1) * sizeof *o64);
    for (i = 0; i <= ns; i++)
        o64[i] = offs[i];
    for (i = 0; i < (off + n + 1) * kb; i++)
        k[i] = (unsigned char)t_rand(&seed);
    if (seed & 1)   /* few distinct keys: stability shows */
        for (i = 0; i < (off + n + 1) * kb; i++)
            k[i] &= 0x81;
    for (i = 0; i < (off + n + 1) * vs; i++)
        v[i] = (unsigned char)t_rand(&seed);
    dk = buffer((off + n + 1) * kb, k);
    if (vs)
        dv = buffer((off + n + 1) * vs, v);
    doff = buffer((ns + 1) * sizeof *o64, o64);
    if (caller_scratch) {
        if (ps_opencl_segments_scratch_size(q, n, type, vs, &sbytes) != PS_OK)
            t_fail("segments_scratch_size: %s", ps_error_detail());
        if (sbytes > 0)
            scratch = buffer(sbytes, NULL);
    }
    st = ps_opencl_sort_segments(q, dk, off, dv, off, vs, n, doff, ns, type, flags,
                                 scratch, sbytes);
    snprintf(what, sizeof what, "sort_segments %s %s n=%zu vs=%zu", t_type_name(type),
             flags ? "desc" : "asc", n, vs);
    if (st != PS_OK)
        t_fail("%s: %s: %s", what, ps_strerror(st), ps_error_detail());
    clFinish(q);
    readback(dk, (off + n + 1) * kb, kout);
    if (vs)
        readback(dv, (off + n + 1) * vs, vout);
    if (memcmp(kout, k, off * kb) != 0 || memcmp(kout + (off + n) * kb, k + (off + n) * kb, kb))
        t_fail("%s: keys outside the range changed", what);
    t_check_segments(what, k + off * kb, kout + off * kb, v + off * vs, vout + off * vs,
                     vs, offs, ns, type, flags);
    clReleaseMemObject(dk);
    if (dv) clReleaseMemObject(dv);
    clReleaseMemObject(doff);
    if (scratch) clReleaseMemObject(scratch);
    free(k); free(kout); free(v); free(vout); free(offs); free(o64);
    checks++;
}

/* Refusals of ps_opencl_sort_segments, before anything moves: the keys
 * read back unchanged. */
static void segs_refused(void)
{
    uint32_t h[300], back[300];
    cl_ulong good[] = { 0, 100, 300 }, bad[] = { 0, 200, 100 }, late[] = { 0, 100, 301 };
    cl_mem dk, dg, db, dl, small;
    size_t i, bytes = 0;
    for (i = 0; i < 300; i++)
        h[i] = (uint32_t)(300 - i);
    dk = buffer(sizeof h, h);
    dg = buffer(sizeof good, good);
    db = buffer(sizeof bad, bad);
    dl = buffer(sizeof late, late);
    small = buffer(16, NULL);
#define REFUSED(call, want, why) do { int st_ = (call); if (st_ != (want)) \
    t_fail("sort_segments: %s: got %d (%s)", why, st_, ps_error_detail()); } while (0)
    REFUSED(ps_opencl_sort_segments(q, dk, 0, NULL, 0, 0, 300, db, 2, PS_U32, 0, NULL, 0),
            PS_ERR_INVALID_ARG, "decreasing offsets");
    REFUSED(ps_opencl_sort_segments(q, dk, 0, NULL, 0, 0, 300, dl, 2, PS_U32, 0, NULL, 0),
            PS_ERR_INVALID_ARG, "last offset past n");
    REFUSED(ps_opencl_sort_segments(q, dk, 0, NULL, 0, 0, 300, dg, 3, PS_U32, 0, NULL, 0),
            PS_ERR_INVALID_ARG, "offsets buffer shorter than num_segments + 1");
    REFUSED(ps_opencl_sort_segments(q, dk, 0, NULL, 0, 0, 300, NULL, 2, PS_U32, 0, NULL, 0),
            PS_ERR_INVALID_ARG, "NULL offsets");
    REFUSED(ps_opencl_sort_segments(q, dk, 0, dk, 0, 12, 300, dg, 2, PS_U32, 0, NULL, 0),
            PS_ERR_INVALID_ARG, "value_size 12");
    REFUSED(ps_opencl_sort_segments(q, dk, 0, NULL, 0, 4, 300, dg, 2, PS_U32, 0, NULL, 0),
            PS_ERR_INVALID_ARG, "value_size 4 without values");
    REFUSED(ps_opencl_sort_segments(q, dk, 1, NULL, 0, 0, 300, dg, 2, PS_U32, 0, NULL, 0),
            PS_ERR_INVALID_ARG, "a range past the end of the keys");
    REFUSED(ps_opencl_sort_segments(q, dk, 0, NULL, 0, 0, 300, dg, 2, PS_U32, 4, NULL, 0),
            PS_ERR_INVALID_ARG, "unknown flags");
    if (ps_opencl_segments_scratch_size(q, 300, PS_U32, 0, &bytes) != PS_OK || bytes == 0)
        t_fail("segments_scratch_size for 300 keys: %zu", bytes);
    REFUSED(ps_opencl_sort_segments(q, dk, 0, NULL, 0, 0, 300, dg, 2, PS_U32, 0, small, 16),
            PS_ERR_INVALID_ARG, "scratch too small");
    REFUSED(ps_opencl_sort_segments(q, dk, 0, NULL, 0, 0, 1, db, 2, PS_U32, 0, NULL, 0),
            PS_OK, "n = 1 (nothing to do, offsets not read)");
#undef REFUSED
    readback(dk, sizeof back, back);
    if (memcmp(back, h, sizeof h) != 0)
        t_fail("sort_segments: a refused call changed the keys");
    clReleaseMemObject(dk); clReleaseMemObject(dg); clReleaseMemObject(db);
    clReleaseMemObject(dl); clReleaseMemObject(small);
}

/* ------------------------------------------------------------------------
 * Ranges that overlap or leave their buffer: refused before anything is
 * enqueued, with every byte of every buffer as it was; ranges side by side
 * in one buffer (or in sub-buffers of one) sort right.
 * ------------------------------------------------------------------------ */

static void unchanged(const char *what, cl_mem m, const void *host, size_t bytes)
{
    unsigned char *back = malloc(bytes);
    readback(m, bytes, back);
    if (memcmp(back, host, bytes) != 0)
        t_fail("%s: a refused call changed a buffer", what);
    free(back);
}

/* The status is PS_ERR_INVALID_ARG and the detail holds each of the
 * (up to three) words given. */
static void refused_because(const char *what, int st, const char *w1, const char *w2,
                            const char *w3)
{
    const char *d = ps_error_detail();
    if (st != PS_ERR_INVALID_ARG)
        t_fail("%s: got %d (%s), expected PS_ERR_INVALID_ARG", what, st,
               ps_strerror(st));
    if (strstr(d, w1) == NULL || (w2 && strstr(d, w2) == NULL)
        || (w3 && strstr(d, w3) == NULL))
        t_fail("%s: the detail \"%s\" does not say why", what, d);
    printf("  %-44s -> %s\n", what, d);
    checks++;
}

/* n u32 keys sorted at element koff of m, and with vm the values (u32
 * indices) at element voff of vm: keys ascending, each value still with
 * its key, stable.  host holds m's words before the sort. */
static void sorted_in(const char *what, cl_mem m, const uint32_t *host, size_t koff,
                      cl_mem vm, size_t voff, size_t n)
{
    uint32_t *k = malloc((koff + n) * 4), *v = malloc((voff + n) * 4);
    size_t j;
    clFinish(q);
    readback(m, (koff + n) * 4, k);
    if (vm != NULL)
        readback(vm, (voff + n) * 4, v);
    for (j = 0; j < n; j++) {
        if (j > 0 && k[koff + j - 1] > k[koff + j])
            t_fail("%s: not sorted at %zu", what, j);
        if (vm != NULL && (v[voff + j] >= n || host[koff + v[voff + j]] != k[koff + j]
                           || (j > 0 && k[koff + j - 1] == k[koff + j]
                               && v[voff + j - 1] > v[voff + j])))
            t_fail("%s: value %zu is not its key's (or not stable)", what, j);
    }
    free(k);
    free(v);
    checks++;
}

/* ps_opencl_topk and ps_opencl_topk_segments for the shared cases
 * (ps_test_topkdev.c): every array in a buffer of its own at an element
 * offset (the inputs at 3, the outputs at 2, the offsets at 0), the
 * outputs starting as the caller's sentinel bytes; every other call gets
 * the caller's scratch.  The inputs must come back as they were. */
static int cl_topk(const void *keys, const void *vals, size_t vs, size_t n,
                   const size_t *offs, size_t nseg, size_t k, void *okeys, void *ovals,
                   size_t *oidx, size_t slots, ps_type t, unsigned flags)
{
    static unsigned turn;
    size_t kb = ps_type_size(t), bytes = 0;
    unsigned char *pad = calloc(1, (n + 3) * 8 + (slots + 2) * 8);
    cl_mem dk, dv = NULL, doffs = NULL, dok, dov = NULL, doi = NULL, scratch = NULL;
    int st;

    memcpy(pad + 3 * kb, keys, n * kb);
    dk = buffer((n + 3) * kb, pad);
    if (vs) {
        memcpy(pad + 3 * vs, vals, n * vs);
        dv = buffer((n + 3) * vs, pad);
    }
    if (offs != NULL) {
        cl_ulong *o = malloc((nseg + 1) * sizeof *o);
        size_t i;
        for (i = 0; i <= nseg; i++)
            o[i] = offs[i];
        doffs = buffer((nseg + 1) * sizeof *o, o);
        free(o);
    }
    memcpy(pad + 2 * kb, okeys, slots * kb);
    dok = buffer((slots + 2) * kb, pad);
    if (vs) {
        memcpy(pad + 2 * vs, ovals, slots * vs);
        dov = buffer((slots + 2) * vs, pad);
    }
    if (oidx != NULL) {
        memcpy(pad + 16, oidx, slots * 8);
        doi = buffer((slots + 2) * 8, pad);
    }
    if (turn++ % 2) {
        st = offs ? ps_opencl_topk_segments_scratch_size(q, n, t, vs, &bytes)
                  : ps_opencl_topk_scratch_size(q, n, t, vs, &bytes);
        if (st != PS_OK)
            t_fail("topk scratch size: %s", ps_error_detail());
        if (bytes > 0)
            scratch = buffer(bytes, NULL);
    }
    st = offs ? ps_opencl_topk_segments(q, dk, 3, dv, 3, vs, n, doffs, nseg, k, dok, 2,
                                        dov, 2, doi, 2, t, flags, scratch, bytes)
              : ps_opencl_topk(q, dk, 3, dv, 3, vs, n, k, dok, 2, dov, 2, doi, 2, t,
                               flags, scratch, bytes);
    clFinish(q);
    readback(dk, (n + 3) * kb, pad);
    if (memcmp(pad + 3 * kb, keys, n * kb) != 0)
        t_fail("opencl topk n=%zu k=%zu: the keys changed", n, k);
    if (vs) {
        readback(dv, (n + 3) * vs, pad);
        if (memcmp(pad + 3 * vs, vals, n * vs) != 0)
            t_fail("opencl topk n=%zu k=%zu: the values changed", n, k);
        readback(dov, (slots + 2) * vs, pad);
        memcpy(ovals, pad + 2 * vs, slots * vs);
    }
    readback(dok, (slots + 2) * kb, pad);
    memcpy(okeys, pad + 2 * kb, slots * kb);
    if (oidx != NULL) {
        readback(doi, (slots + 2) * 8, pad);
        memcpy(oidx, pad + 16, slots * 8);
    }
    {
        cl_mem all[] = { dk, dv, doffs, dok, dov, doi, scratch };
        size_t i;
        for (i = 0; i < sizeof all / sizeof all[0]; i++)
            if (all[i] != NULL)
                clReleaseMemObject(all[i]);
    }
    free(pad);
    checks++;
    return st;
}

/* The top-k's refusals, every buffer unchanged afterwards. */
static void topk_refused(void)
{
    enum { N = 3000, K = 10 };
    uint32_t *h = malloc(N * 4 * 2);
    size_t hb = N * 4 * 2, bytes = 0, i;
    cl_ulong bad[] = { 0, 2000, 1000, N };
    cl_mem m, out, db, small;
    uint64_t rng = 5;
    for (i = 0; i < 2 * N; i++)
        h[i] = (uint32_t)t_rand(&rng);
    m = buffer(hb, h);          /* keys at 0, values at N */
    out = buffer(hb, h);        /* outputs side by side: keys, values, index */
    db = buffer(sizeof bad, bad);
    small = buffer(64, NULL);
#define TOPK_REFUSED(call, w1, w2) do { \
    refused_because(#call, (call), w1, w2, NULL); \
    unchanged(#call, m, h, hb); unchanged(#call, out, h, hb); } while (0)
    TOPK_REFUSED(ps_opencl_topk(q, m, 0, m, N, 4, N, K, m, 5, out, 0, out, K, PS_U32, 0,
                                NULL, 0), "keys", "out_keys");
    TOPK_REFUSED(ps_opencl_topk(q, m, 0, m, N, 4, N, K, out, 0, out, K, out, K - 2,
                                PS_U32, 0, NULL, 0), "out_values", "out_index");
    TOPK_REFUSED(ps_opencl_topk(q, m, 0, m, N, 4, N, K, out, 0, out, K, out, 2 * K,
                                PS_U32, 0, out, hb), "out_keys", "scratch");
    TOPK_REFUSED(ps_opencl_topk(q, m, 0, m, N, 4, N, K, out, 0, out, K, out, 2 * K,
                                PS_U32, 0, small, 64), "scratch", "needed");
    TOPK_REFUSED(ps_opencl_topk(q, m, 0, m, N, 4, N, K, NULL, 0, out, K, NULL, 0, PS_U32,
                                0, NULL, 0), "out_keys", "NULL");
    TOPK_REFUSED(ps_opencl_topk(q, m, 0, m, N, 12, N, K, out, 0, out, K, NULL, 0, PS_U32,
                                0, NULL, 0), "value_size", "12");
    TOPK_REFUSED(ps_opencl_topk(q, m, 0, m, N, 4, N, K, out, 0, NULL, 0, NULL, 0, PS_U32,
                                0, NULL, 0), "out_values NULL", "value_size 4");
    TOPK_REFUSED(ps_opencl_topk(q, m, 0, NULL, 0, 0, N, K, out, hb / 4 - 5, NULL, 0,
                                NULL, 0, PS_U32, 0, NULL, 0), "out_keys", "past the end");
    TOPK_REFUSED(ps_opencl_topk(q, m, 0, NULL, 0, 0, N, K, out, 0, NULL, 0, NULL, 0,
                                PS_U32, 2, NULL, 0), "flags", "0x2");
    TOPK_REFUSED(ps_opencl_topk_segments(q, m, 0, m, N, 4, N, db, 3, K, out, 0, out,
                                         4 * K, out, 8 * K, PS_U32, 0, NULL, 0),
                 "offsets", "invalid");
    TOPK_REFUSED(ps_opencl_topk_segments(q, m, 0, m, N, 4, N, NULL, 3, K, out, 0, out,
                                         4 * K, out, 8 * K, PS_U32, 0, NULL, 0),
                 "offsets", "NULL");
    /* k = 2K: the last of 3 segments may reach slot 6K - 1, past out_keys'
     * 4K slots into out_values. */
    TOPK_REFUSED(ps_opencl_topk_segments(q, m, 0, m, N, 4, N, db, 3, 2 * K, out, 0, out,
                                         4 * K, out, 8 * K, PS_U32, 0, NULL, 0),
                 "out_keys", "out_values");
    TOPK_REFUSED(ps_opencl_topk_segments(q, m, 0, m, N, 4, N, db, 2, SIZE_MAX / 8, out,
                                         0, out, 4 * K, out, 8 * K, PS_U32, 0, NULL, 0),
                 "slots", "size_t");
#undef TOPK_REFUSED
    if (ps_opencl_topk_scratch_size(q, N, PS_U32, 4, &bytes) != PS_OK || bytes == 0)
        t_fail("topk_scratch_size for %d keys: %zu", N, bytes);
    if (ps_opencl_topk(q, m, 0, NULL, 0, 0, N, 0, NULL, 0, NULL, 0, NULL, 0, PS_U32, 0,
                       NULL, 0) != PS_OK)
        t_fail("topk with k = 0: %s", ps_error_detail());
    clReleaseMemObject(m); clReleaseMemObject(out); clReleaseMemObject(db);
    clReleaseMemObject(small);
    free(h);
}

/* Host copy of a buffer: keys few-distinct from key_at on, value i = i
 * from val_at on (each for n words; either may be SIZE_MAX for none). */
static uint32_t *words(size_t total, size_t key_at, size_t val_at, size_t n, uint64_t seed)
{
    uint32_t *w = malloc(total * 4);
    size_t i;
    for (i = 0; i < total; i++)
        w[i] = (uint32_t)t_rand(&seed);
    for (i = 0; key_at != SIZE_MAX && i < n; i++)
        w[key_at + i] = (uint32_t)(t_rand(&seed) % 13);
    for (i = 0; val_at != SIZE_MAX && i < n; i++)
        w[val_at + i] = (uint32_t)i;
    return w;
}

static void overlaps(void)
{
    const size_t n = 5000;
    size_t sbytes = 0, kbytes = 0, segbytes = 0, sw, total, align_bits = 0, align;
    cl_device_id dev;
    cl_mem m, m2, a, b;
    cl_buffer_region reg;
    cl_int err;
    uint32_t *h, *h2;
    cl_ulong o64[3] = { 0, 100, 300 };
    int st;

    /* Every scratch below is as large as the sort needs, so that only the
     * overlap can be why a call is refused. */
    if (ps_opencl_scratch_size(q, n, PS_U32, 4, &sbytes) != PS_OK || sbytes == 0
        || ps_opencl_scratch_size(q, n, PS_U32, 0, &kbytes) != PS_OK || kbytes == 0
        || ps_opencl_segments_scratch_size(q, 300, PS_U32, 0, &segbytes) != PS_OK
        || segbytes == 0 || segbytes > 606 * 4 || kbytes > sbytes)
        t_fail("scratch sizes for %zu pairs, keys, segments: %zu, %zu, %zu", n, sbytes,
               kbytes, segbytes);
    sw = (sbytes + 3) / 4;      /* scratch in words */

    /* Scratch and keys in one buffer: scratch from byte 0, keys after. */
    total = sw + n;
    h = words(total, sw, SIZE_MAX, n, 1);
    m = buffer(total * 4, h);
    refused_because("keys: scratch is the keys' buffer",
                    ps_opencl_sort_keys(q, m, 0, n, PS_U32, 0, m, sbytes),
                    "keys", "scratch", "overlap");
    refused_because("keys: last key in the scratch's last word",
                    ps_opencl_sort_keys(q, m, sw - 1, n, PS_U32, 0, m, sw * 4),
                    "keys", "scratch", "overlap");
    unchanged("keys and scratch", m, h, total * 4);
    if (ps_opencl_sort_keys(q, m, sw, n, PS_U32, 0, m, sw * 4) != PS_OK)
        t_fail("keys right after the scratch in one buffer: %s", ps_error_detail());
    sorted_in("keys right after the scratch", m, h, sw, NULL, 0, n);
    clReleaseMemObject(m);
    free(h);

    /* Keys and values in one buffer, large enough to be the scratch too. */
    total = 2 * n + 1 > sw ? 2 * n + 1 : sw;
    h = words(total, 0, n, n, 2);
    m = buffer(total * 4, h);
    h2 = words(n, 0, SIZE_MAX, n, 7);
    m2 = buffer(n * 4, h2);
    refused_because("pairs: values == keys",
                    ps_opencl_sort_pairs(q, m, 0, m, 0, 4, n, PS_U32, 0, NULL, 0),
                    "keys", "values", "overlap");
    refused_because("pairs: values one key after keys",
                    ps_opencl_sort_pairs(q, m, 0, m, 1, 4, n, PS_U32, 0, NULL, 0),
                    "keys", "values", "overlap");
    refused_because("pairs: keys start in the values' last",
                    ps_opencl_sort_pairs(q, m, n, m, 1, 4, n, PS_U32, 0, NULL, 0),
                    "keys", "values", "overlap");
    refused_because("pairs: scratch is the values' buffer",
                    ps_opencl_sort_pairs(q, m2, 0, m, n, 4, n, PS_U32, 0, m, sbytes),
                    "values", "scratch", "overlap");
    unchanged("keys and values", m, h, total * 4);
    unchanged("keys of the scratch case", m2, h2, n * 4);
    clReleaseMemObject(m2);
    free(h2);
    if (ps_opencl_sort_pairs(q, m, 0, m, n, 4, n, PS_U32, 0, NULL, 0) != PS_OK)
        t_fail("values right after the keys in one buffer: %s", ps_error_detail());
    sorted_in("values right after the keys", m, h, 0, m, n, n);
    clReleaseMemObject(m);
    free(h);

    /* Sizes beyond a buffer's CL_MEM_SIZE. */
    h = words(n, 0, SIZE_MAX, n, 3);
    m = buffer(n * 4, h);
    m2 = buffer(sbytes / 2, NULL);
    refused_because("keys: scratch smaller than claimed",
                    ps_opencl_sort_keys(q, m, 0, n, PS_U32, 0, m2, sbytes),
                    "scratch", "past the end", NULL);
    clReleaseMemObject(m2);
    m2 = buffer((n - 1) * 4, NULL);
    refused_because("pairs: values past their buffer's end",
                    ps_opencl_sort_pairs(q, m, 0, m2, 0, 4, n, PS_U32, 0, NULL, 0),
                    "values", "past the end", NULL);
    refused_because("keys: offset + n past the end",
                    ps_opencl_sort_keys(q, m, 1, n, PS_U32, 0, NULL, 0),
                    "keys", "past the end", NULL);
    unchanged("sizes", m, h, n * 4);
    clReleaseMemObject(m);
    clReleaseMemObject(m2);
    free(h);

    /* Sub-buffers of one parent: keys in one, values in another. */
    if (clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) != CL_SUCCESS
        || clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(cl_uint),
                           &align_bits, NULL) != CL_SUCCESS)
        t_fail("CL_DEVICE_MEM_BASE_ADDR_ALIGN");
    align = (size_t)(cl_uint)align_bits / 8;
    if (align < 4)
        align = 4;
    total = (2 * ((n * 4 + align - 1) / align) + 1) * align / 4 + kbytes / 4;
    h = words(total, 0, (n * 4 + align - 1) / align * align / 4, n, 4);
    m = buffer(total * 4, h);
    reg.origin = 0;
    reg.size = n * 4;
    a = clCreateSubBuffer(m, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    if (err != CL_SUCCESS)
        t_fail("clCreateSubBuffer: %d", err);
    reg.origin = (n * 4 / 2) / align * align;   /* inside a's range */
    reg.size = kbytes > n * 4 ? kbytes : n * 4;  /* room for keys' scratch */
    if (reg.origin + reg.size > total * 4)
        t_fail("sub-buffer of %zu bytes beyond its parent", reg.size);
    b = clCreateSubBuffer(m, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    if (err != CL_SUCCESS)
        t_fail("clCreateSubBuffer: %d", err);
    refused_because("pairs: overlapping sub-buffers",
                    ps_opencl_sort_pairs(q, a, 0, b, 0, 4, n, PS_U32, 0, NULL, 0),
                    "keys", "values", "overlap");
    refused_because("pairs: values in the keys' parent",
                    ps_opencl_sort_pairs(q, a, 0, m, n - 1, 4, n, PS_U32, 0, NULL, 0),
                    "keys", "values", "overlap");
    refused_because("keys: scratch a sub-buffer over them",
                    ps_opencl_sort_keys(q, m, 0, n, PS_U32, 0, b, kbytes),
                    "keys", "scratch", "overlap");
    unchanged("sub-buffers", m, h, total * 4);
    clReleaseMemObject(b);
    reg.origin = (n * 4 + align - 1) / align * align;   /* right after a's */
    reg.size = n * 4;
    b = clCreateSubBuffer(m, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    if (err != CL_SUCCESS)
        t_fail("clCreateSubBuffer: %d", err);
    if (ps_opencl_sort_pairs(q, a, 0, b, 0, 4, n, PS_U32, 0, NULL, 0) != PS_OK)
        t_fail("pairs in disjoint sub-buffers of one buffer: %s", ps_error_detail());
    sorted_in("pairs in disjoint sub-buffers", m, h, 0, m, reg.origin / 4, n);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(m);
    free(h);

    /* Segmented sorts: offsets at the start of a buffer, keys after them. */
    total = 6 + 300 + 300;    /* 3 offsets (6 words), keys, values */
    h = words(total, 6, 306, 300, 5);
    memcpy(h, o64, sizeof o64);
    m = buffer(total * 4, h);
    h2 = words(sw, SIZE_MAX, SIZE_MAX, 0, 6);
    m2 = buffer(sw * 4, h2);
    refused_because("segments: offsets over the keys",
                    ps_opencl_sort_segments(q, m, 5, m, 306, 4, 300, m, 2, PS_U32, 0,
                                            NULL, 0),
                    "keys", "offsets", "overlap");
    refused_because("segments: values over the keys",
                    ps_opencl_sort_segments(q, m, 6, m, 300, 4, 300, m, 2, PS_U32, 0,
                                            NULL, 0),
                    "keys", "values", "overlap");
    refused_because("segments: scratch is the offsets' buffer",
                    ps_opencl_sort_segments(q, m2, 0, NULL, 0, 0, 300, m, 2, PS_U32, 0,
                                            m, segbytes),
                    "offsets", "scratch", "overlap");
    refused_because("segments: offsets past their buffer",
                    ps_opencl_sort_segments(q, m, 6, NULL, 0, 0, 300, m2, sw, PS_U32, 0,
                                            NULL, 0),
                    "offsets", "past the end", NULL);
    unchanged("segments", m, h, total * 4);
    unchanged("segments' scratch", m2, h2, sw * 4);
    st = ps_opencl_sort_segments(q, m, 6, m, 306, 4, 300, m, 2, PS_U32, 0, NULL, 0);
    if (st != PS_OK)
        t_fail("segments: offsets, keys and values side by side: %s", ps_error_detail());
    {
        /* Each segment on its own: [0, 100) and [100, 300). */
        uint32_t *back = malloc(total * 4);
        size_t j;
        clFinish(q);
        readback(m, total * 4, back);
        if (memcmp(back, h, 24) != 0)
            t_fail("segments: the offsets changed");
        for (j = 0; j < 300; j++) {
            uint32_t i = back[306 + j];
            if (i >= 300 || (i < 100) != (j < 100) || h[6 + i] != back[6 + j]
                || (j > 0 && j != 100 && back[6 + j - 1] > back[6 + j]))
                t_fail("segments side by side: wrong at %zu", j);
        }
        free(back);
        checks++;
    }
    clReleaseMemObject(m);
    clReleaseMemObject(m2);
    free(h);
    free(h2);
}

/* The scratch-size queries answer from the plan the sorts make: a
 * scratch one byte short of the answer is refused, and a size whose
 * segmented layout the kernels' 32-bit word indices cannot address (tiles
 * of 2 keys, 2^25 keys) is refused by the query itself, as by the sort,
 * naming the tuning to change, instead of answering a size the sort would
 * then refuse. */
static void scratch_queries(void)
{
    size_t n = 70001, bytes = 0;
    cl_mem dk = buffer(n * 4, NULL), dofs, sc;
    cl_ulong offs[] = { 0, 3000, 3000, 70001 };
    int st;

    if (ps_opencl_scratch_size(q, n, PS_U32, 0, &bytes) != PS_OK || bytes == 0)
        t_fail("scratch_size for %zu keys: %s", n, ps_error_detail());
    sc = buffer(bytes, NULL);
    if (ps_opencl_sort_keys(q, dk, 0, n, PS_U32, 0, sc, bytes - 1) != PS_ERR_INVALID_ARG)
        t_fail("a scratch of scratch_size - 1 bytes was accepted");
    if (ps_opencl_sort_keys(q, dk, 0, n, PS_U32, 0, sc, bytes) != PS_OK)
        t_fail("a scratch of scratch_size bytes was refused: %s", ps_error_detail());
    clReleaseMemObject(sc);
    dofs = buffer(sizeof offs, offs);
    if (ps_opencl_segments_scratch_size(q, n, PS_U32, 0, &bytes) != PS_OK || bytes == 0)
        t_fail("segments_scratch_size for %zu keys: %s", n, ps_error_detail());
    sc = buffer(bytes, NULL);
    if (ps_opencl_sort_segments(q, dk, 0, NULL, 0, 0, n, dofs, 3, PS_U32, 0, sc,
                                bytes - 1) != PS_ERR_INVALID_ARG)
        t_fail("a segments scratch of segments_scratch_size - 1 bytes was accepted");
    if (ps_opencl_sort_segments(q, dk, 0, NULL, 0, 0, n, dofs, 3, PS_U32, 0, sc,
                                bytes) != PS_OK)
        t_fail("a segments scratch of segments_scratch_size bytes was refused: %s",
               ps_error_detail());
    clFinish(q);
    clReleaseMemObject(sc);
    clReleaseMemObject(dofs);
    clReleaseMemObject(dk);

    setenv("PORTSORT_OPENCL_TUNE", "wg=1,items=2", 1);
    st = ps_opencl_segments_scratch_size(q, (size_t)1 << 25, PS_U32, 4, &bytes);
    if (st != PS_ERR_TOO_LARGE || strstr(ps_error_detail(), "PORTSORT_OPENCL_TUNE") == NULL)
        t_fail("segments_scratch_size, tiles of 2 keys, 2^25 keys: got %d (%s), not "
               "PS_ERR_TOO_LARGE naming the tuning", st, ps_error_detail());
    if (ps_opencl_segments_scratch_size(q, (size_t)1 << 20, PS_U32, 4, &bytes) != PS_OK)
        t_fail("segments_scratch_size, tiles of 2 keys, 2^20 keys: %s",
               ps_error_detail());
    unsetenv("PORTSORT_OPENCL_TUNE");
}

/* The device records sorts for the shared cases (ps_test_recdev.c): the
 * records at record 2 of their buffer, perm at element 3 of its own,
 * columns at element 1 (column_offsets) or 0 (NULL), every other call
 * with the caller's scratch from the query. */
static unsigned rec_turn;

static cl_mem rec_scratch(size_t record_size, size_t n, size_t *bytes)
{
    *bytes = 0;
    if (rec_turn++ % 2 == 0)
        return NULL;
    if (ps_opencl_records_scratch_size(q, record_size, n, bytes) != PS_OK)
        t_fail("records scratch size: %s", ps_error_detail());
    return *bytes > 0 ? buffer(*bytes, NULL) : NULL;
}

static cl_mem rec_buffer(const void *records, size_t record_size, size_t n)
{
    unsigned char *pad = calloc(1, (n + 3) * record_size);
    cl_mem m;
    memcpy(pad + 2 * record_size, records, n * record_size);
    m = buffer((n + 3) * record_size, pad);
    free(pad);
    return m;
}

static void rec_read(cl_mem m, size_t record_size, size_t n, void *records)
{
    unsigned char *pad = malloc((n + 3) * record_size);
    readback(m, (n + 3) * record_size, pad);
    memcpy(records, pad + 2 * record_size, n * record_size);
    free(pad);
}

static int cl_sort_records(void *records, size_t record_size, size_t n,
                           const ps_field *fields, size_t num_fields)
{
    size_t bytes;
    cl_mem scratch = rec_scratch(record_size, n, &bytes);
    size_t rs = record_size ? record_size : 1;  /* 0 is refused; a buffer */
    cl_mem r = rec_buffer(records, rs, n);
    int st = ps_opencl_sort_records(q, r, 2, record_size, n, fields, num_fields,
                                    scratch, bytes);
    clFinish(q);
    rec_read(r, rs, n, records);
    clReleaseMemObject(r);
    if (scratch != NULL)
        clReleaseMemObject(scratch);
    checks++;
    return st;
}

/* perm in and out of a buffer of cl_ulong at element 3. */
static cl_mem perm_buffer(const size_t *perm, size_t n)
{
    cl_ulong *p = calloc(n + 4, sizeof *p);
    cl_mem m;
    size_t i;
    for (i = 0; i < n && perm != NULL; i++)
        p[3 + i] = perm[i];
    m = buffer((n + 4) * sizeof *p, p);
    free(p);
    return m;
}

static void perm_read(cl_mem m, size_t n, size_t *perm)
{
    cl_ulong *p = malloc((n + 4) * sizeof *p);
    size_t i;
    readback(m, (n + 4) * sizeof *p, p);
    for (i = 0; i < n && perm != NULL; i++)
        perm[i] = (size_t)p[3 + i];
    free(p);
}

static int cl_argsort_records(void *records, size_t record_size, size_t n,
                              const ps_field *fields, size_t num_fields, size_t *perm)
{
    size_t bytes;
    cl_mem scratch = rec_scratch(0, n, &bytes);
    cl_mem r = rec_buffer(records, record_size ? record_size : 1, n);
    cl_mem pm = perm_buffer(perm, n);
    int st = ps_opencl_argsort_records(q, r, 2, record_size, n, fields, num_fields,
                                       pm, 3, scratch, bytes);
    clFinish(q);
    rec_read(r, record_size ? record_size : 1, n, records);
    perm_read(pm, n, perm);
    clReleaseMemObject(r);
    clReleaseMemObject(pm);
    if (scratch != NULL)
        clReleaseMemObject(scratch);
    checks++;
    return st;
}

static int cl_argsort_columns(void *const *columns, const ps_type *types,
                              const unsigned *flags, size_t num_columns, size_t n,
                              size_t *perm)
{
    cl_mem cols[8];
    size_t offs[8], bytes, c;
    int first = rec_turn % 4 < 2;
    cl_mem scratch = rec_scratch(0, n, &bytes);
    cl_mem pm = perm_buffer(perm, n);
    int st;
    for (c = 0; c < num_columns && c < 8; c++) {
        size_t kb = (types[c] >= PS_U8 && types[c] <= T_TYPE_LAST) ? ps_type_size(types[c]) : 1;
        unsigned char *pad = calloc(n + 2, kb);
        memcpy(pad + (first ? kb : 0), columns[c], n * kb);
        cols[c] = buffer((n + 2) * kb, pad);
        offs[c] = first;
        free(pad);
    }
    st = ps_opencl_argsort_columns(q, cols, first ? offs : NULL, types, flags,
                                   num_columns, n, pm, 3, scratch, bytes);
    clFinish(q);
    perm_read(pm, n, perm);
    for (c = 0; c < num_columns && c < 8; c++)
        clReleaseMemObject(cols[c]);
    clReleaseMemObject(pm);
    if (scratch != NULL)
        clReleaseMemObject(scratch);
    checks++;
    return st;
}

/* Overlaps and bad ranges of the records calls: refused, buffers as they
 * were. */
static void records_refused(void)
{
    enum { N = 300, SIZE = 7 };
    unsigned char recs[(N + 20) * SIZE], back[(N + 20) * SIZE];
    ps_field f[2] = { { 0, PS_U16, 0 }, { 3, PS_F32, PS_DESCENDING } };
    size_t i, bytes = 0;
    cl_mem r, sub, pm, small;
    cl_buffer_region reg = { 256, 40 * SIZE };   /* pocl: 128-byte aligned */
    cl_int err;
    uint64_t rng = 5;
    for (i = 0; i < sizeof recs; i++)
        recs[i] = (unsigned char)t_rand(&rng);
    r = buffer(sizeof recs, recs);
    pm = buffer(N * 8, NULL);
    small = buffer(64, NULL);
    sub = clCreateSubBuffer(r, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    if (err != CL_SUCCESS)
        t_fail("clCreateSubBuffer: %d", err);
    if (ps_opencl_records_scratch_size(q, SIZE, N, &bytes) != PS_OK || bytes == 0)
        t_fail("records scratch size: %s", ps_error_detail());
#define REC_REFUSED(call, want) do {                                          \
        int st_ = (call);                                                     \
        clFinish(q);                                                          \
        readback(r, sizeof recs, back);                                       \
        if (st_ != (want))                                                    \
            t_fail("opencl records: %s: got %d (%s)", #call, st_,             \
                   ps_error_detail());                                        \
        if (memcmp(back, recs, sizeof recs) != 0)                             \
            t_fail("opencl records: %s changed the records", #call);          \
        checks++;                                                             \
    } while (0)
    /* perm inside the records' buffer, over their bytes. */
    REC_REFUSED(ps_opencl_argsort_records(q, r, 0, SIZE, N, f, 2, r, 0, NULL, 0),
                PS_ERR_INVALID_ARG);
    /* perm in a sub-buffer of the records, over records 30 .. 59. */
    REC_REFUSED(ps_opencl_argsort_records(q, r, 30, SIZE, 30, f, 2, sub, 0, NULL, 0),
                PS_ERR_INVALID_ARG);
    /* the scratch over the records. */
    REC_REFUSED(ps_opencl_sort_records(q, r, 0, SIZE, N, f, 2, sub, 40 * SIZE),
                PS_ERR_INVALID_ARG);
    /* a scratch too small, and one smaller than it says. */
    REC_REFUSED(ps_opencl_sort_records(q, r, 0, SIZE, N, f, 2, small, 64),
                PS_ERR_INVALID_ARG);
    REC_REFUSED(ps_opencl_sort_records(q, r, 0, SIZE, N, f, 2, small, bytes),
                PS_ERR_INVALID_ARG);
    /* records past the buffer's end. */
    REC_REFUSED(ps_opencl_sort_records(q, r, 21, SIZE, N, f, 2, NULL, 0),
                PS_ERR_INVALID_ARG);
    /* a column over perm. */
    {
        cl_mem cols[2] = { r, pm };
        ps_type types[2] = { PS_U8, PS_U32 };
        size_t offs[2] = { 260, 0 };
        REC_REFUSED(ps_opencl_argsort_columns(q, cols, NULL, types, NULL, 2, N, pm, 0,
                                              NULL, 0), PS_ERR_INVALID_ARG);
        /* two columns sharing bytes: a sub-buffer's and its parent's. */
        cols[1] = sub;
        REC_REFUSED(ps_opencl_argsort_columns(q, cols, offs, types, NULL, 2, 40, pm, 0,
                                              NULL, 0), PS_ERR_INVALID_ARG);
    }
    REC_REFUSED(ps_opencl_sort_records(NULL, r, 0, SIZE, N, f, 2, NULL, 0),
                PS_ERR_INVALID_ARG);
#undef REC_REFUSED
    clReleaseMemObject(sub);
    clReleaseMemObject(r);
    clReleaseMemObject(pm);
    clReleaseMemObject(small);
}

static int api_tests(void)
{
    static const size_t sizes[] = { 0, 1, 2, 100, 2048, 2049, 5000, 70001 };
    /* PS_TEST_MAX_N and PS_TEST_TYPES narrow the run under the sanitizers
     * (CI's time budget): the cl_mem API's checks and copies are the same
     * code for every type and size. */
    const char *cap = getenv("PS_TEST_MAX_N");
    size_t max_n = cap != NULL ? strtoull(cap, NULL, 10) : (size_t)-1;
    uint64_t seed = 99;
    size_t s, sbytes = 0;
    int t, f;
    cl_mem dk, small;

    setup();
    for (t = PS_U8; t <= T_TYPE_LAST; t++)
        for (f = 0; f < 2 && t_wanted("PS_TEST_TYPES", t_type_name((ps_type)t)); f++)
            for (s = 0; s < sizeof sizes / sizeof sizes[0] && sizes[s] <= max_n; s++) {
                size_t n = sizes[s];
                one((ps_type)t, f ? PS_DESCENDING : 0, n, s * 3, 0, 0, s & 1, seed++);
                if (t == PS_U32 || t == PS_F64 || t == PS_I16) {
                    one((ps_type)t, f ? PS_DESCENDING : 0, n, s, 4, s * 2 + 1, !(s & 1), seed++);
                    one((ps_type)t, f ? PS_DESCENDING : 0, n, 5, 8, 0, s & 1, seed++);
                }
            }
    /* One larger case, on both scratch paths. */
    if (max_n >= (size_t)1 << 20)
        one(PS_U32, 0, (size_t)1 << 20, 3, 4, 0, 1, seed++);
    if (max_n >= 300001)
        one(PS_I64, PS_DESCENDING, 300001, 0, 0, 0, 0, seed++);

    /* Segmented sorts: every type and direction, keys and pairs. */
    for (t = PS_U8; t <= T_TYPE_LAST; t++)
        for (f = 0; f < 2; f++)
            segs((ps_type)t, f ? PS_DESCENDING : 0, t % 3 ? 20000 : 3001, (size_t)t,
                 (size_t[]){ 0, 4, 8 }[(t + f) % 3], (t + f) & 1, seed++);
    segs_refused();
    overlaps();
    scratch_queries();
    printf("ps_test_opencl: %d device top-k calls passed\n",
           t_topk_device("opencl", cl_topk));
    topk_refused();
    {
        t_rec_dev rd = { cl_sort_records, cl_argsort_records, cl_argsort_columns, 0 };
        printf("ps_test_opencl: %ld device records calls passed\n",
               t_records_device("opencl", &rd));
    }
    records_refused();

    /* A scratch that is too small is refused before anything runs. */
    dk = buffer(100000 * 4, NULL);
    if (ps_opencl_scratch_size(q, 100000, PS_U32, 0, &sbytes) != PS_OK || sbytes == 0)
        t_fail("scratch_size for 100000 keys: %zu", sbytes);
    small = buffer(64, NULL);
    if (ps_opencl_sort_keys(q, dk, 0, 100000, PS_U32, 0, small, 64) != PS_ERR_INVALID_ARG)
        t_fail("a too-small scratch was accepted");
    if (ps_opencl_sort_keys(q, dk, 1, 100000, PS_U32, 0, NULL, 0) != PS_ERR_INVALID_ARG)
        t_fail("a range past the end of the buffer was accepted");
    if (ps_opencl_sort_pairs(q, dk, 0, small, 0, 4, 100, PS_U32, 0, NULL, 0)
        != PS_ERR_INVALID_ARG)
        t_fail("a values buffer too small was accepted");
    if (ps_opencl_sort_pairs(q, dk, 0, dk, 0, 12, 10, PS_U32, 0, NULL, 0)
        != PS_ERR_INVALID_ARG)
        t_fail("value_size 12 was accepted");
    if (ps_opencl_sort_keys(q, dk, 0, 10, (ps_type)0, 0, NULL, 0) != PS_ERR_INVALID_ARG)
        t_fail("type 0 was accepted");
    if (ps_opencl_sort_keys(NULL, dk, 0, 10, PS_U32, 0, NULL, 0) != PS_ERR_INVALID_ARG)
        t_fail("a NULL queue was accepted");
    clReleaseMemObject(dk);
    clReleaseMemObject(small);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    printf("ps_test_opencl: %ld cl_mem sorts passed\n", checks);
    return 0;
}

/* n keys of `type` (u32 or u64) sorted through PORTSORT_BACKEND and
 * checked against a merge sort of a copy: a program that sorts but loses
 * or invents keys (a wrong binary from the cache) fails here too. */
static int quick(ps_type type)
{
    ps_backend_info info[8];
    size_t n = 5000, i, nb, kb = type == PS_U64 ? 8 : 4;
    unsigned char *k = malloc(n * kb), *k0 = malloc(n * kb);
    size_t *perm = malloc(n * sizeof *perm);
    uint64_t seed = 7;
    int st;
    if (k == NULL || k0 == NULL || perm == NULL)
        t_fail("quick: out of memory");
    for (i = 0; i < n; i++) {
        uint64_t r = t_rand(&seed);
        memcpy(k + i * kb, &r, kb);
    }
    memcpy(k0, k, n * kb);
    st = ps_sort_keys(k, n, type, 0);
    if (st != PS_OK) {
        printf("refused: %s: %s\n", ps_strerror(st), ps_error_detail());
        free(k);
        free(k0);
        free(perm);
        return 3;
    }
    t_oracle_perm(k0, n, type, 0, perm);
    for (i = 0; i < n; i++)
        if (memcmp(k + i * kb, k0 + perm[i] * kb, kb) != 0)
            t_fail("quick %s: wrong key at %zu", t_type_name(type), i);
    nb = ps_backends(info, 8);
    for (i = 0; i < nb && i < 8; i++)
        if (strcmp(info[i].name, ps_backend_name()) == 0)
            printf("backend: %s\ndevice: %s\n", info[i].name, info[i].detail);
    free(k);
    free(k0);
    free(perm);
    return 0;
}

/* A cache file in the first format ("PSCLBIN1", payload length, FNV-1a
 * hash of the payload, payload) whose payload is not a program: its
 * checksum is right, so only a reader that knows whose file it is can
 * refuse it before a driver sees it. */
static int old_format(const char *path)
{
    unsigned char payload[4096];
    uint64_t len = sizeof payload, h = 0xcbf29ce484222325ull;
    size_t i;
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        t_fail("cannot write %s", path);
    memset(payload, 0x41, sizeof payload);
    for (i = 0; i < sizeof payload; i++) {
        h ^= payload[i];
        h *= 0x100000001b3ull;
    }
    if (fwrite("PSCLBIN1", 1, 8, f) != 8 || fwrite(&len, 8, 1, f) != 1
        || fwrite(&h, 8, 1, f) != 1 || fwrite(payload, 1, len, f) != len
        || fclose(f) != 0)
        t_fail("cannot write %s", path);
    return 0;
}

/* The device records sorts with the scratch left to the call, under
 * PORTSORT_TEST_FAIL_DEVICE_ALLOC=k (test/opencl-api.sh): each call either
 * succeeds with the right result or fails with PS_ERR_DEVICE_MEMORY, the
 * records and perm byte for byte as they were.  Prints "injected" when a
 * call saw the failure. */
static int records_fault(void)
{
    enum { N = 5000, SIZE = 7 };
    static unsigned char recs[N * SIZE], back[N * SIZE];
    static uint32_t keys[N];
    static size_t want[N];
    static cl_ulong perm[N];
    ps_field f = { 1, PS_U32, 0 };
    uint64_t rng = 3;
    size_t i;
    int op, injected = 0;
    cl_mem r, pm;
    setup();
    for (i = 0; i < sizeof recs; i++)
        recs[i] = (unsigned char)t_rand(&rng);
    for (i = 0; i < N; i++) {
        recs[i * SIZE + 1] &= 0x0F;         /* ties, so stability shows */
        memcpy(&keys[i], recs + i * SIZE + 1, 4);
    }
    t_oracle_perm(keys, N, PS_U32, 0, want);
    for (op = 0; op < 2; op++) {
        int st;
        r = buffer(sizeof recs, recs);
        memset(perm, 0xA5, sizeof perm);
        pm = buffer(sizeof perm, perm);
        st = op == 0 ? ps_opencl_sort_records(q, r, 0, SIZE, N, &f, 1, NULL, 0)
                     : ps_opencl_argsort_records(q, r, 0, SIZE, N, &f, 1, pm, 0, NULL, 0);
        clFinish(q);
        readback(r, sizeof back, back);
        readback(pm, sizeof perm, perm);
        if (st != PS_OK && st != PS_ERR_DEVICE_MEMORY)
            t_fail("records fault %d: status %d (%s)", op, st, ps_error_detail());
        if (st != PS_OK) {
            injected = 1;
            if (memcmp(back, recs, sizeof recs) != 0)
                t_fail("records fault %d: a failed call changed the records", op);
            for (i = 0; i < N; i++)
                if (perm[i] != (cl_ulong)0xA5A5A5A5A5A5A5A5ull)
                    t_fail("records fault %d: a failed call wrote perm", op);
        } else if (op == 0) {
            for (i = 0; i < N; i++)
                if (memcmp(back + i * SIZE, recs + want[i] * SIZE, SIZE) != 0)
                    t_fail("records fault: record %zu is not %zu", i, want[i]);
        } else {
            for (i = 0; i < N; i++)
                if (perm[i] != want[i] || back[i] != recs[i])
                    t_fail("records fault: perm[%zu] wrong, or records changed", i);
        }
        clReleaseMemObject(r);
        clReleaseMemObject(pm);
    }
    printf("%s\n", injected ? "injected" : "no failure hit");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "quick") == 0)
        return quick(argc > 2 && strcmp(argv[2], "u64") == 0 ? PS_U64 : PS_U32);
    if (argc > 2 && strcmp(argv[1], "old-format") == 0)
        return old_format(argv[2]);
    if (argc > 1 && strcmp(argv[1], "records-fault") == 0)
        return records_fault();
    return api_tests();
}
