/*
 * ps_opencl_api.c - the cl_mem API of <portsort_opencl.h>: the table the
 * header's inline functions reach through ps_device_api("opencl").
 *
 * The same pattern as CUDA and HIP: the public header defines the table and
 * thin inline wrappers, the module fills the table in, and libportsort
 * itself holds nothing OpenCL-specific (it never links libOpenCL).  Every
 * argument is checked here, before anything is enqueued, so that a refused
 * call leaves the caller's buffers as they were: the buffers' bounds and
 * their overlaps too, which the sorts below (also run on the host-array
 * path's own buffers) take as given.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_opencl_internal.h"
#include "portsort_opencl.h"
#include "ps_recplan.h"

/* Set by the module's init, which ps_device_api() runs before it hands the
 * table out: every function below runs after it. */
static const ps_host *api_host;

void ps_cl_api_set_host(const ps_host *host)
{
    api_host = host;
}

/* The checks every entry point shares: type, flags, queue, keys, n. */
static int check(const char *fn, cl_command_queue queue, const void *keys,
                 size_t n, ps_type type, unsigned flags)
{
    if (!ps_type_valid((int)type)) {
        api_host->fail("%s: unknown key type %d", fn, (int)type);
        return PS_ERR_INVALID_ARG;
    }
    if (flags & ~PS_DESCENDING) {
        api_host->fail("%s: unknown flags 0x%x", fn, flags & ~PS_DESCENDING);
        return PS_ERR_INVALID_ARG;
    }
    if (queue == NULL || (n > 0 && keys == NULL)) {
        api_host->fail("%s: queue or keys is NULL", fn);
        return PS_ERR_INVALID_ARG;
    }
    if (n > UINT32_MAX) {
        api_host->fail("%s: n = %zu is beyond 2^32 - 1", fn, n);
        return PS_ERR_TOO_LARGE;
    }
    return PS_OK;
}

static int check_value_size(const char *fn, size_t value_size)
{
    if (value_size != 0 && value_size != 4 && value_size != 8) {
        api_host->fail("%s: value_size %zu: device buffers take 4- or 8-byte "
                       "values (or 0 for keys only)", fn, value_size);
        return PS_ERR_INVALID_ARG;
    }
    return PS_OK;
}

/* One buffer argument of a call: `count` elements of `elem` bytes from
 * element `first` of mem (NULL: not passed). */
typedef struct cl_arg {
    const char *name;
    cl_mem mem;
    size_t first, count, elem;
} cl_arg;

/* Where an argument's bytes lie, as a span in its buffer's space: a
 * sub-buffer's (CL_MEM_ASSOCIATED_MEMOBJECT) are placed at its
 * CL_MEM_OFFSET in its parent, so that two views of one buffer compare.
 * OpenCL 1.2 makes no sub-buffer of a sub-buffer: one level is all. */
static int locate(const char *fn, const cl_arg *a, ps_span *span)
{
    cl_mem_object_type type = 0;
    cl_mem parent = NULL;
    size_t size = 0, origin = 0;
    cl_int err = clGetMemObjectInfo(a->mem, CL_MEM_TYPE, sizeof type, &type, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(a->mem, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(a->mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent,
                                 &parent, NULL);
    if (err == CL_SUCCESS && parent != NULL)
        err = clGetMemObjectInfo(a->mem, CL_MEM_OFFSET, sizeof origin, &origin, NULL);
    if (err != CL_SUCCESS || type != CL_MEM_OBJECT_BUFFER) {
        api_host->fail("%s: %s is not an OpenCL buffer (%s)", fn, a->name,
                       err != CL_SUCCESS ? ps_cl_errname(err) : "another kind of cl_mem");
        return PS_ERR_INVALID_ARG;
    }
    /* The kernels would read and write out of bounds. */
    if (size / a->elem < a->first || size / a->elem - a->first < a->count) {
        if (a->elem == 1)
            api_host->fail("%s: %s: %zu bytes go past the end of its buffer of %zu "
                           "bytes", fn, a->name, a->count, size);
        else
            api_host->fail("%s: %s: %zu elements of %zu bytes from element %zu go "
                           "past the end of its buffer of %zu bytes", fn, a->name,
                           a->count, a->elem, a->first, size);
        return PS_ERR_INVALID_ARG;
    }
    span->name = a->name;
    span->space = (uintptr_t)(parent != NULL ? parent : a->mem);
    span->at = origin + a->first * a->elem;
    span->bytes = a->count * a->elem;
    return PS_OK;
}

/* The buffer arguments of one call, before anything is enqueued: each
 * within its buffer, and no two sharing a byte (the same cl_mem twice, or
 * views of one buffer), which the sort would read while it writes. */
static int check_spans(const char *fn, const cl_arg *a, size_t n, ps_span *span)
{
    size_t i, j;
    int st;
    for (i = 0; i < n; i++) {
        memset(&span[i], 0, sizeof span[i]);
        if (a[i].mem != NULL && (st = locate(fn, &a[i], &span[i])) != PS_OK)
            return st;
    }
    if (!ps_spans_clash(span, n, &i, &j))
        return PS_OK;
    api_host->fail("%s: %s (bytes [%ju, %ju)) and %s (bytes [%ju, %ju)) overlap in "
                   "buffer %p (sub-buffers count by their place in it); pass "
                   "separate buffers or ranges", fn, span[i].name,
                   (uintmax_t)span[i].at, (uintmax_t)span[i].at + span[i].bytes,
                   span[j].name, (uintmax_t)span[j].at,
                   (uintmax_t)span[j].at + span[j].bytes, (void *)span[i].space);
    return PS_ERR_INVALID_ARG;
}

/* check_spans for calls of at most 8 buffers. */
static int check_buffers(const char *fn, const cl_arg *a, size_t n)
{
    ps_span span[8];
    return check_spans(fn, a, n, span);
}

/* Every scratch-size query: the plain sort's or (segments) the
 * segmented sort's bytes for n elements on the queue's device, or with
 * topk those of the top-k (plain or segmented), from its plan for any
 * k >= 1: it sorts the keys with 8-byte indices, in that width's program. */
static int scratch_query(const char *fn, cl_command_queue queue, size_t n,
                         ps_type type, size_t value_size, size_t *bytes,
                         int segments, int topk)
{
    cl_device_id dev = NULL;
    ps_cl_tune tune;
    ps_dev_tune dt;
    ps_dev_topk_plan pl;
    unsigned kb = ps_type_bytes(type), vb = (unsigned)value_size;
    int st = check(fn, queue, queue, n, type, 0);
    if (st == PS_OK && bytes == NULL) {
        api_host->fail("%s: bytes is NULL", fn);
        st = PS_ERR_INVALID_ARG;
    }
    if (st == PS_OK)
        st = check_value_size(fn, value_size);
    if (st != PS_OK)
        return st;
    if (clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL)
        != CL_SUCCESS) {
        api_host->fail("%s: not a usable command queue", fn);
        return PS_ERR_INVALID_ARG;
    }
    tune = ps_cl_tune_for(dev, 8 * kb, topk ? 8 : vb);
    dt = ps_cl_dev_tune(&tune);
    /* The plan the call will make: the same bytes, or the same refusal. */
    if (!topk)
        return ps_dev_scratch_bytes(&dt, n, kb, vb, segments, bytes, api_host);
    st = ps_dev_plan_topk(&pl, &dt, n, 1, kb, segments, 1, api_host);
    if (st == PS_OK)
        *bytes = pl.bytes;
    return st;
}

static int api_scratch_size(cl_command_queue queue, size_t n, ps_type type,
                            size_t value_size, size_t *bytes)
{
    return scratch_query("ps_opencl_scratch_size", queue, n, type, value_size,
                         bytes, 0, 0);
}

/* Keys only when values is NULL (value_size is then not looked at). */
static int sort(const char *fn, cl_command_queue queue, cl_mem keys,
                size_t key_offset, cl_mem values, size_t value_offset,
                size_t value_size, size_t n, ps_type type, unsigned flags,
                cl_mem scratch, size_t scratch_bytes)
{
    ps_cl_job job;
    int st = check(fn, queue, keys, n, type, flags);
    if (st != PS_OK || n < 2)
        return st;
    {
        cl_arg a[3] = {
            { "keys", keys, key_offset, n, ps_type_bytes(type) },
            { "values", values, value_offset, n, value_size },
            { "scratch", scratch, 0, scratch_bytes, 1 },
        };
        st = check_buffers(fn, a, 3);
        if (st != PS_OK)
            return st;
    }
    memset(&job, 0, sizeof job);
    job.q = queue;
    job.keys = keys;
    job.koff = key_offset;
    job.vals = values;
    job.voff = value_offset;
    job.val_bytes = values != NULL ? (unsigned)value_size : 0;
    job.n = n;
    job.type = type;
    job.flags = flags;
    job.scratch = scratch;
    job.scratch_bytes = scratch != NULL ? scratch_bytes : 0;
    return ps_cl_sort(api_host, &job);
}

static int api_sort_keys(cl_command_queue queue, cl_mem keys, size_t key_offset,
                         size_t n, ps_type type, unsigned flags, cl_mem scratch,
                         size_t scratch_bytes)
{
    return sort("ps_opencl_sort_keys", queue, keys, key_offset, NULL, 0, 0, n,
                type, flags, scratch, scratch_bytes);
}

static int api_sort_pairs(cl_command_queue queue, cl_mem keys, size_t key_offset,
                          cl_mem values, size_t value_offset, size_t value_size,
                          size_t n, ps_type type, unsigned flags, cl_mem scratch,
                          size_t scratch_bytes)
{
    static const char fn[] = "ps_opencl_sort_pairs";
    int st = check(fn, queue, keys, n, type, flags);
    if (st != PS_OK)
        return st;
    if (n > 0 && values == NULL) {
        api_host->fail("%s: values is NULL", fn);
        return PS_ERR_INVALID_ARG;
    }
    if (value_size != 4 && value_size != 8) {
        api_host->fail("%s: value_size %zu (4 or 8 on devices)", fn, value_size);
        return PS_ERR_INVALID_ARG;
    }
    return sort(fn, queue, keys, key_offset, values, value_offset, value_size,
                n, type, flags, scratch, scratch_bytes);
}

static int api_segments_scratch_size(cl_command_queue queue, size_t n,
                                     ps_type type, size_t value_size,
                                     size_t *bytes)
{
    return scratch_query("ps_opencl_segments_scratch_size", queue, n, type,
                         value_size, bytes, 1, 0);
}

static int api_sort_segments(cl_command_queue queue, cl_mem keys,
                             size_t key_offset, cl_mem values,
                             size_t value_offset, size_t value_size, size_t n,
                             cl_mem offsets, size_t num_segments, ps_type type,
                             unsigned flags, cl_mem scratch, size_t scratch_bytes)
{
    static const char fn[] = "ps_opencl_sort_segments";
    ps_cl_segjob job;
    int st = check(fn, queue, keys, n, type, flags);
    if (st == PS_OK)
        st = check_value_size(fn, value_size);
    if (st == PS_OK && (values == NULL) != (value_size == 0)) {
        api_host->fail("%s: values %s with value_size %zu (NULL and 0 sort keys "
                       "only)", fn, values ? "given" : "NULL", value_size);
        st = PS_ERR_INVALID_ARG;
    }
    if (st == PS_OK && num_segments > UINT32_MAX) {
        api_host->fail("%s: %zu segments are beyond the 2^32 - 1 the kernels "
                       "count", fn, num_segments);
        st = PS_ERR_TOO_LARGE;
    }
    if (st != PS_OK || n < 2)
        return st;
    if (offsets == NULL || num_segments == 0) {
        api_host->fail("%s: %s with n = %zu", fn, offsets == NULL
                       ? "offsets is NULL" : "no segments (offsets must reach n)", n);
        return PS_ERR_INVALID_ARG;
    }
    {
        cl_arg a[4] = {
            { "keys", keys, key_offset, n, ps_type_bytes(type) },
            { "values", values, value_offset, n, value_size },
            { "offsets", offsets, 0, num_segments + 1, sizeof(cl_ulong) },
            { "scratch", scratch, 0, scratch_bytes, 1 },
        };
        st = check_buffers(fn, a, 4);
        if (st != PS_OK)
            return st;
    }
    memset(&job, 0, sizeof job);
    job.q = queue;
    job.keys = keys;
    job.koff = key_offset;
    job.vals = values;
    job.voff = value_offset;
    job.val_bytes = (unsigned)value_size;
    job.offs = offsets;
    job.n = n;
    job.nseg = num_segments;
    job.type = type;
    job.flags = flags;
    job.scratch = scratch;
    job.scratch_bytes = scratch != NULL ? scratch_bytes : 0;
    return ps_cl_sort_segments(api_host, &job);
}

static int api_topk_scratch_size(cl_command_queue queue, size_t n, ps_type type,
                                 size_t value_size, size_t *bytes)
{
    return scratch_query("ps_opencl_topk_scratch_size", queue, n, type,
                         value_size, bytes, 0, 1);
}

static int api_topk_segments_scratch_size(cl_command_queue queue, size_t n,
                                          ps_type type, size_t value_size,
                                          size_t *bytes)
{
    return scratch_query("ps_opencl_topk_segments_scratch_size", queue, n, type,
                         value_size, bytes, 1, 1);
}

/* Both top-k forms (offsets NULL for one array, and then segs 0): every
 * check before anything is enqueued, then ps_cl_topk. */
static int topk(const char *fn, int segs, cl_command_queue queue, cl_mem keys,
                size_t key_offset, cl_mem values, size_t value_offset,
                size_t value_size, size_t n, cl_mem offsets, size_t num_segments,
                size_t k, cl_mem out_keys, size_t out_key_offset,
                cl_mem out_values, size_t out_value_offset, cl_mem out_index,
                size_t out_index_offset, ps_type type, unsigned flags,
                cl_mem scratch, size_t scratch_bytes)
{
    unsigned kb = ps_type_bytes(type);
    size_t first = k < n ? k : n, slots = 0;
    ps_cl_topkjob job;
    int st = check(fn, queue, keys, n, type, flags);
    if (st == PS_OK)
        st = check_value_size(fn, value_size);
    if (st == PS_OK && ((values == NULL) != (value_size == 0)
                        || (out_values == NULL) != (value_size == 0))) {
        api_host->fail("%s: values %s, out_values %s with value_size %zu (both "
                       "NULL with 0, both given with 4 or 8)", fn,
                       values ? "given" : "NULL", out_values ? "given" : "NULL",
                       value_size);
        st = PS_ERR_INVALID_ARG;
    }
    if (st == PS_OK && segs && num_segments > UINT32_MAX) {
        api_host->fail("%s: %zu segments are beyond the 2^32 - 1 the kernels "
                       "count", fn, num_segments);
        st = PS_ERR_TOO_LARGE;
    }
    if (st != PS_OK || first == 0)
        return st;
    st = ps_dev_topk_slots(fn, n, k, segs, num_segments, &slots, api_host);
    if (st != PS_OK)
        return st;
    if (out_keys == NULL || (segs && offsets == NULL)) {
        api_host->fail("%s: %s is NULL with n = %zu, k = %zu", fn,
                       out_keys == NULL ? "out_keys" : "offsets", n, k);
        return PS_ERR_INVALID_ARG;
    }
    {
        cl_arg a[7] = {
            { "keys", keys, key_offset, n, kb },
            { "values", values, value_offset, n, value_size },
            { "offsets", offsets, 0, segs ? num_segments + 1 : 0, sizeof(cl_ulong) },
            { "out_keys", out_keys, out_key_offset, slots, kb },
            { "out_values", out_values, out_value_offset, slots, value_size },
            { "out_index", out_index, out_index_offset, slots, sizeof(cl_ulong) },
            { "scratch", scratch, 0, scratch_bytes, 1 },
        };
        st = check_buffers(fn, a, 7);
        if (st != PS_OK)
            return st;
    }
    memset(&job, 0, sizeof job);
    job.q = queue;
    job.keys = keys;
    job.koff = key_offset;
    job.vals = values;
    job.voff = value_offset;
    job.val_bytes = (unsigned)value_size;
    job.offs = segs ? offsets : NULL;
    job.nseg = segs ? num_segments : 0;
    job.okeys = out_keys;
    job.okoff = out_key_offset;
    job.ovals = out_values;
    job.ovoff = out_value_offset;
    job.oidx = out_index;
    job.oioff = out_index_offset;
    job.n = n;
    job.k = k;
    job.type = type;
    job.flags = flags;
    job.scratch = scratch;
    job.scratch_bytes = scratch != NULL ? scratch_bytes : 0;
    return ps_cl_topk(api_host, &job);
}

static int api_topk(cl_command_queue queue, cl_mem keys, size_t key_offset,
                    cl_mem values, size_t value_offset, size_t value_size,
                    size_t n, size_t k, cl_mem out_keys, size_t out_key_offset,
                    cl_mem out_values, size_t out_value_offset, cl_mem out_index,
                    size_t out_index_offset, ps_type type, unsigned flags,
                    cl_mem scratch, size_t scratch_bytes)
{
    return topk("ps_opencl_topk", 0, queue, keys, key_offset, values, value_offset,
                value_size, n, NULL, 0, k, out_keys, out_key_offset, out_values,
                out_value_offset, out_index, out_index_offset, type, flags, scratch,
                scratch_bytes);
}

static int api_topk_segments(cl_command_queue queue, cl_mem keys,
                             size_t key_offset, cl_mem values,
                             size_t value_offset, size_t value_size, size_t n,
                             cl_mem offsets, size_t num_segments, size_t k,
                             cl_mem out_keys, size_t out_key_offset,
                             cl_mem out_values, size_t out_value_offset,
                             cl_mem out_index, size_t out_index_offset,
                             ps_type type, unsigned flags, cl_mem scratch,
                             size_t scratch_bytes)
{
    return topk("ps_opencl_topk_segments", 1, queue, keys, key_offset, values,
                value_offset, value_size, n, offsets, num_segments, k, out_keys,
                out_key_offset, out_values, out_value_offset, out_index,
                out_index_offset, type, flags, scratch, scratch_bytes);
}

static int api_records_scratch_size(cl_command_queue queue, size_t record_size,
                                   size_t n, size_t *bytes)
{
    static const char fn[] = "ps_opencl_records_scratch_size";
    cl_device_id dev = NULL;
    ps_dev_tune tune[4];
    ps_dev_rec_plan pl;
    int st;
    if (queue == NULL || bytes == NULL) {
        api_host->fail("%s: %s is NULL", fn, queue == NULL ? "queue" : "bytes");
        return PS_ERR_INVALID_ARG;
    }
    if (clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL)
        != CL_SUCCESS) {
        api_host->fail("%s: not a usable command queue", fn);
        return PS_ERR_INVALID_ARG;
    }
    ps_cl_rec_tunes(dev, tune);
    st = ps_dev_plan_records(&pl, tune, n, record_size, api_host);
    if (st == PS_OK)
        *bytes = pl.bytes;
    return st;
}

/* What a records or columns call builds before its job: the keys and
 * their words, each key's buffer and byte offset, and the buffer
 * arguments and their spans for check_spans, in one host block. */
typedef struct rec_call {
    void *block;
    ps_rec_key *key;
    ps_rec_word *word;
    cl_mem *kmem;
    size_t *koff;
    cl_arg *arg;
    ps_span *span;
} rec_call;

static int rec_call_alloc(const char *fn, size_t nkeys, rec_call *c)
{
    size_t per = sizeof *c->key + sizeof *c->word + sizeof *c->kmem + sizeof *c->koff
               + sizeof *c->arg + sizeof *c->span;
    unsigned char *b;
    if (nkeys > SIZE_MAX / per - 3) {
        api_host->fail("%s: %zu keys overflow size_t", fn, nkeys);
        return PS_ERR_INVALID_ARG;
    }
    /* nkeys + 3 of each, for the arguments beyond the keys; the widest
     * member first keeps every array aligned. */
    b = c->block = api_host->alloc((nkeys + 3) * per);
    if (b == NULL) {
        api_host->fail("%s: cannot allocate the plan of %zu keys", fn, nkeys);
        return PS_ERR_NO_MEMORY;
    }
    c->key = (ps_rec_key *)(void *)b;
    b += (nkeys + 3) * sizeof *c->key;
    c->span = (ps_span *)(void *)b;
    b += (nkeys + 3) * sizeof *c->span;
    c->arg = (cl_arg *)(void *)b;
    b += (nkeys + 3) * sizeof *c->arg;
    c->word = (ps_rec_word *)(void *)b;
    b += (nkeys + 3) * sizeof *c->word;
    c->koff = (size_t *)(void *)b;
    b += (nkeys + 3) * sizeof *c->koff;
    c->kmem = (cl_mem *)(void *)b;
    return PS_OK;
}

/* The job of a checked call: its keys packed into words, run. */
static int rec_run(rec_call *c, size_t nkeys, cl_command_queue queue, size_t n,
                   cl_mem rec, size_t roff, size_t record_bytes, cl_mem perm,
                   size_t poff, cl_mem scratch, size_t scratch_bytes)
{
    ps_cl_recjob job = { .q = queue, .kmem = c->kmem, .koff = c->koff, .key = c->key,
                         .word = c->word, .n = n, .rec = rec, .roff = roff,
                         .record_bytes = record_bytes, .perm = perm, .poff = poff,
                         .scratch = scratch,
                         .scratch_bytes = scratch != NULL ? scratch_bytes : 0 };
    job.nwords = ps_rec_pack(c->key, nkeys, c->word);
    return ps_cl_records(api_host, &job);
}

/* The records calls' checks after their keys': a queue, and n rows the
 * kernels count. */
static int rec_check_queue(const char *fn, cl_command_queue queue, size_t n)
{
    if (queue == NULL) {
        api_host->fail("%s: queue is NULL", fn);
        return PS_ERR_INVALID_ARG;
    }
    if (n > UINT32_MAX) {
        api_host->fail("%s: n = %zu is beyond 2^32 - 1", fn, n);
        return PS_ERR_TOO_LARGE;
    }
    return PS_OK;
}

/* Both records forms: perm NULL sorts the records in place. */
static int records(const char *fn, cl_command_queue queue, cl_mem rec,
                   size_t record_offset, size_t record_size, size_t n,
                   const ps_field *fields, size_t num_fields, cl_mem perm,
                   size_t perm_offset, cl_mem scratch, size_t scratch_bytes,
                   int sort)
{
    rec_call c;
    size_t f;
    int st = ps_rec_check_fields(fn, record_size, n, fields, num_fields,
                                 api_host->fail);
    if (st == PS_OK)
        st = rec_check_queue(fn, queue, n);
    if (st != PS_OK || n < (sort ? 2u : 1u))
        return st;
    if (rec == NULL || (!sort && perm == NULL)) {
        api_host->fail("%s: %s is NULL with n = %zu", fn,
                       rec == NULL ? "records" : "perm", n);
        return PS_ERR_INVALID_ARG;
    }
    st = rec_call_alloc(fn, num_fields, &c);
    if (st != PS_OK)
        return st;
    {
        cl_arg a[3] = {
            { "records", rec, record_offset, n, record_size },
            { "perm", perm, perm_offset, n, sizeof(cl_ulong) },
            { "scratch", scratch, 0, scratch_bytes, 1 },
        };
        st = check_spans(fn, a, 3, c.span);
    }
    for (f = 0; st == PS_OK && f < num_fields; f++) {
        c.key[f] = ps_rec_field_key(&fields[f], record_size);
        c.kmem[f] = rec;
        c.koff[f] = record_offset * record_size;
    }
    if (st == PS_OK)
        st = rec_run(&c, num_fields, queue, n, rec, record_offset * record_size,
                     record_size, sort ? NULL : perm, perm_offset, scratch,
                     scratch_bytes);
    api_host->release(c.block);
    return st;
}

static int api_sort_records(cl_command_queue queue, cl_mem records_mem,
                            size_t record_offset, size_t record_size, size_t n,
                            const ps_field *fields, size_t num_fields,
                            cl_mem scratch, size_t scratch_bytes)
{
    return records("ps_opencl_sort_records", queue, records_mem, record_offset,
                   record_size, n, fields, num_fields, NULL, 0, scratch,
                   scratch_bytes, 1);
}

static int api_argsort_records(cl_command_queue queue, cl_mem records_mem,
                               size_t record_offset, size_t record_size, size_t n,
                               const ps_field *fields, size_t num_fields,
                               cl_mem perm, size_t perm_offset, cl_mem scratch,
                               size_t scratch_bytes)
{
    return records("ps_opencl_argsort_records", queue, records_mem, record_offset,
                   record_size, n, fields, num_fields, perm, perm_offset, scratch,
                   scratch_bytes, 0);
}

static int api_argsort_columns(cl_command_queue queue, const cl_mem *columns,
                               const size_t *column_offsets, const ps_type *types,
                               const unsigned *flags, size_t num_columns, size_t n,
                               cl_mem perm, size_t perm_offset, cl_mem scratch,
                               size_t scratch_bytes)
{
    static const char fn[] = "ps_opencl_argsort_columns";
    rec_call c;
    size_t i;
    int st = ps_rec_check_columns(fn, "columns", columns, types, flags, num_columns,
                                  api_host->fail);
    if (st == PS_OK)
        st = rec_check_queue(fn, queue, n);
    if (st != PS_OK || n == 0)
        return st;
    for (i = 0; i < num_columns; i++)
        if (columns[i] == NULL) {
            api_host->fail("%s: column %zu is NULL with n = %zu", fn, i, n);
            return PS_ERR_INVALID_ARG;
        }
    if (perm == NULL) {
        api_host->fail("%s: perm is NULL with n = %zu", fn, n);
        return PS_ERR_INVALID_ARG;
    }
    st = rec_call_alloc(fn, num_columns, &c);
    if (st != PS_OK)
        return st;
    for (i = 0; i < num_columns; i++) {
        size_t first = column_offsets != NULL ? column_offsets[i] : 0;
        c.key[i] = ps_rec_column_key(types[i], flags ? flags[i] : 0);
        c.kmem[i] = columns[i];
        c.koff[i] = first * c.key[i].kb;
        c.arg[i] = (cl_arg){ "a column", columns[i], first, n, c.key[i].kb };
    }
    c.arg[num_columns] = (cl_arg){ "perm", perm, perm_offset, n, sizeof(cl_ulong) };
    c.arg[num_columns + 1] = (cl_arg){ "scratch", scratch, 0, scratch_bytes, 1 };
    st = check_spans(fn, c.arg, num_columns + 2, c.span);
    if (st == PS_OK)
        st = rec_run(&c, num_columns, queue, n, NULL, 0, 0, perm, perm_offset,
                     scratch, scratch_bytes);
    api_host->release(c.block);
    return st;
}

const ps_opencl_api ps_cl_device_api = {
    .abi = PS_OPENCL_API_ABI,
    .scratch_size = api_scratch_size,
    .sort_keys = api_sort_keys,
    .sort_pairs = api_sort_pairs,
    .segments_scratch_size = api_segments_scratch_size,
    .sort_segments = api_sort_segments,
    .topk_scratch_size = api_topk_scratch_size,
    .topk = api_topk,
    .topk_segments_scratch_size = api_topk_segments_scratch_size,
    .topk_segments = api_topk_segments,
    .records_scratch_size = api_records_scratch_size,
    .sort_records = api_sort_records,
    .argsort_records = api_argsort_records,
    .argsort_columns = api_argsort_columns,
};
