/*
 * ps_openmp_segments.c - the OpenMP backend's segmented sort
 * (ps_backend_ops.sort_segments): many independent sorts of one array's
 * segments, each as a plain sort of its length would run it (the plan of
 * ps_openmp_plan.c, the control of ps_openmp_msd.c), in one block of
 * scratch taken before any key moves.
 *
 * Short segments are shared out among the team's members, a chunk of
 * segments at a time, each member sorting its segments alone in its own
 * slice of the block; tiny ones in a row go to the sorting networks
 * together where the CPU has them.  Long segments then get the whole team
 * each, one after another.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_inplace.h"
#include "ps_openmp_net.h"
#include "ps_openmp_plan.h"

/* A segmented sort with fewer short keys than this runs them on one
 * thread: starting the team would cost more. */
#define PS_SEG_PARALLEL_MIN 8192

/* One short segment (below PS_PARALLEL_MIN, where a plain sort runs on one
 * thread too), on this thread, with `mine` as its scratch. */
static void segment_solo(unsigned char *keys, unsigned char *values,
                         size_t vs, size_t m, ps_type type, unsigned flags,
                         unsigned char *mine)
{
    ps_omp_ctx c;
    if (m <= PS_SMALL_N) {
        ps_omp_kernels_of(ps_type_bytes(type))->insert(keys, values, vs, m,
                                                       ps_xf_make(type, flags));
        return;
    }
    if (values == NULL && ps_omp_small_net(keys, m, type, flags))
        return;
    ps_omp_plan(&c, keys, values, vs, m, type, flags, NULL);
    ps_omp_run(&c, mine);
}

/* Tiny segments in a row go to the sorting networks together, up to this
 * many to a call. */
#define PS_SEG_NET_BATCH 256
#define PS_SEG_NET_SLOTS (PS_SEG_NET_BATCH * PS_NET_MAX)
/* Slots and sorted words of 8 bytes, copies of the keys and values (8
 * bytes at most each), the ends. */
#define PS_SEG_NET_BYTES (PS_SEG_NET_SLOTS * (8 + 8 + 8 + 8) \
                          + PS_SEG_NET_BATCH * 4)

/* Which networks sort segments of these keys, if any:
 *  - 4- or 8-byte keys without values, plainly (networks are not stable,
 *    which no one can see for keys alone: equal keys have equal bits);
 *  - keys of up to 4 bytes, with values or not, packed with their places
 *    (segments_net_packed), on CPUs with AVX-512. */
enum { SEG_NET_NONE, SEG_NET_PLAIN, SEG_NET_PACKED };

static int segments_net_kind(size_t kb, size_t vs)
{
    if (vs == 0 && ((kb == 4 && ps_omp_nets != PS_NET_NONE)
                    || (kb == 8 && ps_omp_nets == PS_NET_AVX512)))
        return SEG_NET_PLAIN;
    if (kb <= 4 && ps_omp_nets == PS_NET_AVX512)
        return SEG_NET_PACKED;
    return SEG_NET_NONE;
}

#if defined(PS_HAVE_AVX512_TARGET)
/* The order images of the m keys of kb bytes (4 or 8) at keys, into
 * slot; and, in place, the keys back from their images. */
static void seg_net_in(const unsigned char *keys, size_t kb, size_t m,
                       unsigned char *slot, ps_xf xf)
{
    size_t t;
    if (kb == 4) {
        const uint32_t *k = (const uint32_t *)(const void *)keys;
        uint32_t *s = (uint32_t *)(void *)slot;
        for (t = 0; t < m; t++)
            s[t] = ps_enc32(k[t], xf);
    } else {
        const uint64_t *k = (const uint64_t *)(const void *)keys;
        uint64_t *s = (uint64_t *)(void *)slot;
        for (t = 0; t < m; t++)
            s[t] = ps_enc64(k[t], xf);
    }
}

static void seg_net_out(unsigned char *keys, size_t kb, size_t m, ps_xf xf)
{
    size_t t;
    if (kb == 4) {
        uint32_t *k = (uint32_t *)(void *)keys;
        for (t = 0; t < m; t++)
            k[t] = ps_dec32(k[t], xf);
    } else {
        uint64_t *k = (uint64_t *)(void *)keys;
        for (t = 0; t < m; t++)
            k[t] = ps_dec64(k[t], xf);
    }
}

/* The networks sort slots of images: no transform of their own. */
static const ps_xf seg_net_raw = { 0, 0 };

/* Segments i..j-1 (at most PS_SEG_NET_BATCH, none above PS_NET_MAX keys,
 * next to each other in the array) by one network call: their order
 * images go to slots, one segment to a slot, so that the networks, which
 * compare unsigned numbers, need no flip of their own (theirs assumes a
 * slot's keys share their top bit, which a segment's need not); each
 * slot comes back sorted into its segment's place, and the images are
 * turned back into keys there. */
static void segments_net(unsigned char *keys, size_t kb, const size_t *offsets,
                         size_t i, size_t j, ps_xf xf, unsigned char *scratch)
{
    uint32_t *ends = (uint32_t *)(void *)(scratch + PS_SEG_NET_BATCH * PS_NET_MAX * 8);
    size_t base = offsets[i], total = offsets[j] - base, d;
    for (d = 0; i + d < j; d++) {
        size_t a = offsets[i + d], m = offsets[i + d + 1] - a;
        seg_net_in(keys + a * kb, kb, m, scratch + d * PS_NET_MAX * kb, xf);
        ends[d] = (uint32_t)(d * PS_NET_MAX + m);
    }
    ps_omp_kernels_of(kb)->net(scratch, keys + base * kb, ends, j - i,
                        (uint32_t)total, seg_net_raw, ps_omp_nets);
    seg_net_out(keys + base * kb, kb, total, xf);
}

/* The image of key t of a 1-, 2- or 4-byte key array. */
static inline uint64_t seg_image(const unsigned char *keys, size_t kb,
                                 size_t t, ps_xf xf)
{
    if (kb == 1)
        return ps_enc8(keys[t], xf);
    if (kb == 2)
        return ps_enc16(((const uint16_t *)(const void *)keys)[t], xf);
    return ps_enc32(((const uint32_t *)(const void *)keys)[t], xf);
}

/* Segments i..j-1 as segments_net, for keys of up to 4 bytes with values
 * (or 1- and 2-byte keys alone): each key's image goes into the top half
 * of an 8-byte word and its place in the batch into the bottom, so that no
 * two words are equal and the unstable networks give the stable order;
 * keys and values are then gathered back by place from copies. */
static void segments_net_packed(unsigned char *keys, unsigned char *values,
                                size_t vs, size_t kb, const size_t *offsets,
                                size_t i, size_t j, ps_xf xf,
                                unsigned char *scratch)
{
    uint64_t *slots = (uint64_t *)(void *)scratch;
    uint64_t *sorted = slots + PS_SEG_NET_SLOTS;
    unsigned char *kcopy = (unsigned char *)(sorted + PS_SEG_NET_SLOTS);
    unsigned char *vcopy = kcopy + PS_SEG_NET_SLOTS * 8;
    uint32_t *ends = (uint32_t *)(void *)(vcopy + PS_SEG_NET_SLOTS * 8);
    size_t base = offsets[i], total = offsets[j] - base, d, t;
    for (d = 0; i + d < j; d++) {
        size_t a = offsets[i + d], m = offsets[i + d + 1] - a;
        for (t = 0; t < m; t++)
            slots[d * PS_NET_MAX + t] = seg_image(keys, kb, a + t, xf) << 32
                                        | (a - base + t);
        ends[d] = (uint32_t)(d * PS_NET_MAX + m);
    }
    ps_omp_kernels64.net(slots, sorted, ends, j - i, (uint32_t)total,
                         seg_net_raw, PS_NET_AVX512);
    memcpy(kcopy, keys + base * kb, total * kb);
    if (values != NULL)
        memcpy(vcopy, values + base * vs, total * vs);
    for (t = 0; t < total; t++) {
        size_t from = (uint32_t)sorted[t];
        memcpy(keys + (base + t) * kb, kcopy + from * kb, kb);
        if (values != NULL)
            memcpy(values + (base + t) * vs, vcopy + from * vs, vs);
    }
}
#endif

/* Segments lo..hi-1, on this thread: the short ones (below
 * PS_PARALLEL_MIN) one by one as plain sorts of their sizes would run,
 * tiny ones in batches through the networks where they apply. */
static void segments_chunk(unsigned char *k, unsigned char *v, size_t vs,
                           const size_t *offsets, size_t lo, size_t hi,
                           ps_type type, unsigned flags, unsigned char *mine)
{
    size_t kb = ps_type_bytes(type), i, batch = lo;
    int net = segments_net_kind(kb, vs);
    for (i = lo; i <= hi; i++) {
        size_t a = i < hi ? offsets[i] : 0, m = i < hi ? offsets[i + 1] - a : 0;
        if (net && i < hi && m <= PS_NET_MAX && i - batch < PS_SEG_NET_BATCH)
            continue;
#if defined(PS_HAVE_AVX512_TARGET)
        if (net == SEG_NET_PLAIN && batch < i)
            segments_net(k, kb, offsets, batch, i, ps_xf_make(type, flags), mine);
        else if (net == SEG_NET_PACKED && batch < i)
            segments_net_packed(k, v, vs, kb, offsets, batch, i,
                                ps_xf_make(type, flags), mine);
#endif
        batch = i + 1;
        if (i < hi && m > 1 && m < PS_PARALLEL_MIN)
            segment_solo(k + a * kb, v != NULL ? v + a * vs : NULL, vs, m,
                         type, flags, mine);
    }
}

/* The short segments' work, handed out `grain` segments at a time. */
typedef struct seg_job {
    unsigned char *k, *v, *block;
    size_t vs, sb, grain, num_segments;
    const size_t *offsets;
    ps_type type;
    unsigned flags;
} seg_job;

/* Chunk g of the segments (the last one shorter), in member's slice of
 * the block. */
static void item_segments(void *arg, int member, size_t g)
{
    const seg_job *j = arg;
    size_t hi = (g + 1) * j->grain < j->num_segments ? (g + 1) * j->grain
                                                     : j->num_segments;
    segments_chunk(j->k, j->v, j->vs, j->offsets, g * j->grain, hi, j->type,
                   j->flags, j->block + (size_t)member * j->sb);
}

/* Short segments are shared out among the team's members, a chunk of
 * segments at a time, each sorted by one member as a plain sort of its
 * size would be, in that member's slice of the block.  Long ones then get
 * the whole team each, one after another, in the block's last part,
 * planned for the longest of them (plan's bytes never shrink with n).
 * Everything is allocated before a key moves, so nothing fails half-way. */
int ps_omp_sort_segments(void *state, void *keys, void *values, size_t vs,
                         size_t n, const size_t *offsets, size_t num_segments,
                         ps_type type, unsigned flags)
{
    size_t kb = ps_type_bytes(type), s, longest_short = 0, longest_long = 0;
    size_t short_keys = 0, nshort = 0, sb = 0, lb = 0, chunks, nt;
    unsigned char *block, *k = keys, *v = values;
    int from_cache;
    ps_team *team;
    seg_job job;
    ps_omp_ctx c;

    (void)state;
    (void)n;
    for (s = 0; s < num_segments; s++) {
        size_t m = offsets[s + 1] - offsets[s];
        if (m >= PS_PARALLEL_MIN) {
            longest_long = m > longest_long ? m : longest_long;
        } else if (m > 1) {
            longest_short = m > longest_short ? m : longest_short;
            short_keys += m;
            nshort++;
        }
    }
    /* One team for both: the chunks of short segments and the long ones. */
    team = short_keys >= PS_SEG_PARALLEL_MIN || longest_long != 0
           ? ps_omp_team_open() : NULL;
    nt = short_keys >= PS_SEG_PARALLEL_MIN ? (size_t)ps_team_members(team) : 1;
    if (longest_short > PS_SMALL_N)
        sb = round64(ps_omp_plan(&c, keys, values, vs, longest_short, type,
                                 flags, NULL));
    if (segments_net_kind(kb, vs) != SEG_NET_NONE && sb < PS_SEG_NET_BYTES)
        sb = round64(PS_SEG_NET_BYTES);
    if (longest_long)
        lb = ps_omp_plan(&c, keys, values, vs, longest_long, type, flags,
                         team);
    if ((longest_long && lb == 0) || (sb != 0 && nt > (SIZE_MAX - 64) / sb)
        || lb > SIZE_MAX - nt * sb - 64) {
        ps_team_close(team);
        ps_omp_host->fail("openmp: %zu elements overflow the scratch size",
                          longest_long);
        return PS_ERR_TOO_LARGE;
    }
    block = ps_omp_host->take(nt * sb + lb + 64, &from_cache);
    if (block == NULL && v == NULL) {
        /* Keys alone: each segment in place, without scratch. */
        ps_omp_host->log("openmp: no scratch of %zu bytes: sorting the "
                         "segments in place", nt * sb + lb + 64);
        for (s = 0; s < num_segments; s++)
            ps_inplace_sort_keys(k + offsets[s] * kb,
                                 offsets[s + 1] - offsets[s], type, flags,
                                 NULL, NULL);
        ps_team_close(team);
        return PS_OK;
    }
    if (block == NULL) {
        ps_team_close(team);
        ps_omp_host->fail("openmp: cannot allocate %zu bytes of scratch "
                          "for a stable sort of segments with values",
                          nt * sb + lb + 64);
        return PS_ERR_NO_MEMORY;
    }
    /* Chunks of a few thousand keys: enough work to pay for taking one,
     * small enough to balance segments of very different lengths. */
    job.k = k;
    job.v = v;
    job.block = block;
    job.vs = vs;
    job.sb = sb;
    job.grain = 4096 / (nshort ? short_keys / nshort + 1 : 1) + 1;
    job.num_segments = num_segments;
    job.offsets = offsets;
    job.type = type;
    job.flags = flags;
    chunks = nshort ? (num_segments + job.grain - 1) / job.grain : 0;
    ps_team_for(nt > 1 ? team : NULL, chunks, item_segments, &job);
    for (s = 0; longest_long && s < num_segments; s++) {
        size_t a = offsets[s], m = offsets[s + 1] - a;
        if (m < PS_PARALLEL_MIN)
            continue;
        ps_omp_plan(&c, k + a * kb, v != NULL ? v + a * vs : NULL, vs, m,
                    type, flags, team);
        ps_omp_run(&c, block + nt * sb);
    }
    ps_team_close(team);
    ps_omp_host->put(block, from_cache);
    return PS_OK;
}
