/*
 * ps_gpu_tune.h - how the shared kernels are cut for CUDA and HIP, as
 * compile-time constants (nvcc and hipcc compile every instantiation ahead
 * of time, unlike OpenCL, which picks them per device at run time).
 *
 * Included by the kernel instantiations (C++) and by the host driver (C),
 * so both agree on tile sizes.  The limit that decides: CUDA allows 48 KiB
 * of static shared memory per block (HIP on gfx9: 64 KiB of LDS).  The
 * downsweep needs 2 * TILE * (key + value bytes) for the tile and its
 * ranked copy, plus RADIX * WG * 4 for the per-item digit counters and
 * one word of padding per 32 (PS_CNT: no bank conflicts in the rank scan).
 * With 4-bit digits and 256 work-items the counters take 16.5 KiB, and the
 * tile sizes below keep the total at or under 42 KiB for every key/value
 * width:
 *
 *   key + value bytes   items   tile   shared memory of the downsweep
 *   <= 4                8       2048   33.5 KiB
 *   <= 12               4       1024   25.5 KiB (8 bytes) .. 41.5 KiB (12)
 *   16                  2        512   33.5 KiB
 *
 * 8-bit digits would need 256 KiB of counters at this work-group size: the
 * Onesweep kernels below rank per warp instead (one row of counters per
 * warp); the portable ranking keeps 4 bits.  4 bits also make every
 * key width an even number of passes, so a sort that runs every pass ends
 * in the caller's buffer.  Wavefronts of 32 or 64 both divide 256.
 */
#ifndef PS_GPU_TUNE_H
#define PS_GPU_TUNE_H

#define PS_GPU_WG 256
#define PS_GPU_DIGIT_BITS 4
#if defined(PS_GPU_HIP) || defined(__HIPCC__)
/* HIP: a gfx9 CU has 64 KiB of LDS, so the tiles above (33.5-41.5 KiB)
 * would let one work-group at a time onto a CU, leaving nothing to hide
 * the scatter's latency.  Tiles half as long keep every downsweep at or
 * under 30 KiB (hipcc -Rpass-analysis=kernel-resource-usage, gfx90a:
 * 26256 bytes for u32 keys and for u64 pairs, 30352 for u32 keys with
 * 8-byte values): two work-groups per CU.  The host code (PS_GPU_HIP) and
 * the kernels (__HIPCC__) see the same numbers; the kernels are the same
 * for any item count (pocl runs items=1 in test/opencl.sh). */
#  define PS_GPU_ITEMS(kb, vb) ((kb) + (vb) <= 4 ? 4 : (kb) + (vb) <= 12 ? 2 : 1)
#else
#  define PS_GPU_ITEMS(kb, vb) ((kb) + (vb) <= 4 ? 8 : (kb) + (vb) <= 12 ? 4 : 2)
#endif
/*
 * Onesweep (ps_kernel_onesweep.cl): 8-bit digits, 256 work-items, one
 * kernel per digit.  Its warp-level ranking keeps the keys in registers
 * and passes keys, then values, through one tile-long buffer of shared
 * memory (the wider of key and value, as CUB's exchange buffer), plus a
 * row of 256 counters per warp (8 warps of 32: 8 KiB; 4 wavefronts of 64
 * on HIP: 4 KiB) and 3 KiB of digit arrays and 1 KiB of scan space:
 *
 *   wider of key, value   items   tile   shared memory of ps_onesweep
 *   1 byte                20      5120   17.0 KiB
 *   2 bytes               20      5120   22.0 KiB
 *   4 bytes               20      5120   32.0 KiB
 *   8 bytes               12      3072   36.0 KiB
 *
 * (ptxas -v, sm_90: 17440 .. 36896 bytes), with 80 registers a thread
 * and no spills: three blocks of 256 threads a multiprocessor, 24 warps,
 * as many as CUB's two blocks of 384 (doc/cuda.md compares the two; the
 * first lease's tiles of 8192 and 4096 keys took 128 registers, two
 * blocks, 16 warps).  CUB's sm_90 tiles are 7680 u32 keys, 8832 u32
 * pairs, 5760 u64 keys.  The look-back costs about 5 KiB of status
 * traffic a tile (mostly in L2), so the bigger the tile the less of it
 * per key.
 *
 * HIP: a gfx9 CU has 64 KiB of LDS, and the first tiles (32 x 256 keys)
 * would take 40 KiB (and 219 VGPRs), one work-group a CU; tiles of 16 x
 * 256 and 8 x 256 take 24.6 KiB (hipcc -Rpass-analysis=kernel-resource-usage,
 * gfx90a: 24588 bytes for u32 pairs, 94-102 VGPRs, no spills): two a CU,
 * as for reduce-then-scan above.
 */
#if defined(PS_GPU_HIP) || defined(__HIPCC__)
#  define PS_GPU_OS_ITEMS_DEFAULT(kb, vb) ((kb) <= 4 && (vb) <= 4 ? 16 : 8)
#else
#  define PS_GPU_OS_ITEMS_DEFAULT(kb, vb) ((kb) <= 4 && (vb) <= 4 ? 20 : 12)
#endif
/* The variants bench/gpu-run.sh times (its `variants` step, doc/cuda.md)
 * set other items per work-item through the kernels' compiler flags:
 * PS_GPU_OS_ITEMS_NARROW where key and value are 4 bytes or less,
 * PS_GPU_OS_ITEMS_WIDE elsewhere.  The host reads the kernels' own
 * figure from their table (ps_gpu_kernels_cxx.os_items), so host and
 * kernels agree whatever the flags; at most 32, which keeps a portion of
 * PS_GPU_OS_PORTION_TILES tiles under 2^30 keys (ps_gpu_sort.c). */
#ifdef PS_GPU_OS_ITEMS_NARROW
#  define PS_GPU_OS_ITEMS_N PS_GPU_OS_ITEMS_NARROW
#else
#  define PS_GPU_OS_ITEMS_N PS_GPU_OS_ITEMS_DEFAULT(4, 4)
#endif
#ifdef PS_GPU_OS_ITEMS_WIDE
#  define PS_GPU_OS_ITEMS_W PS_GPU_OS_ITEMS_WIDE
#else
#  define PS_GPU_OS_ITEMS_W PS_GPU_OS_ITEMS_DEFAULT(8, 8)
#endif
#define PS_GPU_OS_ITEMS(kb, vb) \
    ((kb) <= 4 && (vb) <= 4 ? PS_GPU_OS_ITEMS_N : PS_GPU_OS_ITEMS_W)
/* Blocks of ps_onesweep the tuning assumes resident on one CUDA
 * multiprocessor (65536 registers): 3 of 256 threads leave 80 registers
 * a thread, which the tiles above fit in (ptxas -v, sm_90: 80, no
 * spills; 32 keys a thread would spill, and declaring 1 block lets
 * ptxas take 190 registers, one block a multiprocessor).  The
 * kernel declares it (__launch_bounds__(256, PS_GPU_OS_MIN_BLOCKS)), so
 * the compiler keeps within it, and test/ptxas-report.sh fails the build's
 * check on any spill, or on more registers than it allows. */
#ifndef PS_GPU_OS_MIN_BLOCKS
#  define PS_GPU_OS_MIN_BLOCKS 3
#endif
/* Onesweep's status words carry 30-bit counts, so a pass runs over
 * portions of at most this many tiles, one launch each (CUB's portions are
 * 2^28 keys): 2^16 tiles of 8192 or 4096 keys, 2^29 or 2^28 keys.  The CPU
 * stand-in's test sets it lower, so that small sorts cross portions. */
#ifndef PS_GPU_OS_PORTION_TILES
#  define PS_GPU_OS_PORTION_TILES 65536u
#endif

/* The segmented sort (ps_kernel_segments.cl): segments of up to this many
 * keys are ranked by counting, many to a work-group; longer ones of up to
 * a tile get a work-group each.  Counting costs a key one comparison per
 * key of its segment; a work-group's radix sort of one segment costs about
 * passes x 60 steps of every work-item plus ~20 barriers per pass, however
 * short the segment.  Over a tile of segments of m keys the two are equal
 * where items x m = (tile / m) x passes x 60, m = sqrt(256 x passes x 60):
 * ~175 keys for 2 passes (8-bit keys), 250 (16-bit), 350 (32-bit), 500
 * (64-bit); hence 128 for 8-bit keys and 256 for the others, or the tile
 * when that is shorter (doc/segments.md). */
#define PS_GPU_SEG_SMALL(kb, vb) \
    ((kb) == 1 ? 128 : PS_GPU_WG * PS_GPU_ITEMS(kb, vb) < 256 \
                     ? PS_GPU_WG * PS_GPU_ITEMS(kb, vb) : 256)

/* Large segments (more than a tile) shorter than this are sorted all at
 * once, tile by tile (ps_seg_up, ps_seg_down); longer ones each by the
 * plain sort, whose Onesweep reads the keys once per pass where the tiles
 * read them twice.  The CPU stand-in's test sets it lower, so that its
 * small arrays take both paths. */
#ifndef PS_GPU_SEG_HUGE
#  define PS_GPU_SEG_HUGE (1u << 20)
#endif

/* Most work-groups in one pass: each owns a run of whole tiles.  1024
 * fills any current GPU several times over and keeps the one-work-group
 * scan of the per-block counts (16 * 1024 words) short. */
#ifndef PS_GPU_MAX_BLOCKS
#  define PS_GPU_MAX_BLOCKS 1024   /* the CPU stand-in's test sets it lower */
#endif

#endif /* PS_GPU_TUNE_H */
