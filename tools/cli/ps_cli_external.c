/*
 * ps_cli_external.c - `portsort sort --binary -S SIZE`: binary keys (and
 * their --values) larger than the buffer, sorted as GNU sort sorts text
 * that does not fit.
 *
 * The inputs are read a run at a time into part of the buffer (the
 * library's sort takes about as much again for its scratch), each run is
 * sorted by ps_sort_keys or ps_sort_pairs and written to a temporary file
 * under a -T directory as records (the key, then its value), and the runs
 * are merged, at most --batch-size at a time, the last merge streaming the
 * keys into the output and the values into theirs.  Equal keys keep their
 * input order: a run's sort is stable, and a merge takes the earlier
 * run's first.  The temporary files are unlinked as soon as
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
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "ps_cli.h"

/* One sorted run: an unlinked temporary file of `keys` records. */
typedef struct run {
    int fd;
    uint64_t keys;
    const char *dir;            /* where it lives, for messages */
} run;

struct sink;
struct cursor;
struct ext;

/* Whether a's record goes before b's in a merge. */
typedef int before_fn(const struct ext *e, const struct cursor *a,
                      const struct cursor *b);

typedef struct ext {
    const ps_cli_type *t;
    unsigned flags;
    size_t vs, rs;              /* value size (0: keys alone), record size */
    unsigned char *buf;
    size_t bufsize;
    const char *const *dirs;
    size_t ndirs, nextdir;
    run *runs;
    size_t nruns, cap;
    size_t batch;
    int unique;                 /* text -u: the first line of equal keys */
    int tvals;                  /* text --values: a value line ends each
                                   record, for the second output */
    uint64_t head;              /* --head: the last merge writes at most
                                   this many records (UINT64_MAX: all) */
    /* How runs are merged: records of rs bytes, or text records. */
    int (*merge)(struct ext *e, const run *r, size_t k, struct sink *s);
    /* Text records: step a cursor to its next record (1, 0 at the run's
     * end, -1), their order, and with -u whether records a and b have
     * equal keys. */
    int (*next)(const struct ext *e, struct cursor *c);
    before_fn *before;
    int (*same)(const struct ext *e, const unsigned char *a,
                const unsigned char *b);
    const ps_cli_keys *ks;      /* text without --type: sort(1)'s keys */
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

/* Of n sorted records, how many a run keeps: with --head K, the first K,
 * as a record after them has at least K before it in the output (those
 * of its own run: the sorts and merges are stable), so it cannot be one
 * of the K written. */
static size_t kept(const ext *e, size_t n)
{
    return (uint64_t)n > e->head ? (size_t)e->head : n;
}

static int sort_failed(int st)
{
    fprintf(stderr, "%s: sort failed on backend %s: %s: %s\n", PS_CLI_NAME,
            ps_backend_name(), ps_strerror(st), ps_error_detail());
    return -1;
}

/* Sort the n keys at the buffer's start (their n values after them, at
 * vals) and write them as a run of records. */
static int spill(ext *e, size_t n, unsigned char *vals)
{
    const char *dir;
    size_t kb = e->t->size, i, m;
    int st = e->vs == 0 ? ps_sort_keys(e->buf, n, e->t->type, e->flags)
             : ps_sort_pairs(e->buf, vals, e->vs, n, e->t->type, e->flags);
    int fd;
    if (st != PS_OK)
        return sort_failed(st);
    fd = temp_open(e, &dir);
    if (fd < 0)
        return -1;
    n = kept(e, n);
    if (e->vs == 0) {
        if (write_all(fd, e->buf, n * kb, dir) != 0) {
            close(fd);
            return -1;
        }
        return add_run(e, fd, n, dir);
    }
    /* Records through the part of the buffer after the values. */
    {
        unsigned char *stage = vals + n * e->vs;
        size_t room = (size_t)(e->buf + e->bufsize - stage) / e->rs, done = 0;
        while (done < n) {
            m = n - done < room ? n - done : room;
            for (i = 0; i < m; i++) {
                memcpy(stage + i * e->rs, e->buf + (done + i) * kb, kb);
                memcpy(stage + i * e->rs + kb, vals + (done + i) * e->vs, e->vs);
            }
            if (write_all(fd, stage, m * e->rs, dir) != 0) {
                close(fd);
                return -1;
            }
            done += m;
        }
    }
    return add_run(e, fd, n, dir);
}

/* ---- merging ---------------------------------------------------------- */

/* Where a merge writes: a run's file (records), or the outputs (keys to
 * out[0], values to out[1], through vstage, a block's values). */
typedef struct sink sink;
struct sink {
    int fd;
    const char *dir;
    ps_cli_out *out;
    unsigned char *vstage;
};

/* Write the n records at p (which the merge is done with). */
static int sink_write(const ext *e, sink *s, unsigned char *p, size_t n)
{
    size_t kb = e->t->size, i;
    if (s->out == NULL)
        return write_all(s->fd, p, n * e->rs, s->dir);
    if (e->vs == 0)
        return ps_cli_out_write(&s->out[0], p, n * kb);
    for (i = 0; i < n; i++)
        memcpy(s->vstage + i * e->vs, p + i * e->rs + kb, e->vs);
    for (i = 1; i < n; i++)         /* keys down in place: i * kb <= i * rs */
        memmove(p + i * kb, p + i * e->rs, kb);
    ps_cli_out_write(&s->out[0], p, n * kb);
    return ps_cli_out_write(&s->out[1], s->vstage, n * e->vs);
}

/* One run's place in a merge: its block of the buffer, and what is left. */
typedef struct cursor cursor;
struct cursor {
    const run *r;
    unsigned char *blk;
    size_t at, have;            /* records: the next one, how many in blk */
    uint64_t next;              /* records read from the file so far */
    uint64_t key;               /* the order key of blk[at] */
    int bad;                    /* text: a line without a valid key */
    /* Text runs (variable records): the block is the cursor's own, the
     * bytes [lo, hi) read and not yet taken, `len` the current record's. */
    size_t cap, lo, hi, len;
    size_t skip;                /* the record's bytes before its line */
    size_t vlen;                /* text --values: the value line's bytes at
                                   the record's end (0: none) */
    /* Key records: the images, the line and its length without its end,
     * found once a record rather than at each comparison. */
    const unsigned char *kp, *lp;
    size_t ll;
    uint64_t off, left;         /* the file's next byte; records left */
};

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

/* Refill c's block from its file: 1 with records, 0 at its end, -1. */
static int refill(const ext *e, cursor *c, size_t blk_recs)
{
    size_t rs = e->rs, want, got = 0;
    uint64_t left = c->r->keys - c->next;
    if (left == 0)
        return 0;
    want = left < blk_recs ? (size_t)left : blk_recs;
    while (got < want * rs) {
        ssize_t r = pread(c->r->fd, c->blk + got, want * rs - got,
                          (off_t)(c->next * rs + got));
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

/* Whether cursor a's record goes before b's: lines with keys before lines
 * without (text, --skip-bad), then by order key, then by run, so that
 * equal keys keep their order (runs are in input order). */
static int before(const ext *e, const cursor *a, const cursor *b)
{
    (void)e;
    if (a->bad != b->bad)
        return b->bad;
    return a->key < b->key || (a->key == b->key && a->r < b->r);
}

/* The heap's order; inlined with a constant `lt` for the binary merge,
 * whose records are the smallest (an indirect call each would show). */
static inline void sift(const ext *e, before_fn *lt, cursor **h, size_t n,
                        size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        cursor *t;
        if (l < n && lt(e, h[l], h[m]))
            m = l;
        if (l + 1 < n && lt(e, h[l + 1], h[m]))
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
    size_t rs = e->rs, blk = e->bufsize / (k + 1) / rs, i, n = 0, out = 0;
    uint64_t left = e->head;    /* into a run too: see kept() */
    unsigned char *ob;
    cursor *cur = calloc(k, sizeof *cur);     /* bad = 0: keys all */
    cursor **heap = malloc(k * sizeof *heap);
    int rc = -1;

    if (cur == NULL || heap == NULL || (s->out != NULL && e->vs != 0 &&
        (s->vstage = malloc(blk * e->vs)) == NULL)) {
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        goto done;
    }
    ob = e->buf + k * blk * rs;
    for (i = 0; i < k; i++) {
        int got;
        cur[i].r = &r[i];
        cur[i].blk = e->buf + i * blk * rs;
        cur[i].next = 0;
        got = refill(e, &cur[i], blk);
        if (got < 0)
            goto done;
        if (got > 0)
            heap[n++] = &cur[i];
    }
    for (i = n; i-- > 0;)
        sift(e, before, heap, n, i);
    /* --head: the output's first records are the merge's first. */
    while (n > 0 && left > 0) {
        cursor *c = heap[0];
        memcpy(ob + out * rs, c->blk + c->at * rs, rs);
        left--;
        if (++out == blk) {
            if (sink_write(e, s, ob, out) != 0)
                goto done;
            out = 0;
        }
        if (++c->at < c->have) {
            c->key = order_of(e, c->blk + c->at * rs);
        } else {
            int got = refill(e, c, blk);
            if (got < 0)
                goto done;
            if (got == 0)
                heap[0] = heap[--n];
        }
        sift(e, before, heap, n, 0);
    }
    rc = out > 0 ? sink_write(e, s, ob, out) : 0;
done:
    free(cur);
    free(heap);
    if (s->out != NULL) {
        free(s->vstage);
        s->vstage = NULL;
    }
    return rc;
}

/* Return the memory a phase is done with to the system before the next
 * takes the buffer again: the library keeps the runs' sort scratch for a
 * later sort, and glibc keeps freed blocks (its threshold for mapping them
 * rises once a large one is freed) up to a trim threshold that rises too:
 * 27 MiB of a 64M buffer's text runs, 19 MiB of a merge's blocks, held
 * through the next merge (151 MiB at the peak, over 1.5 x SIZE + 64M). */
static void give_back(void)
{
    ps_release_cache();
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* Merge the runs, batch at a time, until at most a batch is left.  When
 * fewer than a batch need merging for that (20 runs, 16 a batch: 5 into
 * one), only the first ones are, as a whole pass would write every run
 * once more (10M lines of text with -S 64M: 29 runs, and 0.5 s of 4.6 s
 * in the second pass's writes).  Runs merged are consecutive, so the
 * earlier run stays first on ties. */
static int merge_passes(ext *e)
{
    while (e->nruns > e->batch) {
        run *old = e->runs;
        size_t nold = e->nruns, i, k;
        size_t first = nold - e->batch + 1 < e->batch ? nold - e->batch + 1
                                                       : e->batch;
        e->runs = NULL;
        e->nruns = e->cap = 0;
        for (i = 0; i < nold; i += k) {
            uint64_t keys = 0;
            size_t j;
            sink s = { -1, NULL, NULL, NULL };
            k = i == 0 ? first : first < e->batch ? 1
                : nold - i < e->batch ? nold - i : e->batch;
            for (j = 0; j < k; j++)
                keys += old[i + j].keys;
            if (keys > e->head)         /* what the merge writes */
                keys = e->head;
            if (k > 1) {
                s.fd = temp_open(e, &s.dir);
                if (s.fd >= 0 && e->merge(e, old + i, k, &s) != 0) {
                    close(s.fd);
                    s.fd = -1;
                }
            } else {                    /* kept as it is */
                s.fd = old[i].fd;
                s.dir = old[i].dir;
                old[i].fd = -1;
            }
            if (s.fd < 0 || add_run(e, s.fd, keys, s.dir) != 0) {
                close_runs(old, nold);
                free(old);
                return -1;
            }
            close_runs(old + i, k);
            for (j = 0; j < k; j++)
                old[i + j].fd = -1;
            if (k > 1)
                give_back();
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

/* Read exactly `bytes` of values for the run just read: 0, or -1 after a
 * message naming the file. */
static int read_values(int vfd, const char *vpath, unsigned char *p,
                       size_t bytes)
{
    ssize_t got = read_some(vfd, vpath, p, bytes);
    if (got < 0)
        return -1;
    if ((size_t)got != bytes) {
        fprintf(stderr, "%s: %s holds fewer values than there are keys\n",
                PS_CLI_NAME, vpath);
        return -1;
    }
    return 0;
}

int ps_cli_external_sort(char **paths, size_t npaths, const ps_cli_type *t,
                         unsigned flags, size_t bufsize,
                         const char *const *dirs, size_t ndirs, size_t batch,
                         const char *outpath, const char *vpath, size_t vs,
                         const char *voutpath, uint64_t head)
{
    static char *stdin_only[] = { "-" };
    ext e;
    size_t kb = t->size, per_run, fill = 0, i, nout = 0;
    unsigned char *vals;
    ps_cli_out out[2];
    int rc = 1, vfd = -1;

    memset(&e, 0, sizeof e);
    e.t = t;
    e.flags = flags;
    e.vs = vpath != NULL ? vs : 0;
    e.rs = kb + e.vs;
    e.merge = merge;
    e.head = head;
    e.dirs = dirs;
    e.ndirs = ndirs;
    e.batch = batch;
    e.bufsize = bufsize;
    /* A run's records take 2/5 of the buffer, as the library's scratch
     * for them takes about as much again (a quarter for values of a size
     * the library moves through its index route, whose scratch is larger):
     * with the buffer, 1.4 times SIZE at most (half of it gave 1.56 for
     * 2^24 u64 keys and -S 64M, over issue 32's 1.5); the rest stages the
     * records a run writes.  The merges use all of it. */
    per_run = (e.vs == 0 || e.vs == 4 || e.vs == 8 ? bufsize / 5 * 2
                                                   : bufsize / 4) / e.rs;
    /* Blocks of at least 64 records in a merge (-S is at least 64K). */
    if (e.batch > bufsize / e.rs / 64 - 1)
        e.batch = bufsize / e.rs / 64 - 1;
    e.buf = malloc(e.bufsize);
    if (e.buf == NULL || per_run == 0) {
        fprintf(stderr, "%s: cannot allocate the buffer of %zu bytes (-S)\n",
                PS_CLI_NAME, e.bufsize);
        free(e.buf);
        return 1;
    }
    vals = e.buf + per_run * kb;
    if (e.vs != 0) {
        vfd = strcmp(vpath, "-") == 0 ? STDIN_FILENO : open(vpath, O_RDONLY);
        if (vfd < 0) {
            fprintf(stderr, "%s: %s: %s\n", PS_CLI_NAME, vpath, strerror(errno));
            goto done;
        }
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
            got = read_some(fd, paths[i], e.buf + fill, per_run * kb - fill);
            if (got < 0)
                break;
            fill += (size_t)got;
            if (fill < per_run * kb)
                break;                  /* this input's end */
            if ((e.vs != 0 && read_values(vfd, vpath, vals, per_run * e.vs) != 0)
                || spill(&e, per_run, vals) != 0) {
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
    if (e.vs != 0) {
        unsigned char extra;
        ssize_t more;
        if (read_values(vfd, vpath, vals, fill / kb * e.vs) != 0)
            goto done;
        more = read_some(vfd, vpath, &extra, 1);
        if (more != 0) {
            if (more > 0)
                fprintf(stderr, "%s: %s holds more values than there are "
                        "keys\n", PS_CLI_NAME, vpath);
            goto done;
        }
    }
    if (ps_cli_out_open(&out[nout], outpath) != 0)
        goto done;
    nout++;
    if (e.vs != 0) {
        if (ps_cli_out_open(&out[nout], voutpath) != 0)
            goto done;
        nout++;
    }
    if (e.nruns == 0) {
        /* It fitted in one run: sorted here, no temporary file. */
        size_t n = fill / kb;
        int st = e.vs == 0 ? ps_sort_keys(e.buf, n, t->type, flags)
                 : ps_sort_pairs(e.buf, vals, e.vs, n, t->type, flags);
        if (st != PS_OK) {
            sort_failed(st);
            goto done;
        }
        if (n > head)
            n = (size_t)head;
        ps_cli_out_write(&out[0], e.buf, n * kb);
        if (e.vs != 0)
            ps_cli_out_write(&out[1], vals, n * e.vs);
    } else {
        sink s = { -1, NULL, out, NULL };
        if ((fill > 0 && spill(&e, fill / kb, vals) != 0) ||
            merge_passes(&e) != 0 || e.merge(&e, e.runs, e.nruns, &s) != 0)
            goto done;
    }
    rc = ps_cli_out_commit(out, nout) == 0 ? 0 : 1;
    nout = 0;
done:
    for (i = 0; i < nout; i++)
        ps_cli_out_discard(&out[i]);
    if (vfd > STDIN_FILENO)
        close(vfd);
    close_runs(e.runs, e.nruns);
    free(e.runs);
    free(e.buf);
    return rc;
}

/* ---- text: runs of whole lines ------------------------------------------
 *
 * Runs are cut at line ends, a file at a time (a run never spans two
 * inputs, so that a message names the right file and line); a line longer
 * than the run's share of the buffer is refused with its place.  Each run
 * is a file of records, one per line, each holding the line (with its end
 * of line) after a header the merge orders the records by.  With --type
 * and --values, the values file is read beside the inputs (vreader) and
 * each record ends with its value line, which the last merge writes to
 * the second output. */

/* Bytes of records a spill stages before each write. */
#define TEXT_STAGE ((size_t)1 << 20)

/* Output through a block: records to a run's file, lines to the output. */
static int text_put(sink *s, unsigned char *ob, size_t cap, size_t *at,
                    const unsigned char *p, size_t n)
{
    if (*at + n > cap) {
        if (*at > 0 && (s->out != NULL ? ps_cli_out_write(s->out, ob, *at)
                                       : write_all(s->fd, ob, *at, s->dir)) != 0)
            return -1;
        *at = 0;
        if (n > cap)            /* longer than the block: straight out */
            return s->out != NULL ? ps_cli_out_write(s->out, p, n)
                                  : write_all(s->fd, p, n, s->dir);
    }
    memcpy(ob + *at, p, n);
    *at += n;
    return 0;
}

/* Write what a block holds: 0 or -1. */
static int text_flush(sink *s, const unsigned char *ob, size_t at)
{
    if (at == 0)
        return 0;
    return s->out != NULL ? ps_cli_out_write(s->out, ob, at)
                          : write_all(s->fd, ob, at, s->dir);
}

/* Make the first `need` bytes from lo available: 0, or -1. */
static int tc_have(cursor *c, size_t need)
{
    if (c->hi - c->lo >= need)
        return 0;
    memmove(c->blk, c->blk + c->lo, c->hi - c->lo);
    c->hi -= c->lo;
    c->lo = 0;
    if (need > c->cap) {
        unsigned char *b = realloc(c->blk, need);
        if (b == NULL) {
            fprintf(stderr, "%s: out of memory for a line of %zu bytes\n",
                    PS_CLI_NAME, need);
            return -1;
        }
        c->blk = b;
        c->cap = need;
    }
    while (c->hi < need) {
        ssize_t r = pread(c->r->fd, c->blk + c->hi, c->cap - c->hi,
                          (off_t)c->off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            fprintf(stderr, "%s: reading a temporary file in %s: %s\n",
                    PS_CLI_NAME, c->r->dir, r < 0 ? strerror(errno)
                                                  : "it is shorter than written");
            return -1;
        }
        c->hi += (size_t)r;
        c->off += (uint64_t)r;
    }
    return 0;
}

/* Merge text runs r[0 .. k - 1] into s: to a run the whole records, to
 * the output the lines alone, and with -u only the first of the lines
 * with equal keys (the runs keep them all: equal keys may meet only in
 * the last merge). */
static int text_merge(ext *e, const run *r, size_t k, sink *s)
{
    size_t blk = e->bufsize / (k + 1), i, n = 0, at = 0, vat = 0, oblk = blk;
    uint64_t left = e->head;    /* into a run too: see kept() */
    ps_cli_bytes last = { NULL, 0, 0, 0 };  /* -u: the last record written */
    int unique = s->out != NULL && e->unique;
    /* --values into the outputs: the value lines to the second, through
     * the output block's second half (the memory stays the buffer's). */
    sink vs = { -1, NULL, s->out != NULL ? s->out + 1 : NULL, NULL };
    int split = s->out != NULL && e->tvals;
    cursor *cur = calloc(k, sizeof *cur);
    cursor **heap = malloc(k * sizeof *heap);
    unsigned char *ob = malloc(blk);
    int rc = -1;

    if (cur == NULL || heap == NULL || ob == NULL) {
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        goto done;
    }
    if (split)
        oblk = blk / 2;
    for (i = 0; i < k; i++) {
        int got;
        cur[i].r = &r[i];
        cur[i].left = r[i].keys;
        cur[i].cap = blk;
        cur[i].blk = malloc(blk);
        if (cur[i].blk == NULL) {
            fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
            goto done;
        }
        got = e->next(e, &cur[i]);
        if (got < 0)
            goto done;
        if (got > 0)
            heap[n++] = &cur[i];
    }
    for (i = n; i-- > 0;)
        sift(e, e->before, heap, n, i);
    while (n > 0 && left > 0) {
        cursor *c = heap[0];
        const unsigned char *rec = c->blk + c->lo;
        size_t skip = s->out != NULL ? c->skip : 0;
        size_t vlen = split ? c->vlen : 0;
        int got, dup = 0;
        if (unique && !c->bad) {
            dup = last.len > 0 && e->same(e, last.p, rec);
            if (!dup) {
                last.len = 0;
                ps_cli_bytes_put(&last, rec, c->len);
                if (last.oom) {
                    fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
                    goto done;
                }
            }
        }
        if (!dup && text_put(s, ob, oblk, &at, rec + skip,
                             c->len - skip - vlen) != 0)
            goto done;
        if (split && !dup && text_put(&vs, ob + oblk, blk - oblk, &vat,
                              rec + c->len - vlen, vlen) != 0)
            goto done;
        left -= !dup;
        c->lo += c->len;
        got = e->next(e, c);
        if (got < 0)
            goto done;
        if (got == 0)
            heap[0] = heap[--n];
        sift(e, e->before, heap, n, 0);
    }
    rc = text_flush(s, ob, at);
    if (rc == 0 && split)
        rc = text_flush(&vs, ob + oblk, vat);
done:
    for (i = 0; cur != NULL && i < k; i++)
        free(cur[i].blk);
    free(cur);
    free(heap);
    free(ob);
    free(last.p);
    return rc;
}

/* What a chunk of whole lines becomes: a sorted run (e->nruns grows),
 * written through `stage` (TEXT_STAGE bytes), its lines counted into
 * *lines.  0, or -1 after a message. */
typedef int chunk_fn(ext *e, const ps_cli_input *in, unsigned char *stage,
                     void *arg, size_t *lines);

/* Read the inputs (none: standard input) a chunk of at most `chunk` bytes
 * and `max_lines` lines at a time, each chunk whole lines of one input, a
 * last line without its end of line given one (as in memory), and hand
 * each to fn.  0, or -1 after a message (the runs then closed). */
static int text_runs(ext *e, char **paths, size_t npaths, size_t chunk,
                     size_t max_lines, chunk_fn *fn, void *arg)
{
    static char *stdin_only[] = { "-" };
    unsigned char *data = malloc(chunk + 1);    /* + an end of line */
    unsigned char *stage = malloc(TEXT_STAGE);
    size_t i, zero = 0;
    int rc = -1;

    if (data == NULL || stage == NULL) {
        fprintf(stderr, "%s: cannot allocate the buffer of %zu bytes (-S)\n",
                PS_CLI_NAME, chunk);
        goto done;
    }
    if (npaths == 0) {
        paths = stdin_only;
        npaths = 1;
    }
    for (i = 0; i < npaths; i++) {
        int std = strcmp(paths[i], "-") == 0;
        int fd = std ? STDIN_FILENO : open(paths[i], O_RDONLY);
        size_t fill = 0, lines = 0;
        ssize_t got = 0;
        int eof = 0;
        ps_cli_input in;
        if (fd < 0) {
            fprintf(stderr, "%s: %s: %s\n", PS_CLI_NAME, paths[i],
                    strerror(errno));
            goto done;
        }
        memset(&in, 0, sizeof in);
        in.data = data;
        in.nparts = 1;
        in.names = (const char **)&paths[i];
        in.starts = &zero;
        for (;;) {
            size_t cut, nl = 0;
            const unsigned char *p, *q;
            /* Not read again once at its end: a terminal would wait. */
            got = eof ? 0 : read_some(fd, paths[i], data + fill, chunk - fill);
            if (got < 0)
                break;
            fill += (size_t)got;
            if (fill < chunk) {         /* this input's end */
                eof = 1;
                if (fill > 0 && data[fill - 1] != (unsigned char)ps_cli_eol)
                    data[fill++] = (unsigned char)ps_cli_eol;
                cut = fill;
            } else {
                unsigned char *end = data + fill;
                while (end > data && end[-1] != (unsigned char)ps_cli_eol)
                    end--;
                if (end == data) {
                    fprintf(stderr, "%s: %s: line %zu is longer than a run "
                            "of -S (%zu bytes): give -S four times the "
                            "longest line at least\n", PS_CLI_NAME, paths[i],
                            lines + 1, chunk);
                    got = -1;
                    break;
                }
                cut = (size_t)(end - data);
            }
            /* At most max_lines lines: short lines cost more per byte. */
            for (p = data; max_lines != SIZE_MAX && p < data + cut; p = q + 1) {
                q = memchr(p, ps_cli_eol, (size_t)(data + cut - p));
                if (++nl == max_lines) {
                    cut = (size_t)(q + 1 - data);
                    break;
                }
            }
            if (cut > 0) {
                in.size = cut;
                in.line0 = lines;
                if (fn(e, &in, stage, arg, &lines) != 0) {
                    got = -1;
                    break;
                }
            }
            if (eof && cut == fill)
                break;
            memmove(data, data + cut, fill - cut);
            fill -= cut;
        }
        if (!std)
            close(fd);
        if (got < 0)
            goto done;
    }
    rc = 0;
done:
    free(data);
    free(stage);
    if (rc != 0) {
        close_runs(e->runs, e->nruns);
        free(e->runs);
    }
    return rc;
}

/* The last merge into outpath (and with text --values, the value lines
 * into voutpath), all or nothing, and the runs closed: the exit status. */
static int text_output(ext *e, const char *outpath, const char *voutpath)
{
    ps_cli_out out[2];
    sink s = { -1, NULL, NULL, NULL };
    size_t nout = 0, want = voutpath != NULL ? 2 : 1, i;
    int rc = 1;
    give_back();
    if (ps_cli_out_open(&out[0], outpath) == 0) {
        nout = 1;
        if (voutpath != NULL && ps_cli_out_open(&out[1], voutpath) == 0)
            nout = 2;
    }
    if (nout == want) {
        s.out = out;
        if (e->nruns == 0 || (merge_passes(e) == 0 &&
                              text_merge(e, e->runs, e->nruns, &s) == 0)) {
            rc = ps_cli_out_commit(out, nout) == 0 ? 0 : 1;
            nout = 0;
        }
    }
    for (i = 0; i < nout; i++)
        ps_cli_out_discard(&out[i]);
    close_runs(e->runs, e->nruns);
    free(e->runs);
    return rc;
}

/* The setup the two text forms share: their records' ways. */
static void text_init(ext *e, size_t bufsize, const char *const *dirs,
                      size_t ndirs, size_t batch, int unique, uint64_t head,
                      int (*next)(const ext *, cursor *), before_fn *lt,
                      int (*same)(const ext *, const unsigned char *,
                                  const unsigned char *))
{
    memset(e, 0, sizeof *e);
    e->dirs = dirs;
    e->ndirs = ndirs;
    e->batch = batch;
    e->bufsize = bufsize;
    e->merge = text_merge;
    e->unique = unique;
    e->head = head;
    e->next = next;
    e->before = lt;
    e->same = same;
}

/* ---- text with --type ---------------------------------------------------
 *
 * A record: a byte (0: a line with a valid key, 1: one without,
 * --skip-bad), the key (its kb bytes; zeros for none), the line's length
 * with its end of line (8 bytes, little-endian), the line.  With --values
 * (e->tvals), the value line's length (8 bytes) follows the line's, and
 * the value line (with its end of line) the line. */

#define TEXT_HEAD(kb) (1 + (kb) + 8)

/* With --values, a run's value lines: line j of the run (in input order)
 * has the value data[offs[j] .. offs[j + 1]), end of line included, and
 * the sorted record i is line perm[i]. */
typedef struct tv_lines {
    const unsigned char *data;
    const uint64_t *offs;
    const uint64_t *perm;
} tv_lines;

/* The parsed chunk's records, sorted, as a run, staged in arg: its keys
 * sorted with their lines' offsets, or with tv, with their lines' numbers
 * (tv->perm), which give the line's offset and its value's. */
static int text_spill(ext *e, const ps_cli_input *in, const ps_cli_lines *l,
                      unsigned char *stage, const tv_lines *tv)
{
    size_t kb = e->t->size, at = 0, i, n = kept(e, l->n + l->nbad);
    size_t h = TEXT_HEAD(kb) + (tv != NULL ? 8 : 0);
    unsigned char head[TEXT_HEAD(sizeof(uint64_t)) + 8];
    sink s = { -1, NULL, NULL, NULL };
    s.fd = temp_open(e, &s.dir);
    if (s.fd < 0)
        return -1;
    for (i = 0; i < n; i++) {
        int bad = i >= l->n;
        size_t j = tv != NULL ? (size_t)tv->perm[i] : i;
        size_t off = (size_t)(bad ? l->bad[i - l->n] : l->offs[j]);
        uint64_t len, vlen = 0;
        if (tv != NULL) {
            /* Lines in input order (no line refused: values forbid
             * --skip-bad), each ending just before the next: no scan for
             * its end, which was 17% of 10M lines with values.  Their
             * sorted order is all over the chunk and the values: fetch
             * ahead, as keys_chunk does. */
            len = l->offs[j + 1] - l->offs[j];
#if defined(__GNUC__)
            if (i + 8 < n) {
                __builtin_prefetch(in->data + l->offs[tv->perm[i + 8]]);
                __builtin_prefetch(tv->data + tv->offs[tv->perm[i + 8]]);
            }
#endif
        } else {
            size_t end = ps_cli_line_end(in, off);
            len = (uint64_t)(end - off) + (end < in->size);
        }
        head[0] = (unsigned char)bad;
        if (bad)
            memset(head + 1, 0, kb);
        else
            memcpy(head + 1, (const unsigned char *)l->keys + i * kb, kb);
        memcpy(head + 1 + kb, &len, 8);
        if (tv != NULL) {
            vlen = tv->offs[j + 1] - tv->offs[j];
            memcpy(head + TEXT_HEAD(kb), &vlen, 8);
        }
        if (text_put(&s, stage, TEXT_STAGE, &at, head, h) != 0 ||
            text_put(&s, stage, TEXT_STAGE, &at, in->data + off, (size_t)len) != 0 ||
            (tv != NULL && text_put(&s, stage, TEXT_STAGE, &at,
                                    tv->data + tv->offs[j], (size_t)vlen) != 0))
            goto fail;
    }
    if (text_flush(&s, stage, at) != 0)
        goto fail;
    return add_run(e, s.fd, n, s.dir);
fail:
    close(s.fd);
    return -1;
}

/* The values file of text --values, read beside the keys: a buffer of
 * whole value lines, a run's worth of them at a time. */
typedef struct vreader {
    int fd;
    const char *path;
    unsigned char *buf;         /* cap bytes, and one for a last end of line */
    size_t cap, lo, hi;         /* the bytes read and not yet taken */
    int eof;                    /* read to its end: never read again */
    uint64_t *offs;             /* the lines found from lo (offs[0] = 0) */
    size_t maxl;                /* at most this many lines at a time */
    uint64_t lines;             /* taken (or counted, vr_count) so far */
} vreader;

/* The next lines of v, at most `want` (and v->maxl), as many as the
 * buffer holds: *got of them at v->buf + v->lo, line j at offs[j] ..
 * offs[j + 1] from there; 0 only at the file's end.  A last line without
 * its end of line gets one, as in memory.  0, or -1 after a message. */
static int vr_lines(vreader *v, size_t want, size_t *got)
{
    unsigned char eol = (unsigned char)ps_cli_eol;
    size_t m = 0, at = v->lo;   /* where the scan for line ends goes on */
    if (want > v->maxl)
        want = v->maxl;
    v->offs[0] = 0;
    for (;;) {
        ssize_t r;
        while (m < want) {
            unsigned char *q = memchr(v->buf + at, eol, v->hi - at);
            if (q == NULL)
                break;
            at = (size_t)(q + 1 - v->buf);
            v->offs[++m] = at - v->lo;
        }
        if (m == want)
            break;
        if (v->eof) {
            if (at < v->hi) {
                v->buf[v->hi++] = eol;
                v->offs[++m] = v->hi - v->lo;
            }
            break;
        }
        if (v->lo > 0) {
            memmove(v->buf, v->buf + v->lo, v->hi - v->lo);
            at -= v->lo;
            v->hi -= v->lo;
            v->lo = 0;
        }
        if (v->hi == v->cap) {
            if (m > 0)
                break;          /* the rest in the next run */
            fprintf(stderr, "%s: %s: line %llu is longer than a run of -S "
                    "(%zu bytes): give -S four times the longest line at "
                    "least\n", PS_CLI_NAME, v->path,
                    (unsigned long long)v->lines + 1, v->cap);
            return -1;
        }
        r = read_some(v->fd, v->path, v->buf + v->hi, v->cap - v->hi);
        if (r < 0)
            return -1;
        if ((size_t)r < v->cap - v->hi)
            v->eof = 1;
        v->hi += (size_t)r;
    }
    *got = m;
    return 0;
}

/* The m lines vr_lines gave are done with. */
static void vr_take(vreader *v, size_t m)
{
    v->lo += (size_t)v->offs[m];
    v->lines += m;
}

/* Count the lines left in v into v->lines (for the message when the
 * values outnumber the keys): 0, or -1 after a message. */
static int vr_count(vreader *v)
{
    unsigned char eol = (unsigned char)ps_cli_eol;
    int tail = 0;               /* bytes after the last end of line */
    for (;;) {
        const unsigned char *p = v->buf + v->lo, *end = v->buf + v->hi, *q;
        ssize_t r;
        while ((q = memchr(p, eol, (size_t)(end - p))) != NULL) {
            v->lines++;
            p = q + 1;
        }
        if (v->hi > v->lo)
            tail = p < end;
        if (v->eof)
            break;
        r = read_some(v->fd, v->path, v->buf, v->cap);
        if (r < 0)
            return -1;
        v->lo = 0;
        v->hi = (size_t)r;
        v->eof = (size_t)r < v->cap;
    }
    v->lines += (uint64_t)tail;
    v->lo = v->hi;
    return 0;
}

/* What text_chunk needs beside the chunk. */
typedef struct typed_arg {
    const ps_cli_text *opt;
    size_t nbad;
    vreader *v;                 /* --values, or NULL */
    uint64_t keys;              /* the keys read so far (with v) */
    int vshort;                 /* the values ran out first: the rest of
                                   the keys are parsed and counted only */
} typed_arg;

/* With --values: the parsed chunk l (keys in input order) cut into runs
 * whose value lines fit v's buffer, each sorted with its lines' numbers
 * and written as a run.  0, or -1 after a message. */
static int values_chunk(ext *e, const ps_cli_input *in, unsigned char *stage,
                        typed_arg *a, ps_cli_lines *l)
{
    size_t kb = e->t->size, i = 0, j, m;
    uint64_t *idx = malloc((l->n ? l->n : 1) * sizeof *idx);
    int rc = -1;
    if (idx == NULL) {
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        return -1;
    }
    while (i < l->n && !a->vshort) {
        ps_cli_lines sub = *l;
        tv_lines tv;
        int st;
        if (vr_lines(a->v, l->n - i, &m) != 0)
            goto done;
        if (m == 0) {
            a->vshort = 1;      /* said once all the keys are counted */
            break;
        }
        for (j = 0; j < m; j++)
            idx[j] = j;
        sub.keys = (unsigned char *)l->keys + i * kb;
        sub.offs = l->offs + i;
        sub.n = m;
        st = ps_sort_pairs(sub.keys, idx, sizeof *idx, m, e->t->type, e->flags);
        if (st != PS_OK) {
            sort_failed(st);
            goto done;
        }
        tv.data = a->v->buf + a->v->lo;
        tv.offs = a->v->offs;
        tv.perm = idx;
        if (text_spill(e, in, &sub, stage, &tv) != 0)
            goto done;
        vr_take(a->v, m);
        i += m;
    }
    rc = 0;
done:
    free(idx);
    return rc;
}

/* Parse and sort one chunk of whole lines, then write it as a run. */
static int text_chunk(ext *e, const ps_cli_input *in, unsigned char *stage,
                      void *arg, size_t *lines)
{
    typed_arg *a = arg;
    ps_cli_lines l;
    int st, rc = -1;
    memset(&l, 0, sizeof l);
    if (ps_cli_parse_lines(in, a->opt, &l) != 0)
        goto done;
    if (a->v != NULL) {
        a->keys += l.n;
        *lines += l.n;
        rc = values_chunk(e, in, stage, a, &l);
        goto done;
    }
    st = ps_sort_pairs(l.keys, l.offs, sizeof *l.offs, l.n, e->t->type,
                       e->flags);
    if (st != PS_OK) {
        sort_failed(st);
        goto done;
    }
    a->nbad += l.nbad;
    *lines += l.n + l.nbad;
    rc = text_spill(e, in, &l, stage, NULL);
done:
    ps_cli_lines_free(&l);
    return rc;
}

/* Step c to its next record: 1, 0 at its run's end, -1. */
static int tc_next(const ext *e, cursor *c)
{
    size_t kb = e->t->size, h = TEXT_HEAD(kb) + (e->tvals ? 8 : 0);
    uint64_t len, vlen = 0;
    if (c->left == 0)
        return 0;
    if (tc_have(c, h) != 0)
        return -1;
    memcpy(&len, c->blk + c->lo + 1 + kb, 8);
    if (e->tvals)
        memcpy(&vlen, c->blk + c->lo + TEXT_HEAD(kb), 8);
    if (len > (uint64_t)SIZE_MAX - h || vlen > (uint64_t)SIZE_MAX - h - len ||
        tc_have(c, h + (size_t)(len + vlen)) != 0)
        return -1;
    c->bad = c->blk[c->lo] != 0;
    c->key = c->bad ? 0 : order_of(e, c->blk + c->lo + 1);
    c->vlen = (size_t)vlen;
    c->len = h + (size_t)(len + vlen);
    c->skip = h;
    c->left--;
    return 1;
}

/* -u: whether two records (of lines with keys) have equal keys. */
static int tc_same(const ext *e, const unsigned char *a, const unsigned char *b)
{
    return order_of(e, a + 1) == order_of(e, b + 1);
}

int ps_cli_external_text(char **paths, size_t npaths, const ps_cli_text *opt,
                         unsigned flags, int unique, size_t bufsize,
                         const char *const *dirs, size_t ndirs, size_t batch,
                         const char *outpath, const char *vpath,
                         const char *voutpath, uint64_t head)
{
    ext e;
    vreader v;
    typed_arg a = { opt, 0, NULL, 0, 0 };
    size_t max_lines = SIZE_MAX;
    int rc = 1;

    text_init(&e, bufsize, dirs, ndirs, batch, unique, head, tc_next, before,
              tc_same);
    e.t = opt->t;
    e.flags = flags;
    memset(&v, 0, sizeof v);
    v.fd = -1;
    if (vpath != NULL) {
        /* The value lines of a run take a quarter of the buffer, beside
         * the chunk's quarter; at most SIZE / 128 lines a chunk, as a line
         * takes about 64 bytes beside its text and its value's: its key,
         * its offset and its value's, its number, and the library's
         * scratch for the keys and the numbers. */
        max_lines = bufsize / 128;
        v.path = vpath;
        v.cap = bufsize / 4;
        v.maxl = max_lines;
        v.buf = malloc(v.cap + 1);
        v.offs = malloc((v.maxl + 1) * sizeof *v.offs);
        if (v.buf == NULL || v.offs == NULL) {
            fprintf(stderr, "%s: cannot allocate the buffer of %zu bytes (-S)\n",
                    PS_CLI_NAME, bufsize);
            goto done;
        }
        v.fd = strcmp(vpath, "-") == 0 ? STDIN_FILENO : open(vpath, O_RDONLY);
        if (v.fd < 0) {
            fprintf(stderr, "%s: %s: %s\n", PS_CLI_NAME, vpath, strerror(errno));
            goto done;
        }
        e.tvals = 1;
        a.v = &v;
    }
    /* A chunk of text is a quarter of the buffer: its keys and line
     * offsets, and the library's scratch for sorting them, take about as
     * much again each for lines of 12 bytes or more. */
    if (text_runs(&e, paths, npaths, bufsize / 4, max_lines, text_chunk, &a) != 0)
        goto done;
    if (a.nbad > 0)
        fprintf(stderr, "%s: %zu line%s without a valid %s key %s put at the "
                "end\n", PS_CLI_NAME, a.nbad, a.nbad == 1 ? "" : "s",
                opt->t->name, a.nbad == 1 ? "was" : "were");
    if (vpath != NULL) {
        /* A read that fails has said why; counts that differ get the
         * in-memory sort's message, with the same numbers. */
        int bad = !a.vshort && vr_count(&v) != 0;
        if (!bad && v.lines != a.keys) {
            fprintf(stderr, "%s: %s has %llu lines but %s has %llu keys\n",
                    PS_CLI_NAME, vpath, (unsigned long long)v.lines,
                    npaths == 1 ? paths[0] : npaths == 0 ? "-" : "the input",
                    (unsigned long long)a.keys);
            bad = 1;
        }
        if (bad) {
            close_runs(e.runs, e.nruns);
            free(e.runs);
            goto done;
        }
    }
    free(v.buf);
    free(v.offs);
    v.buf = NULL;
    v.offs = NULL;
    rc = text_output(&e, outpath, voutpath);
done:
    if (v.fd > STDIN_FILENO)
        close(v.fd);
    free(v.buf);
    free(v.offs);
    return rc;
}

/* ---- text without --type: sort(1)'s keys --------------------------------
 *
 * A record: the line's length with its end of line (8 bytes), the length
 * of its key images (4 bytes), the images (ps_cli_keys_record), the line.
 * A run is a chunk sorted by ps_cli_keys_sort, the in-memory sort itself;
 * the merge compares two records key by key (ps_cli_keys_record_compare),
 * each key's images as unsigned bytes, reversed for an r key, then the
 * whole lines (the last resort, unless -s or -u), then the runs' order.
 *
 * Why images compared key by key rather than one memcmp over an escaped,
 * order-preserving concatenation of them (0 bytes doubled, each image
 * ended by a pair that sorts first, complemented when reversed): that
 * record must hold the line a second time for the last resort, escaped,
 * where here the last resort and a key that is the whole line (plain
 * `sort`, the commonest) read the line the record holds anyway.  Measured
 * (perf, 10M CSV lines of 29 bytes, `-t, -k2,2 -S 64M`, 3.0-3.3 s): the
 * merge's comparisons are 19% of the samples (memcmp 7%, the walk over
 * the keys 12%), the runs' and the output's writes and reads about 20%,
 * the runs' sorts and images most of the rest.  The concatenation would
 * make the records 53 -> 83 bytes there (57% more to write and read back,
 * and an escaping pass over every image) to save part of those 19%: no
 * gain to expect, and a second format of the keys to keep right. */

#define KEYS_HEAD (8 + 4)

/* A key record's parts: its images, its line and the line's length
 * without the end of line. */
static void kr_parts(const unsigned char *rec, const unsigned char **keys,
                     const unsigned char **line, size_t *llen)
{
    uint64_t len;
    uint32_t klen;
    memcpy(&len, rec, 8);
    memcpy(&klen, rec + 8, 4);
    *keys = rec + KEYS_HEAD;
    *line = rec + KEYS_HEAD + klen;
    *llen = (size_t)len - 1;
}

static int kr_compare(const ext *e, const unsigned char *a,
                      const unsigned char *b, int last)
{
    const unsigned char *ka, *la, *kb, *lb;
    size_t na, nb;
    kr_parts(a, &ka, &la, &na);
    kr_parts(b, &kb, &lb, &nb);
    return ps_cli_keys_record_compare(e->ks, ka, la, na, kb, lb, nb, last);
}

static int kr_before(const ext *e, const cursor *a, const cursor *b)
{
    int c = ps_cli_keys_record_compare(e->ks, a->kp, a->lp, a->ll, b->kp,
                                       b->lp, b->ll, 1);
    return c < 0 || (c == 0 && a->r < b->r);
}

static int kr_same(const ext *e, const unsigned char *a, const unsigned char *b)
{
    return kr_compare(e, a, b, 0) == 0;
}

static int kr_next(const ext *e, cursor *c)
{
    uint64_t len;
    uint32_t klen;
    (void)e;
    if (c->left == 0)
        return 0;
    if (tc_have(c, KEYS_HEAD) != 0)
        return -1;
    memcpy(&len, c->blk + c->lo, 8);
    memcpy(&klen, c->blk + c->lo + 8, 4);
    if (len > (uint64_t)SIZE_MAX - KEYS_HEAD - klen ||
        tc_have(c, KEYS_HEAD + klen + (size_t)len) != 0)
        return -1;
    c->skip = KEYS_HEAD + klen;
    c->len = c->skip + (size_t)len;
    kr_parts(c->blk + c->lo, &c->kp, &c->lp, &c->ll);
    c->left--;
    return 1;
}

/* Sort one chunk as the in-memory sort does and write it as a run; arg is
 * a ps_cli_bytes for a line's record. */
static int keys_chunk(ext *e, const ps_cli_input *in, unsigned char *stage,
                      void *arg, size_t *lines)
{
    static const unsigned char zero[KEYS_HEAD];
    ps_cli_bytes *img = arg;
    ps_cli_text split = { NULL, -1, 0, 0 };
    ps_cli_lines l;
    size_t *perm = NULL, i, at = 0;
    sink s = { -1, NULL, NULL, NULL };
    int st, rc = -1;

    memset(&l, 0, sizeof l);
    if (ps_cli_parse_lines(in, &split, &l) != 0)
        goto done;
    perm = malloc((l.n ? l.n : 1) * sizeof *perm);
    st = perm == NULL ? -1 : ps_cli_keys_sort(in, l.offs, l.n, e->ks, perm);
    if (st != PS_OK) {
        if (st == -1)
            fprintf(stderr, "%s: out of memory for %zu lines\n", PS_CLI_NAME,
                    l.n);
        else
            sort_failed(st);
        goto done;
    }
    s.fd = temp_open(e, &s.dir);
    if (s.fd < 0)
        goto done;
    for (i = 0; i < kept(e, l.n); i++) {
        /* Every line has its end of line, just before the next line: no
         * scan for it (ps_cli_line_end here was a quarter of the time). */
        size_t off = (size_t)l.offs[perm[i]];
        size_t end = (size_t)l.offs[perm[i] + 1] - 1;
        const char *line = (const char *)in->data + off;
        uint64_t len = (uint64_t)(end - off) + 1;
        uint32_t klen;
        int got;
#if defined(__GNUC__)
        /* The lines in sorted order are all over the chunk: fetch ahead,
         * as ps_cli_write_lines does (put_key's misses were 27% of the
         * time without). */
        if (i + 8 < l.n)
            __builtin_prefetch(in->data + l.offs[perm[i + 8]]);
#endif
        img->len = 0;
        ps_cli_bytes_put(img, zero, KEYS_HEAD);     /* its place */
        got = img->oom ? -1
              : ps_cli_keys_record(e->ks, line, line + (end - off), img);
        if (got != 0) {
            fprintf(stderr, "%s: %s\n", PS_CLI_NAME, got == -1 ?
                    "out of memory" : "a key longer than 4 GiB");
            goto done;
        }
        klen = (uint32_t)(img->len - KEYS_HEAD);
        memcpy(img->p, &len, 8);
        memcpy(img->p + 8, &klen, 4);
        if (text_put(&s, stage, TEXT_STAGE, &at, img->p, img->len) != 0 ||
            text_put(&s, stage, TEXT_STAGE, &at, in->data + off,
                     (size_t)len) != 0)
            goto done;
    }
    if (text_flush(&s, stage, at) != 0)
        goto done;
    *lines += l.n;
    rc = add_run(e, s.fd, kept(e, l.n), s.dir);
    s.fd = -1;                  /* add_run closes it on failure */
done:
    if (s.fd >= 0)
        close(s.fd);
    free(perm);
    ps_cli_lines_free(&l);
    return rc;
}

int ps_cli_external_lines(char **paths, size_t npaths, const ps_cli_keys *ks,
                          int unique, size_t bufsize,
                          const char *const *dirs, size_t ndirs, size_t batch,
                          const char *outpath, uint64_t head)
{
    ext e;
    ps_cli_bytes img = { NULL, 0, 0, 0 };
    int rc;

    text_init(&e, bufsize, dirs, ndirs, batch, unique, head, kr_next, kr_before,
              kr_same);
    e.ks = ks;
    /* Runs of a quarter of SIZE and at most SIZE / 160 lines: a run's sort
     * takes 80 to 150 bytes a line (offsets, the permutation, the sort's
     * indices and scratch, the images of a key beside the text: -n on
     * 3-byte lines makes images of 11).  With -S 64M the peaks were 128
     * to 144 MiB (10M CSV lines of 29 bytes by one and two keys, 40M
     * lines of 3 bytes whole, by -n and by -g; 66 MiB of each is the
     * process before it reads: pocl's probe), under 1.5 x SIZE + 64M;
     * without the cap 3-byte lines took 364 MiB (548 with -n), and
     * SIZE / 128 150 MiB. */
    rc = text_runs(&e, paths, npaths, bufsize / 4, bufsize / 160, keys_chunk,
                   &img);
    free(img.p);
    return rc != 0 ? 1 : text_output(&e, outpath, NULL);
}

/* ---- -c: the order checked a block at a time ----------------------------
 *
 * No run is written: each block of whole lines (text_runs, as for a sort)
 * is split, or parsed for --type, and checked as the in-memory -c checks
 * the whole input, the carry comparing a block's first line with the line
 * before it.  Memory: the block, its line offsets (and keys) and the one
 * line carried. */

/* What check_chunk needs beside the block. */
typedef struct check_arg {
    const ps_cli_text *opt;     /* --type, or NULL: sort(1)'s keys */
    const ps_cli_keys *ks;
    unsigned flags;
    int strict, quiet;
    ps_cli_check_carry carry;
} check_arg;

/* Check one block: 0 in order so far, or -1 to stop reading (a line out of
 * order, reported unless quiet, or a failure after a message). */
static int check_chunk(ext *e, const ps_cli_input *in, unsigned char *stage,
                       void *arg, size_t *lines)
{
    static const ps_cli_text split = { NULL, -1, 0, 0 };
    check_arg *a = arg;
    ps_cli_lines l;
    int rc = -1;

    (void)e;
    (void)stage;
    if (ps_cli_parse_lines(in, a->opt != NULL ? a->opt : &split, &l) == 0) {
        rc = a->opt != NULL
             ? ps_cli_check_lines(in, a->opt->t, &l, a->flags, a->strict,
                                  a->quiet, &a->carry)
             : ps_cli_keys_check(in, a->ks, l.offs, l.n, a->strict, a->quiet,
                                 &a->carry);
        if (rc == -1)
            fprintf(stderr, "%s: out of memory for %zu lines\n", PS_CLI_NAME,
                    l.n);
        *lines += l.n;
    }
    ps_cli_lines_free(&l);
    return rc == 0 ? 0 : -1;
}

int ps_cli_external_check(char **paths, size_t npaths, const ps_cli_text *opt,
                          const ps_cli_keys *ks, unsigned flags, int strict,
                          int quiet, size_t bufsize)
{
    ext e;
    check_arg a = { opt, ks, flags, strict, quiet, { 0, 0, { NULL, 0, 0, 0 } } };
    int rc;

    memset(&e, 0, sizeof e);
    /* Blocks of half of SIZE and at most SIZE / 32 lines: a block's line
     * offsets (8 bytes a line) and keys (8 at most) then take at most half
     * of SIZE again, whatever the lines' length. */
    rc = text_runs(&e, paths, npaths, bufsize / 2, bufsize / 32, check_chunk,
                   &a);
    free(a.carry.line.p);
    return rc != 0 ? 1 : 0;
}
