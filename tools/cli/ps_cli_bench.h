/*
 * ps_cli_bench.h - the parts of `portsort bench`: datasets, peers (the
 * other sorts measured on the same data), and the rows of results that
 * travel from the measuring child processes to the reporting parent.
 */
#ifndef PS_CLI_BENCH_H
#define PS_CLI_BENCH_H

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

/* One line of the child-to-parent protocol (no newline in the fields). */
void ps_cli_row_write(FILE *f, const ps_cli_row *r);
/* Parse a line written by ps_cli_row_write.  Returns 0 or -1. */
int ps_cli_row_read(const char *line, ps_cli_row *r);

/* "u32", or "u32+8" for u32 keys with 8-byte values: the table's type
 * column and the charts' file names.  Returns buf. */
const char *ps_cli_type_label(const ps_cli_row *r, char *buf, size_t size);

double ps_cli_row_mkeys(const ps_cli_row *r);
double ps_cli_row_gbs(const ps_cli_row *r);

/* Human table on f: header, then one line per row. speedup is the row's
 * rate over qsort's on the same input, or 0 when unknown. */
void ps_cli_table_header(FILE *f);
void ps_cli_table_row(FILE *f, const ps_cli_row *r, double speedup, int detail);

/* qsort's row for the same type, values, dataset and n as r, or NULL. */
const ps_cli_row *ps_cli_find_qsort(const ps_cli_row *rows, size_t nrows,
                                    const ps_cli_row *r);

void ps_cli_csv_header(FILE *f);
void ps_cli_csv_row(FILE *f, const ps_cli_row *r);

/* Write charts of throughput against n (and speedup over qsort) into dir,
 * one per type and dataset.  Returns 0, or -1 after a message. */
int ps_cli_plot(const char *dir, const ps_cli_row *rows, size_t nrows);

#endif /* PS_CLI_BENCH_H */
