/*
 * ps_opencl_cache.c - the on-disk cache of program binaries.
 *
 * A build costs about a second on pocl (much more on some GPU drivers), and
 * each (key width, value width, tuning) combination is its own program, so
 * binaries are kept under $XDG_CACHE_HOME/portsort (default
 * ~/.cache/portsort), one file per entry.  What a file holds is handed to
 * the driver and runs inside the caller's process, so the cache trusts
 * only what this user wrote, for this very build, whole:
 *
 * - Whose file: the directory is opened once (O_DIRECTORY|O_NOFOLLOW) and
 *   every later name is resolved against that descriptor (openat,
 *   renameat), so no path is looked up twice.  The directory and the file
 *   must belong to the effective user and be writable by nobody else, as
 *   OpenSSH's StrictModes asks of ~/.ssh; anything else means no cache for
 *   this build, never an error.  Directories we create are 0700, files
 *   0600.  In a setuid or setgid process secure_getenv hides
 *   XDG_CACHE_HOME and HOME, so such a process has no cache at all.
 * - Which build: a file starts with the entry's full key (a hash of the
 *   kernel source, the build options, device, vendor, device and driver
 *   versions, platform name and version) and is used only when every
 *   field matches; the file name, a hash of that key, only finds it.
 *   A binary of another program, of another driver, or of the first file
 *   format is "not ours" and rebuilt.
 * - Whole: the key is followed by the payload's length and hash; a short
 *   or damaged file is rebuilt.  Files are written to a new temporary
 *   (O_CREAT|O_EXCL|O_NOFOLLOW, an unpredictable name) and renamed, so
 *   readers never see half a file, a link is never written through, and
 *   a temporary that cannot be completed is removed.
 *
 * The key's hashes (FNV-1a) are not cryptographic: they tell our own
 * builds apart, and the ownership checks, not the hashes, keep other
 * users out.  A user who can write this user's files can run code as this
 * user without any help from the cache.
 *
 * File format: "PSCLBIN2", then three 64-bit words in host order (key
 * length, payload length, payload hash), the key ("field=value" strings,
 * each ending in a NUL), the payload.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_GETRANDOM
#  include <sys/random.h>
#endif

#include "ps_opencl_internal.h"

#define HDR_BYTES 32
#define KEY_MAX 8192
/* Beyond any program binary we know of (a few MiB); a larger file is not
 * read into memory. */
#define PAYLOAD_MAX ((uint64_t)1 << 30)

static const char magic[8] = { 'P', 'S', 'C', 'L', 'B', 'I', 'N', '2' };

struct ps_cl_cache {
    const ps_host *host;
    int dirfd;              /* the checked directory */
    char dir[4096];         /* its path, for messages */
    char name[32];          /* the entry's name in it */
    char file[4200];        /* dir/name, for messages */
    size_t key_len;
    char key[KEY_MAX];
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


/* The directory's path; 0, or -1 when neither variable gives an absolute
 * one (a relative path would depend on the current directory). */
static int cache_dir(char *buf, size_t len)
{
    const char *x = ps_getenv("XDG_CACHE_HOME"), *home = ps_getenv("HOME");
    int n;
    if (x != NULL && x[0] == '/')
        n = snprintf(buf, len, "%s/portsort", x);
    else if (home != NULL && home[0] == '/')
        n = snprintf(buf, len, "%s/.cache/portsort", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* mkdir -p, each directory we create 0700.  Those that exist are left as
 * they are: only the last one's owner and mode matter (see open_dir). */
static int make_dirs(char *path)
{
    char *p;
    for (p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            *p = '/';
            return -1;
        }
        *p = '/';
    }
    return mkdir(path, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* Owned by the effective user and writable by no one else; else says why,
 * with `then` (what happens instead), and returns 0. */
static int ours(const ps_host *host, const char *what, const char *path,
                const struct stat *st, const char *then)
{
    if (st->st_uid != geteuid()) {
        host->log("opencl: %s %s is owned by uid %ld, not by this process's "
                  "effective uid %ld; %s", what, path, (long)st->st_uid,
                  (long)geteuid(), then);
        return 0;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        host->log("opencl: %s %s is writable by group or others (mode %04o); %s",
                  what, path, (unsigned)(st->st_mode & 07777), then);
        return 0;
    }
    return 1;
}

/* The cache directory, created when absent, opened without following a
 * link at its own name and checked through the descriptor; -1 (with why)
 * when there is none we may use. */
static int open_dir(const ps_host *host, char *path)
{
    const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    struct stat st;
    int fd = open(path, flags);
    if (fd < 0 && errno == ENOENT) {
        if (make_dirs(path) != 0) {
            host->log("opencl: cannot create cache directory %s: %s; not caching",
                      path, strerror(errno));
            return -1;
        }
        fd = open(path, flags);
    }
    if (fd < 0) {
        int e = errno;
        /* lstat only chooses the words; the decision was the open's. */
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
            host->log("opencl: cache directory %s is a symbolic link; not caching",
                      path);
        else
            host->log("opencl: cannot open cache directory %s: %s; not caching",
                      path, strerror(e));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)
        || !ours(host, "cache directory", path, &st, "not caching")) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Append "field=value" and its NUL to the key; -1 when it does not fit. */
static int key_add(ps_cl_cache *c, const char *field, const char *value)
{
    size_t room = sizeof c->key - c->key_len;
    int n = snprintf(c->key + c->key_len, room, "%s=%s", field, value);
    if (n < 0 || (size_t)n >= room)
        return -1;
    c->key_len += (size_t)n + 1;
    return 0;
}

static int device_key(ps_cl_cache *c, cl_device_id dev)
{
    static const struct { cl_device_info what; const char *field; } infos[] = {
        { CL_DEVICE_NAME, "device" }, { CL_DEVICE_VENDOR, "vendor" },
        { CL_DEVICE_VERSION, "device_version" }, { CL_DRIVER_VERSION, "driver" },
    };
    static const struct { cl_platform_info what; const char *field; } pinfos[] = {
        { CL_PLATFORM_NAME, "platform" }, { CL_PLATFORM_VERSION, "platform_version" },
    };
    cl_platform_id plat = NULL;
    char s[1024];
    size_t i;
    int bad = 0;
    for (i = 0; i < sizeof infos / sizeof infos[0]; i++) {
        s[0] = '\0';
        clGetDeviceInfo(dev, infos[i].what, sizeof s, s, NULL);
        s[sizeof s - 1] = '\0';
        bad |= key_add(c, infos[i].field, s);
    }
    clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    for (i = 0; i < sizeof pinfos / sizeof pinfos[0]; i++) {
        s[0] = '\0';
        if (plat != NULL)
            clGetPlatformInfo(plat, pinfos[i].what, sizeof s, s, NULL);
        s[sizeof s - 1] = '\0';
        bad |= key_add(c, pinfos[i].field, s);
    }
    return bad;
}

ps_cl_cache *ps_cl_cache_open(const ps_host *host, cl_device_id dev,
                              const char *source, size_t source_len,
                              const char *options)
{
    ps_cl_cache *c;
    char src[64];
    /* Set and not empty, as for every variable (ps_env.h): an empty one
     * is the default, the cache on. */
    if (ps_getenv_set("PORTSORT_OPENCL_NO_CACHE") != NULL)
        return NULL;
    c = malloc(sizeof *c);
    if (c == NULL)
        return NULL;
    c->host = host;
    c->key_len = 0;
    if (cache_dir(c->dir, sizeof c->dir) != 0) {
        host->log("opencl: neither XDG_CACHE_HOME nor HOME names an absolute "
                  "directory; not caching");
        free(c);
        return NULL;
    }
    snprintf(src, sizeof src, "%zu:%016llx", source_len,
             (unsigned long long)fnv64(FNV_INIT, source, source_len));
    if (key_add(c, "source", src) != 0 || key_add(c, "options", options) != 0
        || device_key(c, dev) != 0) {
        host->log("opencl: the build options and device names are too long "
                  "for a cache key; not caching");
        free(c);
        return NULL;
    }
    snprintf(c->name, sizeof c->name, "%016llx.bin",
             (unsigned long long)fnv64(FNV_INIT, c->key, c->key_len));
    snprintf(c->file, sizeof c->file, "%s/%s", c->dir, c->name);
    c->dirfd = open_dir(host, c->dir);
    if (c->dirfd < 0) {
        free(c);
        return NULL;
    }
    return c;
}

/* The first field ("options", "driver", ...) in which a stored key of
 * `len` bytes differs from ours, in `field`. */
static const char *key_diff(const ps_cl_cache *c, const char *theirs, size_t len,
                            char *field, size_t field_len)
{
    const char *a = c->key, *b = theirs;
    while (a < c->key + c->key_len) {
        size_t la = strlen(a), lb = b < theirs + len ? strnlen(b, theirs + len - b) : 0;
        if (la != lb || memcmp(a, b, la) != 0) {
            size_t f = strcspn(a, "=");
            snprintf(field, field_len, "%.*s", (int)f, a);
            return field;
        }
        a += la + 1;
        b += lb + 1;
    }
    return "key";
}

/* read() until `len` bytes or end of file; the count read, -1 on error. */
static ssize_t read_full(int fd, unsigned char *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, buf + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* The payload, checked field by field; NULL (with why) otherwise. */
static unsigned char *parse(ps_cl_cache *c, unsigned char *buf, size_t size,
                            size_t *len)
{
    const ps_host *host = c->host;
    uint64_t klen, n, h;
    char field[64];
    if (size < sizeof magic || memcmp(buf, magic, sizeof magic) != 0) {
        host->log("opencl: cache file %s is not ours (another format); rebuilding",
                  c->file);
        return NULL;
    }
    if (size < HDR_BYTES) {
        host->log("opencl: cache file %s is damaged (%zu bytes); rebuilding",
                  c->file, size);
        return NULL;
    }
    memcpy(&klen, buf + 8, 8);
    memcpy(&n, buf + 16, 8);
    memcpy(&h, buf + 24, 8);
    if (klen > size - HDR_BYTES || n != size - HDR_BYTES - klen) {
        host->log("opencl: cache file %s is damaged (its lengths do not add up "
                  "to its %zu bytes); rebuilding", c->file, size);
        return NULL;
    }
    if (klen != c->key_len || memcmp(buf + HDR_BYTES, c->key, c->key_len) != 0) {
        host->log("opencl: cache file %s is not ours (its field \"%s\" differs); "
                  "rebuilding", c->file,
                  key_diff(c, (const char *)buf + HDR_BYTES, (size_t)klen, field,
                           sizeof field));
        return NULL;
    }
    if (n == 0 || fnv64(FNV_INIT, buf + HDR_BYTES + klen, (size_t)n) != h) {
        host->log("opencl: cache file %s is damaged (its payload does not match "
                  "its hash); rebuilding", c->file);
        return NULL;
    }
    memmove(buf, buf + HDR_BYTES + klen, (size_t)n);
    *len = (size_t)n;
    return buf;
}

unsigned char *ps_cl_cache_read(ps_cl_cache *c, size_t *len)
{
    const ps_host *host = c->host;
    struct stat st;
    unsigned char *buf, *payload;
    ssize_t got;
    /* O_NONBLOCK: a FIFO at the name opens at once (and is refused below)
     * instead of waiting for a writer. */
    int fd = openat(c->dirfd, c->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP)
            host->log("opencl: cache file %s is a symbolic link; rebuilding", c->file);
        else if (errno != ENOENT)
            host->log("opencl: cannot open cache file %s: %s; rebuilding", c->file,
                      strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        host->log("opencl: cache file %s is not a regular file; rebuilding", c->file);
        close(fd);
        return NULL;
    }
    if (!ours(host, "cache file", c->file, &st, "rebuilding")) {
        close(fd);
        return NULL;
    }
    if ((uint64_t)st.st_size > HDR_BYTES + KEY_MAX + PAYLOAD_MAX) {
        host->log("opencl: cache file %s is too large to be ours (%lld bytes); "
                  "rebuilding", c->file, (long long)st.st_size);
        close(fd);
        return NULL;
    }
    buf = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
    if (buf == NULL) {
        close(fd);
        return NULL;
    }
    got = read_full(fd, buf, (size_t)st.st_size);
    close(fd);
    if (got < 0) {
        host->log("opencl: cannot read cache file %s: %s; rebuilding", c->file,
                  strerror(errno));
        free(buf);
        return NULL;
    }
    payload = parse(c, buf, (size_t)got, len);
    if (payload == NULL)
        free(buf);
    return payload;
}

static int write_full(int fd, const void *p, size_t len)
{
    const unsigned char *b = p;
    while (len > 0) {
        ssize_t w = write(fd, b, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w == 0)
            errno = EIO;
        if (w <= 0)
            return -1;
        b += w;
        len -= (size_t)w;
    }
    return 0;
}

/* "<entry>.tmp.<16 hex digits>", from getrandom where there is one.  O_EXCL
 * makes any name safe against a link planted in advance; an unpredictable
 * one keeps such plants from even blocking the write. */
static void temp_name(const ps_cl_cache *c, char *buf, size_t len)
{
    static unsigned long seq;
    uint64_t r = 0;
    struct timespec ts;
#ifdef HAVE_GETRANDOM
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
        r = 0;
#endif
    if (r == 0) {
        unsigned long s = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
        long pid = (long)getpid();
        clock_gettime(CLOCK_REALTIME, &ts);
        r = fnv64(FNV_INIT, &ts, sizeof ts);
        clock_gettime(CLOCK_MONOTONIC, &ts);
        r = fnv64(r, &ts, sizeof ts);
        r = fnv64(r, &pid, sizeof pid);
        r = fnv64(r, &s, sizeof s);
        r = fnv64(r, &c, sizeof c);
    }
    snprintf(buf, len, "%.16s.tmp.%016llx", c->name, (unsigned long long)r);
}

void ps_cl_cache_write(ps_cl_cache *c, const unsigned char *bin, size_t len)
{
    const ps_host *host = c->host;
    unsigned char hdr[HDR_BYTES];
    uint64_t klen = c->key_len, n = len, h = fnv64(FNV_INIT, bin, len);
    char tmp[64];
    int fd = -1, tries, e = 0;

    for (tries = 0; tries < 8 && fd < 0; tries++) {
        temp_name(c, tmp, sizeof tmp);
        fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        host->log("opencl: cannot create a temporary file in %s: %s; not caching",
                  c->dir, strerror(errno));
        return;
    }
    memcpy(hdr, magic, 8);
    memcpy(hdr + 8, &klen, 8);
    memcpy(hdr + 16, &n, 8);
    memcpy(hdr + 24, &h, 8);
    /* 0600 whatever the umask: a umask of 0077 or stricter changes
     * nothing, and one that removed our own read bit would make the entry
     * useless.  No fsync: a file cut short by a crash fails its hash and
     * is rebuilt, which costs less than a sync on every build. */
    if (fchmod(fd, 0600) != 0 || write_full(fd, hdr, sizeof hdr) != 0
        || write_full(fd, c->key, c->key_len) != 0 || write_full(fd, bin, len) != 0)
        e = errno;
    if (close(fd) != 0 && e == 0)
        e = errno;
    if (e == 0 && renameat(c->dirfd, tmp, c->dirfd, c->name) != 0)
        e = errno;
    if (e != 0) {
        unlinkat(c->dirfd, tmp, 0);
        host->log("opencl: cannot write %s: %s; not caching", c->file, strerror(e));
        return;
    }
    host->log("opencl: cached program binary %s", c->file);
}

const char *ps_cl_cache_file(const ps_cl_cache *c)
{
    return c->file;
}

void ps_cl_cache_close(ps_cl_cache *c)
{
    if (c == NULL)
        return;
    close(c->dirfd);
    free(c);
}
