/*
 * ps_cli_bench_measure.c - what a child of `portsort bench` does: on its
 * backend, build each input (type, dataset, size), time every sorter on
 * it over the repeats, check every output, and send the results to the
 * parent as lines (ps_cli_bench_parts.h describes them).
 *
 * Peers run in the same process and on the same data as the library, so
 * the comparison is fair; every child builds the same data, since the
 * generators are deterministic.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ps_cli_bench_parts.h"

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
    const ps_cli_bench_cfg *cfg;
    FILE *out;
    const ps_cli_type *t;
    const ps_cli_dataset_sel *ds;
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

/* --scratch-div D: the library's sorts (not the peers') under a limit of
 * its usual scratch for a sort of the whole array / D, set before the
 * clock starts (ps_scratch_bytes chooses the backend). */
static void limit_for(const job *j, const ps_cli_peer *peer)
{
    size_t d = j->cfg->scratch_div, lim;
    if (d == 0 || peer != NULL)
        return;
    lim = ps_scratch_bytes(j->n, j->cfg->value_size, j->t->type, 0) / d;
    ps_set_memory_limit(lim > 0 ? lim : 1);     /* 0 would mean no limit */
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
 * run failed or gave a wrong answer (reported on the way).  One untimed
 * run comes first (run 0): the first call of a sorter pays for what it
 * sets up once (a backend's scratch, a thread pool, an OpenCL program, a
 * page-faulted buffer), which `-r 1` would otherwise report as its speed. */
static int measure(const job *j, const ps_cli_peer *peer, const char *backend)
{
    double ts[PS_CLI_MAX_REPEATS], tc[PS_CLI_MAX_REPEATS], tv[PS_CLI_MAX_REPEATS];
    const char *sorter = peer ? peer->name : run_sorter[j->mode];
    size_t vs = j->cfg->value_size;
    int r, reps = j->cfg->repeats, ok = 1;
    ps_cli_row row;

    memset(&row, 0, sizeof row);
    for (r = -1; r < reps; r++) {
        double t0, t1, t2, t3;
        int st;
        if (r < 0)
            fprintf(j->out, "P\t[%zu/%zu] %s %s n=%zu: %s%s%s, warm-up\n", j->index,
                    j->count, j->t->name, j->label, j->n, sorter, peer ? "" : " on ",
                    peer ? "" : backend);
        else
            fprintf(j->out, "P\t[%zu/%zu] %s %s n=%zu: %s%s%s, run %d of %d\n",
                    j->index, j->count, j->t->name, j->label, j->n, sorter,
                    peer ? "" : " on ", peer ? "" : backend, r + 1, reps);
        fflush(j->out);
        t0 = now();
        memcpy(j->work, j->src, j->n * j->t->size);
        if (vs)
            memcpy(j->work_values, j->src_values, j->n * vs);
        limit_for(j, peer);
        t1 = now();
        st = run_sort(j, peer);
        t2 = now();
        if (j->cfg->scratch_div != 0)
            ps_set_memory_limit(0);
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
        if (r < 0) {            /* the warm-up: checked, not timed */
            if (j->cfg->verbose)
                fprintf(j->out, "V\t%s %s n=%zu %s %s warm-up: sort %.3f ms (not "
                        "counted)%s\n", j->t->name, j->label, j->n, sorter, backend,
                        (t2 - t1) * 1e3, ok ? "" : ", WRONG OUTPUT");
            continue;
        }
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
    const ps_cli_bench_cfg *cfg = j->cfg;
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

int ps_cli_bench_measure(const ps_cli_bench_cfg *cfg, const char *backend,
                         int with_peers, FILE *out)
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
