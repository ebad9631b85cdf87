/*
 * ps_seglimit.c - a segmented sort with values on a CPU backend whose
 * scratch for the whole call cannot be had (the memory limit refused it,
 * or malloc returned NULL): the same stable sort in steps that each fit
 * (issue 32, part 1; doc/memory.md).
 *
 * Segments are independent sorts, so nothing has to be merged across
 * them; what has to shrink is the memory of one step:
 *  - segments short enough to be sorted whole go in consecutive groups,
 *    each group given to the backend's own segmented sort (offsets rebased
 *    to the group) with what the limit leaves.  A group the backend
 *    refuses is halved and tried again; once groups would be shorter than
 *    PS_PIECE_MIN elements the backend is left out and the reference sort
 *    sorts them, in a block taken before any key moved, sized for the
 *    longest of these segments, so that no group can fail;
 *  - a segment longer than that block may hold is sorted alone by
 *    ps_pairs_in_pieces (pieces, merged in place), the longest of them
 *    first.
 * Each step gives back every block it took before the next one starts,
 * and the call's count is rewound to where the step began: the limit
 * bounds what the call holds at once, not the sum of its steps.
 *
 * Under a limit nothing that may be refused comes after a key moved: the
 * block is taken first, then the longest long segment is sorted, which
 * needs more of the limit than any other (its pieces' bounds are the most;
 * the pieces' floor is the same for all), so the later ones fit too, and
 * the groups cannot fail.  With malloc refusing (no limit) the later long
 * segments ask it for no more than the first one took and gave back, so
 * one of them fails only if malloc will not give again what it just had
 * back (another thread taking it meanwhile): the call then fails with the
 * long segments before it sorted, and the detail says so.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "ps_internal.h"
#include "ps_reference.h"

/* Segments to a group of the backend's, as bounded by the rebased offsets'
 * room: at least this many (fewer would make many tiny groups, each a
 * call of the backend's sort), at most this many (more would be memory
 * kept from the sorts for little gain). */
#define PS_GROUP_SEGS_MIN ((size_t)64)
#define PS_GROUP_SEGS_MAX ((size_t)65536)

typedef struct seg_steps {
    const ps_backend_ops *ops;
    void *state;
    unsigned char *k, *v;
    size_t kb, vs, n;
    const size_t *off;
    size_t ns;
    ps_type type;
    unsigned flags;
    size_t whole_max;       /* segments up to this long are sorted whole */
    size_t group_max;       /* elements in one of the backend's groups;
                               below PS_PIECE_MIN the backend is left out */
    size_t group_segs;      /* segments in one group at most */
    size_t *rebased;        /* group_segs + 1 offsets */
    unsigned char *ref;     /* the reference sort's block */
    size_t groups, by_ref, in_pieces;   /* for PORTSORT_VERBOSE */
} seg_steps;

static size_t seg_len(const seg_steps *p, size_t s)
{
    return p->off[s + 1] - p->off[s];
}

static int is_long(const seg_steps *p, size_t s)
{
    return seg_len(p, s) > p->whole_max;
}

/* The longest segment whose reference block takes at most half of what is
 * left (the other half for the backend's groups, or the long segments'
 * pieces); never below PS_PIECE_MIN, which ps_pairs_in_pieces refuses.
 * The reference sort's block is at most m x (key + value) + 127 bytes. */
static size_t whole_max_for(size_t left, size_t w)
{
    size_t room = left / 2, m;
    if (left == SIZE_MAX)
        return SIZE_MAX;
    m = room > 127 ? (room - 127) / w : 0;
    return m > PS_PIECE_MIN ? m : PS_PIECE_MIN;
}

/* A sixteenth of what is left for the rebased offsets, within the bounds
 * above, and no more than there are segments. */
static size_t group_segs_for(size_t left, size_t ns)
{
    size_t g = left == SIZE_MAX ? PS_GROUP_SEGS_MAX
                                : left / 16 / sizeof(size_t);
    g = g < PS_GROUP_SEGS_MIN ? PS_GROUP_SEGS_MIN : g;
    g = g > PS_GROUP_SEGS_MAX ? PS_GROUP_SEGS_MAX : g;
    return g < ns ? g : ns;
}

/* The longest segment to be sorted whole, at least 2 (the reference
 * block is taken for it either way, and stays small). */
static size_t longest_whole(const seg_steps *p)
{
    size_t s, g = 2;
    for (s = 0; s < p->ns; s++)
        if (!is_long(p, s) && seg_len(p, s) > g)
            g = seg_len(p, s);
    return g;
}

static size_t round64(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

/* One block: the rebased offsets, then (64-byte aligned, as the reference
 * sort's passes want) the reference sort's scratch for the longest whole
 * segment.  While it is refused, the longest whole segments become long
 * ones, whole_max halving down to PS_PIECE_MIN; NULL past that. */
static void *take_block(seg_steps *p, int *kept, size_t *bytes)
{
    size_t head = round64((p->group_segs + 1) * sizeof(size_t));
    for (;;) {
        size_t g = longest_whole(p);
        size_t rb = ps_reference_scratch_bytes(g, p->type, p->vs);
        void *blk = NULL;
        *kept = 0;
        *bytes = rb != 0 && rb <= SIZE_MAX - head ? head + rb : 0;
        if (*bytes != 0)
            blk = ps_scratch_take(*bytes, kept);
        if (blk != NULL) {
            p->rebased = blk;
            p->ref = (unsigned char *)blk + head;
            return blk;
        }
        if (g <= PS_PIECE_MIN)
            return NULL;
        p->whole_max = g / 2 > PS_PIECE_MIN ? g / 2 : PS_PIECE_MIN;
    }
}

/* The backend's scratch for a sort of n, or the core's estimate: what a
 * group of n elements is expected to take. */
static size_t group_bytes(const seg_steps *p, size_t n)
{
    size_t w = p->kb + p->vs;
    if (p->ops->scratch_bytes != NULL)
        return p->ops->scratch_bytes(p->state, n, p->vs, p->type, p->flags);
    return n > SIZE_MAX / w ? SIZE_MAX : n * w;
}

/* The longest group, halving from the whole array, whose expected scratch
 * fits `room`; 0 (the backend left out) when none of PS_PIECE_MIN or more
 * does.  Only a first guess: a group the backend refuses is halved. */
static size_t group_max_for(const seg_steps *p, size_t room)
{
    size_t g = p->n;
    if (room == SIZE_MAX)
        return g;
    for (; g >= PS_PIECE_MIN; g /= 2)
        if (group_bytes(p, g) <= room)
            return g;
    return 0;
}

/* Segment s, too long to be sorted whole, alone in pieces. */
static int one_long(seg_steps *p, size_t s)
{
    size_t a = p->off[s], mark = ps_mem_mark();
    int st = ps_pairs_in_pieces(p->ops, p->state, p->k + a * p->kb,
                                p->v + a * p->vs, p->vs, seg_len(p, s),
                                p->type, p->flags);
    ps_mem_rewind(mark);        /* it gave back all it took */
    p->in_pieces += st == PS_OK;
    return st;
}

/* The long segments: the longest first (see the top of the file: it is
 * the one the limit may refuse, before any key moved), then the others. */
static int sort_long(seg_steps *p)
{
    size_t s, first = SIZE_MAX, most = 0;
    int st;
    for (s = 0; s < p->ns; s++)
        if (is_long(p, s) && seg_len(p, s) > most) {
            first = s;
            most = seg_len(p, s);
        }
    if (first == SIZE_MAX)
        return PS_OK;
    st = one_long(p, first);
    if (st != PS_OK) {
        ps_detail_set("cannot sort %zu pairs in %zu segments stably: no "
                      "scratch for their segmented sort, and segment %zu "
                      "(%zu pairs, too long to sort whole in what is left) "
                      "cannot be sorted in pieces either (their keys and "
                      "values are unchanged)", p->n, p->ns, first, most);
        return st;
    }
    for (s = 0; s < p->ns; s++) {
        if (s == first || !is_long(p, s))
            continue;
        st = one_long(p, s);
        if (st != PS_OK) {
            ps_detail_set("cannot sort segment %zu (%zu pairs) of %zu in "
                          "pieces, after the longest was: malloc refused "
                          "memory just given back; the long segments before "
                          "it are sorted, the others unchanged", s,
                          seg_len(p, s), p->ns);
            return st;
        }
    }
    return PS_OK;
}

/* Where the group starting at whole segment s ends: before the next long
 * segment, and within group_max elements and group_segs segments, one
 * segment at least.  *sum gets its elements. */
static size_t group_end(const seg_steps *p, size_t s, size_t *sum)
{
    size_t e = s, t = 0;
    while (e < p->ns && e - s < p->group_segs && !is_long(p, e)) {
        size_t m = seg_len(p, e);
        if (e > s && t + m > p->group_max)
            break;
        t += m;
        e++;
    }
    *sum = t;
    return e;
}

/* Segments s .. e - 1 by the backend's segmented sort, their offsets
 * rebased to the group's first element.  On error the backend left them
 * unchanged. */
static int by_backend(seg_steps *p, size_t s, size_t e)
{
    size_t i, base = p->off[s], mark = ps_mem_mark();
    int st;
    for (i = s; i <= e; i++)
        p->rebased[i - s] = p->off[i] - base;
    st = ps_segments_on(p->ops, p->state, p->k + base * p->kb,
                        p->v + base * p->vs, p->vs, p->off[e] - base,
                        p->rebased, e - s, p->type, p->flags);
    ps_mem_rewind(mark);        /* its blocks are given back */
    p->groups += st == PS_OK;
    return st;
}

/* Segments s .. e - 1, each at most whole_max, in the block taken for the
 * longest of them: cannot fail. */
static void by_reference(seg_steps *p, size_t s, size_t e)
{
    ps_reference_sort_segments(p->k, p->v, p->vs, p->off, s, e, p->type,
                               p->flags, p->ref);
    p->by_ref += e - s;
}

/* Every whole segment, in groups (see the top of the file).  A refused
 * group halves group_max: one of several segments is then tried again
 * in smaller groups, one of a single segment goes to the reference sort. */
static void sort_groups(seg_steps *p)
{
    size_t s = 0, e, sum;
    while (s < p->ns) {
        if (is_long(p, s)) {
            s++;
            continue;
        }
        if (p->group_max < PS_PIECE_MIN) {
            for (e = s; e < p->ns && !is_long(p, e); e++)
                ;
            by_reference(p, s, e);
            s = e;
            continue;
        }
        e = group_end(p, s, &sum);
        if (sum < 2 || by_backend(p, s, e) == PS_OK) {
            s = e;
            continue;
        }
        p->group_max = (sum < p->group_max ? sum : p->group_max) / 2;
        if (e - s == 1) {
            by_reference(p, s, e);
            s = e;
        }
    }
}

int ps_segments_in_steps(const ps_backend_ops *ops, void *state, void *keys,
                         void *values, size_t vs, size_t n,
                         const size_t *offsets, size_t num_segments,
                         ps_type type, unsigned flags)
{
    seg_steps p;
    size_t left = ps_mem_left(), bytes;
    void *blk;
    int kept, st;

    if ((vs != 4 && vs != 8) || ops->device)
        return PS_ERR_NO_MEMORY;    /* the backend's message stands */
    memset(&p, 0, sizeof p);
    p.ops = ops;
    p.state = state;
    p.k = keys;
    p.v = values;
    p.kb = ps_type_bytes(type);
    p.vs = vs;
    p.n = n;
    p.off = offsets;
    p.ns = num_segments;
    p.type = type;
    p.flags = flags;
    p.whole_max = whole_max_for(left, p.kb + vs);
    p.group_segs = group_segs_for(left, num_segments);
    blk = take_block(&p, &kept, &bytes);
    if (blk == NULL) {
        ps_detail_set("cannot sort %zu pairs in %zu segments stably: no "
                      "scratch for their segmented sort, nor %zu bytes to "
                      "sort a segment of %zu alone (their keys and values "
                      "are unchanged)", n, num_segments, bytes,
                      longest_whole(&p));
        return PS_ERR_NO_MEMORY;
    }
    p.group_max = group_max_for(&p, ps_mem_left());
    st = sort_long(&p);
    if (st == PS_OK)
        sort_groups(&p);
    ps_scratch_put(blk, kept);
    if (st != PS_OK)
        return st;
    if (ps_verbose())
        ps_log("%zu pairs in %zu segments: no scratch for one segmented "
               "sort of them; sorted in %zu groups by the backend, %zu "
               "segments by the reference sort in a block of %zu bytes, "
               "%zu alone in pieces", n, num_segments, p.groups, p.by_ref,
               bytes, p.in_pieces);
    ps_detail_drop();       /* the backend's refusal of the whole is moot */
    return PS_OK;
}
