/*
 * ps_openmp_net.h - sorting networks for the buckets of a leaf, on CPUs
 * with AVX-512 or AVX2 (ps_openmp_net.c), chosen at run time.  Used by the OpenMP backend only.
 *
 * A leaf (of 4- or 8-byte keys without values, or of packed pairs) is
 * split once by its top bits into buckets of a few keys; each bucket is
 * then sorted whole, by bitonic networks in one to four 512-bit
 * registers, on its way from the thread's buffer into the caller's
 * arrays.  That replaces a second counting pass and the counting of the
 * leaf's digits (doc/results-openmp.md).  Networks are not stable, which
 * no one can see for keys without values: keys that compare equal have
 * the same bits (the order image is a bijection).  For pairs, the lanes'
 * sort keys make them stable (ps_omp_net_pairs32).
 *
 * Each function below needs the ISA that ps_omp_net_isa() names for it:
 * AVX-512F, except ps_omp_net_slots32_avx2 (AVX2).
 */
#ifndef PS_OPENMP_NET_H
#define PS_OPENMP_NET_H

#include <stddef.h>
#include <stdint.h>

/* The most keys a bucket may have: each lies in a slot this big. */
#define PS_NET_MAX 32

/* What ps_omp_net_isa() finds: the networks this CPU can run. */
enum { PS_NET_NONE, PS_NET_AVX2, PS_NET_AVX512 };

#if defined(PS_HAVE_AVX512_TARGET)

/* Which networks this CPU (and its OS) runs: PS_NET_AVX512 when it has
 * AVX-512F, else PS_NET_AVX2 with AVX2 (4-byte keys only), else
 * PS_NET_NONE. */
int ps_omp_net_isa(void);

/* Sort each bucket into dst: bucket d lies in slots[d * PS_NET_MAX,
 * ends[d]), at most PS_NET_MAX keys, and goes, sorted by its order image
 * (ps_enc32 with this flip and fneg) as an unsigned number, right after
 * bucket d - 1 in dst, which takes the m keys of all nb buckets and is
 * not written past them.  The keys of a bucket must share their top bit;
 * slots and dst do not overlap. */
void ps_omp_net_slots32(const uint32_t *slots, uint32_t *dst,
                        const uint32_t *ends, size_t nb, uint32_t m,
                        uint32_t flip, uint32_t fneg);

/* ps_omp_net_slots32 with AVX2, for CPUs without AVX-512. */
void ps_omp_net_slots32_avx2(const uint32_t *slots, uint32_t *dst,
                             const uint32_t *ends, size_t nb, uint32_t m,
                             uint32_t flip, uint32_t fneg);

/* ps_omp_net_slots32 for 8-byte keys (ps_enc64's flip and fneg). */
void ps_omp_net_slots64(const uint64_t *slots, uint64_t *dst,
                        const uint32_t *ends, size_t nb, uint32_t m,
                        uint64_t flip, uint64_t fneg);

/* The same for packed pairs (key << 32 | value, ps_openmp_packed-inl.h) in
 * slots of PS_NET_MAX elements: each bucket, sorted stably by key image,
 * goes apart into keys and vals, right after the bucket before.  The keys
 * of a bucket must share their top 5 bits. */
void ps_omp_net_pairs32(const uint64_t *slots, void *keys, void *vals,
                        const uint32_t *ends, size_t nb, uint32_t m,
                        uint32_t flip, uint32_t fneg);

/* The most keys ps_omp_net_small32 and ps_omp_net_small64 sort: sixteen
 * registers. */
#define PS_NET_SMALL32 256
#define PS_NET_SMALL64 128

/* Sort n (1..PS_NET_SMALL32) 4-byte keys in place by their order images
 * (ps_enc32 with this flip and fneg): one bitonic network over all of
 * them, for a whole input that small (no scratch, no passes). */
void ps_omp_net_small32(uint32_t *keys, uint32_t n, uint32_t flip,
                        uint32_t fneg);

/* The same for 1..PS_NET_SMALL64 8-byte keys (ps_enc64). */
void ps_omp_net_small64(uint64_t *keys, uint32_t n, uint64_t flip,
                        uint64_t fneg);

#endif

#endif /* PS_OPENMP_NET_H */
