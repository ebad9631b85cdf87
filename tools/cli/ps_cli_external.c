/*
 * ps_cli_external.c - `portsort sort --binary -S SIZE`: binary keys larger
 * than the buffer, sorted as GNU sort sorts text that does not fit.
 *
 * The inputs are read a run at a time into half the buffer (the library's
 * sort takes about as much again for its scratch), each run is sorted by
 * ps_sort_keys and written to a temporary file under a -T directory, and
 * the runs are merged, at most --batch-size at a time, the last merge
 * streaming into the output.  The temporary files are unlinked as soon as
 * they are created, so that no exit, however it happens (a signal, a
 * kill, a crash), leaves one behind; they live only as open descriptors.
 * Memory: the buffer, shared by the merges' input and output blocks, and
 * the library's scratch for one run.  A write that fails (a full disk)
 * ends the sort with the output untouched.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ps_cli.h"

/* One sorted run: an unlinked temporary file of `keys` keys. */
typedef struct run {
    int fd;
    uint64_t keys;
    const char *dir;            /* where it lives, for messages */
} run;

typedef struct ext {
    const ps_cli_type *t;
    unsigned flags;
    unsigned char *buf;
    size_t bufsize;
    const char *const *dirs;
    size_t ndirs, nextdir;
    run *runs;
    size_t nruns, cap;
    size_t batch;
} ext;

static void close_runs(run *r, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (r[i].fd >= 0)
            close(r[i].fd);
}

/* A new temporary file in the next -T directory, already unlinked. */
static int temp_open(ext *e, const char **dir)
{
    char path[PATH_MAX];
    int fd;
    *dir = e->dirs[e->nextdir++ % e->ndirs];
    if (snprintf(path, sizeof path, "%s/portsort.XXXXXX", *dir)
        >= (int)sizeof path) {
        fprintf(stderr, "%s: %s: temporary directory name too long\n",
                PS_CLI_NAME, *dir);
        return -1;
    }
    fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot create a temporary file in %s: %s\n",
                PS_CLI_NAME, *dir, strerror(errno));
        return -1;
    }
    unlink(path);
    return fd;
}

static int write_all(int fd, const unsigned char *p, size_t n, const char *dir)
{
    while (n > 0) {
        long w = ps_cli_io_write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            fprintf(stderr, "%s: writing a temporary file in %s: %s\n",
                    PS_CLI_NAME, dir, w < 0 ? strerror(errno) : "no progress");
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int add_run(ext *e, int fd, uint64_t keys, const char *dir)
{
    if (e->nruns == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 16;
        run *r = realloc(e->runs, cap * sizeof *r);
        if (r == NULL) {
            fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
            close(fd);
            return -1;
        }
        e->runs = r;
        e->cap = cap;
    }
    e->runs[e->nruns].fd = fd;
    e->runs[e->nruns].keys = keys;
    e->runs[e->nruns].dir = dir;
    e->nruns++;
    return 0;
}

static int sort_failed(int st)
{
    fprintf(stderr, "%s: sort failed on backend %s: %s: %s\n", PS_CLI_NAME,
            ps_backend_name(), ps_strerror(st), ps_error_detail());
    return -1;
}

/* Sort the n keys at the buffer's start and write them as a run. */
static int spill(ext *e, size_t n)
{
    const char *dir;
    int st = ps_sort_keys(e->buf, n, e->t->type, e->flags), fd;
    if (st != PS_OK)
        return sort_failed(st);
    fd = temp_open(e, &dir);
    if (fd < 0)
        return -1;
    if (write_all(fd, e->buf, n * e->t->size, dir) != 0) {
        close(fd);
        return -1;
    }
    return add_run(e, fd, n, dir);
}

/* ---- merging ---------------------------------------------------------- */

/* Where a merge writes: a run's file, or the output. */
typedef struct sink {
    int fd;
    const char *dir;
    ps_cli_out *out;
} sink;

static int sink_write(sink *s, const unsigned char *p, size_t n)
{
    if (s->out != NULL)
        return ps_cli_out_write(s->out, p, n);
    return write_all(s->fd, p, n, s->dir);
}

/* One run's place in a merge: its block of the buffer, and what is left. */
typedef struct cursor {
    const run *r;
    unsigned char *blk;
    size_t at, have;            /* keys: the next one, how many in blk */
    uint64_t next;              /* keys read from the file so far */
    uint64_t key;               /* the order key of blk[at] */
} cursor;

static uint64_t order_of(const ext *e, const unsigned char *p)
{
    uint64_t bits = 0, k;
    unsigned w = (unsigned)e->t->size * 8;
    memcpy(&bits, p, e->t->size);       /* little-endian, as the files */
    k = ps_cli_order_key(e->t, bits);
    if (e->flags & PS_DESCENDING)
        k = ~k & (w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1);
    return k;
}

/* Refill c's block from its file: 1 with keys, 0 at its end, -1. */
static int refill(const ext *e, cursor *c, size_t blk_keys)
{
    size_t kb = e->t->size, want, got = 0;
    uint64_t left = c->r->keys - c->next;
    if (left == 0)
        return 0;
    want = left < blk_keys ? (size_t)left : blk_keys;
    while (got < want * kb) {
        ssize_t r = pread(c->r->fd, c->blk + got, want * kb - got,
                          (off_t)(c->next * kb + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            fprintf(stderr, "%s: reading a temporary file in %s: %s\n",
                    PS_CLI_NAME, c->r->dir, r < 0 ? strerror(errno)
                                                  : "it is shorter than written");
            return -1;
        }
        got += (size_t)r;
    }
    c->next += want;
    c->at = 0;
    c->have = want;
    c->key = order_of(e, c->blk);
    return 1;
}

/* Whether cursor a's key goes before b's: by order key, then by run, so
 * that equal keys keep their order (runs are in input order). */
static int before(const cursor *a, const cursor *b)
{
    return a->key < b->key || (a->key == b->key && a->r < b->r);
}

static void sift_down(cursor **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        cursor *t;
        if (l < n && before(h[l], h[m]))
            m = l;
        if (l + 1 < n && before(h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Merge runs r[0 .. k - 1] into s, through blocks of the buffer. */
static int merge(ext *e, const run *r, size_t k, sink *s)
{
    size_t kb = e->t->size, blk_keys = e->bufsize / (k + 1) / kb, i, n = 0;
    size_t out = 0;
    unsigned char *ob;
    cursor *cur = malloc(k * sizeof *cur);
    cursor **heap = malloc(k * sizeof *heap);
    int rc = -1;

    if (cur == NULL || heap == NULL) {
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        goto done;
    }
    ob = e->buf + k * blk_keys * kb;
    for (i = 0; i < k; i++) {
        int got;
        cur[i].r = &r[i];
        cur[i].blk = e->buf + i * blk_keys * kb;
        cur[i].next = 0;
        got = refill(e, &cur[i], blk_keys);
        if (got < 0)
            goto done;
        if (got > 0)
            heap[n++] = &cur[i];
    }
    for (i = n; i-- > 0;)
        sift_down(heap, n, i);
    while (n > 0) {
        cursor *c = heap[0];
        memcpy(ob + out * kb, c->blk + c->at * kb, kb);
        if (++out == blk_keys) {
            if (sink_write(s, ob, out * kb) != 0)
                goto done;
            out = 0;
        }
        if (++c->at < c->have) {
            c->key = order_of(e, c->blk + c->at * kb);
        } else {
            int got = refill(e, c, blk_keys);
            if (got < 0)
                goto done;
            if (got == 0)
                heap[0] = heap[--n];
        }
        sift_down(heap, n, 0);
    }
    rc = out > 0 ? sink_write(s, ob, out * kb) : 0;
done:
    free(cur);
    free(heap);
    return rc;
}

/* Merge the runs, batch at a time, until at most a batch is left. */
static int merge_passes(ext *e)
{
    while (e->nruns > e->batch) {
        run *old = e->runs;
        size_t nold = e->nruns, i;
        e->runs = NULL;
        e->nruns = e->cap = 0;
        for (i = 0; i < nold; i += e->batch) {
            size_t k = nold - i < e->batch ? nold - i : e->batch;
            uint64_t keys = 0;
            size_t j;
            sink s = { -1, NULL, NULL };
            for (j = 0; j < k; j++)
                keys += old[i + j].keys;
            s.fd = temp_open(e, &s.dir);
            if (s.fd < 0 || merge(e, old + i, k, &s) != 0 ||
                add_run(e, s.fd, keys, s.dir) != 0) {
                if (s.fd >= 0)
                    close(s.fd);
                close_runs(old, nold);
                free(old);
                return -1;
            }
            close_runs(old + i, k);
            for (j = 0; j < k; j++)
                old[i + j].fd = -1;
        }
        free(old);
    }
    return 0;
}

/* ---- reading the inputs a run at a time -------------------------------- */

/* Up to `cap` bytes from fd into p, fewer only at its end: how many, or -1
 * after a message.  (Unlike ps_cli_read_inputs, a bounded read: the input
 * is never held whole.) */
static ssize_t read_some(int fd, const char *name, unsigned char *p, size_t cap)
{
    size_t got = 0;
    while (got < cap) {
        ssize_t r = read(fd, p + got, cap - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            fprintf(stderr, "%s: cannot read %s: %s\n", PS_CLI_NAME, name,
                    strerror(errno));
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

int ps_cli_external_sort(char **paths, size_t npaths, const ps_cli_type *t,
                         unsigned flags, size_t bufsize,
                         const char *const *dirs, size_t ndirs, size_t batch,
                         const char *outpath)
{
    static char *stdin_only[] = { "-" };
    ext e;
    size_t kb = t->size, run_bytes, fill = 0, i;
    ps_cli_out out;
    int rc = 1, opened = 0;

    memset(&e, 0, sizeof e);
    e.t = t;
    e.flags = flags;
    e.dirs = dirs;
    e.ndirs = ndirs;
    e.batch = batch;
    /* A run is half the buffer: the library's scratch for it is about as
     * much again.  The merges use the whole of it. */
    e.bufsize = bufsize / kb * kb;
    run_bytes = e.bufsize / 2 / kb * kb;
    /* Blocks of at least 64 keys in a merge (-S is at least 64K). */
    if (e.batch > e.bufsize / kb / 64 - 1)
        e.batch = e.bufsize / kb / 64 - 1;
    e.buf = malloc(e.bufsize);
    if (e.buf == NULL) {
        fprintf(stderr, "%s: cannot allocate the buffer of %zu bytes (-S)\n",
                PS_CLI_NAME, e.bufsize);
        return 1;
    }
    if (npaths == 0) {
        paths = stdin_only;
        npaths = 1;
    }
    for (i = 0; i < npaths; i++) {
        int std = strcmp(paths[i], "-") == 0;
        int fd = std ? STDIN_FILENO : open(paths[i], O_RDONLY);
        ssize_t got;
        if (fd < 0) {
            fprintf(stderr, "%s: %s: %s\n", PS_CLI_NAME, paths[i],
                    strerror(errno));
            goto done;
        }
        for (;;) {
            got = read_some(fd, paths[i], e.buf + fill, run_bytes - fill);
            if (got < 0)
                break;
            fill += (size_t)got;
            if (fill < run_bytes)
                break;                  /* this input's end */
            if (spill(&e, fill / kb) != 0) {
                got = -1;
                break;
            }
            fill = 0;
        }
        if (!std)
            close(fd);
        if (got < 0)
            goto done;
    }
    if (fill % kb != 0) {
        fprintf(stderr, "%s: the input's size is not a multiple of %zu (the "
                "size of a %s key)\n", PS_CLI_NAME, kb, t->name);
        goto done;
    }
    if (ps_cli_out_open(&out, outpath) != 0)
        goto done;
    opened = 1;
    if (e.nruns == 0) {
        /* It fitted in one run: sorted here, no temporary file. */
        int st = ps_sort_keys(e.buf, fill / kb, t->type, flags);
        if (st != PS_OK) {
            sort_failed(st);
            goto done;
        }
        ps_cli_out_write(&out, e.buf, fill);
    } else {
        sink s = { -1, NULL, &out };
        if ((fill > 0 && spill(&e, fill / kb) != 0) || merge_passes(&e) != 0 ||
            merge(&e, e.runs, e.nruns, &s) != 0)
            goto done;
    }
    opened = 0;
    rc = ps_cli_out_commit(&out, 1) == 0 ? 0 : 1;
done:
    if (opened)
        ps_cli_out_discard(&out);
    close_runs(e.runs, e.nruns);
    free(e.runs);
    free(e.buf);
    return rc;
}
