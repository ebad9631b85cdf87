/*
 * ps_cli_report.c - results of `portsort bench`: the line protocol between
 * the measuring children and the parent, the table, the CSV and the charts.
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

#include "ps_cli_bench.h"

double ps_cli_row_mkeys(const ps_cli_row *r)
{
    return r->median_s > 0 ? (double)r->n / r->median_s / 1e6 : 0;
}

double ps_cli_row_gbs(const ps_cli_row *r)
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

int ps_cli_row_read(const char *line, ps_cli_row *r)
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

void ps_cli_table_header(FILE *f)
{
    fprintf(f, "%-6s %-8s %-14s %-20s %11s %11s %9s %7s %9s %s\n", "type", "backend",
            "sorter", "dataset", "n", "median ms", "Mkeys/s", "GB/s", "vs qsort",
            "check");
}

const char *ps_cli_type_label(const ps_cli_row *r, char *buf, size_t size)
{
    if (r->value_size == 0)
        snprintf(buf, size, "%s", r->type);
    else
        snprintf(buf, size, "%s+%zu", r->type, r->value_size);
    return buf;
}

void ps_cli_table_row(FILE *f, const ps_cli_row *r, double speedup, int detail)
{
    char sp[32] = "", tl[32];
    if (speedup > 0)
        snprintf(sp, sizeof sp, "%.1fx", speedup);
    fprintf(f, "%-6s %-8s %-14s %-20s %11zu %11.3f %9.1f %7.3f %9s %s\n",
            ps_cli_type_label(r, tl, sizeof tl),
            r->backend, r->sorter, r->dataset, r->n, r->median_s * 1e3,
            ps_cli_row_mkeys(r), ps_cli_row_gbs(r), sp, r->verified ? "ok" : "WRONG");
    if (detail)
        fprintf(f, "     sort min %.3f / median %.3f / max %.3f ms over %d runs; "
                "phases: generate %.3f ms, copy %.3f ms, verify %.3f ms\n",
                r->min_s * 1e3, r->median_s * 1e3, r->max_s * 1e3, r->repeats,
                r->gen_s * 1e3, r->copy_s * 1e3, r->verify_s * 1e3);
}

void ps_cli_csv_header(FILE *f)
{
    fprintf(f, "type,value_size,backend,sorter,dataset,n,repeats,median_s,min_s,max_s,"
            "mkeys_per_s,gb_per_s,generate_s,copy_s,verify_s,verified\n");
}

void ps_cli_csv_row(FILE *f, const ps_cli_row *r)
{
    fprintf(f, "%s,%zu,%s,%s,%s,%zu,%d,%.9g,%.9g,%.9g,%.6g,%.6g,%.9g,%.9g,%.9g,%d\n",
            r->type, r->value_size, r->backend, r->sorter, r->dataset, r->n, r->repeats,
            r->median_s, r->min_s, r->max_s, ps_cli_row_mkeys(r), ps_cli_row_gbs(r),
            r->gen_s, r->copy_s, r->verify_s, r->verified);
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

const ps_cli_row *ps_cli_find_qsort(const ps_cli_row *rows, size_t nrows,
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
            q = ps_cli_find_qsort(rows, nrows, &rows[i]);
            /* gnuplot reads NaN as a missing point. */
            if (q != NULL)
                fprintf(f, "%zu %.6g %.6g\n", rows[i].n, ps_cli_row_mkeys(&rows[i]),
                        q->median_s / rows[i].median_s);
            else
                fprintf(f, "%zu %.6g NaN\n", rows[i].n, ps_cli_row_mkeys(&rows[i]));
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
    ps_cli_type_label(c, tl, sizeof tl);
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

int ps_cli_plot(const char *dir, const ps_cli_row *rows, size_t nrows)
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
        ps_cli_type_label(&rows[i], tl, sizeof tl);
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
