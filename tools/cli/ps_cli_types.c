/*
 * ps_cli_types.c - the key types as the command line sees them: names,
 * raw bits, sort order, and text in and out.
 */
#include <ctype.h>
#include <errno.h>
#include <fenv.h>
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
    { "f16", PS_F16, 2, 0, 1 }, { "bf16", PS_BF16, 2, 0, 1 },
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
    return "u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64";
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

unsigned ps_cli_float_digits(const ps_cli_type *t)
{
    switch (t->type) {
    case PS_F16: return 11;
    case PS_BF16: return 8;
    case PS_F32: return 24;
    default: return 53;
    }
}

/*
 * Both half-precision formats are binary64 with fewer bits: 10 fraction
 * bits and 5 exponent bits for binary16, 7 and 8 for bfloat16.  Rounding
 * works on the double's 53-bit significand directly, so that no second
 * rounding (through float, say) gets in the way.
 */
int ps_cli_half_bits(const ps_cli_type *t, double d, uint16_t *bits, int *tie)
{
    unsigned frac = t->type == PS_BF16 ? 7 : 10;
    int bias = t->type == PS_BF16 ? 127 : 15;
    uint32_t inf = (uint32_t)(2 * bias + 1) << frac;
    uint64_t b, sig, keep, rem, halfway;
    uint32_t sign, h;
    int e, shift;

    memcpy(&b, &d, 8);
    sign = (uint32_t)(b >> 48) & 0x8000u;
    e = (int)((b >> 52) & 0x7ff);
    sig = b & (((uint64_t)1 << 52) - 1);
    *tie = 0;
    if (e == 0x7ff) {
        /* A NaN stays a NaN, quiet, with its payload when it fits below
         * the quiet bit, as strtof does with nan(...) for f32. */
        uint64_t payload = sig & (((uint64_t)1 << 51) - 1);
        if (sig == 0)
            h = inf;
        else
            h = inf | (1u << (frac - 1)) |
                (payload >> (frac - 1) == 0 ? (uint32_t)payload : 0);
        *bits = (uint16_t)(sign | h);
        return 0;
    }
    if (e == 0) {
        /* Zero, or a double subnormal: far below half of the least
         * subnormal of either format. */
        *bits = (uint16_t)sign;
        return 0;
    }
    sig |= (uint64_t)1 << 52;
    e -= 1023;
    /* Below the least normal exponent, the significand loses one more bit
     * per step: the result is a subnormal (or zero, or the least normal
     * after a carry). */
    shift = 52 - (int)frac + (e < 1 - bias ? 1 - bias - e : 0);
    if (shift > 53) {
        *bits = (uint16_t)sign;
        return 0;
    }
    keep = sig >> shift;
    rem = sig & (((uint64_t)1 << shift) - 1);
    halfway = (uint64_t)1 << (shift - 1);
    *tie = rem == halfway;
    keep += rem > halfway || (rem == halfway && (keep & 1));
    /* keep holds the implicit bit of a normal number, so adding it to the
     * exponent field less one also carries a rounding overflow of the
     * significand into the exponent; a subnormal has exponent field 0 and
     * no implicit bit, and its carry makes the least normal. */
    if (e < 1 - bias)
        h = (uint32_t)keep;
    else
        h = ((uint32_t)(e + bias - 1) << frac) + (uint32_t)keep;
    if (h >= inf) {
        *bits = (uint16_t)(sign | inf);
        return -1;
    }
    *bits = (uint16_t)(sign | h);
    return 0;
}

void ps_cli_put_float(const ps_cli_type *t, void *keys, size_t i, double v)
{
    if (t->type == PS_F32) {
        float f = (float)v;
        memcpy((unsigned char *)keys + i * 4, &f, 4);
    } else if (t->type == PS_F64) {
        memcpy((unsigned char *)keys + i * 8, &v, 8);
    } else {
        uint16_t h;
        int tie;
        ps_cli_half_bits(t, v, &h, &tie);   /* beyond the range: infinity */
        memcpy((unsigned char *)keys + i * 2, &h, 2);
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

/*
 * d, the double nearest to the number the text s means, lies exactly
 * halfway between two half-precision values.  Ties go to even only when
 * the text is exactly d; "1.00048828125000000001" is above the midpoint
 * 1 + 2^-11 that strtod rounds it to, and must round up.  strtod rounded
 * toward each infinity says on which side the text is: it returns the
 * neighbour of d on that side, which is not a midpoint, so rounding it to
 * half precision gives the right answer.  (glibc's strtod honours the
 * rounding mode, as C's Annex F asks; one that did not would give d back,
 * and ties to even, the answer of rounding twice.)
 */
static double off_the_tie(const char *s, double d)
{
    int mode = fegetround();
    double up, down;
    fesetround(FE_UPWARD);
    up = strtod(s, NULL);
    fesetround(FE_DOWNWARD);
    down = strtod(s, NULL);
    fesetround(mode);
    return up != d ? up : down;
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
        if (t->size == 2) {
            double d = strtod(s, &end);
            uint16_t h;
            int tie, rc;
            if (end == s || !only_blanks(end))
                goto bad;
            /* Refused, as f32 and f64 refuse what rounds to infinity:
             * text beyond the largest finite value after rounding (65504
             * for f16, about 3.39e38 for bf16); "inf" itself is fine. */
            if (errno == ERANGE && isinf(d))
                goto range;
            rc = ps_cli_half_bits(t, d, &h, &tie);
            if (tie)    /* 65519.99999999999999999 rounds to 65520, a tie */
                rc = ps_cli_half_bits(t, off_the_tie(s, d), &h, &tie);
            if (rc != 0)
                goto range;
            ps_cli_put_bits(t, keys, i, h);
        } else if (t->type == PS_F32) {
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
