/*
 * ps_opencl_internal.h - shared by the OpenCL backend's files only.
 */
#ifndef PS_OPENCL_INTERNAL_H
#define PS_OPENCL_INTERNAL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>

#include "ps_backend.h"
#include "ps_device_plan.h"

/* How the kernels are cut for one device (see doc/opencl-tuning.md). */
typedef struct ps_cl_tune {
    unsigned wg;          /* work-group size */
    unsigned items;       /* keys per work-item per tile */
    unsigned bits;        /* digit bits */
    unsigned max_blocks;  /* most work-groups in a pass */
    unsigned onesweep;    /* the Onesweep kernels are built and used (8-bit
                             digits): GPUs, or PORTSORT_OPENCL_ALGO */
    size_t os_portion;    /* Onesweep: most tiles one launch covers, so that
                             its 30-bit status counts never overflow */
    unsigned seg_small;   /* segmented sort: the longest segment of the
                             small class (PS_SEG_SMALL, 2 .. tile) */
    unsigned seg_huge;    /* segmented sort: segments of this many keys and
                             more take the plain sort, one each */
} ps_cl_tune;

/* One built program: a (context, device, key width, value width, tuning)
 * combination, with its kernels.  Kernels carry their arguments, so the
 * set-arguments-and-enqueue sequence of a sort runs under `lock`. */
typedef struct ps_cl_prog {
    struct ps_cl_prog *next;
    cl_context ctx;
    cl_device_id dev;
    unsigned key_bits, val_bytes;
    ps_cl_tune tune;
    cl_program program;
    cl_kernel hist, upsweep, scan, downsweep, local;
    cl_kernel os_hist, os_scan, onesweep;   /* NULL unless tune.onesweep */
    cl_kernel seg_classify, seg_small, seg_medium, seg_up, seg_down;
    cl_kernel topk_iota, topk_gather;       /* the device top-k's */
    cl_kernel rec_key, rec_gather;          /* the device records sorts' */
    pthread_mutex_t lock;
} ps_cl_prog;

/* ps_opencl_device.c: find the device PORTSORT_OPENCL_DEVICE names (or the
 * automatic choice).  Returns 0 and fills *dev and *plat, or -1 with why. */
int ps_cl_pick_device(cl_platform_id *plat, cl_device_id *dev, char *why,
                      size_t why_len);
void ps_cl_device_name(cl_device_id dev, char *buf, size_t len);

/* ps_opencl_tune.c: the backend's check_env (PORTSORT_OPENCL_TUNE and
 * PORTSORT_OPENCL_ALGO): 0, or -1 with why naming what is accepted. */
int ps_cl_check_env(char *why, size_t why_len);

/* ps_opencl_tune.c: how the kernels are cut for this device and these
 * widths, PORTSORT_OPENCL_TUNE and PORTSORT_OPENCL_ALGO applied. */
ps_cl_tune ps_cl_tune_for(cl_device_id dev, unsigned key_bits,
                          unsigned val_bytes);

/* ps_opencl_program.c: the program for these parameters, from the module's
 * table, the on-disk cache, or a fresh build.  NULL with host->fail called. */
ps_cl_prog *ps_cl_program_get(const ps_host *host, cl_context ctx,
                              cl_device_id dev, unsigned key_bits,
                              unsigned val_bytes, int *status);
void ps_cl_program_release_all(void);

/* ps_opencl_cache.c: the on-disk cache of program binaries, one entry per
 * (kernel source, build options, device, driver, platform).  Nothing here
 * fails a sort: every problem means "build from source" (with why under
 * PORTSORT_VERBOSE=1). */
typedef struct ps_cl_cache ps_cl_cache;
/* The entry of the program built from `source` with `options` on `dev`,
 * or NULL when this build uses no cache (PORTSORT_OPENCL_NO_CACHE, no
 * cache directory).  Close it with ps_cl_cache_close. */
ps_cl_cache *ps_cl_cache_open(const ps_host *host, cl_device_id dev,
                              const char *source, size_t source_len,
                              const char *options);
/* The stored binary (malloc'ed, *len bytes; the caller frees it), or NULL
 * when the entry is absent or not usable. */
unsigned char *ps_cl_cache_read(ps_cl_cache *c, size_t *len);
/* Store a freshly built binary for the entry; failures are only logged. */
void ps_cl_cache_write(ps_cl_cache *c, const unsigned char *bin, size_t len);
/* The entry's file name, for messages. */
const char *ps_cl_cache_file(const ps_cl_cache *c);
/* Accepts NULL. */
void ps_cl_cache_close(ps_cl_cache *c);

/* ps_opencl_sort.c: sort on a queue; buffers with element offsets, each
 * range inside its buffer and none sharing a byte with another (the
 * device API checks the caller's; the host-array path makes its own). */
typedef struct ps_cl_job {
    cl_command_queue q;
    cl_mem keys;          /* sorted in place */
    size_t koff;          /* in keys */
    cl_mem vals;          /* NULL for keys only */
    size_t voff;          /* in values */
    size_t n;
    ps_type type;
    unsigned flags;
    unsigned val_bytes;   /* 0, 4 or 8 */
    cl_mem scratch;       /* NULL: allocated and released here */
    size_t scratch_bytes;
} ps_cl_job;

/* The device plan's tuning (backends/device/ps_device_plan.h) from this
 * device's: the plan gives the tiles, passes and scratch layout of every
 * sort and answers the scratch-size queries. */
ps_dev_tune ps_cl_dev_tune(const ps_cl_tune *tune);
int ps_cl_sort(const ps_host *host, const ps_cl_job *job);
/* The queue's context, device and whether it runs out of order; a queue
 * that does not answer is PS_ERR_INVALID_ARG, with host->fail. */
int ps_cl_queue_info(const ps_host *host, cl_command_queue q, cl_context *ctx,
                     cl_device_id *dev, int *ooo);

/* ps_opencl_segments.c: a segmented sort on a queue.  offs holds
 * nseg + 1 64-bit offsets from its start, relative to koff and voff;
 * buffers as for ps_cl_sort. */
typedef struct ps_cl_segjob {
    cl_command_queue q;
    cl_mem keys, vals;    /* vals NULL for keys only */
    size_t koff, voff;    /* in elements */
    cl_mem offs;
    size_t n, nseg;
    ps_type type;
    unsigned flags;
    unsigned val_bytes;   /* 0, 4 or 8 */
    cl_mem scratch;       /* NULL: allocated and released here */
    size_t scratch_bytes;
} ps_cl_segjob;

int ps_cl_sort_segments(const ps_host *host, const ps_cl_segjob *job);

/* ps_opencl_segments.c: one kernel launch on `groups` work-groups of wg,
 * its na arguments set first (one sequence under the program's lock: the
 * kernel holds them), with a barrier after it on an out-of-order queue;
 * a failure is a status, with host->fail naming `what`. */
typedef struct ps_cl_karg {
    size_t size;
    const void *v;
} ps_cl_karg;
#define PS_CL_KA(v) { sizeof(v), &(v) }
int ps_cl_run(const ps_host *host, cl_command_queue q, int ooo, cl_kernel k,
              const ps_cl_karg *a, cl_uint na, size_t groups, size_t wg,
              const char *what);

/* ps_opencl_topk.c: a top-k on a queue (the cl_mem API's ps_opencl_topk
 * and ps_opencl_topk_segments), after the API's checks: buffers with
 * element offsets, each range inside its buffer, none sharing a byte with
 * another.  offs NULL for one array, else nseg + 1 64-bit offsets from its
 * start, relative to koff and voff.  vals and ovals NULL, or both given
 * with val_bytes 4 or 8; oidx may be NULL. */
typedef struct ps_cl_topkjob {
    cl_command_queue q;
    cl_mem keys, vals, offs, okeys, ovals, oidx;
    size_t koff, voff, okoff, ovoff, oioff;
    size_t n, k, nseg;
    ps_type type;
    unsigned flags;
    unsigned val_bytes;   /* 0, 4 or 8 */
    cl_mem scratch;       /* NULL: allocated and released here */
    size_t scratch_bytes;
} ps_cl_topkjob;

int ps_cl_topk(const ps_host *host, const ps_cl_topkjob *job);

/* ps_opencl_records.c: a records or columns sort on a queue (the cl_mem
 * API's ps_opencl_sort_records, _argsort_records, _argsort_columns), after
 * the API's checks.  Key i's element r is at byte koff[i] + r *
 * key[i].stride + key[i].off of buffer kmem[i] (the records buffer for
 * every field, or column i); words as ps_rec_pack made them.  perm NULL:
 * sort the records (rec, from byte roff, record_bytes each) in place;
 * else write the permutation (cl_ulong) to perm from element poff. */
typedef struct ps_cl_recjob {
    cl_command_queue q;
    const cl_mem *kmem;
    const size_t *koff;
    const struct ps_rec_key *key;
    const struct ps_rec_word *word;
    size_t nwords;
    size_t n;
    cl_mem rec;
    size_t roff, record_bytes;
    cl_mem perm;
    size_t poff;
    cl_mem scratch;       /* NULL: allocated and released here */
    size_t scratch_bytes;
} ps_cl_recjob;

/* The four tunings a records plan takes (ps_dev_plan_records), for dev. */
void ps_cl_rec_tunes(cl_device_id dev, ps_dev_tune tune[4]);
int ps_cl_records(const ps_host *host, const ps_cl_recjob *job);

/* clCreateBuffer for every device allocation of the backend, so that tests
 * can make the k-th one fail: PORTSORT_TEST_FAIL_DEVICE_ALLOC=k counts the
 * allocations of the process and fails the k-th with
 * CL_MEM_OBJECT_ALLOCATION_FAILURE (ps_opencl_device.c). */
cl_mem ps_cl_create_buffer(cl_context ctx, size_t bytes, cl_int *err);
/* A non-blocking read of `bytes` from the start of buf, for every read of a
 * host-array result, so that tests can make the k-th one fail:
 * PORTSORT_TEST_FAIL_DEVICE_READ=k counts these reads in the process and
 * fails the k-th with CL_OUT_OF_RESOURCES (how drivers report a device
 * lost mid-copy) without enqueuing it (ps_opencl_device.c). */
cl_int ps_cl_read_result(cl_command_queue q, cl_mem buf, size_t bytes, void *dst);

/* ps_opencl_error.c: the name of an OpenCL status ("CL_OUT_OF_RESOURCES"). */
const char *ps_cl_errname(cl_int err);
/* ps_opencl_error.c: OpenCL status -> libportsort status, with
 * host->fail(what, err). */
int ps_cl_status(const ps_host *host, cl_int err, const char *what);

/* ps_opencl_api.c: the cl_mem API's table (portsort_opencl.h), and the
 * host services its functions use, set by init. */
struct ps_opencl_api;
extern const struct ps_opencl_api ps_cl_device_api;
void ps_cl_api_set_host(const ps_host *host);

#endif /* PS_OPENCL_INTERNAL_H */
