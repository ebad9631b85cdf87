/*
 * ps_chunks.c - sort host arrays larger than the device can hold: in
 * pieces the device can sort, merged on the host (issue 32, part 2).
 *
 * Every sort of host arrays goes to the backend through ps_backend_sort.
 * When a device backend answers PS_ERR_DEVICE_MEMORY for the whole array
 * (a GPU smaller than the data, an allocation past the device's largest
 * buffer, or the test hook PORTSORT_TEST_DEVICE_MEMORY on OpenCL), the
 * core copies the arrays, sorts the copy in runs of half as many elements,
 * halving again while the device still refuses, and merges the runs into
 * the caller's arrays.  The backend sorts each run stably, and the merge
 * takes equal keys from the earlier run first, so the result is the
 * stable order of the whole, bit for bit what one sort would give.
 *
 * The caller's arrays are written only by the merge, which cannot fail:
 * any error while the runs are sorted leaves them as they were.  Written
 * once here, for OpenCL, CUDA and HIP alike; the backends need nothing but
 * to refuse what they cannot hold with PS_ERR_DEVICE_MEMORY.
 */
#include <config.h>

#include <string.h>

#include "ps_internal.h"

/* Runs shorter than this are not worth a device's launch overheads: a
 * device that cannot sort them has too little memory to be of use. */
#define PS_CHUNK_MIN ((size_t)1 << 12)

typedef struct ps_run {
    size_t at, end;        /* the run's next element and its end, in the copy */
} ps_run;

/* The image of key i of the copy (ps_keytype.h): unsigned order is the
 * order asked for. */
static inline uint64_t chunk_image(const unsigned char *keys, size_t kb, size_t i, ps_xf xf)
{
    switch (kb) {
    case 1: return ps_enc8(keys[i], xf);
    case 2: { uint16_t k; memcpy(&k, keys + 2 * i, 2); return ps_enc16(k, xf); }
    case 4: { uint32_t k; memcpy(&k, keys + 4 * i, 4); return ps_enc32(k, xf); }
    default: { uint64_t k; memcpy(&k, keys + 8 * i, 8); return ps_enc64(k, xf); }
    }
}

/* Run a comes before run b when its head is smaller, or equal and it is
 * the earlier run (stability across runs). */
static inline int run_before(const uint64_t *head, size_t a, size_t b)
{
    return head[a] < head[b] || (head[a] == head[b] && a < b);
}

static void heap_down(size_t *h, size_t n, const uint64_t *head, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && run_before(head, h[l], h[m]))
            m = l;
        if (l + 1 < n && run_before(head, h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        size_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Merge the sorted runs of the copy into keys (values): a binary heap of
 * the runs by their heads' images. */
static void chunk_merge(const unsigned char *ck, const unsigned char *cv, ps_run *run,
                        size_t nrun, uint64_t *head, size_t *h, void *keys, void *values,
                        size_t vs, size_t n, size_t kb, ps_xf xf)
{
    unsigned char *ok = keys, *ov = values;
    size_t hn = 0;

    for (size_t r = 0; r < nrun; r++) {
        if (run[r].at < run[r].end) {
            head[r] = chunk_image(ck, kb, run[r].at, xf);
            h[hn++] = r;
        }
    }
    for (size_t i = hn / 2; i-- > 0;)
        heap_down(h, hn, head, i);
    for (size_t o = 0; o < n; o++) {
        size_t r = h[0], at = run[r].at++;
        memcpy(ok + o * kb, ck + at * kb, kb);
        if (vs > 0)
            memcpy(ov + o * vs, cv + at * vs, vs);
        if (run[r].at < run[r].end)
            head[r] = chunk_image(ck, kb, run[r].at, xf);
        else
            h[0] = h[--hn];
        heap_down(h, hn, head, 0);
    }
}

/* Sort the copy in runs the device can hold; PS_OK with the runs in
 * run[0 .. *nrun), or the error that stopped it. */
static int chunk_runs(const ps_backend_ops *ops, void *state, unsigned char *ck,
                      unsigned char *cv, size_t vs, size_t n, ps_type type, unsigned flags,
                      ps_run *run, size_t *nrun)
{
    size_t kb = ps_type_bytes(type), chunk = n / 2, at = 0;
    int st;

    *nrun = 0;
    while (at < n) {
        size_t len = n - at < chunk ? n - at : chunk;
        st = vs > 0 ? ops->sort_pairs(state, ck + at * kb, cv + at * vs, vs, len, type, flags)
                    : ops->sort_keys(state, ck + at * kb, len, type, flags);
        if (st == PS_ERR_DEVICE_MEMORY && chunk / 2 >= PS_CHUNK_MIN) {
            chunk /= 2;    /* the backend left the run as it was */
            continue;
        }
        if (st != PS_OK)
            return st;
        run[*nrun].at = at;
        run[*nrun].end = at + len;
        ++*nrun;
        at += len;
    }
    return PS_OK;
}

static int chunked(const ps_backend_ops *ops, void *state, void *keys, void *values,
                   size_t vs, size_t n, ps_type type, unsigned flags)
{
    size_t kb = ps_type_bytes(type);
    /* Runs never get shorter than PS_CHUNK_MIN but the last. */
    size_t most = n / PS_CHUNK_MIN + 2, nrun = 0;
    /* 64 more bytes for aligning the copy. */
    size_t bytes = n * (kb + vs) + most * (sizeof(ps_run) + sizeof(uint64_t) + sizeof(size_t))
                 + 64;
    unsigned char *block = ps_alloc(bytes), *ck, *cv;
    ps_run *run;
    uint64_t *head;
    size_t *heap;
    int st;

    if (block == NULL) {
        ps_detail_set("the device cannot hold %zu keys, and %zu bytes of host memory "
                      "to sort them in pieces are not available", n, bytes);
        return PS_ERR_NO_MEMORY;
    }
    /* Largest alignment first: the heads, the heap and the runs, then the
     * copy (keys at 64 bytes, values right after them, as the callers'). */
    head = (uint64_t *)block;
    heap = (size_t *)(head + most);
    run = (ps_run *)(heap + most);
    ck = (unsigned char *)(run + most);
    ck += (size_t)(-(uintptr_t)ck & 63);
    cv = ck + n * kb;
    memcpy(ck, keys, n * kb);
    if (vs > 0)
        memcpy(cv, values, n * vs);
    st = chunk_runs(ops, state, ck, cv, vs, n, type, flags, run, &nrun);
    if (st == PS_OK) {
        chunk_merge(ck, cv, run, nrun, head, heap, keys, values, vs, n, kb,
                    ps_xf_make(type, flags));
        if (ps_verbose())
            ps_log("%zu keys: more than the device holds; sorted in %zu pieces, merged "
                   "on the host", n, nrun);
    } else if (st == PS_ERR_DEVICE_MEMORY) {
        ps_detail_set("the device cannot hold %zu keys, nor pieces of %zu", n,
                      PS_CHUNK_MIN);
    }
    ps_release(block);
    return st;
}

int ps_backend_sort(const ps_backend_ops *ops, void *state, void *keys, void *values,
                    size_t vs, size_t n, ps_type type, unsigned flags)
{
    size_t mark = ps_mem_mark();
    int st = vs > 0 ? ops->sort_pairs(state, keys, values, vs, n, type, flags)
                    : ops->sort_keys(state, keys, n, type, flags);

    /* A CPU backend without the scratch for pairs (keys alone it sorts in
     * place itself): the same stable sort in pieces (ps_pieces.c), counted
     * from where this attempt began, since it gave back all it took. */
    if (st == PS_ERR_NO_MEMORY && vs > 0 && !ops->device) {
        ps_mem_rewind(mark);
        return ps_pairs_in_pieces(ops, state, keys, values, vs, n, type, flags);
    }

    if (st != PS_ERR_DEVICE_MEMORY || n / 2 < PS_CHUNK_MIN
        || n > SIZE_MAX / 2 / (ps_type_bytes(type) + vs))
        return st;
    return chunked(ops, state, keys, values, vs, n, type, flags);
}
