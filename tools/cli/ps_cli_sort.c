/*
 * ps_cli_sort.c - `portsort sort`: sort lines of text as `LC_ALL=C sort`
 * does (sort(1)'s keys, ps_cli_keys.c), or by one numeric key of a --type
 * (the radix sort of parsed numbers), or a binary file of keys (--binary),
 * optionally with a file of values.
 *
 * Every check that can fail (sizes, parsing, the backend) happens before
 * any output is opened, and an output that is a file replaces its target
 * only after it is completely written (ps_cli_out_commit), so a failed run
 * changes no file, even when the output is also an input.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ps_cli.h"

static void usage(FILE *f)
{
    fprintf(f,
"Usage: portsort sort [OPTION]... [FILE]...\n"
"Write the lines of the FILEs, concatenated, sorted, to standard output, as\n"
"'LC_ALL=C sort' does: bytewise by default, by sort(1)'s keys with -k.  With\n"
"--type T, by one numeric key parsed as T (the fastest way to sort numbers);\n"
"with --binary, the keys of a little-endian binary array of T.  With no FILE,\n"
"or when FILE is -, read standard input.\n"
"\n"
"  -k, --key KEYDEF      sort by a key: POS1[,POS2], POS = F[.C][OPTS], fields F\n"
"                        and characters C from 1, OPTS of b g n r; repeat for\n"
"                        more keys, most significant first\n"
"  -t, --field-separator SEP  fields are separated by the byte SEP, not by\n"
"                        the empty string before runs of blanks\n"
"  -b, --ignore-leading-blanks  ignore leading blanks of keys\n"
"  -n, --numeric-sort    compare by numeric value (digits, '-', '.')\n"
"  -g, --general-numeric-sort  compare by floating-point value (strtold)\n"
"  -r, --reverse, --descending  reverse the order (still stable)\n"
"  -s, --stable          no last-resort comparison of whole lines\n"
"  -u, --unique          output only the first line of each run of equal keys\n"
"  -c, --check           check that the input is sorted; exit 1 at the first\n"
"                        line out of order, saying which; -C: the same, silent\n"
"  -z, --zero-terminated  lines end with a NUL byte, not a newline\n"
"  -o, --output OUT      write to OUT (may be an input) instead of stdout\n"
"      --head K          write only the first K lines (keys) of the sorted output\n"
"                        (with --type, found without sorting the rest: ps_topk)\n"
"      --type T          parse one numeric key of type T: %s;\n"
"                        -k then names one field, N or N,N\n"
"      --skip-bad        with --type: put lines without a valid key at the end,\n"
"                        in input order, instead of refusing the input\n"
"      --binary          the input is a binary array of --type T keys\n"
"      --text            the input is lines of text (the default)\n"
"  -B, --backend B       use backend B (sets PORTSORT_BACKEND)\n"
"      --parallel N      use N threads (sets PORTSORT_THREADS)\n"
"      --values VFILE    with --type: sort VFILE with the keys: with --binary,\n"
"                        N bytes per key, else one line per key\n"
"      --value-size N    bytes per value (--binary)\n"
"      --values-out VOUT where the sorted values go (required with --values)\n"
"  -S, --buffer-size SIZE  sort in runs of memory SIZE merged through temporary\n"
"                        files, for inputs larger than memory (every form,\n"
"                        --values too; --head stops the last merge after K\n"
"                        lines; -c reads blocks of SIZE/2, and -T and\n"
"                        --batch-size do nothing); SIZE in KiB, or with a\n"
"                        suffix b K M G T,\n"
"                        or %% of the physical memory (at least 64K); without\n"
"                        -S, inputs larger than memory take a quarter of it\n"
"  -T, --temporary-directory DIR  temporary files in DIR (default $TMPDIR or\n"
"                        /tmp); repeat to spread them over several\n"
"      --batch-size N    merge at most N runs at once (default 16, at least 2)\n"
"      --help            show this help\n"
"      --version         show the version\n"
"\n"
"Without --type, the order is sort(1)'s in the C locale: keys compare as\n"
"unsigned bytes (n: as GNU's -n numbers, g: as strtold's values), and lines\n"
"whose keys are equal compare whole, unless -s or -u.  With --type, numbers\n"
"are read the same in every locale: '.' is the decimal point, a leading + is\n"
"allowed, blanks around the key and a CR at the end of the line are ignored;\n"
"f16, bf16 and f32 keys are the numbers rounded to nearest, ties to even, and\n"
"a number beyond the type's range is refused.  Lines are written back\n"
"unchanged; binary keys keep their bits.  An output file is written to a\n"
"temporary file and renamed into place only on success.  Exit status: 0 done\n"
"(or sorted, with -c), 1 bad input, input out of order (-c) or failed sort,\n"
"2 bad usage.\n",
            ps_cli_type_names());
}

/* With --type, the one key must be a whole field, N or N,N: 0 and the
 * 1-based field, or -1. */
static int typed_field(const ps_cli_keys *ks, size_t *field)
{
    const ps_cli_key *k = ks->k;
    if (ks->n == 0) {
        *field = 0;
        return 0;
    }
    if (ks->n > 1 || k->schar != 0 || k->echar != 0 || k->skip_sblanks ||
        k->skip_eblanks || (k->eword != SIZE_MAX && k->eword != k->sword) ||
        k->sword >= (size_t)-1 / 2)
        return -1;
    *field = k->sword + 1;
    return 0;
}

/* A progress line for large inputs when a person is watching stderr. */
#define PS_CLI_PROGRESS_BYTES ((size_t)64 << 20)
static int show_progress;

static void progress(const char *what, size_t n)
{
    if (!show_progress)
        return;
    if (what == NULL)
        fprintf(stderr, "\r%60s\r", "");
    else
        fprintf(stderr, "\r%s: %s %zu lines...%10s", PS_CLI_NAME, what, n, "");
}

static int sort_failed(int st)
{
    fprintf(stderr, "%s: sort failed on backend %s: %s: %s\n", PS_CLI_NAME,
            ps_backend_name(), ps_strerror(st), ps_error_detail());
    return 1;
}

/* The sorted lines of `l` mapped through idx, the permutation: for the keys
 * and for the values of --text --values. */
static int permuted(const ps_cli_lines *from, const uint64_t *idx, size_t n,
                    ps_cli_lines *to)
{
    size_t i;
    memset(to, 0, sizeof *to);
    to->offs = malloc((n ? n : 1) * sizeof *to->offs);
    if (to->offs == NULL) {
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        return -1;
    }
    for (i = 0; i < n; i++)
        to->offs[i] = from->offs[idx[i]];
    to->n = n;
    return 0;
}

/* --head K on text: the first min(K, n) lines of the sorted order of `l`
 * by ps_topk, as line offsets into `ko` (with their keys, for the writer)
 * and, with vl, the lines of the values file that go with them into `vo`.
 * The lines without a valid key (--skip-bad) come after every valid one,
 * so those of them that are still within the first K follow.  Returns
 * PS_OK, a ps_status, or -1 after a message. */
static int head_lines(const ps_cli_lines *l, const ps_cli_lines *vl,
                      const ps_cli_type *t, size_t k, unsigned flags,
                      ps_cli_lines *ko, ps_cli_lines *vo)
{
    size_t m = k < l->n ? k : l->n, i, *idx;
    int st;

    idx = malloc((m ? m : 1) * sizeof *idx);
    ko->keys = malloc((m ? m : 1) * l->key_size);
    ko->offs = malloc((m ? m : 1) * sizeof *ko->offs);
    if (vl != NULL)
        vo->offs = malloc((m ? m : 1) * sizeof *vo->offs);
    if (idx == NULL || ko->keys == NULL || ko->offs == NULL ||
        (vl != NULL && vo->offs == NULL)) {
        free(idx);
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        return -1;
    }
    st = ps_topk(l->keys, NULL, 0, l->n, k, ko->keys, NULL, idx, t->type, flags);
    if (st == PS_OK) {
        for (i = 0; i < m; i++) {
            ko->offs[i] = l->offs[idx[i]];
            if (vl != NULL)
                vo->offs[i] = vl->offs[idx[i]];
        }
        ko->n = m;
        ko->key_size = l->key_size;
        vo->n = vl != NULL ? m : 0;
        /* The refused lines are l's: ko borrows them (see sort_text). */
        ko->bad = l->bad;
        ko->nbad = k - m < l->nbad ? k - m : l->nbad;
    }
    free(idx);
    return st;
}

/* --text: sort the lines of `in` by their key and write them to `outpath`
 * (and with vin, the lines of vin with them to voutpath); with head, only
 * the first *head lines. */
static int sort_text(const ps_cli_input *in, const ps_cli_text *opt, unsigned flags,
                     int check, int unique, const size_t *head, const char *outpath,
                     const ps_cli_input *vin, const char *voutpath)
{
    ps_cli_lines l, vl, ko, vo;
    ps_cli_out out[2];
    size_t i, nout = 0;
    int st, rc = 1;

    memset(&vl, 0, sizeof vl);
    memset(&ko, 0, sizeof ko);
    memset(&vo, 0, sizeof vo);
    show_progress = in->size >= PS_CLI_PROGRESS_BYTES && isatty(STDERR_FILENO);
    progress("parsing", 0);
    if (ps_cli_parse_lines(in, opt, &l) != 0)
        goto done;
    if (check) {
        progress(NULL, 0);
        rc = ps_cli_check_lines(in, opt->t, &l, flags, unique, check == 2, NULL);
        goto done;
    }
    if (l.nbad > 0)
        fprintf(stderr, "%s: %zu line%s without a valid %s key %s put at the end\n",
                PS_CLI_NAME, l.nbad, l.nbad == 1 ? "" : "s", opt->t->name,
                l.nbad == 1 ? "was" : "were");
    progress("sorting", l.n);
    if (vin != NULL) {
        ps_cli_text split = { NULL, -1, 0, 0 };
        if (ps_cli_parse_lines(vin, &split, &vl) != 0 || vl.n != l.n) {
            if (vl.n != l.n)
                fprintf(stderr, "%s: %s has %zu lines but %s has %zu keys\n",
                        PS_CLI_NAME, vin->names[0], vl.n,
                        in->nparts == 1 ? in->names[0] : "the input", l.n);
            goto done;
        }
    }
    if (head != NULL) {
        st = head_lines(&l, vin != NULL ? &vl : NULL, opt->t, *head, flags, &ko, &vo);
        if (st == -1)
            goto done;
    } else if (vin != NULL) {
        /* The lines of both files travel as their line numbers. */
        uint64_t *idx = malloc((l.n ? l.n : 1) * sizeof *idx);
        if (idx == NULL) {
            fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
            goto done;
        }
        for (i = 0; i < l.n; i++)
            idx[i] = i;
        st = ps_sort_pairs(l.keys, idx, sizeof *idx, l.n, opt->t->type, flags);
        if (st == PS_OK && (permuted(&l, idx, l.n, &ko) != 0 ||
                            permuted(&vl, idx, l.n, &vo) != 0))
            st = -1;
        free(idx);
        if (st == -1)
            goto done;
    } else {
        st = ps_sort_pairs(l.keys, l.offs, sizeof *l.offs, l.n, opt->t->type, flags);
    }
    if (st != PS_OK) {
        sort_failed(st);
        goto done;
    }
    progress("writing", l.n);
    if (ps_cli_out_open(&out[nout], outpath) != 0)
        goto done;
    nout++;
    if (head == NULL && vin != NULL) {
        ko.keys = l.keys;       /* sorted with the line numbers */
        ko.key_size = l.key_size;
    }
    if (ps_cli_write_lines(in, head != NULL || vin != NULL ? &ko : &l, unique,
                           &out[0]) != 0)
        goto done;
    if (vin != NULL) {
        if (ps_cli_out_open(&out[nout], voutpath) != 0)
            goto done;
        nout++;
        if (ps_cli_write_lines(vin, &vo, 0, &out[1]) != 0)
            goto done;
    }
    rc = ps_cli_out_commit(out, nout) == 0 ? 0 : 1;
    nout = 0;
done:
    progress(NULL, 0);
    for (i = 0; i < nout; i++)
        ps_cli_out_discard(&out[i]);
    ps_cli_lines_free(&l);
    ps_cli_lines_free(&vl);
    if (head == NULL)
        ko.keys = NULL;         /* l's */
    ko.bad = NULL;              /* l's, with --head */
    ps_cli_lines_free(&ko);
    ps_cli_lines_free(&vo);
    return rc;
}

/* Text without --type: the lines of `in` in sort(1)'s order of the keys
 * `ks` (ps_cli_keys.c), or with `check` (1: say where, 2: silently) the
 * order checked; with head, only the first *head lines. */
static int sort_lines(const ps_cli_input *in, const ps_cli_keys *ks, int check,
                      int unique, const size_t *head, const char *outpath)
{
    ps_cli_text split = { NULL, -1, 0, 0 };
    ps_cli_lines l;
    ps_cli_out out;
    size_t i, m, *perm = NULL;
    uint64_t *sorted = NULL;
    int st, oom = 0, rc = 1, opened = 0;

    show_progress = in->size >= PS_CLI_PROGRESS_BYTES && isatty(STDERR_FILENO);
    progress("reading", 0);
    if (ps_cli_parse_lines(in, &split, &l) != 0)
        goto done;
    if (check) {
        progress(NULL, 0);
        st = ps_cli_keys_check(in, ks, l.offs, l.n, unique, check == 2, NULL);
        oom = st == -1;
        rc = st == 0 ? 0 : 1;
        goto done;
    }
    progress("sorting", l.n);
    perm = malloc((l.n ? l.n : 1) * sizeof *perm);
    sorted = unique ? malloc((l.n ? l.n : 1) * sizeof *sorted) : NULL;
    if (perm == NULL || (unique && sorted == NULL)) {
        oom = 1;
        goto done;
    }
    st = ps_cli_keys_sort(in, l.offs, l.n, ks, perm);
    if (st == -1) {
        oom = 1;
        goto done;
    }
    if (st != PS_OK) {
        sort_failed(st);
        goto done;
    }
    if (unique) {
        /* The first line of each run of equal keys (equal to the last line
         * written, as sort(1) compares). */
        for (i = m = 0; i < l.n; i++) {
            uint64_t off = l.offs[perm[i]];
            if (m > 0 && ps_cli_keys_compare(in, ks, sorted[m - 1], off, 0, &oom) == 0)
                continue;
            if (oom)
                goto done;
            sorted[m++] = off;
        }
        free(l.offs);
        l.offs = sorted;
        sorted = NULL;
    } else {
        /* The writer's threads read the offsets through the permutation. */
        m = l.n;
        l.perm = perm;
    }
    if (head != NULL && *head < m)
        m = *head;
    l.n = m;
    progress("writing", l.n);
    if (ps_cli_out_open(&out, outpath) != 0)
        goto done;
    opened = 1;
    if (ps_cli_write_lines(in, &l, 0, &out) != 0)
        goto done;
    opened = 0;
    rc = ps_cli_out_commit(&out, 1) == 0 ? 0 : 1;
done:
    progress(NULL, 0);
    if (oom)
        fprintf(stderr, "%s: out of memory for %zu lines\n", PS_CLI_NAME, l.n);
    if (opened)
        ps_cli_out_discard(&out);
    ps_cli_lines_free(&l);
    free(perm);
    free(sorted);
    return rc;
}

/* Binary: keys (the input buffer, sorted in place) and optional values;
 * with head, only the first *head of them, by ps_topk into new buffers. */
static int sort_binary(ps_cli_input *in, const ps_cli_type *t, unsigned flags,
                       const size_t *head, const char *outpath, ps_cli_input *vin,
                       size_t value_size, const char *voutpath)
{
    ps_cli_out out[2];
    size_t n, nout = 0, i, m;
    unsigned char *kout = NULL, *vout = NULL;
    int st, rc = 1;
    const char *name = in->nparts == 1 ? in->names[0] : "the input";

    if (in->size % t->size != 0) {
        fprintf(stderr, "%s: %s: size %zu bytes is not a multiple of %zu "
                "(the size of a %s key)\n", PS_CLI_NAME, name, in->size, t->size,
                t->name);
        return 1;
    }
    n = in->size / t->size;
    if (vin != NULL) {
        /* Compared by division: n * value_size may overflow. */
        if (vin->size % value_size != 0 || vin->size / value_size != n) {
            fprintf(stderr, "%s: %s: size %zu bytes does not hold %zu values of %zu "
                    "bytes each\n", PS_CLI_NAME, vin->names[0], vin->size, n, value_size);
            return 1;
        }
    }
    m = head != NULL && *head < n ? *head : n;
    if (head != NULL) {
        /* m * size cannot overflow: m <= n, whose keys and values are read. */
        kout = malloc(m ? m * t->size : 1);
        vout = vin != NULL ? malloc(m ? m * value_size : 1) : NULL;
        if (kout == NULL || (vin != NULL && vout == NULL)) {
            fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
            goto done;
        }
        st = ps_topk(in->data, vin != NULL ? vin->data : NULL, value_size, n,
                     *head, kout, vout, NULL, t->type, flags);
    } else if (vin != NULL) {
        st = ps_sort_pairs(in->data, vin->data, value_size, n, t->type, flags);
    } else {
        st = ps_sort_keys(in->data, n, t->type, flags);
    }
    if (st != PS_OK) {
        rc = sort_failed(st);
        goto done;
    }
    if (ps_cli_out_open(&out[nout], outpath) != 0)
        goto done;
    nout++;
    if (vin != NULL) {
        if (ps_cli_out_open(&out[nout], voutpath) != 0)
            goto done;
        nout++;
    }
    /* Write errors are kept in the output and reported by the commit. */
    ps_cli_out_write(&out[0], kout != NULL ? kout : in->data, m * t->size);
    if (vin != NULL)
        ps_cli_out_write(&out[1], vout != NULL ? vout : vin->data, m * value_size);
    rc = ps_cli_out_commit(out, nout) == 0 ? 0 : 1;
    nout = 0;
done:
    for (i = 0; i < nout; i++)
        ps_cli_out_discard(&out[i]);
    free(kout);
    free(vout);
    return rc;
}

enum { OPT_TYPE = 256, OPT_TEXT, OPT_BINARY, OPT_VALUES, OPT_VALUE_SIZE,
       OPT_VALUES_OUT, OPT_SKIP_BAD, OPT_HEAD, OPT_PARALLEL, OPT_VERSION,
       OPT_CHECK, OPT_HELP, OPT_BATCH, OPT_UNSUPPORTED };

/* At most this many -T directories. */
#define MAX_TMPDIRS 16

/* What the command line asked for. */
typedef struct sort_args {
    ps_cli_text opt;            /* type, field, separator, --skip-bad */
    ps_cli_keys keys;           /* -k, -t: sort(1)'s keys */
    ps_cli_key global;          /* -b, -n, -g, -r: the global ordering */
    const char *backend, *outpath, *vpath, *voutpath;
    char parallel[24];          /* --parallel N as a plain number, or "" */
    int binary, check, unique, stable, has_head;
    size_t head;                /* --head K: K, when has_head */
    unsigned flags;
    size_t value_size;
    size_t buffer;              /* -S in bytes, 0 when not given */
    const char *tmpdirs[MAX_TMPDIRS];
    size_t ntmp;
    size_t batch;               /* --batch-size, 0 when not given */
    char **inputs;
    size_t nin;
} sort_args;

/* -S's SIZE as sort(1) reads it: digits, then b (bytes), K (the default),
 * M, G, T (powers of 1024) or % of the physical memory.  0 and the bytes,
 * or -1. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v, unit = 1024;
    errno = 0;
    if (*s < '0' || *s > '9')
        return -1;
    v = strtoull(s, &end, 10);
    if (errno != 0)
        return -1;
    switch (*end) {
    case '\0': break;
    case 'b': unit = 1; end++; break;
    case 'k': case 'K': end++; break;
    case 'm': case 'M': unit = 1ull << 20; end++; break;
    case 'g': case 'G': unit = 1ull << 30; end++; break;
    case 't': case 'T': unit = 1ull << 40; end++; break;
    case '%': {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages <= 0 || page <= 0 || v > 100)
            return -1;
        unit = (unsigned long long)pages * (unsigned long long)page / 100;
        end++;
        break;
    }
    default: return -1;
    }
    if (*end != '\0' || (unit != 0 && v > (unsigned long long)SIZE_MAX / unit))
        return -1;
    *out = (size_t)(v * unit);
    return 0;
}

/* Read the options into a.  Returns -1 to go on, or the exit status (0
 * after --help, 2 for a bad option, with the reason said). */
static int parse_sort_args(int argc, char **argv, sort_args *a)
{
    static const struct option opts[] = {
        { "type", required_argument, NULL, OPT_TYPE },
        { "text", no_argument, NULL, OPT_TEXT },
        { "binary", no_argument, NULL, OPT_BINARY },
        { "field-separator", required_argument, NULL, 't' },
        { "key", required_argument, NULL, 'k' },
        { "ignore-leading-blanks", no_argument, NULL, 'b' },
        { "numeric-sort", no_argument, NULL, 'n' },
        { "general-numeric-sort", no_argument, NULL, 'g' },
        { "descending", no_argument, NULL, 'r' },
        { "reverse", no_argument, NULL, 'r' },
        { "stable", no_argument, NULL, 's' },
        { "unique", no_argument, NULL, 'u' },
        { "check", optional_argument, NULL, OPT_CHECK },
        { "zero-terminated", no_argument, NULL, 'z' },
        { "skip-bad", no_argument, NULL, OPT_SKIP_BAD },
        { "head", required_argument, NULL, OPT_HEAD },
        { "backend", required_argument, NULL, 'B' },
        { "parallel", required_argument, NULL, OPT_PARALLEL },
        { "output", required_argument, NULL, 'o' },
        { "values", required_argument, NULL, OPT_VALUES },
        { "value-size", required_argument, NULL, OPT_VALUE_SIZE },
        { "values-out", required_argument, NULL, OPT_VALUES_OUT },
        { "help", no_argument, NULL, OPT_HELP },
        { "version", no_argument, NULL, OPT_VERSION },
        /* sort(1)'s options we do not have: refused by name. */
        { "dictionary-order", no_argument, NULL, 'd' },
        { "ignore-case", no_argument, NULL, 'f' },
        { "ignore-nonprinting", no_argument, NULL, 'i' },
        { "month-sort", no_argument, NULL, 'M' },
        { "human-numeric-sort", no_argument, NULL, 'h' },
        { "random-sort", no_argument, NULL, 'R' },
        { "version-sort", no_argument, NULL, 'V' },
        { "merge", no_argument, NULL, 'm' },
        { "buffer-size", required_argument, NULL, 'S' },
        { "temporary-directory", required_argument, NULL, 'T' },
        { "sort", required_argument, NULL, OPT_UNSUPPORTED },
        { "random-source", required_argument, NULL, OPT_UNSUPPORTED },
        { "batch-size", required_argument, NULL, OPT_BATCH },
        { "compress-program", required_argument, NULL, OPT_UNSUPPORTED },
        { "files0-from", required_argument, NULL, OPT_UNSUPPORTED },
        { "debug", no_argument, NULL, OPT_UNSUPPORTED },
        { NULL, 0, NULL, 0 },
    };
    int c, idx;
    const char *why;

    memset(a, 0, sizeof *a);
    a->opt.sep = -1;            /* fields split before runs of blanks */
    a->keys.sep = -1;
    optind = 1;
    while ((c = getopt_long(argc, argv, "t:k:bngrsucCzo:B:dfiMhRVmS:T:", opts, &idx)) != -1) {
        switch (c) {
        case OPT_TYPE:
            a->opt.t = ps_cli_type_by_name(optarg);
            if (a->opt.t == NULL) {
                fprintf(stderr, "%s: unknown type '%s' (one of %s)\n", PS_CLI_NAME,
                        optarg, ps_cli_type_names());
                return 2;
            }
            break;
        case OPT_TEXT: break;
        case OPT_BINARY: a->binary = 1; break;
        case 't':
            if (strlen(optarg) != 1) {
                fprintf(stderr, "%s: the field separator must be one byte, not '%s'\n",
                        PS_CLI_NAME, optarg);
                return 2;
            }
            a->opt.sep = a->keys.sep = (unsigned char)optarg[0];
            break;
        case 'k': {
            ps_cli_key *k = realloc(a->keys.k, (a->keys.n + 1) * sizeof *k);
            if (k == NULL) {
                fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
                return 2;
            }
            a->keys.k = k;
            if (ps_cli_parse_keydef(optarg, &k[a->keys.n], &why) != 0) {
                fprintf(stderr, "%s: invalid key '%s': %s\n", PS_CLI_NAME, optarg, why);
                return 2;
            }
            a->keys.n++;
            break;
        }
        case 'b': a->global.skip_sblanks = a->global.skip_eblanks = a->global.has_opts = 1; break;
        case 'n': a->global.numeric = a->global.has_opts = 1; break;
        case 'g': a->global.general = a->global.has_opts = 1; break;
        case 'r': a->global.reverse = 1; a->flags |= PS_DESCENDING; break;
        case 's': a->stable = 1; break;
        case 'u': a->unique = 1; break;
        case 'c': a->check = 1; break;
        case 'C': a->check = 2; break;
        case OPT_CHECK:
            if (optarg == NULL || strcmp(optarg, "diagnose-first") == 0)
                a->check = 1;
            else if (strcmp(optarg, "quiet") == 0 || strcmp(optarg, "silent") == 0)
                a->check = 2;
            else {
                fprintf(stderr, "%s: --check wants quiet, silent or diagnose-first, "
                        "not '%s'\n", PS_CLI_NAME, optarg);
                return 2;
            }
            break;
        case 'z': ps_cli_eol = '\0'; break;
        case OPT_SKIP_BAD: a->opt.skip_bad = 1; break;
        case OPT_HEAD:
            if (ps_cli_parse_size(optarg, &a->head) != 0) {
                fprintf(stderr, "%s: --head wants a count of lines (keys), such as "
                        "10 or 1M, not '%s'\n", PS_CLI_NAME, optarg);
                return 2;
            }
            a->has_head = 1;
            break;
        case 'B': a->backend = optarg; break;
        case OPT_PARALLEL: {
            size_t t;
            if (ps_cli_parse_size(optarg, &t) != 0 || t == 0) {
                fprintf(stderr, "%s: --parallel wants a number of threads >= 1, "
                        "not '%s'\n", PS_CLI_NAME, optarg);
                return 2;
            }
            /* The library reads a plain number: 1K or 2^3 are ours only. */
            snprintf(a->parallel, sizeof a->parallel, "%zu", t);
            break;
        }
        case 'o': a->outpath = optarg; break;
        case OPT_VALUES: a->vpath = optarg; break;
        case OPT_VALUES_OUT: a->voutpath = optarg; break;
        case OPT_VALUE_SIZE:
            if (ps_cli_parse_size(optarg, &a->value_size) != 0 || a->value_size == 0) {
                fprintf(stderr, "%s: --value-size wants a byte count >= 1, not '%s'\n",
                        PS_CLI_NAME, optarg);
                return 2;
            }
            break;
        case OPT_HELP: usage(stdout); return 0;
        case OPT_VERSION:
            printf("portsort sort (libportsort) %s\n", ps_version());
            return 0;
        case 'S':
            if (parse_size(optarg, &a->buffer) != 0 || a->buffer < (64u << 10)) {
                fprintf(stderr, "%s: -S wants a buffer size of at least 64K "
                        "(digits, then b, K, M, G, T or %%), not '%s'\n",
                        PS_CLI_NAME, optarg);
                return 2;
            }
            break;
        case 'T':
            if (a->ntmp == MAX_TMPDIRS || optarg[0] == '\0') {
                fprintf(stderr, "%s: -T wants a directory (at most %d of them)\n",
                        PS_CLI_NAME, MAX_TMPDIRS);
                return 2;
            }
            a->tmpdirs[a->ntmp++] = optarg;
            break;
        case OPT_BATCH: {
            char *end;
            unsigned long v;
            errno = 0;
            v = strtoul(optarg, &end, 10);
            if (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' ||
                errno != 0 || v < 2 || v > 4096) {
                fprintf(stderr, "%s: --batch-size wants a whole number from 2 to "
                        "4096, not '%s'\n", PS_CLI_NAME, optarg);
                return 2;
            }
            a->batch = (size_t)v;
            break;
        }
        case 'd': case 'f': case 'i': case 'M': case 'h': case 'R': case 'V':
        case 'm': case OPT_UNSUPPORTED:
            if (c == OPT_UNSUPPORTED)
                fprintf(stderr, "%s: sort(1)'s option --%s is not supported\n",
                        PS_CLI_NAME, opts[idx].name);
            else
                fprintf(stderr, "%s: sort(1)'s option -%c is not supported%s\n",
                        PS_CLI_NAME, c, c == 'h' ?
                        " (human numbers; --help shows the options)" : "");
            return 2;
        default:
            fprintf(stderr, "see portsort sort --help\n");
            return 2;
        }
    }
    a->inputs = argv + optind;
    a->nin = (size_t)(argc - optind);
    return -1;
}

/* The memory a new allocation can have without swapping: Linux's
 * MemAvailable (free memory and the page cache it may drop), else the free
 * pages; 0 when neither is known. */
static unsigned long long mem_available(void)
{
    char line[128];
    unsigned long long kb = 0;
    long pages, page;
    FILE *f = fopen("/proc/meminfo", "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    if (kb > 0)
        return kb * 1024;
    pages = sysconf(_SC_AVPHYS_PAGES);
    page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0
           ? (unsigned long long)pages * (unsigned long long)page : 0;
}

/* Without -S, the buffer GNU sort would take by itself: none (0, sort in
 * memory) while the inputs, all regular files, fit about `factor` times
 * over in the memory available, else a quarter of it.  The available
 * memory is mem_available(), or PORTSORT_TEST_AVAIL_MEMORY's bytes (a
 * test hook: tests cannot fill a machine's memory). */
static size_t auto_buffer(const sort_args *a)
{
    static char *stdin_only[] = { "-" };
    char **in = a->nin > 0 ? a->inputs : stdin_only;
    size_t nin = a->nin > 0 ? a->nin : 1, i, factor = a->binary ? 2 : 3;
    unsigned long long total = 0, avail;
    const char *hook = getenv("PORTSORT_TEST_AVAIL_MEMORY");
    struct stat st;

    for (i = 0; i <= nin; i++) {
        const char *p = i < nin ? in[i] : a->vpath;
        if (p == NULL)
            continue;
        if (strcmp(p, "-") == 0 || stat(p, &st) != 0 || !S_ISREG(st.st_mode))
            return 0;           /* a pipe: its size is not known */
        total += (unsigned long long)st.st_size;
    }
    if (hook != NULL && hook[0] >= '0' && hook[0] <= '9') {
        avail = strtoull(hook, NULL, 10);
    } else if ((avail = mem_available()) == 0) {
        return 0;
    }
    if (total <= avail / factor)
        return 0;
    avail /= 4;
    if (avail < (64u << 10))
        avail = 64u << 10;
    return avail > SIZE_MAX ? SIZE_MAX : (size_t)avail;
}

/* Refuse combinations of options that cannot work, saying why: 0 or 2.
 * Standard output becomes the output when -o did not name one.  Every
 * form can be sorted through temporary files (ps_cli_external.c: binary
 * keys and values, text with --type and its values, sort(1)'s keys, -u,
 * --head); -c is checked a block at a time, and -T and --batch-size do
 * nothing there. */
static int validate_sort_args(sort_args *a)
{
    size_t i;
    if (a->ntmp == 0) {
        const char *t = getenv("TMPDIR");
        a->tmpdirs[a->ntmp++] = t != NULL && t[0] != '\0' ? t : "/tmp";
    }
    if (a->batch == 0)
        a->batch = 16;
    if (a->binary) {
        const char *text_only = a->keys.n ? "-k" : a->opt.sep >= 0 ? "-t" :
            a->global.has_opts ? "-b, -n and -g" : a->unique ? "-u" :
            a->check ? "-c" : ps_cli_eol != '\n' ? "-z" : a->opt.skip_bad ?
            "--skip-bad" : NULL;
        if (a->opt.t == NULL) {
            fprintf(stderr, "%s: --binary needs --type (see portsort sort --help)\n",
                    PS_CLI_NAME);
            return 2;
        }
        if (text_only != NULL) {
            fprintf(stderr, "%s: %s %s for text, not --binary\n", PS_CLI_NAME,
                    text_only, strchr(text_only, ',') ? "are" : "is");
            return 2;
        }
    } else if (a->opt.t != NULL) {
        if (typed_field(&a->keys, &a->opt.field) != 0) {
            fprintf(stderr, "%s: with --type, -k names one whole field, N or N,N "
                    "(from 1); without --type, any sort(1) key\n", PS_CLI_NAME);
            return 2;
        }
        if (a->keys.n == 1 && a->keys.k[0].reverse)
            a->flags |= PS_DESCENDING;
    } else {
        if (a->opt.skip_bad || a->vpath != NULL || a->value_size != 0 ||
            a->voutpath != NULL) {
            fprintf(stderr, "%s: %s needs --type: it is for one numeric key\n",
                    PS_CLI_NAME, a->opt.skip_bad ? "--skip-bad" : "--values");
            return 2;
        }
        if (ps_cli_keys_finish(&a->keys, &a->global, a->stable, a->unique) != 0) {
            fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
            return 2;
        }
    }
    if (a->check && (a->outpath != NULL || a->vpath != NULL || a->opt.skip_bad)) {
        fprintf(stderr, "%s: -c cannot be combined with -o, --values or --skip-bad\n",
                PS_CLI_NAME);
        return 2;
    }
    if (a->has_head && (a->check || a->unique)) {
        fprintf(stderr, "%s: --head cannot be combined with %s (%s)\n", PS_CLI_NAME,
                a->check ? "-c" : "-u",
                a->check ? "-c reads every line" :
                "the first K unique lines need every run of equal keys; "
                "pipe 'portsort sort -u' through 'head -n K' instead");
        return 2;
    }
    if (a->vpath == NULL && (a->value_size != 0 || a->voutpath != NULL)) {
        fprintf(stderr, "%s: --value-size and --values-out need --values\n", PS_CLI_NAME);
        return 2;
    }
    if (a->vpath != NULL && (a->unique || a->opt.skip_bad)) {
        fprintf(stderr, "%s: --values cannot be combined with -u or --skip-bad\n",
                PS_CLI_NAME);
        return 2;
    }
    if (!a->binary && a->value_size != 0) {
        fprintf(stderr, "%s: --value-size is for --binary files; with text each value "
                "is a line\n", PS_CLI_NAME);
        return 2;
    }
    if (a->vpath != NULL && a->binary && a->value_size == 0) {
        fprintf(stderr, "%s: --values needs --value-size in binary mode\n", PS_CLI_NAME);
        return 2;
    }
    /* Files are only ever replaced when an output option names them. */
    if (a->vpath != NULL && a->voutpath == NULL) {
        fprintf(stderr, "%s: --values needs --values-out (which may name VFILE "
                "to sort it in place)\n", PS_CLI_NAME);
        return 2;
    }
    if (a->outpath == NULL)
        a->outpath = "-";
    if (a->vpath != NULL) {
        static char *stdin_only[] = { "-" };
        char **inputs = a->nin > 0 ? a->inputs : stdin_only;
        size_t nin = a->nin > 0 ? a->nin : 1;
        for (i = 0; i < nin && !ps_cli_same_file(inputs[i], a->vpath, STDIN_FILENO); i++)
            ;
        if (i < nin) {
            fprintf(stderr, "%s: the keys and the values must be different files "
                    "(%s is %s)\n", PS_CLI_NAME, a->vpath, inputs[i]);
            return 2;
        }
        /* Refused before anything is written: two outputs on one name
         * would leave only the last one there. */
        if (ps_cli_same_file(a->outpath, a->voutpath, STDOUT_FILENO)) {
            fprintf(stderr, "%s: the keys and the values must be different files "
                    "(-o %s and --values-out %s are the same file)\n", PS_CLI_NAME,
                    a->outpath, a->voutpath);
            return 2;
        }
    }
    return 0;
}

/* Choose the backend, read the inputs, sort and write: 0 or 1. */
static int run_sort(sort_args *a)
{
    ps_cli_input in, vin;
    uint64_t head = a->has_head ? (uint64_t)a->head : UINT64_MAX;
    int st, rc = 1;

    /* The library reads PORTSORT_BACKEND once, on its first call, so it must
     * be set before anything else touches the library. */
    if ((a->backend != NULL && setenv("PORTSORT_BACKEND", a->backend, 1) != 0) ||
        (a->parallel[0] != '\0' && setenv("PORTSORT_THREADS", a->parallel, 1) != 0)) {
        perror(PS_CLI_NAME ": setenv");
        return 1;
    }
    st = ps_init();
    if (st != PS_OK) {
        fprintf(stderr, "%s: %s: %s\n", PS_CLI_NAME, ps_strerror(st), ps_error_detail());
        return 1;
    }

    memset(&vin, 0, sizeof vin);
    memset(&in, 0, sizeof in);
    if (a->buffer == 0)
        a->buffer = auto_buffer(a);
    if (a->buffer != 0 && a->check)
        return ps_cli_external_check(a->inputs, a->nin,
                                     a->opt.t != NULL ? &a->opt : NULL,
                                     &a->keys, a->flags, a->unique,
                                     a->check == 2, a->buffer);
    if (a->buffer != 0 && a->binary)
        return ps_cli_external_sort(a->inputs, a->nin, a->opt.t, a->flags,
                                    a->buffer, a->tmpdirs, a->ntmp, a->batch,
                                    a->outpath, a->vpath, a->value_size,
                                    a->voutpath, head);
    if (a->buffer != 0 && a->opt.t == NULL)
        return ps_cli_external_lines(a->inputs, a->nin, &a->keys, a->unique,
                                     a->buffer, a->tmpdirs, a->ntmp, a->batch,
                                     a->outpath, head);
    if (a->buffer != 0)
        return ps_cli_external_text(a->inputs, a->nin, &a->opt, a->flags,
                                    a->unique, a->buffer, a->tmpdirs, a->ntmp,
                                    a->batch, a->outpath, a->vpath,
                                    a->voutpath, head);
    if (ps_cli_read_inputs(a->inputs, a->nin, !a->binary, &in) != 0 ||
        (a->vpath != NULL &&
         ps_cli_read_inputs((char **)&a->vpath, 1, !a->binary, &vin) != 0))
        goto done;
    if (!a->binary && a->opt.t == NULL)
        rc = sort_lines(&in, &a->keys, a->check, a->unique,
                        a->has_head ? &a->head : NULL, a->outpath);
    else if (!a->binary)
        rc = sort_text(&in, &a->opt, a->flags, a->check, a->unique,
                       a->has_head ? &a->head : NULL, a->outpath,
                       a->vpath ? &vin : NULL, a->voutpath);
    else
        rc = sort_binary(&in, a->opt.t, a->flags, a->has_head ? &a->head : NULL,
                         a->outpath, a->vpath ? &vin : NULL, a->value_size,
                         a->voutpath);
done:
    ps_cli_input_free(&in);
    ps_cli_input_free(&vin);
    return rc;
}

int ps_cli_sort(int argc, char **argv)
{
    sort_args a;
    int rc = parse_sort_args(argc, argv, &a);
    if (rc < 0)
        rc = validate_sort_args(&a);
    if (rc < 0 || (rc == 0 && a.inputs != NULL))
        rc = run_sort(&a);
    free(a.keys.k);
    return rc;
}
