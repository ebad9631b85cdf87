/*
 * csr_from_coo.c - build a CSR sparse matrix from COO triplets with
 * libportsort: sort the triplets by row (stable), then each row's
 * entries by column with one ps_sort_segments call.
 *
 *   cc csr_from_coo.c $(pkg-config --cflags --libs portsort) -o csr_from_coo
 *   ./csr_from_coo [rows] [nonzeros per row]
 *
 * It checks its result against the matrix rebuilt densely and exits 1 on
 * a mismatch, so `make check` runs it as a test of the documented use.
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

int main(int argc, char **argv)
{
    size_t nrows = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    size_t per_row = argc > 2 ? strtoul(argv[2], NULL, 10) : 10;
    size_t nnz = nrows * per_row, i, r;
    uint32_t *rows = malloc(nnz * sizeof *rows), *cols = malloc(nnz * sizeof *cols);
    entry *ent = malloc(nnz * sizeof *ent);
    float *vals = malloc(nnz * sizeof *vals), *dense = calloc(nrows * nrows, sizeof *dense);
    size_t *row_ptr = calloc(nrows + 1, sizeof *row_ptr);
    uint64_t s = 42;
    int bad = 0;

    if (!rows || !cols || !ent || !vals || !dense || !row_ptr || nrows == 0)
        return 1;
    /* COO triplets in random order, distinct (row, col) pairs. */
    for (i = 0; i < nnz; i++) {
        rows[i] = (uint32_t)(i / per_row);
        ent[i].col = (uint32_t)((i % per_row) * nrows / per_row + next(&s) % (nrows / per_row ? nrows / per_row : 1));
        ent[i].val = (float)(next(&s) % 1000) / 10.0f;
        dense[rows[i] * nrows + ent[i].col] = ent[i].val;
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

    /* The CSR matrix (row_ptr, cols, vals) must be the dense one, with
     * columns increasing along each row. */
    for (r = 0; r < nrows && !bad; r++)
        for (i = row_ptr[r]; i < row_ptr[r + 1]; i++)
            if ((i > row_ptr[r] && cols[i] <= cols[i - 1])
                || dense[r * nrows + cols[i]] != vals[i])
                bad = 1;
    printf("csr_from_coo: %zu x %zu, %zu nonzeros on backend %s: %s\n", nrows,
           nrows, nnz, ps_backend_name(), bad ? "WRONG" : "ok");
    free(rows); free(cols); free(ent); free(vals); free(dense); free(row_ptr);
    return bad;
}
