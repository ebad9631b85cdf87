/*
 * ps_kernel_records.cl - the kernels of the device records sorts
 * (ps_cuda_sort_records, ps_cuda_argsort_records, ps_cuda_argsort_columns,
 * the HIP and OpenCL forms of the same), in the portable dialect.
 *
 * The host numbers the rows in the scratch (ps_topk_iota), then for each
 * word of the plan (lib/ps_recplan.h), least significant first, builds its
 * images with ps_rec_key, a launch per key of the word, reading row
 * perm[i] for position i, and sorts the images with the permutation as
 * 8-byte values by the stable pair sort of ps_kernel_radix.cl and
 * ps_kernel_onesweep.cl.  Each sort is stable and orders by its word
 * first, so after the most significant word the permutation is the
 * lexicographic stable order.  ps_rec_gather then moves the records
 * through it, for ps_*_sort_records.  The images are PS_KEY wide: the
 * host launches ps_rec_key from the instantiation whose key width is the
 * word's (any value width; the sort's is 8).  Keys and records are read
 * byte by byte, so that they need no alignment; multi-byte keys are
 * little-endian, as on every device these backends run on.
 */
#ifndef PS_KERNEL_DIALECT_H
#include "ps_kernel_dialect.h"
#endif

/*
 * One key's order images, shifted into their word: for i < n, the key of
 * row r = perm[poff + i] is the kb bytes (1, 2, 4 or 8) at
 * src[soff + r * stride ..]; its image is key ^ flip, ^ fneg too when the
 * key's top bit is set (ps_keytype.h's ps_enc), shifted left by shift
 * (< 64), and stored at img[ioff + i] (first != 0: the word's first key)
 * or ORed into it.  Grid-stride.
 */
PS_KERNEL_WG(PS_WG) ps_rec_key(PS_GLOBAL const ps_u8 *src, ps_u64 soff,
                               ps_u64 stride, ps_u32 kb, ps_u64 flip,
                               ps_u64 fneg, ps_u32 shift, ps_u32 first,
                               PS_GLOBAL const ps_u64 *perm, ps_u64 poff,
                               PS_GLOBAL PS_KEY *img, ps_u64 ioff, ps_u64 n)
{
    ps_u64 i = (ps_u64)PS_GROUP() * PS_WG + PS_LID();
    ps_u64 step = (ps_u64)PS_NGROUPS() * PS_WG;
    for (; i < n; i += step) {
        PS_GLOBAL const ps_u8 *p = src + soff + perm[poff + i] * stride;
        ps_u64 x = 0, v;
        ps_u32 b;
        for (b = kb; b > 0; b--)
            x = (x << 8) | p[b - 1];
        v = x ^ flip;
        if ((x >> (8 * kb - 1)) & 1)
            v ^= fneg;
        v <<= shift;
        img[ioff + i] = first ? (PS_KEY)v : (PS_KEY)(img[ioff + i] | (PS_KEY)v);
    }
}

/*
 * Records through the permutation: byte j of dst[doff ..] (j < n * size)
 * is byte j % size of record perm[poff + j / size] of src[soff ..].  One
 * byte a work-item, so that writes are contiguous whatever the record's
 * size and alignment.  Grid-stride.
 */
PS_KERNEL_WG(PS_WG) ps_rec_gather(PS_GLOBAL const ps_u8 *src, ps_u64 soff,
                                  PS_GLOBAL ps_u8 *dst, ps_u64 doff,
                                  PS_GLOBAL const ps_u64 *perm, ps_u64 poff,
                                  ps_u64 size, ps_u64 n)
{
    ps_u64 j = (ps_u64)PS_GROUP() * PS_WG + PS_LID();
    ps_u64 step = (ps_u64)PS_NGROUPS() * PS_WG, total = n * size;
    for (; j < total; j += step) {
        ps_u64 row = j / size;
        dst[doff + j] = src[soff + perm[poff + row] * size + (j - row * size)];
    }
}
