/*
 * ps_cli_bench_options.c - the options of `portsort bench` (those of
 * Yatskov & Mürdter's "Parallel Radix Sort on OpenCL" harness, and more):
 * --help, and the lists of types, datasets, sizes, backends and peers
 * turned into the ps_cli_bench_cfg that every child measures.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "ps_cli_bench_parts.h"

static void usage(FILE *f)
{
    size_t i;
    fprintf(f,
"Usage: portsort bench [OPTION]...\n"
"Measure libportsort against qsort (and the peers built in) on generated\n"
"data; every output is verified.  Default: u32 random keys, n = 2^16, 2^18,\n"
"2^20, 2^22, 2^24, 3 runs each, on the default backend.\n"
"\n"
"  -n, --num-elements N   one size (same as --sizes N)\n"
"  -s, --sizes LIST       sizes: N, 2^K, K1:K2 (2^K1..2^K2) or K1:K2:STEP,\n"
"                         comma-separated, e.g. 13:28 or 1000,2^20\n"
"  -t, --types LIST       key types (or all): %s\n"
"  -b, --backends LIST    backends, each in its own process (or all: every\n"
"                         usable one; default: PORTSORT_BACKEND or auto)\n"
"  -d, --datasets LIST    datasets (or all), NAME or NAME:PARAM:\n",
            ps_cli_type_names());
    for (i = 0; i < ps_cli_ndatasets; i++)
        fprintf(f, "                           %-18s %s\n", ps_cli_datasets[i].name,
                ps_cli_datasets[i].what);
    fprintf(f,
"  -r, --repeats R        timed runs per measurement, after one untimed\n"
"                         warm-up; the median is reported (3)\n"
"      --peers LIST       peers to compare with (all, none):");
    for (i = 0; ps_cli_peers[i] != NULL; i++)
        fprintf(f, " %s", ps_cli_peers[i]->name);
    fprintf(f, "\n"
"      --peer-max-size N  run peers only up to n = N (2^24; qsort is slow)\n"
"      --value-size N     sort pairs: keys with N-byte values (N >= 4), not\n"
"                         keys alone; GB/s then counts the values too\n"
"      --scratch-div D    run the library under a memory limit of\n"
"                         ps_scratch_bytes of the whole array / D (its usual\n"
"                         scratch for that sort; doc/memory.md)\n"
"      --segments SHAPE   sort segments (ps_sort_segments) of a shape,\n"
"                         SHAPE or SHAPE:K, also timing one ps_sort_keys\n"
"                         per segment (portsort-loop), the whole array\n"
"                         unsegmented (portsort-whole) and peers per segment:\n");
    for (i = 0; i < ps_cli_nsegshapes; i++)
        fprintf(f, "                           %-11s %s\n", ps_cli_segshapes[i].name,
                ps_cli_segshapes[i].what);
    fprintf(f,
"      --perf-to-stdout   print every measurement (each run's phases too)\n"
"      --perf-to-csv FILE write the results as CSV to FILE\n"
"      --perf-csv-to-stdout  print CSV on stdout instead of the table\n"
"      --plot DIR         write throughput and speedup charts (PNG, gnuplot)\n"
"  -v, --verbose          say what is measured, run by run, on stderr\n"
"  -h, --help             show this help\n"
"\n"
"Mkeys/s = 10^6 keys per second of the median sort; GB/s = key bytes per\n"
"second (10^9).  Exit status: 0 all verified, 1 a failure, 2 bad usage.\n");
}

/* Split a comma list in place; calls add() for each item. */
static int each_item(char *list, int (*add)(ps_cli_bench_cfg *, char *),
                     ps_cli_bench_cfg *cfg)
{
    char *save = NULL, *item;
    for (item = strtok_r(list, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save))
        if (add(cfg, item) != 0)
            return -1;
    return 0;
}

/* 1, with a message, when a list option already holds PS_CLI_MAX_LIST
 * entries: each refusal says why, so that a long --sizes list is not
 * mistaken for a bad value. */
static int list_full(size_t count, const char *option)
{
    if (count < PS_CLI_MAX_LIST)
        return 0;
    fprintf(stderr, "%s: too many entries for %s (at most %d)\n", PS_CLI_NAME,
            option, PS_CLI_MAX_LIST);
    return 1;
}

static int add_type(ps_cli_bench_cfg *cfg, char *s)
{
    size_t i;
    if (strcmp(s, "all") == 0) {
        for (i = 0; i < ps_cli_ntypes; i++)
            cfg->types[i] = &ps_cli_types[i];
        cfg->ntypes = ps_cli_ntypes;
        return 0;
    }
    if (list_full(cfg->ntypes, "--types"))
        return -1;
    if ((cfg->types[cfg->ntypes] = ps_cli_type_by_name(s)) == NULL) {
        fprintf(stderr, "%s: unknown type '%s' (one of %s)\n", PS_CLI_NAME, s,
                ps_cli_type_names());
        return -1;
    }
    cfg->ntypes++;
    return 0;
}

static int add_dataset(ps_cli_bench_cfg *cfg, char *s)
{
    char *colon = strchr(s, ':');
    size_t i;
    if (strcmp(s, "all") == 0) {
        for (i = 0; i < ps_cli_ndatasets; i++)
            if (add_dataset(cfg, (char *)ps_cli_datasets[i].name) != 0)
                return -1;
        return 0;
    }
    if (colon != NULL)
        *colon = '\0';
    for (i = 0; i < ps_cli_ndatasets && strcmp(ps_cli_datasets[i].name, s) != 0; i++)
        ;
    if (i < ps_cli_ndatasets && list_full(cfg->ndatasets, "--datasets"))
        return -1;
    if (i == ps_cli_ndatasets) {
        fprintf(stderr, "%s: unknown dataset '%s' (see portsort bench --help)\n",
                PS_CLI_NAME, s);
        return -1;
    }
    {
        ps_cli_dataset_sel *d = &cfg->datasets[cfg->ndatasets++];
        d->ds = &ps_cli_datasets[i];
        d->param = d->ds->param;
        if (colon != NULL) {
            char *end;
            unsigned long v = strtoul(colon + 1, &end, 10);
            if (*end != '\0' || end == colon + 1 || v > 64) {
                fprintf(stderr, "%s: bad parameter in dataset '%s:%s'\n", PS_CLI_NAME,
                        s, colon + 1);
                return -1;
            }
            d->param = (unsigned)v;
        }
        if (d->param != d->ds->param)
            snprintf(d->label, sizeof d->label, "%s:%u", d->ds->name, d->param);
        else
            snprintf(d->label, sizeof d->label, "%s", d->ds->name);
    }
    return 0;
}

static int add_size(ps_cli_bench_cfg *cfg, char *s)
{
    unsigned a, b, step = 1;
    int used = 0;
    char *colon = strchr(s, ':');
    if (colon != NULL) {
        /* K1:K2[:STEP] - exponents of two, the sweep of that harness. */
        if (sscanf(s, "%u:%u%n", &a, &b, &used) != 2 ||
            (s[used] == ':' && sscanf(s + used + 1, "%u", &step) != 1) ||
            (s[used] != ':' && s[used] != '\0') || a > b ||
            b >= sizeof(size_t) * 8 || step == 0) {
            fprintf(stderr, "%s: bad size range '%s' (want K1:K2 or K1:K2:STEP)\n",
                    PS_CLI_NAME, s);
            return -1;
        }
        for (; a <= b; a += step) {
            if (list_full(cfg->nsizes, "--sizes"))
                return -1;
            cfg->sizes[cfg->nsizes++] = (size_t)1 << a;
        }
        return 0;
    }
    if (list_full(cfg->nsizes, "--sizes"))
        return -1;
    if (ps_cli_parse_size(s, &cfg->sizes[cfg->nsizes]) != 0 ||
        cfg->sizes[cfg->nsizes] == 0) {
        fprintf(stderr, "%s: bad size '%s' (want N >= 1, 2^K, or K1:K2)\n",
                PS_CLI_NAME, s);
        return -1;
    }
    cfg->nsizes++;
    return 0;
}

static int add_backend(ps_cli_bench_cfg *cfg, char *s)
{
    if (list_full(cfg->nbackends, "--backends"))
        return -1;
    if (strcmp(s, "all") == 0) {
        cfg->nbackends += ps_cli_bench_usable_backends(cfg->backends + cfg->nbackends,
                                                       PS_CLI_MAX_LIST - cfg->nbackends);
        return 0;
    }
    cfg->backends[cfg->nbackends++] = strcmp(s, "default") == 0 ? NULL : s;
    return 0;
}

static int add_peer(ps_cli_bench_cfg *cfg, char *s)
{
    size_t i;
    if (strcmp(s, "none") == 0)
        return 0;
    for (i = 0; ps_cli_peers[i] != NULL; i++)
        if (strcmp(s, "all") == 0 || strcmp(s, ps_cli_peers[i]->name) == 0) {
            if (cfg->npeers < PS_CLI_MAX_LIST)
                cfg->peers[cfg->npeers++] = ps_cli_peers[i];
            if (strcmp(s, "all") != 0)
                return 0;
        }
    if (strcmp(s, "all") == 0)
        return 0;
    fprintf(stderr, "%s: unknown peer '%s' (see portsort bench --help)\n", PS_CLI_NAME, s);
    return -1;
}

enum { OPT_PEERS = 256, OPT_PEER_MAX, OPT_PERF_STDOUT, OPT_PERF_CSV, OPT_CSV_STDOUT,
       OPT_PLOT, OPT_VALUE_SIZE, OPT_SEGMENTS, OPT_SCRATCH_DIV };

/* --segments SHAPE or SHAPE:K. */
static int set_segments(ps_cli_bench_cfg *cfg, const char *arg)
{
    char name[16], *colon, *end;
    unsigned long k;
    snprintf(name, sizeof name, "%s", arg);
    colon = strchr(name, ':');
    if (colon != NULL)
        *colon = '\0';
    cfg->seg = ps_cli_segshape_by_name(name);
    if (cfg->seg == NULL) {
        fprintf(stderr, "%s: unknown segment shape '%s' (see portsort bench --help)\n",
                PS_CLI_NAME, name);
        return -1;
    }
    cfg->seg_param = cfg->seg->param;
    if (colon != NULL) {
        k = strtoul(colon + 1, &end, 10);
        if (*end != '\0' || end == colon + 1 || k < 1 || k > 1000000) {
            fprintf(stderr, "%s: bad parameter in --segments '%s' (1 to 1000000)\n",
                    PS_CLI_NAME, arg);
            return -1;
        }
        cfg->seg_param = (unsigned)k;
    }
    if (cfg->seg_param != cfg->seg->param)
        snprintf(cfg->seg_label, sizeof cfg->seg_label, "%s:%u", name, cfg->seg_param);
    else
        snprintf(cfg->seg_label, sizeof cfg->seg_label, "%s", name);
    return 0;
}

int ps_cli_bench_parse(int argc, char **argv, ps_cli_bench_args *a, ps_cli_bench_cfg *cfg)
{
    static const struct option opts[] = {
        { "num-elements", required_argument, NULL, 'n' },
        { "sizes", required_argument, NULL, 's' },
        { "types", required_argument, NULL, 't' },
        { "backends", required_argument, NULL, 'b' },
        { "datasets", required_argument, NULL, 'd' },
        { "repeats", required_argument, NULL, 'r' },
        { "peers", required_argument, NULL, OPT_PEERS },
        { "peer-max-size", required_argument, NULL, OPT_PEER_MAX },
        { "perf-to-stdout", no_argument, NULL, OPT_PERF_STDOUT },
        { "perf-to-csv", required_argument, NULL, OPT_PERF_CSV },
        { "perf-csv-to-stdout", no_argument, NULL, OPT_CSV_STDOUT },
        { "plot", required_argument, NULL, OPT_PLOT },
        { "value-size", required_argument, NULL, OPT_VALUE_SIZE },
        { "segments", required_argument, NULL, OPT_SEGMENTS },
        { "scratch-div", required_argument, NULL, OPT_SCRATCH_DIV },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    memset(a, 0, sizeof *a);
    memset(cfg, 0, sizeof *cfg);
    cfg->repeats = 3;
    cfg->peer_max = (size_t)1 << 24;
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:s:t:b:d:r:vh", opts, NULL)) != -1) {
        switch (c) {
        case 'n': case 's': a->sizes = optarg; break;
        case 't': a->types = optarg; break;
        case 'b': a->backends = optarg; break;
        case 'd': a->datasets = optarg; break;
        case 'r':
            cfg->repeats = atoi(optarg);
            if (cfg->repeats < 1 || cfg->repeats > PS_CLI_MAX_REPEATS) {
                fprintf(stderr, "%s: --repeats wants 1 to %d\n", PS_CLI_NAME,
                        PS_CLI_MAX_REPEATS);
                return 2;
            }
            break;
        case OPT_PEERS: a->peers = optarg; break;
        case OPT_PEER_MAX:
            if (ps_cli_parse_size(optarg, &cfg->peer_max) != 0) {
                fprintf(stderr, "%s: bad --peer-max-size '%s'\n", PS_CLI_NAME, optarg);
                return 2;
            }
            break;
        case OPT_PERF_STDOUT: a->perf_stdout = 1; break;
        case OPT_PERF_CSV: a->csv_path = optarg; break;
        case OPT_CSV_STDOUT: a->csv_stdout = 1; break;
        case OPT_PLOT: a->plot_dir = optarg; break;
        case OPT_VALUE_SIZE:
            /* Values carry their input index, which needs 4 bytes. */
            if (ps_cli_parse_size(optarg, &cfg->value_size) != 0 || cfg->value_size < 4) {
                fprintf(stderr, "%s: --value-size wants a byte count >= 4\n", PS_CLI_NAME);
                return 2;
            }
            break;
        case OPT_SEGMENTS:
            if (set_segments(cfg, optarg) != 0)
                return 2;
            break;
        case OPT_SCRATCH_DIV:
            if (ps_cli_parse_size(optarg, &cfg->scratch_div) != 0 ||
                cfg->scratch_div < 1) {
                fprintf(stderr, "%s: --scratch-div wants a whole number >= 1\n",
                        PS_CLI_NAME);
                return 2;
            }
            break;
        case 'v': cfg->verbose = 1; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "see portsort bench --help\n");
            return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "%s: bench takes no operands ('%s')\n", PS_CLI_NAME, argv[optind]);
        return 2;
    }
    return -1;
}

int ps_cli_bench_validate(ps_cli_bench_args *a, ps_cli_bench_cfg *cfg)
{
    size_t b;
    if (each_item(a->types ? a->types : (char[]){ "u32" }, add_type, cfg) != 0 ||
        each_item(a->datasets ? a->datasets : (char[]){ "random" }, add_dataset, cfg) != 0 ||
        each_item(a->sizes ? a->sizes : (char[]){ "16:24:2" }, add_size, cfg) != 0 ||
        each_item(a->peers ? a->peers : (char[]){ "all" }, add_peer, cfg) != 0)
        return 2;
    for (b = 0; cfg->value_size != 0 && cfg->value_size < 8 && b < cfg->nsizes; b++)
        if (cfg->sizes[b] > 0xFFFFFFFFu) {
            fprintf(stderr, "%s: --value-size under 8 holds no index beyond 2^32 keys\n",
                    PS_CLI_NAME);
            return 2;
        }
    if (a->backends != NULL) {
        if (each_item(a->backends, add_backend, cfg) != 0)
            return 2;
        if (cfg->nbackends == 0) {
            fprintf(stderr, "%s: no usable backend to measure\n", PS_CLI_NAME);
            return 1;
        }
    } else {
        cfg->backends[cfg->nbackends++] = NULL;
    }
    return 0;
}
