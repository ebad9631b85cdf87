/*
 * ps_kernel_onesweep.cl - the single-pass-per-digit LSD radix sort
 * (Onesweep: Adinets & Merrill 2022, CUB's current algorithm), in the
 * portable dialect.  Included after ps_kernel_radix.cl, whose key type,
 * value plumbing and key transforms it shares; its digits are always 8
 * bits, whatever PS_DIGIT_BITS the reduce-then-scan kernels use.
 *
 * Compile-time parameters beyond ps_kernel_radix.cl's:
 *   PS_OS_ITEMS       keys per work-item per tile (default PS_ITEMS)
 *   PS_OS_MIN_BLOCKS  work-groups per multiprocessor the tuning assumes
 *                     (CUDA's __launch_bounds__; default 2)
 *   PS_OS_LOOKBACK    1 (default): each item walks its own digits back
 *                     and publishes each one's inclusive prefix as soon
 *                     as it has it; 0: the work-group steps back one
 *                     predecessor per round, one barrier a round
 *   PS_OS_LB_WIDTH    predecessors' status words each step of a digit's
 *                     walk reads at once (default 1; the stand-in 3)
 *   PS_OS_SPINS       polls of one predecessor before counting its keys
 *                     instead; the first PS_OS_FAST_SPINS without a pause
 *                     (on CUDA, all of them)
 *   PS_OS_EARLY       warp ranking only: 1 (default) counts the tile's
 *                     digits before ranking any key and publishes them
 *                     (CUB's early counts); 0 ranks first
 *   PS_OS_SHORTCUT    with PS_OS_EARLY: 1 (default) writes a tile whose
 *                     keys all share the pass's digit straight from
 *                     registers, unranked (CUB's TryShortCircuit)
 *   PS_OS_MATCH_ANY   1: rank with the hardware's match-any where it has
 *                     one; 0 (default): eight ballots (CUB's choice)
 *   PS_OS_MATCH_BIT   1 (default): each ballot through the dialect's
 *                     PS_WARP_MATCH_BIT where it has one (CUDA); 0: in C
 *   PS_OS_FULL_TILES  1 (default for keys of 32 bits or less): full tiles
 *                     load and store unguarded, from one address at
 *                     constant offsets; 0: every tile through the
 *                     guarded loops
 * doc/cuda.md says why each exists and what bench/gpu-run.sh's
 * `variants` step measures of each.
 * The work-group size is PS_WG, at most 256 (one digit per item or less).
 *
 * Host-side sequence for one sort (n < 2^32 keys):
 *   ps_os_hist     once: every 8-bit digit's histogram over all keys
 *                  (bins[p*256 + d], zeroed by the host)
 *   ps_os_scan     one work-group: bins become each digit's first output
 *                  position, per pass
 *   per pass, per portion of the keys (fewer than 2^30; CUB's portions are
 *   about 2^28 keys): ps_onesweep, one work-group per tile of
 *   PS_WG*PS_OS_ITEMS keys, over a status array the host zeroes first.
 *   The portion's last tile writes where each digit's keys of the next
 *   portion start (bnext), which the next portion's launch reads as its
 *   bins: a sort of any size runs Onesweep, with no cliff where the
 *   status words' counts would overflow.
 *
 * ps_onesweep: a work-group takes the next tile id from a global counter,
 * so every smaller tile id belongs to a work-group that has started.  It
 * ranks its tile stably by the digit into local memory, which also gives
 * the tile's digit counts, publishes those counts ("aggregate
 * available"), then looks back over its predecessors' status words,
 * summing aggregates until it meets an "inclusive prefix available"
 * word; it publishes its own inclusive prefix and scatters its keys (and
 * values) to bins[d] + prefix + rank within the tile.  Stable: tile ids
 * follow input order, and the ranking is stable within a tile.
 *
 * The look-back needs no forward progress between work-groups: a
 * predecessor that stays silent too long has its counts computed from
 * its keys instead (the decoupled fallback of Smith, Levien & Owens,
 * SPAA 2025; ps_os_look_back).  Where work-groups that have started keep
 * running (CUDA, pocl's threads) that hardly ever happens; where they may
 * not (OpenCL and HIP promise nothing), it is what lets the sort finish.
 *
 * A status word is flag << 30 | count, so counts (and a portion's length)
 * stay below 2^30.
 *
 * Ranking: with warp intrinsics (PS_WARP_SIZE defined: CUDA, HIP, the CPU
 * stand-in), each warp ranks its run of keys with match-any (or ballots)
 * into a private row of 256 counters; elsewhere, two stable 4-bit
 * counting passes in local memory with a column of 16 counters per item.
 */
#ifndef PS_KERNEL_DIALECT_H
#include "ps_kernel_dialect.h"
#endif

#ifdef PS_WITH_ONESWEEP

#ifndef PS_OS_ITEMS
#  define PS_OS_ITEMS PS_ITEMS
#endif
#define OS_BITS 8u
#define OS_RADIX 256u
#define OS_TILE (PS_WG * PS_OS_ITEMS)
#define OS_PASSES ((PS_KEY_BITS + 7) / 8)
#define OS_AGG (1u << 30)       /* status: this tile's own count */
#define OS_PRE (2u << 30)       /* status: count of every tile up to this one */
#define OS_VALUE 0x3fffffffu
#define OS_CHUNK ((OS_RADIX + PS_WG - 1) / PS_WG)
/* Polls of a predecessor's status word before counting its keys instead
 * (ps_os_look_back); tests set 0.  The first PS_OS_FAST_SPINS polls follow
 * each other at once (a predecessor still ranking is at most a few
 * microseconds from publishing; CUB never pauses), the others with a
 * pause (PS_SPIN_PAUSE) that leaves the multiprocessor to work-groups
 * that have work. */
#ifndef PS_OS_SPINS
#  define PS_OS_SPINS 128u
#endif
/* On CUDA every poll follows at once, as CUB's do: on an H200 (third
 * lease, doc/results-cuda.md) pausing after 64 polls cost 3-4% of every
 * sort against polling straight through to the fallback.  Elsewhere the
 * pause stays: HIP and OpenCL promise no forward progress, and a pause
 * leaves the compute unit to the work-group being waited for. */
#ifndef PS_OS_FAST_SPINS
#  ifdef __CUDACC__
#    define PS_OS_FAST_SPINS PS_OS_SPINS
#  else
#    define PS_OS_FAST_SPINS 64u
#  endif
#endif
#ifndef PS_OS_LOOKBACK
#  define PS_OS_LOOKBACK 1
#endif
/* Predecessors whose status words a look-back step reads at once (with
 * PS_OS_LOOKBACK 1); 1 reads one at a time, as measured so far. */
#ifndef PS_OS_LB_WIDTH
#  define PS_OS_LB_WIDTH 1
#endif
#ifndef PS_OS_MIN_BLOCKS
#  define PS_OS_MIN_BLOCKS 2
#endif
#ifndef PS_OS_EARLY
#  define PS_OS_EARLY 1
#endif
#ifndef PS_OS_SHORTCUT
#  define PS_OS_SHORTCUT 1
#endif
#ifndef PS_OS_MATCH_ANY
#  define PS_OS_MATCH_ANY 0
#endif
#ifndef PS_OS_MATCH_BIT
#  define PS_OS_MATCH_BIT 1
#endif
/* Full tiles unguarded for keys of 32 bits or less: on an H200 that
 * paid 13% for u32 pairs and 1% for u32 keys, but cost u64 keys 4% (why
 * is not yet known; the next lease's profile of u64 should say). */
#ifndef PS_OS_FULL_TILES
#  define PS_OS_FULL_TILES (PS_KEY_BITS <= 32)
#endif
/* The early-count ranking gives item t digit t: 256 items. */
#if defined(PS_WARP_SIZE) && PS_OS_EARLY && PS_WG == 256
#  define OS_EARLY 1
#else
#  define OS_EARLY 0
#endif
#ifndef PS_UNROLL
#  define PS_UNROLL
#endif
#ifndef PS_NO_UNROLL
#  define PS_NO_UNROLL
#endif
#ifndef PS_OPAQUE_PTR
#  define PS_OPAQUE_PTR(p) ((void)0)
#endif
/* Keys each item of ps_os_hist loads before it counts them. */
#define OS_LOADS 4u
#if PS_WG == 1
#  define OS_HIST_ADD(p, v) (*(p) += (v))
#else
#  define OS_HIST_ADD(p, v) ((void)PS_ATOMIC_ADD_LOCAL((p), (v)))
#endif
/* Tests only: 1 hands out tiles last first, 2 odd tiles first, 3 in a
 * scrambled order (ticket x 2654435761, a prime above any tile count,
 * plus a third of the tiles, mod their count: a bijection). */
#ifndef PS_OS_ORDER
#  define PS_OS_ORDER 0u
#endif

/* Value plumbing of the ranking helpers; empty for keys only. */
#ifdef PS_VAL
#  define OS_VAL_IN(v) , PS_GLOBAL const PS_VAL *v
#  define OS_VAL_LOCAL(v) , PS_LOCAL PS_VAL *v
#  define OS_VAL(v) , v
#else
#  define OS_VAL_IN(v)
#  define OS_VAL_LOCAL(v)
#  define OS_VAL(v)
#endif

#if PS_WG > 256 || (PS_WG & (PS_WG - 1)) != 0
#  error "ps_kernel_onesweep.cl: PS_WG must be a power of two up to 256"
#endif

PS_FN ps_u32 ps_os_digit(PS_KEY k, ps_u32 shift)
{
    return (ps_u32)(k >> shift) & (OS_RADIX - 1u);
}

/* Exclusive scan of a[0..256) in place by the work-group (barriers on
 * entry and exit).  part has PS_WG entries.  Item t owns the chunk
 * [t*OS_CHUNK, (t+1)*OS_CHUNK). */
PS_FN void ps_os_scan_radix(PS_LOCAL ps_u32 *a, PS_LOCAL ps_u32 *part, ps_u32 t)
{
    ps_u32 j, s = 0, v;
    PS_BARRIER();
    for (j = t * OS_CHUNK; j < (t + 1) * OS_CHUNK && j < OS_RADIX; j++)
        s += a[j];
    part[t] = s;
    ps_wg_scan(part, t);
    s = part[t];
    for (j = t * OS_CHUNK; j < (t + 1) * OS_CHUNK && j < OS_RADIX; j++) {
        v = a[j];
        a[j] = s;
        s += v;
    }
    PS_BARRIER();
}

/* Every 8-bit digit's histogram over all n keys, added to bins[p*256 + d].
 * Grid-strided so that any grid size covers n; each item loads OS_LOADS
 * keys, a stride apart, before it counts any, so that several loads are in
 * flight per item.  The index is 64-bit: i + stride may pass 2^32.
 * Per pass, each run of equal digits among an item's keys goes in with
 * one atomic: where a pass's digit is the same in every key (the top byte
 * of keys below 2^24), every item of a warp adds to the one counter, and
 * adds to one address serialise, so that pass costs OS_LOADS times fewer
 * of them (issue 33, item 3). */
PS_KERNEL_WG(PS_WG) ps_os_hist(PS_GLOBAL const PS_KEY *keys, ps_u64 koff,
                                ps_u32 n, PS_GLOBAL ps_u32 *bins, ps_u64 boff,
                                ps_u64 flip64, ps_u64 fneg64)
{
    PS_LOCAL_ARRAY(ps_u32, h, OS_PASSES * OS_RADIX);
    ps_u32 t = PS_LID(), j, p, u;
    ps_u64 i, stride = (ps_u64)PS_NGROUPS() * PS_WG;
    PS_KEY flip = (PS_KEY)flip64, fneg = (PS_KEY)fneg64;

    keys += koff;
    bins += boff;
    for (j = t; j < OS_PASSES * OS_RADIX; j += PS_WG)
        h[j] = 0;
    PS_BARRIER();
    for (i = (ps_u64)PS_GROUP() * PS_WG + t; i < n; i += OS_LOADS * stride) {
        PS_KEY k[OS_LOADS];
        PS_UNROLL
        for (u = 0; u < OS_LOADS; u++)
            k[u] = i + u * stride < n ? keys[i + u * stride] : (PS_KEY)0;
        ps_u32 m = 0;   /* keys loaded: the first m of the OS_LOADS */
        PS_UNROLL
        for (u = 0; u < OS_LOADS; u++) {
            if (i + u * stride < n) {
                k[u] = ps_enc(k[u], flip, fneg);
                m = u + 1u;
            }
        }
        for (p = 0; p < OS_PASSES; p++) {
            ps_u32 d = ps_os_digit(k[0], p * OS_BITS), run = 1, e;
            PS_UNROLL
            for (u = 1; u < OS_LOADS; u++) {
                if (u < m) {
                    e = ps_os_digit(k[u], p * OS_BITS);
                    if (e != d) {
                        OS_HIST_ADD(&h[p * OS_RADIX + d], run);
                        d = e;
                        run = 0;
                    }
                    run++;
                }
            }
            OS_HIST_ADD(&h[p * OS_RADIX + d], run);
        }
    }
    PS_BARRIER();
    for (j = t; j < OS_PASSES * OS_RADIX; j += PS_WG)
        if (h[j] != 0)
            PS_ATOMIC_ADD_GLOBAL(&bins[j], h[j]);
}

/* bins[p*256 + d] := first output position of digit d in pass p, for
 * every pass; one work-group, every item scanning each pass.  (One item a
 * pass, walking its 256 counts in turn, took 27 us on an H200, 4% of a
 * 2^24-key sort: 256 dependent global round trips; CUB's scan takes 2.) */
PS_KERNEL_WG(PS_WG) ps_os_scan(PS_GLOBAL ps_u32 *bins, ps_u64 boff)
{
    PS_LOCAL_ARRAY(ps_u32, a, OS_RADIX);
    PS_LOCAL_ARRAY(ps_u32, part, PS_WG);
    ps_u32 p, d, t = PS_LID();
    bins += boff;
    for (p = 0; p < OS_PASSES; p++) {
        for (d = t; d < OS_RADIX; d += PS_WG)
            a[d] = bins[p * OS_RADIX + d];
        ps_os_scan_radix(a, part, t);
        for (d = t; d < OS_RADIX; d += PS_WG)
            bins[p * OS_RADIX + d] = a[d];
    }
}

#ifdef PS_WARP_SIZE
/* ---- warp-level ranking (CUDA, HIP, the CPU stand-in) ---- */
#define OS_WARPS (PS_WG / PS_WARP_SIZE)
/* The warp counters' size: the most warps a work-group can have.  The
 * CPU stand-in sets the width at run time (PS_WARP_SIZE is then not a
 * constant) and sizes for its narrowest. */
#ifndef PS_WARP_SIZE_MIN
#  define PS_WARP_SIZE_MIN PS_WARP_SIZE
#endif

/* The lanes of this warp whose digit d equals this lane's: one ballot
 * per digit bit (on 64-wide HIP wavefronts the masks are 64 bits), or
 * match-any where the hardware has it and PS_OS_MATCH_ANY asks for it.
 * CUB ranks with the ballots on every GPU (util_ptx.cuh: "match.any.sync.b32
 * is slower when matching a few bits"). */
PS_FN ps_lmask ps_os_match(ps_u32 d)
{
    ps_lmask m;
    ps_u32 b;
    /* Tests of constants on GPUs, folded away; the CPU stand-in makes
     * them run-time choices (PS_FAKE_MATCH), so that make check runs all
     * three forms. */
#if defined(PS_WARP_MATCH_ANY)
    if (PS_OS_MATCH_ANY)
        return PS_WARP_MATCH_ANY(d);
#endif
#if defined(PS_WARP_MATCH_BIT)
    if (PS_OS_MATCH_BIT) {
        m = PS_WARP_MATCH_BIT(d, 1u);
        PS_UNROLL
        for (b = 1; b < OS_BITS; b++)
            m &= PS_WARP_MATCH_BIT(d, 1u << b);
        return m;
    }
#endif
    m = PS_WARP_BALLOT(1);
    for (b = 0; b < OS_BITS; b++) {
        ps_lmask v = PS_WARP_BALLOT((int)((d >> b) & 1u));
        m &= ((d >> b) & 1u) ? v : ~v;
    }
    return m;
}

/* One slot of the tile in local memory: the keys pass through it, then
 * the values (CUB's exchange buffer), so a tile costs the wider of a key
 * and a value, not both. */
#ifdef PS_VAL
typedef union os_slot { PS_KEY k; PS_VAL v; } os_slot;
#else
typedef union os_slot { PS_KEY k; } os_slot;
#endif

/*
 * Loads the tile's keys (encoded when enc_in) straight from global memory
 * into registers and ranks them stably by the digit at `shift`: k[i] gets
 * item slot i's key, rel[i] its place among the tile's keys of its digit,
 * hist[d] digit d's count in the tile.  Barrier on exit.
 *
 * Warp w owns the keys [w*WARP*ITEMS, (w+1)*WARP*ITEMS) of the tile, item
 * slot i of lane l holding key w*WARP*ITEMS + i*WARP + l: slots in order,
 * lanes in order within a slot, is input order, which is the order ranks
 * are handed out in, so the rank is stable.  Per slot, the lowest lane of
 * each group of equal digits adds the group's size to the warp's counter
 * for that digit (one lane per counter per slot: no contention), and
 * every lane's rank is the old count plus its peers below it.
 */
PS_FN void ps_os_rank_keys(PS_GLOBAL const PS_KEY *kin, PS_KEY *k, ps_u32 *rel,
                           PS_LOCAL ps_u32 *wc, PS_LOCAL ps_u32 *hist,
                           ps_u32 base, ps_u32 valid, ps_u32 shift,
                           PS_KEY eflip, PS_KEY efneg, ps_u32 t)
{
    ps_u32 lane = t & (PS_WARP_SIZE - 1u), w = t / PS_WARP_SIZE, i, d;
    ps_u32 first = w * PS_WARP_SIZE * PS_OS_ITEMS + lane;
    ps_lmask below = ((ps_lmask)1 << lane) - 1u;

    for (d = t; d < OS_WARPS * OS_RADIX; d += PS_WG)
        wc[d] = 0;
    PS_UNROLL
    for (i = 0; i < PS_OS_ITEMS; i++) {
        ps_u32 j = first + i * PS_WARP_SIZE;
        k[i] = j < valid ? ps_enc(kin[base + j], eflip, efneg) : (PS_KEY)0;
    }
    PS_BARRIER();
    PS_UNROLL
    for (i = 0; i < PS_OS_ITEMS; i++) {
        int ok = first + i * PS_WARP_SIZE < valid;
        ps_u32 dd = ok ? ps_os_digit(k[i], shift) : 0u, old = 0, leader = lane;
        ps_lmask peers = ps_os_match(dd) & PS_WARP_BALLOT(ok);
        if (ok) {
            leader = PS_LMASK_FFS(peers) - 1u;
            if (lane == leader)
                old = PS_ATOMIC_ADD_LOCAL(&wc[w * OS_RADIX + dd],
                                          PS_LMASK_POPC(peers));
        }
        old = PS_WARP_SHFL(old, leader);
        rel[i] = old + PS_LMASK_POPC(peers & below);
    }
    PS_BARRIER();
    /* wc[w][d] becomes the count of digit d in the warps before w. */
    for (d = t; d < OS_RADIX; d += PS_WG) {
        ps_u32 s = 0, c;
        for (i = 0; i < OS_WARPS; i++) {
            c = wc[i * OS_RADIX + d];
            wc[i * OS_RADIX + d] = s;
            s += c;
        }
        hist[d] = s;
    }
    PS_BARRIER();
    PS_UNROLL
    for (i = 0; i < PS_OS_ITEMS; i++)
        rel[i] += wc[w * OS_RADIX + ps_os_digit(k[i], shift)];
    PS_BARRIER();
}

#if OS_EARLY
/*
 * CUB's order (BlockRadixRankMatchEarlyCounts): count first, rank after.
 * Loads the tile's keys into registers as ps_os_rank_keys does, the slots
 * past `valid` padded with all-ones keys, and counts every slot's digit
 * into its warp's row of wc with one shared atomic.  A padding key's digit
 * is 255 and it follows every real key in input order, so it ranks after
 * all of them and no step needs to know which slots are real; the caller
 * takes the padding out of digit 255's count.  Barrier on exit.
 */
PS_FN void ps_os_load_count_warp(PS_GLOBAL const PS_KEY *kin, PS_KEY *k,
                                 PS_LOCAL ps_u32 *wc, ps_u32 base, ps_u32 valid,
                                 ps_u32 shift, PS_KEY eflip, PS_KEY efneg, ps_u32 t)
{
    ps_u32 lane = t & (PS_WARP_SIZE - 1u), w = t / PS_WARP_SIZE, i, d;
    ps_u32 first = w * PS_WARP_SIZE * PS_OS_ITEMS + lane;

    PS_GLOBAL const PS_KEY *src = kin + base;

    for (d = t; d < OS_WARPS * OS_RADIX; d += PS_WG)
        wc[d] = 0;
    /* A full tile (all but the last) loads from one address at constant
     * offsets, unguarded, and only encodes where the pass must: the
     * guarded loop below cost about 10 instructions a key in bounds
     * tests and address arithmetic (Nsight Compute on an H200). */
    src += first;
    PS_OPAQUE_PTR(src);
    if (PS_OS_FULL_TILES && valid == OS_TILE && (eflip | efneg) == 0) {
        PS_UNROLL
        for (i = 0; i < PS_OS_ITEMS; i++)
            k[i] = src[i * PS_WARP_SIZE];
    } else if (PS_OS_FULL_TILES && valid == OS_TILE) {
        PS_UNROLL
        for (i = 0; i < PS_OS_ITEMS; i++)
            k[i] = ps_enc(src[i * PS_WARP_SIZE], eflip, efneg);
    } else {
        PS_UNROLL
        for (i = 0; i < PS_OS_ITEMS; i++)
            k[i] = first + i * PS_WARP_SIZE < valid
                 ? ps_enc(src[i * PS_WARP_SIZE], eflip, efneg) : (PS_KEY)~(PS_KEY)0;
    }
    PS_BARRIER();
    PS_UNROLL
    for (i = 0; i < PS_OS_ITEMS; i++)
        (void)PS_ATOMIC_ADD_LOCAL(&wc[w * OS_RADIX + ps_os_digit(k[i], shift)], 1u);
    PS_BARRIER();
}

/*
 * Ranks the tile's keys (k, as ps_os_load_count_warp left them) into buf
 * by the digit at `shift`, stably.  wc[w][d] must hold where warp w's
 * first key of digit d goes in the tile: each group of equal digits in a
 * slot takes its place from its warp's counter, whose lowest lane adds
 * the group's size (one lane per counter per slot), so the rank is the
 * key's place in the tile and no second pass adds the tile's offsets.
 * rel[i] gets slot i's place (the values follow their keys there).
 */
PS_FN void ps_os_rank_early(PS_KEY *k, ps_u32 *rel, PS_LOCAL ps_u32 *wc,
                            PS_LOCAL os_slot *buf, ps_u32 shift, ps_u32 t)
{
    ps_u32 lane = t & (PS_WARP_SIZE - 1u), w = t / PS_WARP_SIZE, i;
    ps_lmask below = ((ps_lmask)1 << lane) - 1u;

    PS_UNROLL
    for (i = 0; i < PS_OS_ITEMS; i++) {
        ps_u32 dd = ps_os_digit(k[i], shift), old = 0;
        ps_lmask peers = ps_os_match(dd);
        ps_u32 leader = PS_LMASK_FFS(peers) - 1u;
        if (lane == leader)
            old = PS_ATOMIC_ADD_LOCAL(&wc[w * OS_RADIX + dd], PS_LMASK_POPC(peers));
        old = PS_WARP_SHFL(old, leader) + PS_LMASK_POPC(peers & below);
        rel[i] = old;
        buf[old].k = k[i];
    }
}
#endif /* OS_EARLY */

#else
/* ---- portable ranking in local memory (OpenCL) ---- */

/* Stable counting pass over the tile by the 4 bits at `shift`, from a to
 * b.  Item t owns the blocked slice [t*ITEMS, (t+1)*ITEMS) and column t of
 * the 16 x WG counter matrix cnt[nib*WG + t]; an exclusive scan of the
 * matrix in memory order gives every (nibble, item) its first rank, as in
 * ps_rank_tile. */
PS_FN void ps_os_nibble_pass(PS_LOCAL PS_KEY *a OS_VAL_LOCAL(va),
                             PS_LOCAL PS_KEY *b OS_VAL_LOCAL(vb),
                             PS_LOCAL ps_u32 *cnt, PS_LOCAL ps_u32 *part,
                             ps_u32 valid, ps_u32 shift, ps_u32 t)
{
    ps_u32 j, i, s, v, run;
    for (j = 0; j < 16u; j++)
        cnt[j * PS_WG + t] = 0;
    for (j = 0; j < PS_OS_ITEMS; j++) {
        i = t * PS_OS_ITEMS + j;
        if (i < valid)
            cnt[((ps_u32)(a[i] >> shift) & 15u) * PS_WG + t]++;
    }
    PS_BARRIER();
    s = 0;
    for (j = 0; j < 16u; j++)
        s += cnt[t * 16u + j];
    part[t] = s;
    ps_wg_scan(part, t);
    run = part[t];
    for (j = 0; j < 16u; j++) {
        v = cnt[t * 16u + j];
        cnt[t * 16u + j] = run;
        run += v;
    }
    PS_BARRIER();
    for (j = 0; j < PS_OS_ITEMS; j++) {
        i = t * PS_OS_ITEMS + j;
        if (i < valid) {
            ps_u32 r = cnt[((ps_u32)(a[i] >> shift) & 15u) * PS_WG + t]++;
            b[r] = a[i];
            VAL_DO(vb[r] = va[i];)
        }
    }
    PS_BARRIER();
}

/* The tile's keys (encoded) and values into lk / lv in input order, and
 * hist[d] digit d's count in the tile.  Barrier on exit. */
PS_FN void ps_os_load_count(PS_GLOBAL const PS_KEY *kin OS_VAL_IN(vin),
                            PS_LOCAL PS_KEY *lk OS_VAL_LOCAL(lv),
                            PS_LOCAL ps_u32 *hist, ps_u32 base, ps_u32 valid,
                            ps_u32 shift, PS_KEY eflip, PS_KEY efneg, ps_u32 t)
{
    ps_u32 j, d;
    for (d = t; d < OS_RADIX; d += PS_WG)
        hist[d] = 0;
    PS_BARRIER();
    for (j = t; j < valid; j += PS_WG) {
        PS_KEY k = ps_enc(kin[base + j], eflip, efneg);
        lk[j] = k;
        VAL_DO(lv[j] = vin[base + j];)
#if PS_WG == 1
        hist[ps_os_digit(k, shift)]++;
#else
        PS_ATOMIC_ADD_LOCAL(&hist[ps_os_digit(k, shift)], 1u);
#endif
    }
    PS_BARRIER();
}
#endif

/* Every digit's count in tile `pred` of the portion, counted from its
 * keys into fb[0..256): what the tile's owner publishes, for when it has
 * not yet.  Barriers on entry and exit. */
PS_FN void ps_os_count_tile(PS_GLOBAL const PS_KEY *kin, ps_u32 n, ps_u32 pred,
                            ps_u32 shift, PS_KEY eflip, PS_KEY efneg,
                            PS_LOCAL ps_u32 *fb, ps_u32 t)
{
    ps_u32 base = pred * OS_TILE, valid = n - base < OS_TILE ? n - base : OS_TILE;
    ps_u32 j;
    for (j = t; j < OS_RADIX; j += PS_WG)
        fb[j] = 0;
    PS_BARRIER();
    for (j = t; j < valid; j += PS_WG) {
        ps_u32 d = ps_os_digit(ps_enc(kin[base + j], eflip, efneg), shift);
#if PS_WG == 1
        fb[d]++;
#else
        PS_ATOMIC_ADD_LOCAL(&fb[d], 1u);
#endif
    }
    PS_BARRIER();
}

#if PS_OS_LOOKBACK
/* One predecessor's status word, polled until it is not empty or
 * PS_OS_SPINS polls have found it empty (then it is returned empty). */
PS_FN ps_u32 ps_os_poll(PS_GLOBAL ps_u32 *word)
{
    ps_u32 v = PS_ATOMIC_LOAD_GLOBAL(word), s;
    PS_NO_UNROLL
    for (s = 0; (v & ~OS_VALUE) == 0u && s < PS_OS_SPINS; s++) {
        if (s >= PS_OS_FAST_SPINS)
            PS_SPIN_PAUSE(s - PS_OS_FAST_SPINS);
        v = PS_ATOMIC_LOAD_GLOBAL(word);
    }
    return v;
}

/* Digit d's walk back from tile *pred - 1, adding each word's count to
 * *acc: 1 when it has ended (an inclusive prefix met, or tile 0 passed),
 * 0 when tile *pred - 1 is still silent after PS_OS_SPINS polls. */
PS_FN int ps_os_walk(PS_GLOBAL ps_u32 *status, ps_u32 d, ps_u32 *pred, ps_u32 *acc)
{
    while (*pred > 0u) {
        ps_u32 v;
#if PS_OS_LB_WIDTH > 1
        /* PS_OS_LB_WIDTH predecessors' words read at once, then taken in
         * order: one round trip to L2 where one at a time took as many as
         * there are words (a walk passed 9.5 of them on an H200, and its
         * polls held 39% of the kernel's stall samples).  A word read
         * early may be older than a later read would give, but each says
         * what it says consistently (its count goes with its flag), so
         * any such reading sums to the same prefix.  An empty word ends
         * the batch and is polled below. */
        if (*pred >= PS_OS_LB_WIDTH) {
            ps_u32 w[PS_OS_LB_WIDTH], i, stop = 0;
            PS_UNROLL
            for (i = 0; i < PS_OS_LB_WIDTH; i++)
                w[i] = PS_ATOMIC_LOAD_GLOBAL(&status[(*pred - 1u - i) * OS_RADIX + d]);
            PS_UNROLL
            for (i = 0; i < PS_OS_LB_WIDTH; i++) {
                if (stop == 0u) {
                    if ((w[i] & ~OS_VALUE) == 0u) {
                        stop = 1;
                    } else {
                        *acc += w[i] & OS_VALUE;
                        *pred -= 1u;
                        if ((w[i] & ~OS_VALUE) == OS_PRE)
                            stop = 2;
                    }
                }
            }
            if (stop == 2u)
                return 1;
            if (stop == 0u)
                continue;
        }
#endif
        v = ps_os_poll(&status[(*pred - 1u) * OS_RADIX + d]);
        if ((v & ~OS_VALUE) == 0u)
            return 0;
        *acc += v & OS_VALUE;
        *pred -= 1u;
        if ((v & ~OS_VALUE) == OS_PRE)
            return 1;
    }
    return 1;
}

/*
 * The look-back: each item's digits d (t, t + WG, ...: OS_CHUNK of them)
 * get before[d] := digit d's count in the portion's tiles before `tile`,
 * and tile's inclusive prefix of d (before[d] + hist[d]) is published.
 * The whole work-group calls it.
 *
 * Each item walks its own digits back on its own (CUB's LookbackGlobal):
 * aggregates are added and the walk goes on, an inclusive prefix is added
 * and ends it, and the digit's own inclusive prefix goes out at once, so
 * the tiles after this one stop their walks here sooner.  No barrier
 * until every walk has ended or stopped at a predecessor still silent
 * after PS_OS_SPINS polls.  Then the work-group counts the keys of the
 * nearest tile some digit waits for (ps_os_count_tile), publishes what it
 * found there as that tile's aggregates (tile 0's: inclusive prefixes)
 * with atomic max, and the digits that waited for it walk on; and so on
 * until no digit waits.  A word only ever rises, from empty to aggregate
 * to inclusive prefix, whoever writes it, and a flag's value is the same
 * whoever computed it, so the look-back ends however work-groups are
 * scheduled (no forward progress needed), at the cost of one more read
 * of a tile's keys per count.  cand: PS_WG words; ctl: one word.
 */
PS_FN void ps_os_look_back(PS_GLOBAL ps_u32 *status, PS_GLOBAL const PS_KEY *kin,
                           ps_u32 n, ps_u32 tile, ps_u32 shift, PS_KEY eflip,
                           PS_KEY efneg, PS_LOCAL ps_u32 *before,
                           PS_LOCAL const ps_u32 *hist, PS_LOCAL ps_u32 *fb,
                           PS_LOCAL ps_u32 *ctl, PS_LOCAL ps_u32 *cand, ps_u32 t)
{
    ps_u32 acc[OS_CHUNK], pred[OS_CHUNK], open[OS_CHUNK], c, d, j, target;

    for (c = 0; c < OS_CHUNK; c++) {
        d = t + c * PS_WG;
        acc[c] = 0;
        pred[c] = tile;
        open[c] = !ps_os_walk(status, d, &pred[c], &acc[c]);
        if (!open[c] && tile > 0u)
            PS_ATOMIC_STORE_GLOBAL(&status[tile * OS_RADIX + d],
                                   OS_PRE | (acc[c] + hist[d]));
    }
    for (;;) {
        /* The nearest predecessor a digit waits for, + 1 (0: none). */
        target = 0;
        for (c = 0; c < OS_CHUNK; c++)
            if (open[c] && pred[c] > target)
                target = pred[c];
        cand[t] = target;
        PS_BARRIER();
        if (t == 0) {
            for (j = 0; j < PS_WG; j++)
                target = cand[j] > target ? cand[j] : target;
            ctl[0] = target;
        }
        PS_BARRIER();
        target = ctl[0];
        if (target == 0u)
            break;
        /* Waited long enough: that tile's owner may be unable to run
         * until this work-group is done. */
        ps_os_count_tile(kin, n, target - 1u, shift, eflip, efneg, fb, t);
        for (c = 0; c < OS_CHUNK; c++) {
            if (open[c] && pred[c] == target) {
                d = t + c * PS_WG;
                acc[c] += fb[d];
                (void)PS_ATOMIC_MAX_GLOBAL(&status[(target - 1u) * OS_RADIX + d],
                                           (target == 1u ? OS_PRE : OS_AGG) | fb[d]);
                pred[c] -= 1u;
                open[c] = !ps_os_walk(status, d, &pred[c], &acc[c]);
                if (!open[c])
                    PS_ATOMIC_STORE_GLOBAL(&status[tile * OS_RADIX + d],
                                           OS_PRE | (acc[c] + hist[d]));
            }
        }
    }
    for (c = 0; c < OS_CHUNK; c++)
        before[t + c * PS_WG] = acc[c];
}

#else /* PS_OS_LOOKBACK == 0 */
/*
 * The look-back: each item's digits d (t, t + WG, ...: OS_CHUNK of them)
 * get before[d] := digit d's count in the portion's tiles before `tile`.
 * The whole work-group calls it; the caller publishes the inclusive
 * prefixes after it.
 *
 * The work-group steps back one tile at a time (pred), every digit that
 * has not yet met an inclusive prefix reading pred's status word for it:
 * an aggregate is added and the walk goes on, an inclusive prefix is
 * added and ends that digit's walk.  When some digit finds pred's word
 * still empty, the work-group polls again, up to PS_OS_SPINS rounds with
 * a pause between them, and then stops waiting: it counts pred's keys
 * itself (ps_os_count_tile), takes the counts it lacks from that, and
 * publishes them as pred's aggregates (for tile 0, its inclusive
 * prefixes) with atomic max.  A word only ever rises, from empty to
 * aggregate to inclusive prefix, whoever writes it, and a flag's value is
 * the same whoever computed it.  So the look-back ends however
 * work-groups are scheduled, even where one that took an earlier tile
 * does not run until this one has finished (no forward progress), at the
 * cost of one more read of a tile's keys per fallback.
 *
 * ctl: 6 words, zero on entry: for rounds r, r+1, r+2 (mod 3), "some
 * digit is waiting" and "some digit is still walking".  Item 0 clears a
 * round's pair two rounds later, when every item has read it, and before
 * it is written again.
 */
PS_FN void ps_os_look_back(PS_GLOBAL ps_u32 *status, PS_GLOBAL const PS_KEY *kin,
                           ps_u32 n, ps_u32 tile, ps_u32 shift, PS_KEY eflip,
                           PS_KEY efneg, PS_LOCAL ps_u32 *before,
                           PS_LOCAL const ps_u32 *hist, PS_LOCAL ps_u32 *fb,
                           PS_LOCAL ps_u32 *ctl, PS_LOCAL ps_u32 *cand, ps_u32 t)
{
    ps_u32 acc[OS_CHUNK], got[OS_CHUNK], open[OS_CHUNK];
    ps_u32 pred = tile, round = 0, spins = 0, walking = tile > 0, c, d, w, r;

    for (c = 0; c < OS_CHUNK; c++) {
        acc[c] = 0;
        got[c] = 0;
        open[c] = tile > 0;
    }
    /* pred, round, spins, waiting and walking are the same in every item,
     * so every item reaches the same barriers. */
    while (walking) {
        ps_u32 waiting;
        if (spins == 0) {
            pred--;
            for (c = 0; c < OS_CHUNK; c++)
                got[c] = 0;
        }
        r = round % 3u;
        for (c = 0; c < OS_CHUNK; c++) {
            if (open[c] && !got[c]) {
                w = PS_ATOMIC_LOAD_GLOBAL(&status[pred * OS_RADIX + t + c * PS_WG]);
                if ((w & ~OS_VALUE) != 0) {
                    got[c] = 1;
                    acc[c] += w & OS_VALUE;
                    open[c] = (w & ~OS_VALUE) != OS_PRE && pred > 0;
                } else {
                    ctl[2 * r] = 1;
                }
            }
            if (open[c])
                ctl[2 * r + 1] = 1;
        }
        if (t == 0) {
            ctl[2 * ((r + 1u) % 3u)] = 0;
            ctl[2 * ((r + 1u) % 3u) + 1] = 0;
        }
        PS_BARRIER();
        waiting = ctl[2 * r];
        walking = ctl[2 * r + 1];
        round++;
        if (waiting && spins < PS_OS_SPINS) {
            PS_SPIN_PAUSE(spins);
            spins++;
        } else {
            if (waiting) {
                /* Waited long enough: pred's owner may be unable to run
                 * until this work-group is done. */
                ps_os_count_tile(kin, n, pred, shift, eflip, efneg, fb, t);
                for (c = 0; c < OS_CHUNK; c++) {
                    if (open[c] && !got[c]) {
                        d = t + c * PS_WG;
                        acc[c] += fb[d];
                        (void)PS_ATOMIC_MAX_GLOBAL(&status[pred * OS_RADIX + d],
                                                   (pred == 0 ? OS_PRE : OS_AGG) | fb[d]);
                        open[c] = pred > 0;
                    }
                }
                /* Every digit waiting was walking. */
                walking = pred > 0;
            }
            spins = 0;
        }
    }
    (void)hist;
    (void)cand;
    for (c = 0; c < OS_CHUNK; c++)
        before[t + c * PS_WG] = acc[c];
}
#endif /* PS_OS_LOOKBACK */

/*
 * One pass of the digit at `shift` over one portion: n keys from kin to
 * kout (values vin to vout), kin and vin offset to the portion's start.
 * bins: where each digit's keys of this portion start in kout (for the
 * first portion, ps_os_scan's positions).  status: the tile counter, then
 * 256 status words per tile, all zero at launch.  bnext: written by the
 * portion's last tile with where each digit's keys of the next portion
 * start; it must not overlap bins.  Keys are encoded on load when enc_in
 * and decoded on store when dec_out.
 */
PS_KERNEL_WG_MIN(PS_WG, PS_OS_MIN_BLOCKS) ps_onesweep(PS_GLOBAL const PS_KEY *kin, ps_u64 kin_off,
                                 PS_GLOBAL PS_KEY *kout, ps_u64 kout_off
                                 VAL_ARGS(vin, vin_off)
                                 VAL_ARGS(vout, vout_off),
                                 ps_u32 n, ps_u32 shift,
                                 PS_GLOBAL const ps_u32 *bins, ps_u64 boff,
                                 PS_GLOBAL ps_u32 *status, ps_u64 soff,
                                 PS_GLOBAL ps_u32 *bnext, ps_u64 bnoff,
                                 ps_u64 flip64, ps_u64 fneg64,
                                 ps_u32 enc_in, ps_u32 dec_out)
{
#ifdef PS_WARP_SIZE
    PS_LOCAL_ARRAY(os_slot, buf, OS_TILE);
    /* The warp counters, free again once the keys are ranked: the
     * look-back's fallback counts in them. */
    PS_LOCAL_ARRAY(ps_u32, wc, PS_WG / PS_WARP_SIZE_MIN * OS_RADIX);
    PS_KEY k[PS_OS_ITEMS];
    ps_u32 rel[PS_OS_ITEMS], i;
    /* Slot 0's key in the tile, warp-striped (ps_os_rank_keys). */
    ps_u32 first = PS_LID() / PS_WARP_SIZE * PS_WARP_SIZE * PS_OS_ITEMS
                   + (PS_LID() & (PS_WARP_SIZE - 1u));
#  ifdef PS_VAL
    /* Each scattered slot's digit, four to a word, for the values. */
    ps_u32 dig[(PS_OS_ITEMS + 3) / 4];
#  endif
#else
    PS_LOCAL_ARRAY(PS_KEY, lk, OS_TILE);
    PS_LOCAL_ARRAY(PS_KEY, lk2, OS_TILE);
#  ifdef PS_VAL
    PS_LOCAL_ARRAY(PS_VAL, lv, OS_TILE);
    PS_LOCAL_ARRAY(PS_VAL, lv2, OS_TILE);
#  endif
    PS_LOCAL_ARRAY(ps_u32, cnt, 16 * PS_WG);
    PS_LOCAL_ARRAY(ps_u32, fb, OS_RADIX);
#endif
    PS_LOCAL_ARRAY(ps_u32, hist, OS_RADIX);
    PS_LOCAL_ARRAY(ps_u32, tstart, OS_RADIX);
    PS_LOCAL_ARRAY(ps_u32, dst, OS_RADIX);
    PS_LOCAL_ARRAY(ps_u32, part, PS_WG);
    PS_LOCAL_ARRAY(ps_u32, ctl, 6);
    /* The tile id, then (early counts) 1 + the digit every key of the
     * tile has, or 0. */
    PS_LOCAL_ARRAY(ps_u32, tile_id, 2);
    ps_u32 t = PS_LID(), tile, base, valid, d, j, same = 0;
    PS_KEY flip = (PS_KEY)flip64, fneg = (PS_KEY)fneg64;
    PS_KEY eflip = enc_in ? flip : (PS_KEY)0, efneg = enc_in ? fneg : (PS_KEY)0;
#if defined(PS_WARP_SIZE) && defined(PS_VAL)
    for (i = 0; i < (PS_OS_ITEMS + 3) / 4; i++)
        dig[i] = 0;
#endif

    kin += kin_off;
    kout += kout_off;
    VAL_DO(vin += vin_off; vout += vout_off;)
    bins += boff;
    status += soff;
    bnext += bnoff;
    /* Tiles in the order work-groups start, not PS_GROUP(): a work-group
     * mostly waits for tiles that running work-groups own.  Tests reorder
     * them (PS_OS_ORDER) so that it waits for ones that have not started:
     * the case of a device that gives no forward progress. */
    if (t == 0) {
        ps_u32 ticket = PS_ATOMIC_ADD_GLOBAL(&status[0], 1u);
        ps_u32 ntiles = (n + OS_TILE - 1u) / OS_TILE, odd = ntiles / 2u;
        tile_id[0] = PS_OS_ORDER == 1u ? ntiles - 1u - ticket
                   : PS_OS_ORDER == 2u ? (ticket < odd ? 2u * ticket + 1u
                                                       : 2u * (ticket - odd))
                   : PS_OS_ORDER == 3u
                       ? (ps_u32)(((ps_u64)ticket * 2654435761u + ntiles / 3u) % ntiles)
                   : ticket;
        tile_id[1] = 0;
        for (j = 0; j < 6u; j++)
            ctl[j] = 0;
    }
    PS_BARRIER();
    tile = tile_id[0];
    status += OS_RADIX;
    base = tile * OS_TILE;
    valid = n - base < OS_TILE ? n - base : OS_TILE;

#if OS_EARLY
    /* Counts first (one shared atomic a key), published at once; then
     * the tile's digit starts, folded into the warp counters, so that
     * ranking a key gives its place in the tile. */
    ps_os_load_count_warp(kin, k, wc, base, valid, shift, eflip, efneg, t);
    {
        ps_u32 lane = t & (PS_WARP_SIZE - 1u), w = t / PS_WARP_SIZE, own = 0, c, v;
        for (i = 0; i < OS_WARPS; i++) {
            c = wc[i * OS_RADIX + t];
            wc[i * OS_RADIX + t] = own;
            own += c;
        }
        if (t == OS_RADIX - 1u)
            own -= OS_TILE - valid;         /* the padding */
        hist[t] = own;
        PS_ATOMIC_STORE_GLOBAL(&status[tile * OS_RADIX + t],
                               (tile == 0 ? OS_PRE : OS_AGG) | own);
        if (PS_OS_SHORTCUT && own == valid)
            tile_id[1] = t + 1u;
        /* Exclusive scan of the 256 counts: each warp in registers, then
         * the warp totals before it. */
        v = ps_warp_scan(own, lane, PS_WARP_SIZE);
        if (lane == PS_WARP_SIZE - 1u)
            part[w] = v;
        PS_BARRIER();
        for (i = 0; i < w; i++)
            v += part[i];
        tstart[t] = v - own;
        for (i = 0; i < OS_WARPS; i++)
            wc[i * OS_RADIX + t] += v - own;
        same = tile_id[1];
        PS_BARRIER();
    }
    if (same == 0u)
        ps_os_rank_early(k, rel, wc, buf, shift, t);
    PS_BARRIER();
    ps_os_look_back(status, kin, n, tile, shift, eflip, efneg, dst, hist, wc, ctl, part,
                    t);
#else
    /* The tile's digit counts first, published as soon as they are known
     * (CUB's early counts): tile 0's are already its inclusive prefix. */
#  ifdef PS_WARP_SIZE
    ps_os_rank_keys(kin, k, rel, wc, hist, base, valid, shift, eflip, efneg, t);
#  else
    ps_os_load_count(kin OS_VAL(vin), lk OS_VAL(lv), hist, base, valid, shift,
                     eflip, efneg, t);
#  endif
    for (d = t; d < OS_RADIX; d += PS_WG) {
        PS_ATOMIC_STORE_GLOBAL(&status[tile * OS_RADIX + d],
                               (tile == 0 ? OS_PRE : OS_AGG) | hist[d]);
        tstart[d] = hist[d];
    }
    ps_os_scan_radix(tstart, part, t);
    /* The keys in digit order in local memory (the values too, on the
     * portable path). */
#  ifdef PS_WARP_SIZE
    PS_UNROLL
    for (i = 0; i < PS_OS_ITEMS; i++) {
        if (first + i * PS_WARP_SIZE < valid) {
            rel[i] += tstart[ps_os_digit(k[i], shift)];
            buf[rel[i]].k = k[i];
        }
    }
    PS_BARRIER();
    ps_os_look_back(status, kin, n, tile, shift, eflip, efneg, dst, hist, wc, ctl, part,
                    t);
#  else
    ps_os_nibble_pass(lk OS_VAL(lv), lk2 OS_VAL(lv2), cnt, part, valid, shift, t);
    ps_os_nibble_pass(lk2 OS_VAL(lv2), lk OS_VAL(lv), cnt, part, valid, shift + 4u,
                      t);
    ps_os_look_back(status, kin, n, tile, shift, eflip, efneg, dst, hist, fb, ctl, part,
                    t);
#  endif
#endif
    for (d = t; d < OS_RADIX; d += PS_WG) {
        ps_u32 before = dst[d];
        if (!PS_OS_LOOKBACK && tile > 0)
            PS_ATOMIC_STORE_GLOBAL(&status[tile * OS_RADIX + d],
                                   OS_PRE | (before + hist[d]));
        dst[d] = bins[d] + before - tstart[d];
        /* The last tile's inclusive prefix is the portion's count. */
        if (base + valid == n)
            bnext[d] = bins[d] + before + hist[d];
    }
    PS_BARRIER();
#ifdef PS_WARP_SIZE
    if (same != 0u) {
        /* Every key has digit same - 1: the tile goes out in input order
         * (tstart is 0), straight from registers (CUB's short circuit). */
        ps_u32 at = dst[same - 1u];
        PS_UNROLL
        for (i = 0; i < PS_OS_ITEMS; i++) {
            j = first + i * PS_WARP_SIZE;
            if (j < valid) {
                kout[at + j] = dec_out ? ps_dec(k[i], flip, fneg) : k[i];
                VAL_DO(vout[at + j] = vin[base + j];)
            }
        }
        return;
    }
    /* Within a digit, consecutive ranks go to consecutive addresses.  A
     * full tile that need not decode stores unguarded (as the loads). */
    PS_OPAQUE_PTR(kout);
    if (PS_OS_FULL_TILES && valid == OS_TILE && (!dec_out || (flip | fneg) == 0)) {
        PS_UNROLL
        for (i = 0; i < PS_OS_ITEMS; i++) {
            PS_KEY key = buf[i * PS_WG + t].k;
            d = ps_os_digit(key, shift);
            kout[dst[d] + i * PS_WG + t] = key;
            VAL_DO(dig[i / 4u] |= d << (8u * (i % 4u));)
        }
    } else {
        PS_UNROLL
        for (i = 0; i < PS_OS_ITEMS; i++) {
            j = i * PS_WG + t;
            if (j < valid) {
                PS_KEY key = buf[j].k;
                d = ps_os_digit(key, shift);
                kout[dst[d] + j] = dec_out ? ps_dec(key, flip, fneg) : key;
                VAL_DO(dig[i / 4u] |= d << (8u * (i % 4u));)
            }
        }
    }
#  ifdef PS_VAL
    /* Then the values, through the same buffer: each goes where its key
     * went in the tile, and out where its slot's key went. */
    PS_BARRIER();
    {
        PS_GLOBAL const PS_VAL *vsrc = vin + base;
        vsrc += first;
        PS_OPAQUE_PTR(vsrc);
        PS_OPAQUE_PTR(vout);
        if (PS_OS_FULL_TILES && valid == OS_TILE) {
            PS_UNROLL
            for (i = 0; i < PS_OS_ITEMS; i++)
                buf[rel[i]].v = vsrc[i * PS_WARP_SIZE];
        } else {
            PS_UNROLL
            for (i = 0; i < PS_OS_ITEMS; i++)
                if (first + i * PS_WARP_SIZE < valid)
                    buf[rel[i]].v = vsrc[i * PS_WARP_SIZE];
        }
    }
    PS_BARRIER();
    if (PS_OS_FULL_TILES && valid == OS_TILE) {
        PS_UNROLL
        for (i = 0; i < PS_OS_ITEMS; i++)
            vout[dst[(dig[i / 4u] >> (8u * (i % 4u))) & 255u] + i * PS_WG + t] =
                buf[i * PS_WG + t].v;
    } else {
        PS_UNROLL
        for (i = 0; i < PS_OS_ITEMS; i++) {
            j = i * PS_WG + t;
            if (j < valid)
                vout[dst[(dig[i / 4u] >> (8u * (i % 4u))) & 255u] + j] = buf[j].v;
        }
    }
#  endif
#else
    (void)same;
    for (j = t; j < valid; j += PS_WG) {
        PS_KEY key = lk[j];
        ps_u32 pos = dst[ps_os_digit(key, shift)] + j;
        kout[pos] = dec_out ? ps_dec(key, flip, fneg) : key;
        VAL_DO(vout[pos] = lv[j];)
    }
#endif
}

#endif /* PS_WITH_ONESWEEP */
