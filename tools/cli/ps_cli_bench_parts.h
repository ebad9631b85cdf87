/*
 * ps_cli_bench_parts.h - the parts of `portsort bench`, one job a file:
 *
 *   ps_cli_bench.c          the command: parse, validate, then a child
 *                           process per backend, reported as rows arrive
 *   ps_cli_bench_options.c  the options and their lists, into the config
 *   ps_cli_bench_child.c    the child processes, and the lines they send up
 *   ps_cli_bench_measure.c  in a child: build each input, time every sorter
 *                           on it, verify the output, send a row
 *   ps_cli_report.c         the rows: the line protocol, the table, the CSV
 *                           and the charts
 *   ps_cli_data.c           the datasets (the generated inputs)
 *   ps_cli_segments.c       the shapes of --segments
 *   ps_cli_peers.c          the peers: other sorts measured beside the library
 */
#ifndef PS_CLI_BENCH_PARTS_H
#define PS_CLI_BENCH_PARTS_H

#include "ps_cli.h"

/* ---- datasets (ps_cli_data.c) ---- */

/* Fill keys[0..n) of type t.  `param` is the dataset's parameter (the k of
 * low-entropy); the data depends only on (dataset, param, type, n), so every
 * child process builds the same input. */
typedef void (*ps_cli_fill_fn)(const ps_cli_type *t, void *keys, size_t n,
                               unsigned param);

typedef struct ps_cli_dataset {
    const char *name;       /* as typed in --datasets */
    const char *what;       /* one line for --help */
    ps_cli_fill_fn fill;
    unsigned param;         /* default parameter (NAME:K overrides) */
} ps_cli_dataset;

extern const ps_cli_dataset ps_cli_datasets[];

/* The splitmix64 finaliser the generators use; also a good hash of a key
 * for the order-independent checksum that verifies the output. */
uint64_t ps_cli_mix64(uint64_t x);
extern const size_t ps_cli_ndatasets;

/* ---- segmentations (ps_cli_segments.c) ---- */

/* A shape of segments for --segments: make() writes the offsets of n keys
 * (room for n + 1 entries) for the parameter and returns the number of
 * segments.  Segments are never empty. */
typedef struct ps_cli_segshape {
    const char *name;       /* as typed in --segments */
    const char *what;       /* one line for --help */
    unsigned param;         /* default parameter (NAME:K overrides) */
    size_t (*make)(size_t n, unsigned param, size_t *offsets);
} ps_cli_segshape;

extern const ps_cli_segshape ps_cli_segshapes[];
extern const size_t ps_cli_nsegshapes;
const ps_cli_segshape *ps_cli_segshape_by_name(const char *name);

/* ---- peers (ps_cli_peers.c) ---- */

/*
 * A peer is another sort measured on the same data in the same process as
 * the library, so the comparison is fair.  To add one (a vqsort shim, CUB,
 * Boost.Compute), write its sort_keys and add one entry to ps_cli_peers[]
 * in ps_cli_peers.c, behind the configure conditional that found it.
 */
typedef struct ps_cli_peer {
    const char *name;       /* the sorter column: "qsort", "vqsort", ... */
    const char *what;       /* one line for --help */
    /* 1 when the peer sorts keys of this type; NULL means every type. */
    int (*supports)(ps_type type);
    /* Sort n keys of `type` ascending, in place, in the library's order
     * (integers by value, floats by totalOrder; a peer that orders NaNs or
     * -0.0 otherwise must not claim float types).  Returns 0, or -1 when it
     * could not (the bench reports the failure). */
    int (*sort_keys)(void *keys, size_t n, ps_type type);
    /* The same with values of value_size bytes moving with their keys, and
     * stable: equal keys keep their input order.  NULL: the peer sorts keys
     * only, and is left out of pair benchmarks (--value-size). */
    int (*sort_pairs)(void *keys, void *values, size_t value_size, size_t n,
                      ps_type type);
} ps_cli_peer;

/* NULL-terminated. */
extern const ps_cli_peer *const ps_cli_peers[];

/* ---- results (ps_cli_report.c) ---- */

/*
 * A child talks to the parent in lines, each a letter, a tab and the
 * rest:
 *   P  what is being measured now (a progress line, on a terminal only)
 *   V  a remark for --verbose
 *   E  an error (always said; the bench then fails)
 *   R  a row of results, written by ps_cli_row_write
 */

/* Timings of one sorter on one input, medians over the repeats. */
typedef struct ps_cli_row {
    char type[8];
    char backend[16];       /* the library backend, "-" for peers */
    char sorter[32];        /* "portsort" or the peer's name */
    char dataset[64];       /* with --segments: "random/csr" */
    size_t n;
    int repeats;
    double median_s, min_s, max_s;  /* the sort itself */
    double gen_s;           /* building the input, once */
    double copy_s;          /* median: copying it into the work array */
    double verify_s;        /* median: checking the output */
    int verified;           /* 1: every repeat gave the right output */
    size_t key_size;
    size_t value_size;      /* 0: keys only */
} ps_cli_row;

/* The R line of a row (no newline in the fields), flushed. */
void ps_cli_row_write(FILE *f, const ps_cli_row *r);

/* The parent's report: the rows received so far, and how they are shown.
 * ps_cli_report.c owns the fields, but for `failed`, which whoever sees a
 * failure sets, and `peer_rows`, which says whether the peers have run. */
typedef struct ps_cli_report {
    int table, detail, csv_stdout, progress, verbose;
    int progress_shown;
    ps_cli_row *rows;
    size_t nrows, cap;
    size_t peer_rows;       /* rows of peers received so far */
    int failed;
} ps_cli_report;

/* Start the report: the table (unless csv_stdout alone; with perf_stdout
 * each row's phases too) and the CSV header (csv_stdout) on standard
 * output, the progress line on standard error when it is a terminal and
 * not verbose. */
void ps_cli_report_begin(ps_cli_report *rp, int perf_stdout, int csv_stdout,
                         int verbose);
/* Take one line from a child (a newline at its end is cut off): show it,
 * and keep its row. */
void ps_cli_report_take(ps_cli_report *rp, char *line);
/* Erase the progress line, before a message of the caller's. */
void ps_cli_report_clear_progress(ps_cli_report *rp);
/* Write the CSV file (csv_path, all or nothing) and the charts (plot_dir),
 * each when not NULL, and free the rows.  Returns the exit status: 0, or
 * 1 when anything failed, here or before. */
int ps_cli_report_end(ps_cli_report *rp, const char *csv_path, const char *plot_dir);

/* ---- what to measure (ps_cli_bench_options.c) ---- */

/* The most entries of each list option, and the most --repeats. */
#define PS_CLI_MAX_LIST 64
#define PS_CLI_MAX_REPEATS (PS_CLI_MAX_LIST * 4)

/* A dataset as --datasets names it: NAME or NAME:PARAM. */
typedef struct ps_cli_dataset_sel {
    const ps_cli_dataset *ds;
    unsigned param;
    char label[32];             /* "low-entropy:2" when not the default */
} ps_cli_dataset_sel;

/* What every child measures: each type, dataset and size, on its backend. */
typedef struct ps_cli_bench_cfg {
    const ps_cli_type *types[PS_CLI_MAX_LIST];
    size_t ntypes;
    ps_cli_dataset_sel datasets[PS_CLI_MAX_LIST];
    size_t ndatasets;
    size_t sizes[PS_CLI_MAX_LIST];
    size_t nsizes;
    char *backends[PS_CLI_MAX_LIST];    /* NULL entry: the inherited default */
    size_t nbackends;
    const ps_cli_peer *peers[PS_CLI_MAX_LIST];
    size_t npeers;
    size_t peer_max;
    size_t value_size;          /* 0: keys only; else pairs, as --value-size */
    size_t scratch_div;         /* --scratch-div: the library under a limit of
                                   its whole array's scratch / D; 0: none */
    const ps_cli_segshape *seg; /* --segments, or NULL */
    unsigned seg_param;
    char seg_label[24];         /* "csr", "uniform:1000" */
    int repeats;
    int verbose;
} ps_cli_bench_cfg;

/* What the command line asked for, before the lists are parsed. */
typedef struct ps_cli_bench_args {
    int perf_stdout, csv_stdout;
    const char *csv_path, *plot_dir;
    char *types, *datasets, *sizes, *backends, *peers;
} ps_cli_bench_args;

/* Read the options into a and the scalar settings into cfg.  Returns -1
 * to go on, or the exit status (0 after --help, 2 for a bad option). */
int ps_cli_bench_parse(int argc, char **argv, ps_cli_bench_args *a,
                       ps_cli_bench_cfg *cfg);

/* Parse the lists of a (types, datasets, sizes, peers, backends; in
 * place) into cfg, with their defaults, and refuse what cannot be
 * measured.  Returns 0, or the exit status: 2 for a bad list, 1 when no
 * backend can run. */
int ps_cli_bench_validate(ps_cli_bench_args *a, ps_cli_bench_cfg *cfg);

/* ---- measuring, in a child (ps_cli_bench_measure.c) ---- */

/* Choose `backend` (NULL: the inherited default), then measure every type,
 * dataset and size of cfg on it, the peers first when with_peers, and send
 * each result to the parent as lines on `out`.  Returns the child's exit
 * status: 0, or 1 when anything failed (said in an E line). */
int ps_cli_bench_measure(const ps_cli_bench_cfg *cfg, const char *backend,
                         int with_peers, FILE *out);

/* ---- the children (ps_cli_bench_child.c) ---- */

/* Run ps_cli_bench_measure in a child process and hand every line it
 * sends to rp.  Returns 0 when the child succeeded, else -1 (after a
 * message when it could not start or died of a signal). */
int ps_cli_bench_child(const ps_cli_bench_cfg *cfg, const char *backend,
                       int with_peers, ps_cli_report *rp);

/* The names of the usable backends, as a child process sees them, into
 * names[0..max) (strdup'ed).  Returns how many were stored. */
size_t ps_cli_bench_usable_backends(char **names, size_t max);

#endif /* PS_CLI_BENCH_PARTS_H */
