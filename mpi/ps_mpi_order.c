/*
 * ps_mpi_order.c - the order image of keys: unsigned integers that
 * compare as the keys sort.  Samples, splitters and the partition compare
 * keys of every type through this one map, so none of them has per-type
 * branches.
 */
#include <config.h>

#include "ps_mpi_internal.h"

/* Unsigned keys are their own image.  Signed integers: flipping the sign
 * bit moves the negatives below the positives and keeps each half in
 * order (c0 = the sign bit).  Floats (IEEE 754 totalOrder by bit
 * pattern): a negative value's magnitude grows as its bits grow, so all
 * its bits are flipped (c0 ^ c1 = every bit); a positive one just gets
 * the sign bit set (c0), to land above every negative.  -0.0 and +0.0,
 * and NaNs by sign and payload, stay distinct, as in ps_sort_keys.
 * PS_DESCENDING then inverts every bit of the width, which reverses the
 * order; ties are still broken by (rank, index) ascending, which is what
 * makes the descending sort stable rather than a reversed one. */
void ps_mpi_order_init(ps_mpi_order *o, ps_type type, unsigned flags)
{
    size_t ks = ps_type_size(type);
    uint64_t mask, sign;

    if (ks == 0)
        ks = 1;     /* an unknown type: refused elsewhere, kept harmless here */
    mask = ks == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * ks)) - 1;
    sign = UINT64_C(1) << (8 * ks - 1);
    o->key_size = ks;
    o->sign_shift = (unsigned)(8 * ks - 1);
    o->c0 = o->c1 = 0;
    switch (type) {
    case PS_I8: case PS_I16: case PS_I32: case PS_I64:
        o->c0 = sign;
        break;
    case PS_F16: case PS_BF16: case PS_F32: case PS_F64:
        o->c0 = sign;
        o->c1 = mask ^ sign;
        break;
    default:
        break;
    }
    if (flags & PS_DESCENDING)
        o->c0 ^= mask;
}
