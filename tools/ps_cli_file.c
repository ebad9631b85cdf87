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

int ps_cli_out_open(ps_cli_out *o, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    struct stat st;
    mode_t mode;
    int fd;

    memset(o, 0, sizeof *o);
    o->path = strdup(path);
    o->tmp = malloc(strlen(path) + 16);
    if (o->path == NULL || o->tmp == NULL) {
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
        if (fflush(o[i].f) != 0 || ferror(o[i].f) || fsync(fileno(o[i].f)) != 0)
            err = errno ? errno : EIO;
        if (fclose(o[i].f) != 0 && err == 0)
            err = errno;
        o[i].f = NULL;
        if (err != 0)
            bad = i;
    }
    for (i = 0; i < count && err == 0; i++) {
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
    if (o->f != NULL) {
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
