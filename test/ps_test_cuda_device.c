/*
 * ps_test_cuda_device - the CUDA device API (portsort_cuda.h) on a real
 * GPU: every key type x direction x operation (keys, pairs with 4- and
 * 8-byte values, argsort) x size x dataset, sorted in device memory on a
 * stream of our own, with scratch from scratch_size() and with scratch
 * left to the library, compared bit for bit with the tests' oracle (a
 * stable merge sort sharing no code with the library); segmented sorts
 * (ps_cuda_sort_segments) with offsets in device memory.  Then the
 * argument errors, which must leave the device arrays untouched.  The
 * device top-k (ps_cuda_topk, _segments) runs the shared cases of
 * ps_test_topkdev.c with every array in device memory, and the device
 * records sorts (ps_cuda_sort_records, _argsort_records, _argsort_columns)
 * those of ps_test_recdev.c.
 *
 * PS_TEST_CUDA_DEVICE=d runs everything on device d (cudaSetDevice first):
 * on a machine with two GPUs, a library that launched on another device
 * than the caller's would fault on these buffers, and the calling thread's
 * device must still be d at the end.
 *
 * Built only with --with-cuda; exits 77 where CUDA cannot run (no driver,
 * no device), which is every CI machine.  bench/gpu-run.sh runs it on a
 * lent GPU, also under compute-sanitizer (PS_TEST_MAX_N caps the sizes).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "portsort.h"
#include "portsort_cuda.h"
#include "ps_test_recdev.h"
#include "ps_test_topkdev.h"
#include "ps_test_util.h"

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) \
    t_fail("%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); } while (0)

enum { OP_KEYS, OP_PAIRS4, OP_PAIRS8, OP_ARGSORT, OP_COUNT };
static const char *opnames[] = { "keys", "pairs4", "pairs8", "argsort" };

static void fill(unsigned char *k, size_t n, size_t kb, int dataset, uint64_t *rng)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t r = t_rand(rng);
        if (dataset == 1)
            r %= 7;             /* few distinct: long runs of equal keys */
        else if (dataset == 2)
            r = 42;             /* all equal: every pass constant */
        else if (dataset == 3)
            r &= 0xF0F0;        /* some digits constant, others not */
        memcpy(k + i * kb, &r, kb);
    }
}

static void one(cudaStream_t s, ps_type type, unsigned flags, int op, size_t n,
                int dataset, int own_scratch)
{
    size_t kb = ps_type_size(type), vb = op == OP_PAIRS4 ? 4 : 8, i, bytes = 0;
    unsigned char *keys = malloc(n * kb + 1), *out = malloc(n * kb + 1);
    unsigned char *vals = malloc(n * 8 + 1), *vout = malloc(n * 8 + 1);
    size_t *perm = malloc((n + 1) * sizeof *perm);
    uint64_t rng = 0x1234 + n * 31 + type * 7 + flags + dataset * 1000;
    void *dk = NULL, *dv = NULL, *scratch = NULL;
    ps_gpu_op gop = op == OP_KEYS ? PS_GPU_SORT_KEYS
                  : op == OP_ARGSORT ? PS_GPU_ARGSORT : PS_GPU_SORT_PAIRS;
    int st;

    if (!keys || !out || !vals || !vout || !perm)
        t_fail("out of host memory");
    fill(keys, n, kb, dataset, &rng);
    for (i = 0; i < n; i++) {
        uint64_t v = i * 2654435761u;
        memcpy(vals + i * vb, &v, vb);
    }
    CK(cudaMalloc(&dk, n * kb + 1));
    CK(cudaMalloc(&dv, n * 8 + 1));
    CK(cudaMemcpy(dk, keys, n * kb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dv, vals, n * vb, cudaMemcpyHostToDevice));
    if (own_scratch) {
        st = ps_cuda_scratch_size(gop, n, type, vb, &bytes);
        if (st != PS_OK)
            t_fail("scratch_size: %s", ps_error_detail());
        if (bytes > 0)
            CK(cudaMalloc(&scratch, bytes));
    }
    switch (op) {
    case OP_KEYS:
        st = ps_cuda_sort_keys(dk, n, type, flags, scratch, bytes, s);
        break;
    case OP_ARGSORT:
        st = ps_cuda_argsort(dk, (size_t *)dv, n, type, flags, scratch, bytes, s);
        break;
    default:
        st = ps_cuda_sort_pairs(dk, dv, vb, n, type, flags, scratch, bytes, s);
    }
    if (st != PS_OK)
        t_fail("%s %s n=%zu: %s: %s", opnames[op], t_type_name(type), n,
               ps_strerror(st), ps_error_detail());
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(out, dk, n * kb, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(vout, dv, n * (op == OP_ARGSORT ? 8 : vb), cudaMemcpyDeviceToHost));

    t_oracle_perm(keys, n, type, flags, perm);
    for (i = 0; i < n; i++) {
        const char *what = NULL;
        if (op == OP_ARGSORT) {
            uint64_t p;
            memcpy(&p, vout + i * 8, 8);
            if (p != perm[i])
                what = "permutation";
            if (memcmp(out + i * kb, keys + i * kb, kb) != 0)
                what = "keys changed by argsort";
        } else {
            if (memcmp(out + i * kb, keys + perm[i] * kb, kb) != 0)
                what = "key";
            if (op != OP_KEYS && memcmp(vout + i * vb, vals + perm[i] * vb, vb) != 0)
                what = "value";
        }
        if (what != NULL)
            t_fail("%s %s %s n=%zu dataset=%d scratch=%s: wrong %s at %zu",
                   opnames[op], t_type_name(type), flags ? "desc" : "asc", n,
                   dataset, own_scratch ? "given" : "library", what, i);
    }
    cudaFree(dk);
    cudaFree(dv);
    cudaFree(scratch);
    free(keys); free(out); free(vals); free(vout); free(perm);
}

/* ps_cuda_sort_segments: offsets in device memory cutting n keys into
 * every size class (t_mixed_offsets), keys or pairs, scratch given or
 * not; each segment checked against the oracle. */
static void segments(cudaStream_t s, ps_type type, unsigned flags, size_t vs, size_t n,
                     int own_scratch)
{
    size_t kb = ps_type_size(type), ns, i, bytes = 0, *offs;
    unsigned char *keys = malloc(n * kb + 1), *out = malloc(n * kb + 1);
    unsigned char *vals = malloc(n * 8 + 1), *vout = malloc(n * 8 + 1);
    uint64_t rng = n + type * 17 + vs;
    void *dk = NULL, *dv = NULL, *doff = NULL, *scratch = NULL;
    char what[96];
    int st;

    if (!keys || !out || !vals || !vout)
        t_fail("out of host memory");
    if (n > (1u << 21)) {
        /* 7 keys, one segment past the batched limit (2^20), the rest */
        ns = 3;
        offs = malloc(4 * sizeof *offs);
        offs[0] = 0, offs[1] = 7, offs[2] = 7 + (1u << 20) + 3, offs[3] = n;
    } else {
        ns = t_mixed_offsets(n, &rng, &offs);
    }
    for (i = 0; i < n * kb; i++)
        keys[i] = (unsigned char)(t_rand(&rng) & (i % 3 ? 0xff : 0x81));
    for (i = 0; i < n * vs; i++)
        vals[i] = (unsigned char)t_rand(&rng);
    CK(cudaMalloc(&dk, n * kb + 1));
    CK(cudaMalloc(&dv, n * 8 + 1));
    CK(cudaMalloc(&doff, (ns + 1) * sizeof *offs));
    CK(cudaMemcpy(dk, keys, n * kb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dv, vals, n * vs, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(doff, offs, (ns + 1) * sizeof *offs, cudaMemcpyHostToDevice));
    if (own_scratch) {
        if (ps_cuda_scratch_size(PS_GPU_SORT_SEGMENTS, n, type, vs, &bytes) != PS_OK)
            t_fail("scratch_size(PS_GPU_SORT_SEGMENTS): %s", ps_error_detail());
        CK(cudaMalloc(&scratch, bytes ? bytes : 1));
    }
    st = ps_cuda_sort_segments(dk, vs ? dv : NULL, vs, n, doff, ns, type, flags,
                               scratch, bytes, s);
    snprintf(what, sizeof what, "sort_segments %s %s vs=%zu n=%zu", t_type_name(type),
             flags ? "desc" : "asc", vs, n);
    if (st != PS_OK)
        t_fail("%s: %s", what, ps_error_detail());
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(out, dk, n * kb, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(vout, dv, n * vs, cudaMemcpyDeviceToHost));
    t_check_segments(what, keys, out, vals, vout, vs, offs, ns, type, flags);
    cudaFree(dk); cudaFree(dv); cudaFree(doff); cudaFree(scratch);
    free(keys); free(out); free(vals); free(vout); free(offs);
}

/* Offsets found invalid on the device are refused before any key moves. */
static void segments_refused(cudaStream_t s)
{
    uint32_t h[300], back[300];
    size_t bad[] = { 0, 200, 100 }, late[] = { 0, 100, 301 }, i;
    void *dk, *db, *dl;
    for (i = 0; i < 300; i++)
        h[i] = (uint32_t)(300 - i);
    CK(cudaMalloc(&dk, sizeof h));
    CK(cudaMalloc(&db, sizeof bad));
    CK(cudaMalloc(&dl, sizeof late));
    CK(cudaMemcpy(dk, h, sizeof h, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, bad, sizeof bad, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dl, late, sizeof late, cudaMemcpyHostToDevice));
    if (ps_cuda_sort_segments(dk, NULL, 0, 300, db, 2, PS_U32, 0, NULL, 0, s)
            != PS_ERR_INVALID_ARG
        || ps_cuda_sort_segments(dk, NULL, 0, 300, dl, 2, PS_U32, 0, NULL, 0, s)
            != PS_ERR_INVALID_ARG
        || ps_cuda_sort_segments(dk, NULL, 0, 300, NULL, 2, PS_U32, 0, NULL, 0, s)
            != PS_ERR_INVALID_ARG)
        t_fail("sort_segments: invalid offsets accepted");
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(back, dk, sizeof back, cudaMemcpyDeviceToHost));
    if (memcmp(back, h, sizeof h) != 0)
        t_fail("sort_segments: a refused call changed the keys");
    cudaFree(dk); cudaFree(db); cudaFree(dl);
}

/* Argument errors are found before anything is enqueued. */
static void errors(cudaStream_t s)
{
    uint32_t h[3000], back[3000];
    void *dk;
    size_t bytes, i;
    for (i = 0; i < 3000; i++)
        h[i] = (uint32_t)(3000 - i);
    CK(cudaMalloc(&dk, sizeof h));
    CK(cudaMemcpy(dk, h, sizeof h, cudaMemcpyHostToDevice));
    if (ps_cuda_scratch_size(PS_GPU_SORT_KEYS, 3000, PS_U32, 0, &bytes) != PS_OK || bytes == 0)
        t_fail("scratch_size for 3000 u32 keys: %zu", bytes);
    if (ps_cuda_sort_keys(dk, 3000, PS_U32, 0, dk, bytes - 1, s) != PS_ERR_INVALID_ARG)
        t_fail("scratch one byte short accepted");
    if (ps_cuda_sort_pairs(dk, dk, 12, 3000, PS_U32, 0, NULL, 0, s) != PS_ERR_INVALID_ARG)
        t_fail("value_size 12 accepted");
    if (ps_cuda_sort_keys(dk, 3000, (ps_type)0, 0, NULL, 0, s) != PS_ERR_INVALID_ARG
        || ps_cuda_sort_keys(dk, 3000, PS_U32, 4, NULL, 0, s) != PS_ERR_INVALID_ARG
        || ps_cuda_sort_keys(NULL, 3000, PS_U32, 0, NULL, 0, s) != PS_ERR_INVALID_ARG)
        t_fail("bad type, flags or pointer accepted");
    if (sizeof(size_t) > 4
        && ps_cuda_sort_keys(dk, (size_t)UINT32_MAX + 1, PS_U8, 0, NULL, 0, s) != PS_ERR_TOO_LARGE)
        t_fail("n = 2^32 not refused as too large");
    if (ps_cuda_sort_keys(dk, 1, PS_U32, 0, NULL, 0, s) != PS_OK
        || ps_cuda_sort_keys(dk, 0, PS_U32, 0, NULL, 0, s) != PS_OK)
        t_fail("n < 2 is not a no-op success");
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(back, dk, sizeof back, cudaMemcpyDeviceToHost));
    if (memcmp(back, h, sizeof h) != 0)
        t_fail("a refused call changed the keys");
    cudaFree(dk);
}

/* Copies n bytes of host memory into a new device buffer (one byte more,
 * so that 0 bytes still allocate). */
static void *to_dev(const void *h, size_t bytes)
{
    void *d = NULL;
    CK(cudaMalloc(&d, bytes + 1));
    if (h != NULL && bytes > 0)
        CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    return d;
}

/* ps_cuda_topk and ps_cuda_topk_segments for the shared cases
 * (ps_test_topkdev.c): inputs, offsets and outputs copied to the device
 * (the outputs with the caller's sentinels in them), the call on our
 * stream, every other call with the caller's scratch, then the outputs
 * read back and the inputs checked unchanged on the device. */
static cudaStream_t topk_stream;
static int cuda_topk(const void *keys, const void *vals, size_t vs, size_t n,
                     const size_t *offs, size_t nseg, size_t k, void *okeys,
                     void *ovals, size_t *oidx, size_t slots, ps_type t,
                     unsigned flags)
{
    static unsigned turn;
    size_t kb = ps_type_size(t), bytes = 0;
    void *dk = to_dev(keys, n * kb), *dv = vs ? to_dev(vals, n * vs) : NULL;
    void *doffs = offs ? to_dev(offs, (nseg + 1) * sizeof *offs) : NULL;
    void *dok = to_dev(okeys, slots * kb), *dov = ovals ? to_dev(ovals, slots * vs) : NULL;
    void *doi = oidx ? to_dev(oidx, slots * sizeof *oidx) : NULL, *scratch = NULL;
    unsigned char *back = malloc(n * (kb > vs ? kb : vs) + 1);
    int st;

    if (back == NULL)
        t_fail("out of host memory");
    if (turn++ % 2) {
        if (ps_cuda_scratch_size(offs ? PS_GPU_TOPK_SEGMENTS : PS_GPU_TOPK, n, t, vs,
                                 &bytes) != PS_OK)
            t_fail("topk scratch_size: %s", ps_error_detail());
        CK(cudaMalloc(&scratch, bytes + 1));
    }
    st = offs ? ps_cuda_topk_segments(dk, dv, vs, n, doffs, nseg, k, dok, dov, doi, t,
                                      flags, scratch, bytes, topk_stream)
              : ps_cuda_topk(dk, dv, vs, n, k, dok, dov, doi, t, flags, scratch, bytes,
                             topk_stream);
    CK(cudaStreamSynchronize(topk_stream));
    CK(cudaGetLastError());
    CK(cudaMemcpy(okeys, dok, slots * kb, cudaMemcpyDeviceToHost));
    if (ovals)
        CK(cudaMemcpy(ovals, dov, slots * vs, cudaMemcpyDeviceToHost));
    if (oidx)
        CK(cudaMemcpy(oidx, doi, slots * sizeof *oidx, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(back, dk, n * kb, cudaMemcpyDeviceToHost));
    if (n > 0 && memcmp(back, keys, n * kb) != 0)
        t_fail("device topk n=%zu k=%zu: the keys changed", n, k);
    if (vs) {
        CK(cudaMemcpy(back, dv, n * vs, cudaMemcpyDeviceToHost));
        if (n > 0 && memcmp(back, vals, n * vs) != 0)
            t_fail("device topk n=%zu k=%zu: the values changed", n, k);
    }
    cudaFree(dk); cudaFree(dv); cudaFree(doffs); cudaFree(dok); cudaFree(dov);
    cudaFree(doi); cudaFree(scratch);
    free(back);
    return st;
}

/* The device records sorts for the shared cases (ps_test_recdev.c): the
 * records, columns and perm copied to the device, the call on our stream,
 * every other call with the caller's scratch, then records and perm read
 * back whatever the status. */
static unsigned rec_turn;

static void *rec_scratch(size_t record_size, size_t n, size_t *bytes)
{
    void *d = NULL;
    *bytes = 0;
    if (rec_turn++ % 2 == 0)
        return NULL;
    if (ps_cuda_records_scratch_size(record_size, n, bytes) != PS_OK)
        t_fail("records_scratch_size: %s", ps_error_detail());
    CK(cudaMalloc(&d, *bytes + 1));
    return d;
}

static int rec_done(int st, void *records, void *dr, size_t rbytes, size_t *perm,
                    void *dp, size_t n, void *scratch)
{
    CK(cudaStreamSynchronize(topk_stream));
    CK(cudaGetLastError());
    if (records != NULL && rbytes > 0)
        CK(cudaMemcpy(records, dr, rbytes, cudaMemcpyDeviceToHost));
    if (perm != NULL && n > 0)
        CK(cudaMemcpy(perm, dp, n * sizeof *perm, cudaMemcpyDeviceToHost));
    cudaFree(dr);
    cudaFree(dp);
    cudaFree(scratch);
    return st;
}

static int cuda_sort_records(void *records, size_t record_size, size_t n,
                             const ps_field *fields, size_t num_fields)
{
    size_t bytes, rb = n * record_size;
    void *scratch = rec_scratch(record_size, n, &bytes), *dr = to_dev(records, rb);
    int st = ps_cuda_sort_records(dr, record_size, n, fields, num_fields, scratch,
                                  bytes, topk_stream);
    return rec_done(st, records, dr, rb, NULL, NULL, n, scratch);
}

static int cuda_argsort_records(void *records, size_t record_size, size_t n,
                                const ps_field *fields, size_t num_fields, size_t *perm)
{
    size_t bytes, rb = n * record_size;
    void *scratch = rec_scratch(0, n, &bytes), *dr = to_dev(records, rb);
    void *dp = to_dev(perm, n * sizeof *perm);
    int st = ps_cuda_argsort_records(dr, record_size, n, fields, num_fields, dp,
                                     scratch, bytes, topk_stream);
    return rec_done(st, records, dr, rb, perm, dp, n, scratch);
}

static int cuda_argsort_columns(void *const *columns, const ps_type *types,
                                const unsigned *flags, size_t num_columns, size_t n,
                                size_t *perm)
{
    void *dc[8] = { NULL };
    size_t bytes, c;
    void *scratch = rec_scratch(0, n, &bytes), *dp = to_dev(perm, n * sizeof *perm);
    int st;
    for (c = 0; c < num_columns && c < 8; c++) {
        int known = types[c] >= PS_U8 && types[c] <= T_TYPE_LAST;
        dc[c] = to_dev(columns[c], n * (known ? ps_type_size(types[c]) : 1));
    }
    st = ps_cuda_argsort_columns((const void *const *)dc, types, flags, num_columns, n,
                                 dp, scratch, bytes, topk_stream);
    for (c = 0; c < 8; c++)
        cudaFree(dc[c]);
    return rec_done(st, NULL, NULL, 0, perm, dp, n, scratch);
}

int main(void)
{
    static const size_t sizes[] = { 0, 1, 2, 3, 255, 256, 511, 512, 513, 1023,
        1024, 1025, 2047, 2048, 2049, 5000, 65537, 300001, (1u << 20) + 3,
        (1u << 21) + 1 };
    const char *cap = getenv("PS_TEST_MAX_N"), *dev = getenv("PS_TEST_CUDA_DEVICE");
    size_t max_n = cap != NULL ? strtoull(cap, NULL, 10) : (size_t)-1, si;
    cudaStream_t s;
    int t, f, op, d, cases = 0, want = dev != NULL ? atoi(dev) : -1, cur = -1;

    if (want >= 0 && cudaSetDevice(want) != cudaSuccess) {
        printf("SKIP: no CUDA device %d\n", want);
        return PS_TEST_SKIP;
    }
    if (ps_cuda_api_get() == NULL) {
        printf("SKIP: CUDA device API unavailable: %s\n", ps_error_detail());
        return PS_TEST_SKIP;
    }
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    errors(s);
    topk_stream = s;
    printf("top-k: %d calls passed\n", t_topk_device("cuda", cuda_topk));
    {
        t_rec_dev rd = { cuda_sort_records, cuda_argsort_records, cuda_argsort_columns,
                         0 };
        printf("records: %ld calls passed\n", t_records_device("cuda", &rd));
    }
    fflush(stdout);
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        if (sizes[si] > max_n)
            continue;
        for (t = PS_U8; t <= T_TYPE_LAST; t++)
            for (f = 0; f < 2; f++)
                for (op = 0; op < OP_COUNT; op++)
                    for (d = 0; d < 4; d++) {
                        /* Large sizes: fewer combinations, same coverage
                         * of the code paths. */
                        if (sizes[si] > 100000 && d != 0 && (t + op + d) % 3 != 0)
                            continue;
                        one(s, (ps_type)t, f ? PS_DESCENDING : 0, op, sizes[si], d,
                            (d + op) % 2 == 0);
                        cases++;
                    }
        /* One line per size, so that a run stopped by a time limit shows
         * how far it came (slow host oracle or a hang at one size). */
        printf("n = %zu: %d cases passed so far\n", sizes[si], cases);
        fflush(stdout);
    }
    /* Segmented sorts: every type, rotating direction, values and scratch;
     * 2^21 + 5 keys once, with a segment past the batched limit (2^20). */
    for (t = PS_U8; t <= T_TYPE_LAST; t++)
        if (max_n >= 300000)
            segments(s, (ps_type)t, t % 2 ? PS_DESCENDING : 0,
                     (size_t[]){ 0, 4, 8 }[t % 3], 300000, t % 4 < 2);
    if (max_n >= (1u << 21) + 5)
        segments(s, PS_F32, 0, 4, (1u << 21) + 5, 1);
    segments_refused(s);
    CK(cudaStreamDestroy(s));
    CK(cudaGetDevice(&cur));
    if (want >= 0 && cur != want)
        t_fail("the calling thread's device is %d after the sorts, was set to %d",
               cur, want);
    printf("ps_test_cuda_device: %d cases passed%s\n", cases,
           want >= 0 ? " on the device PS_TEST_CUDA_DEVICE names" : "");
    return 0;
}
