/*
 * ps_opencl_records.c - the device records sorts on a command queue
 * (ps_opencl_sort_records, ps_opencl_argsort_records and
 * ps_opencl_argsort_columns of <portsort_opencl.h>).
 *
 * The rows are numbered in the scratch (ps_topk_iota); then each word of
 * the plan (lib/ps_recplan.h, as the host form makes it), least
 * significant first, gets its images (ps_rec_key, a launch per key,
 * reading the rows through the permutation so far) and is sorted with the
 * permutation as 8-byte values by the stable pair sort (ps_cl_sort), in
 * the program of the word's width.  The last step is the only one that
 * writes the caller's buffers: a copy of the permutation to perm, or for
 * sort_records ps_rec_gather into the scratch and a copy back over the
 * records.  The scratch layout comes from the device plan
 * (ps_dev_plan_records), which the CUDA and HIP host code shares; the
 * kernels are backends/kernels/ps_kernel_records.cl.
 */
#include <config.h>

#include <string.h>

#include "ps_opencl_internal.h"
#include "ps_recplan.h"

void ps_cl_rec_tunes(cl_device_id dev, ps_dev_tune tune[4])
{
    unsigned i;
    for (i = 0; i < 4; i++) {
        ps_cl_tune t = ps_cl_tune_for(dev, 8u << i, 8);
        tune[i] = ps_cl_dev_tune(&t);
    }
}

/* Key k's images (the word's first key when first) into IMG, as words of
 * program p's key width. */
static int key_images(const ps_host *host, const ps_cl_recjob *job, size_t k,
                      int first, ps_cl_prog *p, int ooo, cl_mem scratch,
                      const ps_dev_rec_plan *pl)
{
    const ps_rec_key *key = &job->key[k];
    cl_ulong soff = job->koff[k] + key->off, stride = key->stride;
    cl_ulong flip = key->xf.flip, fneg = key->xf.fneg, n = job->n;
    cl_ulong poff = pl->region[PS_DEV_REC_PERM].off / 8;
    cl_ulong ioff = pl->region[PS_DEV_REC_IMG].off / (p->key_bits / 8);
    cl_uint kb = key->kb, shift = key->shift, fst = first != 0;
    ps_cl_karg a[] = {
        PS_CL_KA(job->kmem[k]), PS_CL_KA(soff), PS_CL_KA(stride), PS_CL_KA(kb),
        PS_CL_KA(flip), PS_CL_KA(fneg), PS_CL_KA(shift), PS_CL_KA(fst),
        PS_CL_KA(scratch), PS_CL_KA(poff), PS_CL_KA(scratch), PS_CL_KA(ioff),
        PS_CL_KA(n),
    };
    int st;
    pthread_mutex_lock(&p->lock);
    st = ps_cl_run(host, job->q, ooo, p->rec_key, a, sizeof a / sizeof *a,
                   pl->groups, p->tune.wg, "ps_rec_key");
    pthread_mutex_unlock(&p->lock);
    return st;
}

/* Word w: its keys' images, then (n >= 2) the images sorted with the
 * permutation, in the program of the word's width. */
static int sort_word(const ps_host *host, const ps_cl_recjob *job, size_t w,
                     cl_context ctx, cl_device_id dev, int ooo, cl_mem scratch,
                     const ps_dev_rec_plan *pl)
{
    const ps_rec_word *word = &job->word[w];
    unsigned wb = ps_rec_word_bytes(word->bits);
    ps_cl_prog *p;
    ps_cl_job s;
    size_t j;
    int st;
    p = ps_cl_program_get(host, ctx, dev, 8 * wb, 8, &st);
    if (p == NULL)
        return st;
    for (j = 0; j < word->count; j++) {
        st = key_images(host, job, word->first + j, j == 0, p, ooo, scratch, pl);
        if (st != PS_OK)
            return st;
    }
    s = (ps_cl_job){ .q = job->q, .keys = scratch,
                     .koff = pl->region[PS_DEV_REC_IMG].off / wb, .vals = scratch,
                     .voff = pl->region[PS_DEV_REC_PERM].off / 8, .n = job->n,
                     .type = wb == 1 ? PS_U8 : wb == 2 ? PS_U16
                           : wb == 4 ? PS_U32 : PS_U64, .flags = 0, .val_bytes = 8,
                     .scratch = scratch,
                     .scratch_bytes = pl->region[PS_DEV_REC_SORT].bytes };
    return ps_cl_sort(host, &s);
}

/* The rows numbered into PERM, under program p's lock. */
static int number(const ps_host *host, const ps_cl_recjob *job, ps_cl_prog *p,
                  int ooo, cl_mem scratch, const ps_dev_rec_plan *pl)
{
    cl_ulong ioff = pl->region[PS_DEV_REC_PERM].off / 8, n = job->n;
    ps_cl_karg a[] = { PS_CL_KA(scratch), PS_CL_KA(ioff), PS_CL_KA(n) };
    int st;
    pthread_mutex_lock(&p->lock);
    st = ps_cl_run(host, job->q, ooo, p->topk_iota, a, 3, pl->groups, p->tune.wg,
                   "ps_topk_iota");
    pthread_mutex_unlock(&p->lock);
    return st;
}

/* The result into the caller's buffer: the permutation copied to perm,
 * or the records gathered into COPY and copied back over them. */
static int finish(const ps_host *host, const ps_cl_recjob *job, ps_cl_prog *p,
                  int ooo, cl_mem scratch, const ps_dev_rec_plan *pl)
{
    size_t poff = pl->region[PS_DEV_REC_PERM].off;
    cl_int err;
    int st;
    if (job->perm != NULL) {
        err = clEnqueueCopyBuffer(job->q, scratch, job->perm, poff, job->poff * 8,
                                  job->n * 8, 0, NULL, NULL);
        if (err == CL_SUCCESS && ooo)
            err = clEnqueueBarrierWithWaitList(job->q, 0, NULL, NULL);
        return err == CL_SUCCESS ? PS_OK
             : ps_cl_status(host, err, "argsort records: clEnqueueCopyBuffer");
    }
    {
        cl_ulong soff = job->roff, doff = pl->region[PS_DEV_REC_COPY].off;
        cl_ulong pw = poff / 8, size = job->record_bytes, n = job->n;
        ps_cl_karg a[] = { PS_CL_KA(job->rec), PS_CL_KA(soff), PS_CL_KA(scratch),
                           PS_CL_KA(doff), PS_CL_KA(scratch), PS_CL_KA(pw),
                           PS_CL_KA(size), PS_CL_KA(n) };
        pthread_mutex_lock(&p->lock);
        st = ps_cl_run(host, job->q, ooo, p->rec_gather, a, sizeof a / sizeof *a,
                       pl->gather_groups, p->tune.wg, "ps_rec_gather");
        pthread_mutex_unlock(&p->lock);
    }
    if (st != PS_OK)
        return st;
    err = clEnqueueCopyBuffer(job->q, scratch, job->rec,
                              pl->region[PS_DEV_REC_COPY].off, job->roff,
                              job->n * job->record_bytes, 0, NULL, NULL);
    if (err == CL_SUCCESS && ooo)
        err = clEnqueueBarrierWithWaitList(job->q, 0, NULL, NULL);
    return err == CL_SUCCESS ? PS_OK
         : ps_cl_status(host, err, "sort records: clEnqueueCopyBuffer");
}

int ps_cl_records(const ps_host *host, const ps_cl_recjob *job)
{
    cl_context ctx = NULL;
    cl_device_id dev = NULL;
    cl_mem scratch = job->scratch;
    ps_dev_rec_plan pl;
    ps_dev_tune tune[4];
    ps_cl_prog *p;
    cl_int err = CL_SUCCESS;
    size_t w;
    int st, ooo;

    st = ps_cl_queue_info(host, job->q, &ctx, &dev, &ooo);
    if (st != PS_OK)
        return st;
    ps_cl_rec_tunes(dev, tune);
    st = ps_dev_plan_records(&pl, tune, job->n, job->perm != NULL ? 0 : job->record_bytes,
                             host);
    if (st != PS_OK || pl.bytes == 0)
        return st;
    if (scratch != NULL && job->scratch_bytes < pl.bytes) {
        host->fail("opencl: records: scratch of %zu bytes is smaller than the %zu "
                   "needed", job->scratch_bytes, pl.bytes);
        return PS_ERR_INVALID_ARG;
    }
    /* The numbering and the last step run in the program of the first
     * word, the one sorted last: no program is built for them alone. */
    p = ps_cl_program_get(host, ctx, dev, 8 * ps_rec_word_bytes(job->word[0].bits),
                          8, &st);
    if (p == NULL)
        return st;
    if (scratch == NULL) {
        scratch = ps_cl_create_buffer(ctx, pl.bytes, &err);
        if (scratch == NULL || err != CL_SUCCESS)
            return ps_cl_status(host, err, "clCreateBuffer (records scratch)");
    } else {
        clRetainMemObject(scratch);
    }
    st = number(host, job, p, ooo, scratch, &pl);
    for (w = job->nwords; st == PS_OK && job->n >= 2 && w-- > 0;)
        st = sort_word(host, job, w, ctx, dev, ooo, scratch, &pl);
    if (st == PS_OK)
        st = finish(host, job, p, ooo, scratch, &pl);
    /* Released now, freed by the runtime once the queued work finishes. */
    clReleaseMemObject(scratch);
    if (st == PS_OK)
        clFlush(job->q);
    return st;
}
