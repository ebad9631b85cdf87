/*
 * ps_gpu_api.c - the device API of the CUDA and HIP backends (the table
 * portsort_cuda.h and portsort_hip.h wrap): sorts of device arrays enqueued
 * on the caller's stream, never waiting for the device when the caller
 * gives scratch (and, on CUDA, even when it does not).
 *
 * The kernels run on the device current in the calling thread; nothing
 * here changes it.  Every pass runs (no histogram read back to skip the
 * constant ones), because skipping needs the host to see the counts, which
 * would make the call wait.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "ps_gpu_internal.h"
#include "ps_recplan.h"

/* Set by init, which ps_device_api() always runs before handing the table
 * out. */
static const ps_host *api_host;
static pid_t api_pid;

void ps_gpu_api_set_host(const ps_host *host)
{
    api_host = host;
    api_pid = getpid();
}

/* Neither runtime survives fork(): a child that inherits an initialised
 * context hangs or fails in undefined ways on its first call.  So a child
 * is refused with a status, which is what the tests (ps_test_fork) and the
 * library's contract ask of a backend that cannot work there. */
int ps_gpu_forked(const ps_host *host)
{
    if (getpid() == api_pid)
        return 0;
    host->fail(PS_GPU_NAME ": initialised in a parent process; the "
               PS_GPU_UPPER " runtime cannot be used in a forked child");
    return 1;
}

static int check(const char *fn, size_t n, ps_type type, unsigned flags,
                 size_t value_size)
{
    if (!ps_type_valid(type)) {
        api_host->fail(PS_GPU_NAME " %s: unknown key type %d", fn, (int)type);
        return PS_ERR_INVALID_ARG;
    }
    if (flags & ~PS_DESCENDING) {
        api_host->fail(PS_GPU_NAME " %s: unknown flags 0x%x", fn,
                       flags & ~PS_DESCENDING);
        return PS_ERR_INVALID_ARG;
    }
    if (value_size != 0 && value_size != 4 && value_size != 8) {
        api_host->fail(PS_GPU_NAME " %s: value_size %zu (the device API moves "
                       "values of 4 or 8 bytes)", fn, value_size);
        return PS_ERR_INVALID_ARG;
    }
    if (n > UINT32_MAX) {
        api_host->fail(PS_GPU_NAME " %s: n = %zu is beyond the 2^32 - 1 keys "
                       "the kernels count", fn, n);
        return PS_ERR_TOO_LARGE;
    }
    return PS_OK;
}

/* Scratch of each operation in *bytes: argsort sorts a copy of the keys
 * (at offset 0) with 8-byte indices as values, its sort's scratch after
 * them (at ps_dev_align(n * key bytes)). */
static int need(ps_gpu_op op, size_t n, ps_type type, size_t value_size,
                size_t *bytes)
{
    unsigned kb = ps_type_bytes(type);
    size_t end = 0, sort = 0;
    int st;
    *bytes = 0;
    if (op == PS_GPU_TOPK || op == PS_GPU_TOPK_SEGMENTS) {
        /* The device plan's, for any k >= 1 (k does not change it). */
        ps_dev_topk_plan pl;
        ps_dev_tune t = ps_gpu_tune(ps_gpu_kernels_for(kb, 8));
        st = ps_dev_plan_topk(&pl, &t, n, 1, kb, op == PS_GPU_TOPK_SEGMENTS, 1,
                              api_host);
        if (st == PS_OK)
            *bytes = pl.bytes;
        return st;
    }
    if (n < 2)
        return PS_OK;
    if (op == PS_GPU_ARGSORT)
        ps_dev_place(&end, n * kb);
    st = ps_gpu_scratch(api_host, n, kb,
                        op == PS_GPU_ARGSORT ? 8
                        : op == PS_GPU_SORT_KEYS ? 0 : (unsigned)value_size,
                        op == PS_GPU_SORT_SEGMENTS, &sort);
    if (st == PS_OK)
        ps_dev_place(&end, sort);
    *bytes = end;
    return st;
}

static int api_scratch_size(ps_gpu_op op, size_t n, ps_type type,
                            size_t value_size, size_t *bytes)
{
    int st;
    if (bytes == NULL || op < PS_GPU_SORT_KEYS || op > PS_GPU_TOPK_SEGMENTS) {
        api_host->fail(PS_GPU_NAME " scratch_size: %s",
                       bytes == NULL ? "bytes is NULL" : "unknown operation");
        return PS_ERR_INVALID_ARG;
    }
    if (op == PS_GPU_SORT_PAIRS && value_size != 4 && value_size != 8) {
        api_host->fail(PS_GPU_NAME " scratch_size: value_size %zu (the device "
                       "API moves values of 4 or 8 bytes)", value_size);
        return PS_ERR_INVALID_ARG;
    }
    st = check("scratch_size", n, type, 0,
               op >= PS_GPU_SORT_SEGMENTS ? value_size : 0);
    if (st == PS_OK)
        st = need(op, n, type, value_size, bytes);
    return st;
}

/* Scratch the caller did not give: stream-ordered on CUDA, so the call
 * stays asynchronous.  Where the device has no memory pools (some vGPU and
 * WSL setups report cudaDevAttrMemoryPoolsSupported = 0, and
 * cudaMallocAsync then fails), where it reports pools but the pool cannot
 * grow (its release threshold, or a driver that refuses the pools it
 * reports: a sort that plain allocation can serve must not fail there),
 * and on HIP, whose stream-ordered allocator is too new in the ROCm
 * releases distributions ship, the scratch is allocated plainly and freed
 * after waiting for the stream (*pooled = 0).  The device asked about is
 * the calling thread's current one, the one the kernels run on.
 * cudaGetLastError returns and resets the thread's last error: it is
 * called only after a call of ours failed, so that an error the
 * application left pending is still there when the call returns. */
static int scratch_get(size_t bytes, ps_rt_stream s, void **p, int *pooled)
{
    ps_rt_err e;
#if defined(PS_GPU_HIP)
    (void)s;
    *pooled = 0;
    e = hipMalloc(p, bytes);
#else
    int dev = 0, pools = 0;
    if (RT(GetDevice)(&dev) != RT(Success)
        || RT(DeviceGetAttribute)(&pools, RT(DevAttrMemoryPoolsSupported), dev)
               != RT(Success)) {
        RT(GetLastError)();
        pools = 0;
    }
    e = pools != 0 ? RT(MallocAsync)(p, bytes, s) : RT(ErrorNotSupported);
    *pooled = e == RT(Success);
    if (!*pooled) {
        if (pools != 0)
            RT(GetLastError)();
        e = RT(Malloc)(p, bytes);
    }
#endif
    if (e != RT(Success)) {
        RT(GetLastError)();
        api_host->fail(PS_GPU_NAME ": cannot allocate %zu bytes of scratch: %s",
                       bytes, RT(GetErrorString)(e));
        return PS_RT_OOM(e) ? PS_ERR_DEVICE_MEMORY : PS_ERR_DEVICE;
    }
    return PS_OK;
}

static void scratch_put(void *p, ps_rt_stream s, int pooled)
{
#if defined(PS_GPU_HIP)
    (void)pooled;
    hipStreamSynchronize(s);
    hipFree(p);
#else
    if (pooled) {
        RT(FreeAsync)(p, s);
    } else {
        RT(StreamSynchronize)(s);
        RT(Free)(p);
    }
#endif
}

/* Whether this process and the caller's current device can run the
 * kernels at all. */
static int usable(void)
{
    int dev;
    /* A table fetched before fork() bypasses the core's check: refuse here
     * with the same status (portsort.h, fork()). */
    if (ps_gpu_forked(api_host))
        return PS_ERR_BACKEND_UNAVAILABLE;
    /* After a kernel fault the context is gone: refuse before touching
     * the runtime.  Then the kernels must have an image for the device
     * the caller works on, which need not be the one init checked. */
    if (ps_gpu_lost(api_host))
        return PS_ERR_DEVICE;
    if (RT(GetDevice)(&dev) != RT(Success)) {
        RT(GetLastError)();
        dev = -1;
    }
    return ps_gpu_no_image(api_host, dev) ? PS_ERR_DEVICE : PS_OK;
}

/* PS_OK when none of the caller's n device arrays shares a byte with
 * another.  With unified addressing (every 64-bit CUDA and HIP platform)
 * device pointers of one process are addresses in one space, so the
 * host-array check applies as it is. */
static int separate(const char *fn, const ps_span *s, size_t n)
{
    char name[64];
    snprintf(name, sizeof name, PS_GPU_NAME " %s", fn);
    return ps_spans_check(name, s, n, api_host->fail);
}

/* Scratch for `bytes`: the caller's, checked, or our own (*own). */
static int scratch_for(const char *fn, size_t bytes, ps_rt_stream s,
                       void **scratch, size_t scratch_bytes, void **own,
                       int *pooled)
{
    int st;
    *own = NULL;
    if (*scratch == NULL && bytes > 0) {
        st = scratch_get(bytes, s, own, pooled);
        if (st == PS_OK)
            *scratch = *own;
        return st;
    }
    if (scratch_bytes < bytes) {
        api_host->fail(PS_GPU_NAME " %s: scratch of %zu bytes, %zu needed "
                       "(scratch_size)", fn, scratch_bytes, bytes);
        return PS_ERR_INVALID_ARG;
    }
    return PS_OK;
}

/* The common path: checks, scratch, then the argsort preamble (a copy of
 * the keys and the identity permutation) or nothing, then the sort. */
static int run(const char *fn, ps_gpu_op op, const void *keys, void *vals,
               size_t value_size, size_t n, ps_type type, unsigned flags,
               void *scratch, size_t scratch_bytes, void *stream)
{
    ps_rt_stream s = (ps_rt_stream)stream;
    size_t bytes;
    void *own = NULL;
    int pooled = 0;
    ps_gpu_job job;
    int st = check(fn, n, type, flags, value_size);

    if (st != PS_OK || n < 2)
        return st;
    st = usable();
    if (st != PS_OK)
        return st;
    if (keys == NULL || (op != PS_GPU_SORT_KEYS && vals == NULL)) {
        api_host->fail(PS_GPU_NAME " %s: %s is NULL with n = %zu", fn,
                       keys == NULL ? "d_keys" : op == PS_GPU_ARGSORT ? "d_perm"
                                                                      : "d_values", n);
        return PS_ERR_INVALID_ARG;
    }
    {
        size_t vb = op == PS_GPU_SORT_KEYS ? 0
                  : op == PS_GPU_ARGSORT ? sizeof(size_t) : value_size;
        ps_span sp[3] = {
            ps_span_of("d_keys", keys, n * ps_type_bytes(type)),
            ps_span_of(op == PS_GPU_ARGSORT ? "d_perm" : "d_values", vals, n * vb),
            ps_span_of("d_scratch", scratch, scratch != NULL ? scratch_bytes : 0),
        };
        st = separate(fn, sp, 3);
        if (st != PS_OK)
            return st;
    }
    st = need(op, n, type, value_size, &bytes);
    if (st == PS_OK)
        st = scratch_for(fn, bytes, s, &scratch, scratch_bytes, &own, &pooled);
    if (st != PS_OK)
        return st;
    job.keys = (void *)keys;
    job.vals = vals;
    job.val_bytes = (unsigned)value_size;
    job.n = n;
    job.type = type;
    job.flags = flags;
    job.scratch = scratch;
    job.stream = s;
    job.skip_constant = 0;
    if (op == PS_GPU_ARGSORT) {
        unsigned long long n64 = n;
        void *args[] = { &vals, &n64 };
        unsigned grid = (unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096);
        dim3 g = { grid, 1, 1 }, b = { 256, 1, 1 };
        size_t kbytes = n * ps_type_bytes(type);
        ps_rt_err e = RT(MemcpyAsync)(scratch, keys, kbytes,
                                      RT(MemcpyDeviceToDevice), s);
        if (e == RT(Success))
            e = RT(LaunchKernel)(ps_gpu_iota64_kernel, g, b, args, 0, s);
        if (e != RT(Success))
            st = ps_gpu_status(api_host, e, "argsort: copy of the keys");
        job.keys = scratch;
        job.val_bytes = 8;
        job.scratch = (char *)scratch + ps_dev_align(kbytes);
    }
    if (st == PS_OK)
        st = ps_gpu_enqueue(api_host, &job);
    if (own != NULL)
        scratch_put(own, s, pooled);
    return st;
}

static int api_sort_keys(void *d_keys, size_t n, ps_type type, unsigned flags,
                         void *d_scratch, size_t scratch_bytes, void *stream)
{
    return run("sort_keys", PS_GPU_SORT_KEYS, d_keys, NULL, 0, n, type, flags,
               d_scratch, scratch_bytes, stream);
}

static int api_sort_pairs(void *d_keys, void *d_values, size_t value_size,
                          size_t n, ps_type type, unsigned flags,
                          void *d_scratch, size_t scratch_bytes, void *stream)
{
    if (value_size != 4 && value_size != 8) {
        api_host->fail(PS_GPU_NAME " sort_pairs: value_size %zu (the device "
                       "API moves values of 4 or 8 bytes)", value_size);
        return PS_ERR_INVALID_ARG;
    }
    return run("sort_pairs", PS_GPU_SORT_PAIRS, d_keys, d_values, value_size, n,
               type, flags, d_scratch, scratch_bytes, stream);
}

static int api_argsort(const void *d_keys, size_t *d_perm, size_t n,
                       ps_type type, unsigned flags, void *d_scratch,
                       size_t scratch_bytes, void *stream)
{
    return run("argsort", PS_GPU_ARGSORT, d_keys, d_perm, 0, n, type, flags,
               d_scratch, scratch_bytes, stream);
}

static int api_sort_segments(void *d_keys, void *d_values, size_t value_size,
                             size_t n, const size_t *d_offsets,
                             size_t num_segments, ps_type type, unsigned flags,
                             void *d_scratch, size_t scratch_bytes, void *stream)
{
    static const char fn[] = "sort_segments";
    ps_rt_stream s = (ps_rt_stream)stream;
    size_t bytes;
    void *own = NULL;
    int pooled = 0;
    ps_gpu_segjob job;
    int st = check(fn, n, type, flags, value_size);

    if (st == PS_OK && (d_values == NULL) != (value_size == 0)) {
        api_host->fail(PS_GPU_NAME " %s: d_values %s with value_size %zu (NULL "
                       "and 0 sort keys only)", fn, d_values ? "given" : "NULL",
                       value_size);
        st = PS_ERR_INVALID_ARG;
    }
    if (st == PS_OK && num_segments > UINT32_MAX) {
        api_host->fail(PS_GPU_NAME " %s: %zu segments are beyond the 2^32 - 1 "
                       "the kernels count", fn, num_segments);
        st = PS_ERR_TOO_LARGE;
    }
    if (st != PS_OK || n < 2)
        return st;
    st = usable();
    if (st != PS_OK)
        return st;
    if (d_keys == NULL || d_offsets == NULL || num_segments == 0) {
        api_host->fail(PS_GPU_NAME " %s: %s with n = %zu", fn,
                       d_keys == NULL ? "d_keys is NULL"
                       : d_offsets == NULL ? "d_offsets is NULL"
                                           : "no segments (offsets must reach n)", n);
        return PS_ERR_INVALID_ARG;
    }
    {
        ps_span sp[4] = {
            ps_span_of("d_keys", d_keys, n * ps_type_bytes(type)),
            ps_span_of("d_values", d_values, d_values != NULL ? n * value_size : 0),
            ps_span_of("d_offsets", d_offsets, (num_segments + 1) * sizeof(size_t)),
            ps_span_of("d_scratch", d_scratch, d_scratch != NULL ? scratch_bytes : 0),
        };
        st = separate(fn, sp, 4);
        if (st != PS_OK)
            return st;
    }
    st = need(PS_GPU_SORT_SEGMENTS, n, type, value_size, &bytes);
    if (st == PS_OK)
        st = scratch_for(fn, bytes, s, &d_scratch, scratch_bytes, &own, &pooled);
    if (st != PS_OK)
        return st;
    job.keys = d_keys;
    job.vals = d_values;
    job.val_bytes = (unsigned)value_size;
    job.n = n;
    job.offs = d_offsets;
    job.nseg = num_segments;
    job.type = type;
    job.flags = flags;
    job.scratch = d_scratch;
    job.stream = s;
    job.skip_constant = 0;
    st = ps_gpu_seg_enqueue(api_host, &job);
    if (own != NULL)
        scratch_put(own, s, pooled);
    return st;
}

/* One top-k call, plain (segs 0: offs NULL, nseg 0) or per segment. */
typedef struct topk_call {
    const char *fn;
    int segs;
    const void *keys, *vals;
    size_t vs, n, k;
    const size_t *offs;
    size_t nseg;
    void *okeys, *ovals;
    size_t *oidx;
    ps_type type;
    unsigned flags;
    void *scratch;
    size_t scratch_bytes;
    ps_rt_stream s;
} topk_call;

/* Everything a top-k checks before it enqueues anything: PS_OK with the
 * plan in *pl (pl->bytes 0: nothing to do), or the refusal. */
static int topk_check(const topk_call *c, ps_dev_topk_plan *pl)
{
    unsigned kb = ps_type_bytes(c->type);
    ps_dev_tune t;
    int segs = c->segs;
    int st = check(c->fn, c->n, c->type, c->flags, c->vs);
    if (st == PS_OK && ((c->vals == NULL) != (c->vs == 0)
                        || (c->ovals == NULL) != (c->vs == 0))) {
        api_host->fail(PS_GPU_NAME " %s: d_values %s, d_out_values %s with "
                       "value_size %zu (both NULL with 0, both given with 4 or 8)",
                       c->fn, c->vals ? "given" : "NULL", c->ovals ? "given" : "NULL",
                       c->vs);
        st = PS_ERR_INVALID_ARG;
    }
    if (st != PS_OK)
        return st;
    t = ps_gpu_tune(ps_gpu_kernels_for(kb, 8));
    st = ps_dev_plan_topk(pl, &t, c->n, c->k, kb, segs, c->nseg, api_host);
    if (st != PS_OK || pl->bytes == 0)
        return st;
    st = usable();
    if (st != PS_OK)
        return st;
    if (c->keys == NULL || c->okeys == NULL || (segs && c->offs == NULL)) {
        api_host->fail(PS_GPU_NAME " %s: %s is NULL with n = %zu, k = %zu", c->fn,
                       c->keys == NULL ? "d_keys" : c->okeys == NULL ? "d_out_keys"
                                                                   : "d_offsets",
                       c->n, c->k);
        return PS_ERR_INVALID_ARG;
    }
    {
        ps_span sp[7] = {
            ps_span_of("d_keys", c->keys, c->n * kb),
            ps_span_of("d_values", c->vals, c->n * c->vs),
            ps_span_of("d_offsets", c->offs, segs ? (c->nseg + 1) * sizeof(size_t) : 0),
            ps_span_of("d_out_keys", c->okeys, pl->slots * kb),
            ps_span_of("d_out_values", c->ovals, pl->slots * c->vs),
            ps_span_of("d_out_index", c->oidx, c->oidx != NULL ? pl->slots * 8 : 0),
            ps_span_of("d_scratch", c->scratch, c->scratch != NULL ? c->scratch_bytes : 0),
        };
        return separate(c->fn, sp, 7);
    }
}

/* The keys copied and numbered in the scratch, sorted as pairs (per
 * segment with offsets), then gathered into the outputs: the plan's
 * layout (backends/device/ps_device_plan.h). */
static int topk_enqueue(const topk_call *c, const ps_dev_topk_plan *pl, void *scratch)
{
    const ps_gpu_kernels *kt = ps_gpu_kernels_for(pl->key_bytes, 8);
    char *base = scratch;
    void *skeys = base + pl->region[PS_DEV_TOPK_KEYS].off;
    void *sidx = base + pl->region[PS_DEV_TOPK_IDX].off;
    void *offs = (void *)c->offs, *vals = (void *)c->vals, *okeys = c->okeys;
    void *ovals = c->ovals, *oidx = c->oidx;
    unsigned long long zero = 0, n64 = c->n, m64 = pl->gather, k64 = c->k;
    uint32_t nseg = (uint32_t)c->nseg, vwords = (uint32_t)(c->vs / 4);
    uint32_t want_idx = oidx != NULL;
    void *iota_args[] = { &sidx, &zero, &n64 };
    void *gather_args[] = { &skeys, &zero, &sidx, &zero, &offs, &zero, &nseg, &m64,
                            &k64, &vals, &zero, &vwords, &okeys, &zero, &ovals,
                            &zero, &oidx, &zero, &want_idx };
    ps_rt_err e = RT(MemcpyAsync)(skeys, c->keys, c->n * pl->key_bytes,
                                  RT(MemcpyDeviceToDevice), c->s);
    int st = e == RT(Success) ? PS_OK
           : ps_gpu_status(api_host, e, "topk: copy of the keys");
    /* Kernels take no NULL they would not read; an absent output or
     * value array is a pointer they skip (want_idx, vwords 0). */
    if (vals == NULL)
        vals = ovals = scratch;
    if (oidx == NULL)
        oidx = scratch;
    if (st == PS_OK)
        st = ps_gpu_launch(api_host, kt->topk_iota, pl->iota_groups, iota_args, c->s,
                           "topk: ps_topk_iota");
    if (st == PS_OK && c->n >= 2 && !c->segs) {
        ps_gpu_job job = { .keys = skeys, .vals = sidx, .val_bytes = 8, .n = c->n,
                           .type = c->type, .flags = c->flags, .scratch = scratch,
                           .stream = c->s, .skip_constant = 0 };
        st = ps_gpu_enqueue(api_host, &job);
    } else if (st == PS_OK && c->n >= 2) {
        ps_gpu_segjob job = { .keys = skeys, .vals = sidx, .val_bytes = 8, .n = c->n,
                              .offs = c->offs, .nseg = c->nseg, .type = c->type,
                              .flags = c->flags, .scratch = scratch, .stream = c->s,
                              .skip_constant = 0 };
        st = ps_gpu_seg_enqueue(api_host, &job);
    }
    if (st == PS_OK)
        st = ps_gpu_launch(api_host, kt->topk_gather, pl->gather_groups, gather_args, c->s,
                           "topk: ps_topk_gather");
    return st;
}

static int topk_run(const topk_call *c)
{
    ps_dev_topk_plan pl;
    void *scratch = c->scratch, *own = NULL;
    int pooled = 0;
    int st = topk_check(c, &pl);
    if (st != PS_OK || pl.bytes == 0)
        return st;
    st = scratch_for(c->fn, pl.bytes, c->s, &scratch, c->scratch_bytes, &own, &pooled);
    if (st != PS_OK)
        return st;
    st = topk_enqueue(c, &pl, scratch);
    if (own != NULL)
        scratch_put(own, c->s, pooled);
    return st;
}

static int api_topk(const void *d_keys, const void *d_values, size_t value_size,
                    size_t n, size_t k, void *d_out_keys, void *d_out_values,
                    size_t *d_out_index, ps_type type, unsigned flags,
                    void *d_scratch, size_t scratch_bytes, void *stream)
{
    topk_call c = { "topk", 0, d_keys, d_values, value_size, n, k, NULL, 0,
                    d_out_keys, d_out_values, d_out_index, type, flags, d_scratch,
                    scratch_bytes, (ps_rt_stream)stream };
    return topk_run(&c);
}

static int api_topk_segments(const void *d_keys, const void *d_values,
                             size_t value_size, size_t n, const size_t *d_offsets,
                             size_t num_segments, size_t k, void *d_out_keys,
                             void *d_out_values, size_t *d_out_index, ps_type type,
                             unsigned flags, void *d_scratch, size_t scratch_bytes,
                             void *stream)
{
    topk_call c = { "topk_segments", 1, d_keys, d_values, value_size, n, k, d_offsets,
                    num_segments, d_out_keys, d_out_values, d_out_index, type, flags,
                    d_scratch, scratch_bytes, (ps_rt_stream)stream };
    return topk_run(&c);
}

static int api_records_scratch_size(size_t record_size, size_t n, size_t *bytes)
{
    ps_dev_rec_plan pl;
    int st;
    if (bytes == NULL) {
        api_host->fail(PS_GPU_NAME " records_scratch_size: bytes is NULL");
        return PS_ERR_INVALID_ARG;
    }
    st = ps_gpu_rec_plan(api_host, n, record_size, &pl);
    if (st == PS_OK)
        *bytes = pl.bytes;
    return st;
}

/* One records or columns call: its keys, their words and each key's
 * device array, and the spans of its arrays, in one host block. */
typedef struct rec_call {
    char fn[64];            /* "cuda sort_records", for the messages */
    const char *name;       /* "sort_records" */
    void *block;
    ps_rec_key *key;
    ps_rec_word *word;
    const void **base;
    ps_span *span;
} rec_call;

static int rec_call_alloc(rec_call *c, size_t nkeys)
{
    size_t per = sizeof *c->key + sizeof *c->word + sizeof *c->base + sizeof *c->span;
    unsigned char *b;
    if (nkeys > SIZE_MAX / per - 3) {
        api_host->fail("%s: %zu keys overflow size_t", c->fn, nkeys);
        return PS_ERR_INVALID_ARG;
    }
    b = c->block = api_host->alloc((nkeys + 3) * per);
    if (b == NULL) {
        api_host->fail("%s: cannot allocate the plan of %zu keys", c->fn, nkeys);
        return PS_ERR_NO_MEMORY;
    }
    c->key = (ps_rec_key *)(void *)b;
    b += (nkeys + 3) * sizeof *c->key;
    c->span = (ps_span *)(void *)b;
    b += (nkeys + 3) * sizeof *c->span;
    c->word = (ps_rec_word *)(void *)b;
    b += (nkeys + 3) * sizeof *c->word;
    c->base = (const void **)(void *)b;
    return PS_OK;
}

/* A checked call's plan (made before its spans are checked, by the
 * caller), scratch, and job: the keys packed into words and enqueued. */
static int rec_run(rec_call *c, size_t nkeys, const ps_dev_rec_plan *pl, void *rec,
                   size_t *perm, void *scratch, size_t scratch_bytes, void *stream)
{
    ps_rt_stream s = (ps_rt_stream)stream;
    void *own = NULL;
    int pooled = 0;
    int st = scratch_for(c->name, pl->bytes, s, &scratch,
                         scratch_bytes, &own, &pooled);
    ps_gpu_recjob job = { .base = c->base, .key = c->key, .word = c->word,
                          .n = pl->n, .rec = rec, .record_bytes = pl->record_bytes,
                          .perm = perm, .stream = s };
    if (st != PS_OK)
        return st;
    job.nwords = ps_rec_pack(c->key, nkeys, c->word);
    job.scratch = scratch;
    st = ps_gpu_rec_enqueue(api_host, &job, pl);
    if (own != NULL)
        scratch_put(own, s, pooled);
    return st;
}

/* Both records forms: d_perm NULL (sort) sorts the records in place. */
static int records(const char *name, void *d_records, size_t record_size, size_t n,
                   const ps_field *fields, size_t num_fields, size_t *d_perm,
                   void *d_scratch, size_t scratch_bytes, void *stream, int sort)
{
    rec_call c;
    ps_dev_rec_plan pl;
    size_t f;
    int st;
    c.name = name;
    snprintf(c.fn, sizeof c.fn, PS_GPU_NAME " %s", name);
    st = ps_rec_check_fields(c.fn, record_size, n, fields, num_fields, api_host->fail);
    if (st == PS_OK)
        st = ps_gpu_rec_plan(api_host, n, sort ? record_size : 0, &pl);
    if (st != PS_OK || n < (sort ? 2u : 1u))
        return st;
    st = usable();
    if (st != PS_OK)
        return st;
    if (d_records == NULL || (!sort && d_perm == NULL)) {
        api_host->fail("%s: %s is NULL with n = %zu", c.fn,
                       d_records == NULL ? "d_records" : "d_perm", n);
        return PS_ERR_INVALID_ARG;
    }
    st = rec_call_alloc(&c, num_fields);
    if (st != PS_OK)
        return st;
    c.span[0] = ps_span_of("d_records", d_records, n * record_size);
    c.span[1] = ps_span_of("d_perm", d_perm, d_perm != NULL ? n * 8 : 0);
    c.span[2] = ps_span_of("d_scratch", d_scratch, d_scratch != NULL ? scratch_bytes : 0);
    st = separate(name, c.span, 3);
    for (f = 0; st == PS_OK && f < num_fields; f++) {
        c.key[f] = ps_rec_field_key(&fields[f], record_size);
        c.base[f] = d_records;
    }
    if (st == PS_OK)
        st = rec_run(&c, num_fields, &pl, d_records, sort ? NULL : d_perm, d_scratch,
                     scratch_bytes, stream);
    api_host->release(c.block);
    return st;
}

static int api_sort_records(void *d_records, size_t record_size, size_t n,
                            const ps_field *fields, size_t num_fields,
                            void *d_scratch, size_t scratch_bytes, void *stream)
{
    return records("sort_records", d_records, record_size, n, fields, num_fields, NULL,
                   d_scratch, scratch_bytes, stream, 1);
}

static int api_argsort_records(const void *d_records, size_t record_size, size_t n,
                               const ps_field *fields, size_t num_fields,
                               size_t *d_perm, void *d_scratch, size_t scratch_bytes,
                               void *stream)
{
    return records("argsort_records", (void *)d_records, record_size, n, fields,
                   num_fields, d_perm, d_scratch, scratch_bytes, stream, 0);
}

static int api_argsort_columns(const void *const *d_columns, const ps_type *types,
                               const unsigned *flags, size_t num_columns, size_t n,
                               size_t *d_perm, void *d_scratch, size_t scratch_bytes,
                               void *stream)
{
    rec_call c;
    ps_dev_rec_plan pl;
    size_t i;
    int st;
    c.name = "argsort_columns";
    snprintf(c.fn, sizeof c.fn, PS_GPU_NAME " %s", c.name);
    st = ps_rec_check_columns(c.fn, "d_columns", d_columns, types, flags, num_columns,
                              api_host->fail);
    if (st == PS_OK)
        st = ps_gpu_rec_plan(api_host, n, 0, &pl);
    if (st != PS_OK || n == 0)
        return st;
    st = usable();
    if (st != PS_OK)
        return st;
    for (i = 0; i < num_columns; i++)
        if (d_columns[i] == NULL) {
            api_host->fail("%s: column %zu is NULL with n = %zu", c.fn, i, n);
            return PS_ERR_INVALID_ARG;
        }
    if (d_perm == NULL) {
        api_host->fail("%s: d_perm is NULL with n = %zu", c.fn, n);
        return PS_ERR_INVALID_ARG;
    }
    st = rec_call_alloc(&c, num_columns);
    if (st != PS_OK)
        return st;
    for (i = 0; i < num_columns; i++) {
        c.key[i] = ps_rec_column_key(types[i], flags ? flags[i] : 0);
        c.base[i] = d_columns[i];
        c.span[i] = ps_span_of("a column", d_columns[i], n * c.key[i].kb);
    }
    c.span[num_columns] = ps_span_of("d_perm", d_perm, n * 8);
    c.span[num_columns + 1] = ps_span_of("d_scratch", d_scratch,
                                         d_scratch != NULL ? scratch_bytes : 0);
    st = separate(c.name, c.span, num_columns + 2);
    if (st == PS_OK)
        st = rec_run(&c, num_columns, &pl, NULL, d_perm, d_scratch, scratch_bytes,
                     stream);
    api_host->release(c.block);
    return st;
}

const ps_gpu_api ps_gpu_device_api = {
    PS_GPU_API_ABI,
    PS_GPU_NAME,
    api_scratch_size,
    api_sort_keys,
    api_sort_pairs,
    api_argsort,
    api_sort_segments,
    api_topk,
    api_topk_segments,
    api_records_scratch_size,
    api_sort_records,
    api_argsort_records,
    api_argsort_columns,
};
