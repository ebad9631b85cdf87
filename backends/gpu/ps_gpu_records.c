/*
 * ps_gpu_records.c - the device records sorts of the CUDA and HIP backends
 * (the table's sort_records, argsort_records and argsort_columns), enqueued
 * on the caller's stream.
 *
 * The same steps as the OpenCL host (backends/opencl/ps_opencl_records.c),
 * from the same plan: the rows numbered in the scratch (ps_topk_iota);
 * each word of lib/ps_recplan.h's plan, least significant first, built by
 * ps_rec_key (a launch per key, reading the rows through the permutation
 * so far) and sorted with the permutation as 8-byte values by the stable
 * pair sort (ps_gpu_enqueue), in the instantiation of the word's width;
 * then the only step that writes the caller's arrays: a copy of the
 * permutation, or ps_rec_gather into the scratch and a copy back over the
 * records.  No step reads anything back, so the call never waits.
 */
#include <config.h>

#include "ps_gpu_internal.h"
#include "ps_recplan.h"

int ps_gpu_rec_plan(const ps_host *host, size_t n, size_t record_bytes,
                    ps_dev_rec_plan *pl)
{
    ps_dev_tune tune[4];
    unsigned i;
    for (i = 0; i < 4; i++)
        tune[i] = ps_gpu_tune(ps_gpu_kernels_for(1u << i, 8));
    return ps_dev_plan_records(pl, tune, n, record_bytes, host);
}

static ps_type word_type(unsigned wb)
{
    return wb == 1 ? PS_U8 : wb == 2 ? PS_U16 : wb == 4 ? PS_U32 : PS_U64;
}

/* Key k's images (the word's first key when first) into IMG, as words of
 * kt's key width. */
static int key_images(const ps_host *host, const ps_gpu_recjob *job, size_t k,
                      int first, const ps_gpu_kernels *kt, const ps_dev_rec_plan *pl)
{
    const ps_rec_key *key = &job->key[k];
    char *base = job->scratch;
    void *src = (void *)job->base[k];
    void *perm = base + pl->region[PS_DEV_REC_PERM].off;
    void *img = base + pl->region[PS_DEV_REC_IMG].off;
    unsigned long long soff = key->off, stride = key->stride, flip = key->xf.flip;
    unsigned long long fneg = key->xf.fneg, zero = 0, n = job->n;
    uint32_t kb = key->kb, shift = key->shift, fst = first != 0;
    void *args[] = { &src, &soff, &stride, &kb, &flip, &fneg, &shift, &fst, &perm,
                     &zero, &img, &zero, &n };
    return ps_gpu_launch(host, kt->rec_key, pl->groups, args, job->stream,
                         "records: ps_rec_key");
}

/* The result into the caller's array. */
static int finish(const ps_host *host, const ps_gpu_recjob *job,
                  const ps_gpu_kernels *kt, const ps_dev_rec_plan *pl)
{
    char *base = job->scratch;
    void *perm = base + pl->region[PS_DEV_REC_PERM].off;
    void *copy = base + pl->region[PS_DEV_REC_COPY].off;
    ps_rt_err e;
    int st;
    if (job->perm != NULL) {
        e = RT(MemcpyAsync)(job->perm, perm, job->n * 8, RT(MemcpyDeviceToDevice),
                            job->stream);
        return e == RT(Success) ? PS_OK
             : ps_gpu_status(host, e, "argsort records: copy of the permutation");
    }
    {
        void *rec = job->rec;
        unsigned long long zero = 0, size = job->record_bytes, n = job->n;
        void *args[] = { &rec, &zero, &copy, &zero, &perm, &zero, &size, &n };
        st = ps_gpu_launch(host, kt->rec_gather, pl->gather_groups, args, job->stream,
                           "sort records: ps_rec_gather");
    }
    if (st != PS_OK)
        return st;
    e = RT(MemcpyAsync)(job->rec, copy, job->n * job->record_bytes,
                        RT(MemcpyDeviceToDevice), job->stream);
    return e == RT(Success) ? PS_OK
         : ps_gpu_status(host, e, "sort records: copy back of the records");
}

int ps_gpu_rec_enqueue(const ps_host *host, const ps_gpu_recjob *job,
                       const ps_dev_rec_plan *pl)
{
    const ps_gpu_kernels *first = ps_gpu_kernels_for(
        ps_rec_word_bytes(job->word[0].bits), 8);
    char *base = job->scratch;
    void *perm = base + pl->region[PS_DEV_REC_PERM].off;
    unsigned long long zero = 0, n64 = job->n;
    void *iota_args[] = { &perm, &zero, &n64 };
    size_t w, j;
    int st = ps_gpu_launch(host, first->topk_iota, pl->groups, iota_args, job->stream,
                           "records: ps_topk_iota");
    for (w = job->nwords; st == PS_OK && job->n >= 2 && w-- > 0;) {
        const ps_rec_word *word = &job->word[w];
        unsigned wb = ps_rec_word_bytes(word->bits);
        const ps_gpu_kernels *kt = ps_gpu_kernels_for(wb, 8);
        ps_gpu_job s = { .keys = base + pl->region[PS_DEV_REC_IMG].off, .vals = perm,
                         .val_bytes = 8, .n = job->n, .type = word_type(wb),
                         .flags = 0, .scratch = base + pl->region[PS_DEV_REC_SORT].off,
                         .stream = job->stream, .skip_constant = 0 };
        for (j = 0; st == PS_OK && j < word->count; j++)
            st = key_images(host, job, word->first + j, j == 0, kt, pl);
        if (st == PS_OK)
            st = ps_gpu_enqueue(host, &s);
    }
    if (st == PS_OK)
        st = finish(host, job, first, pl);
    return st;
}
