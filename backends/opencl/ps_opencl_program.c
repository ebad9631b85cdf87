/*
 * ps_opencl_program.c - kernel programs: tuning per device, run-time builds
 * of the embedded source with -D parameters, and the on-disk cache of
 * program binaries.
 *
 * A build costs about a second on pocl (much more on some GPU drivers), and
 * each (key width, value width, tuning) combination is its own program, so
 * binaries are kept under $XDG_CACHE_HOME/portsort (default
 * ~/.cache/portsort), one file per key: a hash of the platform, device,
 * driver version, kernel source and build options.  A file is
 * "PSCLBIN1", payload length, payload hash, payload: a truncated or damaged
 * file fails our own check; one the driver rejects (CL_INVALID_BINARY, a
 * failed build) is rebuilt from source and overwritten.  Files are written
 * to a temporary name and renamed, so readers never see half a file.  When
 * the directory cannot be created or written, programs are simply built
 * every time.
 */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ps_opencl_internal.h"
#include "ps_opencl_source.h"   /* generated: ps_opencl_source[] */

static ps_cl_prog *progs;
static pthread_mutex_t progs_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t fnv64(uint64_t h, const void *p, size_t len)
{
    const unsigned char *c = p;
    size_t i;
    for (i = 0; i < len; i++) {
        h ^= c[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
#define FNV_INIT 0xcbf29ce484222325ull

static unsigned env_uint(const char *spec, const char *key, unsigned dflt)
{
    const char *p = spec != NULL ? strstr(spec, key) : NULL;
    size_t kl = strlen(key);
    if (p == NULL || p[kl] != '=')
        return dflt;
    return (unsigned)strtoul(p + kl + 1, NULL, 10);
}

/* Local memory the largest kernel (ps_downsweep / ps_sort_local, and
 * ps_onesweep when built) needs. */
static size_t local_bytes(const ps_cl_tune *t, unsigned kb, unsigned vb)
{
    size_t radix = (size_t)1 << t->bits, tile = (size_t)t->wg * t->items;
    size_t cnt = radix * t->wg + radix * t->wg / 32;   /* PS_CNT_WORDS */
    size_t rts = 2 * tile * (kb + vb) + cnt * 4 + t->wg * 4
                 + (2 * radix + 1) * 4;
    size_t os = 2 * tile * (kb + vb) + 16 * t->wg * 4 + t->wg * 4 + 4 * 256 * 4 + 7 * 4;
    size_t small = t->seg_small < tile ? t->seg_small : tile;
    size_t seg = t->wg == 1                              /* ps_seg_small */
        ? (tile + small) * (kb + vb) + tile * (kb + vb) + radix * 4
        : (tile + small) * (kb + vb + 8);
    size_t most = t->onesweep && os > rts ? os : rts;
    return seg > most ? seg : most;
}

/*
 * CPU devices (pocl): one work-item per work-group.  pocl runs each
 * work-group as a loop on one core, so a "work-group" of one item is a
 * plain serial counting sort of its tiles: no barrier overhead, 8-bit
 * digits (4 passes for u32), large tiles, and a few blocks per core for
 * balance.  GPUs: 128 work-items (a multiple of every vendor's warp or
 * wavefront), 4-bit digits so the per-item counter matrix (16 x 128 x 4
 * bytes) plus two tiles fit in 32 KiB of local memory, 8 keys per item,
 * and enough blocks to fill every compute unit several times.
 * PORTSORT_OPENCL_TUNE="wg=..,items=..,bits=..,blocks=..,portion=..,
 * seg=..,huge=.." overrides (tests use it to run the GPU-shaped path on
 * pocl, Onesweep over portions of a few tiles, and every class of the
 * segmented sort: seg is the longest small segment, huge the length from
 * which a segment takes the plain sort alone).
 *
 * Sorts of more than one tile run the Onesweep kernels
 * (ps_kernel_onesweep.cl) on GPUs and reduce-then-scan elsewhere: on
 * pocl's CPU device Onesweep, whose portable ranking makes two passes
 * over each tile in local memory, runs at about half the speed of
 * reduce-then-scan's one-item work-groups (doc/opencl-tuning.md).
 * PORTSORT_OPENCL_ALGO=onesweep or =portable forces either.  Onesweep's
 * look-back needs no forward progress between work-groups, which OpenCL
 * does not promise: a work-group that waits too long for another counts
 * that one's keys itself.
 */
ps_cl_tune ps_cl_tune_for(cl_device_id dev, unsigned key_bits, unsigned val_bytes)
{
    cl_device_type type = 0;
    cl_uint cus = 1;
    cl_ulong lmem = 32768;
    size_t maxwg = 1;
    ps_cl_tune t;
    const char *spec = getenv("PORTSORT_OPENCL_TUNE"), *spec0 = spec;
    unsigned kb = key_bits / 8;

    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxwg, &maxwg, NULL);
    if (cus == 0)
        cus = 1;
    if (type & CL_DEVICE_TYPE_GPU) {
        t.wg = 128;
        t.items = key_bits == 64 ? 4 : 8;
        t.bits = 4;
        t.max_blocks = cus * 16;
    } else {
        t.wg = 1;
        t.items = 2048;
        t.bits = 8;
        t.max_blocks = cus * 4;
    }
    t.wg = env_uint(spec, "wg", t.wg);
    t.items = env_uint(spec, "items", t.items);
    t.bits = env_uint(spec, "bits", t.bits);
    t.max_blocks = env_uint(spec, "blocks", t.max_blocks);
    t.seg_small = env_uint(spec, "seg", 0);     /* 0: chosen below */
    t.seg_huge = env_uint(spec, "huge", 1u << 20);
    spec = getenv("PORTSORT_OPENCL_ALGO");
    t.onesweep = (type & CL_DEVICE_TYPE_GPU) != 0;
    if (spec != NULL && strcmp(spec, "onesweep") == 0)
        t.onesweep = 1;
    else if (spec != NULL && strcmp(spec, "portable") == 0)
        t.onesweep = 0;
    /* Keep to what the kernels support: a power-of-two work-group within
     * the device's limit, 1..8 digit bits, then shrink the tile and the
     * radix until local memory suffices. */
    while (t.wg > 1 && (t.wg > maxwg || (t.wg & (t.wg - 1)) != 0))
        t.wg >>= 1;
    if (t.wg == 0)
        t.wg = 1;
    if (t.onesweep && t.wg > 256)
        t.wg = 256;     /* ps_kernel_onesweep.cl: at most one item per digit */
    if (t.bits < 1 || t.bits > 8)
        t.bits = 8;
    if (t.bits > key_bits)
        t.bits = key_bits;
    if (t.items == 0)
        t.items = 1;
    if (t.max_blocks == 0)
        t.max_blocks = 1;
    /* One item per work-group (CPU devices): every segment of a tile
     * goes through the window kernel, whose one item sorts them in turn
     * as the reference sort does (a work-group per segment would cost
     * pocl more than the sort).  GPUs: see PS_GPU_SEG_SMALL in
     * backends/gpu/ps_gpu_tune.h; 32 for the GPU-shaped tunings on CPUs,
     * so that tests see every class. */
    if (t.seg_small == 0)
        t.seg_small = t.wg == 1 ? t.wg * t.items : (type & CL_DEVICE_TYPE_GPU) ? 256 : 32;
    if (t.seg_small < 2)
        t.seg_small = 2;
    while (local_bytes(&t, kb, val_bytes) > lmem && t.items > 1)
        t.items >>= 1;
    while (local_bytes(&t, kb, val_bytes) > lmem && t.bits > 1)
        t.bits--;
    while (local_bytes(&t, kb, val_bytes) > lmem && t.wg > 1)
        t.wg >>= 1;
    /* A tile of two keys at least: the segment kernels share the program
     * and need a small class of 2 .. tile, so a tuning of wg=1,items=1
     * would otherwise fail the build of every sort. */
    if (t.wg * t.items < 2)
        t.items = 2;
    /* The segmented sort's small class ends at a tile at most. */
    if (t.seg_small > t.wg * t.items)
        t.seg_small = t.wg * t.items;
    /* Onesweep portions of about 2^28 keys (CUB's), never 2^30. */
    {
        size_t tile = (size_t)t.wg * t.items, most = (((size_t)1 << 30) - 1) / tile;
        t.os_portion = env_uint(spec0, "portion", (unsigned)(((size_t)1 << 28) / tile));
        if (t.os_portion == 0)
            t.os_portion = 1;
        if (t.os_portion > most)
            t.os_portion = most;
    }
    return t;
}

static const char *cache_dir(char *buf, size_t len)
{
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (x != NULL && x[0] == '/')
        snprintf(buf, len, "%s/portsort", x);
    else if (home != NULL && home[0] != '\0')
        snprintf(buf, len, "%s/.cache/portsort", home);
    else
        return NULL;
    return buf;
}

/* mkdir -p for the cache directory; failure just means no cache. */
static int make_dirs(char *path)
{
    char *p;
    for (p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            *p = '/';
            return -1;
        }
        *p = '/';
    }
    return mkdir(path, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static void info_str(cl_device_id dev, cl_device_info what, char *buf, size_t len)
{
    buf[0] = '\0';
    clGetDeviceInfo(dev, what, len, buf, NULL);
    buf[len - 1] = '\0';
}

static uint64_t cache_key(cl_device_id dev, const char *options)
{
    char s[512];
    cl_platform_id plat = NULL;
    uint64_t h = FNV_INIT;
    static const cl_device_info infos[] = { CL_DEVICE_NAME, CL_DEVICE_VENDOR,
        CL_DEVICE_VERSION, CL_DRIVER_VERSION };
    size_t i;
    for (i = 0; i < sizeof infos / sizeof infos[0]; i++) {
        info_str(dev, infos[i], s, sizeof s);
        h = fnv64(h, s, strlen(s) + 1);
    }
    if (clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL) == CL_SUCCESS) {
        s[0] = '\0';
        clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof s, s, NULL);
        s[sizeof s - 1] = '\0';
        h = fnv64(h, s, strlen(s) + 1);
    }
    h = fnv64(h, ps_opencl_source, sizeof ps_opencl_source);
    return fnv64(h, options, strlen(options) + 1);
}

static const char magic[8] = { 'P', 'S', 'C', 'L', 'B', 'I', 'N', '1' };

/* The payload of a cache file, or NULL when absent or damaged. */
static unsigned char *cache_read(const ps_host *host, const char *file, size_t *len)
{
    FILE *f = fopen(file, "rb");
    unsigned char hdr[24], *buf;
    uint64_t n, h;
    if (f == NULL)
        return NULL;
    if (fread(hdr, 1, sizeof hdr, f) != sizeof hdr || memcmp(hdr, magic, 8) != 0) {
        fclose(f);
        host->log("opencl: cache file %s is damaged; rebuilding", file);
        return NULL;
    }
    memcpy(&n, hdr + 8, 8);
    memcpy(&h, hdr + 16, 8);
    buf = n > 0 && n < ((uint64_t)1 << 30) ? malloc((size_t)n) : NULL;
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != n || fgetc(f) != EOF
        || fnv64(FNV_INIT, buf, (size_t)n) != h) {
        free(buf);
        fclose(f);
        host->log("opencl: cache file %s is damaged; rebuilding", file);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void cache_write(const ps_host *host, const char *dir, const char *file,
                        const unsigned char *bin, size_t len)
{
    char tmp[4400], dcopy[4096];
    unsigned char hdr[24];
    uint64_t n = len, h = fnv64(FNV_INIT, bin, len);
    FILE *f;
    int ok;
    snprintf(dcopy, sizeof dcopy, "%s", dir);
    if (make_dirs(dcopy) != 0) {
        host->log("opencl: cannot create cache directory %s: %s; not caching",
                  dir, strerror(errno));
        return;
    }
    /* pid and a per-process counter: concurrent writers never share a
     * temporary file; the last rename wins with a complete file. */
    {
        static unsigned long seq;
        unsigned long s = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%lu", file, (long)getpid(), s);
    }
    f = fopen(tmp, "wb");
    if (f == NULL) {
        host->log("opencl: cannot write %s: %s; not caching", tmp, strerror(errno));
        return;
    }
    memcpy(hdr, magic, 8);
    memcpy(hdr + 8, &n, 8);
    memcpy(hdr + 16, &h, 8);
    ok = fwrite(hdr, 1, sizeof hdr, f) == sizeof hdr
         && fwrite(bin, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, file) != 0) {
        host->log("opencl: cannot write %s; not caching", file);
        unlink(tmp);
        return;
    }
    host->log("opencl: cached program binary %s", file);
}

static void log_build(const ps_host *host, cl_program prog, cl_device_id dev)
{
    size_t len = 0;
    char *log;
    if (!host->verbose)
        return;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len)
        != CL_SUCCESS || len == 0)
        return;
    log = malloc(len + 1);
    if (log == NULL)
        return;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL)
        == CL_SUCCESS) {
        log[len] = '\0';
        host->log("opencl: build log:\n%s", log);
    }
    free(log);
}

/* A built program: from the cache when possible, else from source (and
 * then cached).  Returns NULL with *status set on failure. */
static cl_program build(const ps_host *host, cl_context ctx, cl_device_id dev,
                        const char *options, int *status)
{
    char dirbuf[4096], file[4200];
    const char *dir = cache_dir(dirbuf, sizeof dirbuf);
    const char *src = ps_opencl_source;
    unsigned char *bin = NULL;
    size_t len = 0;
    cl_program prog;
    cl_int err, binst;

    if (getenv("PORTSORT_OPENCL_NO_CACHE") != NULL)
        dir = NULL;
    if (dir != NULL) {
        snprintf(file, sizeof file, "%s/%016llx.bin", dir,
                 (unsigned long long)cache_key(dev, options));
        bin = cache_read(host, file, &len);
    }
    if (bin != NULL) {
        const unsigned char *b = bin;
        prog = clCreateProgramWithBinary(ctx, 1, &dev, &len, &b, &binst, &err);
        if (prog != NULL && err == CL_SUCCESS && binst == CL_SUCCESS
            && clBuildProgram(prog, 1, &dev, options, NULL, NULL) == CL_SUCCESS) {
            free(bin);
            host->log("opencl: program from cache %s", file);
            return prog;
        }
        host->log("opencl: cached binary %s rejected by the driver (%s); rebuilding",
                  file, ps_cl_errname(err != CL_SUCCESS ? err : binst));
        if (prog != NULL)
            clReleaseProgram(prog);
        free(bin);
    }
    prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (prog == NULL || err != CL_SUCCESS) {
        *status = ps_cl_status(host, err, "clCreateProgramWithSource");
        return NULL;
    }
    host->log("opencl: building kernels with %s", options);
    err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        log_build(host, prog, dev);
        clReleaseProgram(prog);
        if (err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY)
            *status = ps_cl_status(host, err, "clBuildProgram");
        else {
            host->fail("opencl: kernel build failed (%s); PORTSORT_VERBOSE=1 "
                       "prints the build log", ps_cl_errname(err));
            *status = PS_ERR_DEVICE;
        }
        return NULL;
    }
    if (dir != NULL) {
        size_t blen = 0;
        if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof blen, &blen, NULL)
                == CL_SUCCESS && blen > 0 && (bin = malloc(blen)) != NULL) {
            unsigned char *bp = bin;
            if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bp, &bp, NULL)
                    == CL_SUCCESS)
                cache_write(host, dirbuf, file, bin, blen);
            free(bin);
        }
    }
    return prog;
}

static void prog_free(ps_cl_prog *p)
{
    cl_kernel *ks[] = { &p->hist, &p->upsweep, &p->scan, &p->downsweep, &p->local,
                        &p->os_hist, &p->os_scan, &p->onesweep, &p->seg_classify,
                        &p->seg_small, &p->seg_medium, &p->seg_up, &p->seg_down };
    size_t i;
    for (i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (*ks[i] != NULL)
            clReleaseKernel(*ks[i]);
    if (p->program != NULL)
        clReleaseProgram(p->program);
    if (p->ctx != NULL)
        clReleaseContext(p->ctx);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

ps_cl_prog *ps_cl_program_get(const ps_host *host, cl_context ctx,
                              cl_device_id dev, unsigned key_bits,
                              unsigned val_bytes, int *status)
{
    ps_cl_tune tune = ps_cl_tune_for(dev, key_bits, val_bytes);
    ps_cl_prog *p;
    char options[512];
    const char *extra;
    cl_int err = CL_SUCCESS;

    /* The table lock is held across a build: two threads asking for the
     * same program must not build it twice, and builds are rare. */
    pthread_mutex_lock(&progs_lock);
    for (p = progs; p != NULL; p = p->next)
        if (p->ctx == ctx && p->dev == dev && p->key_bits == key_bits
            && p->val_bytes == val_bytes && p->tune.wg == tune.wg
            && p->tune.items == tune.items && p->tune.bits == tune.bits
            && p->tune.onesweep == tune.onesweep
            && p->tune.seg_small == tune.seg_small) {
            pthread_mutex_unlock(&progs_lock);
            return p;
        }
    p = calloc(1, sizeof *p);
    if (p == NULL) {
        pthread_mutex_unlock(&progs_lock);
        host->fail("opencl: out of host memory");
        *status = PS_ERR_NO_MEMORY;
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    p->ctx = ctx;
    clRetainContext(ctx);
    p->dev = dev;
    p->key_bits = key_bits;
    p->val_bytes = val_bytes;
    p->tune = tune;
    /* PORTSORT_OPENCL_OPTIONS appends build options (experiments, and the
     * test of a failing build); it is part of the cache key like the rest. */
    extra = getenv("PORTSORT_OPENCL_OPTIONS");
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -DPS_KEY_BITS=%u -DPS_VAL_BYTES=%u -DPS_DIGIT_BITS=%u "
             "-DPS_WG=%u -DPS_ITEMS=%u -DPS_SEG_SMALL=%u %s%s", key_bits, val_bytes,
             tune.bits, tune.wg, tune.items, tune.seg_small,
             tune.onesweep ? "-DPS_WITH_ONESWEEP=1 " : "",
             extra != NULL ? extra : "");
    p->program = build(host, ctx, dev, options, status);
    if (p->program == NULL) {
        pthread_mutex_unlock(&progs_lock);
        prog_free(p);
        return NULL;
    }
#define KERNEL(field, name)                                         \
    if (err == CL_SUCCESS)                                          \
        p->field = clCreateKernel(p->program, name, &err);
    KERNEL(hist, "ps_hist")
    KERNEL(upsweep, "ps_upsweep")
    KERNEL(scan, "ps_scan")
    KERNEL(downsweep, "ps_downsweep")
    KERNEL(local, "ps_sort_local")
    KERNEL(seg_classify, "ps_seg_classify")
    KERNEL(seg_small, "ps_seg_small")
    KERNEL(seg_medium, "ps_seg_medium")
    KERNEL(seg_up, "ps_seg_up")
    KERNEL(seg_down, "ps_seg_down")
    if (tune.onesweep) {
        KERNEL(os_hist, "ps_os_hist")
        KERNEL(os_scan, "ps_os_scan")
        KERNEL(onesweep, "ps_onesweep")
    }
#undef KERNEL
    if (err != CL_SUCCESS) {
        pthread_mutex_unlock(&progs_lock);
        *status = ps_cl_status(host, err, "clCreateKernel");
        prog_free(p);
        return NULL;
    }
    p->next = progs;
    progs = p;
    pthread_mutex_unlock(&progs_lock);
    return p;
}

void ps_cl_program_release_all(void)
{
    ps_cl_prog *p, *next;
    pthread_mutex_lock(&progs_lock);
    for (p = progs; p != NULL; p = next) {
        next = p->next;
        prog_free(p);
    }
    progs = NULL;
    pthread_mutex_unlock(&progs_lock);
}
