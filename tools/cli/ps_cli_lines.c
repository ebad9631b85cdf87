/*
 * ps_cli_lines.c - text input as lines with a numeric key: parsing in
 * parallel, the order check, and writing the lines back in sorted order.
 *
 * A line never moves in memory: it is known by the offset where it starts,
 * and that offset is the 8-byte value its key carries through
 * ps_sort_pairs.  Offsets grow with the line number, so the stable sort of
 * (key, offset) is the stable sort of the lines, and the output is the
 * input's bytes gathered in the sorted order.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "ps_cli.h"

/* Below this much input one thread does it all: starting threads would
 * cost more than it saves. */
#define PS_CLI_PARALLEL_BYTES (1u << 20)
#define PS_CLI_MAX_THREADS 64

size_t ps_cli_threads(size_t bytes)
{
    long n;
    if (bytes < PS_CLI_PARALLEL_BYTES)
        return 1;
    n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 2)
        n = 2;
    return n > PS_CLI_MAX_THREADS ? PS_CLI_MAX_THREADS : (size_t)n;
}

/* Run fn on each of n jobs of `size` bytes each, job 0 on this thread and
 * the others on their own; a thread that cannot start runs its job here. */
static void run_jobs(void *(*fn)(void *), void *jobs, size_t size, size_t n)
{
    pthread_t tid[PS_CLI_MAX_THREADS + 1];
    int started[PS_CLI_MAX_THREADS + 1];
    size_t i;
    for (i = 1; i < n; i++) {
        void *job = (char *)jobs + i * size;
        started[i] = pthread_create(&tid[i], NULL, fn, job) == 0;
        if (!started[i])
            fn(job);
    }
    if (n > 0)
        fn(jobs);
    for (i = 1; i < n; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
}

/* The first c in [p, e), or e.  Fields and lines are a few dozen bytes:
 * a call to memchr costs more than it saves there (profiled: memchr was
 * 16% of a CSV sort), and a byte loop was 30% of the instructions of one;
 * so 16 bytes at a time inline where SSE2 is (every x86-64), never reading
 * past e. */
static inline const char *scan(const char *p, const char *e, char c)
{
#ifdef __SSE2__
    const __m128i cc = _mm_set1_epi8(c);
    while (e - p >= 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), cc));
        if (m != 0)
            return p + __builtin_ctz(m);
        p += 16;
    }
#endif
    while (p < e && *p != c)
        p++;
    return p;
}

/* How many c in [p, e).  Each 16-byte compare's matches (-1 a byte) are
 * subtracted into 16 byte counters, summed every 255 blocks before one
 * can wrap: __builtin_popcount of the mask compiled (without -mpopcnt)
 * to a call into libgcc, 3 % of a 10M-line sort's samples. */
static size_t count(const char *p, const char *e, char c)
{
    size_t n = 0;
#ifdef __SSE2__
    const __m128i cc = _mm_set1_epi8(c), zero = _mm_setzero_si128();
    while (e - p >= 16) {
        __m128i acc = zero;
        int k;
        for (k = 0; k < 255 && e - p >= 16; k++, p += 16)
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(
                _mm_loadu_si128((const __m128i *)(const void *)p), cc));
        acc = _mm_sad_epu8(acc, zero);
        n += (size_t)(unsigned)_mm_cvtsi128_si32(acc)
             + (size_t)(unsigned)_mm_cvtsi128_si32(_mm_srli_si128(acc, 8));
    }
#endif
    for (; p < e; p++)
        n += *p == c;
    return n;
}

size_t ps_cli_line_end(const ps_cli_input *in, size_t off)
{
    const char *d = (const char *)in->data;
    return (size_t)(scan(d + off, d + in->size, ps_cli_eol) - d);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The key field of the line [s, e), trimmed of blanks and of a CR at its
 * end.  Returns 0, or -1 with the reason in *why. */
static int find_field(const ps_cli_text *o, const char *s, const char *e,
                      const char **fs, const char **fe, const char **why)
{
    size_t k;
    const char *a = s, *b = e;
    if (o->field > 0 && o->sep >= 0) {
        for (k = 1; k < o->field; k++) {
            const char *q = scan(a, e, (char)o->sep);
            if (q == e) {
                *why = "no such field";
                return -1;
            }
            a = q + 1;
        }
        b = scan(a, e, (char)o->sep);
    } else if (o->field > 0) {
        /* As sort(1) without -t: a field is the blanks before it and the
         * non-blanks after them. */
        for (k = 1;; k++) {
            const char *q = a;
            while (q < e && is_blank(*q))
                q++;
            if (q == e) {
                *why = "no such field";
                return -1;
            }
            while (q < e && !is_blank(*q))
                q++;
            if (k == o->field) {
                b = q;
                break;
            }
            a = q;
        }
    }
    while (a < b && is_blank(*a))
        a++;
    while (b > a && (is_blank(b[-1]) || b[-1] == '\r'))
        b--;
    if (a == b) {
        *why = o->field > 0 ? "empty field" : "empty line";
        return -1;
    }
    *fs = a;
    *fe = b;
    return 0;
}

/* Exact powers of ten: Clinger's fast path below needs them exact. */
static const double pow10_exact[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * The everyday forms without the C library: decimal integers, and f64
 * decimals whose digits fit in 53 bits with a power of ten up to 22, where
 * one IEEE division or multiplication of two exact numbers is the correctly
 * rounded value (Clinger 1990), the same as strtod gives.  f16 and bf16
 * keys are that double rounded once more, which is right unless the double
 * is exactly halfway between two of their values (the text may be off the
 * midpoint) or beyond their range.  Returns 1 when it stored the key; 0
 * sends the field to ps_cli_parse, which has the final word on everything
 * else, errors included.
 */
static int parse_fast(const ps_cli_type *t, const char *p, const char *e, void *keys,
                      size_t i)
{
    uint64_t m = 0;
    int neg = 0, exp10 = 0, digits = 0;
    if (p < e && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    if (!t->is_float) {
        unsigned width = (unsigned)t->size * 8;
        if (p == e || e - p > 19)
            return 0;   /* 19 digits cannot overflow 64 bits */
        for (; p < e; p++) {
            unsigned d = (unsigned)(unsigned char)*p - '0';
            if (d > 9)
                return 0;
            m = m * 10 + d;
        }
        if (t->is_signed) {
            uint64_t lim = (uint64_t)1 << (width - 1);
            if (neg ? m > lim : m >= lim)
                return 0;
            ps_cli_put_bits(t, keys, i, neg ? (uint64_t)0 - m : m);
        } else {
            if (neg || (width < 64 && m >> width != 0))
                return 0;
            ps_cli_put_bits(t, keys, i, m);
        }
        return 1;
    }
    if (t->type == PS_F32)
        return 0;
    for (; p < e && *p >= '0' && *p <= '9'; p++, digits++) {
        if (m >> 49)
            return 0;   /* another digit could pass 2^53 */
        m = m * 10 + (uint64_t)(*p - '0');
    }
    if (p < e && *p == '.') {
        for (p++; p < e && *p >= '0' && *p <= '9'; p++, digits++, exp10--) {
            if (m >> 49)
                return 0;
            m = m * 10 + (uint64_t)(*p - '0');
        }
    }
    if (digits == 0)
        return 0;
    if (p < e && (*p == 'e' || *p == 'E')) {
        int eneg = 0, x = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        if (p == e)
            return 0;
        for (; p < e; p++) {
            if (*p < '0' || *p > '9' || x > 1000)
                return 0;
            x = x * 10 + (*p - '0');
        }
        exp10 += eneg ? -x : x;
    }
    if (p != e || (m != 0 && (exp10 < -22 || exp10 > 22)))
        return 0;
    {
        double v = (double)m;
        if (m != 0)
            v = exp10 < 0 ? v / pow10_exact[-exp10] : v * pow10_exact[exp10];
        if (neg)
            v = -v;
        if (t->type == PS_F64) {
            memcpy((unsigned char *)keys + i * 8, &v, 8);
        } else {
            uint16_t h;
            int tie;
            if (ps_cli_half_bits(t, v, &h, &tie) != 0 || tie)
                return 0;
            ps_cli_put_bits(t, keys, i, h);
        }
    }
    return 1;
}

/* Parse the key of line [s, e) into slot i of keys. */
static int parse_line(const ps_cli_text *o, const char *s, const char *e, void *keys,
                      size_t i, const char **why)
{
    char small[128], *buf = small;
    const char *fs, *fe;
    size_t len;
    int rc;
    if (o->t == NULL)
        return 0;
    if (find_field(o, s, e, &fs, &fe, why) != 0)
        return -1;
    if (parse_fast(o->t, fs, fe, keys, i))
        return 0;
    if (memchr(fs, '\0', (size_t)(fe - fs)) != NULL) {
        *why = "contains a NUL byte";
        return -1;
    }
    /* The field is copied so that the parser sees it end with a NUL: the
     * input is shared by the threads, and its last line may have no
     * newline. */
    len = (size_t)(fe - fs);
    if (len >= sizeof small && (buf = malloc(len + 1)) == NULL) {
        *why = "out of memory";
        return -1;
    }
    memcpy(buf, fs, len);
    buf[len] = '\0';
    rc = ps_cli_parse(o->t, buf, keys, i, why);
    if (buf != small)
        free(buf);
    return rc;
}

/* One thread's share of the parse: whole lines [lo, hi) of the input. */
typedef struct chunk {
    const ps_cli_input *in;
    const ps_cli_text *opt;
    size_t lo, hi;
    size_t nlines;          /* lines in the chunk */
    size_t first;           /* the slot of its first line in keys and offs */
    size_t ngood;
    void *keys;
    uint64_t *offs;
    uint64_t *bad;          /* with skip_bad: the lines refused, in order */
    size_t nbad, capbad;
    size_t bad_off;         /* without: the first line refused, and why */
    const char *why;
    int failed;
    int pass;               /* 1: count the lines; 2: parse them */
} chunk;

static void *chunk_run(void *arg)
{
    chunk *c = arg;
    const char *data = (const char *)c->in->data;
    size_t p = c->lo;
    if (c->pass == 1) {
        /* Every newline ends a line, and so does the end of the input. */
        size_t n = count(data + p, data + c->hi, ps_cli_eol);
        if (c->hi == c->in->size && c->hi > c->lo && data[c->hi - 1] != ps_cli_eol)
            n++;
        c->nlines = n;
        return NULL;
    }
    while (p < c->hi) {
        const char *s = data + p, *e = scan(s, data + c->hi, ps_cli_eol);
        const char *why = NULL;
        size_t slot = c->first + c->ngood;
        if (parse_line(c->opt, s, e, c->keys, slot, &why) == 0) {
            c->offs[slot] = p;
            c->ngood++;
        } else if (c->opt->skip_bad && strcmp(why, "out of memory") != 0) {
            if (c->nbad == c->capbad) {
                size_t cap = c->capbad ? c->capbad * 2 : 64;
                uint64_t *b = realloc(c->bad, cap * sizeof *b);
                if (b == NULL) {
                    c->failed = 1;
                    c->bad_off = p;
                    c->why = "out of memory";
                    return NULL;
                }
                c->bad = b;
                c->capbad = cap;
            }
            c->bad[c->nbad++] = p;
        } else {
            c->failed = 1;
            c->bad_off = p;
            c->why = why;
            return NULL;
        }
        p = (size_t)(e - data) + 1;
    }
    return NULL;
}

void ps_cli_report_line(const ps_cli_input *in, size_t off, const char *what)
{
    const char *name;
    size_t line, len = ps_cli_line_end(in, off) - off;
    int shown = len > 40 ? 40 : (int)len;
    ps_cli_input_where(in, off, &name, &line);
    fprintf(stderr, "%s: %s:%zu: %s: \"%.*s%s\"\n", PS_CLI_NAME, name, line, what,
            shown, (const char *)in->data + off, shown < (int)len ? "..." : "");
}

int ps_cli_parse_lines(const ps_cli_input *in, const ps_cli_text *opt, ps_cli_lines *out)
{
    size_t nt = ps_cli_threads(in->size), i, n = 0, at = 0, nbad = 0;
    chunk c[PS_CLI_MAX_THREADS];
    int rc = -1;

    memset(out, 0, sizeof *out);
    memset(c, 0, sizeof c);
    /* Chunks of about equal size, each ending just after a newline. */
    for (i = 0; i < nt; i++) {
        size_t hi = i + 1 == nt ? in->size : in->size / nt * (i + 1);
        if (hi < at)
            hi = at;
        if (i + 1 < nt && hi < in->size && hi > 0 && in->data[hi - 1] != ps_cli_eol) {
            hi = ps_cli_line_end(in, hi);
            hi += hi < in->size;
        }
        c[i].in = in;
        c[i].opt = opt;
        c[i].lo = at;
        c[i].hi = at = hi;
        c[i].pass = 1;
    }
    run_jobs(chunk_run, c, sizeof c[0], nt);
    for (i = 0; i < nt; i++) {
        c[i].first = n;
        n += c[i].nlines;
    }
    out->key_size = opt->t ? opt->t->size : 0;
    out->keys = malloc(n && opt->t ? n * opt->t->size : 1);
    /* One more: offs[n], the end of the input (ps_cli.h). */
    out->offs = malloc((n + 1) * sizeof *out->offs);
    if (out->keys == NULL || out->offs == NULL) {
        fprintf(stderr, "%s: out of memory for %zu lines\n", PS_CLI_NAME, n);
        goto done;
    }
    for (i = 0; i < nt; i++) {
        c[i].keys = out->keys;
        c[i].offs = out->offs;
        c[i].pass = 2;
    }
    run_jobs(chunk_run, c, sizeof c[0], nt);
    for (i = 0; i < nt; i++) {
        if (c[i].failed) {
            char what[128];
            if (strcmp(c[i].why, "out of memory") == 0) {
                fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
                goto done;
            }
            if (opt->field > 0)
                snprintf(what, sizeof what, "field %zu is not a valid %s key (%s)",
                         opt->field, opt->t->name, c[i].why);
            else
                snprintf(what, sizeof what, "not a valid %s key (%s)", opt->t->name,
                         c[i].why);
            ps_cli_report_line(in, c[i].bad_off, what);
            goto done;
        }
        nbad += c[i].nbad;
    }
    /* Close the gaps the refused lines left, and gather them in order. */
    if (nbad > 0) {
        size_t size = out->key_size;
        out->bad = malloc(nbad * sizeof *out->bad);
        if (out->bad == NULL) {
            fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
            goto done;
        }
        for (i = 0, n = 0; i < nt; i++) {
            memmove((char *)out->keys + n * size, (char *)out->keys + c[i].first * size,
                    c[i].ngood * size);
            memmove(out->offs + n, out->offs + c[i].first, c[i].ngood * sizeof *out->offs);
            n += c[i].ngood;
            if (c[i].nbad > 0)
                memcpy(out->bad + out->nbad, c[i].bad, c[i].nbad * sizeof *out->bad);
            out->nbad += c[i].nbad;
        }
    }
    out->n = n;
    out->offs[n] = in->size;
    rc = 0;
done:
    for (i = 0; i < nt; i++)
        free(c[i].bad);
    return rc;
}

void ps_cli_lines_free(ps_cli_lines *l)
{
    free(l->keys);
    free(l->offs);
    free(l->bad);
    memset(l, 0, sizeof *l);
}

void ps_cli_report_disorder(const ps_cli_input *in, size_t off)
{
    /* sort(1)'s words, so that scripts that read them still work. */
    const char *name;
    size_t line;
    ps_cli_input_where(in, off, &name, &line);
    fprintf(stderr, "%s: %s:%zu: disorder: %.*s\n", PS_CLI_NAME, name, line,
            (int)(ps_cli_line_end(in, off) - off), (const char *)in->data + off);
}

int ps_cli_check_lines(const ps_cli_input *in, const ps_cli_type *t,
                       const ps_cli_lines *l, unsigned flags, int strict, int quiet,
                       ps_cli_check_carry *carry)
{
    size_t i = 0;
    uint64_t a, b;
    if (l->n == 0)
        return 0;
    if (carry != NULL && carry->has)
        a = carry->key;
    else
        a = ps_cli_order_key(t, ps_cli_get_bits(t, l->keys, i++));
    for (; i < l->n; i++, a = b) {
        b = ps_cli_order_key(t, ps_cli_get_bits(t, l->keys, i));
        if (((flags & PS_DESCENDING) ? a < b : a > b) || (strict && a == b)) {
            if (!quiet)
                ps_cli_report_disorder(in, (size_t)l->offs[i]);
            return 1;
        }
    }
    if (carry != NULL) {
        carry->has = 1;
        carry->key = a;
    }
    return 0;
}

/* One thread's share of the output: lines [lo, hi) of offs, gathered into
 * its own buffer. */
typedef struct gather {
    const ps_cli_input *in;
    const uint64_t *offs;
    const size_t *perm;         /* line j is at offs[perm[j]]; NULL: offs[j] */
    const unsigned char *keys;  /* with -u: skip a line whose key repeats */
    size_t key_size;
    size_t lo, hi;
    unsigned char *buf;
    size_t len, cap;
    int oom;
} gather;

static void *gather_run(void *arg)
{
    gather *g = arg;
    size_t j;
    g->len = 0;
    if (g->buf == NULL)
        g->buf = malloc(g->cap);
    if (g->buf == NULL) {
        g->oom = 1;
        return NULL;
    }
    for (j = g->lo; j < g->hi; j++) {
        size_t off = g->perm ? g->offs[g->perm[j]] : g->offs[j], len;
        /* The lines are all over the input: ask for one a few lines ahead
         * so that its cache miss overlaps the copies of the ones between
         * (the gather was a fifth of a 10M-line text sort, mostly misses);
         * through a permutation, its offset further ahead still. */
        if (g->perm != NULL) {
            if (j + 16 < g->hi)
                __builtin_prefetch(&g->offs[g->perm[j + 16]]);
            if (j + 8 < g->hi)
                __builtin_prefetch(g->in->data + g->offs[g->perm[j + 8]]);
        } else if (j + 8 < g->hi) {
            __builtin_prefetch(g->in->data + g->offs[j + 8]);
        }
        if (g->keys != NULL && j > 0 &&
            memcmp(g->keys + (j - 1) * g->key_size, g->keys + j * g->key_size,
                   g->key_size) == 0)
            continue;
        len = ps_cli_line_end(g->in, off) - off;
        if (g->len + len + 1 > g->cap) {
            size_t cap = g->cap + g->cap / 2 + len + 1;
            unsigned char *b = realloc(g->buf, cap);
            if (b == NULL) {
                g->oom = 1;
                return NULL;
            }
            g->buf = b;
            g->cap = cap;
        }
        memcpy(g->buf + g->len, g->in->data + off, len);
        g->len += len;
        g->buf[g->len++] = (unsigned char)ps_cli_eol;
    }
    return NULL;
}

/* Lines a thread gathers in one round of the output: its buffer, reused
 * round after round, stays near PS_CLI_ROUND_BYTES.  Buffers for the whole
 * output at once were as large as the input, every page of it fresh: a
 * page fault each 4 KiB, which took more system time than the sort's own
 * user time on 10M URL-like lines (593 MB: 2.9 s of sys in 5.0 s). */
#define PS_CLI_ROUND_BYTES ((size_t)8 << 20)

/* The threads' gathers written in order, then cleared; -1 when one ran
 * out of memory. */
static int write_round(gather *g, size_t count, ps_cli_out *o)
{
    size_t i;
    for (i = 0; i < count; i++) {
        if (g[i].oom) {
            fprintf(stderr, "%s: out of memory for the output\n", PS_CLI_NAME);
            return -1;
        }
        /* One large write each; a write error stays in the output for the
         * commit to report. */
        if (g[i].len > 0)
            ps_cli_out_write(o, g[i].buf, g[i].len);
    }
    return 0;
}

int ps_cli_write_lines(const ps_cli_input *in, const ps_cli_lines *l, int unique,
                       ps_cli_out *o)
{
    size_t nt = ps_cli_threads(in->size), i, base, per;
    size_t avg = l->n > 0 ? in->size / l->n + 1 : 1;
    gather g[PS_CLI_MAX_THREADS + 1];
    int rc = 0;

    memset(g, 0, sizeof g);
    /* Lines a thread takes a round: about PS_CLI_ROUND_BYTES of them (lines
     * are about equally long; a buffer grows if not), at least a few. */
    per = PS_CLI_ROUND_BYTES / avg > 16 ? PS_CLI_ROUND_BYTES / avg : 16;
    {
        /* A test hook, not a feature: the tests' inputs are a few MB, one
         * round; PORTSORT_TEST_ROUND_LINES=K makes rounds of K lines a
         * thread, so that the seams between rounds are tested. */
        const char *t = getenv("PORTSORT_TEST_ROUND_LINES");
        char *end;
        unsigned long k = t != NULL ? strtoul(t, &end, 10) : 0;
        if (t != NULL && *end == '\0' && k > 0)
            per = (size_t)k;
    }
    for (i = 0; i < nt; i++) {
        g[i].in = in;
        g[i].offs = l->offs;
        g[i].perm = l->perm;
        g[i].keys = unique ? l->keys : NULL;
        g[i].key_size = l->key_size;
        /* No more than a thread's share of the whole output: 4096 lines
         * of 1 MB once asked for 4 GB a thread for 40 MB of input. */
        g[i].cap = (per < l->n / nt + 1 ? per : l->n / nt + 1) * avg + 4096;
    }
    for (base = 0; base < l->n && rc == 0; base += nt * per) {
        size_t left = l->n - base, share = left / nt + (left % nt != 0);
        if (share > per)
            share = per;
        for (i = 0; i < nt; i++) {
            g[i].lo = base + share * i < l->n ? base + share * i : l->n;
            g[i].hi = g[i].lo + share < l->n ? g[i].lo + share : l->n;
        }
        run_jobs(gather_run, g, sizeof g[0], nt);
        rc = write_round(g, nt, o);
    }
    /* The lines refused with --skip-bad come last, as they came. */
    if (rc == 0 && l->nbad > 0) {
        gather *b = &g[nt];
        b->in = in;
        b->offs = l->bad;
        b->hi = l->nbad;
        b->cap = 4096;
        gather_run(b);
        rc = write_round(b, 1, o);
    }
    for (i = 0; i <= nt; i++)
        free(g[i].buf);
    return rc;
}
