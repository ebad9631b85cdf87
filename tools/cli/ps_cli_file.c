/*
 * ps_cli_file.c - whole input (files, several of them, or standard input),
 * output that replaces its target only when it is complete, and the
 * process-wide parts of that promise: signals, standard output, and the
 * names two options must not share.
 *
 * A sort that fails half way (a bad line, a full disk, a signal) must not
 * leave a truncated OUT, and must never damage FILE when FILE is also the
 * output.  So output goes to a temporary file beside the target and is
 * renamed over it at the very end; rename() within one directory is atomic.
 * Outputs are written with write(2), not stdio, so that the error of the
 * first write that fails is the one reported (stdio keeps only a flag, and
 * errno is long gone by the time the stream is closed).
 */
/* renameat2 (Linux, glibc 2.28) swaps two names atomically; where
 * <stdio.h> does not offer it, RENAME_EXCHANGE stays undefined. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ps_cli.h"

char ps_cli_eol = '\n';

/* Ask for transparent huge pages under a large input buffer: the output
 * gather reads its lines in sorted order, all over the buffer, and 4 KiB
 * pages make that a TLB miss per line (and the read a page fault per 4
 * KiB).  Only a hint: nothing changes where it is refused. */
static void huge_pages(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(huge - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)size;
#endif
}

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
            huge_pages(p, want);
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

int ps_cli_read_inputs(char **paths, size_t npaths, int text, ps_cli_input *in)
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
        /* Read, never mapped: a mapped file that another process truncates
         * kills the reader with SIGBUS on whichever thread touches a lost
         * page, in the parser, the check or the output gather alike, with
         * no way to recover short of a jump out of every one of them.
         * read(2) turns the same event into a short read, refused below,
         * for the price of one copy of the input.  Standard input
         * redirected from a file may not start at offset 0, so its size
         * says nothing: it is read to its end. */
        regular = S_ISREG(st.st_mode) && !is_stdin;
        in->starts[i] = in->size;
        rc = read_fd(fd, name, regular, (size_t)st.st_size, in, &cap);
        if (!is_stdin)
            close(fd);
        if (rc != 0)
            return -1;
        /* Concatenated text: a part without a final newline must not run
         * into the next part's first line. */
        if (text && i + 1 < npaths && in->size > in->starts[i] &&
            in->data[in->size - 1] != ps_cli_eol) {
            if (in->size == cap) {
                unsigned char *p = realloc(in->data, cap + 1);
                if (p == NULL) {
                    fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
                    return -1;
                }
                in->data = p;
                cap++;
            }
            in->data[in->size++] = (unsigned char)ps_cli_eol;
        }
    }
    return 0;
}

void ps_cli_input_free(ps_cli_input *in)
{
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
    if (part == 0)
        n += in->line0;
    *name = strcmp(in->names[part], "-") == 0 ? "-" : in->names[part];
    end = in->data + off;
    for (p = in->data + in->starts[part]; p < end; p++) {
        p = memchr(p, ps_cli_eol, (size_t)(end - p));
        if (p == NULL)
            break;
        n++;
    }
    *line = n;
}

/* ---- test hook: I/O failures on demand ---- */

/*
 * PORTSORT_TEST_FAIL_IO=OP:K makes the K-th call (counted from 1 over the
 * process) of OP on an output fail with EIO, OP being write, fsync,
 * fchmod, close or rename; OP:K:SIG raises SIG (INT, TERM or HUP) just
 * before that call instead.  A test hook, not a feature: a full disk, a
 * failing medium or a signal at each point of an output's life cannot be
 * had on demand, yet the promise that none of them changes a file must be
 * tested at every one (test/cli/cli-sort-faults.sh).
 */
enum { IO_WRITE, IO_FSYNC, IO_FCHMOD, IO_CLOSE, IO_RENAME, IO_NOPS };

static int io_fault(int op)
{
    static const char *const names[IO_NOPS] = { "write", "fsync", "fchmod", "close",
                                                "rename" };
    static const struct { const char *name; int sig; } sigs[] = {
        { "INT", SIGINT }, { "TERM", SIGTERM }, { "HUP", SIGHUP },
    };
    static int parsed, fault_op = -1, fault_sig;
    static long fault_at, count[IO_NOPS];
    if (!parsed) {
        const char *s = getenv("PORTSORT_TEST_FAIL_IO"), *colon;
        size_t i;
        parsed = 1;
        if (s != NULL && (colon = strchr(s, ':')) != NULL) {
            char *end;
            for (i = 0; i < IO_NOPS; i++)
                if (strlen(names[i]) == (size_t)(colon - s) &&
                    strncmp(s, names[i], (size_t)(colon - s)) == 0)
                    fault_op = (int)i;
            fault_at = strtol(colon + 1, &end, 10);
            if (*end == ':')
                for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
                    if (strcmp(end + 1, sigs[i].name) == 0)
                        fault_sig = sigs[i].sig;
        }
    }
    if (op != fault_op || ++count[op] != fault_at)
        return 0;
    if (fault_sig != 0) {
        raise(fault_sig);
        return 0;
    }
    return EIO;
}

/* The calls an output makes, each through the hook. */
static ssize_t io_write(int fd, const void *p, size_t n)
{
    int e = io_fault(IO_WRITE);
    if (e != 0) {
        errno = e;
        return -1;
    }
    return write(fd, p, n);
}

#define PS_IO_CALL(op, call) do {               \
        int e_ = io_fault(op);                  \
        if (e_ != 0) {                          \
            errno = e_;                         \
            return -1;                          \
        }                                       \
        return call;                            \
    } while (0)

long ps_cli_io_write(int fd, const void *p, size_t n)
{
    return (long)io_write(fd, p, n);
}

static int io_fsync(int fd) { PS_IO_CALL(IO_FSYNC, fsync(fd)); }
static int io_fchmod(int fd, mode_t m) { PS_IO_CALL(IO_FCHMOD, fchmod(fd, m)); }
static int io_close(int fd) { PS_IO_CALL(IO_CLOSE, close(fd)); }

/* ---- signals: no temporary file outlives the process ---- */

/* The temporary files a signal must remove: at most two outputs are open
 * at once (keys and values).  The names are copied here, so that the
 * handler never reads memory the program is freeing. */
#define MAX_PENDING 4
static char pending[MAX_PENDING][PATH_MAX];
static int pending_used[MAX_PENDING];
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NCLEANUP (sizeof cleanup_signals / sizeof cleanup_signals[0])

/*
 * While the program changes the table or the names on disk (critical >
 * 0), a signal is only noted and acted on when it is done: removing the
 * temporary files between two renames of a commit would leave one output
 * replaced and not the other, or remove the old file the first rename
 * kept.  Masking the signals would not do: they may arrive on any thread
 * (the OpenMP backend's pool, a GPU runtime's), and only the program's
 * own thread would mask them.  The handler runs on whichever thread; the
 * atomics order its view of the table and of the flag with the program's.
 */
static int critical, deferred;

static void remove_pending(void)
{
    int i;
    for (i = 0; i < MAX_PENDING; i++)
        if (__atomic_load_n(&pending_used[i], __ATOMIC_SEQ_CST))
            unlink(pending[i]);
}

/* Only async-signal-safe calls: unlink, signal, raise.  The signal is
 * blocked while its handler runs, so the raise is delivered, with the
 * default action (the death the sender asked for), on return. */
static void on_signal(int sig)
{
    if (__atomic_load_n(&critical, __ATOMIC_SEQ_CST) > 0) {
        __atomic_store_n(&deferred, sig, __ATOMIC_SEQ_CST);
        /* Still inside: leave_critical will see it.  Outside by now:
         * leave_critical may have looked already, so act here. */
        if (__atomic_load_n(&critical, __ATOMIC_SEQ_CST) > 0)
            return;
    }
    remove_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void enter_critical(void)
{
    __atomic_add_fetch(&critical, 1, __ATOMIC_SEQ_CST);
}

static void leave_critical(void)
{
    int sig;
    if (__atomic_sub_fetch(&critical, 1, __ATOMIC_SEQ_CST) > 0)
        return;
    sig = __atomic_load_n(&deferred, __ATOMIC_SEQ_CST);
    if (sig != 0) {
        remove_pending();
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

/* Register `tmp` (inside a critical section).  A signal that was
 * ignored when the program started (nohup, a background job) stays
 * ignored.  Returns the slot, or -1 when the name does not fit. */
static int track(const char *tmp)
{
    static int installed;
    size_t i;
    int slot;
    if (!installed) {
        struct sigaction sa, old;
        installed = 1;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (i = 0; i < NCLEANUP; i++)
            sigaddset(&sa.sa_mask, cleanup_signals[i]);
        for (i = 0; i < NCLEANUP; i++)
            if (sigaction(cleanup_signals[i], NULL, &old) == 0 &&
                old.sa_handler != SIG_IGN)
                sigaction(cleanup_signals[i], &sa, NULL);
    }
    if (strlen(tmp) >= PATH_MAX)
        return -1;
    for (slot = 0; slot < MAX_PENDING; slot++) {
        if (!__atomic_load_n(&pending_used[slot], __ATOMIC_SEQ_CST)) {
            strcpy(pending[slot], tmp);
            __atomic_store_n(&pending_used[slot], 1, __ATOMIC_SEQ_CST);
            return slot;
        }
    }
    return -1;
}

static void untrack(int slot)
{
    if (slot >= 0)
        __atomic_store_n(&pending_used[slot], 0, __ATOMIC_SEQ_CST);
}

/* ---- output ---- */

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

/*
 * mkstemp makes the file 0600 and ours.  The file it replaces keeps its
 * owner, group and mode (a new one gets 0666 less the umask, what open(2)
 * would give it), so that sorting a file in place changes only its data.
 * Owner and group are kept where the system allows it (root; a group we
 * belong to); when one cannot be, its set-ID bit is dropped, as cp -p
 * does, rather than granted to another owner.  chown clears the set-ID
 * bits, so the mode comes last.  Returns 0, or -1 with errno set.
 */
static int copy_owner_and_mode(const ps_cli_out *o)
{
    struct stat st, mine;
    mode_t mode;
    if (stat(o->path, &st) == 0) {
        mode = st.st_mode & 07777;
        if (fstat(o->fd, &mine) == 0 &&
            (mine.st_uid != st.st_uid || mine.st_gid != st.st_gid) &&
            fchown(o->fd, st.st_uid, st.st_gid) != 0) {
            if (mine.st_uid != st.st_uid)
                mode &= ~(mode_t)S_ISUID;
            if (fchown(o->fd, (uid_t)-1, st.st_gid) != 0)
                mode &= ~(mode_t)S_ISGID;
        }
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    return io_fchmod(o->fd, mode);
}

/* The name of an output in messages. */
static const char *out_name(const ps_cli_out *o)
{
    return o->is_stdout ? "standard output" : o->path;
}

static int open_direct(ps_cli_out *o, const char *path)
{
    /* Standard output, a terminal, a pipe, /dev/null: there is no file to
     * replace (and renaming over /dev/stdout would be a disaster), so
     * write straight to it. */
    o->direct = 1;
    o->is_stdout = strcmp(path, "-") == 0;
    o->path = strdup(path);
    if (o->path == NULL) {
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        return -1;
    }
    o->fd = o->is_stdout ? STDOUT_FILENO
                         : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (o->fd < 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", PS_CLI_NAME, path, strerror(errno));
        ps_cli_out_discard(o);
        return -1;
    }
    return 0;
}

int ps_cli_out_open(ps_cli_out *o, const char *path)
{
    const char *slash;
    size_t dirlen;
    struct stat st;
    int fd, err, direct = strcmp(path, "-") == 0;
    char *target = direct ? NULL : rename_target(path, &direct);

    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->slot = -1;
    if (!direct && target == NULL) {
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        return -1;
    }
    if (!direct && (strncmp(target, "/proc/", 6) == 0 ||
                    (stat(target, &st) == 0 && !S_ISREG(st.st_mode))))
        direct = 1;
    if (direct) {
        free(target);
        return open_direct(o, path);
    }
    o->path = target;
    slash = strrchr(target, '/');
    dirlen = slash ? (size_t)(slash - target) + 1 : 0;
    o->tmp = malloc(strlen(target) + 16);
    if (o->tmp == NULL) {
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        ps_cli_out_discard(o);
        return -1;
    }
    /* ".NAME.XXXXXX" beside NAME: hidden, and on the same file system.
     * Created and registered in a critical section, so that no signal
     * finds it made but not yet known. */
    memcpy(o->tmp, target, dirlen);
    sprintf(o->tmp + dirlen, ".%s.XXXXXX", target + dirlen);
    enter_critical();
    fd = mkstemp(o->tmp);
    err = errno;
    if (fd >= 0 && (o->slot = track(o->tmp)) < 0) {
        unlink(o->tmp);
        close(fd);
        fd = -1;
        err = ENAMETOOLONG;
    }
    leave_critical();
    if (fd < 0) {
        fprintf(stderr, "%s: cannot create a temporary file for %s: %s\n",
                PS_CLI_NAME, target, strerror(err));
        free(o->tmp);
        o->tmp = NULL;
        ps_cli_out_discard(o);
        return -1;
    }
    o->fd = fd;
    if (copy_owner_and_mode(o) != 0) {
        fprintf(stderr, "%s: cannot give %s the mode of %s: %s\n", PS_CLI_NAME, o->tmp,
                target, strerror(errno));
        ps_cli_out_discard(o);
        return -1;
    }
    return 0;
}

int ps_cli_out_write(ps_cli_out *o, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len > 0 && o->err == 0) {
        /* Linux writes at most about 2 GiB a call. */
        size_t part = len < ((size_t)1 << 30) ? len : (size_t)1 << 30;
        ssize_t got = io_write(o->fd, p, part);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            o->err = got < 0 ? errno : EIO;
            break;
        }
        p += got;
        len -= (size_t)got;
    }
    return o->err != 0 ? -1 : 0;
}

/* How an output got its place (ps_cli_out.placed), for
 * ps_cli_out_commit to undo it. */
enum { PLACED_NOT, PLACED_NEW, PLACED_SWAPPED, PLACED_FINAL };

/*
 * Put o->tmp in place of o->path.  With `undoable`, a later output may
 * still fail, so the file replaced must survive until they all are in
 * place: the two names are swapped (o->tmp then holds the old file), or
 * where there was none, o->tmp is renamed (nothing to keep).  Where the
 * system cannot swap, a plain rename is the best there is.  Returns the
 * PLACED_ state, or -1 with errno set.
 */
static int place(ps_cli_out *o, int undoable)
{
    int e = io_fault(IO_RENAME);
    if (e != 0) {
        errno = e;
        return -1;
    }
#ifdef RENAME_EXCHANGE
    if (undoable) {
        if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_EXCHANGE) == 0)
            return PLACED_SWAPPED;
        if (errno == ENOENT)
            return rename(o->tmp, o->path) == 0 ? PLACED_NEW : -1;
        if (errno != EINVAL && errno != ENOSYS)
            return -1;
    }
#endif
    (void)undoable;
    return rename(o->tmp, o->path) == 0 ? PLACED_FINAL : -1;
}

/* Take back what place() did.  Returns 0, or -1 (said) when the old file
 * could not be put back: it is then left at o->tmp, and kept. */
static int unplace(ps_cli_out *o)
{
    int rc = 0;
#ifdef RENAME_EXCHANGE
    if (o->placed == PLACED_SWAPPED)
        rc = renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_EXCHANGE);
#endif
    if (o->placed == PLACED_NEW)
        rc = unlink(o->path);
    if (rc != 0) {
        fprintf(stderr, "%s: cannot put %s back as it was: %s; its previous content is "
                "in %s\n", PS_CLI_NAME, o->path, strerror(errno), o->tmp);
        untrack(o->slot);
        o->slot = -1;
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    return 0;
}

int ps_cli_out_commit(ps_cli_out *o, size_t count)
{
    size_t i, bad = 0, nfiles = 0;
    int err = 0;
    const char *what = "cannot write";

    for (i = 0; i < count && err == 0; i++) {
        err = o[i].err;
        if (err == 0 && !o[i].direct && io_fsync(o[i].fd) != 0)
            err = errno;
        if (!o[i].is_stdout && io_close(o[i].fd) != 0 && err == 0)
            err = errno;
        o[i].fd = -1;
        bad = i;
        nfiles += !o[i].direct;
    }
    /* A signal between two renames would leave one output replaced and
     * the other not: it waits until they are all done or undone. */
    enter_critical();
    for (i = 0; i < count && err == 0; i++) {
        if (o[i].direct)
            continue;
        o[i].placed = place(&o[i], nfiles > 1);
        if (o[i].placed < 0) {
            o[i].placed = PLACED_NOT;
            err = errno;
            bad = i;
            what = "cannot replace";
        }
    }
    if (err != 0)
        fprintf(stderr, "%s: %s %s: %s\n", PS_CLI_NAME, what, out_name(&o[bad]),
                strerror(err));
    for (i = count; i-- > 0;) {
        if (err != 0) {
            unplace(&o[i]);
        } else if (o[i].placed != PLACED_NOT) {
            /* In place: o->tmp is now the old file (swapped) or no name. */
            if (o[i].placed == PLACED_SWAPPED && unlink(o[i].tmp) != 0)
                fprintf(stderr, "%s: cannot remove %s (the previous %s): %s\n",
                        PS_CLI_NAME, o[i].tmp, o[i].path, strerror(errno));
            untrack(o[i].slot);
            o[i].slot = -1;
            free(o[i].tmp);
            o[i].tmp = NULL;
        }
        ps_cli_out_discard(&o[i]);
    }
    leave_critical();
    return err != 0 ? -1 : 0;
}

void ps_cli_out_discard(ps_cli_out *o)
{
    if (o->fd >= 0 && !o->is_stdout)
        close(o->fd);
    o->fd = -1;
    if (o->tmp != NULL) {
        enter_critical();
        unlink(o->tmp);
        untrack(o->slot);
        o->slot = -1;
        leave_critical();
        free(o->tmp);
        o->tmp = NULL;
    }
    free(o->path);
    o->path = NULL;
}

/* ---- which names are one file ---- */

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

/* ---- standard output ---- */

/* The error of the first flush of standard output that failed: stdio
 * keeps only a flag, and a later flush of an empty buffer succeeds. */
static int stdout_errno;

void ps_cli_flush_stdout(void)
{
    if (fflush(stdout) != 0 && stdout_errno == 0)
        stdout_errno = errno;
}

int ps_cli_close_stdout(void)
{
    int failed = ferror(stdout), err = stdout_errno;
    if (fflush(stdout) != 0) {
        failed = 1;
        if (err == 0)
            err = errno;
    }
    /* EBADF: standard output was closed to begin with and nothing was
     * written to it (a write would have failed above). */
    if (fclose(stdout) != 0 && errno != EBADF && !failed) {
        failed = 1;
        err = errno;
    }
    if (!failed)
        return 0;
    if (err != 0)
        fprintf(stderr, "%s: write error: %s\n", PS_CLI_NAME, strerror(err));
    else
        fprintf(stderr, "%s: write error\n", PS_CLI_NAME);
    return -1;
}
