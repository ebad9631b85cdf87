/*
 * ps_cpubench - the CPU sort benchmark of issue 34: libportsort's chosen
 * backend (run it with PORTSORT_BACKEND=openmp) against every other sorter
 * that runs here, on the same data in one process, on a quiet machine and
 * on a busy one.
 *
 * Sorters: ours (libportsort on --threads threads), ours-1t (libportsort
 * with PORTSORT_THREADS=1, in a child process, since the library reads it
 * once), the plain LSD, the peers compiled in when configure found them
 * (ps_cpubench_peers.cc: vqsort, oneTBB, libstdc++ parallel mode,
 * Boost.Sort, std::sort, std::stable_sort), and the peers of the shared
 * objects named in PS_BENCH_PEERS (bench/ps_bench_peer.h).  A memcpy of
 * the same bytes, on as many threads and on one, is the traffic reference.
 *
 * Each repetition runs every sorter once, in turn, on a fresh copy of the
 * same input; the table gives the median of the repetitions.  Every
 * output is checked against one reference (ps_cb_reference).  Arrays
 * below 2^16 elements are measured as several arrays sorted one after the
 * other (m x n elements, about 2^16 in all), so that one measurement is
 * long enough to time.
 *
 * `ps_cpubench --help` lists the options; bench/ps_cpubench.sh runs the
 * whole matrix of issue 34, quiet and then busy; doc/results-openmp.md
 * has the figures.
 */
#include <config.h>

#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ps_cli_bench_parts.h"
#include "ps_cpubench.h"

/* The sizes of issue 34: goal 3's small arrays, goal 2's sizes, and
 * neighbours of the powers of two (is a power of two slower per key?). */
#define ISSUE34_SIZES "2^8..2^14,2^16-1000,2^16,2^16+1000,2^20-1000,2^20,2^20+1000," \
                      "2^24-1000,2^24,2^24+1000,10^7"
#define ALL_TYPES "u32,u64,f32,i64,u32+u32,u64+u64"

enum { MAX_SORTERS = 64, MAX_CASES = 4096 };

enum role { R_OURS, R_SOLO, R_PEER, R_COPY, R_COPY1 };

typedef struct sorter {
    const char *name;
    enum role role;
    const ps_bench_peer *peer;      /* R_PEER */
} sorter;

enum state { ST_ABSENT, ST_OK, ST_FAILED, ST_WRONG };

/* One sorter on one case under one load. */
typedef struct result {
    int busy;
    ps_cb_kind kind;
    size_t n, m;
    int sorter;
    enum state state;
    double med, lo, hi;     /* seconds for m x n elements */
} result;

typedef struct bcase {
    ps_cb_kind kind;
    size_t n;
} bcase;

static struct {
    int reps, threads, busy_procs, quiet, busy, release_cache, gap_ms;
    size_t batch_keys;      /* arrays below this are timed several at once */
    const ps_cli_dataset *data;
    unsigned param;
    FILE *csv;
} opt;

static sorter sorters[MAX_SORTERS];
static int nsorters;
static bcase cases[MAX_CASES];
static size_t ncases;
static result *results;
static size_t nresults, results_cap;
static int wrong_seen;

/* ---- sizes ------------------------------------------------------------ */

/* "2^20", "2^20-1000", "10^7", or the digits. */
static const char *size_label(size_t n, char *buf, size_t size)
{
    int k, e;
    for (k = 1; k < 63; k++) {
        size_t p = (size_t)1 << k;
        if (n == p) {
            snprintf(buf, size, "2^%d", k);
            return buf;
        }
        if (k >= 12 && (n + 1000 == p || n == p + 1000)) {
            snprintf(buf, size, "2^%d%s1000", k, n < p ? "-" : "+");
            return buf;
        }
    }
    for (e = 3; e < 19; e++) {
        size_t p = 1;
        int i;
        for (i = 0; i < e; i++)
            p *= 10;
        if (n == p) {
            snprintf(buf, size, "10^%d", e);
            return buf;
        }
    }
    snprintf(buf, size, "%zu", n);
    return buf;
}

/* One term: N, 2^K, 2^K+D, 2^K-D, 10^E.  Returns 0 or -1. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long base, e, v = 1, d = 0;
    int neg = 0;

    if (!isdigit((unsigned char)s[0]))
        return -1;
    base = strtoull(s, &end, 10);
    if (*end != '^') {
        *out = (size_t)base;
        return *end == '\0' && base > 0 ? 0 : -1;
    }
    e = strtoull(end + 1, &end, 10);
    if ((base != 2 && base != 10) || e > (base == 2 ? 40u : 12u))
        return -1;
    while (e-- > 0)
        v *= base;
    if (*end == '+' || *end == '-') {
        neg = *end == '-';
        d = strtoull(end + 1, &end, 10);
        if (d >= v)
            return -1;
    }
    if (*end != '\0')
        return -1;
    *out = (size_t)(neg ? v - d : v + d);
    return 0;
}

/* A list of terms and ranges of powers of two (2^8..2^14).  Returns the
 * number of sizes, or -1 after a message. */
static int parse_sizes(const char *list, size_t *out, int max)
{
    char *copy = strdup(list), *t, *save = NULL;
    int count = 0;
    for (t = strtok_r(copy, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        char *dots = strstr(t, "..");
        size_t a, b;
        if (strcmp(t, "issue34") == 0) {
            int more = parse_sizes(ISSUE34_SIZES, out + count, max - count);
            if (more < 0)
                goto bad;
            count += more;
            continue;
        }
        if (dots != NULL) {
            *dots = '\0';
            if (parse_size(t, &a) != 0 || parse_size(dots + 2, &b) != 0 ||
                (a & (a - 1)) != 0 || (b & (b - 1)) != 0 || a > b)
                goto bad;
            for (; a <= b && count < max; a *= 2)
                out[count++] = a;
            continue;
        }
        if (parse_size(t, &a) != 0 || count >= max)
            goto bad;
        out[count++] = a;
    }
    free(copy);
    return count;
bad:
    fprintf(stderr, "ps_cpubench: bad size list \"%s\" (want N, 2^K, 2^K+D, 2^K-D, "
            "10^E, 2^A..2^B, issue34)\n", list);
    free(copy);
    return -1;
}

static int kind_by_name(const char *name)
{
    int k;
    if (strcmp(name, "pairs") == 0)
        return PS_CB_U32_U32;
    for (k = 0; k < PS_CB_NKINDS; k++)
        if (strcmp(ps_cb_kinds[k].name, name) == 0)
            return k;
    return -1;
}

/* ---- one case --------------------------------------------------------- */

/* Arrays below --batch-keys (2^16) elements are timed m at a time. */
static size_t batch_of(size_t n)
{
    return n < opt.batch_keys ? opt.batch_keys / n : 1;
}

/* The float keys are never NaN or -0.0: the peers sort floats by value, and
 * on such keys that is libportsort's totalOrder.  A NaN or an infinity
 * becomes a finite number (its lowest exponent bit cleared). */
static void finite_floats(uint32_t *k, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if ((k[i] & 0x7f800000u) == 0x7f800000u)
            k[i] &= ~0x00800000u;
        if (k[i] == 0x80000000u)
            k[i] = 0;
    }
}

static void put_tags(const ps_cb_kind_info *ki, void *values, size_t n, size_t m)
{
    size_t j, i;
    for (j = 0; j < m; j++)
        for (i = 0; i < n; i++) {
            if (ki->value_size == 4)
                ((uint32_t *)values)[j * n + i] = (uint32_t)i;
            else
                ((uint64_t *)values)[j * n + i] = i;
        }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void add_result(const result *r)
{
    if (nresults == results_cap) {
        size_t cap = results_cap ? 2 * results_cap : 256;
        result *p = realloc(results, cap * sizeof *p);
        if (p == NULL) {
            fprintf(stderr, "ps_cpubench: out of memory\n");
            exit(1);
        }
        results = p;
        results_cap = cap;
    }
    results[nresults++] = *r;
}

static double rate(const result *r)
{
    return r->state == ST_OK && r->med > 0 ? (double)(r->n * r->m) / r->med : 0;
}

/* Bytes read and written per element by a memcpy row. */
static double copy_bytes(const result *r)
{
    const ps_cb_kind_info *ki = &ps_cb_kinds[r->kind];
    return 2.0 * (double)(ki->key_size + ki->value_size);
}

static int find_role(enum role role);

/* The bytes per key that sorter s (ours or ours-1t) would move at its
 * rate if it moved them as fast as memcpy does on the same machine at the
 * same moment: memcpy-1t for ours-1t; for ours the faster of the two
 * copies (a copy split over threads loses to one thread when the machine
 * is busy).  0 when unknown. */
static double bytes_per_key(const result *rows, int s)
{
    int copy = find_role(R_COPY), copy1 = find_role(R_COPY1), ref;
    double rs = rate(&rows[s]), rc;
    if (sorters[s].role == R_OURS)
        ref = copy >= 0 && (copy1 < 0 || rate(&rows[copy]) > rate(&rows[copy1])) ? copy : copy1;
    else if (sorters[s].role == R_SOLO)
        ref = copy1;
    else
        return 0;
    rc = ref >= 0 ? rate(&rows[ref]) : 0;
    return rs > 0 && rc > 0 ? copy_bytes(&rows[ref]) * rc / rs : 0;
}

/* Index in `rows` of the fastest peer, or -1. */
static int fastest_peer(const result *rows)
{
    int s, best = -1;
    for (s = 0; s < nsorters; s++)
        if (sorters[s].role == R_PEER && rate(&rows[s]) > 0 &&
            (best < 0 || rate(&rows[s]) > rate(&rows[best])))
            best = s;
    return best;
}

static int find_role(enum role role)
{
    int s;
    for (s = 0; s < nsorters; s++)
        if (sorters[s].role == role)
            return s;
    return -1;
}

static void print_case(const bcase *bc, size_t m, const result *rows)
{
    char lbl[32];
    int s, ours = find_role(R_OURS), solo = find_role(R_SOLO);
    int best = fastest_peer(rows);
    double r_ours = rate(&rows[ours]);
    char arrays[48] = "";

    if (m > 1)
        snprintf(arrays, sizeof arrays, ", %zu arrays timed together", m);
    printf("\n== %s n=%zu (%s)%s, %s, %s, %d thread%s, median of %d\n",
           ps_cb_kinds[bc->kind].name, bc->n, size_label(bc->n, lbl, sizeof lbl), arrays,
           opt.data->name, rows[0].busy ? "busy" : "quiet", opt.threads,
           opt.threads == 1 ? "" : "s", opt.reps);
    printf("   %-16s %10s %10s\n", "sorter", "Mkeys/s", "ours/this");
    for (s = 0; s < nsorters; s++) {
        const result *r = &rows[s];
        double rs = rate(r);
        if (r->state == ST_ABSENT)
            continue;
        printf("   %-16s ", sorters[s].name);
        if (r->state == ST_FAILED || r->state == ST_WRONG) {
            printf("%10s\n", r->state == ST_FAILED ? "failed" : "WRONG");
            continue;
        }
        printf("%10.1f ", rs / 1e6);
        if (sorters[s].role == R_COPY || sorters[s].role == R_COPY1) {
            printf("%10s %.1f GB/s read+written\n", "", copy_bytes(r) * rs / 1e9);
            continue;
        }
        printf("%10.2f", r_ours > 0 ? r_ours / rs : 0);
        if (bytes_per_key(rows, s) > 0)
            printf("  %.1f B/key at memcpy's rate", bytes_per_key(rows, s));
        printf("\n");
    }
    if (best >= 0 && r_ours > 0)
        printf("   fastest peer: %s; ours/fastest peer %.2f", sorters[best].name,
               r_ours / rate(&rows[best]));
    else
        printf("   no peer ran");
    if (solo >= 0 && r_ours > 0 && rate(&rows[solo]) > 0)
        printf("; ours/ours-1t %.2f", r_ours / rate(&rows[solo]));
    printf("\n");
    fflush(stdout);
}

static void csv_rows(const bcase *bc, const result *rows)
{
    int s, ours = find_role(R_OURS);
    static const char *const states[] = { "absent", "ok", "failed", "wrong" };

    for (s = 0; s < nsorters; s++) {
        const result *r = &rows[s];
        double rs = rate(r), bpk = bytes_per_key(rows, s), gbs = 0;
        if (r->state == ST_ABSENT)
            continue;
        if (sorters[s].role == R_COPY || sorters[s].role == R_COPY1)
            gbs = copy_bytes(r) * rs / 1e9;
        fprintf(opt.csv, "%s,%s,%zu,%zu,%s,%d,%s,%.9f,%.9f,%.9f,%.3f,",
                r->busy ? "busy" : "quiet", ps_cb_kinds[bc->kind].name, bc->n, r->m,
                opt.data->name, opt.threads, sorters[s].name, r->med, r->lo, r->hi,
                rs / 1e6);
        if (rs > 0 && rate(&rows[ours]) > 0 && gbs == 0)
            fprintf(opt.csv, "%.4f", rate(&rows[ours]) / rs);
        fprintf(opt.csv, ",");
        if (bpk > 0)
            fprintf(opt.csv, "%.2f", bpk);
        fprintf(opt.csv, ",");
        if (gbs > 0)
            fprintf(opt.csv, "%.3f", gbs);
        fprintf(opt.csv, ",%s\n", states[r->state]);
    }
    fflush(opt.csv);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "ps_cpubench: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* A pause before each measurement: the pools of the sorter before
 * (libgomp's, oneTBB's) spin for a while after their work ends, and on
 * the cores they hold the next sorter would run slower. */
static void settle(void)
{
    struct timespec ts;
    if (opt.gap_ms <= 0)
        return;
    ts.tv_sec = opt.gap_ms / 1000;
    ts.tv_nsec = (long)(opt.gap_ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Run one sorter once on the m arrays in (wk, wv), freshly copied from
 * the input.  Returns its status (0: sorted) and the time in *t. */
static int run_once(int s, const bcase *bc, size_t m, const void *sk, const void *sv,
                    void *wk, void *wv, double *t)
{
    const ps_cb_kind_info *ki = &ps_cb_kinds[bc->kind];
    size_t total = bc->n * m, kb = total * ki->key_size, vb = total * ki->value_size, j;
    double t0;
    int st = 0;

    if (sorters[s].role == R_COPY || sorters[s].role == R_COPY1) {
        int th = sorters[s].role == R_COPY ? opt.threads : 1;
        settle();
        t0 = ps_cb_now();
        ps_cb_copy(wk, sk, kb, th);
        if (vb)
            ps_cb_copy(wv, sv, vb, th);
        *t = ps_cb_now() - t0;
        return 0;
    }
    memcpy(wk, sk, kb);
    if (vb)
        memcpy(wv, sv, vb);
    settle();
    switch (sorters[s].role) {
    case R_OURS:
        return ps_cb_ours_sort(bc->kind, wk, wv, bc->n, m, opt.release_cache, t);
    case R_SOLO:
        return ps_cb_solo_sort(bc->kind, wk, wv, bc->n, m, opt.release_cache, t);
    default:
        t0 = ps_cb_now();
        for (j = 0; j < m && st == 0; j++)
            st = ps_cb_peer_sort(sorters[s].peer, bc->kind,
                                 (char *)wk + j * bc->n * ki->key_size,
                                 vb ? (char *)wv + j * bc->n * ki->value_size : NULL,
                                 bc->n, opt.threads);
        *t = ps_cb_now() - t0;
        return st;
    }
}

static void bench_case(const bcase *bc, int busy)
{
    const ps_cb_kind_info *ki = &ps_cb_kinds[bc->kind];
    const ps_cli_type *ct = ps_cli_type_by_name(ki->key_name);
    size_t n = bc->n, m = batch_of(n), total = n * m, j;
    size_t kb = total * ki->key_size, vb = total * ki->value_size;
    unsigned char *sk = xmalloc(kb), *rk = xmalloc(kb), *wk = xmalloc(kb);
    unsigned char *sv = vb ? xmalloc(vb) : NULL, *rv = vb ? xmalloc(vb) : NULL;
    unsigned char *wv = vb ? xmalloc(vb) : NULL;
    double *t = xmalloc((size_t)nsorters * (size_t)opt.reps * sizeof *t);
    result rows[MAX_SORTERS];
    char why[160];
    int s, r;

    opt.data->fill(ct, sk, total, opt.param);
    if (bc->kind == PS_CB_F32)
        finite_floats((uint32_t *)(void *)sk, total);
    memcpy(rk, sk, kb);
    if (vb) {
        put_tags(ki, sv, n, m);
        memcpy(rv, sv, vb);
    }
    for (j = 0; j < m; j++)
        if (ps_cb_reference(bc->kind, sk + j * n * ki->key_size, rk + j * n * ki->key_size,
                            vb ? rv + j * n * ki->value_size : NULL, n, why, sizeof why) != 0) {
            fprintf(stderr, "ps_cpubench: %s n=%zu: %s\n", ki->name, n, why);
            exit(1);
        }

    for (s = 0; s < nsorters; s++) {
        memset(&rows[s], 0, sizeof rows[s]);
        rows[s].busy = busy;
        rows[s].kind = bc->kind;
        rows[s].n = n;
        rows[s].m = m;
        rows[s].sorter = s;
        rows[s].state = sorters[s].role != R_PEER || ps_cb_peer_has(sorters[s].peer, bc->kind)
                        ? ST_OK : ST_ABSENT;
    }
    /* Round-robin: each repetition runs every sorter once, so that the
     * machine's drift (a shared host changes by 10-30% within minutes)
     * falls on all of them alike instead of on whichever ran last. */
    for (r = 0; r < opt.reps; r++) {
        for (s = 0; s < nsorters; s++) {
            int st, stable = sorters[s].role != R_PEER || sorters[s].peer->stable_pairs;
            if (rows[s].state != ST_OK)
                continue;
            st = run_once(s, bc, m, sk, sv, wk, wv, &t[s * opt.reps + r]);
            if (st != 0) {
                rows[s].state = ST_FAILED;
                fprintf(stderr, "ps_cpubench: %s n=%zu: %s failed (%d%s%s)\n", ki->name, n,
                        sorters[s].name, st, st > 0 && sorters[s].role != R_PEER ? ": " : "",
                        st > 0 && sorters[s].role != R_PEER ? ps_strerror(st) : "");
                continue;
            }
            if (sorters[s].role == R_COPY || sorters[s].role == R_COPY1)
                continue;
            for (j = 0; j < m; j++) {
                if (ps_cb_verify(bc->kind, rk + j * n * ki->key_size,
                                 vb ? rv + j * n * ki->value_size : NULL,
                                 wk + j * n * ki->key_size,
                                 vb ? wv + j * n * ki->value_size : NULL, n, stable, why,
                                 sizeof why) != 0) {
                    rows[s].state = ST_WRONG;
                    wrong_seen = 1;
                    fprintf(stderr, "ps_cpubench: %s n=%zu: %s sorted wrongly: array %zu: %s\n",
                            ki->name, n, sorters[s].name, j, why);
                    break;
                }
            }
        }
    }
    for (s = 0; s < nsorters; s++) {
        double *ts = &t[s * opt.reps];
        if (rows[s].state != ST_OK)
            continue;
        qsort(ts, (size_t)opt.reps, sizeof *ts, cmp_double);
        rows[s].med = opt.reps % 2 ? ts[opt.reps / 2]
                                   : (ts[opt.reps / 2 - 1] + ts[opt.reps / 2]) / 2;
        rows[s].lo = ts[0];
        rows[s].hi = ts[opt.reps - 1];
    }
    for (s = 0; s < nsorters; s++)
        add_result(&rows[s]);
    print_case(bc, m, rows);
    if (opt.csv != NULL)
        csv_rows(bc, rows);
    free(sk); free(rk); free(wk); free(sv); free(rv); free(wv); free(t);
}

/* ---- the summary ------------------------------------------------------ */

static const result *find_result(int busy, ps_cb_kind k, size_t n, int s)
{
    size_t i;
    for (i = 0; i < nresults; i++)
        if (results[i].busy == busy && results[i].kind == k && results[i].n == n &&
            results[i].sorter == s)
            return &results[i];
    return NULL;
}

static void cell(const result *r)
{
    double x = r ? rate(r) / 1e6 : 0;
    if (r == NULL || r->state == ST_ABSENT)
        printf(" - |");
    else if (r->state != ST_OK)
        printf(" %s |", r->state == ST_WRONG ? "WRONG" : "failed");
    else
        printf(x >= 100 ? " %.0f |" : " %.1f |", x);
}

/* One Markdown table per type: Mkeys/s of every sorter at every size. */
static void summary_tables(int busy)
{
    int k, s, ours = find_role(R_OURS), solo = find_role(R_SOLO);
    size_t c;
    char lbl[32];

    for (k = 0; k < PS_CB_NKINDS; k++) {
        int shown[MAX_SORTERS], any = 0;
        for (s = 0; s < nsorters; s++) {
            shown[s] = 0;
            if (sorters[s].role == R_COPY || sorters[s].role == R_COPY1)
                continue;
            for (c = 0; c < ncases; c++) {
                const result *r = find_result(busy, (ps_cb_kind)k, cases[c].n, s);
                if (cases[c].kind == (ps_cb_kind)k && r != NULL && r->state != ST_ABSENT)
                    shown[s] = any = 1;
            }
        }
        if (!any)
            continue;
        printf("\n%s, %s, Mkeys/s (median of %d; ours on %d thread%s):\n\n| n |",
               ps_cb_kinds[k].name, busy ? "busy" : "quiet", opt.reps, opt.threads,
               opt.threads == 1 ? "" : "s");
        for (s = 0; s < nsorters; s++)
            if (shown[s])
                printf(" %s |", sorters[s].name);
        printf(" fastest peer | ours/fastest | ours/ours-1t | ours B/key |\n|---|");
        for (s = 0; s < nsorters; s++)
            if (shown[s])
                printf("---|");
        printf("---|---|---|---|\n");
        for (c = 0; c < ncases; c++) {
            result row[MAX_SORTERS];
            const result *ro, *rs;
            int best;
            if (cases[c].kind != (ps_cb_kind)k)
                continue;
            printf("| %s |", size_label(cases[c].n, lbl, sizeof lbl));
            for (s = 0; s < nsorters; s++) {
                const result *r = find_result(busy, (ps_cb_kind)k, cases[c].n, s);
                memset(&row[s], 0, sizeof row[s]);
                if (r != NULL)
                    row[s] = *r;
                if (shown[s])
                    cell(r);
            }
            best = fastest_peer(row);
            ro = &row[ours];
            rs = solo >= 0 ? &row[solo] : NULL;
            printf(" %s |", best >= 0 ? sorters[best].name : "-");
            if (best >= 0 && rate(ro) > 0)
                printf(" %.2f |", rate(ro) / rate(&row[best]));
            else
                printf(" - |");
            if (rs != NULL && rate(ro) > 0 && rate(rs) > 0)
                printf(" %.2f |", rate(ro) / rate(rs));
            else
                printf(" - |");
            if (bytes_per_key(row, ours) > 0)
                printf(" %.1f |\n", bytes_per_key(row, ours));
            else
                printf(" - |\n");
        }
    }
}

/* Per-key speed at each power of two over its neighbours' (2^K +- D). */
static void summary_pow2(int busy)
{
    int k, header = 0, ours = find_role(R_OURS);
    size_t c, d;
    char lbl[32];

    for (k = 0; k < PS_CB_NKINDS; k++) {
        for (c = 0; c < ncases; c++) {
            size_t p = cases[c].n;
            double sum_o = 0, sum_b = 0;
            int nb = 0, best, s;
            result row[MAX_SORTERS];
            if (cases[c].kind != (ps_cb_kind)k || (p & (p - 1)) != 0)
                continue;
            for (s = 0; s < nsorters; s++) {
                const result *r = find_result(busy, (ps_cb_kind)k, p, s);
                memset(&row[s], 0, sizeof row[s]);
                if (r != NULL)
                    row[s] = *r;
            }
            best = fastest_peer(row);
            if (rate(&row[ours]) <= 0)
                continue;
            for (d = 0; d < ncases; d++) {
                size_t q = cases[d].n;
                const result *ro = find_result(busy, (ps_cb_kind)k, q, ours);
                const result *rb = best >= 0 ? find_result(busy, (ps_cb_kind)k, q, best) : NULL;
                if (cases[d].kind != (ps_cb_kind)k || q == p || (q & (q - 1)) == 0 ||
                    (q > p ? q - p : p - q) > p / 8 || ro == NULL || rate(ro) <= 0)
                    continue;
                sum_o += rate(ro);
                sum_b += rb != NULL ? rate(rb) : 0;
                nb++;
            }
            if (nb == 0)
                continue;
            if (!header) {
                printf("\nPowers of two, %s: per-key speed at 2^K over the mean of its "
                       "neighbours' (below 1: slower)\n\n"
                       "| type | n | ours | fastest peer at 2^K | its ratio |\n"
                       "|---|---|---|---|---|\n", busy ? "busy" : "quiet");
                header = 1;
            }
            printf("| %s | %s | %.2f | %s |", ps_cb_kinds[k].name,
                   size_label(p, lbl, sizeof lbl), rate(&row[ours]) / (sum_o / nb),
                   best >= 0 ? sorters[best].name : "-");
            if (best >= 0 && sum_b > 0)
                printf(" %.2f |\n", rate(&row[best]) / (sum_b / nb));
            else
                printf(" - |\n");
        }
    }
}

/* ---- setup ------------------------------------------------------------ */

static void usage(FILE *f)
{
    size_t i;
    fprintf(f,
"usage: ps_cpubench [options] [REPS] [TYPE[:N]...]\n"
"  -r, --reps R        repetitions, the median is shown (default 5)\n"
"  -t, --threads T     threads for ours and for every parallel peer (default:\n"
"                      PORTSORT_THREADS, else the CPUs this process may use)\n"
"  -T, --types LIST    of " ALL_TYPES " (default: all)\n"
"  -s, --sizes LIST    N, 2^K, 2^K+D, 2^K-D, 10^E, 2^A..2^B, issue34 (default:\n"
"                      issue34 = " ISSUE34_SIZES ")\n"
"  -d, --data NAME[:P] the input (default random); one of the shapes of\n"
"                      portsort bench:");
    for (i = 0; i < ps_cli_ndatasets; i++)
        fprintf(f, "%s%s", i % 6 == 0 ? "\n                        " : " ",
                ps_cli_datasets[i].name);
    fprintf(f, "\n"
"      --busy[=N]      measure under load: N processes spinning (default: one\n"
"                      per CPU allowed), started before and killed after\n"
"      --both[=N]      every case quiet, then every case busy\n"
"  -p, --peers LIST    only these peers (names, or none); ours, ours-1t and the\n"
"                      memcpy rows always run\n"
"      --csv FILE      also write every row to FILE as CSV\n"
"      --batch-keys K  time arrays of fewer than K elements (default 2^16) K/n\n"
"                      at a time, each array sorted by its own call\n"
"      --gap MS        pause before each measurement, for the thread pools of\n"
"                      the sorter before to go to sleep (default 5; 0: none)\n"
"      --scratch-div D ours and ours-1t under a memory limit of their usual\n"
"                      scratch / D (ps_scratch_bytes; doc/memory.md)\n"
"  TYPE[:N] cases (old form): u32, u64, f32, i64, u32+u32 (or pairs), u64+u64,\n"
"  u32p2 (u32 at 2^24); N defaults to 16000000.\n"
"Environment: PORTSORT_BACKEND chooses ours' backend; PS_BENCH_PEERS=a.so:b.so\n"
"loads more peers (bench/ps_bench_peer.h); PS_CPUBENCH_NOCACHE=1 releases\n"
"libportsort's cache before each of its sorts (untimed).\n");
}

static int parse_count(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 1 || v > 100000)
        return -1;
    *out = (int)v;
    return 0;
}

static void add_case(ps_cb_kind k, size_t n)
{
    if (ncases < MAX_CASES) {
        cases[ncases].kind = k;
        cases[ncases].n = n;
        ncases++;
    }
}

static int add_sorter(const char *name, enum role role, const ps_bench_peer *peer)
{
    if (nsorters == MAX_SORTERS)
        return -1;
    sorters[nsorters].name = name;
    sorters[nsorters].role = role;
    sorters[nsorters].peer = peer;
    nsorters++;
    return 0;
}

/* Is `name` in the comma-separated list? */
static int listed(const char *list, const char *name)
{
    size_t len = strlen(name);
    const char *p = list;
    while ((p = strstr(p, name)) != NULL) {
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
            return 1;
        p += len;
    }
    return 0;
}

static const ps_cli_dataset *dataset_by_name(const char *arg, unsigned *param)
{
    const char *colon = strchr(arg, ':');
    size_t len = colon ? (size_t)(colon - arg) : strlen(arg), i;
    for (i = 0; i < ps_cli_ndatasets; i++) {
        if (strlen(ps_cli_datasets[i].name) == len &&
            strncmp(ps_cli_datasets[i].name, arg, len) == 0) {
            *param = colon ? (unsigned)strtoul(colon + 1, NULL, 10)
                           : ps_cli_datasets[i].param;
            return &ps_cli_datasets[i];
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "reps", required_argument, NULL, 'r' },
        { "threads", required_argument, NULL, 't' },
        { "types", required_argument, NULL, 'T' },
        { "sizes", required_argument, NULL, 's' },
        { "data", required_argument, NULL, 'd' },
        { "busy", optional_argument, NULL, 'B' },
        { "both", optional_argument, NULL, 'A' },
        { "peers", required_argument, NULL, 'p' },
        { "csv", required_argument, NULL, 'C' },
        { "gap", required_argument, NULL, 'G' },
        { "batch-keys", required_argument, NULL, 'K' },
        { "scratch-div", required_argument, NULL, 'D' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *types = ALL_TYPES, *sizes = "issue34", *peer_list = NULL, *env;
    const ps_bench_peer *peers[MAX_SORTERS];
    const ps_bench_peer *const *builtin;
    size_t npeers = 0, nb, i, cap = 0, sz[256];
    char la[64], tbuf[16];
    int c, k, st, nsizes, mode;

    opt.reps = 5;
    opt.quiet = 1;
    opt.gap_ms = 5;
    opt.batch_keys = 65536;
    opt.data = dataset_by_name("random", &opt.param);
    while ((c = getopt_long(argc, argv, "r:t:T:s:d:p:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (parse_count(optarg, &opt.reps) != 0)
                goto bad;
            break;
        case 't':
            if (parse_count(optarg, &opt.threads) != 0 || opt.threads > 1024)
                goto bad;
            break;
        case 'T': types = optarg; break;
        case 's': sizes = optarg; break;
        case 'd':
            opt.data = dataset_by_name(optarg, &opt.param);
            if (opt.data == NULL)
                goto bad;
            break;
        case 'B':
        case 'A':
            opt.busy = 1;
            opt.quiet = c == 'A';
            opt.busy_procs = 0;
            if (optarg != NULL && parse_count(optarg, &opt.busy_procs) != 0)
                goto bad;
            break;
        case 'p': peer_list = optarg; break;
        case 'C':
            opt.csv = fopen(optarg, "w");
            if (opt.csv == NULL) {
                perror(optarg);
                return 1;
            }
            break;
        case 'G':
            if (strcmp(optarg, "0") == 0)
                opt.gap_ms = 0;
            else if (parse_count(optarg, &opt.gap_ms) != 0)
                goto bad;
            break;
        case 'K':
            if (parse_size(optarg, &opt.batch_keys) != 0)
                goto bad;
            break;
        case 'D':
            if (parse_size(optarg, &ps_cb_scratch_div) != 0)
                goto bad;
            break;
        case 'h': usage(stdout); return 0;
        default: goto bad;
        }
    }
    /* The old form: [REPS] [CASE...]. */
    if (optind < argc && isdigit((unsigned char)argv[optind][0])) {
        if (parse_count(argv[optind], &opt.reps) != 0)
            goto bad;
        optind++;
    }
    for (; optind < argc; optind++) {
        char name[16], *colon;
        size_t n = 16000000;
        snprintf(name, sizeof name, "%s", argv[optind]);
        colon = strchr(name, ':');
        if (colon != NULL) {
            *colon = '\0';
            if (parse_size(strchr(argv[optind], ':') + 1, &n) != 0)
                goto bad;
        }
        if (strcmp(name, "u32p2") == 0) {
            add_case(PS_CB_U32, colon ? n : (size_t)1 << 24);
            continue;
        }
        if ((k = kind_by_name(name)) < 0)
            goto bad;
        add_case((ps_cb_kind)k, n);
    }
    if (ncases == 0) {
        char *copy = strdup(types), *t, *save = NULL;
        nsizes = parse_sizes(sizes, sz, 256);
        if (nsizes < 0)
            return 2;
        for (t = strtok_r(copy, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
            if ((k = kind_by_name(t)) < 0) {
                fprintf(stderr, "ps_cpubench: unknown type %s (want %s)\n", t, ALL_TYPES);
                return 2;
            }
            for (c = 0; c < nsizes; c++)
                add_case((ps_cb_kind)k, sz[c]);
        }
        free(copy);
    }
    for (i = 0; i < ncases; i++) {
        const ps_cb_kind_info *ki = &ps_cb_kinds[cases[i].kind];
        size_t b = cases[i].n * batch_of(cases[i].n) * (ki->key_size + ki->value_size);
        cap = b > cap ? b : cap;
    }

    /* ours-1t's process is forked before libportsort starts a thread. */
    if (ps_cb_solo_start(cap) != 0)
        return 1;
    if (opt.threads == 0 && (env = getenv("PORTSORT_THREADS")) != NULL &&
        parse_count(env, &opt.threads) != 0)
        opt.threads = 0;
    if (opt.threads == 0)
        opt.threads = ps_cb_cpus();
    snprintf(tbuf, sizeof tbuf, "%d", opt.threads);
    setenv("PORTSORT_THREADS", tbuf, 1);
    ps_cb_guard_children();
    st = ps_init();
    if (st != PS_OK) {
        fprintf(stderr, "ps_cpubench: %s: %s\n", ps_strerror(st), ps_error_detail());
        return 1;
    }
    opt.release_cache = getenv("PS_CPUBENCH_NOCACHE") != NULL;
    if (opt.busy && opt.busy_procs == 0)
        opt.busy_procs = ps_cb_cpus();

    printf("ps_cpubench: libportsort %s, backend %s, %d thread%s (ours-1t: "
           "PORTSORT_THREADS=1 in child process %ld); data %s; median of %d; "
           "%d ms pause before each sort\n",
           ps_version(), ps_backend_name(), opt.threads, opt.threads == 1 ? "" : "s",
           ps_cb_solo_pid(), opt.data->name, opt.reps, opt.gap_ms);
    ps_cb_machine(stdout);

    peers[npeers++] = &ps_cb_plain_lsd;
    nb = ps_cb_builtin_peers(&builtin);
    for (i = 0; i < nb && npeers < MAX_SORTERS; i++)
        peers[npeers++] = builtin[i];
    env = getenv("PS_BENCH_PEERS");
    if (env != NULL && env[0] != '\0')
        ps_cb_load_peers(env, peers, &npeers, MAX_SORTERS - 4, stdout);
    add_sorter("ours", R_OURS, NULL);
    add_sorter("ours-1t", R_SOLO, NULL);
    for (i = 0; i < npeers; i++) {
        if (peer_list != NULL && !listed(peer_list, peers[i]->name))
            continue;
        add_sorter(peers[i]->name, R_PEER, peers[i]);
        printf("peer %-16s %s%s\n", peers[i]->name, peers[i]->what,
               peers[i]->parallel ? "" : " (one thread)");
    }
    if (peer_list != NULL && strcmp(peer_list, "none") != 0) {
        char *copy = strdup(peer_list), *t, *save = NULL;
        for (t = strtok_r(copy, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
            int found = 0;
            for (i = 0; i < npeers; i++)
                found |= strcmp(peers[i]->name, t) == 0;
            if (!found)
                printf("peer %s: not built or not loaded here\n", t);
        }
        free(copy);
    }
    add_sorter("memcpy", R_COPY, NULL);
    add_sorter("memcpy-1t", R_COPY1, NULL);
    if (ps_cb_copy_start(opt.threads) != 0)
        fprintf(stderr, "ps_cpubench: no helper threads: memcpy runs on one thread\n");
    if (opt.csv != NULL)
        fprintf(opt.csv, "load,type,n,arrays,data,threads,sorter,median_s,min_s,max_s,"
                "mkeys_per_s,ours_over_this,bytes_per_key,memcpy_gb_per_s,status\n");

    for (mode = 0; mode < 2; mode++) {
        if ((mode == 0 && !opt.quiet) || (mode == 1 && !opt.busy))
            continue;
        if (mode == 1) {
            int started = ps_cb_busy_start(opt.busy_procs), cnt, j;
            const pid_t *pids = ps_cb_busy_pids(&cnt);
            printf("\nbusy: %d spinning process%s (pid", started, started == 1 ? "" : "es");
            for (j = 0; j < cnt; j++)
                printf(" %ld", (long)pids[j]);
            printf(")\n");
            fflush(stdout);
        }
        printf("\n%s: %s\n", mode ? "busy" : "quiet", ps_cb_loadavg(la, sizeof la));
        for (i = 0; i < ncases; i++)
            bench_case(&cases[i], mode);
        printf("\n%s, at the end: %s\n", mode ? "busy" : "quiet", ps_cb_loadavg(la, sizeof la));
        if (mode == 1)
            ps_cb_busy_stop();
    }
    printf("\n## Summary\n");
    for (mode = 0; mode < 2; mode++) {
        if ((mode == 0 && !opt.quiet) || (mode == 1 && !opt.busy))
            continue;
        summary_tables(mode);
        summary_pow2(mode);
    }
    ps_cb_copy_stop();
    if (opt.csv != NULL)
        fclose(opt.csv);
    return wrong_seen ? 1 : 0;
bad:
    usage(stderr);
    return 2;
}
