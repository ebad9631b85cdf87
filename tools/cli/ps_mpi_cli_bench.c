/*
 * ps_mpi_cli_bench.c - `portsort-mpi bench`: strong and weak scaling of
 * the distributed sort, in one mpirun.
 *
 * The ranks of MPI_COMM_WORLD are split into communicators of 1, 2, 4, ...
 * and all P ranks; on each, the sort runs on the same total (strong
 * scaling) and on the same count per rank (weak scaling), each point
 * timed `repeats` times from the same input.  Ranks outside the
 * communicator of the moment wait asleep, so that they take no core from
 * the ranks that work.  Key g of the global array is a function of g
 * alone, so every rank count sorts the same data.  The bytes moved are
 * those of the library call alone, counted in its collectives
 * (ps_mpi_cli_traffic.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ps_mpi_cli.h"
#include "ps_mpi_cli_traffic.h"

enum { FORM_KEYS, FORM_KEYS_V, FORM_PAIRS };
static const char *form_names[] = { "keys", "keys_v", "pairs" };
static const char *form_funcs[] = { "ps_mpi_sort_keys", "ps_mpi_sort_keys_v",
                                    "ps_mpi_sort_pairs" };

typedef struct bench_args {
    const ps_cli_type *t;
    size_t size, value_size;
    unsigned bits;         /* keys keep the hash's low `bits` bits; 0: all */
    int repeats, form;
    const char *backend;
} bench_args;

static void usage(FILE *f)
{
    fprintf(f,
"Usage: mpirun -np P portsort-mpi bench [OPTION]...\n"
"Time the distributed sort on 1, 2, 4, ... and P ranks: strong scaling (the\n"
"same total on every rank count) and weak scaling (the same keys per rank).\n"
"One line per point: median and best time, keys/s, efficiency against one\n"
"rank, local_s: the time of every rank sorting its own share at once with no\n"
"communication (what the machine gives that many concurrent sorts), and the\n"
"bytes each key moved between ranks (counted), with the least any sort must\n"
"move for random keys, (ranks - 1) / ranks of each element.\n"
"\n"
"      --type T          key type: %s (default u32)\n"
"      --size N          keys in all for strong scaling, N / P per rank for\n"
"                        weak scaling (default 2^24; 1M, 2^20 accepted)\n"
"      --repeats R       timed runs per point (default 5)\n"
"      --form F          keys: ps_mpi_sort_keys (default); keys_v:\n"
"                        ps_mpi_sort_keys_v; pairs: ps_mpi_sort_pairs\n"
"      --value-size N    bytes per value with --form pairs (default 8)\n"
"      --bits B          keys in a narrow range: the hash's low B bits (1 to\n"
"                        63; default every bit of the key)\n"
"  -b, --backend B       sort on backend B on every rank (PORTSORT_BACKEND)\n"
"  -h, --help            show this help\n"
"\n"
"Run at most as many ranks as there are cores, with PORTSORT_THREADS=1 for\n"
"one core per rank.\n",
            ps_cli_type_names());
}

/* Every rank parses the same command line and reaches the same verdict;
 * rank 0 alone says it.  Returns -1 to go on, or the exit status. */
static int parse_bench_args(int argc, char **argv, bench_args *a)
{
    static const struct option opts[] = {
        { "type", required_argument, NULL, 't' },
        { "size", required_argument, NULL, 'n' },
        { "repeats", required_argument, NULL, 'R' },
        { "form", required_argument, NULL, 'f' },
        { "value-size", required_argument, NULL, 'v' },
        { "backend", required_argument, NULL, 'b' },
        { "bits", required_argument, NULL, 'B' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    FILE *err = ps_mpi_cli_rank == 0 ? stderr : NULL;
    size_t v;
    int c;

    a->t = ps_cli_type_by_name("u32");
    a->size = (size_t)1 << 24;
    a->value_size = 8;
    a->bits = 0;
    a->repeats = 5;
    a->form = FORM_KEYS;
    a->backend = NULL;
    optind = 1;
    opterr = ps_mpi_cli_rank == 0;
    while ((c = getopt_long(argc, argv, "b:h", opts, NULL)) != -1) {
        const char *bad = NULL;
        switch (c) {
        case 't':
            a->t = ps_cli_type_by_name(optarg);
            if (a->t == NULL)
                bad = "--type";
            break;
        case 'n':
            if (ps_cli_parse_size(optarg, &a->size) != 0)
                bad = "--size";
            break;
        case 'R':
            if (ps_cli_parse_size(optarg, &v) != 0 || v < 1 || v > 1000)
                bad = "--repeats (1 to 1000)";
            a->repeats = (int)v;
            break;
        case 'f':
            for (a->form = 0; a->form < 3 && strcmp(form_names[a->form], optarg) != 0;
                 a->form++)
                ;
            if (a->form == 3)
                bad = "--form (keys, keys_v or pairs)";
            break;
        case 'v':
            if (ps_cli_parse_size(optarg, &a->value_size) != 0 || a->value_size == 0)
                bad = "--value-size";
            break;
        case 'B':
            if (ps_cli_parse_size(optarg, &v) != 0 || v < 1 || v > 63)
                bad = "--bits (1 to 63)";
            a->bits = (unsigned)v;
            break;
        case 'b': a->backend = optarg; break;
        case 'h':
            if (err)
                usage(stdout);
            return 0;
        default:
            if (err)
                fprintf(err, "see portsort-mpi bench --help\n");
            return 2;
        }
        if (bad != NULL) {
            if (err)
                fprintf(err, "%s: bad value '%s' for %s\n", PS_CLI_NAME, optarg, bad);
            return 2;
        }
    }
    if (optind != argc) {
        if (err)
            fprintf(err, "%s: bench takes no operands ('%s')\n", PS_CLI_NAME, argv[optind]);
        return 2;
    }
    return -1;
}

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Wait for the ranks of the running communicator without taking a core:
 * an MPI_Ibarrier polled every millisecond. */
static void wait_asleep(void)
{
    MPI_Request req;
    int done = 0;
    struct timespec ms = { 0, 1000000 };

    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        nanosleep(&ms, NULL);
    }
}

/* The result is in order: within each rank, and across each boundary
 * with the nearest lower rank that holds a key. */
static int check_sorted(const ps_cli_type *t, const void *keys, size_t n, MPI_Comm comm)
{
    int rank, size, bad = 0;
    uint64_t prev = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = ps_cli_order_key(t, ps_cli_get_bits(t, keys, i));
        bad |= i > 0 && k < prev;
        prev = k;
    }
    /* (has a key, last key) of every rank, and the first key of each. */
    uint64_t *all = malloc(sizeof(uint64_t) * 3 * (size_t)size);
    uint64_t first = n > 0 ? ps_cli_order_key(t, ps_cli_get_bits(t, keys, 0)) : 0;
    uint64_t three[3] = { n > 0, prev, first };
    bad |= all == NULL;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
    if (bad) {
        free(all);
        return 1;
    }
    MPI_Allgather(three, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, comm);
    uint64_t last = 0;
    int seen = 0;
    for (int r = 0; r < size; r++) {
        if (!all[3 * r])
            continue;
        bad |= seen && all[3 * r + 2] < last;
        last = all[3 * r + 1];
        seen = 1;
    }
    free(all);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
    return bad;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One measured point: the distributed sort, and each rank sorting its
 * own share with ps_sort_keys at the same time (no communication): what
 * the machine gives that many concurrent sorts, to read the first
 * against on a machine shared with other work. */
typedef struct point {
    double median, best, local, data, control;
    int failed;
} point;

static double median_of(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* Sort `total` keys over comm (the ranks taking part) `repeats` times. */
static point measure(const bench_args *a, MPI_Comm comm, size_t total)
{
    point pt = { 0, 0, 0, 0, 0, 0 };
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t ks = a->t->size, vs = a->form == FORM_PAIRS ? a->value_size : 0;
    size_t lo = total / (size_t)size * (size_t)rank + total % (size_t)size * (size_t)rank
                / (size_t)size;
    size_t hi = total / (size_t)size * (size_t)(rank + 1)
                + total % (size_t)size * (size_t)(rank + 1) / (size_t)size;
    size_t n = hi - lo, cap = n + n / 8 + 4096, n_out = 0;
    unsigned char *input = malloc(n * ks + 1), *keys = malloc(n * ks + 1);
    unsigned char *vin = malloc(n * vs + 1), *vals = malloc(n * vs + 1);
    unsigned char *out = a->form == FORM_KEYS_V ? malloc(cap * ks + 1) : NULL;
    double *times = malloc(sizeof(double) * 2 * (size_t)a->repeats);
    double *local = times + a->repeats;

    pt.failed = input == NULL || keys == NULL || vin == NULL || vals == NULL || times == NULL
             || (a->form == FORM_KEYS_V && out == NULL);
    MPI_Allreduce(MPI_IN_PLACE, &pt.failed, 1, MPI_INT, MPI_MAX, comm);
    for (size_t i = 0; i < n && !pt.failed; i++) {
        ps_cli_put_bits(a->t, input, i,
                        a->bits > 0 ? mix(lo + i) & ((UINT64_C(1) << a->bits) - 1)
                                    : mix(lo + i));
        for (size_t b = 0; b < vs; b++)
            vin[i * vs + b] = (unsigned char)((lo + i) >> (8 * (b % 8)));
    }
    for (int r = 0; r < a->repeats && !pt.failed; r++) {
        int st;
        memcpy(keys, input, n * ks);
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        st = ps_sort_keys(keys, n, a->t->type, 0);
        local[r] = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &local[r], 1, MPI_DOUBLE, MPI_MAX, comm);
        MPI_Allreduce(MPI_IN_PLACE, &st, 1, MPI_INT, MPI_MAX, comm);
        if (st != PS_OK) {
            if (rank == 0)
                fprintf(stderr, "%s: ps_sort_keys failed: %s\n", PS_CLI_NAME, ps_strerror(st));
            pt.failed = 1;
            break;
        }
        memcpy(keys, input, n * ks);
        memcpy(vals, vin, n * vs);
        MPI_Barrier(comm);
        /* Counting is on around the library call alone: the reductions
         * of this loop (times, statuses, the check) are the tool's. */
        ps_mpi_cli_traffic_start();
        t0 = MPI_Wtime();
        if (a->form == FORM_KEYS)
            st = ps_mpi_sort_keys(comm, keys, n, a->t->type, 0);
        else if (a->form == FORM_KEYS_V)
            st = ps_mpi_sort_keys_v(comm, keys, n, out, cap, &n_out, a->t->type, 0);
        else
            st = ps_mpi_sort_pairs(comm, keys, vals, vs, n, a->t->type, 0);
        double t = MPI_Wtime() - t0;
        ps_mpi_cli_traffic sent = ps_mpi_cli_traffic_stop();
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (st != PS_OK) {
            if (rank == 0)
                fprintf(stderr, "%s: %s failed: %s: %s\n", PS_CLI_NAME, form_funcs[a->form],
                        ps_strerror(st), ps_error_detail());
            pt.failed = 1;
            break;
        }
        if (r == 0 && check_sorted(a->t, a->form == FORM_KEYS_V ? out : keys,
                                   a->form == FORM_KEYS_V ? n_out : n, comm)) {
            if (rank == 0)
                fprintf(stderr, "%s: %s: the result is not sorted\n", PS_CLI_NAME,
                        form_funcs[a->form]);
            pt.failed = 1;
            break;
        }
        times[r] = t;
        double bytes[2] = { sent.data, sent.control };
        MPI_Allreduce(MPI_IN_PLACE, bytes, 2, MPI_DOUBLE, MPI_SUM, comm);
        pt.data = bytes[0] / (double)(total ? total : 1);
        pt.control = bytes[1] / (double)(total ? total : 1);
    }
    if (!pt.failed) {
        pt.median = median_of(times, a->repeats);
        pt.best = times[0];
        pt.local = median_of(local, a->repeats);
    }
    free(input);
    free(keys);
    free(vin);
    free(vals);
    free(out);
    free(times);
    return pt;
}

/* Choose the backend, then measure each point of both scalings and print
 * its line on rank 0.  Returns the exit status, the same on every rank. */
static int run_bench(const bench_args *a)
{
    int rc = 0, root = ps_mpi_cli_rank == 0, P = ps_mpi_cli_size;

    /* The library reads PORTSORT_BACKEND once, on its first call. */
    int bad = a->backend != NULL && setenv("PORTSORT_BACKEND", a->backend, 1) != 0;
    if (ps_mpi_cli_fail(bad, "setenv: %s", strerror(errno)))
        return 1;
    int st = ps_init();
    if (ps_mpi_cli_fail(st != PS_OK, "%s: %s", ps_strerror(st),
                        st != PS_OK ? ps_error_detail() : ""))
        return 1;

    size_t elem = a->t->size + (a->form == FORM_PAIRS ? a->value_size : 0);
    const char *threads = getenv("PORTSORT_THREADS");
    if (root) {
        printf("# portsort-mpi bench: %s, %s keys, %zu in all (strong), %zu per rank "
               "(weak)%s", form_funcs[a->form], a->t->name, a->size,
               a->size / (size_t)P, a->form == FORM_PAIRS ? ", with values" : "");
        if (a->bits > 0)
            printf(", low %u bits", a->bits);
        printf("\n");
        printf("# %d ranks, backend %s, PORTSORT_THREADS=%s, median and best of %d, "
               "libportsort %s\n", P, ps_backend_name(), threads ? threads : "(unset)",
               a->repeats, ps_version());
        printf("%-7s %5s %12s %10s %10s %9s %10s %9s %9s %9s %9s\n", "scaling", "ranks",
               "keys", "median_s", "best_s", "Mkeys/s", "efficiency", "local_s", "data_B/k",
               "min_B/k", "ctrl_B/k");
        ps_cli_flush_stdout();
    }
    for (int weak = 0; weak < 2 && rc == 0; weak++) {
        double t1 = 0;
        for (int k = 1; k <= P && rc == 0; k = k * 2 > P && k < P ? P : k * 2) {
            size_t total = weak ? a->size / (size_t)P * (size_t)k : a->size;
            MPI_Comm comm;
            point pt = { 0, 0, 0, 0, 0, 0 };

            MPI_Comm_split(MPI_COMM_WORLD, ps_mpi_cli_rank < k ? 0 : MPI_UNDEFINED,
                           ps_mpi_cli_rank, &comm);
            if (comm != MPI_COMM_NULL) {
                pt = measure(a, comm, total);
                MPI_Comm_free(&comm);
            }
            wait_asleep();
            /* Rank 0 always takes part: its verdict and figures count. */
            MPI_Bcast(&pt, (int)sizeof pt, MPI_BYTE, 0, MPI_COMM_WORLD);
            if (pt.failed) {
                rc = 1;
                break;
            }
            if (k == 1)
                t1 = pt.median;
            double eff = weak ? t1 / pt.median : t1 / ((double)k * pt.median);
            if (root) {
                printf("%-7s %5d %12zu %10.4f %10.4f %9.1f %10.2f %9.4f %9.3f %9.3f %9.4f\n",
                       weak ? "weak" : "strong", k, total, pt.median, pt.best,
                       (double)total / pt.median / 1e6, eff, pt.local, pt.data,
                       (double)elem * (double)(k - 1) / (double)k, pt.control);
                ps_cli_flush_stdout();
            }
        }
    }
    return rc;
}

int ps_mpi_cli_bench(int argc, char **argv)
{
    bench_args a;
    int rc = parse_bench_args(argc, argv, &a);

    if (rc >= 0)
        return rc;
    return run_bench(&a);
}
