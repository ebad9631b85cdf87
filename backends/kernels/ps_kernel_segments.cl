/*
 * ps_kernel_segments.cl - the segmented sort's kernels (ps_sort_segments
 * and the device APIs' sort_segments), in the portable dialect.
 *
 * Compiled after ps_kernel_radix.cl, in the same program (OpenCL) or
 * namespace (CUDA, HIP): it uses that file's parameters, key and value
 * types, order transforms and tile ranking (ps_rank_tile), and one more
 * parameter:
 *   PS_SEG_SMALL   the longest segment of the small class, 2 .. TILE
 *
 * Offsets are 64-bit words, num_segments + 1 of them, in device memory, as
 * the device APIs take them; positions fit in 32 bits (n < 2^32), segment
 * numbers too (the hosts refuse more).
 *
 * Segments are sorted by size class, as CUB's DeviceSegmentedSort does:
 *   0, 1 key           nothing to do
 *   small              2 .. PS_SEG_SMALL keys: ps_seg_small, many segments
 *                      per work-group, each key ranked by counting the keys
 *                      of its segment that go before it
 *   medium             up to one tile (TILE keys): ps_seg_medium, one
 *                      work-group per segment, every pass in local memory
 *                      (ps_sort_local's method)
 *   large              longer: the host sorts them, as tiles of all of them
 *                      at once (ps_seg_up, ps_scan, ps_seg_down) or, when
 *                      huge, one device sort each
 *
 * ps_seg_classify runs first, over the offsets on the device: it checks
 * them, counts the classes, lists the medium and large segments (start,
 * length) and gives every window of TILE keys the first segment starting
 * in it.  The host reads the counts and the large list back, so that it
 * sizes the launches after it and refuses invalid offsets before any key
 * moves.
 *
 * Small class.  Work-group g takes the segments that start in window
 * [g*TILE, (g+1)*TILE); a small one ends at most PS_SEG_SMALL - 1 keys past
 * the window, so TILE + PS_SEG_SMALL keys of local memory hold them all,
 * and every work-group has about the same work whatever the lengths.  The
 * rank of key i of segment [a, e) is the number of keys j in [a, e) with
 * k_j < k_i, or k_j == k_i and j < i: stable, and only as many comparisons
 * per key as the segment has keys, which beats a radix sort's passes of
 * a whole work-group up to a few hundred keys (doc/segments.md counts it).
 */
#ifndef PS_KERNEL_DIALECT_H
#include "ps_kernel_dialect.h"
#endif

#if PS_SEG_SMALL < 2 || PS_SEG_SMALL > TILE
#  error "PS_SEG_SMALL must be 2 .. TILE"
#endif

#define SEG_LOCAL (TILE + PS_SEG_SMALL)
#define SEG_NONE 0xFFFFFFFFu
enum { SEG_TRIVIAL, SEG_SMALL, SEG_MEDIUM, SEG_LARGE };

/* A segment's class by its length; the one definition the kernels and the
 * lists all follow. */
PS_FN ps_u32 ps_seg_class(ps_u64 m)
{
    return m < 2 ? SEG_TRIVIAL : m <= PS_SEG_SMALL ? SEG_SMALL
         : m <= TILE ? SEG_MEDIUM : SEG_LARGE;
}

/* A segment spanning more window starts than the work-group has items
 * has them filled by the whole work-group, after the loop over its
 * segments: one such segment of 2^30 keys spans 2^30 / TILE of them,
 * which one work-item took alone (issue 33, item 4).  Up to SEG_WIDE such
 * segments a work-group; past that, a work-item fills its own. */
#define SEG_WIDE 8u

/* info (zeroed words 0..3 by the host): [0] invalid offsets seen, [1..3]
 * how many segments are small, medium and large; the large list at word
 * lbase and the medium list at mbase, (start, length) pairs, at most lcap
 * and mcap of them; the first segment of window w at word wbase + w, for
 * w = 0 .. nwin (the last: num_segments).  Work-group g looks at segments
 * [g*TILE, (g+1)*TILE). */
PS_KERNEL_WG(PS_WG) ps_seg_classify(PS_GLOBAL const ps_u64 *offs, ps_u64 ooff,
                                     ps_u32 nseg, ps_u32 n,
                                     PS_GLOBAL ps_u32 *info, ps_u64 ioff,
                                     ps_u32 lbase, ps_u32 lcap, ps_u32 mbase,
                                     ps_u32 mcap, ps_u32 wbase, ps_u32 nwin)
{
    /* Per class (small, medium, large, invalid): this group's count, its
     * first place in the global list, and the places taken so far. */
    PS_LOCAL_ARRAY(ps_u32, cnt, 4);
    PS_LOCAL_ARRAY(ps_u32, first, 4);
    PS_LOCAL_ARRAY(ps_u32, taken, 4);
    /* The wide segments (SEG_WIDE): s + 1, the first window, the end
     * window; and how many there are. */
    PS_LOCAL_ARRAY(ps_u32, wide, 3u * SEG_WIDE);
    PS_LOCAL_ARRAY(ps_u32, nwide, 1);
    ps_u32 t = PS_LID(), c, wi;
    ps_u64 lo = (ps_u64)PS_GROUP() * TILE, hi = lo + TILE, s;

    offs += ooff;
    info += ioff;
    if (hi > nseg)
        hi = nseg;
    for (c = t; c < 4; c += PS_WG)
        cnt[c] = taken[c] = 0;
    for (c = t; c < 1; c += PS_WG)
        nwide[c] = 0;
    /* Strided like ps_rank_tile's tstart, not `if (t == 0)`: see there. */
    for (c = t; c < 2 && PS_GROUP() == 0; c += PS_WG)
        info[wbase + (c ? nwin : 0)] = c ? nseg : 0;
    PS_BARRIER();
    for (s = lo + t; s < hi; s += PS_WG) {
        ps_u64 a = offs[s], b = offs[s + 1], w, wa, we;
        if (b < a || b > n || (s == 0 && a != 0) || (s + 1 == nseg && b != n)) {
            PS_ATOMIC_ADD_LOCAL(&cnt[3], 1u);
            continue;
        }
        c = ps_seg_class(b - a);
        if (c != SEG_TRIVIAL)
            PS_ATOMIC_ADD_LOCAL(&cnt[c - 1], 1u);
        /* Segment s + 1 is the first to start at or after every window
         * start in (a, b]: windows [wa, we). */
        wa = a / TILE + 1;
        we = b / TILE + 1 < nwin ? b / TILE + 1 : nwin;
        if (we > wa + PS_WG && (wi = PS_ATOMIC_ADD_LOCAL(&nwide[0], 1u)) < SEG_WIDE) {
            wide[3u * wi] = (ps_u32)(s + 1);
            wide[3u * wi + 1u] = (ps_u32)wa;
            wide[3u * wi + 2u] = (ps_u32)we;
            continue;
        }
        for (w = wa; w < we; w++)
            info[wbase + w] = (ps_u32)(s + 1);
    }
    PS_BARRIER();
    for (wi = 0; wi < nwide[0] && wi < SEG_WIDE; wi++) {
        ps_u32 w;
        for (w = wide[3u * wi + 1u] + t; w < wide[3u * wi + 2u]; w += PS_WG)
            info[wbase + w] = wide[3u * wi];
    }
    for (c = t; c < 4; c += PS_WG)
        first[c] = cnt[c] != 0 ? PS_ATOMIC_ADD_GLOBAL(&info[(c + 1) & 3], cnt[c]) : 0;
    PS_BARRIER();
    if (cnt[1] + cnt[2] == 0)
        return;
    for (s = lo + t; s < hi; s += PS_WG) {
        ps_u64 a = offs[s], b = offs[s + 1];
        ps_u32 i, at, cap;
        if (b < a || b > n)
            continue;
        c = ps_seg_class(b - a);
        if (c != SEG_MEDIUM && c != SEG_LARGE)
            continue;
        i = first[c - 1] + PS_ATOMIC_ADD_LOCAL(&taken[c - 1], 1u);
        at = c == SEG_MEDIUM ? mbase : lbase;
        cap = c == SEG_MEDIUM ? mcap : lcap;
        if (i < cap) {
            info[at + 2 * i] = (ps_u32)a;
            info[at + 2 * i + 1] = (ps_u32)(b - a);
        }
    }
}

/* PS_WG == 1 (CPU devices, where pocl runs a work-group as a loop on one
 * core): the one work-item sorts the window's segments one after the
 * other, as the host's reference sort would, by insertion up to this many
 * keys and by LSD counting passes beyond, in local memory. */
#define SEG_INSERTION 64

#if PS_WG == 1
/* One counting-sort pass of the m keys of src (values vs) by the digit at
 * shift into dst (vd), stable; 0 without moving anything when every key
 * has the same digit.  Serial and free of barriers: pocl 3.1's compiler
 * asserts on ps_rank_tile's barriers inside this kernel's loops. */
PS_FN int ps_seg_count_pass(PS_LOCAL PS_KEY *src, PS_LOCAL PS_KEY *dst
                            VAL_LOCAL_ARGS(vs, vd), PS_LOCAL ps_u32 *cnt,
                            ps_u32 m, ps_u32 shift)
{
    ps_u32 d, i, sum = 0;
    for (d = 0; d < RADIX; d++)
        cnt[d] = 0;
    for (i = 0; i < m; i++)
        cnt[ps_digit(src[i], shift)]++;
    if (cnt[ps_digit(src[0], shift)] == m)
        return 0;
    for (d = 0; d < RADIX; d++) {
        ps_u32 c = cnt[d];
        cnt[d] = sum;
        sum += c;
    }
    for (i = 0; i < m; i++) {
        ps_u32 r = cnt[ps_digit(src[i], shift)]++;
        dst[r] = src[i];
        VAL_DO(vd[r] = vs[i];)
    }
    return 1;
}

/* Segment [a, a + m) of lk (and lv) sorted by insertion: stable, as a key
 * moves only past greater ones. */
PS_FN void ps_seg_insertion(PS_LOCAL PS_KEY *lk VAL_LOCAL_ARGS(lv, unused),
                            ps_u32 m)
{
    ps_u32 i, j;
    for (i = 1; i < m; i++) {
        PS_KEY k = lk[i];
        VAL_DO(PS_VAL v = lv[i];)
        for (j = i; j > 0 && lk[j - 1] > k; j--) {
            lk[j] = lk[j - 1];
            VAL_DO(lv[j] = lv[j - 1];)
        }
        lk[j] = k;
        VAL_DO(lv[j] = v;)
    }
}
#endif

/* The small segments that start in window g (win: ps_seg_classify's
 * window starts), sorted in place. */
PS_KERNEL_WG(PS_WG) ps_seg_small(PS_GLOBAL PS_KEY *keys, ps_u64 koff
                                  VAL_ARGS(vals, voff),
                                  PS_GLOBAL const ps_u64 *offs, ps_u64 ooff,
                                  PS_GLOBAL const ps_u32 *win, ps_u64 woff,
                                  ps_u64 flip64, ps_u64 fneg64)
{
    PS_LOCAL_ARRAY(PS_KEY, lk, SEG_LOCAL);
#ifdef PS_VAL
    PS_LOCAL_ARRAY(PS_VAL, lv, SEG_LOCAL);
#endif
#if PS_WG == 1
    PS_LOCAL_ARRAY(PS_KEY, lk2, TILE);
#  ifdef PS_VAL
    PS_LOCAL_ARRAY(PS_VAL, lv2, TILE);
#  endif
    PS_LOCAL_ARRAY(ps_u32, cnt, RADIX);
#else
    /* head[i]: where key i's small segment starts (SEG_NONE: no small
     * segment); end[a]: where the one starting at a ends. */
    PS_LOCAL_ARRAY(ps_u32, head, SEG_LOCAL);
    PS_LOCAL_ARRAY(ps_u32, end, SEG_LOCAL);
#endif
    ps_u32 t = PS_LID(), g = PS_GROUP(), base, len, i;
    ps_u64 s_lo, s_hi, s, cap;
    PS_KEY flip = (PS_KEY)flip64, fneg = (PS_KEY)fneg64;

    keys += koff;
    VAL_DO(vals += voff;)
    offs += ooff;
    win += woff;
    s_lo = win[g];
    s_hi = win[g + 1];
    if (s_lo >= s_hi)
        return;         /* the same for the whole work-group */
    /* Keys from the first segment's start to the next window's first
     * segment, but no further than the last small one can reach. */
    base = (ps_u32)offs[s_lo];
    cap = (ps_u64)g * TILE + TILE + PS_SEG_SMALL - 1;
    len = (ps_u32)((offs[s_hi] < cap ? offs[s_hi] : cap) - base);
#if PS_WG == 1
    for (i = 0; i < len; i++) {
        lk[i] = ps_enc(keys[base + i], flip, fneg);
        VAL_DO(lv[i] = vals[base + i];)
    }
    for (s = s_lo; s < s_hi; s++) {
        ps_u32 a = (ps_u32)offs[s] - base, m = (ps_u32)(offs[s + 1] - offs[s]), p;
        PS_LOCAL PS_KEY *cur = lk + a, *alt = lk2, *tmp;
        VAL_DO(PS_LOCAL PS_VAL *vcur = lv + a; PS_LOCAL PS_VAL *valt = lv2;
               PS_LOCAL PS_VAL *vtmp;)
        if (ps_seg_class(m) != SEG_SMALL)
            continue;
        if (m <= SEG_INSERTION) {
            ps_seg_insertion(cur VAL_PASS(vcur, vcur), m);
        } else {
            for (p = 0; p < PASSES; p++)
                if (ps_seg_count_pass(cur, alt VAL_PASS(vcur, valt), cnt, m,
                                      p * PS_DIGIT_BITS)) {
                    tmp = cur; cur = alt; alt = tmp;
                    VAL_DO(vtmp = vcur; vcur = valt; valt = vtmp;)
                }
        }
        for (i = 0; i < m; i++) {
            keys[base + a + i] = ps_dec(cur[i], flip, fneg);
            VAL_DO(vals[base + a + i] = vcur[i];)
        }
    }
#else
    for (i = t; i < len; i += PS_WG) {
        lk[i] = ps_enc(keys[base + i], flip, fneg);
        VAL_DO(lv[i] = vals[base + i];)
        head[i] = SEG_NONE;
    }
    PS_BARRIER();
    for (s = s_lo + t; s < s_hi; s += PS_WG) {
        ps_u32 a = (ps_u32)offs[s] - base, e = (ps_u32)offs[s + 1] - base, j;
        if (ps_seg_class(e - a) != SEG_SMALL)
            continue;
        end[a] = e;
        for (j = a; j < e; j++)
            head[j] = a;
    }
    PS_BARRIER();
    for (i = t; i < len; i += PS_WG) {
        ps_u32 a = head[i], e, j, r = 0;
        PS_KEY k = lk[i];
        if (a == SEG_NONE)
            continue;
        e = end[a];
        for (j = a; j < i; j++)
            r += lk[j] <= k;
        for (j = i + 1; j < e; j++)
            r += lk[j] < k;
        keys[base + a + r] = ps_dec(k, flip, fneg);
        VAL_DO(vals[base + a + r] = lv[i];)
    }
#endif
}

/* Medium segment g of the list ((start, length) pairs), sorted inside one
 * work-group: one load, every pass in local memory, one store. */
PS_KERNEL_WG(PS_WG) ps_seg_medium(PS_GLOBAL PS_KEY *keys, ps_u64 koff
                                   VAL_ARGS(vals, voff),
                                   PS_GLOBAL const ps_u32 *list, ps_u64 loff,
                                   ps_u64 flip64, ps_u64 fneg64)
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
    ps_u32 t = PS_LID(), g = PS_GROUP(), i, p, m;
    PS_KEY flip = (PS_KEY)flip64, fneg = (PS_KEY)fneg64;

    list += loff;
    keys += koff + list[2 * g];
    VAL_DO(vals += voff + list[2 * g];)
    m = list[2 * g + 1];
    for (i = t; i < m; i += PS_WG) {
        ka[i] = ps_enc(keys[i], flip, fneg);
        VAL_DO(va[i] = vals[i];)
    }
    PS_BARRIER();
    for (p = 0; p < PASSES; p++)
        if (ps_rank_tile(cur, alt VAL_PASS(vcur, valt), cnt, part, tstart, m,
                         p * PS_DIGIT_BITS, t)) {
            tmp = cur; cur = alt; alt = tmp;
            VAL_DO(vtmp = vcur; vcur = valt; valt = vtmp;)
        }
    for (i = t; i < m; i += PS_WG) {
        keys[i] = ps_dec(cur[i], flip, fneg);
        VAL_DO(vals[i] = vcur[i];)
    }
}

/*
 * Large segments, all at once: tiles that never straddle a segment, listed
 * by the host in desc, five words each: first key, keys in the tile (up to
 * TILE), the word of its digit-0 count, the stride between its digits'
 * counts (the segment's tile count), and the segment's start less the keys
 * of the large segments before it.  Per pass: ps_seg_up counts each
 * tile's digits into counts[cbase + d * stride], so that the counts of one
 * segment are digit-major and the segments follow each other; ps_scan
 * turns them into exclusive prefix sums, which give every (segment, digit,
 * tile) its place once the adjustment is added; ps_seg_down ranks each
 * tile in local memory and scatters it there.  Keys move between the
 * caller's array and the scratch copy at the same positions.
 */
PS_KERNEL_WG(PS_WG) ps_seg_up(PS_GLOBAL const PS_KEY *keys, ps_u64 koff,
                               PS_GLOBAL const ps_u32 *desc, ps_u64 doff,
                               ps_u32 shift, PS_GLOBAL ps_u32 *counts, ps_u64 coff,
                               ps_u64 flip64, ps_u64 fneg64, ps_u32 enc_in)
{
    PS_LOCAL_ARRAY(ps_u32, cnt, PS_CNT_WORDS);
    ps_u32 t = PS_LID(), d, i, start, valid, cbase, stride;
    PS_KEY flip = enc_in ? (PS_KEY)flip64 : (PS_KEY)0;
    PS_KEY fneg = enc_in ? (PS_KEY)fneg64 : (PS_KEY)0;

    desc += doff + 5 * (ps_u64)PS_GROUP();
    start = desc[0];
    valid = desc[1];
    cbase = desc[2];
    stride = desc[3];
    keys += koff + start;
    counts += coff;
    for (d = 0; d < RADIX; d++)
        cnt[PS_CNT(d * PS_WG + t)] = 0;
    for (i = t; i < valid; i += PS_WG)
        cnt[PS_CNT(ps_digit(ps_enc(keys[i], flip, fneg), shift) * PS_WG + t)]++;
    PS_BARRIER();
    for (d = t; d < RADIX; d += PS_WG) {
        ps_u32 sum = 0, j;
        for (j = 0; j < PS_WG; j++)
            sum += cnt[PS_CNT(d * PS_WG + j)];
        counts[cbase + d * stride] = sum;
    }
}

PS_KERNEL_WG(PS_WG) ps_seg_down(PS_GLOBAL const PS_KEY *kin, ps_u64 kin_off,
                                 PS_GLOBAL PS_KEY *kout, ps_u64 kout_off
                                 VAL_ARGS(vin, vin_off) VAL_ARGS(vout, vout_off),
                                 PS_GLOBAL const ps_u32 *desc, ps_u64 doff,
                                 ps_u32 shift, PS_GLOBAL const ps_u32 *counts,
                                 ps_u64 coff, ps_u64 flip64, ps_u64 fneg64,
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
    PS_LOCAL_ARRAY(ps_u32, place, RADIX);
    ps_u32 t = PS_LID(), d, j, start, valid, cbase, stride, adj;
    PS_KEY flip = (PS_KEY)flip64, fneg = (PS_KEY)fneg64;
    PS_KEY eflip = enc_in ? flip : (PS_KEY)0, efneg = enc_in ? fneg : (PS_KEY)0;
    int moved;

    desc += doff + 5 * (ps_u64)PS_GROUP();
    start = desc[0];
    valid = desc[1];
    cbase = desc[2];
    stride = desc[3];
    adj = desc[4];
    kin += kin_off + start;
    kout += kout_off;
    VAL_DO(vin += vin_off + start; vout += vout_off;)
    counts += coff;
    for (d = t; d < RADIX; d += PS_WG)
        place[d] = counts[cbase + d * stride] + adj;
    for (j = t; j < valid; j += PS_WG) {
        lk[j] = ps_enc(kin[j], eflip, efneg);
        VAL_DO(lv[j] = vin[j];)
    }
    PS_BARRIER();
    moved = ps_rank_tile(lk, lk2 VAL_PASS(lv, lv2), cnt, part, tstart, valid,
                         shift, t);
    for (j = t; j < valid; j += PS_WG) {
        PS_KEY k = moved ? lk2[j] : lk[j];
        ps_u32 dd = ps_digit(k, shift), pos = place[dd] + (j - tstart[dd]);
        kout[pos] = dec_out ? ps_dec(k, flip, fneg) : k;
        VAL_DO(vout[pos] = moved ? lv2[j] : lv[j];)
    }
}
