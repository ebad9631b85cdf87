/*
 * ps_test_gpu_fake - the CUDA backend's host code, run on make check's CPU
 * stand-in runtime (test/standin/ps_gpu_fake.h) by gpu-fake.sh, which installs
 * that module as ps_cuda.so: the device API (device pointers are host
 * pointers there) and the host-array path, every key type, both
 * directions, keys / pairs of 4 and 8 bytes / argsort, sizes that take the
 * one-work-group path and the multi-block path (the stand-in caps a pass at
 * 3 blocks, so blocks own several tiles), compared with the oracle; then
 * the device API's segmented sort (every size class) and its refusals, and
 * the device top-k (ps_cuda_topk, ps_cuda_topk_segments: the cases of
 * ps_test_topkdev.c) and its refusals.
 *
 * This checks what the kernels on pocl cannot: the launch sequence, the
 * argument packing for cudaLaunchKernel, the CUDA tile sizes, the scratch
 * layouts, the pinned staging and the device API's checks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "portsort.h"
#include "portsort_cuda.h"
#include "ps_test_recdev.h"
#include "ps_test_topkdev.h"
#include "ps_test_util.h"

enum { OP_KEYS, OP_PAIRS4, OP_PAIRS8, OP_ARGSORT, OP_COUNT };

static void check(const char *what, const unsigned char *keys, const unsigned char *vals,
                  const unsigned char *out, const unsigned char *vout, const size_t *perm,
                  size_t n, size_t kb, int op, ps_type t, unsigned flags)
{
    size_t vb = op == OP_PAIRS4 ? 4 : 8, i;
    for (i = 0; i < n; i++) {
        int bad;
        if (op == OP_ARGSORT) {
            uint64_t p;
            memcpy(&p, vout + i * 8, 8);
            bad = p != perm[i];
        } else {
            bad = memcmp(out + i * kb, keys + perm[i] * kb, kb) != 0
                  || (op != OP_KEYS && memcmp(vout + i * vb, vals + perm[i] * vb, vb) != 0);
        }
        if (bad)
            t_fail("%s: %s %s op %d n=%zu: wrong at %zu", what, t_type_name(t),
                   flags ? "desc" : "asc", op, n, i);
    }
}

static void one(ps_type t, unsigned flags, int op, size_t n, int dataset)
{
    size_t kb = ps_type_size(t), vb = op == OP_PAIRS4 ? 4 : 8, i, bytes;
    unsigned char *keys = malloc(n * kb + 1), *out = malloc(n * kb + 1);
    unsigned char *vals = malloc(n * 8 + 1), *vout = malloc(n * 8 + 1);
    size_t *perm = malloc((n + 1) * sizeof *perm), *hperm = malloc((n + 1) * sizeof *perm);
    uint64_t rng = n * 131 + (uint64_t)t * 7 + flags + (uint64_t)op * 1000 + (uint64_t)dataset;
    void *scratch = NULL;
    int st, pass;

    for (i = 0; i < n; i++) {
        uint64_t r = t_rand(&rng), v = i * 2654435761u;
        if (dataset == 1)
            r &= 0x0F0F0F0F0F0F0F0Full;  /* half the digits constant */
        if (dataset == 2)                /* the top byte zero: one digit */
            r &= ~(0xFFull << (8 * kb - 8));
        memcpy(keys + i * kb, &r, kb);
        memcpy(vals + i * vb, &v, vb);
    }
    t_oracle_perm(keys, n, t, flags, perm);
    for (pass = 0; pass < 2; pass++) {
        memcpy(out, keys, n * kb);
        memcpy(vout, vals, n * vb);
        if (pass == 0) {
            /* Device API: given scratch on odd sizes, library scratch else. */
            ps_gpu_op gop = op == OP_KEYS ? PS_GPU_SORT_KEYS
                          : op == OP_ARGSORT ? PS_GPU_ARGSORT : PS_GPU_SORT_PAIRS;
            bytes = 0;
            if (n % 2 == 1) {
                if (ps_cuda_scratch_size(gop, n, t, vb, &bytes) != PS_OK)
                    t_fail("scratch_size: %s", ps_error_detail());
                scratch = malloc(bytes + 1);
            }
            st = op == OP_KEYS ? ps_cuda_sort_keys(out, n, t, flags, scratch, bytes, NULL)
               : op == OP_ARGSORT ? ps_cuda_argsort(out, (size_t *)vout, n, t, flags,
                                                    scratch, bytes, NULL)
               : ps_cuda_sort_pairs(out, vout, vb, n, t, flags, scratch, bytes, NULL);
            free(scratch);
            scratch = NULL;
            if (st != PS_OK)
                t_fail("device API: %s", ps_error_detail());
            check("device API", keys, vals, out, vout, perm, n, kb, op, t, flags);
        } else {
            st = op == OP_KEYS ? ps_sort_keys(out, n, t, flags)
               : op == OP_ARGSORT ? ps_argsort(out, hperm, n, t, flags)
               : ps_sort_pairs(out, vout, vb, n, t, flags);
            if (st != PS_OK)
                t_fail("host arrays: %s", ps_error_detail());
            if (op == OP_ARGSORT) {
                for (i = 0; i < n; i++)
                    if (hperm[i] != perm[i])
                        t_fail("host argsort %s n=%zu: wrong at %zu", t_type_name(t), n, i);
            } else {
                check("host arrays", keys, vals, out, vout, perm, n, kb, op, t, flags);
            }
        }
    }
    free(keys); free(out); free(vals); free(vout); free(perm); free(hperm);
}

/* ps_cuda_sort_segments (device pointers are host pointers here): a mix of
 * segment lengths that reaches every size class, keys or pairs, with
 * scratch from scratch_size() or from the library. */
static void segments(ps_type t, unsigned flags, size_t vs, size_t n, int own)
{
    size_t kb = ps_type_size(t), ns, i, bytes = 0, *offs;
    unsigned char *keys = malloc(n * kb + 1), *out = malloc(n * kb + 1);
    unsigned char *vals = malloc(n * 8 + 1), *vout = malloc(n * 8 + 1);
    uint64_t rng = n * 7 + (uint64_t)t * 3 + vs + flags;
    void *scratch = NULL;
    char what[96];
    int st;

    ns = t_mixed_offsets(n, &rng, &offs);
    for (i = 0; i < n * kb; i++)
        keys[i] = (unsigned char)(t_rand(&rng) & (i % 3 ? 0xff : 0x81));
    for (i = 0; i < n * vs; i++)
        vals[i] = (unsigned char)t_rand(&rng);
    memcpy(out, keys, n * kb);
    memcpy(vout, vals, n * vs);
    if (own) {
        if (ps_cuda_scratch_size(PS_GPU_SORT_SEGMENTS, n, t, vs, &bytes) != PS_OK)
            t_fail("scratch_size(PS_GPU_SORT_SEGMENTS): %s", ps_error_detail());
        scratch = malloc(bytes + 1);
    }
    st = ps_cuda_sort_segments(out, vs ? vout : NULL, vs, n, offs, ns, t, flags,
                               scratch, bytes, NULL);
    snprintf(what, sizeof what, "device sort_segments %s %s vs=%zu n=%zu",
             t_type_name(t), flags ? "desc" : "asc", vs, n);
    if (st != PS_OK)
        t_fail("%s: %s", what, ps_error_detail());
    t_check_segments(what, keys, out, vals, vout, vs, offs, ns, t, flags);
    free(scratch); free(offs);
    free(keys); free(out); free(vals); free(vout);
}

/* A segment spanning more window starts than a work-group has items,
 * whose window entries ps_seg_classify fills with the whole work-group
 * (issue 33, item 4), then small segments in the window where it ends:
 * they are found only through those entries. */
static void segments_wide(void)
{
    enum { HEAD = 3, WIDE = 600000, TAIL = 100 };
    size_t n = HEAD + WIDE + TAIL * 10, ns = 2 + TAIL, i;
    size_t *offs = malloc((ns + 1) * sizeof *offs);
    uint32_t *k = malloc(n * sizeof *k), *out = malloc(n * sizeof *out);
    uint64_t rng = 99;
    int st;
    if (offs == NULL || k == NULL || out == NULL)
        t_fail("out of memory");
    offs[0] = 0;
    offs[1] = HEAD;
    for (i = 0; i <= TAIL; i++)
        offs[2 + i] = HEAD + WIDE + 10 * i;
    for (i = 0; i < n; i++)
        k[i] = (uint32_t)t_rand(&rng);
    memcpy(out, k, n * sizeof *k);
    st = ps_cuda_sort_segments(out, NULL, 0, n, offs, ns, PS_U32, 0, NULL, 0, NULL);
    if (st != PS_OK)
        t_fail("device sort_segments, a segment of %d keys: %s", WIDE, ps_error_detail());
    t_check_segments("device sort_segments, a segment spanning many windows", k, out,
                     NULL, NULL, 0, offs, ns, PS_U32, 0);
    free(offs); free(k); free(out);
}

/* The device API's refusals come before anything moves. */
static void segments_refused(void)
{
    uint32_t k[300], k0[300];
    size_t good[] = { 0, 100, 300 }, bad[] = { 0, 200, 100 }, late[] = { 0, 100, 301 };
    size_t bytes = 0, i;
    char small[16];
    for (i = 0; i < 300; i++)
        k0[i] = k[i] = (uint32_t)(300 - i);
#define REFUSED(call, want, why) do { int st_ = (call); if (st_ != (want)) \
    t_fail("device sort_segments: %s: got %d (%s)", why, st_, ps_error_detail()); } while (0)
    REFUSED(ps_cuda_sort_segments(k, NULL, 0, 300, bad, 2, PS_U32, 0, NULL, 0, NULL),
            PS_ERR_INVALID_ARG, "decreasing offsets");
    REFUSED(ps_cuda_sort_segments(k, NULL, 0, 300, late, 2, PS_U32, 0, NULL, 0, NULL),
            PS_ERR_INVALID_ARG, "last offset past n");
    REFUSED(ps_cuda_sort_segments(k, NULL, 0, 300, NULL, 2, PS_U32, 0, NULL, 0, NULL),
            PS_ERR_INVALID_ARG, "NULL offsets");
    REFUSED(ps_cuda_sort_segments(k, NULL, 0, 300, good, 0, PS_U32, 0, NULL, 0, NULL),
            PS_ERR_INVALID_ARG, "no segments");
    REFUSED(ps_cuda_sort_segments(k, k, 12, 300, good, 2, PS_U32, 0, NULL, 0, NULL),
            PS_ERR_INVALID_ARG, "value_size 12");
    REFUSED(ps_cuda_sort_segments(k, NULL, 4, 300, good, 2, PS_U32, 0, NULL, 0, NULL),
            PS_ERR_INVALID_ARG, "value_size 4 without values");
    REFUSED(ps_cuda_sort_segments(k, NULL, 0, 300, good, 2, PS_U32, 2, NULL, 0, NULL),
            PS_ERR_INVALID_ARG, "unknown flags");
    REFUSED(ps_cuda_sort_segments(k, NULL, 0, 300, good, 2, PS_U32, 0, small, 16, NULL),
            PS_ERR_INVALID_ARG, "scratch too small");
    if (sizeof(size_t) > 4)
        REFUSED(ps_cuda_sort_segments(k, NULL, 0, 300, good, (size_t)UINT32_MAX + 1,
                                      PS_U32, 0, NULL, 0, NULL),
                PS_ERR_TOO_LARGE, "2^32 segments");
    if (ps_cuda_scratch_size(PS_GPU_SORT_SEGMENTS, 300, PS_U32, 12, &bytes)
        != PS_ERR_INVALID_ARG)
        t_fail("scratch_size(PS_GPU_SORT_SEGMENTS) took value_size 12");
#undef REFUSED
    if (memcmp(k, k0, sizeof k) != 0)
        t_fail("device sort_segments: a refused call changed the keys");
}

/* Device arrays that share a byte (device pointers are host pointers on
 * the stand-in, so one allocation holds them all): refused before anything
 * is enqueued, every byte as it was, the detail naming both arrays; arrays
 * side by side sort right. */
static void overlap_refused(const char *what, int st, const char *a, const char *b,
                            const unsigned char *mem, const unsigned char *mem0,
                            size_t bytes)
{
    const char *d = ps_error_detail();
    if (st != PS_ERR_INVALID_ARG || strstr(d, a) == NULL || strstr(d, b) == NULL
        || strstr(d, "overlap") == NULL)
        t_fail("device API, %s: got %d (%s)", what, st, d);
    if (memcmp(mem, mem0, bytes) != 0)
        t_fail("device API, %s: a refused call changed the arrays", what);
}

static void overlaps(void)
{
    /* Enough keys for the sorts to need scratch (one work-group's worth
     * needs none); room for keys, values, offsets and the scratch. */
    enum { N = 3000, MEM = 80000 };
    static _Alignas(256) unsigned char mem[MEM], mem0[MEM];
    uint32_t *k = (uint32_t *)(void *)mem;
    size_t *offs, kbytes = 0, bytes = 0, sbytes = 0, i;
    uint64_t rng = 17;
    int st;

    for (i = 0; i < sizeof mem; i++)
        mem0[i] = mem[i] = (unsigned char)t_rand(&rng);
    if (ps_cuda_scratch_size(PS_GPU_SORT_KEYS, N, PS_U32, 0, &kbytes) != PS_OK
        || ps_cuda_scratch_size(PS_GPU_SORT_PAIRS, N, PS_U32, 4, &bytes) != PS_OK
        || ps_cuda_scratch_size(PS_GPU_SORT_SEGMENTS, N, PS_U32, 4, &sbytes) != PS_OK
        || kbytes == 0 || bytes == 0 || sbytes == 0 || 8 * N + 512 + sbytes > MEM
        || 8 * N + bytes > MEM)
        t_fail("scratch_size for %d keys: %zu, %zu, %zu", N, kbytes, bytes, sbytes);
#define OVERLAP(call, a, b) overlap_refused(#call, (call), a, b, mem, mem0, sizeof mem)
    OVERLAP(ps_cuda_sort_pairs(k, k, 4, N, PS_U32, 0, NULL, 0, NULL), "d_keys", "d_values");
    OVERLAP(ps_cuda_sort_pairs(k, k + N - 1, 4, N, PS_U32, 0, NULL, 0, NULL),
            "d_keys", "d_values");
    OVERLAP(ps_cuda_sort_pairs(k + N, mem + 1, 4, N, PS_U32, 0, NULL, 0, NULL),
            "d_keys", "d_values");
    OVERLAP(ps_cuda_sort_keys(k, N, PS_U32, 0, mem, kbytes, NULL), "d_keys", "d_scratch");
    OVERLAP(ps_cuda_sort_pairs(k, k + N, 4, N, PS_U32, 0, mem + 8 * N - 256, bytes, NULL),
            "d_values", "d_scratch");
    OVERLAP(ps_cuda_argsort(k, (size_t *)(void *)(mem + 4 * N - 8), N, PS_U32, 0, NULL, 0,
                            NULL), "d_keys", "d_perm");
    /* Offsets { 0, 100, N } written over keys 0 to 5: a valid
     * segmentation, refused for where it lies. */
    offs = (size_t *)(void *)mem;
    offs[0] = 0, offs[1] = 100, offs[2] = N;
    memcpy(mem0, mem, sizeof mem);
    OVERLAP(ps_cuda_sort_segments(k, NULL, 0, N, offs, 2, PS_U32, 0, NULL, 0, NULL),
            "d_keys", "d_offsets");
    OVERLAP(ps_cuda_sort_segments(k + 6, k + 6 + N, 4, N, offs, 2, PS_U32, 0, k + 6 + N,
                                  sbytes, NULL), "d_values", "d_scratch");
#undef OVERLAP
    /* Side by side in one allocation: offsets, keys, values, scratch. */
    for (i = 0; i < N; i++)
        k[6 + N + i] = (uint32_t)i;
    memcpy(mem0, mem, sizeof mem);
    st = ps_cuda_sort_segments(k + 6, k + 6 + N, 4, N, offs, 2, PS_U32, 0,
                               mem + 256 * ((24 + 8 * N + 255) / 256), sbytes, NULL);
    if (st != PS_OK)
        t_fail("device API: arrays side by side: %s", ps_error_detail());
    for (i = 0; i < N; i++) {
        uint32_t v = k[6 + N + i];
        if (v >= N || (v < 100) != (i < 100)
            || memcmp(&k[6 + i], mem0 + 4 * (6 + v), 4) != 0
            || (i > 0 && i != 100 && k[6 + i - 1] > k[6 + i]))
            t_fail("device API: arrays side by side: wrong at %zu", i);
    }
    if (memcmp(mem, mem0, 24) != 0)
        t_fail("device API: arrays side by side: the offsets changed");
}

/* ps_cuda_topk and ps_cuda_topk_segments for the shared cases
 * (ps_test_topkdev.c): device pointers are host pointers here.  Every
 * other call gets the caller's scratch, sized by scratch_size; the inputs
 * must come back as they were. */
static int fake_topk(const void *keys, const void *vals, size_t vs, size_t n,
                     const size_t *offs, size_t nseg, size_t k, void *okeys,
                     void *ovals, size_t *oidx, size_t slots, ps_type t,
                     unsigned flags)
{
    static unsigned turn;
    size_t kb = ps_type_size(t), bytes = 0;
    unsigned char *k0 = malloc(n * kb + 1), *v0 = malloc(n * vs + 1);
    void *scratch = NULL;
    int st;
    (void)slots;
    memcpy(k0, keys, n * kb);
    if (vs)
        memcpy(v0, vals, n * vs);
    if (turn++ % 2) {
        if (ps_cuda_scratch_size(offs ? PS_GPU_TOPK_SEGMENTS : PS_GPU_TOPK, n, t, vs,
                                 &bytes) != PS_OK)
            t_fail("topk scratch_size: %s", ps_error_detail());
        scratch = malloc(bytes + 1);
    }
    st = offs ? ps_cuda_topk_segments(keys, vals, vs, n, offs, nseg, k, okeys, ovals,
                                      oidx, t, flags, scratch, bytes, NULL)
              : ps_cuda_topk(keys, vals, vs, n, k, okeys, ovals, oidx, t, flags,
                             scratch, bytes, NULL);
    if (memcmp(k0, keys, n * kb) != 0 || (vs && memcmp(v0, vals, n * vs) != 0))
        t_fail("device topk n=%zu k=%zu: the inputs changed", n, k);
    free(scratch);
    free(k0);
    free(v0);
    return st;
}

/* The device records sorts for the shared cases (ps_test_recdev.c):
 * device pointers are host pointers here; every other call gets the
 * caller's scratch, sized by records_scratch_size. */
static unsigned rec_turn;

static void *rec_scratch(size_t record_size, size_t n, size_t *bytes)
{
    *bytes = 0;
    if (rec_turn++ % 2 == 0)
        return NULL;
    if (ps_cuda_records_scratch_size(record_size, n, bytes) != PS_OK)
        t_fail("records_scratch_size: %s", ps_error_detail());
    return malloc(*bytes + 1);
}

static int fake_sort_records(void *records, size_t record_size, size_t n,
                             const ps_field *fields, size_t num_fields)
{
    size_t bytes;
    void *scratch = rec_scratch(record_size, n, &bytes);
    int st = ps_cuda_sort_records(records, record_size, n, fields, num_fields,
                                  scratch, bytes, NULL);
    free(scratch);
    return st;
}

static int fake_argsort_records(void *records, size_t record_size, size_t n,
                                const ps_field *fields, size_t num_fields,
                                size_t *perm)
{
    size_t bytes;
    void *scratch = rec_scratch(0, n, &bytes);
    int st = ps_cuda_argsort_records(records, record_size, n, fields, num_fields,
                                     perm, scratch, bytes, NULL);
    free(scratch);
    return st;
}

static int fake_argsort_columns(void *const *columns, const ps_type *types,
                                const unsigned *flags, size_t num_columns, size_t n,
                                size_t *perm)
{
    size_t bytes;
    void *scratch = rec_scratch(0, n, &bytes);
    int st = ps_cuda_argsort_columns((const void *const *)columns, types, flags,
                                     num_columns, n, perm, scratch, bytes, NULL);
    free(scratch);
    return st;
}

/* Overlaps of the records calls' arrays, refused with every array as it
 * was. */
static void records_refused(void)
{
    enum { N = 300, SIZE = 7 };
    static unsigned char mem[N * SIZE + 4096], mem0[sizeof mem];
    ps_field f[2] = { { 0, PS_U16, 0 }, { 3, PS_F32, PS_DESCENDING } };
    size_t bytes = 0, i;
    uint64_t rng = 5;
    for (i = 0; i < sizeof mem; i++)
        mem[i] = mem0[i] = (unsigned char)t_rand(&rng);
    if (ps_cuda_records_scratch_size(SIZE, N, &bytes) != PS_OK || bytes == 0)
        t_fail("records_scratch_size: %s", ps_error_detail());
#define REC_REFUSED(call) do {                                                \
        int st_ = (call);                                                     \
        if (st_ != PS_ERR_INVALID_ARG)                                        \
            t_fail("device records: %s: got %d (%s)", #call, st_,             \
                   ps_error_detail());                                        \
        if (memcmp(mem, mem0, sizeof mem) != 0)                               \
            t_fail("device records: %s changed the arrays", #call);           \
    } while (0)
    REC_REFUSED(ps_cuda_argsort_records(mem, SIZE, N, f, 2, (size_t *)(void *)(mem + 8),
                                        NULL, 0, NULL));
    REC_REFUSED(ps_cuda_argsort_records(mem + 8, SIZE, N, f, 2, (size_t *)(void *)mem,
                                        NULL, 0, NULL));
    REC_REFUSED(ps_cuda_sort_records(mem, SIZE, N, f, 2, mem + N * SIZE - 1, 4096,
                                     NULL));
    REC_REFUSED(ps_cuda_sort_records(mem, SIZE, N, f, 2, mem + N * SIZE, bytes - 1,
                                     NULL));
    {
        const void *cols[2] = { mem, mem + 40 };
        ps_type types[2] = { PS_U8, PS_U32 };
        REC_REFUSED(ps_cuda_argsort_columns(cols, types, NULL, 2, 50,
                                            (size_t *)(void *)(mem + 1024), NULL, 0,
                                            NULL));
        cols[1] = mem + 1000;
        REC_REFUSED(ps_cuda_argsort_columns(cols, types, NULL, 2, 50,
                                            (size_t *)(void *)(mem + 1024), NULL, 0,
                                            NULL));
        REC_REFUSED(ps_cuda_argsort_columns(cols, types, NULL, 2, 50, NULL, NULL, 0,
                                            NULL));
    }
    REC_REFUSED(ps_cuda_sort_records(NULL, SIZE, N, f, 2, NULL, 0, NULL));
#undef REC_REFUSED
}

/* The device top-k's refusals: each before anything is enqueued (or, for
 * offsets, before anything writes the outputs), with the outputs and
 * inputs byte-identical afterwards. */
static void topk_refused(void)
{
    enum { N = 3000, K = 10, MEM = 160000 };
    static _Alignas(256) unsigned char mem[MEM], mem0[MEM];
    /* Outputs of 4K slots: room for 3 segments' results at K each. */
    uint32_t *k = (uint32_t *)(void *)mem, *v = k + N, *ok = v + N, *ov = ok + 4 * K;
    size_t *oi = (size_t *)(void *)(ov + 4 * K), *offs = oi + 4 * K;
    unsigned char *scratch = (unsigned char *)(offs + 4);
    size_t bytes = 0, i;
    uint64_t rng = 23;
    int st;

    for (i = 0; i < sizeof mem; i++)
        mem0[i] = mem[i] = (unsigned char)t_rand(&rng);
    offs[0] = 0, offs[1] = 2000, offs[2] = 1000, offs[3] = N;   /* decreasing */
    memcpy(mem0, mem, sizeof mem);
    if (ps_cuda_scratch_size(PS_GPU_TOPK, N, PS_U32, 4, &bytes) != PS_OK || bytes == 0
        || (size_t)(scratch - mem) + bytes > MEM)
        t_fail("topk scratch_size for %d keys: %zu", N, bytes);
#define TOPK_REFUSED(call, want, w1, w2) do {                                   \
    st = (call);                                                                \
    if (st != (want) || strstr(ps_error_detail(), w1) == NULL                   \
        || strstr(ps_error_detail(), w2) == NULL)                               \
        t_fail("device topk: %s: got %d (%s)", #call, st, ps_error_detail());   \
    if (memcmp(mem, mem0, sizeof mem) != 0)                                     \
        t_fail("device topk: %s: a refused call changed the arrays", #call);    \
} while (0)
    TOPK_REFUSED(ps_cuda_topk(k, v, 4, N, K, k + 5, ov, oi, PS_U32, 0, NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "d_keys", "d_out_keys");
    TOPK_REFUSED(ps_cuda_topk(k, v, 4, N, K, ok, v + N - 1, oi, PS_U32, 0, NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "d_values", "d_out_values");
    TOPK_REFUSED(ps_cuda_topk(k, v, 4, N, K, ok, ov, (size_t *)(void *)(ov + K - 1),
                              PS_U32, 0, NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "d_out_values", "d_out_index");
    TOPK_REFUSED(ps_cuda_topk(k, v, 4, N, K, ok, ov, oi, PS_U32, 0, ok, bytes, NULL),
                 PS_ERR_INVALID_ARG, "d_out_keys", "d_scratch");
    TOPK_REFUSED(ps_cuda_topk(k, v, 4, N, K, ok, ov, oi, PS_U32, 0, scratch, bytes - 1,
                              NULL), PS_ERR_INVALID_ARG, "scratch of", "needed");
    TOPK_REFUSED(ps_cuda_topk(NULL, v, 4, N, K, ok, ov, oi, PS_U32, 0, NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "d_keys", "NULL");
    TOPK_REFUSED(ps_cuda_topk(k, v, 4, N, K, NULL, ov, oi, PS_U32, 0, NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "d_out_keys", "NULL");
    TOPK_REFUSED(ps_cuda_topk(k, v, 12, N, K, ok, ov, oi, PS_U32, 0, NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "value_size", "12");
    TOPK_REFUSED(ps_cuda_topk(k, v, 0, N, K, ok, ov, oi, PS_U32, 0, NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "d_values", "value_size 0");
    TOPK_REFUSED(ps_cuda_topk(k, v, 4, N, K, ok, NULL, oi, PS_U32, 0, NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "d_out_values NULL", "value_size 4");
    TOPK_REFUSED(ps_cuda_topk(k, v, 4, N, K, ok, ov, oi, (ps_type)99, 0, NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "type", "99");
    TOPK_REFUSED(ps_cuda_topk(k, v, 4, N, K, ok, ov, oi, PS_U32, 0x10, NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "flags", "0x10");
    TOPK_REFUSED(ps_cuda_topk_segments(k, v, 4, N, offs, 3, K, ok, ov, oi, PS_U32, 0,
                                       NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "offsets are invalid", "");
    TOPK_REFUSED(ps_cuda_topk_segments(k, v, 4, N, NULL, 3, K, ok, ov, oi, PS_U32, 0,
                                       NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "d_offsets", "NULL");
    TOPK_REFUSED(ps_cuda_topk_segments(k, v, 4, N, offs, 0, K, ok, ov, oi, PS_U32, 0,
                                       NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "no segments", "");
    /* With k = 2K the last of 3 segments' results may reach slot
     * 2 * 2K + 2K - 1, past the 4K slots of out_keys into out_values. */
    TOPK_REFUSED(ps_cuda_topk_segments(k, v, 4, N, offs, 3, 2 * K, ok, ov, oi, PS_U32,
                                       0, NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "d_out_keys", "d_out_values");
    TOPK_REFUSED(ps_cuda_topk_segments(k, v, 4, N, offs, 2, SIZE_MAX / 8, ok, ov, oi,
                                       PS_U32, 0, NULL, 0, NULL),
                 PS_ERR_INVALID_ARG, "slots", "size_t");
#undef TOPK_REFUSED
    /* Nothing to write: k = 0 and n = 0 succeed without looking further. */
    if (ps_cuda_topk(NULL, NULL, 0, N, 0, NULL, NULL, NULL, PS_U32, 0, NULL, 0, NULL)
            != PS_OK
        || ps_cuda_topk(NULL, NULL, 0, 0, K, NULL, NULL, NULL, PS_U32, 0, NULL, 0, NULL)
            != PS_OK)
        t_fail("device topk with nothing to write: %s", ps_error_detail());
}

/* Neither GPU runtime survives fork(): a child must get a status, not a
 * hang (ps_test_fork checks the same on every backend, with sizes too big
 * for the stand-in), and must exit without the library's destructors
 * calling into the runtime it inherited (the stand-in aborts a child that
 * calls it: exit, not _exit, runs them). */
static void forked_child(void)
{
    uint32_t k[100];
    int status, i;
    pid_t pid;
    for (i = 0; i < 100; i++)
        k[i] = (uint32_t)(100 - i);
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        t_fail("fork");
    if (pid == 0) {
        int st = ps_sort_keys(k, 100, PS_U32, 0);
        int ok = st == PS_ERR_BACKEND_UNAVAILABLE
                 && strstr(ps_error_detail(), "forked child") != NULL && k[0] == 100
                 && ps_cuda_sort_keys(k, 100, PS_U32, 0, NULL, 0, NULL)
                    == PS_ERR_BACKEND_UNAVAILABLE;
        fflush(stdout);
        exit(ok ? 0 : 1);
    }
    if (waitpid(pid, &status, 0) < 0)
        t_fail("waitpid");
    if (WIFSIGNALED(status))
        t_fail("a forked child was killed by signal %d (a call into the runtime "
               "it inherited?)", WTERMSIG(status));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        t_fail("a forked child was not refused with PS_ERR_BACKEND_UNAVAILABLE");
    if (ps_sort_keys(k, 100, PS_U32, 0) != PS_OK || k[0] != 1)
        t_fail("the parent cannot sort after the fork");
}

/* `ps_test_gpu_fake onesweep`: a few sorts of several Onesweep tiles (5120
 * keys; 3072 where a key or a value is 8 bytes), every key width and value
 * width once, for the tests of gpu-fake.sh that rerun the stand-in with
 * the tiles handed out in orders that make a work-group wait for one that
 * has not run, with portions of several tiles, and with 64-wide warps.
 * The last two have the top byte zero, so that on the device API, which
 * runs every pass, each tile of the top pass holds one digit (ascending:
 * 0; descending: 255, the last tile's padding digit) and takes the short
 * circuit, keys and values. */
static int onesweep_cases(void)
{
    static const struct { ps_type t; unsigned flags; int op; size_t n; int data; } c[] = {
        { PS_U32, 0, OP_KEYS, 4 * 8192 + 77, 0 }, { PS_I16, PS_DESCENDING, OP_KEYS, 2 * 8192 + 1, 1 },
        { PS_F32, 0, OP_PAIRS4, 2 * 8192 + 5, 0 }, { PS_U8, 0, OP_PAIRS8, 2 * 4096 + 9, 1 },
        { PS_I64, PS_DESCENDING, OP_PAIRS8, 3 * 4096 + 3, 0 }, { PS_F64, 0, OP_ARGSORT, 2 * 4096 + 1, 1 },
        { PS_U32, 0, OP_PAIRS4, 3 * 5120 + 7, 2 }, { PS_U64, PS_DESCENDING, OP_PAIRS8, 3 * 3072 + 5, 2 },
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++)
        one(c[i].t, c[i].flags, c[i].op, c[i].n, c[i].data);
    return (int)i;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { 0, 1, 2, 3, 100, 513, 2049, 4097 };
    const char *cap = getenv("PS_TEST_MAX_N");
    size_t max_n = cap != NULL ? strtoull(cap, NULL, 10) : 4097, si;
    int t, f, op, d, cases = 0;

    t_init_or_skip("ps_test_gpu_fake");
    if (strcmp(ps_backend_name(), "cuda") != 0)
        t_fail("backend %s, want the stand-in cuda", ps_backend_name());
    if (argc > 1 && strcmp(argv[1], "onesweep") == 0) {
        printf("ps_test_gpu_fake onesweep: %d cases passed\n", onesweep_cases());
        return 0;
    }
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        if (sizes[si] > max_n)
            continue;
        for (t = PS_U8; t <= T_TYPE_LAST; t++)
            for (f = 0; f < 2 && t_wanted("PS_TEST_TYPES", t_type_name((ps_type)t)); f++)
                for (op = 0; op < OP_COUNT; op++)
                    for (d = 0; d < 2; d++) {
                        /* A sample, rotating through the combinations:
                         * the stand-in's 256 threads per work-group are
                         * slow on a small machine.  PS_TEST_ALL=1 runs
                         * every combination. */
                        if (getenv("PS_TEST_ALL") == NULL
                            && (t + f + op + d + si) % (sizes[si] > 600 ? 16 : 4) != 0)
                            continue;
                        one((ps_type)t, f ? PS_DESCENDING : 0, op, sizes[si], d);
                        cases++;
                    }
    }
    /* Segmented sorts on device arrays: each type once, rotating through
     * directions, value sizes and scratch; a long enough array for every
     * class (large segments are 20000 keys at most). */
    for (t = PS_U8; t <= T_TYPE_LAST; t++) {
        size_t vs = (size_t[]){ 0, 4, 8 }[t % 3];
        if (max_n >= 2049)
            segments((ps_type)t, t % 2 ? PS_DESCENDING : 0, vs,
                     t == PS_U32 ? 30000 : 3000, (t / 2) % 2);
    }
    if (max_n >= 2049)
        segments_wide();
    segments_refused();
    overlaps();
    /* The top-k's own kernels (numbering, gather) are the same whatever
     * sort runs between them, and both sorts have their cases above: the
     * top-k runs once, on the default path (gpu-fake.sh sets
     * PS_GPU_FAKE_TOPK=0 for the portable run), which saves CI a minute
     * under ASan. */
    if (max_n >= 2049 && !(getenv("PS_GPU_FAKE_TOPK") != NULL
                           && strcmp(getenv("PS_GPU_FAKE_TOPK"), "0") == 0)) {
        printf("ps_test_gpu_fake: %d device top-k calls passed\n",
               t_topk_device("cuda (stand-in)", fake_topk));
        topk_refused();
        {
            /* Up to 1000 records: the stand-in's work-items made the
             * 70000-record cases most of this test's time (minutes),
             * and pocl runs them with the same kernels (opencl-api.sh). */
            t_rec_dev rd = { fake_sort_records, fake_argsort_records,
                             fake_argsort_columns, 1000 };
            printf("ps_test_gpu_fake: %ld device records calls passed\n",
                   t_records_device("cuda (stand-in)", &rd));
        }
        records_refused();
    }
    forked_child();
    printf("ps_test_gpu_fake: %d cases, segmented sorts, top-k and the forked "
           "child passed\n", cases);
    return 0;
}
