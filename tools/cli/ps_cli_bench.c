/*
 * ps_cli_bench.c - `portsort bench`: the harness of Yatskov & Mürdter's
 * "Parallel Radix Sort on OpenCL" (its options and datasets), grown into a sweep
 * over types, backends, datasets and sizes.
 *
 * The library fixes its backend once per process, so each backend is
 * measured in a child process (fork, then PORTSORT_BACKEND) that streams
 * its results to the parent as lines (ps_cli_row_write).  The parent never
 * calls the library itself: a GPU runtime initialised before fork() is not
 * usable in the child.  Peers run in the first backend's child that works,
 * in the same process and on the same data as the library; every child
 * builds the same data, since the generators are deterministic.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ps_cli_bench.h"

#define MAX_LIST 64

typedef struct dataset_sel {
    const ps_cli_dataset *ds;
    unsigned param;
    char label[32];             /* "low-entropy:2" when not the default */
} dataset_sel;

typedef struct bench_cfg {
    const ps_cli_type *types[MAX_LIST];
    size_t ntypes;
    dataset_sel datasets[MAX_LIST];
    size_t ndatasets;
    size_t sizes[MAX_LIST];
    size_t nsizes;
    char *backends[MAX_LIST];   /* NULL entry: the inherited default */
    size_t nbackends;
    const ps_cli_peer *peers[MAX_LIST];
    size_t npeers;
    size_t peer_max;
    size_t value_size;          /* 0: keys only; else pairs, as --value-size */
    const ps_cli_segshape *seg; /* --segments, or NULL */
    unsigned seg_param;
    char seg_label[24];         /* "csr", "uniform:1000" */
    int repeats;
    int verbose;
} bench_cfg;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* ---- the measuring child ---- */

/* Sum and xor of a hash of every key: equal for any permutation of the
 * input, and very unlikely to be equal for anything else. */
typedef struct checksum {
    uint64_t sum, x;
} checksum;

static checksum sum_keys(const ps_cli_type *t, const void *keys, size_t n)
{
    checksum c = { 0, 0 };
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t h = ps_cli_mix64(ps_cli_get_bits(t, keys, i));
        c.sum += h;
        c.x ^= h;
    }
    return c;
}

/* The output is right when it is in the library's order and a permutation
 * of the input. */
static int in_order(const ps_cli_type *t, const void *keys, size_t a, size_t b)
{
    size_t i;
    for (i = a + 1; i < b; i++)
        if (ps_cli_order_key(t, ps_cli_get_bits(t, keys, i - 1)) >
            ps_cli_order_key(t, ps_cli_get_bits(t, keys, i)))
            return 0;
    return 1;
}

static int verify(const ps_cli_type *t, const void *keys, size_t n, checksum want)
{
    checksum got;
    if (!in_order(t, keys, 0, n))
        return 0;
    got = sum_keys(t, keys, n);
    return got.sum == want.sum && got.x == want.x;
}

/* With values (--value-size), value i of the input holds its index i in
 * its first 4 or 8 bytes.  The output is then right when the keys are in
 * order, each value names an input key equal to its key, and the indices of
 * equal keys increase (stability).  That also makes the indices distinct,
 * so no checksum is needed. */
static size_t index_width(size_t value_size)
{
    return value_size >= 8 ? 8 : 4;
}

/* Pairs a..b-1 of the output, whose values must come from inputs a..b-1
 * (the whole array, or one segment). */
static int verify_pairs(const ps_cli_type *t, const void *src, const void *keys,
                        const unsigned char *values, size_t vs, size_t a, size_t b)
{
    size_t i, w = index_width(vs);
    uint64_t prev = 0, prev_ord = 0;
    for (i = a; i < b; i++) {
        uint64_t v = 0, bits = ps_cli_get_bits(t, keys, i);
        uint64_t ord = ps_cli_order_key(t, bits);
        memcpy(&v, values + i * vs, w);
        if (v < a || v >= b || ps_cli_get_bits(t, src, v) != bits)
            return 0;
        if (i > a && (ord < prev_ord || (ord == prev_ord && v <= prev)))
            return 0;
        prev = v;
        prev_ord = ord;
    }
    return 1;
}

/* One measured input, and where the child reports. */
typedef struct job {
    const bench_cfg *cfg;
    FILE *out;
    const ps_cli_type *t;
    const dataset_sel *ds;
    size_t n;
    const void *src, *src_values;   /* src_values NULL: keys only */
    void *work, *work_values;
    const size_t *offsets;          /* --segments: the segmentation */
    size_t nseg;
    int mode;                       /* RUN_* */
    char label[64];                 /* the dataset, and the segments' shape */
    checksum sum;
    double gen_s;
    size_t index, count;            /* for the progress line: input k of N */
} job;

/* What a measurement sorts: the array (RUN_PLAIN); with --segments, each
 * segment, in one ps_sort_segments call or, for a peer, one call per
 * segment (RUN_SEGMENTS), with one ps_sort_keys call per segment
 * (RUN_LOOP), or the whole array unsegmented, the time the segmented sort
 * is measured against (RUN_WHOLE). */
enum { RUN_PLAIN, RUN_SEGMENTS, RUN_LOOP, RUN_WHOLE };
static const char *const run_sorter[] = { "portsort", "portsort",
                                          "portsort-loop", "portsort-whole" };

/* Sort elements a..a+m-1 with the library (peer NULL) or a peer. */
static int sort_range(const job *j, const ps_cli_peer *peer, size_t a, size_t m)
{
    size_t vs = j->cfg->value_size;
    unsigned char *k = (unsigned char *)j->work + a * j->t->size;
    unsigned char *v = vs ? (unsigned char *)j->work_values + a * vs : NULL;
    if (peer == NULL)
        return vs ? ps_sort_pairs(k, v, vs, m, j->t->type, 0)
                  : ps_sort_keys(k, m, j->t->type, 0);
    return vs ? peer->sort_pairs(k, v, vs, m, j->t->type)
              : peer->sort_keys(k, m, j->t->type);
}

static int run_sort(const job *j, const ps_cli_peer *peer)
{
    size_t vs = j->cfg->value_size, s;
    if (j->mode == RUN_SEGMENTS && peer == NULL)
        return ps_sort_segments(j->work, vs ? j->work_values : NULL, vs, j->n,
                                j->offsets, j->nseg, j->t->type, 0);
    if (j->mode == RUN_PLAIN || j->mode == RUN_WHOLE)
        return sort_range(j, peer, 0, j->n);
    for (s = 0; s < j->nseg; s++) {
        int st = sort_range(j, peer, j->offsets[s], j->offsets[s + 1] - j->offsets[s]);
        if (st != 0)
            return st;
    }
    return 0;
}

/* The output of a measurement is right: sorted as a whole, or within each
 * segment with every element still in its segment. */
static int verify_run(const job *j)
{
    size_t vs = j->cfg->value_size, s;
    if (j->mode == RUN_PLAIN || j->mode == RUN_WHOLE)
        return vs ? verify_pairs(j->t, j->src, j->work, j->work_values, vs, 0, j->n)
                  : verify(j->t, j->work, j->n, j->sum);
    for (s = 0; s < j->nseg; s++) {
        size_t a = j->offsets[s], b = j->offsets[s + 1];
        if (vs ? !verify_pairs(j->t, j->src, j->work, j->work_values, vs, a, b)
               : !in_order(j->t, j->work, a, b))
            return 0;
    }
    if (vs)
        return 1;
    /* Keys alone: each segment holds what it held, by its checksum. */
    for (s = 0; s < j->nseg; s++) {
        size_t a = j->offsets[s], m = j->offsets[s + 1] - a;
        checksum got = sum_keys(j->t, (const unsigned char *)j->work + a * j->t->size, m);
        checksum want = sum_keys(j->t, (const unsigned char *)j->src + a * j->t->size, m);
        if (got.sum != want.sum || got.x != want.x)
            return 0;
    }
    return 1;
}

/* Time the sort over the repeats and send the row.  Returns 0, or -1 when a
 * run failed or gave a wrong answer (reported on the way). */
static int measure(const job *j, const ps_cli_peer *peer, const char *backend)
{
    double ts[MAX_LIST * 4], tc[MAX_LIST * 4], tv[MAX_LIST * 4];
    const char *sorter = peer ? peer->name : run_sorter[j->mode];
    size_t vs = j->cfg->value_size;
    int r, reps = j->cfg->repeats, ok = 1;
    ps_cli_row row;

    memset(&row, 0, sizeof row);
    for (r = 0; r < reps; r++) {
        double t0, t1, t2, t3;
        int st;
        fprintf(j->out, "P\t[%zu/%zu] %s %s n=%zu: %s%s%s, run %d of %d\n", j->index,
                j->count, j->t->name, j->label, j->n, sorter, peer ? "" : " on ",
                peer ? "" : backend, r + 1, reps);
        fflush(j->out);
        t0 = now();
        memcpy(j->work, j->src, j->n * j->t->size);
        if (vs)
            memcpy(j->work_values, j->src_values, j->n * vs);
        t1 = now();
        st = run_sort(j, peer);
        t2 = now();
        if (st != 0) {
            if (peer == NULL)
                fprintf(j->out, "E\t%s on %s: %s %s n=%zu: %s: %s\n", sorter, backend,
                        j->t->name, j->label, j->n, ps_strerror(st),
                        ps_error_detail());
            else
                fprintf(j->out, "E\t%s: %s %s n=%zu: failed\n", sorter, j->t->name,
                        j->label, j->n);
            return -1;
        }
        ok &= verify_run(j);
        t3 = now();
        tc[r] = t1 - t0;
        ts[r] = t2 - t1;
        tv[r] = t3 - t2;
        if (j->cfg->verbose)
            fprintf(j->out, "V\t%s %s n=%zu %s %s run %d: sort %.3f ms, copy %.3f ms, "
                    "verify %.3f ms%s\n", j->t->name, j->label, j->n, sorter, backend,
                    r + 1, ts[r] * 1e3, tc[r] * 1e3, tv[r] * 1e3,
                    ok ? "" : ", WRONG OUTPUT");
    }
    snprintf(row.type, sizeof row.type, "%s", j->t->name);
    snprintf(row.backend, sizeof row.backend, "%s", backend);
    snprintf(row.sorter, sizeof row.sorter, "%s", sorter);
    snprintf(row.dataset, sizeof row.dataset, "%s", j->label);
    row.n = j->n;
    row.repeats = reps;
    row.median_s = median(ts, reps);    /* sorts ts: min and max at the ends */
    row.min_s = ts[0];
    row.max_s = ts[reps - 1];
    row.gen_s = j->gen_s;
    row.copy_s = median(tc, reps);
    row.verify_s = median(tv, reps);
    row.verified = ok;
    row.key_size = j->t->size;
    row.value_size = vs;
    ps_cli_row_write(j->out, &row);
    return ok ? 0 : -1;
}

/* Build the input of one (type, dataset, n) and measure the peers and the
 * library on it.  Returns 0, or -1 after reporting. */
static int run_job(job *j, const char *backend, int with_peers)
{
    const bench_cfg *cfg = j->cfg;
    size_t vs = cfg->value_size, i, pi;
    size_t *offsets = cfg->seg ? malloc((j->n + 2) * sizeof *offsets) : NULL;
    void *src = malloc(j->n * j->t->size + 1);
    unsigned char *sv = vs ? malloc(j->n * vs + 1) : NULL;
    double t0;
    int rc = 0;

    j->work = malloc(j->n * j->t->size + 1);
    j->work_values = vs ? malloc(j->n * vs + 1) : NULL;
    if (cfg->seg)
        snprintf(j->label, sizeof j->label, "%s/%s", j->ds->label, cfg->seg_label);
    else
        snprintf(j->label, sizeof j->label, "%s", j->ds->label);
    if (src == NULL || j->work == NULL || (vs && (sv == NULL || j->work_values == NULL))
        || (cfg->seg && offsets == NULL)) {
        fprintf(j->out, "E\t%s %s n=%zu: out of memory\n", j->t->name, j->label, j->n);
        rc = -1;
        goto done;
    }
    fprintf(j->out, "P\t[%zu/%zu] %s %s n=%zu: generating\n", j->index, j->count,
            j->t->name, j->label, j->n);
    fflush(j->out);
    t0 = now();
    j->ds->ds->fill(j->t, src, j->n, j->ds->param);
    j->gen_s = now() - t0;
    if (vs)
        memset(sv, 0, j->n * vs);
    for (i = 0; vs && i < j->n; i++) {
        uint64_t idx = i;
        memcpy(sv + i * vs, &idx, index_width(vs));
    }
    j->src = src;
    j->src_values = sv;
    j->sum = sum_keys(j->t, src, j->n);
    j->mode = cfg->seg ? RUN_SEGMENTS : RUN_PLAIN;
    if (cfg->seg) {
        j->nseg = cfg->seg->make(j->n, cfg->seg_param, offsets);
        j->offsets = offsets;
    }
    /* Peers first, so that the parent knows qsort's time when the library's
     * row arrives and can print the speedup at once. */
    for (pi = 0; with_peers && pi < cfg->npeers; pi++) {
        const ps_cli_peer *p = cfg->peers[pi];
        if (j->n > cfg->peer_max || (p->supports != NULL && !p->supports(j->t->type)) ||
            (vs && p->sort_pairs == NULL))
            continue;
        if (measure(j, p, "-") != 0)
            rc = -1;
    }
    if (measure(j, NULL, backend) != 0)
        rc = -1;
    /* With segments, the library also sorts them one call each, and the
     * whole array unsegmented: the time the segmented call aims at. */
    for (j->mode = RUN_LOOP; cfg->seg && j->mode <= RUN_WHOLE; j->mode++)
        if (measure(j, NULL, backend) != 0)
            rc = -1;
done:
    free(offsets);
    free(src);
    free(sv);
    free(j->work);
    free(j->work_values);
    return rc;
}

static int run_child(const bench_cfg *cfg, const char *backend, int with_peers,
                     FILE *out)
{
    size_t ti, di, si;
    int st, rc = 0;
    const char *name;

    if (backend != NULL && setenv("PORTSORT_BACKEND", backend, 1) != 0) {
        fprintf(out, "E\tsetenv failed\n");
        return 1;
    }
    st = ps_init();
    if (st != PS_OK) {
        fprintf(out, "E\tbackend %s: %s: %s\n", backend ? backend : "(default)",
                ps_strerror(st), ps_error_detail());
        return 1;
    }
    name = ps_backend_name();
    fprintf(out, "V\tmeasuring backend %s (pid %ld)\n", name, (long)getpid());
    for (ti = 0; ti < cfg->ntypes; ti++)
    for (di = 0; di < cfg->ndatasets; di++)
    for (si = 0; si < cfg->nsizes; si++) {
        job j;
        memset(&j, 0, sizeof j);
        j.cfg = cfg;
        j.out = out;
        j.t = cfg->types[ti];
        j.ds = &cfg->datasets[di];
        j.n = cfg->sizes[si];
        j.count = cfg->ntypes * cfg->ndatasets * cfg->nsizes;
        j.index = (ti * cfg->ndatasets + di) * cfg->nsizes + si + 1;
        if (run_job(&j, name, with_peers) != 0)
            rc = 1;
    }
    return rc;
}

/* ---- the reporting parent ---- */

typedef struct report {
    int table, detail, csv_stdout, progress, verbose;
    int progress_shown;
    ps_cli_row *rows;
    size_t nrows, cap;
    size_t peer_rows;       /* rows of peers received so far */
    int failed;
} report;

static void clear_progress(report *rp)
{
    if (rp->progress_shown) {
        fputs("\r\033[K", stderr);
        rp->progress_shown = 0;
    }
}

static double speedup_over_qsort(const report *rp, const ps_cli_row *r)
{
    const ps_cli_row *q = ps_cli_find_qsort(rp->rows, rp->nrows, r);
    return q != NULL && r->median_s > 0 ? q->median_s / r->median_s : 0;
}

static void on_line(report *rp, char *line)
{
    ps_cli_row row;
    line[strcspn(line, "\n")] = '\0';
    switch (line[0]) {
    case 'P':
        if (rp->progress) {
            fprintf(stderr, "\r\033[K%s", line + 2);
            fflush(stderr);
            rp->progress_shown = 1;
        }
        return;
    case 'V':
        if (rp->verbose) {
            clear_progress(rp);
            fprintf(stderr, "%s: %s\n", PS_CLI_NAME, line + 2);
        }
        return;
    case 'E':
        clear_progress(rp);
        fprintf(stderr, "%s: %s\n", PS_CLI_NAME, line + 2);
        rp->failed = 1;
        return;
    case 'R':
        break;
    default:
        return;
    }
    if (ps_cli_row_read(line, &row) != 0)
        return;
    if (rp->nrows == rp->cap) {
        size_t cap = rp->cap ? rp->cap * 2 : 64;
        ps_cli_row *p = realloc(rp->rows, cap * sizeof *p);
        if (p == NULL) {
            fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
            rp->failed = 1;
            return;
        }
        rp->rows = p;
        rp->cap = cap;
    }
    rp->rows[rp->nrows++] = row;
    rp->peer_rows += strcmp(row.sorter, "portsort") != 0;
    clear_progress(rp);
    if (!row.verified) {
        char tl[32];
        fprintf(stderr, "%s: %s%s%s gave a WRONG result on %s %s n=%zu\n",
                PS_CLI_NAME, row.sorter, strcmp(row.backend, "-") ? " on " : "",
                strcmp(row.backend, "-") ? row.backend : "",
                ps_cli_type_label(&row, tl, sizeof tl), row.dataset, row.n);
        rp->failed = 1;
    }
    if (rp->table)
        ps_cli_table_row(stdout, &row, speedup_over_qsort(rp, &rp->rows[rp->nrows - 1]),
                         rp->detail);
    if (rp->csv_stdout)
        ps_cli_csv_row(stdout, &row);
    ps_cli_flush_stdout();
}

/* Run `cfg` on one backend in a child and report what it sends.  Returns 0
 * when the child succeeded. */
static int run_backend(const bench_cfg *cfg, const char *backend, int with_peers,
                       report *rp)
{
    int fd[2], status = 0;
    pid_t pid;
    FILE *in;
    char *line = NULL;
    size_t cap = 0;

    ps_cli_flush_stdout();
    fflush(stderr);
    if (pipe(fd) != 0 || (pid = fork()) < 0) {
        perror(PS_CLI_NAME ": cannot start a child");
        return -1;
    }
    if (pid == 0) {
        FILE *out;
        close(fd[0]);
        out = fdopen(fd[1], "w");
        if (out == NULL)
            _exit(1);
        status = run_child(cfg, backend, with_peers, out);
        fclose(out);
        _exit(status);
    }
    close(fd[1]);
    in = fdopen(fd[0], "r");
    while (in != NULL && getline(&line, &cap, in) > 0)
        on_line(rp, line);
    free(line);
    if (in != NULL)
        fclose(in);
    else
        close(fd[0]);
    clear_progress(rp);
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "%s: backend %s: the measuring process died of signal %d\n",
                PS_CLI_NAME, backend ? backend : "(default)", WTERMSIG(status));
        return -1;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The usable backends, as a child sees them (see the top of the file for
 * why not the parent).  Returns how many names were stored. */
static size_t usable_backends(char **names, size_t max)
{
    int fd[2], status;
    pid_t pid;
    size_t k = 0;
    char buf[64];
    FILE *in;

    ps_cli_flush_stdout();
    if (pipe(fd) != 0 || (pid = fork()) < 0)
        return 0;
    if (pid == 0) {
        ps_backend_info info[16];
        size_t n = ps_backends(info, 16), i;
        FILE *out = fdopen(fd[1], "w");
        close(fd[0]);
        for (i = 0; out != NULL && i < n && i < 16; i++)
            if (info[i].usable)
                fprintf(out, "%s\n", info[i].name);
        if (out != NULL)
            fclose(out);
        _exit(0);
    }
    close(fd[1]);
    in = fdopen(fd[0], "r");
    while (in != NULL && k < max && fgets(buf, sizeof buf, in) != NULL) {
        buf[strcspn(buf, "\n")] = '\0';
        names[k] = strdup(buf);
        if (names[k] != NULL)
            k++;
    }
    if (in != NULL)
        fclose(in);
    waitpid(pid, &status, 0);
    return k;
}

/* ---- options ---- */

static void usage(FILE *f)
{
    size_t i;
    fprintf(f,
"Usage: portsort bench [OPTION]...\n"
"Measure libportsort against qsort (and the peers built in) on generated\n"
"data; every output is verified.  Default: u32 random keys, n = 2^16, 2^18,\n"
"2^20, 2^22, 2^24, 3 runs each, on the default backend.\n"
"\n"
"  -n, --num-elements N   one size (same as --sizes N)\n"
"  -s, --sizes LIST       sizes: N, 2^K, K1:K2 (2^K1..2^K2) or K1:K2:STEP,\n"
"                         comma-separated, e.g. 13:28 or 1000,2^20\n"
"  -t, --types LIST       key types (or all): %s\n"
"  -b, --backends LIST    backends, each in its own process (or all: every\n"
"                         usable one; default: PORTSORT_BACKEND or auto)\n"
"  -d, --datasets LIST    datasets (or all), NAME or NAME:PARAM:\n",
            ps_cli_type_names());
    for (i = 0; i < ps_cli_ndatasets; i++)
        fprintf(f, "                           %-18s %s\n", ps_cli_datasets[i].name,
                ps_cli_datasets[i].what);
    fprintf(f,
"  -r, --repeats R        runs per measurement; the median is reported (3)\n"
"      --peers LIST       peers to compare with (all, none):");
    for (i = 0; ps_cli_peers[i] != NULL; i++)
        fprintf(f, " %s", ps_cli_peers[i]->name);
    fprintf(f, "\n"
"      --peer-max-size N  run peers only up to n = N (2^24; qsort is slow)\n"
"      --value-size N     sort pairs: keys with N-byte values (N >= 4), not\n"
"                         keys alone; GB/s then counts the values too\n"
"      --segments SHAPE   sort segments (ps_sort_segments) of a shape,\n"
"                         SHAPE or SHAPE:K, also timing one ps_sort_keys\n"
"                         per segment (portsort-loop), the whole array\n"
"                         unsegmented (portsort-whole) and peers per segment:\n");
    for (i = 0; i < ps_cli_nsegshapes; i++)
        fprintf(f, "                           %-11s %s\n", ps_cli_segshapes[i].name,
                ps_cli_segshapes[i].what);
    fprintf(f,
"      --perf-to-stdout   print every measurement (each run's phases too)\n"
"      --perf-to-csv FILE write the results as CSV to FILE\n"
"      --perf-csv-to-stdout  print CSV on stdout instead of the table\n"
"      --plot DIR         write throughput and speedup charts (PNG, gnuplot)\n"
"  -v, --verbose          say what is measured, run by run, on stderr\n"
"  -h, --help             show this help\n"
"\n"
"Mkeys/s = 10^6 keys per second of the median sort; GB/s = key bytes per\n"
"second (10^9).  Exit status: 0 all verified, 1 a failure, 2 bad usage.\n");
}

/* Split a comma list in place; calls add() for each item. */
static int each_item(char *list, int (*add)(bench_cfg *, char *), bench_cfg *cfg)
{
    char *save = NULL, *item;
    for (item = strtok_r(list, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save))
        if (add(cfg, item) != 0)
            return -1;
    return 0;
}

/* 1, with a message, when a list option already holds MAX_LIST entries:
 * each refusal says why, so that a long --sizes list is not mistaken for a
 * bad value. */
static int list_full(size_t count, const char *option)
{
    if (count < MAX_LIST)
        return 0;
    fprintf(stderr, "%s: too many entries for %s (at most %d)\n", PS_CLI_NAME,
            option, MAX_LIST);
    return 1;
}

static int add_type(bench_cfg *cfg, char *s)
{
    size_t i;
    if (strcmp(s, "all") == 0) {
        for (i = 0; i < ps_cli_ntypes; i++)
            cfg->types[i] = &ps_cli_types[i];
        cfg->ntypes = ps_cli_ntypes;
        return 0;
    }
    if (list_full(cfg->ntypes, "--types"))
        return -1;
    if ((cfg->types[cfg->ntypes] = ps_cli_type_by_name(s)) == NULL) {
        fprintf(stderr, "%s: unknown type '%s' (one of %s)\n", PS_CLI_NAME, s,
                ps_cli_type_names());
        return -1;
    }
    cfg->ntypes++;
    return 0;
}

static int add_dataset(bench_cfg *cfg, char *s)
{
    char *colon = strchr(s, ':');
    size_t i;
    if (strcmp(s, "all") == 0) {
        for (i = 0; i < ps_cli_ndatasets; i++)
            if (add_dataset(cfg, (char *)ps_cli_datasets[i].name) != 0)
                return -1;
        return 0;
    }
    if (colon != NULL)
        *colon = '\0';
    for (i = 0; i < ps_cli_ndatasets && strcmp(ps_cli_datasets[i].name, s) != 0; i++)
        ;
    if (i < ps_cli_ndatasets && list_full(cfg->ndatasets, "--datasets"))
        return -1;
    if (i == ps_cli_ndatasets) {
        fprintf(stderr, "%s: unknown dataset '%s' (see portsort bench --help)\n",
                PS_CLI_NAME, s);
        return -1;
    }
    {
        dataset_sel *d = &cfg->datasets[cfg->ndatasets++];
        d->ds = &ps_cli_datasets[i];
        d->param = d->ds->param;
        if (colon != NULL) {
            char *end;
            unsigned long v = strtoul(colon + 1, &end, 10);
            if (*end != '\0' || end == colon + 1 || v > 64) {
                fprintf(stderr, "%s: bad parameter in dataset '%s:%s'\n", PS_CLI_NAME,
                        s, colon + 1);
                return -1;
            }
            d->param = (unsigned)v;
        }
        if (d->param != d->ds->param)
            snprintf(d->label, sizeof d->label, "%s:%u", d->ds->name, d->param);
        else
            snprintf(d->label, sizeof d->label, "%s", d->ds->name);
    }
    return 0;
}

static int add_size(bench_cfg *cfg, char *s)
{
    unsigned a, b, step = 1;
    int used = 0;
    char *colon = strchr(s, ':');
    if (colon != NULL) {
        /* K1:K2[:STEP] - exponents of two, the sweep of that harness. */
        if (sscanf(s, "%u:%u%n", &a, &b, &used) != 2 ||
            (s[used] == ':' && sscanf(s + used + 1, "%u", &step) != 1) ||
            (s[used] != ':' && s[used] != '\0') || a > b ||
            b >= sizeof(size_t) * 8 || step == 0) {
            fprintf(stderr, "%s: bad size range '%s' (want K1:K2 or K1:K2:STEP)\n",
                    PS_CLI_NAME, s);
            return -1;
        }
        for (; a <= b; a += step) {
            if (list_full(cfg->nsizes, "--sizes"))
                return -1;
            cfg->sizes[cfg->nsizes++] = (size_t)1 << a;
        }
        return 0;
    }
    if (list_full(cfg->nsizes, "--sizes"))
        return -1;
    if (ps_cli_parse_size(s, &cfg->sizes[cfg->nsizes]) != 0 ||
        cfg->sizes[cfg->nsizes] == 0) {
        fprintf(stderr, "%s: bad size '%s' (want N >= 1, 2^K, or K1:K2)\n",
                PS_CLI_NAME, s);
        return -1;
    }
    cfg->nsizes++;
    return 0;
}

static int add_backend(bench_cfg *cfg, char *s)
{
    if (list_full(cfg->nbackends, "--backends"))
        return -1;
    if (strcmp(s, "all") == 0) {
        cfg->nbackends += usable_backends(cfg->backends + cfg->nbackends,
                                          MAX_LIST - cfg->nbackends);
        return 0;
    }
    cfg->backends[cfg->nbackends++] = strcmp(s, "default") == 0 ? NULL : s;
    return 0;
}

static int add_peer(bench_cfg *cfg, char *s)
{
    size_t i;
    if (strcmp(s, "none") == 0)
        return 0;
    for (i = 0; ps_cli_peers[i] != NULL; i++)
        if (strcmp(s, "all") == 0 || strcmp(s, ps_cli_peers[i]->name) == 0) {
            if (cfg->npeers < MAX_LIST)
                cfg->peers[cfg->npeers++] = ps_cli_peers[i];
            if (strcmp(s, "all") != 0)
                return 0;
        }
    if (strcmp(s, "all") == 0)
        return 0;
    fprintf(stderr, "%s: unknown peer '%s' (see portsort bench --help)\n", PS_CLI_NAME, s);
    return -1;
}

enum { OPT_PEERS = 256, OPT_PEER_MAX, OPT_PERF_STDOUT, OPT_PERF_CSV, OPT_CSV_STDOUT,
       OPT_PLOT, OPT_VALUE_SIZE, OPT_SEGMENTS };

/* What the command line asked for, before the lists are parsed. */
typedef struct bench_args {
    int perf_stdout, csv_stdout;
    const char *csv_path, *plot_dir;
    char *types, *datasets, *sizes, *backends, *peers;
} bench_args;

/* Read the options into a and the scalar settings into cfg.  Returns -1
 * to go on, or the exit status (0 after --help, 2 for a bad option). */
/* --segments SHAPE or SHAPE:K. */
static int set_segments(bench_cfg *cfg, const char *arg)
{
    char name[16], *colon, *end;
    unsigned long k;
    snprintf(name, sizeof name, "%s", arg);
    colon = strchr(name, ':');
    if (colon != NULL)
        *colon = '\0';
    cfg->seg = ps_cli_segshape_by_name(name);
    if (cfg->seg == NULL) {
        fprintf(stderr, "%s: unknown segment shape '%s' (see portsort bench --help)\n",
                PS_CLI_NAME, name);
        return -1;
    }
    cfg->seg_param = cfg->seg->param;
    if (colon != NULL) {
        k = strtoul(colon + 1, &end, 10);
        if (*end != '\0' || end == colon + 1 || k < 1 || k > 1000000) {
            fprintf(stderr, "%s: bad parameter in --segments '%s' (1 to 1000000)\n",
                    PS_CLI_NAME, arg);
            return -1;
        }
        cfg->seg_param = (unsigned)k;
    }
    if (cfg->seg_param != cfg->seg->param)
        snprintf(cfg->seg_label, sizeof cfg->seg_label, "%s:%u", name, cfg->seg_param);
    else
        snprintf(cfg->seg_label, sizeof cfg->seg_label, "%s", name);
    return 0;
}

static int parse_bench_args(int argc, char **argv, bench_args *a, bench_cfg *cfg)
{
    static const struct option opts[] = {
        { "num-elements", required_argument, NULL, 'n' },
        { "sizes", required_argument, NULL, 's' },
        { "types", required_argument, NULL, 't' },
        { "backends", required_argument, NULL, 'b' },
        { "datasets", required_argument, NULL, 'd' },
        { "repeats", required_argument, NULL, 'r' },
        { "peers", required_argument, NULL, OPT_PEERS },
        { "peer-max-size", required_argument, NULL, OPT_PEER_MAX },
        { "perf-to-stdout", no_argument, NULL, OPT_PERF_STDOUT },
        { "perf-to-csv", required_argument, NULL, OPT_PERF_CSV },
        { "perf-csv-to-stdout", no_argument, NULL, OPT_CSV_STDOUT },
        { "plot", required_argument, NULL, OPT_PLOT },
        { "value-size", required_argument, NULL, OPT_VALUE_SIZE },
        { "segments", required_argument, NULL, OPT_SEGMENTS },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    memset(a, 0, sizeof *a);
    memset(cfg, 0, sizeof *cfg);
    cfg->repeats = 3;
    cfg->peer_max = (size_t)1 << 24;
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:s:t:b:d:r:vh", opts, NULL)) != -1) {
        switch (c) {
        case 'n': case 's': a->sizes = optarg; break;
        case 't': a->types = optarg; break;
        case 'b': a->backends = optarg; break;
        case 'd': a->datasets = optarg; break;
        case 'r':
            cfg->repeats = atoi(optarg);
            if (cfg->repeats < 1 || cfg->repeats > MAX_LIST * 4) {
                fprintf(stderr, "%s: --repeats wants 1 to %d\n", PS_CLI_NAME, MAX_LIST * 4);
                return 2;
            }
            break;
        case OPT_PEERS: a->peers = optarg; break;
        case OPT_PEER_MAX:
            if (ps_cli_parse_size(optarg, &cfg->peer_max) != 0) {
                fprintf(stderr, "%s: bad --peer-max-size '%s'\n", PS_CLI_NAME, optarg);
                return 2;
            }
            break;
        case OPT_PERF_STDOUT: a->perf_stdout = 1; break;
        case OPT_PERF_CSV: a->csv_path = optarg; break;
        case OPT_CSV_STDOUT: a->csv_stdout = 1; break;
        case OPT_PLOT: a->plot_dir = optarg; break;
        case OPT_VALUE_SIZE:
            /* Values carry their input index, which needs 4 bytes. */
            if (ps_cli_parse_size(optarg, &cfg->value_size) != 0 || cfg->value_size < 4) {
                fprintf(stderr, "%s: --value-size wants a byte count >= 4\n", PS_CLI_NAME);
                return 2;
            }
            break;
        case OPT_SEGMENTS:
            if (set_segments(cfg, optarg) != 0)
                return 2;
            break;
        case 'v': cfg->verbose = 1; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "see portsort bench --help\n");
            return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "%s: bench takes no operands ('%s')\n", PS_CLI_NAME, argv[optind]);
        return 2;
    }
    return -1;
}

/* Parse the lists (types, datasets, sizes, peers, backends) into cfg, with
 * their defaults, and refuse what cannot be measured.  Returns 0, or the
 * exit status: 2 for a bad list, 1 when no backend can run. */
static int build_bench_cfg(bench_args *a, bench_cfg *cfg)
{
    size_t b;
    if (each_item(a->types ? a->types : (char[]){ "u32" }, add_type, cfg) != 0 ||
        each_item(a->datasets ? a->datasets : (char[]){ "random" }, add_dataset, cfg) != 0 ||
        each_item(a->sizes ? a->sizes : (char[]){ "16:24:2" }, add_size, cfg) != 0 ||
        each_item(a->peers ? a->peers : (char[]){ "all" }, add_peer, cfg) != 0)
        return 2;
    for (b = 0; cfg->value_size != 0 && cfg->value_size < 8 && b < cfg->nsizes; b++)
        if (cfg->sizes[b] > 0xFFFFFFFFu) {
            fprintf(stderr, "%s: --value-size under 8 holds no index beyond 2^32 keys\n",
                    PS_CLI_NAME);
            return 2;
        }
    if (a->backends != NULL) {
        if (each_item(a->backends, add_backend, cfg) != 0)
            return 2;
        if (cfg->nbackends == 0) {
            fprintf(stderr, "%s: no usable backend to measure\n", PS_CLI_NAME);
            return 1;
        }
    } else {
        cfg->backends[cfg->nbackends++] = NULL;
    }
    return 0;
}

/* The CSV of every row to `path`, all or nothing (the rows are formatted
 * in memory, then written with ps_cli_out).  Returns 0, or -1 after a
 * message. */
static int write_csv(const char *path, const report *rp)
{
    ps_cli_out o;
    char *buf = NULL;
    size_t len = 0, i;
    FILE *m = open_memstream(&buf, &len);
    int rc = -1;

    if (m != NULL) {
        ps_cli_csv_header(m);
        for (i = 0; i < rp->nrows; i++)
            ps_cli_csv_row(m, &rp->rows[i]);
        rc = ferror(m) ? -1 : 0;
        if (fclose(m) != 0)
            rc = -1;
    }
    if (rc != 0) {
        fprintf(stderr, "%s: out of memory for the CSV\n", PS_CLI_NAME);
    } else if (ps_cli_out_open(&o, path) != 0) {
        rc = -1;
    } else {
        ps_cli_out_write(&o, buf, len);
        rc = ps_cli_out_commit(&o, 1);
    }
    free(buf);
    return rc;
}

/* Measure every backend (the peers with the first that runs), print the
 * table or CSV, and write the CSV file and the charts: 0, or 1 when
 * anything failed. */
static int run_bench(const bench_args *a, const bench_cfg *cfg)
{
    report rp;
    size_t b;
    int rc;

    memset(&rp, 0, sizeof rp);
    rp.csv_stdout = a->csv_stdout;
    rp.verbose = cfg->verbose;
    rp.table = a->perf_stdout || !rp.csv_stdout;
    rp.detail = a->perf_stdout;
    /* A progress line is for a person watching a terminal, never for a log
     * or a pipe, and would garble the verbose lines. */
    rp.progress = isatty(STDERR_FILENO) && !cfg->verbose;
    if (rp.table)
        ps_cli_table_header(stdout);
    if (rp.csv_stdout)
        ps_cli_csv_header(stdout);
    /* The peers run once, with the first backend that measures anything
     * (a first backend that cannot run must not take qsort with it). */
    for (b = 0; b < cfg->nbackends; b++)
        if (run_backend(cfg, cfg->backends[b], rp.peer_rows == 0, &rp) != 0)
            rp.failed = 1;

    if (a->csv_path != NULL && write_csv(a->csv_path, &rp) != 0)
        rp.failed = 1;
    if (a->plot_dir != NULL && rp.nrows > 0
        && ps_cli_plot(a->plot_dir, rp.rows, rp.nrows) != 0)
        rp.failed = 1;
    rc = rp.failed ? 1 : 0;
    free(rp.rows);
    return rc;
}

int ps_cli_bench(int argc, char **argv)
{
    /* Static: the lists hold 64 entries of each kind. */
    static bench_cfg cfg;
    bench_args a;
    int rc = parse_bench_args(argc, argv, &a, &cfg);
    if (rc >= 0)
        return rc;
    rc = build_bench_cfg(&a, &cfg);
    if (rc != 0)
        return rc;
    return run_bench(&a, &cfg);
}
