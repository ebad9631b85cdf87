/*
 * ps_cli_bench.c - `portsort bench`: the harness of Yatskov & Mürdter's
 * "Parallel Radix Sort on OpenCL" (its options and datasets), grown into a sweep
 * over types, backends, datasets and sizes.
 *
 * The command reads its options (ps_cli_bench_options.c), then measures
 * each backend in a child process of its own (ps_cli_bench_child.c, which
 * says why), where every sorter is timed on every input
 * (ps_cli_bench_measure.c); the rows come back to this process as lines
 * and are reported as they arrive (ps_cli_report.c).  The map of the
 * parts is ps_cli_bench_parts.h.
 */
#include "ps_cli_bench_parts.h"

/* Measure every backend, the peers with the first that runs, reporting
 * as the rows come.  Returns 0, or 1 when anything failed. */
static int run_bench(const ps_cli_bench_args *a, const ps_cli_bench_cfg *cfg)
{
    ps_cli_report rp;
    size_t b;

    ps_cli_report_begin(&rp, a->perf_stdout, a->csv_stdout, cfg->verbose);
    /* The peers run once, with the first backend that measures anything
     * (a first backend that cannot run must not take qsort with it). */
    for (b = 0; b < cfg->nbackends; b++)
        if (ps_cli_bench_child(cfg, cfg->backends[b], rp.peer_rows == 0, &rp) != 0)
            rp.failed = 1;
    return ps_cli_report_end(&rp, a->csv_path, a->plot_dir);
}

int ps_cli_bench(int argc, char **argv)
{
    /* Static: the lists hold 64 entries of each kind. */
    static ps_cli_bench_cfg cfg;
    ps_cli_bench_args a;
    int rc = ps_cli_bench_parse(argc, argv, &a, &cfg);
    if (rc >= 0)
        return rc;
    rc = ps_cli_bench_validate(&a, &cfg);
    if (rc != 0)
        return rc;
    return run_bench(&a, &cfg);
}
