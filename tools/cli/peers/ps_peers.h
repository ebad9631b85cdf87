/*
 * ps_peers.h - other sorters the benchmarks compare with, behind a C
 * interface (their own interfaces are C++).
 */
#ifndef PS_PEERS_H
#define PS_PEERS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sort n keys in place, ascending, with Highway's vqsort on the calling
 * thread.  type is a ps_type value; vqsort takes the 2-, 4- and 8-byte
 * types.  Returns 0 on success, -1 when the type is not supported or
 * libportsort was built without libhwy. */
int ps_peer_vqsort(void *keys, size_t n, int type);

/* Sort n pairs by key, ascending, with vqsort on the calling thread:
 * keys and values are both uint32_t (width 4) or both uint64_t (width 8);
 * values[i] moves with keys[i].  Not stable.  Returns 0, or -1 for another
 * width, when memory for the packed pairs runs out, or without libhwy. */
int ps_peer_vqsort_pairs(void *keys, void *values, size_t n, int width);

/* 1 when ps_peer_vqsort can sort, 0 otherwise. */
int ps_peer_vqsort_available(void);

#ifdef __cplusplus
}
#endif

#endif /* PS_PEERS_H */
