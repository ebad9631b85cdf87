/*
 * ps_cli_report.c - the results of `portsort bench`, in the parent: the
 * line protocol between the measuring children and the parent, the report
 * as the rows arrive (a progress line, the table or the CSV on standard
 * output), and once every child is done the CSV file and the charts.
 *
 * Rates: Mkeys/s is 10^6 keys per second of the median sort time; GB/s is
 * the bytes sorted (n * (key size + value size), 10^9 bytes a GB) per
 * second, the metric of Heldbo et al.'s "Sorting on GPUs", which puts
 * types of different widths on one scale.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ps_cli_bench_parts.h"

static double row_mkeys(const ps_cli_row *r)
{
    return r->median_s > 0 ? (double)r->n / r->median_s / 1e6 : 0;
}

static double row_gbs(const ps_cli_row *r)
{
    double bytes = (double)r->n * (double)(r->key_size + r->value_size);
    return r->median_s > 0 ? bytes / r->median_s / 1e9 : 0;
}

void ps_cli_row_write(FILE *f, const ps_cli_row *r)
{
    /* %a: the parent gets the exact doubles the child measured. */
    fprintf(f, "R\t%s\t%s\t%s\t%s\t%zu\t%d\t%a\t%a\t%a\t%a\t%a\t%a\t%d\t%zu\t%zu\n",
            r->type, r->backend, r->sorter, r->dataset, r->n, r->repeats,
            r->median_s, r->min_s, r->max_s, r->gen_s, r->copy_s, r->verify_s,
            r->verified, r->key_size, r->value_size);
    fflush(f);
}

static int row_read(const char *line, ps_cli_row *r)
{
    int got;
    memset(r, 0, sizeof *r);
    got = sscanf(line, "R\t%7[^\t]\t%15[^\t]\t%31[^\t]\t%31[^\t]\t%zu\t%d\t%la\t%la\t"
                 "%la\t%la\t%la\t%la\t%d\t%zu\t%zu",
                 r->type, r->backend, r->sorter, r->dataset, &r->n, &r->repeats,
                 &r->median_s, &r->min_s, &r->max_s, &r->gen_s, &r->copy_s,
                 &r->verify_s, &r->verified, &r->key_size, &r->value_size);
    return got == 15 ? 0 : -1;
}

static void table_header(FILE *f)
{
    fprintf(f, "%-6s %-8s %-14s %-20s %11s %11s %9s %7s %9s %s\n", "type", "backend",
            "sorter", "dataset", "n", "median ms", "Mkeys/s", "GB/s", "vs qsort",
            "check");
}

/* "u32", or "u32+8" for u32 keys with 8-byte values: the table's type
 * column and the charts' file names.  Returns buf. */
static const char *type_label(const ps_cli_row *r, char *buf, size_t size)
{
    if (r->value_size == 0)
        snprintf(buf, size, "%s", r->type);
    else
        snprintf(buf, size, "%s+%zu", r->type, r->value_size);
    return buf;
}

/* speedup: the row's rate over qsort's on the same input, or 0 when
 * unknown; detail: each run's phases too. */
static void table_row(FILE *f, const ps_cli_row *r, double speedup, int detail)
{
    char sp[32] = "", tl[32];
    if (speedup > 0)
        snprintf(sp, sizeof sp, "%.1fx", speedup);
    fprintf(f, "%-6s %-8s %-14s %-20s %11zu %11.3f %9.1f %7.3f %9s %s\n",
            type_label(r, tl, sizeof tl),
            r->backend, r->sorter, r->dataset, r->n, r->median_s * 1e3,
            row_mkeys(r), row_gbs(r), sp, r->verified ? "ok" : "WRONG");
    if (detail)
        fprintf(f, "     sort min %.3f / median %.3f / max %.3f ms over %d runs; "
                "phases: generate %.3f ms, copy %.3f ms, verify %.3f ms\n",
                r->min_s * 1e3, r->median_s * 1e3, r->max_s * 1e3, r->repeats,
                r->gen_s * 1e3, r->copy_s * 1e3, r->verify_s * 1e3);
}

static void csv_header(FILE *f)
{
    fprintf(f, "type,value_size,backend,sorter,dataset,n,repeats,median_s,min_s,max_s,"
            "mkeys_per_s,gb_per_s,generate_s,copy_s,verify_s,verified\n");
}

static void csv_row(FILE *f, const ps_cli_row *r)
{
    fprintf(f, "%s,%zu,%s,%s,%s,%zu,%d,%.9g,%.9g,%.9g,%.6g,%.6g,%.9g,%.9g,%.9g,%d\n",
            r->type, r->value_size, r->backend, r->sorter, r->dataset, r->n, r->repeats,
            r->median_s, r->min_s, r->max_s, row_mkeys(r), row_gbs(r),
            r->gen_s, r->copy_s, r->verify_s, r->verified);
}

/* The CSV of every row to `path`, all or nothing (the rows are formatted
 * in memory, then written with ps_cli_out).  Returns 0, or -1 after a
 * message. */
static int write_csv(const char *path, const ps_cli_report *rp)
{
    ps_cli_out o;
    char *buf = NULL;
    size_t len = 0, i;
    FILE *m = open_memstream(&buf, &len);
    int rc = -1;

    if (m != NULL) {
        csv_header(m);
        for (i = 0; i < rp->nrows; i++)
            csv_row(m, &rp->rows[i]);
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

/* ---- charts ---- */

static int gnuplot_found(void)
{
    const char *path = getenv("PATH");
    char buf[4096];
    while (path != NULL && *path != '\0') {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        if (len > 0 && len + sizeof "/gnuplot" < sizeof buf) {
            memcpy(buf, path, len);
            strcpy(buf + len, "/gnuplot");
            if (access(buf, X_OK) == 0)
                return 1;
        }
        path = colon ? colon + 1 : NULL;
    }
    return 0;
}

static int series_eq(const ps_cli_row *a, const ps_cli_row *b)
{
    return strcmp(a->sorter, b->sorter) == 0 && strcmp(a->backend, b->backend) == 0;
}

static int chart_eq(const ps_cli_row *a, const ps_cli_row *b)
{
    return strcmp(a->type, b->type) == 0 && a->value_size == b->value_size &&
           strcmp(a->dataset, b->dataset) == 0;
}

/* qsort's row for the same type, values, dataset and n as r, or NULL. */
static const ps_cli_row *find_qsort(const ps_cli_row *rows, size_t nrows,
                                    const ps_cli_row *r)
{
    size_t i;
    for (i = 0; i < nrows; i++)
        if (&rows[i] != r && chart_eq(&rows[i], r) && rows[i].n == r->n &&
            strcmp(rows[i].sorter, "qsort") == 0 && rows[i].median_s > 0)
            return &rows[i];
    return NULL;
}

/* One gnuplot script per (type, dataset): a datablock per series, then a
 * throughput chart (Yatskov & Mürdter's figure 3) and a speedup-over-qsort chart
 * (figure 4).  The scripts stay in dir so the charts can be restyled. */
static int write_script(FILE *f, const char *dir, const ps_cli_row *rows,
                        size_t nrows, const ps_cli_row *c)
{
    size_t i, j, nser = 0, nspeed = 0;
    const ps_cli_row *ser[64];
    char tl[32];
    for (i = 0; i < nrows; i++) {
        int seen = 0;
        if (!chart_eq(&rows[i], c))
            continue;
        for (j = 0; j < nser; j++)
            seen |= series_eq(ser[j], &rows[i]);
        if (!seen && nser < 64)
            ser[nser++] = &rows[i];
    }
    for (j = 0; j < nser; j++) {
        fprintf(f, "$s%zu << EOD\n", j);
        for (i = 0; i < nrows; i++) {
            const ps_cli_row *q;
            if (!chart_eq(&rows[i], c) || !series_eq(&rows[i], ser[j]))
                continue;
            q = find_qsort(rows, nrows, &rows[i]);
            /* gnuplot reads NaN as a missing point. */
            if (q != NULL)
                fprintf(f, "%zu %.6g %.6g\n", rows[i].n, row_mkeys(&rows[i]),
                        q->median_s / rows[i].median_s);
            else
                fprintf(f, "%zu %.6g NaN\n", rows[i].n, row_mkeys(&rows[i]));
            nspeed += q != NULL;
        }
        fprintf(f, "EOD\n");
    }
    fprintf(f,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size 900,560 font ',10'\n"
            "} else {\n"
            "  set terminal png size 900,560\n"
            "}\n"
            "set logscale x 2\nset format x '2^{%%L}'\nset grid\n"
            "set key top left\nset xlabel 'n (keys)'\n");
    type_label(c, tl, sizeof tl);
    fprintf(f, "set output '%s/%s-%s.png'\n", dir, tl, c->dataset);
    fprintf(f, "set logscale y\nset ylabel 'Mkeys/s'\n"
            "set title 'portsort bench: %s %s keys, throughput'\nplot ", tl,
            c->dataset);
    for (j = 0; j < nser; j++)
        fprintf(f, "%s$s%zu using 1:2 with linespoints title '%s%s%s'",
                j ? ", " : "", j, ser[j]->sorter,
                strcmp(ser[j]->backend, "-") ? " " : "",
                strcmp(ser[j]->backend, "-") ? ser[j]->backend : "");
    fprintf(f, "\n");
    if (nspeed > 0) {
        fprintf(f, "set output '%s/%s-%s-speedup.png'\n", dir, tl, c->dataset);
        fprintf(f, "unset logscale y\nset ylabel 'speedup over qsort'\n"
                "set title 'portsort bench: %s %s keys, speedup over qsort'\nplot ",
                tl, c->dataset);
        for (j = 0, i = 0; j < nser; j++) {
            if (strcmp(ser[j]->sorter, "qsort") == 0)
                continue;
            fprintf(f, "%s$s%zu using 1:3 with linespoints title '%s%s%s'",
                    i++ ? ", " : "", j, ser[j]->sorter,
                    strcmp(ser[j]->backend, "-") ? " " : "",
                    strcmp(ser[j]->backend, "-") ? ser[j]->backend : "");
        }
        fprintf(f, "\n");
    }
    return ferror(f) ? -1 : 0;
}

/* Charts of throughput against n (and speedup over qsort) into dir, one
 * per type and dataset.  Returns 0, or -1 after a message. */
static int plot(const char *dir, const ps_cli_row *rows, size_t nrows)
{
    size_t i, j;
    int have = gnuplot_found(), rc = 0;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create %s: %s\n", PS_CLI_NAME, dir, strerror(errno));
        return -1;
    }
    for (i = 0; i < nrows; i++) {
        char script[4096], tl[32];
        FILE *f;
        int first = 1;
        for (j = 0; j < i; j++)
            first &= !chart_eq(&rows[j], &rows[i]);
        if (!first)
            continue;
        type_label(&rows[i], tl, sizeof tl);
        snprintf(script, sizeof script, "%s/%s-%s.gp", dir, tl,
                 rows[i].dataset);
        f = fopen(script, "w");
        if (f == NULL || write_script(f, dir, rows, nrows, &rows[i]) != 0) {
            fprintf(stderr, "%s: cannot write %s: %s\n", PS_CLI_NAME, script,
                    strerror(errno));
            if (f != NULL)
                fclose(f);
            return -1;
        }
        if (fclose(f) != 0) {
            fprintf(stderr, "%s: cannot write %s\n", PS_CLI_NAME, script);
            return -1;
        }
        if (have) {
            pid_t pid = fork();
            int status = 0;
            if (pid == 0) {
                execlp("gnuplot", "gnuplot", script, (char *)NULL);
                _exit(127);
            }
            if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
                WEXITSTATUS(status) != 0) {
                fprintf(stderr, "%s: gnuplot failed on %s\n", PS_CLI_NAME, script);
                rc = -1;
            } else {
                fprintf(stderr, "%s: wrote %s/%s-%s.png (and -speedup.png when qsort "
                        "ran)\n", PS_CLI_NAME, dir, tl, rows[i].dataset);
            }
        }
    }
    if (!have)
        fprintf(stderr, "%s: gnuplot is not installed: wrote the gnuplot scripts to %s "
                "but no charts (install gnuplot, then run gnuplot %s/*.gp)\n",
                PS_CLI_NAME, dir, dir);
    return rc;
}

/* ---- the report, as the children send their lines ---- */

void ps_cli_report_begin(ps_cli_report *rp, int perf_stdout, int csv_stdout,
                         int verbose)
{
    memset(rp, 0, sizeof *rp);
    rp->csv_stdout = csv_stdout;
    rp->verbose = verbose;
    rp->table = perf_stdout || !csv_stdout;
    rp->detail = perf_stdout;
    /* A progress line is for a person watching a terminal, never for a log
     * or a pipe, and would garble the verbose lines. */
    rp->progress = isatty(STDERR_FILENO) && !verbose;
    if (rp->table)
        table_header(stdout);
    if (rp->csv_stdout)
        csv_header(stdout);
}

void ps_cli_report_clear_progress(ps_cli_report *rp)
{
    if (rp->progress_shown) {
        fputs("\r\033[K", stderr);
        rp->progress_shown = 0;
    }
}

static double speedup_over_qsort(const ps_cli_report *rp, const ps_cli_row *r)
{
    const ps_cli_row *q = find_qsort(rp->rows, rp->nrows, r);
    return q != NULL && r->median_s > 0 ? q->median_s / r->median_s : 0;
}

void ps_cli_report_take(ps_cli_report *rp, char *line)
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
            ps_cli_report_clear_progress(rp);
            fprintf(stderr, "%s: %s\n", PS_CLI_NAME, line + 2);
        }
        return;
    case 'E':
        ps_cli_report_clear_progress(rp);
        fprintf(stderr, "%s: %s\n", PS_CLI_NAME, line + 2);
        rp->failed = 1;
        return;
    case 'R':
        break;
    default:
        return;
    }
    if (row_read(line, &row) != 0)
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
    ps_cli_report_clear_progress(rp);
    if (!row.verified) {
        char tl[32];
        fprintf(stderr, "%s: %s%s%s gave a WRONG result on %s %s n=%zu\n",
                PS_CLI_NAME, row.sorter, strcmp(row.backend, "-") ? " on " : "",
                strcmp(row.backend, "-") ? row.backend : "",
                type_label(&row, tl, sizeof tl), row.dataset, row.n);
        rp->failed = 1;
    }
    if (rp->table)
        table_row(stdout, &row, speedup_over_qsort(rp, &rp->rows[rp->nrows - 1]),
                  rp->detail);
    if (rp->csv_stdout)
        csv_row(stdout, &row);
    ps_cli_flush_stdout();
}

int ps_cli_report_end(ps_cli_report *rp, const char *csv_path, const char *plot_dir)
{
    if (csv_path != NULL && write_csv(csv_path, rp) != 0)
        rp->failed = 1;
    if (plot_dir != NULL && rp->nrows > 0 && plot(plot_dir, rp->rows, rp->nrows) != 0)
        rp->failed = 1;
    free(rp->rows);
    rp->rows = NULL;
    rp->nrows = rp->cap = 0;
    return rp->failed ? 1 : 0;
}
