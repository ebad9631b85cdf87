/*
 * ps_cli_file.c - whole input (files, several of them, or standard input),
 * and output that replaces its target only when it is complete.
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ps_cli.h"

/* Append what `fd` holds to in->data (growing it), up to end of file.  A
 * regular file must hold exactly `expect` bytes: one that changes size while
 * we read it is not one we can sort faithfully. */
static int read_fd(int fd, const char *name, int regular, size_t expect,
                   ps_cli_input *in, size_t *cap)
{
    size_t start = in->size;
    for (;;) {
        ssize_t got;
        if (in->size == *cap) {
            size_t want = *cap < 65536 ? 65536 : *cap * 2;
            unsigned char *p;
            if (regular && in->size - start < expect)
                want = *cap + (expect - (in->size - start)) + 1;
            p = realloc(in->data, want);
            if (p == NULL) {
                fprintf(stderr, "%s: %s: out of memory for %zu bytes\n", PS_CLI_NAME,
                        name, want);
                return -1;
            }
            in->data = p;
            *cap = want;
        }
        got = read(fd, in->data + in->size, *cap - in->size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            fprintf(stderr, "%s: cannot read %s: %s\n", PS_CLI_NAME, name, strerror(errno));
            return -1;
        }
        if (got == 0)
            break;
        in->size += (size_t)got;
    }
    if (regular && in->size - start != expect) {
        fprintf(stderr, "%s: cannot read %s: file changed while reading\n", PS_CLI_NAME,
                name);
        return -1;
    }
    return 0;
}

/* One regular file alone is mapped: no copy, and the page cache is shared
 * with whoever wrote it.  Returns 1 when mapped, 0 to read it instead. */
static int map_file(int fd, size_t size, ps_cli_input *in)
{
    void *p;
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE;  /* one fault-in up front, not one per page */
#endif
    if (size == 0)
        return 0;
    p = mmap(NULL, size, PROT_READ, flags, fd, 0);
    if (p == MAP_FAILED)
        return 0;
    in->data = p;
    in->size = size;
    in->mapped = 1;
    return 1;
}

int ps_cli_read_inputs(char **paths, size_t npaths, int text, int may_map,
                       ps_cli_input *in)
{
    static char *stdin_only[] = { "-" };
    size_t i, cap = 0;

    memset(in, 0, sizeof *in);
    if (npaths == 0) {
        paths = stdin_only;
        npaths = 1;
    }
    in->names = (const char **)paths;
    in->nparts = npaths;
    in->starts = malloc(npaths * sizeof *in->starts);
    if (in->starts == NULL) {
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        return -1;
    }
    for (i = 0; i < npaths; i++) {
        int is_stdin = strcmp(paths[i], "-") == 0;
        int fd = is_stdin ? STDIN_FILENO : open(paths[i], O_RDONLY);
        const char *name = is_stdin ? "standard input" : paths[i];
        struct stat st;
        int rc = 0, regular;
        if (fd < 0) {
            fprintf(stderr, "%s: cannot open %s: %s\n", PS_CLI_NAME, paths[i],
                    strerror(errno));
            return -1;
        }
        if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
            fprintf(stderr, "%s: %s: not a regular file\n", PS_CLI_NAME, name);
            if (!is_stdin)
                close(fd);
            return -1;
        }
        /* Standard input redirected from a file may not start at offset 0;
         * read it rather than work out what part of it to map. */
        regular = S_ISREG(st.st_mode) && !is_stdin;
        in->starts[i] = in->size;
        if (!(npaths == 1 && may_map && regular && map_file(fd, (size_t)st.st_size, in)))
            rc = read_fd(fd, name, regular, (size_t)st.st_size, in, &cap);
        if (!is_stdin)
            close(fd);
        if (rc != 0)
            return -1;
        /* Concatenated text: a part without a final newline must not run
         * into the next part's first line. */
        if (text && i + 1 < npaths && in->size > in->starts[i] &&
            in->data[in->size - 1] != '\n') {
            if (in->size == cap) {
                unsigned char *p = realloc(in->data, cap + 1);
                if (p == NULL) {
                    fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
                    return -1;
                }
                in->data = p;
                cap++;
            }
            in->data[in->size++] = '\n';
        }
    }
    return 0;
}

void ps_cli_input_free(ps_cli_input *in)
{
    if (in->mapped)
        munmap(in->data, in->size);
    else
        free(in->data);
    free(in->starts);
    memset(in, 0, sizeof *in);
}

void ps_cli_input_where(const ps_cli_input *in, size_t off, const char **name,
                        size_t *line)
{
    size_t part = 0, n = 1;
    const unsigned char *p, *end;
    while (part + 1 < in->nparts && in->starts[part + 1] <= off)
        part++;
    *name = strcmp(in->names[part], "-") == 0 ? "-" : in->names[part];
    end = in->data + off;
    for (p = in->data + in->starts[part]; p < end; p++) {
        p = memchr(p, '\n', (size_t)(end - p));
        if (p == NULL)
            break;
        n++;
    }
    *line = n;
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
 * (renaming over the link itself would turn it into a plain file), even
 * when the last link dangles.  Returns a malloc'ed path, or NULL with
 * *direct set when a link leads into /proc or /dev: /dev/stdout is a link
 * to /proc/self/fd/1, which resolves to whatever file standard output
 * happens to be, and that must be written through the descriptor, never
 * replaced.
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

/* What a name designates: an existing file (its device and inode), or the
 * name a new file would get (its directory's device and inode, and the
 * last component), or when even the directory is missing, the name. */
typedef struct file_id {
    int kind;           /* 1: a file; 2: a directory entry to be; 0: a name */
    dev_t dev;
    ino_t ino;
    char *name;         /* kind 2: the last component; kind 0: the path */
    char *buf;
} file_id;

static void get_file_id(const char *path, int dash_fd, file_id *id)
{
    struct stat st;
    int direct = 0, ok;
    char *slash;
    const char *dir;

    memset(id, 0, sizeof *id);
    if (strcmp(path, "-") == 0 ? fstat(dash_fd, &st) == 0 : stat(path, &st) == 0) {
        id->kind = 1;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        return;
    }
    /* Absent, or a dangling link: where a rename would put the file. */
    id->buf = rename_target(path, &direct);
    if (id->buf == NULL) {
        id->name = (char *)path;
        return;
    }
    id->name = id->buf;
    slash = strrchr(id->buf, '/');
    if (slash == NULL) {
        dir = ".";
    } else if (slash == id->buf) {
        dir = "/";
    } else {
        *slash = '\0';
        dir = id->buf;
    }
    ok = stat(dir, &st) == 0;
    if (slash != NULL)
        *slash = '/';
    if (!ok)
        return;
    id->kind = 2;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    if (slash != NULL)
        id->name = slash + 1;
}

int ps_cli_same_file(const char *a, const char *b, int dash_fd)
{
    file_id x, y;
    int same;
    if (strcmp(a, b) == 0)
        return 1;
    get_file_id(a, dash_fd, &x);
    get_file_id(b, dash_fd, &y);
    same = x.kind == y.kind &&
           (x.kind == 0 || (x.dev == y.dev && x.ino == y.ino)) &&
           (x.kind == 1 || strcmp(x.name, y.name) == 0);
    free(x.buf);
    free(y.buf);
    return same;
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
