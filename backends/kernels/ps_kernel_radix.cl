/*
 * ps_kernel_radix.cl - LSD radix sort kernels, reduce-then-scan per digit
 * (Merrill & Grimshaw, "Revisiting Sorting for GPGPU Stream
 * Architectures"), in the portable dialect.
 *
 * Compile-time parameters (the host passes them as -D options):
 *   PS_KEY_BITS    8, 16, 32 or 64: width of the keys
 *   PS_VAL_BYTES   0 (keys only), 4 or 8: width of the values
 *   PS_DIGIT_BITS  bits per digit (radix 2^PS_DIGIT_BITS)
 *   PS_WG          work-group size (every kernel requires exactly this)
 *   PS_ITEMS       keys per work-item per tile; a tile is PS_WG * PS_ITEMS
 *
 * Keys are sorted as unsigned images: enc(k) = k ^ flip ^ (smear(k) & fneg)
 * (see ps_backend.h), which covers signed, float and descending orders.  The
 * first pass that moves data encodes on load and the last one decodes on
 * store, so no separate transform pass ever touches memory.
 *
 * Host-side sequence for n > one tile, with nb work-groups ("blocks"), each
 * owning a contiguous run of tpb tiles:
 *   ps_hist      once: every digit's histogram over all keys (global
 *                atomics on PASSES*RADIX totals); the host skips passes
 *                whose digit is the same for every key.
 *   per pass:  ps_upsweep   per-block digit counts, digit-major counts[d*nb+b]
 *              ps_scan      one work-group: exclusive scan of counts, which
 *                           gives each (digit, block) its output offset
 *              ps_downsweep per tile: stable rank in local memory, then a
 *                           scatter in digit order (consecutive work-items
 *                           write consecutive addresses within a digit)
 * n <= one tile: ps_sort_local does every pass inside one work-group.
 *
 * No work-group ever waits for another: kernels communicate only through
 * kernel boundaries, so the path is valid on any OpenCL device.
 */
#ifndef PS_KERNEL_DIALECT_H
#include "ps_kernel_dialect.h"
#endif

#define RADIX (1u << PS_DIGIT_BITS)
#define DMASK (RADIX - 1u)
/* Word i of the RADIX x WG counter matrix, with one word of padding after
 * every 32: the matrix is read by column (cnt[d*WG + t], consecutive items
 * at consecutive words) and, in the rank scan, by chunk (item t reads
 * words t*RADIX .. t*RADIX + RADIX-1).  Unpadded, a warp's chunk reads
 * hit the banks at a stride of RADIX words, 16 items to a bank with 4-bit
 * digits; padded, the 32 items of a warp hit 32 banks in both patterns. */
#if PS_WG >= 32
#  define PS_CNT(i) ((i) + ((i) >> 5))
#else
/* One-item groups (pocl on a CPU) have no warps to conflict, and pocl
 * 3.1's parallel-region pass asserts on the padded form there. */
#  define PS_CNT(i) (i)
#endif
#define PS_CNT_WORDS PS_CNT(RADIX * PS_WG)
#define TILE (PS_WG * PS_ITEMS)
#define PASSES ((PS_KEY_BITS + PS_DIGIT_BITS - 1) / PS_DIGIT_BITS)

#if PS_KEY_BITS == 8
#  define PS_KEY ps_u8
#elif PS_KEY_BITS == 16
#  define PS_KEY ps_u16
#elif PS_KEY_BITS == 32
#  define PS_KEY ps_u32
#else
#  define PS_KEY ps_u64
#endif

#if PS_VAL_BYTES == 4
#  define PS_VAL ps_u32
#elif PS_VAL_BYTES == 8
#  define PS_VAL ps_u64
#endif

/* Value plumbing that disappears for keys-only builds, so one kernel body
 * serves both. */
#ifdef PS_VAL
#  define VAL_ARGS(v, o) , PS_GLOBAL PS_VAL *v, ps_u64 o
#  define VAL_LOCAL_ARGS(a, b) , PS_LOCAL PS_VAL *a, PS_LOCAL PS_VAL *b
#  define VAL_PASS(a, b) , a, b
#  define VAL_DO(x) x
#else
#  define VAL_ARGS(v, o)
#  define VAL_LOCAL_ARGS(a, b)
#  define VAL_PASS(a, b)
#  define VAL_DO(x)
#endif

PS_FN PS_KEY ps_enc(PS_KEY k, PS_KEY flip, PS_KEY fneg)
{
    PS_KEY smear = (PS_KEY)(0 - (PS_KEY)(k >> (PS_KEY_BITS - 1)));
    return (PS_KEY)(k ^ flip ^ (smear & fneg));
}

PS_FN PS_KEY ps_dec(PS_KEY t, PS_KEY flip, PS_KEY fneg)
{
    PS_KEY u = (PS_KEY)(t ^ flip);
    PS_KEY smear = (PS_KEY)(0 - (PS_KEY)(u >> (PS_KEY_BITS - 1)));
    return (PS_KEY)(u ^ (smear & fneg));
}

PS_FN ps_u32 ps_digit(PS_KEY k, ps_u32 shift)
{
    return (ps_u32)(k >> shift) & DMASK;
}

/* The elements [*lo, *hi) that block b of nb owns: tpb whole tiles. */
PS_FN void ps_block_range(ps_u32 n, ps_u32 tpb, ps_u32 b, ps_u32 *lo, ps_u32 *hi)
{
    ps_u64 s = (ps_u64)b * tpb * TILE;
    ps_u64 e = s + (ps_u64)tpb * TILE;
    *lo = (ps_u32)(s < n ? s : n);
    *hi = (ps_u32)(e < n ? e : n);
}

#if defined(PS_WARP_SIZE) && PS_WG % 64 == 0
/* Inclusive scan of v over the first `width` lanes of the warp (every lane
 * calls it; the others' results are meaningless). */
PS_FN ps_u32 ps_warp_scan(ps_u32 v, ps_u32 lane, ps_u32 width)
{
    ps_u32 off, u;
    for (off = 1; off < width; off <<= 1) {
        u = PS_WARP_SHFL(v, lane >= off ? lane - off : lane);
        if (lane >= off)
            v += u;
    }
    return v;
}
#endif

/* Exclusive scan of part[0..PS_WG) in place by the whole work-group;
 * returns the total.  Callers must not touch part until the next barrier
 * after the return.  With warp shuffles (CUDA, HIP, the stand-in): each
 * warp scans its run in registers, the first warp scans the warp totals:
 * seven barriers, where Hillis-Steele in local memory (the path without
 * shuffles: OpenCL 1.2) takes two per doubling, 19 for 256 items. */
PS_FN ps_u32 ps_wg_scan(PS_LOCAL ps_u32 *part, ps_u32 t)
{
#if defined(PS_WARP_SIZE) && PS_WG % 64 == 0
    ps_u32 lane = t & (PS_WARP_SIZE - 1u), w = t / PS_WARP_SIZE;
    ps_u32 nw = PS_WG / PS_WARP_SIZE, own, v, x = 0, y = 0, total;
    PS_BARRIER();
    own = part[t];
    v = ps_warp_scan(own, lane, PS_WARP_SIZE);
    PS_BARRIER();
    if (lane == PS_WARP_SIZE - 1u)
        part[w] = v;
    PS_BARRIER();
    if (w == 0) {
        x = lane < nw ? part[lane] : 0u;
        y = ps_warp_scan(x, lane, nw);
    }
    PS_BARRIER();
    /* Warp w's offset in part[w], the total after them. */
    if (w == 0 && lane < nw)
        part[lane] = y - x;
    if (w == 0 && lane == nw - 1u)
        part[nw] = y;
    PS_BARRIER();
    total = part[nw];
    v = part[w] + v - own;
#else
    ps_u32 own, total, off, v;
    PS_BARRIER();
    own = part[t];
    for (off = 1; off < PS_WG; off <<= 1) {
        v = t >= off ? part[t - off] : 0u;
        PS_BARRIER();
        part[t] += v;
        PS_BARRIER();
    }
    total = part[PS_WG - 1];
    v = part[t] - own;
#endif
    PS_BARRIER();
    part[t] = v;
    PS_BARRIER();
    return total;
}

/*
 * Stable rank of the `valid` keys in lk (already encoded) by the digit at
 * `shift`, writing them in digit order to lk2 (values lv -> lv2), and the
 * start of each digit's run in tstart[0..RADIX] (tstart[RADIX] = valid).
 *
 * Work-item t owns the blocked slice [t*ITEMS, t*ITEMS+ITEMS), so ranking by
 * (digit, t, position in slice) is input order within a digit: stable.  Its
 * counters are column t of the digit-major matrix cnt[d*WG + t], so no
 * atomics are needed, and an exclusive scan of the whole matrix in memory
 * order gives every (digit, item) its first rank.
 *
 * Returns 0 without moving anything when every key has the same digit (the
 * permutation would be the identity); the answer is the same in every
 * work-item, so callers may branch on it around barriers.
 *
 * tstart[RADIX] is written inside the strided loop rather than by a lone
 * `if (t == 0)` store: on pocl 3.1 that store was not seen after the next
 * barrier whenever RADIX < PS_WG (the GPU-shaped tuning; the differential
 * test caught it, and no race in this code was found).  The loop form has
 * no special case and passes.
 */
PS_FN int ps_rank_tile(PS_LOCAL PS_KEY *lk, PS_LOCAL PS_KEY *lk2
                       VAL_LOCAL_ARGS(lv, lv2),
                       PS_LOCAL ps_u32 *cnt, PS_LOCAL ps_u32 *part,
                       PS_LOCAL ps_u32 *tstart, ps_u32 valid, ps_u32 shift,
                       ps_u32 t)
{
    ps_u32 d, j, i, sum, run, first;
    int moved;

    for (d = 0; d < RADIX; d++)
        cnt[PS_CNT(d * PS_WG + t)] = 0;
    for (j = 0; j < PS_ITEMS; j++) {
        i = t * PS_ITEMS + j;
        if (i < valid)
            cnt[PS_CNT(ps_digit(lk[i], shift) * PS_WG + t)]++;
    }
    PS_BARRIER();
    /* Item t scans the contiguous chunk [t*RADIX, (t+1)*RADIX) of the
     * matrix; the chunk sums are scanned across the work-group. */
    sum = 0;
    for (j = 0; j < RADIX; j++)
        sum += cnt[PS_CNT(t * RADIX + j)];
    part[t] = sum;
    ps_wg_scan(part, t);
    run = part[t];
    for (j = 0; j < RADIX; j++) {
        ps_u32 c = cnt[PS_CNT(t * RADIX + j)];
        cnt[PS_CNT(t * RADIX + j)] = run;
        run += c;
    }
    PS_BARRIER();
    for (d = t; d <= RADIX; d += PS_WG)
        tstart[d] = d < RADIX ? cnt[PS_CNT(d * PS_WG)] : valid;
    PS_BARRIER();
    /* Every item reaches the same barriers on both outcomes: no compiler
     * has to prove that the early-out is uniform. */
    first = ps_digit(lk[0], shift);
    moved = tstart[first + 1] - tstart[first] != valid;
    for (j = 0; moved && j < PS_ITEMS; j++) {
        i = t * PS_ITEMS + j;
        if (i < valid) {
            PS_KEY k = lk[i];
            ps_u32 r = cnt[PS_CNT(ps_digit(k, shift) * PS_WG + t)]++;
            lk2[r] = k;
            VAL_DO(lv2[r] = lv[i];)
        }
    }
    PS_BARRIER();
    return moved;
}

/* Every digit's histogram over all n keys, added to totals[p*RADIX + d]
 * (zeroed by the host).  Grid: nb blocks. */
PS_KERNEL_WG(PS_WG) ps_hist(PS_GLOBAL const PS_KEY *keys, ps_u64 koff,
                             ps_u32 n, ps_u32 tpb,
                             PS_GLOBAL ps_u32 *totals, ps_u64 toff,
                             ps_u64 flip64, ps_u64 fneg64)
{
    PS_LOCAL_ARRAY(ps_u32, h, PASSES * RADIX);
    ps_u32 t = PS_LID(), lo, hi, i, p;
    PS_KEY flip = (PS_KEY)flip64, fneg = (PS_KEY)fneg64;

    keys += koff;
    totals += toff;
    for (i = t; i < PASSES * RADIX; i += PS_WG)
        h[i] = 0;
    PS_BARRIER();
    ps_block_range(n, tpb, PS_GROUP(), &lo, &hi);
    for (i = lo + t; i < hi; i += PS_WG) {
        PS_KEY k = ps_enc(keys[i], flip, fneg);
        for (p = 0; p < PASSES; p++) {
#if PS_WG == 1
            h[p * RADIX + ps_digit(k, p * PS_DIGIT_BITS)]++;
#else
            PS_ATOMIC_ADD_LOCAL(&h[p * RADIX + ps_digit(k, p * PS_DIGIT_BITS)], 1u);
#endif
        }
        /* Near n = 2^32, i + PS_WG would wrap and start over: stop first
         * (n is at most 2^32 - 1, so hi - i never wraps). */
        if (hi - i <= PS_WG)
            break;
    }
    PS_BARRIER();
    for (i = t; i < PASSES * RADIX; i += PS_WG)
        if (h[i] != 0)
            PS_ATOMIC_ADD_GLOBAL(&totals[i], h[i]);
}

/* Per-block counts of the digit at `shift`: counts[d * nb + b].  Keys are
 * encoded on load when enc_in (the first pass reads the caller's keys). */
PS_KERNEL_WG(PS_WG) ps_upsweep(PS_GLOBAL const PS_KEY *keys, ps_u64 koff,
                                ps_u32 n, ps_u32 tpb, ps_u32 shift,
                                PS_GLOBAL ps_u32 *counts, ps_u64 coff,
                                ps_u64 flip64, ps_u64 fneg64, ps_u32 enc_in)
{
    PS_LOCAL_ARRAY(ps_u32, cnt, PS_CNT_WORDS);
    ps_u32 t = PS_LID(), b = PS_GROUP(), nb = PS_NGROUPS(), lo, hi, i, d;
    PS_KEY flip = (PS_KEY)flip64, fneg = (PS_KEY)fneg64;

    keys += koff;
    counts += coff;
    if (!enc_in)
        flip = fneg = 0;
    for (d = 0; d < RADIX; d++)
        cnt[PS_CNT(d * PS_WG + t)] = 0;
    ps_block_range(n, tpb, b, &lo, &hi);
    /* Private column per item: no atomics; the sum comes at the end. */
    for (i = lo + t; i < hi; i += PS_WG) {
        cnt[PS_CNT(ps_digit(ps_enc(keys[i], flip, fneg), shift) * PS_WG + t)]++;
        if (hi - i <= PS_WG)    /* i + PS_WG may wrap near 2^32 */
            break;
    }
    PS_BARRIER();
    for (d = t; d < RADIX; d += PS_WG) {
        ps_u32 s = 0, j;
        for (j = 0; j < PS_WG; j++)
            s += cnt[PS_CNT(d * PS_WG + j)];
        counts[d * nb + b] = s;
    }
}

/* Exclusive scan of counts[0..len) in place, by one work-group. */
PS_KERNEL_WG(PS_WG) ps_scan(PS_GLOBAL ps_u32 *counts, ps_u64 coff, ps_u32 len)
{
    PS_LOCAL_ARRAY(ps_u32, part, PS_WG);
    ps_u32 t = PS_LID(), chunk = (len + PS_WG - 1) / PS_WG;
    ps_u32 lo = t * chunk, hi = lo + chunk, i, s = 0;

    counts += coff;
    if (lo > len)
        lo = len;
    if (hi > len)
        hi = len;
    for (i = lo; i < hi; i++)
        s += counts[i];
    part[t] = s;
    ps_wg_scan(part, t);
    s = part[t];
    for (i = lo; i < hi; i++) {
        ps_u32 c = counts[i];
        counts[i] = s;
        s += c;
    }
}

/* One pass of the digit at `shift`: block b moves its keys, tile by tile,
 * to the offsets the scan gave it.  Stable: tiles in order within a block,
 * blocks in order within a digit (the scan's layout), ranks stable within
 * a tile. */
PS_KERNEL_WG(PS_WG) ps_downsweep(PS_GLOBAL const PS_KEY *kin, ps_u64 kin_off,
                                  PS_GLOBAL PS_KEY *kout, ps_u64 kout_off
                                  VAL_ARGS(vin, vin_off)
                                  VAL_ARGS(vout, vout_off),
                                  ps_u32 n, ps_u32 tpb, ps_u32 shift,
                                  PS_GLOBAL const ps_u32 *counts, ps_u64 coff,
                                  ps_u64 flip64, ps_u64 fneg64,
                                  ps_u32 enc_in, ps_u32 dec_out)
{
    PS_LOCAL_ARRAY(PS_KEY, lk, TILE);
    PS_LOCAL_ARRAY(PS_KEY, lk2, TILE);
#ifdef PS_VAL
    PS_LOCAL_ARRAY(PS_VAL, lv, TILE);
    PS_LOCAL_ARRAY(PS_VAL, lv2, TILE);
#endif
    PS_LOCAL_ARRAY(ps_u32, cnt, PS_CNT_WORDS);
    PS_LOCAL_ARRAY(ps_u32, part, PS_WG);
    PS_LOCAL_ARRAY(ps_u32, tstart, RADIX + 1);
    PS_LOCAL_ARRAY(ps_u32, run, RADIX);
    ps_u32 t = PS_LID(), b = PS_GROUP(), nb = PS_NGROUPS(), lo, hi, base, d, j;
    PS_KEY flip = (PS_KEY)flip64, fneg = (PS_KEY)fneg64;
    PS_KEY eflip = enc_in ? flip : (PS_KEY)0, efneg = enc_in ? fneg : (PS_KEY)0;

    kin += kin_off;
    kout += kout_off;
    VAL_DO(vin += vin_off; vout += vout_off;)
    counts += coff;
    for (d = t; d < RADIX; d += PS_WG)
        run[d] = counts[d * nb + b];
    ps_block_range(n, tpb, b, &lo, &hi);
    for (base = lo; base < hi; base += TILE) {
        ps_u32 valid = hi - base < TILE ? hi - base : TILE;
        int moved;
        /* Coalesced load: consecutive items read consecutive keys. */
        for (j = 0; j < PS_ITEMS; j++) {
            ps_u32 i = j * PS_WG + t;
            if (i < valid) {
                lk[i] = ps_enc(kin[base + i], eflip, efneg);
                VAL_DO(lv[i] = vin[base + i];)
            }
        }
        PS_BARRIER();
        moved = ps_rank_tile(lk, lk2 VAL_PASS(lv, lv2), cnt, part, tstart,
                             valid, shift, t);
        /* Scatter in rank order: within a digit, consecutive ranks go to
         * consecutive addresses, so neighbouring items write neighbouring
         * words. */
        for (j = t; j < valid; j += PS_WG) {
            PS_KEY k = moved ? lk2[j] : lk[j];
            ps_u32 dd = ps_digit(k, shift);
            ps_u32 pos = run[dd] + (j - tstart[dd]);
            kout[pos] = dec_out ? ps_dec(k, flip, fneg) : k;
            VAL_DO(vout[pos] = moved ? lv2[j] : lv[j];)
        }
        PS_BARRIER();
        for (d = t; d < RADIX; d += PS_WG)
            run[d] += tstart[d + 1] - tstart[d];
        PS_BARRIER();
        /* base + TILE may wrap near 2^32; the test is the same for the
         * whole work-group, so all leave together. */
        if (hi - base <= TILE)
            break;
    }
}

/* n <= TILE keys sorted entirely inside one work-group: one load, every
 * pass in local memory (passes with a constant digit cost no movement), one
 * store back in place. */
PS_KERNEL_WG(PS_WG) ps_sort_local(PS_GLOBAL PS_KEY *keys, ps_u64 koff
                                   VAL_ARGS(vals, voff),
                                   ps_u32 n, ps_u64 flip64, ps_u64 fneg64)
{
    PS_LOCAL_ARRAY(PS_KEY, ka, TILE);
    PS_LOCAL_ARRAY(PS_KEY, kb, TILE);
#ifdef PS_VAL
    PS_LOCAL_ARRAY(PS_VAL, va, TILE);
    PS_LOCAL_ARRAY(PS_VAL, vb, TILE);
    PS_LOCAL PS_VAL *vcur = va, *valt = vb, *vtmp;
#endif
    PS_LOCAL_ARRAY(ps_u32, cnt, PS_CNT_WORDS);
    PS_LOCAL_ARRAY(ps_u32, part, PS_WG);
    PS_LOCAL_ARRAY(ps_u32, tstart, RADIX + 1);
    PS_LOCAL PS_KEY *cur = ka, *alt = kb, *tmp;
    ps_u32 t = PS_LID(), i, p;
    PS_KEY flip = (PS_KEY)flip64, fneg = (PS_KEY)fneg64;

    keys += koff;
    VAL_DO(vals += voff;)
    for (i = t; i < n; i += PS_WG) {
        ka[i] = ps_enc(keys[i], flip, fneg);
        VAL_DO(va[i] = vals[i];)
    }
    PS_BARRIER();
    for (p = 0; p < PASSES; p++) {
        if (ps_rank_tile(cur, alt VAL_PASS(vcur, valt), cnt, part, tstart, n,
                         p * PS_DIGIT_BITS, t)) {
            tmp = cur; cur = alt; alt = tmp;
            VAL_DO(vtmp = vcur; vcur = valt; valt = vtmp;)
        }
    }
    for (i = t; i < n; i += PS_WG) {
        keys[i] = ps_dec(cur[i], flip, fneg);
        VAL_DO(vals[i] = vcur[i];)
    }
}
