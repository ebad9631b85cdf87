/*
 * ps_opencl_cache.c - the on-disk cache of program binaries.
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

struct ps_cl_cache {
    const ps_host *host;
    char dir[4096];
    char file[4200];
};

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

static uint64_t cache_key(cl_device_id dev, const char *source, size_t source_len,
                          const char *options)
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
    h = fnv64(h, source, source_len);
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

ps_cl_cache *ps_cl_cache_open(const ps_host *host, cl_device_id dev,
                              const char *source, size_t source_len,
                              const char *options)
{
    ps_cl_cache *c;
    if (getenv("PORTSORT_OPENCL_NO_CACHE") != NULL)
        return NULL;
    c = malloc(sizeof *c);
    if (c == NULL)
        return NULL;
    c->host = host;
    if (cache_dir(c->dir, sizeof c->dir) == NULL) {
        free(c);
        return NULL;
    }
    snprintf(c->file, sizeof c->file, "%s/%016llx.bin", c->dir,
             (unsigned long long)cache_key(dev, source, source_len, options));
    return c;
}

unsigned char *ps_cl_cache_read(ps_cl_cache *c, size_t *len)
{
    return cache_read(c->host, c->file, len);
}

void ps_cl_cache_write(ps_cl_cache *c, const unsigned char *bin, size_t len)
{
    cache_write(c->host, c->dir, c->file, bin, len);
}

const char *ps_cl_cache_file(const ps_cl_cache *c)
{
    return c->file;
}

void ps_cl_cache_close(ps_cl_cache *c)
{
    free(c);
}
