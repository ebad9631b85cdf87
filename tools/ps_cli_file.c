/*
 * ps_cli_file.c - whole-file input, and output that replaces its target
 * only when it is complete.
 *
 * A sort that fails half way (a bad line, a full disk, a signal) must not
 * leave a truncated OUT, and must never damage FILE when FILE is also the
 * output.  So output goes to a temporary file beside the target and is
 * renamed over it at the very end; rename() within one directory is atomic.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ps_cli.h"

int ps_cli_read_file(const char *path, ps_cli_buf *out)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    unsigned char *data = NULL;
    size_t size, got;

    out->data = NULL;
    out->size = 0;
    if (f == NULL) {
        fprintf(stderr, "%s: cannot open %s: %s\n", PS_CLI_NAME, path, strerror(errno));
        return -1;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "%s: %s: not a regular file\n", PS_CLI_NAME, path);
        fclose(f);
        return -1;
    }
    size = (size_t)st.st_size;
    if (size > 0) {
        data = malloc(size);
        if (data == NULL) {
            fprintf(stderr, "%s: %s: out of memory for %zu bytes\n", PS_CLI_NAME,
                    path, size);
            fclose(f);
            return -1;
        }
        got = fread(data, 1, size, f);
        /* A file that changes size while we read it is not one we can sort
         * faithfully. */
        if (got != size || ferror(f) || fgetc(f) != EOF) {
            fprintf(stderr, "%s: cannot read %s: %s\n", PS_CLI_NAME, path,
                    ferror(f) ? strerror(errno) : "file changed while reading");
            free(data);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    out->data = data;
    out->size = size;
    return 0;
}

/* Temporary files to remove if a signal ends the process: at most two are
 * open at once (keys and values). */
#define MAX_PENDING 4
static char *volatile pending[MAX_PENDING];

static void on_signal(int sig)
{
    int i;
    for (i = 0; i < MAX_PENDING; i++)
        if (pending[i] != NULL)
            unlink(pending[i]);   /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void track(char *tmp, int add)
{
    static int installed;
    int i;
    if (!installed) {
        installed = 1;
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        signal(SIGHUP, on_signal);
    }
    for (i = 0; i < MAX_PENDING; i++) {
        if (add && pending[i] == NULL) {
            pending[i] = tmp;
            return;
        }
        if (!add && pending[i] == tmp) {
            pending[i] = NULL;
            return;
        }
    }
}

/*
 * Follow `path` through symbolic links to the file a rename must replace
 * (renaming over the link itself would turn it into a plain file).  Returns
 * a malloc'ed path, or NULL with *direct set when a link leads into /proc or
 * /dev: /dev/stdout is a link to /proc/self/fd/1, which resolves to whatever
 * file standard output happens to be, and that must be written through the
 * descriptor, never replaced.
 */
static char *rename_target(const char *path, int *direct)
{
    char *cur = strdup(path);
    int hops;
    for (hops = 0; cur != NULL && hops < 40; hops++) {
        struct stat st;
        char link[4096], *next;
        ssize_t len;
        const char *slash;
        size_t dirlen;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            break;
        len = readlink(cur, link, sizeof link - 1);
        if (len < 0)
            break;
        link[len] = '\0';
        if (strncmp(link, "/proc/", 6) == 0 || strncmp(link, "/dev/", 5) == 0) {
            *direct = 1;
            free(cur);
            return NULL;
        }
        /* A relative link is relative to the link's directory. */
        slash = strrchr(cur, '/');
        dirlen = link[0] != '/' && slash ? (size_t)(slash - cur) + 1 : 0;
        next = malloc(dirlen + (size_t)len + 1);
        if (next != NULL) {
            memcpy(next, cur, dirlen);
            memcpy(next + dirlen, link, (size_t)len + 1);
        }
        free(cur);
        cur = next;
    }
    return cur;
}

int ps_cli_out_open(ps_cli_out *o, const char *path)
{
    const char *slash;
    size_t dirlen;
    struct stat st;
    mode_t mode;
    int fd, direct = strcmp(path, "-") == 0;
    char *target = direct ? NULL : rename_target(path, &direct);

    memset(o, 0, sizeof *o);
    if (!direct && target == NULL) {
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        return -1;
    }
    if (!direct && (strncmp(target, "/proc/", 6) == 0 ||
                    (stat(target, &st) == 0 && !S_ISREG(st.st_mode))))
        direct = 1;
    if (direct) {
        free(target);
        /* Standard output, a terminal, a pipe, /dev/null: there is no file
         * to replace (and renaming over /dev/stdout would be a disaster),
         * so write straight to it. */
        o->direct = 1;
        o->path = strdup(path);
        o->f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
        if (o->path == NULL || o->f == NULL) {
            fprintf(stderr, "%s: cannot write %s: %s\n", PS_CLI_NAME, path,
                    o->path ? strerror(errno) : "out of memory");
            ps_cli_out_discard(o);
            return -1;
        }
        return 0;
    }
    path = o->path = target;
    slash = strrchr(path, '/');
    dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    o->tmp = malloc(strlen(path) + 16);
    if (o->tmp == NULL) {
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return -1;
    }
    /* ".NAME.XXXXXX" beside NAME: hidden, and on the same file system. */
    memcpy(o->tmp, path, dirlen);
    sprintf(o->tmp + dirlen, ".%s.XXXXXX", path + dirlen);
    fd = mkstemp(o->tmp);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot create a temporary file for %s: %s\n",
                PS_CLI_NAME, path, strerror(errno));
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return -1;
    }
    track(o->tmp, 1);
    /* mkstemp makes the file 0600; give it the mode the target has (or
     * would get from open(2)), so that replacing a file keeps its mode. */
    if (stat(path, &st) == 0) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0) {
        /* Not fatal: the data is what matters. */
    }
    o->f = fdopen(fd, "wb");
    if (o->f == NULL) {
        fprintf(stderr, "%s: %s: %s\n", PS_CLI_NAME, o->tmp, strerror(errno));
        close(fd);
        ps_cli_out_discard(o);
        return -1;
    }
    return 0;
}

int ps_cli_out_commit(ps_cli_out *o, size_t count)
{
    size_t i, bad = count;
    int err = 0;
    for (i = 0; i < count && err == 0; i++) {
        errno = 0;
        if (fflush(o[i].f) != 0 || ferror(o[i].f) ||
            (!o[i].direct && fsync(fileno(o[i].f)) != 0))
            err = errno ? errno : EIO;
        if (o[i].f != stdout && fclose(o[i].f) != 0 && err == 0)
            err = errno;
        o[i].f = NULL;
        if (err != 0)
            bad = i;
    }
    for (i = 0; i < count && err == 0; i++) {
        if (o[i].direct)
            continue;
        if (rename(o[i].tmp, o[i].path) != 0) {
            err = errno;
            bad = i;
            break;
        }
        track(o[i].tmp, 0);
        free(o[i].tmp);
        o[i].tmp = NULL;
    }
    if (err != 0)
        fprintf(stderr, "%s: cannot write %s: %s\n", PS_CLI_NAME, o[bad].path,
                strerror(err));
    for (i = 0; i < count; i++)
        ps_cli_out_discard(&o[i]);
    return err != 0 ? -1 : 0;
}

void ps_cli_out_discard(ps_cli_out *o)
{
    if (o->f != NULL && o->f != stdout) {
        fclose(o->f);
        o->f = NULL;
    }
    if (o->tmp != NULL) {
        unlink(o->tmp);
        track(o->tmp, 0);
        free(o->tmp);
        o->tmp = NULL;
    }
    free(o->path);
    o->path = NULL;
}
