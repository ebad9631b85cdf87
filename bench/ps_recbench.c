/*
 * ps_recbench - ps_sort_records against qsort with a comparator, the way a
 * C programmer sorts an array of structs by several fields today.
 *
 *   ps_recbench [n [reps]]      n records (default 2^22), median of reps
 *                               (default 5) runs, each on a fresh copy
 *
 * Three layouts: COO entries {u32 row, u32 col, f64 val} by row then
 * column (issue 31's case: 64 bits of keys, one radix sort; the (row, col)
 * pairs are distinct, so every correct sort agrees), events {f64 time,
 * u32 id, u16 kind} by time then id (96 bits: two), and scores {f32 score,
 * i32 group, u64 payload} by group, then score descending (64 bits).
 * Peers on the same data: qsort with a comparator (ties broken by the
 * original position, carried in the records, so that it is stable too),
 * C++ std::stable_sort with the same comparison (bench/ps_recbench_std.cc),
 * and for COO what a user writes today: a u64 key packed by hand,
 * ps_argsort, and a gather of the records.  Every result is checked to be
 * ours, record for record.  On the backend PORTSORT_BACKEND chooses;
 * doc/records.md has the figures.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "portsort.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

static void *need(void *p)
{
    if (p == NULL) {
        fputs("ps_recbench: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static uint64_t next(uint64_t *s)      /* splitmix64 */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Each layout carries its original position (pos) for qsort's ties. */
typedef struct coo { uint32_t row, col; double val; } coo;
typedef struct event { double time; uint32_t id; uint16_t kind; uint16_t pad; uint32_t pos; } event;
typedef struct score { float score; int32_t group; uint64_t pos; } score;

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

int ps_rb_cmp_coo(const void *x, const void *y);
int ps_rb_cmp_event(const void *x, const void *y);
int ps_rb_cmp_score(const void *x, const void *y);
/* bench/ps_recbench_std.cc: std::stable_sort with these comparisons. */
void ps_rb_stable_sort(int layout, void *records, size_t n);

int ps_rb_cmp_coo(const void *x, const void *y)
{
    const coo *a = x, *b = y;
    int c = CMP(a->row, b->row);
    return c != 0 ? c : CMP(a->col, b->col);
}

int ps_rb_cmp_event(const void *x, const void *y)
{
    const event *a = x, *b = y;
    int c = CMP(a->time, b->time);
    if (c == 0) c = CMP(a->id, b->id);
    return c != 0 ? c : CMP(a->pos, b->pos);
}

int ps_rb_cmp_score(const void *x, const void *y)
{
    const score *a = x, *b = y;
    int c = CMP(a->group, b->group);
    if (c == 0) c = -CMP(a->score, b->score);
    return c != 0 ? c : CMP(a->pos, b->pos);
}

/* COO entries, 8 a row, one in each eighth of 2^20 columns (so no two
 * share a row and column), in random order. */
static void fill_coo(coo *c, size_t n, uint64_t *s)
{
    size_t i;
    for (i = 0; i < n; i++) {
        c[i].row = (uint32_t)(i / 8);
        c[i].col = (uint32_t)((i % 8) << 17 | (next(s) & 0x1FFFF));
        c[i].val = (double)(next(s) >> 11);
    }
    for (i = n; i > 1; i--) {
        size_t j = next(s) % i;
        coo t = c[i - 1];
        c[i - 1] = c[j], c[j] = t;
    }
}

static void fill(int layout, void *r, size_t n, uint64_t *s)
{
    size_t i;
    if (layout == 0) {
        fill_coo(r, n, s);
        return;
    }
    for (i = 0; i < n; i++) {
        uint64_t x = next(s), y = next(s);
        if (layout == 1) {
            event *e = (event *)r + i;
            e->time = (double)(x % 100000) * 0.001;    /* many equal times */
            e->id = (uint32_t)y;
            e->kind = (uint16_t)(y >> 32);
            e->pad = 0;
            e->pos = (uint32_t)i;
        } else {
            score *c = (score *)r + i;
            c->score = (float)((int64_t)(x >> 32) - (1ll << 31)) / 1024.0f;
            c->group = (int32_t)(y % 1000) - 500;
            c->pos = i;
        }
    }
}

/* What a user writes today for COO: a u64 key packed by hand, the
 * library's argsort, and a gather of the records (into b, then back). */
static int hand_coo(coo *r, size_t n, uint64_t *key, size_t *perm, coo *tmp)
{
    size_t i;
    for (i = 0; i < n; i++)
        key[i] = (uint64_t)r[i].row << 32 | r[i].col;
    if (ps_argsort(key, perm, n, PS_U64, 0) != PS_OK)
        return -1;
    for (i = 0; i < n; i++)
        tmp[i] = r[perm[i]];
    memcpy(r, tmp, n * sizeof *r);
    return 0;
}

int main(int argc, char **argv)
{
    static const char *names[] = {
        "coo {u32 row, u32 col, f64 val} by row, col",
        "event {f64 time, u32 id, u16 kind} by time, id",
        "score {f32 score, i32 group, u64 pos} by group, score desc" };
    static const size_t sizes[] = { sizeof(coo), sizeof(event), sizeof(score) };
    static const ps_field coo_f[] = { { offsetof(coo, row), PS_U32, 0 },
                                      { offsetof(coo, col), PS_U32, 0 } };
    static const ps_field event_f[] = { { offsetof(event, time), PS_F64, 0 },
                                        { offsetof(event, id), PS_U32, 0 } };
    static const ps_field score_f[] = { { offsetof(score, group), PS_I32, 0 },
                                        { offsetof(score, score), PS_F32, PS_DESCENDING } };
    static const ps_field *fields[] = { coo_f, event_f, score_f };
    static int (*const cmps[])(const void *, const void *) = {
        ps_rb_cmp_coo, ps_rb_cmp_event, ps_rb_cmp_score };
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)1 << 24;
    int reps = argc > 2 ? atoi(argv[2]) : 5, l, r;

    if (n < 2 || reps < 1 || reps > 64) {
        fputs("usage: ps_recbench [n >= 2 [reps 1..64]]\n", stderr);
        return 2;
    }
    printf("backend %s, n = %zu, median of %d; ratios: the peer's time over ours\n",
           ps_backend_name(), n, reps);
    printf("| layout | ours ms | qsort ms (x) | std::stable_sort ms (x) | "
           "hand-packed key + ps_argsort + gather ms (x) |\n");
    printf("| --- | ---: | ---: | ---: | ---: |\n");
    for (l = 0; l < 3; l++) {
        size_t bytes = n * sizes[l];
        unsigned char *orig = need(malloc(bytes)), *a = need(malloc(bytes));
        unsigned char *b = need(malloc(bytes)), *tmp = need(malloc(bytes));
        uint64_t *key = need(malloc(n * 8));
        size_t *perm = need(malloc(n * sizeof *perm));
        double to[64], tq[64], ts[64], th[64], mo;
        uint64_t s = 2026 + (uint64_t)l;
        fill(l, orig, n, &s);
        for (r = 0; r < reps; r++) {
            double t0;
            memcpy(a, orig, bytes);
            t0 = now();
            if (ps_sort_records(a, sizes[l], n, fields[l], 2) != PS_OK) {
                fprintf(stderr, "ps_recbench: %s\n", ps_error_detail());
                return 1;
            }
            to[r] = now() - t0;
            memcpy(b, orig, bytes);
            t0 = now();
            qsort(b, n, sizes[l], cmps[l]);
            tq[r] = now() - t0;
            if (memcmp(a, b, bytes) != 0) {
                fprintf(stderr, "ps_recbench: %s: ours and qsort differ\n", names[l]);
                return 1;
            }
            memcpy(b, orig, bytes);
            t0 = now();
            ps_rb_stable_sort(l, b, n);
            ts[r] = now() - t0;
            if (memcmp(a, b, bytes) != 0) {
                fprintf(stderr, "ps_recbench: %s: ours and std::stable_sort differ\n",
                        names[l]);
                return 1;
            }
            th[r] = 0;
            if (l == 0) {
                memcpy(b, orig, bytes);
                t0 = now();
                if (hand_coo((coo *)(void *)b, n, key, perm, (coo *)(void *)tmp) != 0) {
                    fprintf(stderr, "ps_recbench: %s\n", ps_error_detail());
                    return 1;
                }
                th[r] = now() - t0;
                if (memcmp(a, b, bytes) != 0) {
                    fprintf(stderr, "ps_recbench: ours and the hand-packed key differ\n");
                    return 1;
                }
            }
        }
        mo = median(to, reps);
        printf("| %s | %.1f | %.1f (%.1f) | %.1f (%.1f) |", names[l], 1e3 * mo,
               1e3 * median(tq, reps), median(tq, reps) / mo,
               1e3 * median(ts, reps), median(ts, reps) / mo);
        if (l == 0)
            printf(" %.1f (%.1f) |\n", 1e3 * median(th, reps), median(th, reps) / mo);
        else
            printf(" - |\n");
        free(orig);
        free(a);
        free(b);
        free(tmp);
        free(key);
        free(perm);
    }
    return 0;
}
