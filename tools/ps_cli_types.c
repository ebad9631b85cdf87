/*
 * ps_cli_types.c - the key types as the command line sees them: names,
 * raw bits, sort order, and text in and out.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ps_cli.h"

const ps_cli_type ps_cli_types[] = {
    { "u8", PS_U8, 1, 0, 0 },   { "u16", PS_U16, 2, 0, 0 },
    { "u32", PS_U32, 4, 0, 0 }, { "u64", PS_U64, 8, 0, 0 },
    { "i8", PS_I8, 1, 1, 0 },   { "i16", PS_I16, 2, 1, 0 },
    { "i32", PS_I32, 4, 1, 0 }, { "i64", PS_I64, 8, 1, 0 },
    { "f32", PS_F32, 4, 0, 1 }, { "f64", PS_F64, 8, 0, 1 },
};
const size_t ps_cli_ntypes = sizeof ps_cli_types / sizeof ps_cli_types[0];

const ps_cli_type *ps_cli_type_by_name(const char *name)
{
    size_t i;
    for (i = 0; i < ps_cli_ntypes; i++)
        if (strcmp(ps_cli_types[i].name, name) == 0)
            return &ps_cli_types[i];
    return NULL;
}

const char *ps_cli_type_names(void)
{
    return "u8 u16 u32 u64 i8 i16 i32 i64 f32 f64";
}

/* memcpy of the low bytes is right because the keys are little-endian in
 * memory, as the file format is; the tool does not build big-endian. */
uint64_t ps_cli_get_bits(const ps_cli_type *t, const void *keys, size_t i)
{
    uint64_t b = 0;
    memcpy(&b, (const unsigned char *)keys + i * t->size, t->size);
    return b;
}

void ps_cli_put_bits(const ps_cli_type *t, void *keys, size_t i, uint64_t bits)
{
    memcpy((unsigned char *)keys + i * t->size, &bits, t->size);
}

void ps_cli_put_float(const ps_cli_type *t, void *keys, size_t i, double v)
{
    if (t->type == PS_F32) {
        float f = (float)v;
        memcpy((unsigned char *)keys + i * 4, &f, 4);
    } else {
        memcpy((unsigned char *)keys + i * 8, &v, 8);
    }
}

uint64_t ps_cli_order_key(const ps_cli_type *t, uint64_t bits)
{
    unsigned width = (unsigned)t->size * 8;
    uint64_t sign = (uint64_t)1 << (width - 1);
    uint64_t mask = width == 64 ? ~(uint64_t)0 : ((uint64_t)1 << width) - 1;
    if (t->is_signed)
        return (bits ^ sign) & mask;
    if (t->is_float)
        /* totalOrder: negatives reversed below the positives. */
        return (bits & sign) ? (~bits & mask) : (bits | sign);
    return bits;
}

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* What follows a number may only be blanks (and a CR from DOS files). */
static int only_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    return *s == '\0';
}

int ps_cli_parse(const ps_cli_type *t, const char *s, void *keys, size_t i,
                 const char **why)
{
    char *end;
    s = skip_blanks(s);
    if (only_blanks(s)) {
        *why = "empty line";
        return -1;
    }
    errno = 0;
    if (t->is_float) {
        if (t->type == PS_F32) {
            /* strtof, not (float)strtod: one rounding, not two. */
            float f = strtof(s, &end);
            if (end != s && errno == ERANGE && isinf(f))
                goto range;
            memcpy((unsigned char *)keys + i * 4, &f, 4);
        } else {
            double d = strtod(s, &end);
            if (end != s && errno == ERANGE && isinf(d))
                goto range;
            memcpy((unsigned char *)keys + i * 8, &d, 8);
        }
        /* Underflow (ERANGE with a tiny result) is fine: the nearest value. */
    } else if (t->is_signed) {
        unsigned width = (unsigned)t->size * 8;
        long long v = strtoll(s, &end, 10);
        if (end == s)
            goto bad;
        if (errno == ERANGE)
            goto range;
        if (width < 64 && (v < -(1LL << (width - 1)) || v >= (1LL << (width - 1))))
            goto range;
        ps_cli_put_bits(t, keys, i, (uint64_t)v);
    } else {
        unsigned width = (unsigned)t->size * 8;
        unsigned long long v;
        /* strtoull accepts "-1" and wraps it; a key file with a negative
         * number for an unsigned type is a mistake worth reporting. */
        if (*s == '-')
            goto range;
        v = strtoull(s, &end, 10);
        if (end == s)
            goto bad;
        if (errno == ERANGE || (width < 64 && v >> width != 0))
            goto range;
        ps_cli_put_bits(t, keys, i, (uint64_t)v);
    }
    if (end == s)
        goto bad;
    if (!only_blanks(end))
        goto bad;
    return 0;
bad:
    *why = "not a number";
    return -1;
range:
    *why = "out of range for the type";
    return -1;
}

int ps_cli_parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return -1;
    if (end[0] == '^') {
        /* 2^20: the way sizes are written in papers and in --sizes. */
        unsigned long long e;
        char *e_end;
        if (v != 2 || !isdigit((unsigned char)end[1]))
            return -1;
        e = strtoull(end + 1, &e_end, 10);
        if (e >= sizeof(size_t) * 8 || *e_end != '\0')
            return -1;
        *out = (size_t)1 << e;
        return 0;
    }
    if (*end != '\0') {
        unsigned long long mult = 0;
        int bin = end[1] == 'i';
        switch (end[0]) {
        case 'k': case 'K': mult = bin ? 1ull << 10 : 1000ull; break;
        case 'M': mult = bin ? 1ull << 20 : 1000000ull; break;
        case 'G': mult = bin ? 1ull << 30 : 1000000000ull; break;
        default: return -1;
        }
        if (end[1 + bin] != '\0' || (v != 0 && mult > ~0ull / v))
            return -1;
        v *= mult;
    }
    if (v > (size_t)-1)
        return -1;
    *out = (size_t)v;
    return 0;
}
