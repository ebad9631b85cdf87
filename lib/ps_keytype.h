/*
 * ps_keytype.h - what the library knows of its key types: their widths,
 * which are signed or floats, and the order transforms that map every key
 * to an unsigned image whose unsigned order is the order asked for.  A leaf
 * header (the public portsort.h and the C library only), shared by the
 * core, the reference sort and every backend (through ps_backend.h), so
 * that the facts of a type live in one place and none of those parts has
 * to stand above another to get them.
 */
#ifndef PS_KEYTYPE_H
#define PS_KEYTYPE_H

#include <stdint.h>

#include "portsort.h"

/* ------------------------------------------------------------------------
 * Order transforms.
 *
 * Every key is mapped to an unsigned integer of the same width whose
 * unsigned order is the requested order:
 *   unsigned   k
 *   signed     k ^ sign bit
 *   float      k ^ sign bit when positive, ~k when negative (totalOrder)
 *   descending the above, complemented
 * Equal keys map to equal images, so a stable sort of the images is a
 * stable sort of the keys in either direction.  ps_xf_make() computes two
 * masks once per call; encoding is then k ^ flip ^ (smear(k) & fneg), where
 * smear(k) is all ones when k's top bit is set.
 * ------------------------------------------------------------------------ */
typedef struct ps_xf {
    uint64_t flip;  /* xor applied to every key */
    uint64_t fneg;  /* xor applied on top when the key's top bit is set */
} ps_xf;

static inline int ps_type_is_signed(ps_type t)
{
    return t >= PS_I8 && t <= PS_I64;
}

static inline int ps_type_is_float(ps_type t)
{
    return t == PS_F16 || t == PS_BF16 || t == PS_F32 || t == PS_F64;
}

/* Width in bytes of a type: 1, 2, 4 or 8, and 0 for a value that is not
 * a ps_type.  Every type is listed: a new one must be added here (the
 * compiler's -Wswitch names the switch that lacks it), not fall into a
 * default width. */
static inline unsigned ps_type_bytes(ps_type t)
{
    switch (t) {
    case PS_U8: case PS_I8: return 1;
    case PS_U16: case PS_I16: case PS_F16: case PS_BF16: return 2;
    case PS_U32: case PS_I32: case PS_F32: return 4;
    case PS_U64: case PS_I64: case PS_F64: return 8;
    }
    return 0;
}

/* The last ps_type: valid types are PS_U8..PS_TYPE_LAST. */
#define PS_TYPE_LAST PS_BF16

/* 1 when t names a key type of this version of the library. */
static inline int ps_type_valid(int t)
{
    return t >= PS_U8 && t <= PS_TYPE_LAST;
}

static inline ps_xf ps_xf_make(ps_type t, unsigned flags)
{
    unsigned bits = 8u * ps_type_bytes(t);
    uint64_t all = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
    uint64_t sign = (uint64_t)1 << (bits - 1);
    ps_xf xf = { 0, 0 };
    if (ps_type_is_signed(t) || ps_type_is_float(t))
        xf.flip = sign;
    if (ps_type_is_float(t))
        xf.fneg = all & ~sign;
    if (flags & PS_DESCENDING)
        xf.flip ^= all;
    return xf;
}

#define PS_XF_DEFINE(W)                                                      \
static inline uint##W##_t ps_enc##W(uint##W##_t k, ps_xf xf)                 \
{                                                                            \
    uint##W##_t smear = (uint##W##_t)(0 - (uint##W##_t)(k >> (W - 1)));      \
    return (uint##W##_t)(k ^ (uint##W##_t)xf.flip                            \
                         ^ (smear & (uint##W##_t)xf.fneg));                  \
}                                                                            \
/* Inverse of ps_enc##W.  Undoing flip leaves k ^ (smear(k) & fneg), whose \
 * top bit is still k's (fneg never has it), so the same step undoes it. */ \
static inline uint##W##_t ps_dec##W(uint##W##_t t, ps_xf xf)                 \
{                                                                            \
    uint##W##_t u = (uint##W##_t)(t ^ (uint##W##_t)xf.flip);                 \
    uint##W##_t smear = (uint##W##_t)(0 - (uint##W##_t)(u >> (W - 1)));      \
    return (uint##W##_t)(u ^ (smear & (uint##W##_t)xf.fneg));                \
}
PS_XF_DEFINE(8)
PS_XF_DEFINE(16)
PS_XF_DEFINE(32)
PS_XF_DEFINE(64)
#undef PS_XF_DEFINE

#endif /* PS_KEYTYPE_H */
