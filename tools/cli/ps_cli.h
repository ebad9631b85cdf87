/*
 * ps_cli.h - what the parts of the portsort command line share: the key
 * type table, whole-file input and all-or-nothing output, and the entry
 * point of each subcommand.
 *
 * The tool uses only the public API (<portsort.h>): it is also the example
 * of how a program is meant to use the library.
 */
#ifndef PS_CLI_H
#define PS_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "portsort.h"

/* Every message starts with the program name, like the GNU tools
 * (portsort-mpi builds these files with its own name). */
#ifndef PS_CLI_NAME
#define PS_CLI_NAME "portsort"
#endif

/* The byte that ends a line of text: '\n', or '\0' with `sort -z`.  Set
 * once, before any input is read (the tool runs one command a process). */
extern char ps_cli_eol;

/* One key type as the command line knows it. */
typedef struct ps_cli_type {
    const char *name;   /* "u8" ... "bf16", as typed on the command line */
    ps_type type;
    size_t size;        /* bytes per key */
    int is_signed;      /* signed integer */
    int is_float;
} ps_cli_type;

extern const ps_cli_type ps_cli_types[];
extern const size_t ps_cli_ntypes;

/* The type named `name`, or NULL (no message). */
const ps_cli_type *ps_cli_type_by_name(const char *name);

/* The type's names separated by spaces, for messages and --help. */
const char *ps_cli_type_names(void);

/* The raw bits of key i of an array of type t, zero-extended. */
uint64_t ps_cli_get_bits(const ps_cli_type *t, const void *keys, size_t i);

/* Store the low t->size bytes of `bits` as key i. */
void ps_cli_put_bits(const ps_cli_type *t, void *keys, size_t i, uint64_t bits);

/* Store v as key i of a float type, rounded to nearest, ties to even, for
 * the types narrower than f64 (beyond the range: infinity). */
void ps_cli_put_float(const ps_cli_type *t, void *keys, size_t i, double v);

/* Bits of a float type's significand, the implicit one included (11 for
 * f16, 8 for bf16, 24 for f32, 53 for f64): integers up to 2^that are
 * exact. */
unsigned ps_cli_float_digits(const ps_cli_type *t);

/* d rounded to the f16 or bf16 bit pattern nearest to it, ties to even,
 * into *bits.  *tie is 1 when d lay exactly halfway between two values of
 * the type (a decimal text that strtod rounded to d may then belong on
 * either side).  Returns 0, or -1 when d rounds beyond the largest finite
 * value (*bits is then the infinity of d's sign).  NaNs stay NaNs (quiet,
 * the sign and a payload that fits kept). */
int ps_cli_half_bits(const ps_cli_type *t, double d, uint16_t *bits, int *tie);

/* An unsigned 64-bit number whose unsigned order is the sort order of the
 * library (integers by value, floats by IEEE 754 totalOrder). */
uint64_t ps_cli_order_key(const ps_cli_type *t, uint64_t bits);

/* Parse one number of type t from the NUL-terminated text s (surrounding
 * blanks allowed).  Returns 0 and stores the key as element i of keys, or
 * -1 with a short reason in *why. */
int ps_cli_parse(const ps_cli_type *t, const char *s, void *keys, size_t i,
                 const char **why);

/*
 * The whole input in one buffer: the files named (or standard input for
 * none, or for "-"), one after the other, read (never mapped: see
 * ps_cli_file.c); data is malloc'ed, and NULL for an empty input.
 */
typedef struct ps_cli_input {
    unsigned char *data;
    size_t size;
    size_t nparts;          /* how many inputs */
    const char **names;     /* their names as given ("-" for standard input) */
    size_t *starts;         /* where each starts in data */
    size_t line0;           /* lines of part 0's file before data (an
                               external sort's chunk; else 0), for messages */
} ps_cli_input;

/* Read `paths` (none: standard input) into *in.  With `text`, a newline is
 * put between inputs whose last line has none, so that lines never join.
 * A regular file whose size changes while it is read is refused.  Returns
 * 0, or -1 after a message naming the input (call ps_cli_input_free either
 * way). */
int ps_cli_read_inputs(char **paths, size_t npaths, int text, ps_cli_input *in);
void ps_cli_input_free(ps_cli_input *in);

/* The input (as named on the command line) and 1-based line number within
 * it of the byte at offset `off`, for messages. */
void ps_cli_input_where(const ps_cli_input *in, size_t off, const char **name,
                        size_t *line);

/*
 * All-or-nothing output: the data goes to a temporary file in the same
 * directory as `path` (so that rename() cannot cross file systems), which
 * replaces `path` only in ps_cli_out_commit().  A run that fails before the
 * commit removes the temporary file and leaves `path` as it was; so does
 * SIGINT, SIGTERM or SIGHUP (a handler removes the temporary files, then
 * the signal ends the process as it would have).  A symbolic link at
 * `path` is followed (even a dangling one): the file it names is replaced,
 * the link stays.  The new file gets the owner, group and mode of the one
 * it replaces (owner and group where the system allows; a set-ID bit whose
 * owner cannot be kept is dropped).  "-" means standard output; it and
 * other paths that are not regular files (a pipe, /dev/null) are written
 * directly, as there is nothing to replace.
 */
typedef struct ps_cli_out {
    char *path;         /* the final name (links followed) */
    char *tmp;          /* the temporary file, NULL once committed/discarded */
    int fd;             /* -1 once closed */
    int slot;           /* where the signal handler knows tmp, or -1 */
    int direct;         /* not a regular file: written in place, no temporary */
    int is_stdout;      /* "-" */
    int err;            /* errno of the first write that failed, or 0 */
    int placed;         /* during ps_cli_out_commit: how it took its place */
} ps_cli_out;

/* Returns 0, or -1 after a message (nothing is left behind). */
int ps_cli_out_open(ps_cli_out *o, const char *path);
/* write(2) through the test hook of PORTSORT_TEST_FAIL_IO (ps_cli_file.c),
 * for the external sort's temporary files. */
long ps_cli_io_write(int fd, const void *p, size_t n);
/* Append `len` bytes.  Returns 0, or -1 when this or an earlier write
 * failed: the error is kept (the first one) for ps_cli_out_commit to
 * report, and later writes do nothing. */
int ps_cli_out_write(ps_cli_out *o, const void *data, size_t len);
/* Sync and close all `count` outputs, then rename each into place.  The
 * files are either all replaced or none: where the system can swap two
 * names (Linux's renameat2), an output already in place is put back when
 * a later one cannot be; elsewhere a failing rename after the first
 * leaves the earlier ones replaced.  Returns 0, or -1 after a message
 * naming the output and the first error (that of the failing write, sync,
 * close or rename), with every temporary file removed. */
int ps_cli_out_commit(ps_cli_out *o, size_t count);
/* Close and remove the temporary file, if any.  Safe to call twice, only
 * after ps_cli_out_open. */
void ps_cli_out_discard(ps_cli_out *o);

/* 1 when the names a and b designate the same file, else 0: the same
 * string, the same device and inode, or for names of files that do not
 * exist yet (symbolic links followed, dangling ones too) the same
 * directory and last component.  "-" is the file open on `dash_fd`
 * (standard input or output). */
int ps_cli_same_file(const char *a, const char *b, int dash_fd);

/* Flush and close standard output as the program ends, as GNU's
 * close_stdout does: returns 0, or -1 after a "write error" message when
 * anything written there was lost (a full disk, /dev/full, a closed
 * descriptor). */
int ps_cli_close_stdout(void);
/* fflush(stdout), keeping the error of the first one that fails for
 * ps_cli_close_stdout to report. */
void ps_cli_flush_stdout(void);

/* How `portsort sort` finds the key of a text line. */
typedef struct ps_cli_text {
    const ps_cli_type *t;   /* NULL: only split the lines, no keys */
    int sep;            /* the field separator (a byte), or -1: runs of blanks */
    size_t field;       /* 1-based; 0: the whole line is the key */
    int skip_bad;       /* keep lines without a valid key instead of failing */
} ps_cli_text;

/* The lines of an input with their keys.  The lines stay in the input's
 * buffer; each is known by the offset where it starts. */
typedef struct ps_cli_lines {
    void *keys;         /* n keys, one per line with a valid key, in order */
    uint64_t *offs;     /* where each of those lines starts; offs[n] is the
                           input's size */
    const size_t *perm; /* for the writer: line i is offs[perm[i]] (NULL:
                         * offs[i]); not freed by ps_cli_lines_free */
    size_t n;
    size_t key_size;
    uint64_t *bad;      /* with skip_bad: the lines without one, in order */
    size_t nbad;
} ps_cli_lines;

/* How many threads to parse and write `bytes` of text with (1 for small
 * inputs, else the CPUs online, at least 2). */
size_t ps_cli_threads(size_t bytes);

/* Split `in` at newlines (a last line without one counts) and parse the key
 * of each line, in parallel over chunks of whole lines; out->offs gets one
 * more entry, offs[n] = in->size.  Returns 0, or -1
 * after a message naming the input, the line number and the line of the
 * first line refused (none with skip_bad). */
int ps_cli_parse_lines(const ps_cli_input *in, const ps_cli_text *opt,
                       ps_cli_lines *out);
void ps_cli_lines_free(ps_cli_lines *l);

/* The offset of the newline that ends the line at `off`, or in->size. */
size_t ps_cli_line_end(const ps_cli_input *in, size_t off);

/* "portsort: NAME:LINE: WHAT: "the line"" on standard error. */
void ps_cli_report_line(const ps_cli_input *in, size_t off, const char *what);

/* A growing byte buffer: len bytes used of cap at p; oom set once an
 * allocation failed (later appends then do nothing). */
typedef struct ps_cli_bytes {
    unsigned char *p;
    size_t len, cap;
    int oom;
} ps_cli_bytes;

/* Append len bytes of src to b (nothing once b->oom is set). */
void ps_cli_bytes_put(ps_cli_bytes *b, const void *src, size_t len);

/* What -c carries from one block of the input to the next when the input
 * is checked a block at a time (ps_cli_external_check), so that the first
 * line of a block is compared with the last one of the block before: that
 * line's order key (--type) or the line itself with its end of line
 * (sort(1)'s keys).  All zero: no line yet.  The owner frees line.p. */
typedef struct ps_cli_check_carry {
    int has;
    uint64_t key;
    ps_cli_bytes line;
} ps_cli_check_carry;

/* sort(1)'s report of the first line out of order, the line at `off`:
 * "portsort: NAME:LINE: disorder: TEXT" on standard error. */
void ps_cli_report_disorder(const ps_cli_input *in, size_t off);

/* -c: 0 when the keys are in order (non-decreasing, or non-increasing with
 * PS_DESCENDING; strictly with `strict`), else 1 after reporting the first
 * line out of order as sort(1) does (-C, `quiet`: without the report).
 * With `carry` (NULL: the whole input at once), line 0 is compared with
 * the line carry holds, and carry then holds the last line. */
int ps_cli_check_lines(const ps_cli_input *in, const ps_cli_type *t,
                       const ps_cli_lines *l, unsigned flags, int strict, int quiet,
                       ps_cli_check_carry *carry);

/* Write the lines in the order of l->offs (through l->perm when set), each
 * ending with a newline, then
 * the refused ones; with `unique` only the first of each run of equal keys.
 * The lines are gathered in parallel and written with one large write per
 * thread.  Returns 0 (write errors stay in `o` for ps_cli_out_commit), or
 * -1 after a message. */
int ps_cli_write_lines(const ps_cli_input *in, const ps_cli_lines *l, int unique,
                       ps_cli_out *o);

/*
 * sort(1)'s keys (ps_cli_keys.c): how `portsort sort` orders text when no
 * --type is given, byte for byte as `LC_ALL=C sort` does.
 */

/* One -k KEYDEF (or the whole line), as GNU sort keeps it: the key starts
 * after `sword` fields and `schar` more characters, and ends after `eword`
 * fields (SIZE_MAX: at the end of the line) and `echar` characters (0: at
 * the end of that field). */
typedef struct ps_cli_key {
    size_t sword, schar, eword, echar;
    unsigned char skip_sblanks, skip_eblanks;   /* b at POS1, at POS2 */
    unsigned char numeric, general, reverse;    /* n, g, r */
    unsigned char has_opts;     /* any of b, n, g given: no inheritance */
} ps_cli_key;

typedef struct ps_cli_keys {
    ps_cli_key *k;      /* most significant first */
    size_t n;
    int sep;            /* -t: the separator byte, or -1: runs of blanks */
    int last_resort;    /* compare whole lines when the keys are equal */
    int reverse;        /* -r given globally: reverses the last resort */
} ps_cli_keys;

/* Parse a KEYDEF (POS1[,POS2], POS = F[.C][OPTS]) into *k.  Returns 0, or
 * -1 with the reason in *why (an ordering letter we do not support is
 * named there). */
int ps_cli_parse_keydef(const char *s, ps_cli_key *k, const char **why);

/* After the options are read: keys that gave no ordering letter (and no r)
 * take the global ones from `global`, as sort(1) does; with no key at all
 * the whole line becomes the one key, with the global options.  `stable`
 * (-s) and `unique` (-u) turn off the last resort.  Returns 0 or -1 (out
 * of memory). */
int ps_cli_keys_finish(ps_cli_keys *ks, const ps_cli_key *global, int stable,
                       int unique);

/* The stable sort of the lines starting at offs[0..n) (offs[n]: the end
 * of the input, as ps_cli_parse_lines leaves it) by the keys: the
 * permutation into perm (perm[i]: the index of the i-th line in order).
 * Returns PS_OK, a ps_status of the library, or -1 (out of memory). */
int ps_cli_keys_sort(const ps_cli_input *in, const uint64_t *offs, size_t n,
                     const ps_cli_keys *ks, size_t *perm);

/* sort(1)'s comparison of the lines at offsets a and b: < 0, 0, > 0; the
 * last resort only with `last`.  *oom set on out of memory. */
int ps_cli_keys_compare(const ps_cli_input *in, const ps_cli_keys *ks, uint64_t a,
                        uint64_t b, int last, int *oom);

/* -c by sort(1)'s keys over the n lines starting at offs[0..n) of `in`:
 * each compared with the one before it (with `strict`, -u, equal keys are
 * out of order too); with carry, as for ps_cli_check_lines.  Returns 0 in
 * order, 1 after reporting the first line out of order (not with `quiet`,
 * -C), or -1 out of memory (no message: the caller says how many lines). */
int ps_cli_keys_check(const ps_cli_input *in, const ps_cli_keys *ks,
                      const uint64_t *offs, size_t n, int strict, int quiet,
                      ps_cli_check_carry *carry);

/* For the external sort of text without --type (ps_cli_external.c): append
 * to b the images of the keys of the line [s, lim) (without its end of
 * line), each one's unsigned byte order that of its key, the line's own
 * bytes left out where a key is the whole line.  Returns 0, -1 out of
 * memory, or -2 when an image would exceed 4 GiB. */
int ps_cli_keys_record(const ps_cli_keys *ks, const char *s, const char *lim,
                       ps_cli_bytes *b);

/* sort(1)'s comparison of two lines from what ps_cli_keys_record made of
 * them (ka, kb) and the lines (la, lb, of lla and llb bytes, without their
 * ends of line): < 0, 0, > 0; the last resort only with `last`.  The same
 * answer as ps_cli_keys_compare on the lines. */
int ps_cli_keys_record_compare(const ps_cli_keys *ks, const unsigned char *ka,
                               const unsigned char *la, size_t lla,
                               const unsigned char *kb, const unsigned char *lb,
                               size_t llb, int last);

/* Parse a size such as 1048576, 2^20, 1M, 16Mi.  Returns 0 or -1. */
int ps_cli_parse_size(const char *s, size_t *out);

/* Subcommands: argc/argv start at the subcommand's name.  They return the
 * process exit status. */
int ps_cli_info(int argc, char **argv);
int ps_cli_sort(int argc, char **argv);
int ps_cli_bench(int argc, char **argv);

/*
 * `portsort sort --binary -S SIZE` (ps_cli_external.c): the keys of the
 * inputs `paths` (none: standard input), with the values of `vpath` (vs
 * bytes each; NULL for none), sorted in runs that fit `bufsize` bytes,
 * each a temporary file (unlinked at once) under one of `dirs` (taken in
 * turn), merged at most `batch` at a time into `outpath` (and the values
 * into `voutpath`), replaced only when all went well.  Stable.  Returns
 * the exit status, 0 or 1 after a message.  With --head, `head` is K: the
 * last merge stops after the first K records (UINT64_MAX: all of them).
 */
int ps_cli_external_sort(char **paths, size_t npaths, const ps_cli_type *t,
                         unsigned flags, size_t bufsize,
                         const char *const *dirs, size_t ndirs, size_t batch,
                         const char *outpath, const char *vpath, size_t vs,
                         const char *voutpath, uint64_t head);

/* The same for text with --type (opt: the type, field, separator and
 * --skip-bad): runs of whole lines, each parsed and sorted as in memory
 * and written as records of the key and the line, merged on the keys; the
 * lines without a valid key (with --skip-bad) last, in input order; with
 * `unique`, only the first line of each run of equal keys (-u); `head` as
 * above.  With `vpath` (not with --skip-bad or -u), its lines, one a key,
 * travel with the keys' lines into `voutpath`; a count of lines that is
 * not the count of keys is refused with the in-memory sort's message. */
int ps_cli_external_text(char **paths, size_t npaths, const ps_cli_text *opt,
                         unsigned flags, int unique, size_t bufsize,
                         const char *const *dirs, size_t ndirs, size_t batch,
                         const char *outpath, const char *vpath,
                         const char *voutpath, uint64_t head);

/* The same for text without --type (sort(1)'s keys `ks`, -u as `unique`):
 * runs of whole lines sorted by ps_cli_keys_sort, as in memory, written as
 * records of the lines' key images and the lines, merged key by key; the
 * output is the in-memory sort's, byte for byte (with `head`, the
 * in-memory --head's). */
int ps_cli_external_lines(char **paths, size_t npaths, const ps_cli_keys *ks,
                          int unique, size_t bufsize,
                          const char *const *dirs, size_t ndirs, size_t batch,
                          const char *outpath, uint64_t head);

/* -c (`quiet`: -C) on the inputs `paths` read a block of at most about
 * `bufsize` / 2 bytes at a time, never whole: by the keys `ks` (opt NULL)
 * or by opt's --type key in the order of `flags`, strictly with `strict`
 * (-u).  Each line is compared with the one before it, across blocks and
 * inputs; the first one out of order is reported as in memory.  Returns
 * the exit status: 0 in order, 1 out of order or after a message. */
int ps_cli_external_check(char **paths, size_t npaths, const ps_cli_text *opt,
                          const ps_cli_keys *ks, unsigned flags, int strict,
                          int quiet, size_t bufsize);

#endif /* PS_CLI_H */
