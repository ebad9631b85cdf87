/*
 * ps_cli_keys.c - sort(1)'s keys for `portsort sort` on text: -k KEYDEF,
 * -t, -b, -n, -g, -r, the last-resort comparison of whole lines, and the
 * order of `LC_ALL=C sort`, byte for byte.
 *
 * Every key of a line is turned into a byte string whose unsigned
 * bytewise order is sort(1)'s order of that key: the field's bytes for a
 * plain key, a sortable image of the number for -n (exact, any number of
 * digits) and -g (the long double GNU sort converts to).  The lines are
 * then sorted by ps_argsort_strings once per key, least significant first:
 * each sort is stable, so the last one leaves the lines in the order of
 * all keys together (an LSD sort over keys).  The field positions follow
 * GNU sort's begfield and limfield exactly, blanks included.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "ps_cli.h"

/* sort(1)'s blanks in the C locale: isblank, and the newline that only a
 * line of `sort -z` can hold. */
static int blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* A count in a KEYDEF: digits, saturating at SIZE_MAX as GNU's does.
 * Returns where the digits end, or NULL when there are none. */
static const char *field_count(const char *s, size_t *v)
{
    size_t n = 0;
    if (*s < '0' || *s > '9')
        return NULL;
    for (; *s >= '0' && *s <= '9'; s++)
        n = n > (SIZE_MAX - 9) / 10 ? SIZE_MAX : n * 10 + (size_t)(*s - '0');
    *v = n;
    return s;
}

/* The ordering letters after a POS: b (at the start or the end, as
 * `start` says), n, g, r; the others of GNU sort are refused by name. */
static const char *ordering(const char *s, ps_cli_key *k, int start, const char **why)
{
    for (;; s++) {
        switch (*s) {
        case 'b':
            if (start)
                k->skip_sblanks = 1;
            else
                k->skip_eblanks = 1;
            k->has_opts = 1;
            break;
        case 'n': k->numeric = k->has_opts = 1; break;
        case 'g': k->general = k->has_opts = 1; break;
        case 'r': k->reverse = 1; break;
        case 'd': *why = "ordering letter 'd' (dictionary order) is not supported"; return NULL;
        case 'f': *why = "ordering letter 'f' (fold case) is not supported"; return NULL;
        case 'i': *why = "ordering letter 'i' (ignore nonprinting) is not supported"; return NULL;
        case 'h': *why = "ordering letter 'h' (human numbers) is not supported"; return NULL;
        case 'M': *why = "ordering letter 'M' (months) is not supported"; return NULL;
        case 'R': *why = "ordering letter 'R' (random) is not supported"; return NULL;
        case 'V': *why = "ordering letter 'V' (versions) is not supported"; return NULL;
        default: return s;
        }
    }
}

int ps_cli_parse_keydef(const char *s, ps_cli_key *k, const char **why)
{
    memset(k, 0, sizeof *k);
    s = field_count(s, &k->sword);
    if (s == NULL) {
        *why = "invalid number at field start";
        return -1;
    }
    if (k->sword-- == 0) {
        *why = "field number is zero";
        return -1;
    }
    if (*s == '.') {
        s = field_count(s + 1, &k->schar);
        if (s == NULL) {
            *why = "invalid number after '.'";
            return -1;
        }
        if (k->schar-- == 0) {
            *why = "character offset is zero";
            return -1;
        }
    }
    if ((s = ordering(s, k, 1, why)) == NULL)
        return -1;
    if (*s != ',') {
        k->eword = SIZE_MAX;
        k->echar = 0;
    } else {
        s = field_count(s + 1, &k->eword);
        if (s == NULL) {
            *why = "invalid number after ','";
            return -1;
        }
        if (k->eword-- == 0) {
            *why = "field number is zero";
            return -1;
        }
        if (*s == '.' && (s = field_count(s + 1, &k->echar)) == NULL) {
            *why = "invalid number after '.'";
            return -1;
        }
        if ((s = ordering(s, k, 0, why)) == NULL)
            return -1;
    }
    if (*s != '\0') {
        *why = "stray character in field spec";
        return -1;
    }
    if (k->numeric && k->general) {
        *why = "options 'n' and 'g' are incompatible";
        return -1;
    }
    return 0;
}

int ps_cli_keys_finish(ps_cli_keys *ks, const ps_cli_key *global, int stable, int unique)
{
    size_t i;
    for (i = 0; i < ks->n; i++) {
        ps_cli_key *k = &ks->k[i];
        if (!k->has_opts && !k->reverse) {
            k->skip_sblanks = global->skip_sblanks;
            k->skip_eblanks = global->skip_eblanks;
            k->numeric = global->numeric;
            k->general = global->general;
            k->reverse = global->reverse;
        }
    }
    ks->reverse = global->reverse;
    ks->last_resort = !stable && !unique;
    if (ks->n == 0) {
        /* The whole line: with no ordering option, it is the last resort
         * itself, which then runs even with -s or -u (as in GNU sort). */
        ps_cli_key *k = malloc(sizeof *k);
        if (k == NULL)
            return -1;
        *k = *global;
        k->sword = k->schar = k->echar = 0;
        k->eword = SIZE_MAX;
        ks->k = k;
        ks->n = 1;
        if (!global->has_opts)
            ks->last_resort = 0;
    }
    return 0;
}

/* GNU sort's begfield: where the key starts in the line [p, lim). */
static const char *key_begin(const char *p, const char *lim, const ps_cli_key *k, int sep)
{
    size_t sword = k->sword;
    if (sep >= 0) {
        while (p < lim && sword--) {
            while (p < lim && *p != (char)sep)
                p++;
            if (p < lim)
                p++;
        }
    } else {
        while (p < lim && sword--) {
            while (p < lim && blank((unsigned char)*p))
                p++;
            while (p < lim && !blank((unsigned char)*p))
                p++;
        }
    }
    if (k->skip_sblanks)
        while (p < lim && blank((unsigned char)*p))
            p++;
    return (size_t)(lim - p) < k->schar ? lim : p + k->schar;
}

/* GNU sort's limfield: where the key ends. */
static const char *key_limit(const char *p, const char *lim, const ps_cli_key *k, int sep)
{
    size_t eword = k->eword, echar = k->echar;
    if (eword == SIZE_MAX)
        return lim;
    if (echar == 0)
        eword++;                /* through the end of that field */
    if (sep >= 0) {
        while (p < lim && eword--) {
            while (p < lim && *p != (char)sep)
                p++;
            if (p < lim && (eword || echar))
                p++;
        }
    } else {
        while (p < lim && eword--) {
            while (p < lim && blank((unsigned char)*p))
                p++;
            while (p < lim && !blank((unsigned char)*p))
                p++;
        }
    }
    if (echar != 0) {
        if (k->skip_eblanks)
            while (p < lim && blank((unsigned char)*p))
                p++;
        p = (size_t)(lim - p) < echar ? lim : p + echar;
    }
    return p;
}

/* A growing byte buffer (ps_cli_bytes, which the external sort shares). */
typedef ps_cli_bytes bytes;

void ps_cli_bytes_put(ps_cli_bytes *b, const void *src, size_t len)
{
    if (b->oom || len == 0)
        return;
    if (len > b->cap - b->len) {
        size_t cap = b->cap + b->cap / 2 + len + 64;
        unsigned char *p = cap > b->cap ? realloc(b->p, cap) : NULL;
        if (p == NULL) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, len);
    b->len += len;
}

static void put(bytes *b, const void *src, size_t len)
{
    ps_cli_bytes_put(b, src, len);
}

static void put1(bytes *b, unsigned char c)
{
    put(b, &c, 1);
}

/* -n: GNU's strnumcmp order (C locale: '.' is the decimal point, no
 * thousands separator, a leading '-' only; anything else counts as 0).
 * The image: 0x80 for zero; 0x81, the count of integer digits (8 bytes,
 * big-endian), the digits without leading zeros, the fraction without
 * trailing zeros for a positive number; a negative one is 0x7f and the
 * same with every byte inverted, then 0xff, so that a longer fraction
 * (a larger magnitude) sorts first. */
static void put_numeric(bytes *b, const char *p, const char *e)
{
    const char *d, *de, *f, *fe;
    int neg = 0, i;
    unsigned char head[9], x = 0;
    size_t nd;

    while (p < e && blank((unsigned char)*p))
        p++;
    if (p < e && *p == '-')
        neg = 1, p++;
    while (p < e && *p == '0')
        p++;
    for (d = de = p; de < e && *de >= '0' && *de <= '9'; de++)
        ;
    f = fe = de;
    if (de < e && *de == '.') {
        const char *q;
        for (f = q = de + 1; q < e && *q >= '0' && *q <= '9'; q++)
            if (*q != '0')
                fe = q + 1;
        if (fe < f)
            fe = f;
    }
    nd = (size_t)(de - d);
    if (nd == 0 && fe == f) {
        put1(b, 0x80);
        return;
    }
    if (neg)
        x = 0xff;
    head[0] = neg ? 0x7f : 0x81;
    for (i = 0; i < 8; i++)
        head[1 + i] = (unsigned char)(((uint64_t)nd >> (56 - 8 * i)) ^ x);
    put(b, head, sizeof head);
    if (!neg) {
        put(b, d, nd);
        put(b, f, (size_t)(fe - f));
        return;
    }
    for (; d < de; d++)
        put1(b, (unsigned char)~(unsigned char)*d);
    for (; f < fe; f++)
        put1(b, (unsigned char)~(unsigned char)*f);
    put1(b, 0xff);
}

/* -g: GNU's general_numcompare: strtold of the key; conversion errors
 * first, then NaNs (by their bytes, as GNU's memcmp orders them), then
 * numbers by value with -0 == +0.  The image of a number: its sign class,
 * then the binary exponent and 64 bits of the significand (all of a long
 * double on x86, the top 64 bits where long double is wider), inverted
 * for negative numbers. */
static void put_general(bytes *b, const char *p, const char *e, bytes *tmp)
{
    long double v, m;
    char *end;
    unsigned char img[14];
    int ex, i;
    uint64_t mant;
    uint32_t ue;

    tmp->len = 0;
    put(tmp, p, (size_t)(e - p));
    put1(tmp, 0);
    if (tmp->oom) {
        b->oom = 1;
        return;
    }
    v = strtold((const char *)tmp->p, &end);
    if (end == (char *)tmp->p) {
        put1(b, 0x00);
        return;
    }
    if (isnan(v)) {
        /* GNU's nan_compare memcmps the long doubles: their significant
         * bytes in memory order (10 on x86, the rest is padding). */
        size_t sig = LDBL_MANT_DIG == 64 ? 10 : sizeof v;
        put1(b, 0x01);
        put(b, &v, sig < sizeof v ? sig : sizeof v);
        return;
    }
    img[0] = 0x02;
    if (isinf(v)) {
        img[1] = v < 0 ? 0x00 : 0x04;
        put(b, img, 2);
        return;
    }
    if (v == 0) {
        img[1] = 0x02;
        put(b, img, 2);
        return;
    }
    m = frexpl(fabsl(v), &ex);
    mant = (uint64_t)ldexpl(m, 64);
    ue = (uint32_t)((int64_t)ex + 0x80000000LL);
    img[1] = v < 0 ? 0x01 : 0x03;
    for (i = 0; i < 4; i++)
        img[2 + i] = (unsigned char)(ue >> (24 - 8 * i));
    for (i = 0; i < 8; i++)
        img[6 + i] = (unsigned char)(mant >> (56 - 8 * i));
    if (v < 0)
        for (i = 2; i < (int)sizeof img; i++)
            img[i] ^= 0xff;
    put(b, img, sizeof img);
}

/* Append the image of key k of the line [s, lim) to b. */
static void put_key(bytes *b, const char *s, const char *lim, const ps_cli_key *k,
                    int sep, bytes *tmp)
{
    const char *kb = key_begin(s, lim, k, sep), *ke = key_limit(s, lim, k, sep);
    if (ke < kb)
        ke = kb;                /* a key that ends before it starts is empty */
    if (k->numeric)
        put_numeric(b, kb, ke);
    else if (k->general)
        put_general(b, kb, ke, tmp);
    else
        put(b, kb, (size_t)(ke - kb));
}

/* Where the line at offset `off` ends (its newline, or the input's end). */
static const char *line_lim(const ps_cli_input *in, uint64_t off)
{
    return (const char *)in->data + ps_cli_line_end(in, (size_t)off);
}

/* 1 when the lines of `in` can be compared in place, each with the byte
 * that ends it: that byte must sort below every byte a line holds, so that
 * a line that is a prefix of another sorts first.  The NUL of -z always
 * does; a newline does unless a line holds a byte below it (a tab, say). */
static int eol_sorts_first(const ps_cli_input *in)
{
    const unsigned char *p = in->data, *e = p + in->size;
    if (ps_cli_eol == '\0')
        return 1;
    while (p < e) {
        /* The smallest byte of each block of 64 KiB, 16 bytes at a time
         * where SSE2 is (as scan() in ps_cli_lines.c). */
        const unsigned char *be = (size_t)(e - p) < 65536 ? e : p + 65536;
        unsigned char lo = 0xff;
#ifdef __SSE2__
        __m128i m = _mm_set1_epi8((char)0xff);
        unsigned char v[16];
        int i;
        for (; be - p >= 16; p += 16)
            m = _mm_min_epu8(m, _mm_loadu_si128((const __m128i *)(const void *)p));
        _mm_storeu_si128((__m128i *)(void *)v, m);
        for (i = 0; i < 16; i++)
            lo = v[i] < lo ? v[i] : lo;
#endif
        for (; p < be; p++)
            lo = *p < lo ? *p : lo;
        if (lo < (unsigned char)'\n')
            return 0;
    }
    return 1;
}

/* 1 when key k's image is the line itself (a plain key over the whole
 * line); NULL, the last resort, is one too. */
static int key_is_line(const ps_cli_key *k)
{
    return k == NULL || (!k->numeric && !k->general && k->sword == 0 &&
                         k->schar == 0 && k->eword == SIZE_MAX && !k->skip_sblanks);
}

int ps_cli_keys_sort(const ps_cli_input *in, const uint64_t *offs, size_t n,
                     const ps_cli_keys *ks, size_t *perm)
{
    size_t *sub = malloc((n ? n : 1) * sizeof *sub);
    size_t *at = malloc((n + 1) * sizeof *at), *tmpp = malloc((n ? n : 1) * sizeof *tmpp);
    const size_t *sat;
    bytes b = { NULL, 0, 0, 0 }, tmp = { NULL, 0, 0, 0 };
    size_t i, level;
    int st = PS_OK, first = 1;

    if (sub == NULL || at == NULL || tmpp == NULL) {
        st = -1;
        goto done;
    }
    for (i = 0; i < n; i++)
        perm[i] = i;
    /* Level 0 is the last resort (when there is one), then the keys from
     * the least significant to the most. */
    for (level = ks->last_resort ? 0 : 1; level <= ks->n && st == PS_OK; level++) {
        const ps_cli_key *k = level == 0 ? NULL : &ks->k[ks->n - level];
        unsigned flags = (level == 0 ? ks->reverse : k->reverse) ? PS_DESCENDING : 0;
        const void *bytes_at;
        int whole = key_is_line(k);
        sat = at;
        if (whole && first && eol_sorts_first(in)) {
            /* Whole lines in input order: the input itself is the strings'
             * bytes, each line with its end (no copy, the common case),
             * and the lines' offsets (offs[n] is the input's size) are
             * the strings' offsets, handed over as they are where uint64_t
             * is size_t (a copy was 80 MB of fresh pages for 10M lines). */
            if (_Generic((uint64_t *)0, size_t *: 1, default: 0)) {
                sat = (const size_t *)(const void *)offs;
            } else {
                for (i = 0; i <= n; i++)
                    at[i] = (size_t)offs[i];
            }
            bytes_at = in->data != NULL ? (const void *)in->data : (const void *)"";
        } else {
            b.len = 0;
            for (i = 0; i < n; i++) {
                const char *s = (const char *)in->data + offs[perm[i]];
                const char *lim = line_lim(in, offs[perm[i]]);
                at[i] = b.len;
                if (whole)
                    put(&b, s, (size_t)(lim - s));
                else
                    put_key(&b, s, lim, k, ks->sep, &tmp);
            }
            at[n] = b.len;
            if (b.oom || tmp.oom) {
                st = -1;
                break;
            }
            bytes_at = b.p != NULL ? (const void *)b.p : (const void *)"";
        }
        if (first) {
            /* perm is the identity: the sort's permutation is the answer. */
            st = ps_argsort_strings(bytes_at, sat, n, perm, flags);
            first = 0;
            continue;
        }
        st = ps_argsort_strings(bytes_at, sat, n, sub, flags);
        for (i = 0; st == PS_OK && i < n; i++)
            tmpp[i] = perm[sub[i]];
        if (st == PS_OK)
            memcpy(perm, tmpp, n * sizeof *perm);
    }
done:
    free(sub);
    free(at);
    free(tmpp);
    free(b.p);
    free(tmp.p);
    return st;
}

/* Unsigned bytewise order of two images, a proper prefix first. */
static int cmp_bytes(const unsigned char *a, size_t la, const unsigned char *b, size_t lb)
{
    int c = la && lb ? memcmp(a, b, la < lb ? la : lb) : 0;
    if (c != 0)
        return c;
    return la < lb ? -1 : la > lb;
}

int ps_cli_keys_compare(const ps_cli_input *in, const ps_cli_keys *ks, uint64_t a,
                        uint64_t b, int last, int *oom)
{
    static bytes ba, bb, tmp;
    const char *sa = (const char *)in->data + a, *sb = (const char *)in->data + b;
    const char *la = line_lim(in, a), *lb = line_lim(in, b);
    size_t i;
    int c;

    for (i = 0; i < ks->n; i++) {
        ba.len = bb.len = 0;
        put_key(&ba, sa, la, &ks->k[i], ks->sep, &tmp);
        put_key(&bb, sb, lb, &ks->k[i], ks->sep, &tmp);
        if (ba.oom || bb.oom || tmp.oom) {
            *oom = 1;
            return 0;
        }
        c = cmp_bytes(ba.p, ba.len, bb.p, bb.len);
        if (c != 0)
            return ks->k[i].reverse ? -c : c;
    }
    if (!last || !ks->last_resort)
        return 0;
    c = cmp_bytes((const unsigned char *)sa, (size_t)(la - sa),
                  (const unsigned char *)sb, (size_t)(lb - sb));
    return ks->reverse ? -c : c;
}

int ps_cli_keys_check(const ps_cli_input *in, const ps_cli_keys *ks,
                      const uint64_t *offs, size_t n, int strict, int quiet,
                      ps_cli_check_carry *carry)
{
    size_t i, end;
    int c = 0, oom = 0;
    char eol = ps_cli_eol;

    if (n == 0)
        return 0;
    for (i = 0; i < n; i++) {
        if (i > 0) {
            c = ps_cli_keys_compare(in, ks, offs[i - 1], offs[i], 1, &oom);
        } else if (carry != NULL && carry->has) {
            /* The line before this block and the block's first line, side
             * by side, make an input of two lines: the comparison reads
             * lines in place, from one input. */
            ps_cli_input pair;
            size_t prev = carry->line.len;
            end = ps_cli_line_end(in, (size_t)offs[0]);
            ps_cli_bytes_put(&carry->line, in->data + offs[0], end - (size_t)offs[0]);
            memset(&pair, 0, sizeof pair);
            pair.data = carry->line.p;
            pair.size = carry->line.len;
            oom = carry->line.oom;
            if (!oom)
                c = ps_cli_keys_compare(&pair, ks, 0, prev, 1, &oom);
        } else {
            continue;           /* the input's first line */
        }
        if (oom)
            return -1;
        if (c > 0 || (strict && c == 0)) {
            if (!quiet)
                ps_cli_report_disorder(in, (size_t)offs[i]);
            return 1;
        }
    }
    if (carry != NULL) {
        end = ps_cli_line_end(in, (size_t)offs[n - 1]);
        carry->line.len = 0;
        ps_cli_bytes_put(&carry->line, in->data + offs[n - 1],
                         end - (size_t)offs[n - 1]);
        ps_cli_bytes_put(&carry->line, &eol, 1);
        if (carry->line.oom)
            return -1;
        carry->has = 1;
    }
    return 0;
}

/* The external sort's images: each key's image after a 4-byte length
 * (host order: the files never leave this process), none for a key that
 * is the line itself, which the record holds anyway (the whole-line sort,
 * the commonest, then stores nothing twice).  Images are canonical (equal
 * keys, equal bytes: -n drops the zeros that do not count, -g maps -0 to
 * +0), so comparing them is comparing the keys. */
int ps_cli_keys_record(const ps_cli_keys *ks, const char *s, const char *lim,
                       ps_cli_bytes *b)
{
    static bytes tmp;
    size_t i;
    for (i = 0; i < ks->n; i++) {
        size_t at = b->len, len;
        uint32_t len32 = 0;
        if (key_is_line(&ks->k[i]))
            continue;
        put(b, &len32, sizeof len32);
        put_key(b, s, lim, &ks->k[i], ks->sep, &tmp);
        if (b->oom || tmp.oom)
            return -1;
        len = b->len - at - sizeof len32;
        if (len > UINT32_MAX)
            return -2;
        len32 = (uint32_t)len;
        memcpy(b->p + at, &len32, sizeof len32);
    }
    return 0;
}

/* The next image of a record, advancing *p: the line itself for a key
 * that is the line. */
static const unsigned char *record_image(const ps_cli_key *k, const unsigned char **p,
                                         const unsigned char *line, size_t llen,
                                         size_t *len)
{
    const unsigned char *img;
    uint32_t len32;
    if (key_is_line(k)) {
        *len = llen;
        return line;
    }
    memcpy(&len32, *p, sizeof len32);
    img = *p + sizeof len32;
    *p = img + len32;
    *len = len32;
    return img;
}

int ps_cli_keys_record_compare(const ps_cli_keys *ks, const unsigned char *ka,
                               const unsigned char *la, size_t lla,
                               const unsigned char *kb, const unsigned char *lb,
                               size_t llb, int last)
{
    size_t i, na, nb;
    int c;
    for (i = 0; i < ks->n; i++) {
        const unsigned char *ia = record_image(&ks->k[i], &ka, la, lla, &na);
        const unsigned char *ib = record_image(&ks->k[i], &kb, lb, llb, &nb);
        c = cmp_bytes(ia, na, ib, nb);
        if (c != 0)
            return ks->k[i].reverse ? -c : c;
    }
    if (!last || !ks->last_resort)
        return 0;
    c = cmp_bytes(la, lla, lb, llb);
    return ks->reverse ? -c : c;
}
