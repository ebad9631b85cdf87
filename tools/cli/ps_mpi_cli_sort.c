/*
 * ps_mpi_cli_sort.c - `portsort-mpi sort`: sort a binary file of keys
 * (and one of values) spread over the ranks, with MPI-IO.
 *
 * Rank r reads keys [n r / P, n (r + 1) / P) of the file with collective
 * reads, the ranks sort them together, and each writes its sorted keys at
 * their place in the output with collective writes: the output is the
 * file `portsort sort` writes, byte for byte.  Keys alone go through
 * ps_mpi_sort_keys_v (each key crosses the network once; rank r's keys
 * land at the sum of the lower ranks' counts); with values,
 * ps_mpi_sort_pairs, in place.
 *
 * Output is all or nothing, as in portsort: rank 0 creates a temporary
 * file beside each output (ps_cli_out_open), every rank writes into it,
 * and rank 0 renames it into place once every rank has written and closed
 * it; any failure removes it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ps_mpi_cli.h"

static void usage(FILE *f)
{
    fprintf(f,
"Usage: mpirun -np P portsort-mpi sort --type T [OPTION]... FILE -o OUT\n"
"Sort the keys of FILE, a little-endian binary array of T, over the P ranks\n"
"and write them to OUT: the same file as\n"
"`portsort sort --binary --type T FILE -o OUT`.\n"
"Every rank reads and writes its share of the files with MPI-IO.\n"
"\n"
"      --type T          key type: %s\n"
"      --binary          accepted as portsort sort takes it (FILE is binary)\n"
"  -r, --descending, --reverse  largest first (still stable)\n"
"  -o, --output OUT      the sorted keys (required; may be FILE)\n"
"  -b, --backend B       sort on backend B on every rank (PORTSORT_BACKEND)\n"
"      --values VFILE    sort VFILE with the keys, N bytes per key\n"
"      --value-size N    bytes per value\n"
"      --values-out VOUT where the sorted values go (required with --values)\n"
"  -h, --help            show this help\n"
"\n"
"OUT is written to a temporary file and renamed into place only when every\n"
"rank has succeeded.  Exit status, the same on every rank: 0 done, 1 bad\n"
"input or failed sort (said once, by the lowest rank that saw it), 2 bad\n"
"usage.\n",
            ps_cli_type_names());
}

enum { OPT_TYPE = 256, OPT_VALUES, OPT_VALUE_SIZE, OPT_VALUES_OUT, OPT_BINARY };

typedef struct sort_args {
    const ps_cli_type *t;
    unsigned flags;
    const char *in, *out, *vpath, *voutpath, *backend;
    int nin;                /* operands: the input files named */
    size_t value_size;
} sort_args;

/* Every rank parses the same command line and reaches the same verdict;
 * rank 0 alone says it.  Returns -1 to go on, or the exit status. */
static int parse_sort_args(int argc, char **argv, sort_args *a)
{
    static const struct option opts[] = {
        { "type", required_argument, NULL, OPT_TYPE },
        { "binary", no_argument, NULL, OPT_BINARY },
        { "descending", no_argument, NULL, 'r' },
        { "reverse", no_argument, NULL, 'r' },
        { "output", required_argument, NULL, 'o' },
        { "backend", required_argument, NULL, 'b' },
        { "values", required_argument, NULL, OPT_VALUES },
        { "value-size", required_argument, NULL, OPT_VALUE_SIZE },
        { "values-out", required_argument, NULL, OPT_VALUES_OUT },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    FILE *err = ps_mpi_cli_rank == 0 ? stderr : NULL;
    int c;

    memset(a, 0, sizeof *a);
    optind = 1;
    opterr = ps_mpi_cli_rank == 0;
    while ((c = getopt_long(argc, argv, "ro:b:h", opts, NULL)) != -1) {
        switch (c) {
        case OPT_BINARY: break;     /* the only input there is, as portsort's */
        case OPT_TYPE:
            a->t = ps_cli_type_by_name(optarg);
            if (a->t == NULL) {
                if (err)
                    fprintf(err, "%s: unknown type '%s' (one of %s)\n", PS_CLI_NAME,
                            optarg, ps_cli_type_names());
                return 2;
            }
            break;
        case 'r': a->flags |= PS_DESCENDING; break;
        case 'o': a->out = optarg; break;
        case 'b': a->backend = optarg; break;
        case OPT_VALUES: a->vpath = optarg; break;
        case OPT_VALUES_OUT: a->voutpath = optarg; break;
        case OPT_VALUE_SIZE:
            if (ps_cli_parse_size(optarg, &a->value_size) != 0 || a->value_size == 0) {
                if (err)
                    fprintf(err, "%s: --value-size wants a byte count >= 1, not '%s'\n",
                            PS_CLI_NAME, optarg);
                return 2;
            }
            break;
        case 'h':
            if (err)
                usage(stdout);
            return 0;
        default:
            if (err)
                fprintf(err, "see portsort-mpi sort --help\n");
            return 2;
        }
    }
    a->nin = argc - optind;
    a->in = a->nin > 0 ? argv[optind] : NULL;
    return -1;
}

/* Refuse what cannot be sorted, before any file is opened: the same
 * verdict on every rank, said by rank 0.  Returns 0, or the exit
 * status. */
static int validate_sort_args(const sort_args *a)
{
    const char *bad = NULL;

    if (a->t == NULL)
        bad = "sort needs --type (see portsort-mpi sort --help)";
    else if (a->nin != 1)
        bad = "sort needs exactly one input FILE (standard input cannot be shared by ranks)";
    else if (a->out == NULL || strcmp(a->out, "-") == 0)
        bad = "sort needs -o OUT, a file (every rank writes its part of it)";
    else if (a->vpath == NULL && (a->value_size != 0 || a->voutpath != NULL))
        bad = "--value-size and --values-out need --values";
    else if (a->vpath != NULL && (a->value_size == 0 || a->voutpath == NULL))
        bad = "--values needs --value-size and --values-out (which may name VFILE)";
    else if (a->vpath != NULL && (strcmp(a->voutpath, "-") == 0 ||
                                  ps_cli_same_file(a->in, a->vpath, STDIN_FILENO)))
        bad = "the keys and the values must be different files";
    /* Refused before anything is written: two outputs on one name would
     * leave only the last one there. */
    else if (a->vpath != NULL && ps_cli_same_file(a->out, a->voutpath, STDOUT_FILENO))
        bad = "the keys and the values must be different files (-o and --values-out "
              "are the same file)";
    if (bad != NULL) {
        if (ps_mpi_cli_rank == 0)
            fprintf(stderr, "%s: %s\n", PS_CLI_NAME, bad);
        return 2;
    }
    return 0;
}

/* Why an MPI-IO call failed, in the words of strerror where MPI has a
 * class for it. */
static const char *io_reason(int rc, char *buf)
{
    int cls = 0, len = 0;

    MPI_Error_class(rc, &cls);
    if (cls == MPI_ERR_NO_SUCH_FILE)
        return strerror(ENOENT);
    if (cls == MPI_ERR_ACCESS)
        return strerror(EACCES);
    if (cls == MPI_ERR_NO_SPACE)
        return strerror(ENOSPC);
    if (cls == MPI_ERR_READ_ONLY)
        return strerror(EROFS);
    if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS)
        return "MPI-IO error";
    return buf;
}

/* 1 after a message (on every rank, said once) when variable `name` is
 * set but not a whole number from lo to hi: the library's knobs, which it
 * would refuse with PS_ERR_INVALID_ARG alone, without saying which. */
static int bad_knob(const char *name, unsigned long long lo, unsigned long long hi)
{
    const char *m = getenv(name);
    int bad = m != NULL && m[0] != '\0'
              && (strspn(m, "0123456789") != strlen(m) || strlen(m) > 10
                  || strtoull(m, NULL, 10) < lo || strtoull(m, NULL, 10) > hi);

    return ps_mpi_cli_fail(bad, "%s=%.64s: invalid value (accepted: a whole number from "
                           "%llu to %llu)", name, bad ? m : "", lo, hi);
}

/* Bytes per collective read or write call and rank, at most 1 GiB (MPI
 * counts are ints); PORTSORT_MPI_IO_CHUNK lowers it, so that the tests
 * run small files through several rounds.  The smallest over the ranks,
 * so that all make the same number of calls.  A malformed value, or a
 * malformed knob of the library (PORTSORT_MPI_MAX_MSG,
 * PORTSORT_MPI_GATHER_MAX, PORTSORT_MPI_TRACE), fails on every rank with
 * a message instead of falling back to the default.  Returns 0, or 1
 * after the message. */
static int io_chunk(size_t *chunk)
{
    const char *s = getenv("PORTSORT_MPI_IO_CHUNK");
    unsigned long long v = 1ull << 30;
    size_t c = 0;
    int bad = s != NULL && s[0] != '\0' && (ps_cli_parse_size(s, &c) != 0 || c == 0);

    if (ps_mpi_cli_fail(bad, "PORTSORT_MPI_IO_CHUNK=%.64s: invalid value (accepted: a "
                        "size in bytes of 1 or more, such as 4096, 64K or 2^20; at most "
                        "1 GiB is used)", bad ? s : ""))
        return 1;
    if (bad_knob("PORTSORT_MPI_MAX_MSG", 1, INT_MAX)
        || bad_knob("PORTSORT_MPI_GATHER_MAX", 0, 65536)
        || bad_knob("PORTSORT_MPI_TRACE", 0, 1))
        return 1;
    if (s != NULL && s[0] != '\0' && ps_cli_parse_size(s, &c) == 0 && c < v)
        v = c;
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    *chunk = (size_t)v;
    return 0;
}

/* Read or write `bytes` bytes at byte `off` of fh with collective calls of
 * at most `chunk` bytes: every rank makes as many calls as the rank with
 * the most bytes, some with nothing, and goes on after an error so that
 * none is left waiting.  Returns MPI_SUCCESS, the first MPI error, or
 * MPI_ERR_IO for a short read (the file changed). */
static int io_all(MPI_File fh, int write, MPI_Offset off, unsigned char *buf, size_t bytes,
                  size_t chunk)
{
    unsigned long long most = bytes;
    unsigned char dummy = 0;
    int first = MPI_SUCCESS;

    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    for (unsigned long long done = 0; done < most; done += chunk) {
        size_t count = done < bytes ? (bytes - done < chunk ? bytes - done : chunk) : 0;
        unsigned char *p = count > 0 ? buf + done : &dummy;
        MPI_Status status;
        int rc, got = 0;

        if (write)
            rc = MPI_File_write_at_all(fh, off + (MPI_Offset)done, p, (int)count, MPI_BYTE,
                                       &status);
        else
            rc = MPI_File_read_at_all(fh, off + (MPI_Offset)done, p, (int)count, MPI_BYTE,
                                      &status);
        if (rc == MPI_SUCCESS && (MPI_Get_count(&status, MPI_BYTE, &got) != MPI_SUCCESS ||
                                  got != (int)count))
            rc = MPI_ERR_IO;
        if (first == MPI_SUCCESS)
            first = rc;
    }
    return first;
}

/* Everything one run holds, released by sort_free. */
typedef struct sort_run {
    MPI_File in, vin, out[2];
    ps_cli_out o[2];        /* rank 0: the outputs being written */
    size_t nout;
    unsigned char *keys, *values, *sorted;
} sort_run;

static void sort_free(sort_run *s)
{
    for (int i = 0; i < 2; i++)
        if (s->out[i] != MPI_FILE_NULL)
            MPI_File_close(&s->out[i]);
    if (s->in != MPI_FILE_NULL)
        MPI_File_close(&s->in);
    if (s->vin != MPI_FILE_NULL)
        MPI_File_close(&s->vin);
    for (size_t i = 0; i < s->nout; i++)
        ps_cli_out_discard(&s->o[i]);
    free(s->keys);
    free(s->values);
    free(s->sorted);
}

/* Open `path` for reading on every rank and learn its size.  Returns 0,
 * or 1 after the failure was agreed and said. */
static int open_input(const char *path, MPI_File *fh, MPI_Offset *size)
{
    char why[MPI_MAX_ERROR_STRING];
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, fh);

    if (rc == MPI_SUCCESS)
        rc = MPI_File_get_size(*fh, size);
    return ps_mpi_cli_fail(rc != MPI_SUCCESS, "cannot read %s: %s", path,
                           rc != MPI_SUCCESS ? io_reason(rc, why) : "");
}

/* A buffer of n elements of es bytes (never NULL, so that a rank with no
 * share still has somewhere to point). */
static unsigned char *alloc_elems(size_t n, size_t es)
{
    return n > SIZE_MAX / es ? NULL : malloc(n * es > 0 ? n * es : 1);
}

/* Rank 0 creates the temporary outputs; every rank opens them. */
static int open_outputs(const sort_args *a, sort_run *s)
{
    const char *paths[2] = { a->out, a->voutpath };
    size_t count = a->vpath != NULL ? 2 : 1;
    int failed = 0;

    if (ps_mpi_cli_rank == 0)
        for (; s->nout < count && !failed; s->nout++)
            failed = ps_cli_out_open(&s->o[s->nout], paths[s->nout]) != 0;
    if (ps_mpi_cli_fail(failed, NULL))
        return 1;
    for (size_t i = 0; i < count; i++) {
        /* The file rank 0 made (or, for a target that is not a regular
         * file, the target itself), by name to every rank. */
        char name[PATH_MAX] = "";
        char why[MPI_MAX_ERROR_STRING];
        int rc;

        if (ps_mpi_cli_rank == 0) {
            const char *p = s->o[i].direct ? s->o[i].path : s->o[i].tmp;
            if (strlen(p) < sizeof name)
                strcpy(name, p);
        }
        MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
        rc = name[0] == '\0' ? MPI_ERR_BAD_FILE
           : MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY | MPI_MODE_CREATE,
                           MPI_INFO_NULL, &s->out[i]);
        if (ps_mpi_cli_fail(rc != MPI_SUCCESS, "cannot write %s: %s", paths[i],
                            rc != MPI_SUCCESS ? io_reason(rc, why) : ""))
            return 1;
    }
    return 0;
}

/* The keys (with the values) sorted over the ranks: into s->sorted with
 * *n_out keys at global index *at, or in place (s->keys, s->values) at
 * the input's own index.  Returns 0, or 1 after the failure was said. */
static int sort_keys(const sort_args *a, sort_run *s, size_t n, size_t *n_out,
                     unsigned long long *at)
{
    int st;

    if (a->vpath != NULL) {
        st = ps_mpi_sort_pairs(MPI_COMM_WORLD, s->keys, s->values, a->value_size, n,
                               a->t->type, a->flags);
        *n_out = n;
    } else {
        /* Room for the rank's share and a little more: buckets come out
         * within a few percent of even.  If some rank needs more, every
         * rank learns how much, and the second call gets it. */
        size_t cap = n + n / 16 + 1024;
        s->sorted = alloc_elems(cap, a->t->size);
        st = s->sorted == NULL ? PS_ERR_NO_MEMORY : PS_OK;
        if (ps_mpi_cli_fail(st != PS_OK, "out of memory for %zu keys", cap))
            return 1;
        st = ps_mpi_sort_keys_v(MPI_COMM_WORLD, s->keys, n, s->sorted, cap, n_out,
                                a->t->type, a->flags);
        if (st == PS_ERR_TOO_LARGE) {
            unsigned char *p = *n_out > cap ? realloc(s->sorted, *n_out * a->t->size) : s->sorted;
            if (ps_mpi_cli_fail(p == NULL, "out of memory for %zu keys", *n_out))
                return 1;
            s->sorted = p;
            cap = *n_out;
            st = ps_mpi_sort_keys_v(MPI_COMM_WORLD, s->keys, n, s->sorted, cap, n_out,
                                    a->t->type, a->flags);
        }
    }
    /* The library gives every rank the same status. */
    if (st != PS_OK) {
        if (ps_mpi_cli_rank == 0)
            fprintf(stderr, "%s: sort failed on backend %s: %s: %s\n", PS_CLI_NAME,
                    ps_backend_name(), ps_strerror(st), ps_error_detail());
        return 1;
    }
    unsigned long long mine = *n_out, below = 0;
    MPI_Exscan(&mine, &below, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    *at = ps_mpi_cli_rank == 0 ? 0 : below;
    return 0;
}

static int run_sort(const sort_args *a, sort_run *s)
{
    size_t ks = a->t->size, vs = a->value_size, chunk = 0;
    char why[MPI_MAX_ERROR_STRING];
    MPI_Offset size = 0, vsize = 0;
    int rc, st;

    if (io_chunk(&chunk))
        return 1;

    /* The library reads PORTSORT_BACKEND once, on its first call. */
    int bad = a->backend != NULL && setenv("PORTSORT_BACKEND", a->backend, 1) != 0;
    if (ps_mpi_cli_fail(bad, "setenv: %s", strerror(errno)))
        return 1;
    st = ps_init();
    if (ps_mpi_cli_fail(st != PS_OK, "%s: %s", ps_strerror(st),
                        st != PS_OK ? ps_error_detail() : ""))
        return 1;

    if (open_input(a->in, &s->in, &size))
        return 1;
    /* The size is the same on every rank, and so is this verdict. */
    if ((unsigned long long)size % ks != 0) {
        if (ps_mpi_cli_rank == 0)
            fprintf(stderr, "%s: %s: size %llu bytes is not a multiple of %zu "
                    "(the size of a %s key)\n", PS_CLI_NAME, a->in,
                    (unsigned long long)size, ks, a->t->name);
        return 1;
    }
    unsigned long long n = (unsigned long long)size / ks;
    if (a->vpath != NULL) {
        if (open_input(a->vpath, &s->vin, &vsize))
            return 1;
        if ((unsigned long long)vsize % vs != 0 || (unsigned long long)vsize / vs != n) {
            if (ps_mpi_cli_rank == 0)
                fprintf(stderr, "%s: %s: size %llu bytes does not hold %llu values of %zu "
                        "bytes each\n", PS_CLI_NAME, a->vpath, (unsigned long long)vsize,
                        n, vs);
            return 1;
        }
    }

    unsigned long long r = (unsigned long long)ps_mpi_cli_rank;
    unsigned long long p = (unsigned long long)ps_mpi_cli_size;
    unsigned long long lo = n / p * r + (n % p) * r / p;
    unsigned long long hi = n / p * (r + 1) + (n % p) * (r + 1) / p;
    size_t share = (size_t)(hi - lo);
    s->keys = alloc_elems(share, ks);
    if (a->vpath != NULL)
        s->values = alloc_elems(share, vs);
    if (ps_mpi_cli_fail(s->keys == NULL || (a->vpath != NULL && s->values == NULL),
                        "out of memory for %zu keys", share))
        return 1;
    rc = io_all(s->in, 0, (MPI_Offset)(lo * ks), s->keys, share * ks, chunk);
    if (rc == MPI_SUCCESS && a->vpath != NULL)
        rc = io_all(s->vin, 0, (MPI_Offset)(lo * vs), s->values, share * vs, chunk);
    if (ps_mpi_cli_fail(rc != MPI_SUCCESS, "cannot read %s: %s", a->in,
                        rc != MPI_SUCCESS ? io_reason(rc, why) : ""))
        return 1;
    MPI_File_close(&s->in);
    if (a->vpath != NULL)
        MPI_File_close(&s->vin);

    size_t n_out = 0;
    unsigned long long at = lo;
    if (sort_keys(a, s, share, &n_out, &at))
        return 1;
    if (open_outputs(a, s))
        return 1;
    rc = io_all(s->out[0], 1, (MPI_Offset)(at * ks), a->vpath ? s->keys : s->sorted,
                n_out * ks, chunk);
    if (rc == MPI_SUCCESS && a->vpath != NULL)
        rc = io_all(s->out[1], 1, (MPI_Offset)(at * vs), s->values, n_out * vs, chunk);
    for (int i = 0; i < 2; i++) {
        int rc2 = s->out[i] != MPI_FILE_NULL ? MPI_File_close(&s->out[i]) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    if (ps_mpi_cli_fail(rc != MPI_SUCCESS, "cannot write %s: %s", a->out,
                        rc != MPI_SUCCESS ? io_reason(rc, why) : ""))
        return 1;
    /* Every rank's data is in the temporary files: rank 0 puts them in
     * place (and says why not). */
    int failed = 0;
    if (ps_mpi_cli_rank == 0) {
        failed = ps_cli_out_commit(s->o, s->nout) != 0;
        s->nout = 0;
    }
    return ps_mpi_cli_fail(failed, NULL);
}

int ps_mpi_cli_sort(int argc, char **argv)
{
    sort_args a;
    sort_run s;
    int rc = parse_sort_args(argc, argv, &a);

    if (rc >= 0)
        return rc;
    rc = validate_sort_args(&a);
    if (rc != 0)
        return rc;
    memset(&s, 0, sizeof s);
    s.in = s.vin = s.out[0] = s.out[1] = MPI_FILE_NULL;
    rc = run_sort(&a, &s);
    sort_free(&s);
    return rc;
}
