/*
 * ps_openmp_plan.c - the plan of one sort of the OpenMP backend: the
 * settings every sort is planned with (set at init, ps_openmp.c), its
 * team, what it decides before it has scratch (leaf size, networks, the
 * packed route, the team's chunks), the layout of its scratch block, and
 * the run that hands it to the control (ps_omp_sort, ps_openmp_msd.c).
 *
 * Scratch (n keys, n values, counts and line buffers) is one block, so
 * that a sort asks for memory once, before the caller's arrays are
 * written: a sort that gets it cannot fail half-way.
 */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ps_openmp_net.h"
#include "ps_openmp_plan.h"

/* A bucket of at most this many bytes (keys and values) is finished by one
 * thread in cache.  Measured at 16 KiB to 512 KiB (doc/results-openmp.md):
 * for keys, 128 KiB (buckets of 32-64 KiB) beats 64 KiB by 3-5% at 16M
 * u32 since the 12-bit leaf digits and the two-table survey, and ties it
 * from 64K to 4M keys and on u64; pairs gain 10-15% from 256 KiB, because
 * their MSD pass then needs fewer line buffers (the buffers of 4096
 * buckets of keys and values overflow L2). */
#define PS_LEAF_BYTES ((size_t)128 * 1024)
#define PS_LEAF_BYTES_PAIRS ((size_t)256 * 1024)
/* Arrays above this many bytes are scattered with streaming stores; below,
 * the next pass finds them in cache.  Measured (u32, 2 threads): streaming
 * is 13-20% faster from 256K keys up to 4M, even though 4M keys (twice 16
 * MiB) would fit the 32 MiB L3, and no slower at 64K. */
#define PS_STREAM_BYTES ((size_t)1 << 20)

const ps_host *ps_omp_host;
int ps_omp_threads;
int ps_omp_nets;

/* The first time the pool could not start a thread (RLIMIT_NPROC, a
 * cgroup's pids.max, no memory for a stack), PORTSORT_VERBOSE=1 says so:
 * the sorts go on with the threads there are. */
ps_team *ps_omp_team_open(void)
{
    static int told;
    ps_team *t = ps_team_open(ps_omp_threads);
    int err, failed = ps_team_start_failures(&err);
    if (failed && !__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
        ps_omp_host->log("openmp: %d of the %d threads asked for could be "
                         "started (%s); sorting with %d", ps_team_members(t),
                         ps_omp_threads,
                         err == EAGAIN ? "the process's thread limit"
                         : err == ENOMEM ? "no memory for another stack"
                         : "pthread_create failed", ps_team_members(t));
    return t;
}

/* Lay the scratch block out (or, with base NULL, just size it): scratch
 * keys, scratch values, the counts and OR/AND of each chunk of a team
 * pass, each member's area.  Returns the bytes needed, or 0 on size_t
 * overflow. */
static size_t layout(ps_omp_ctx *c, unsigned char *base)
{
    const size_t members = (size_t)c->members, chunks = c->chunks;
    size_t kb = c->bits / 8, t;
    size_t line = PS_UNIT_BYTES / (c->vs > kb ? c->vs : kb);  /* elements per unit */
    size_t mr = PS_MSD_RADIX, lr = (size_t)1 << PS_LEAF_BITS;
    size_t buckets = (size_t)1 << (c->bits < PS_MSD_BITS ? c->bits : PS_MSD_BITS);
    size_t kbytes, vbytes, shared;
    if (c->n > (SIZE_MAX - 4096) / (kb + c->vs + 1))
        return 0;
    kbytes = round64(c->n * kb);
    vbytes = round64(c->n * c->vs);
    shared = round64(chunks * 2 * sizeof(uint64_t))
             + round64(chunks * mr * sizeof(size_t));
    c->tls_stride = round64(sizeof(ps_omp_tls)) + buckets * PS_UNIT_BYTES
                    + round64(buckets * line * c->vs)
                    + round64(2 * mr * sizeof(size_t))
                    + round64(PS_MAX_DEPTH * (mr + 1) * sizeof(size_t))
                    + round64((PS_MAX_LEAF_DIGITS + 1) * lr * sizeof(uint32_t))
                    + round64(((1u << PS_SPLIT_BITS) + 1) * sizeof(uint32_t))
                    + round64(c->leaf_cap * kb * (c->net ? 9 : 1)) /* net_leaf */
                    + round64(c->leaf_cap * c->vs)
                    + (c->pk_net ? round64(c->leaf_cap * 64) : 0); /* pk_net_leaf */
    if (base != NULL) {
        unsigned char *p = base + kbytes + vbytes;
        c->k[1] = base;
        c->v[1] = c->vs ? base + kbytes : NULL;
        c->orand = (uint64_t *)(void *)p;
        p += round64(chunks * 2 * sizeof(uint64_t));
        c->ccount = (size_t *)(void *)p;
        c->tls = base + kbytes + vbytes + shared;
        for (t = 0; t < members; t++) {
            ps_omp_tls *tl;
            p = c->tls + t * c->tls_stride;
            tl = (ps_omp_tls *)(void *)p;
            p += round64(sizeof(ps_omp_tls));
            tl->kline = p;
            p += buckets * PS_UNIT_BYTES;
            tl->vline = p;
            p += round64(buckets * line * c->vs);
            tl->pos = (size_t *)(void *)p;
            tl->start = tl->pos + mr;
            p += round64(2 * mr * sizeof(size_t));
            tl->bounds = (size_t *)(void *)p;
            p += round64(PS_MAX_DEPTH * (mr + 1) * sizeof(size_t));
            tl->lhist = (uint32_t *)(void *)p;
            tl->loff = tl->lhist + PS_MAX_LEAF_DIGITS * lr;
            p += round64((PS_MAX_LEAF_DIGITS + 1) * lr * sizeof(uint32_t));
            tl->split = (uint32_t *)(void *)p;
            p += round64(((1u << PS_SPLIT_BITS) + 1) * sizeof(uint32_t));
            tl->tmp = p;
            tl->net_skip = 0;
        }
    }
    return kbytes + vbytes + shared + members * c->tls_stride;
}

size_t ps_omp_plan(ps_omp_ctx *c, void *keys, void *values, size_t vs,
                   size_t n, ps_type type, unsigned flags, ps_team *t)
{
    size_t kb = ps_type_bytes(type);
    memset(c, 0, sizeof *c);
    c->kt = ps_omp_kernels_of(kb);
    c->xf = ps_xf_make(type, flags);
    c->k[0] = keys;
    c->v[0] = values;
    c->vs = values != NULL ? vs : 0;
    c->n = n;
    c->bits = (unsigned)(8 * kb);
    c->team = n < PS_PARALLEL_MIN ? NULL : t;
    c->members = ps_team_members(c->team);
    /* Two chunks a member: see chunks_of (ps_openmp_msd.c). */
    c->chunks = c->team != NULL ? 2 * (size_t)c->members : 1;
    c->leaf_cap = (c->vs ? PS_LEAF_BYTES_PAIRS : PS_LEAF_BYTES) / (kb + c->vs);
    c->net = c->vs != 0 ? PS_NET_NONE
             : kb == 4 ? ps_omp_nets
             : kb == 8 && ps_omp_nets == PS_NET_AVX512 ? PS_NET_AVX512
             : PS_NET_NONE;
    c->pk_net = ps_omp_nets == PS_NET_AVX512 && kb == 4 && c->vs == 4;
    return layout(c, NULL);
}

size_t ps_omp_plan_bytes(size_t n, size_t vs, ps_type type, unsigned flags,
                         int members)
{
    ps_omp_ctx c;
    /* The plan reads neither array; it tells pairs from keys by values. */
    size_t bytes = ps_omp_plan(&c, NULL, vs != 0 ? &c : NULL, vs, n, type,
                               flags, NULL);
    if (bytes == 0 || n < PS_PARALLEL_MIN || members <= 1)
        return bytes;
    c.members = members;
    c.chunks = 2 * (size_t)members;
    return layout(&c, NULL);
}

void ps_omp_run(ps_omp_ctx *c, unsigned char *block)
{
    size_t kb = c->bits / 8;
    layout(c, block);
    ps_omp_place(c, c->n * (kb + c->vs) > PS_STREAM_BYTES);
    c->pack = kb == 4 && c->vs == 4;
    ps_omp_sort(c);
}

/* One network instead of the slot pass and bucket networks of a leaf,
 * with no plan, scratch or survey: one thread on Zen 5, the call
 * included, 256 u32 keys 580 -> 190 ns; bench/ps_cpubench, 256 u32 keys,
 * one thread, 541-579 -> 964-1077 Mkeys/s. */
int ps_omp_small_net(void *keys, size_t n, ps_type type, unsigned flags)
{
#if defined(PS_HAVE_AVX512_TARGET)
    size_t kb = ps_type_bytes(type);
    ps_xf xf;
    if (ps_omp_nets != PS_NET_AVX512
        || n > (kb == 4 ? PS_NET_SMALL32 : kb == 8 ? PS_NET_SMALL64 : 0))
        return 0;
    xf = ps_xf_make(type, flags);
    if (kb == 4)
        ps_omp_net_small32(keys, (uint32_t)n, (uint32_t)xf.flip,
                           (uint32_t)xf.fneg);
    else
        ps_omp_net_small64(keys, (uint32_t)n, xf.flip, xf.fneg);
    return 1;
#else
    (void)keys;
    (void)n;
    (void)type;
    (void)flags;
    return 0;
#endif
}
