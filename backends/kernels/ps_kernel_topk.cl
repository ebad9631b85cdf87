/*
 * ps_kernel_topk.cl - the two kernels of the device top-k (ps_cuda_topk,
 * ps_hip_topk, ps_opencl_topk and their _segments forms), in the portable
 * dialect.
 *
 * The host copies the keys into scratch, numbers them with ps_topk_iota
 * (64-bit indices into the whole array), sorts the copy with the indices as
 * values by the stable pair sort (plain or segmented) of
 * ps_kernel_radix.cl, ps_kernel_onesweep.cl and ps_kernel_segments.cl, and
 * then ps_topk_gather writes the first min(k, len) of each segment to its
 * slots.  A stable sort of (key, index) pairs puts equal keys in index
 * order, so the result is the first k of the stable sorted order bit for
 * bit.  It needs the sort's instantiation with 8-byte values
 * (PS_VAL_BYTES 8) but is compiled into every one (it does not use
 * PS_VAL), and takes PS_KEY from ps_kernel_radix.cl, included before it.
 */
#ifndef PS_KERNEL_DIALECT_H
#include "ps_kernel_dialect.h"
#endif

/* idx[ioff + i] = i for every i < n, in a grid-stride loop. */
PS_KERNEL_WG(PS_WG) ps_topk_iota(PS_GLOBAL ps_u64 *idx, ps_u64 ioff, ps_u64 n)
{
    ps_u64 i = (ps_u64)PS_GROUP() * PS_WG + PS_LID();
    ps_u64 stride = (ps_u64)PS_NGROUPS() * PS_WG;
    for (; i < n; i += stride)
        idx[ioff + i] = i;
}

/* Sorted position p of skeys/sidx to output slot `slot`: the key, with
 * want_idx its index (sidx[p], into the whole array), and with vwords > 0
 * the value at that index, vwords 32-bit words (1 or 2) copied word by
 * word so that one kernel serves both value widths. */
PS_FN void ps_topk_put(PS_GLOBAL const PS_KEY *skeys, PS_GLOBAL const ps_u64 *sidx,
                       ps_u64 p, ps_u64 slot, PS_GLOBAL const ps_u32 *vals,
                       ps_u32 vwords, PS_GLOBAL PS_KEY *okeys,
                       PS_GLOBAL ps_u32 *ovals, PS_GLOBAL ps_u64 *oidx,
                       ps_u32 want_idx)
{
    ps_u64 src = sidx[p];
    ps_u32 w;
    okeys[slot] = skeys[p];
    if (want_idx)
        oidx[slot] = src;
    for (w = 0; w < vwords; w++)
        ovals[slot * vwords + w] = vals[src * vwords + w];
}

/*
 * The results.  nseg == 0 (one array): sorted positions 0 .. m - 1 go to
 * slots 0 .. m - 1 (the host passes m = min(k, n)), one position a
 * work-item.  nseg > 0 (the host passes m = n): work-group g takes
 * segments g, g + groups, ...; for segment s its work-items copy
 * positions offs[s] + j, j < min(k, len_s), to slots s * k + j, so each
 * segment's two offsets are read once per work-group and a short segment
 * costs no search.  Slots no position maps to are not written.  Offsets
 * are 64-bit words from element ooff of offs, checked by the segmented
 * sort (from 0 to n, not decreasing) when n >= 2; they are clamped to
 * [0, m] here, which changes nothing for those and keeps the unchecked
 * ones of n = 1 inside the arrays (len_s <= 1: slot s * k at most).
 * Every pointer comes with its element offset.
 */
PS_KERNEL_WG(PS_WG) ps_topk_gather(PS_GLOBAL const PS_KEY *skeys, ps_u64 skoff,
                                   PS_GLOBAL const ps_u64 *sidx, ps_u64 sioff,
                                   PS_GLOBAL const ps_u64 *offs, ps_u64 ooff,
                                   ps_u32 nseg, ps_u64 m, ps_u64 k,
                                   PS_GLOBAL const ps_u32 *vals, ps_u64 voff,
                                   ps_u32 vwords,
                                   PS_GLOBAL PS_KEY *okeys, ps_u64 okoff,
                                   PS_GLOBAL ps_u32 *ovals, ps_u64 ovoff,
                                   PS_GLOBAL ps_u64 *oidx, ps_u64 oioff,
                                   ps_u32 want_idx)
{
    PS_GLOBAL const PS_KEY *sk = skeys + skoff;
    PS_GLOBAL const ps_u64 *si = sidx + sioff;
    PS_GLOBAL const ps_u32 *v = vals + voff;
    PS_GLOBAL PS_KEY *ok = okeys + okoff;
    PS_GLOBAL ps_u32 *ov = ovals + ovoff;
    PS_GLOBAL ps_u64 *oi = oidx + oioff;
    ps_u32 s;
    ps_u64 j;
    if (nseg == 0) {
        for (j = (ps_u64)PS_GROUP() * PS_WG + PS_LID(); j < m;
             j += (ps_u64)PS_NGROUPS() * PS_WG)
            ps_topk_put(sk, si, j, j, v, vwords, ok, ov, oi, want_idx);
        return;
    }
    for (s = PS_GROUP(); s < nseg; s += PS_NGROUPS()) {
        ps_u64 hi = offs[ooff + s + 1], lo = offs[ooff + s], cnt;
        hi = hi < m ? hi : m;
        lo = lo < hi ? lo : hi;
        cnt = hi - lo < k ? hi - lo : k;
        for (j = PS_LID(); j < cnt; j += PS_WG)
            ps_topk_put(sk, si, lo + j, (ps_u64)s * k + j, v, vwords, ok, ov, oi,
                        want_idx);
        if (s > 0xFFFFFFFFu - PS_NGROUPS())
            break;      /* s + groups would wrap */
    }
}
