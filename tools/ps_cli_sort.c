/*
 * ps_cli_sort.c - `portsort sort`: sort a file of keys, and optionally a
 * file of values with them.
 *
 * Every check that can fail (sizes, parsing, the backend) happens before
 * any output is opened, and the output replaces its target only after it
 * is completely written (ps_cli_out_commit), so a failed run changes no
 * file.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ps_cli.h"

static void usage(FILE *f)
{
    fprintf(f,
"Usage: portsort sort --type T [OPTION]... FILE\n"
"Sort the keys in FILE (a little-endian binary array of T, or one number\n"
"per line with --text) and write them to OUT, or back to FILE.\n"
"\n"
"  -t, --type T          key type: %s\n"
"      --text            FILE has one number per line; so has the output\n"
"  -r, --descending      largest first (still stable)\n"
"  -b, --backend B       use backend B (sets PORTSORT_BACKEND)\n"
"  -o, --output OUT      write the keys to OUT instead of FILE (- for stdout)\n"
"      --values VFILE    sort VFILE with the keys: binary, N bytes per key;\n"
"                        with --text, one line per key\n"
"      --value-size N    bytes per value (binary mode)\n"
"      --values-out VOUT write the values to VOUT instead of VFILE\n"
"  -h, --help            show this help\n"
"\n"
"The output is written to a temporary file and renamed into place only on\n"
"success.  Exit status: 0 done, 1 bad input or failed sort, 2 bad usage.\n",
            ps_cli_type_names());
}

/* Lines of a text file, split in place (the newlines become NULs). */
typedef struct lines {
    char **start;
    size_t *len;
    size_t n;
} lines;

static int split_lines(ps_cli_buf *b, const char *path, lines *out)
{
    size_t i, n = 0, k = 0;
    char *p = (char *)b->data;
    for (i = 0; i < b->size; i++)
        n += p[i] == '\n';
    if (b->size > 0 && p[b->size - 1] != '\n')
        n++;            /* a last line without its newline */
    out->n = n;
    out->start = malloc((n ? n : 1) * sizeof *out->start);
    out->len = malloc((n ? n : 1) * sizeof *out->len);
    if (out->start == NULL || out->len == NULL) {
        fprintf(stderr, "%s: %s: out of memory\n", PS_CLI_NAME, path);
        return -1;
    }
    for (i = 0; i < b->size; k++) {
        char *nl = memchr(p + i, '\n', b->size - i);
        size_t len = nl ? (size_t)(nl - (p + i)) : b->size - i;
        out->start[k] = p + i;
        out->len[k] = len;
        i += len + 1;
    }
    return 0;
}

/* Parse the lines into keys.  A NUL inside a line would hide the rest of
 * the line from strto*, so it makes the line invalid. */
static int parse_keys(const ps_cli_type *t, const char *path, lines *l,
                      ps_cli_buf *b, void *keys)
{
    size_t k;
    for (k = 0; k < l->n; k++) {
        const char *why = "contains a NUL byte";
        char *s = l->start[k];
        int bad = memchr(s, '\0', l->len[k]) != NULL;
        /* The byte after the line is its newline, or one past the buffer
         * for a last line without one; read_file gave no room for a NUL
         * there, so such a line is copied. */
        if (!bad && s + l->len[k] < (char *)b->data + b->size) {
            s[l->len[k]] = '\0';
            bad = ps_cli_parse(t, s, keys, k, &why) != 0;
        } else if (!bad) {
            char *copy = malloc(l->len[k] + 1);
            if (copy == NULL) {
                fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
                return -1;
            }
            memcpy(copy, s, l->len[k]);
            copy[l->len[k]] = '\0';
            bad = ps_cli_parse(t, copy, keys, k, &why) != 0;
            free(copy);
        }
        if (bad) {
            int shown = l->len[k] > 40 ? 40 : (int)l->len[k];
            fprintf(stderr, "%s: %s:%zu: not a valid %s key (%s): \"%.*s%s\"\n",
                    PS_CLI_NAME, path, k + 1, t->name, why, shown, l->start[k],
                    shown < (int)l->len[k] ? "..." : "");
            return -1;
        }
    }
    return 0;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (strcmp(a, b) == 0)
        return 1;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

enum { OPT_TEXT = 256, OPT_VALUES, OPT_VALUE_SIZE, OPT_VALUES_OUT };

int ps_cli_sort(int argc, char **argv)
{
    static const struct option opts[] = {
        { "type", required_argument, NULL, 't' },
        { "text", no_argument, NULL, OPT_TEXT },
        { "descending", no_argument, NULL, 'r' },
        { "backend", required_argument, NULL, 'b' },
        { "output", required_argument, NULL, 'o' },
        { "values", required_argument, NULL, OPT_VALUES },
        { "value-size", required_argument, NULL, OPT_VALUE_SIZE },
        { "values-out", required_argument, NULL, OPT_VALUES_OUT },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const ps_cli_type *t = NULL;
    const char *backend = NULL, *outpath = NULL, *vpath = NULL, *voutpath = NULL;
    const char *path;
    int text = 0, c, st, rc = 1;
    unsigned flags = 0;
    size_t value_size = 0, n = 0, i, nout = 0;
    ps_cli_buf kb = { NULL, 0 }, vb = { NULL, 0 };
    lines kl = { NULL, NULL, 0 }, vl = { NULL, NULL, 0 };
    void *keys = NULL;
    size_t *idx = NULL;
    ps_cli_out out[2];

    optind = 1;
    while ((c = getopt_long(argc, argv, "t:rb:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            t = ps_cli_type_by_name(optarg);
            if (t == NULL) {
                fprintf(stderr, "%s: unknown type '%s' (one of %s)\n", PS_CLI_NAME,
                        optarg, ps_cli_type_names());
                return 2;
            }
            break;
        case OPT_TEXT: text = 1; break;
        case 'r': flags |= PS_DESCENDING; break;
        case 'b': backend = optarg; break;
        case 'o': outpath = optarg; break;
        case OPT_VALUES: vpath = optarg; break;
        case OPT_VALUES_OUT: voutpath = optarg; break;
        case OPT_VALUE_SIZE:
            if (ps_cli_parse_size(optarg, &value_size) != 0 || value_size == 0) {
                fprintf(stderr, "%s: --value-size wants a byte count >= 1, not '%s'\n",
                        PS_CLI_NAME, optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "see portsort sort --help\n");
            return 2;
        }
    }
    if (t == NULL || optind != argc - 1) {
        fprintf(stderr, "%s: sort needs --type and exactly one FILE "
                "(see portsort sort --help)\n", PS_CLI_NAME);
        return 2;
    }
    path = argv[optind];
    if (vpath == NULL && (value_size != 0 || voutpath != NULL)) {
        fprintf(stderr, "%s: --value-size and --values-out need --values\n", PS_CLI_NAME);
        return 2;
    }
    if (text && value_size != 0) {
        fprintf(stderr, "%s: --value-size is for binary files; with --text each value "
                "is a line\n", PS_CLI_NAME);
        return 2;
    }
    if (vpath != NULL && !text && value_size == 0) {
        fprintf(stderr, "%s: --values needs --value-size in binary mode\n", PS_CLI_NAME);
        return 2;
    }
    if (outpath == NULL)
        outpath = path;
    if (voutpath == NULL)
        voutpath = vpath;
    if (vpath != NULL && (same_file(path, vpath) || same_file(outpath, voutpath))) {
        fprintf(stderr, "%s: the keys and the values must be different files\n",
                PS_CLI_NAME);
        return 2;
    }

    /* The library reads PORTSORT_BACKEND once, on its first call, so it must
     * be set before anything else touches the library. */
    if (backend != NULL && setenv("PORTSORT_BACKEND", backend, 1) != 0) {
        perror(PS_CLI_NAME ": setenv");
        return 1;
    }
    st = ps_init();
    if (st != PS_OK) {
        fprintf(stderr, "%s: %s: %s\n", PS_CLI_NAME, ps_strerror(st), ps_error_detail());
        return 1;
    }

    if (ps_cli_read_file(path, &kb) != 0)
        goto done;
    if (vpath != NULL && ps_cli_read_file(vpath, &vb) != 0)
        goto done;

    if (text) {
        if (split_lines(&kb, path, &kl) != 0)
            goto done;
        n = kl.n;
        keys = malloc(n ? n * t->size : 1);
        if (keys == NULL) {
            fprintf(stderr, "%s: out of memory for %zu keys\n", PS_CLI_NAME, n);
            goto done;
        }
        if (parse_keys(t, path, &kl, &kb, keys) != 0)
            goto done;
    } else {
        if (kb.size % t->size != 0) {
            fprintf(stderr, "%s: %s: size %zu bytes is not a multiple of %zu "
                    "(the size of a %s key)\n", PS_CLI_NAME, path, kb.size, t->size,
                    t->name);
            goto done;
        }
        n = kb.size / t->size;
        keys = kb.data;
    }

    if (vpath != NULL && text) {
        if (split_lines(&vb, vpath, &vl) != 0)
            goto done;
        if (vl.n != n) {
            fprintf(stderr, "%s: %s has %zu lines but %s has %zu keys\n", PS_CLI_NAME,
                    vpath, vl.n, path, n);
            goto done;
        }
        /* The lines travel as their indices: one sort of fixed-size pairs,
         * then the lines are written in the sorted order. */
        idx = malloc((n ? n : 1) * sizeof *idx);
        if (idx == NULL) {
            fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
            goto done;
        }
        for (i = 0; i < n; i++)
            idx[i] = i;
        st = ps_sort_pairs(keys, idx, sizeof *idx, n, t->type, flags);
    } else if (vpath != NULL) {
        /* Compared by division: n * value_size may overflow. */
        if (vb.size % value_size != 0 || vb.size / value_size != n) {
            fprintf(stderr, "%s: %s: size %zu bytes does not hold %zu values of %zu "
                    "bytes each\n", PS_CLI_NAME, vpath, vb.size, n, value_size);
            goto done;
        }
        st = ps_sort_pairs(keys, vb.data, value_size, n, t->type, flags);
    } else {
        st = ps_sort_keys(keys, n, t->type, flags);
    }
    if (st != PS_OK) {
        fprintf(stderr, "%s: sort failed on backend %s: %s: %s\n", PS_CLI_NAME,
                ps_backend_name(), ps_strerror(st), ps_error_detail());
        goto done;
    }

    if (ps_cli_out_open(&out[nout], outpath) != 0)
        goto done;
    nout++;
    if (vpath != NULL) {
        if (ps_cli_out_open(&out[nout], voutpath) != 0)
            goto done;
        nout++;
    }
    if (text) {
        for (i = 0; i < n; i++)
            ps_cli_print(t, keys, i, out[0].f);
        for (i = 0; vpath != NULL && i < n; i++) {
            fwrite(vl.start[idx[i]], 1, vl.len[idx[i]], out[1].f);
            fputc('\n', out[1].f);
        }
    } else {
        /* Write errors are sticky in the stream and found by the commit. */
        fwrite(keys, t->size, n, out[0].f);
        if (vpath != NULL)
            fwrite(vb.data, value_size, n, out[1].f);
    }
    rc = ps_cli_out_commit(out, nout) == 0 ? 0 : 1;
    nout = 0;

done:
    for (i = 0; i < nout; i++)
        ps_cli_out_discard(&out[i]);
    if (keys != kb.data)
        free(keys);
    free(kb.data);
    free(vb.data);
    free(kl.start);
    free(kl.len);
    free(vl.start);
    free(vl.len);
    free(idx);
    return rc;
}
