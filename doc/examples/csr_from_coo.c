/*
 * csr_from_coo.c - build a CSR sparse matrix from COO triplets with
 * libportsort: sort the triplets by row (stable), then each row's
 * entries by column with one ps_sort_segments call.
 *
 *   cc csr_from_coo.c $(pkg-config --cflags --libs portsort) -o csr_from_coo
 *   ./csr_from_coo [rows] [nonzeros per row]
 *
 * It checks its result against the triplets it made and exits 1 on a
 * mismatch (2 on bad arguments), so `make check` runs it, at several
 * sizes (test/examples.sh), as a test of the documented use.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <portsort.h>

typedef struct entry {      /* a triplet's payload while sorting by row */
    uint32_t col;
    float val;
} entry;

static uint64_t next(uint64_t *s)      /* splitmix64 */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int check(int st, const char *what)
{
    if (st != PS_OK)
        fprintf(stderr, "%s: %s (%s)\n", what, ps_strerror(st), ps_error_detail());
    return st != PS_OK;
}

/* A count from the command line: a whole number from 1 to max, else
 * usage.  Returns 0 after the message for a bad one. */
static size_t count_arg(const char *s, size_t max, const char *what)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end != '\0' || v < 1 || v > max) {
        fprintf(stderr, "csr_from_coo: %s must be a whole number from 1 to "
                "%zu, not '%s'\n", what, max, s);
        return 0;
    }
    return (size_t)v;
}

int main(int argc, char **argv)
{
    size_t nrows = 1000, per_row = 10, nnz, i, r;
    uint32_t *rows, *cols, *want_col;
    entry *ent;
    float *vals, *want_val;
    size_t *row_ptr;
    uint64_t s = 42;
    int bad = 0;

    if (argc > 3) {
        fprintf(stderr, "usage: csr_from_coo [rows] [nonzeros per row]\n");
        return 2;
    }
    if (argc > 1 && (nrows = count_arg(argv[1], UINT32_MAX, "rows")) == 0)
        return 2;
    /* Distinct columns in a row: at most one nonzero per column. */
    if (argc > 2 && (per_row = count_arg(argv[2], nrows, "nonzeros per row "
                                         "(at most rows: a square matrix)")) == 0)
        return 2;
    if (per_row > nrows)
        per_row = nrows;
    nnz = nrows * per_row;
    if (nnz / per_row != nrows || nnz > SIZE_MAX / 16) {
        fprintf(stderr, "csr_from_coo: %zu x %zu nonzeros overflow\n", nrows, per_row);
        return 2;
    }
    rows = malloc(nnz * sizeof *rows);
    cols = malloc(nnz * sizeof *cols);
    want_col = malloc(nnz * sizeof *want_col);
    ent = malloc(nnz * sizeof *ent);
    vals = malloc(nnz * sizeof *vals);
    want_val = malloc(nnz * sizeof *want_val);
    row_ptr = calloc(nrows + 1, sizeof *row_ptr);
    if (!rows || !cols || !want_col || !ent || !vals || !want_val || !row_ptr) {
        fprintf(stderr, "csr_from_coo: out of memory for %zu nonzeros\n", nnz);
        return 1;
    }
    /* COO triplets, distinct (row, col) pairs: entry j of a row lies in
     * the j-th of per_row bands of columns, so sorted by column a row's
     * entries come back in the order they were made, which is what the
     * check below compares against (no dense matrix: 10^5 rows would
     * need 40 GB). */
    for (i = 0; i < nnz; i++) {
        size_t band = nrows / per_row;
        rows[i] = (uint32_t)(i / per_row);
        ent[i].col = (uint32_t)((i % per_row) * nrows / per_row + next(&s) % band);
        ent[i].val = (float)(next(&s) % 1000) / 10.0f;
        want_col[i] = ent[i].col;
        want_val[i] = ent[i].val;
    }
    for (i = nnz; i > 1; i--) {             /* shuffle */
        size_t j = next(&s) % i;
        uint32_t tr = rows[i - 1]; entry te = ent[i - 1];
        rows[i - 1] = rows[j], ent[i - 1] = ent[j];
        rows[j] = tr, ent[j] = te;
    }

    /* 1. By row: the entries move with their row numbers. */
    if (check(ps_sort_pairs(rows, ent, sizeof *ent, nnz, PS_U32, 0), "sort by row"))
        return 1;
    /* 2. Row pointers: row r's entries start at row_ptr[r]. */
    for (i = 0; i < nnz; i++)
        row_ptr[rows[i] + 1]++;
    for (r = 0; r < nrows; r++)
        row_ptr[r + 1] += row_ptr[r];
    /* 3. Each row by column: the row pointers are the segments. */
    for (i = 0; i < nnz; i++)
        cols[i] = ent[i].col, vals[i] = ent[i].val;
    if (check(ps_sort_segments(cols, vals, sizeof *vals, nnz, row_ptr, nrows,
                               PS_U32, 0), "sort each row by column"))
        return 1;

    /* The CSR matrix (row_ptr, cols, vals): per_row entries a row, and
     * each row's the ones made for it, by increasing column. */
    for (r = 0; r <= nrows && !bad; r++)
        bad = row_ptr[r] != r * per_row;
    for (i = 0; i < nnz && !bad; i++)
        bad = cols[i] != want_col[i] || vals[i] != want_val[i];
    printf("csr_from_coo: %zu x %zu, %zu nonzeros on backend %s: %s\n", nrows,
           nrows, nnz, ps_backend_name(), bad ? "WRONG" : "ok");
    free(rows); free(cols); free(want_col); free(ent); free(vals);
    free(want_val); free(row_ptr);
    return bad;
}
