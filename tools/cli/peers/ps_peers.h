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

/* 1 when ps_peer_vqsort can sort, 0 otherwise. */
int ps_peer_vqsort_available(void);

#ifdef __cplusplus
}
#endif

#endif /* PS_PEERS_H */
