/*
 * ps_test_mpi.c - differential test of libportsort_mpi, run by test/mpi.sh
 * under mpirun with several communicator sizes.
 *
 * Every case generates each rank's keys from a seed that every rank can
 * compute (so each rank knows every rank's count), sorts them with one of
 * the three functions, gathers input and output on rank 0 and compares the
 * output with the stable order of the input by t_oracle_perm (a merge sort
 * on values, sharing nothing with the library's key transforms).  Values
 * carry the global input index of their key, so comparing them checks the
 * (rank, index) order of equal keys.  Then the collective errors: each
 * must give the same status on every rank and leave every array as it was,
 * overlapping arrays on one rank among them.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portsort_mpi.h"
#include "ps_test_util.h"

enum { M_KEYS, M_PAIRS4, M_PAIRS8, M_PAIRS3, M_KEYS_V, M_COUNT };
static const size_t mode_vsize[M_COUNT] = { 0, 4, 8, 3, 0 };
static const char *mode_name[M_COUNT] = { "keys", "pairs4", "pairs8", "pairs3", "keys_v" };

enum { S_RANDOM, S_EQUAL, S_ONE_RANK, S_EMPTY_RANKS, S_SORTED, S_REVERSE, S_FEW,
       S_LOGUNIFORM, S_TWO_WIDE, S_RARE, S_COUNT };
static const char *shape_name[S_COUNT] = { "random", "equal", "one-rank", "empty-ranks",
                                           "sorted", "reverse", "few-distinct",
                                           "log-uniform", "two-wide", "rare-outliers" };

static int rank, size;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "FAIL (rank %d of %d): ", rank, size);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        fail("out of memory (%zu bytes)", n);
    return p;
}

/* Store a value in key i of a typed array: integers wrap to the width,
 * floats take the double's value. */
static void put_int(void *keys, size_t i, ps_type t, int64_t v)
{
    unsigned char *p = keys;
    switch (t) {
    case PS_U8: case PS_I8: { uint8_t x = (uint8_t)v; memcpy(p + i, &x, 1); break; }
    case PS_U16: case PS_I16: { uint16_t x = (uint16_t)v; memcpy(p + 2 * i, &x, 2); break; }
    case PS_U32: case PS_I32: { uint32_t x = (uint32_t)v; memcpy(p + 4 * i, &x, 4); break; }
    case PS_U64: case PS_I64: memcpy(p + 8 * i, &v, 8); break;
    case PS_F32: { float x = (float)v; memcpy(p + 4 * i, &x, 4); break; }
    case PS_F64: { double x = (double)v; memcpy(p + 8 * i, &x, 8); break; }
    case PS_F16: { uint16_t x = t_f16_bits((double)v); memcpy(p + 2 * i, &x, 2); break; }
    case PS_BF16: { uint16_t x = t_bf16_bits((double)v); memcpy(p + 2 * i, &x, 2); break; }
    }
}

static void put_bits(void *keys, size_t i, size_t ks, uint64_t bits)
{
    memcpy((unsigned char *)keys + ks * i, &bits, ks);   /* little-endian */
}

/* Per-rank counts of a case, the same on every rank. */
static void case_counts(uint64_t seed, int shape, int big, size_t *n)
{
    uint64_t s = seed ^ 0xC0FFEE;
    size_t cap = big ? 50000 / (size_t)size + 1 : 300;
    for (int r = 0; r < size; r++)
        n[r] = (size_t)(t_rand(&s) % (cap + 1));
    if (shape == S_ONE_RANK) {
        int owner = (int)(seed % (uint64_t)size);
        for (int r = 0; r < size; r++)
            n[r] = r == owner ? (big ? 50000 : 700) : 0;
    }
    if (shape == S_EMPTY_RANKS)
        for (int r = 0; r < size; r += 2)
            n[r] = 0;
    /* Every third case: counts within an eighth of each other, where the
     * in-place forms send each key straight to its final rank. */
    if (seed % 3 == 0 && shape != S_ONE_RANK && shape != S_EMPTY_RANKS)
        for (int r = 0; r < size; r++)
            n[r] = cap / 2 + (size_t)(r & 1);
}

/* The random shape's range in bits, 0 for the whole key: every third
 * seed, from a few bits to 56, below the key's width. */
static unsigned narrow_bits(uint64_t seed, size_t ks)
{
    unsigned b = (unsigned)(4 + (seed / 3) % 7 * 8 + seed % 5);
    return seed % 3 != 1 ? 0 : b < 8 * ks ? b : (unsigned)(8 * ks) - 1;
}

static void gen_keys(uint64_t seed, int shape, ps_type t, size_t ks, void *keys, size_t n,
                     size_t offset, size_t total)
{
    uint64_t s = seed * 1000003u + (uint64_t)rank, cs = seed;
    uint64_t common = t_rand(&cs), few[4];
    for (int k = 0; k < 4; k++)
        few[k] = t_rand(&cs);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = t_rand(&s);
        size_t g = offset + i;
        switch (shape) {
        case S_EQUAL: put_bits(keys, i, ks, common); break;
        case S_SORTED: put_int(keys, i, t, (int64_t)g - (int64_t)total / 2); break;
        case S_REVERSE: put_int(keys, i, t, (int64_t)total / 2 - (int64_t)g); break;
        case S_FEW: put_bits(keys, i, ks, few[r % 4]); break;
        case S_TWO_WIDE:
            /* Two neighbouring values and a few 2^16 above them: the
             * first grid's cells are two images wide, and a cut falls
             * inside the one holding both. */
            put_bits(keys, i, ks, common + (r % 64 == 0 ? (uint64_t)1 << 16 : r & 1));
            break;
        case S_RARE:
            /* One value and, one key in 5000, others above and below: the
             * library's grid is drawn over a sample's range, and these
             * keys, seldom in the sample, fall into its edge cells. */
            put_bits(keys, i, ks, r % 5000 == 0 ? common + (r >> 40) - (r >> 41)
                                                 : common);
            break;
        case S_LOGUNIFORM: {
            if (t == PS_F16 || t == PS_BF16 || t == PS_F32 || t == PS_F64) {
                double v = ldexp(1.0 + (double)(r >> 12) / 4503599627370496.0,
                                 (int)((r >> 1) % 80) - 40);
                if (t == PS_F16 || t == PS_BF16) {
                    double sv = (r & 1) ? -v : v;
                    uint16_t h = t == PS_F16 ? t_f16_bits(sv) : t_bf16_bits(sv);
                    memcpy((unsigned char *)keys + 2 * i, &h, 2);
                } else if (t == PS_F32) {
                    float f = (float)((r & 1) ? -v : v);
                    memcpy((unsigned char *)keys + 4 * i, &f, 4);
                } else {
                    v = (r & 1) ? -v : v;
                    memcpy((unsigned char *)keys + 8 * i, &v, 8);
                }
            } else {
                uint64_t m = t_rand(&s) >> (r % (8 * ks));
                if ((r >> 8) & 1)
                    m = (uint64_t)-(int64_t)m;
                put_bits(keys, i, ks, m);
            }
            break;
        }
        default:
            /* Random keys, or every third case in a range of 2^b images
             * above a common value (b from 1 to 7 bytes' worth, cut to
             * the key), where the buckets' keys travel narrow
             * (ps_mpi_exchange.c). */
            put_bits(keys, i, ks, narrow_bits(seed, ks) > 0
                                  ? common + (r >> (64 - narrow_bits(seed, ks))) : r);
            break;
        }
    }
}

/* Value of global index g: its bytes, little-endian, cut to vs bytes. */
static void put_value(unsigned char *v, size_t vs, size_t i, uint64_t g)
{
    for (size_t b = 0; b < vs; b++)
        v[vs * i + b] = b < 8 ? (unsigned char)(g >> (8 * b)) : 0;
}

/* Gather every rank's n[r] elements of es bytes to rank 0. */
static void *gather(const void *mine, const size_t *n, size_t es)
{
    int *cnt = xmalloc(sizeof(int) * (size_t)size), *dsp = xmalloc(sizeof(int) * (size_t)size);
    size_t all = 0;
    for (int r = 0; r < size; r++) {
        cnt[r] = (int)(n[r] * es);
        dsp[r] = (int)all;
        all += n[r] * es;
    }
    void *out = rank == 0 ? xmalloc(all) : NULL;
    MPI_Gatherv(mine, cnt[rank], MPI_BYTE, out, cnt, dsp, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(cnt);
    free(dsp);
    return out;
}

/* Every rank's status must be `want`. */
static void expect_all(int st, int want, const char *what)
{
    int lo = st, hi = st;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != want || hi != want)
        fail("%s: statuses %d..%d across ranks (this rank %d), want %d on all", what, lo, hi,
             st, want);
}

/* The keys rank r's bucket holds in the free-count form: the split is
 * exact, equal keys included, so the shares of the total differ by at
 * most one key. */
static size_t bucket_share(size_t total, int r)
{
    size_t p = (size_t)size, q = total / p, rem = total % p, r1 = (size_t)r + 1;
    return (r1 * q + r1 * rem / p) - ((size_t)r * q + (size_t)r * rem / p);
}

static long cases_run;

static void run_case(uint64_t seed, ps_type t, int mode, unsigned flags, int shape, int big,
                     int small_msgs)
{
    size_t ks = ps_type_size(t), vs = mode_vsize[mode];
    size_t *n = xmalloc(sizeof(size_t) * (size_t)size);
    size_t total = 0, offset = 0, n_out = 0;
    char what[160];

    case_counts(seed, shape, big, n);
    for (int r = 0; r < size; r++) {
        if (r < rank)
            offset += n[r];
        total += n[r];
    }
    size_t me = n[rank];
    unsigned nb = shape == S_RANDOM ? narrow_bits(seed, ks) : 0;
    snprintf(what, sizeof what, "case %llu: %s %s %s %s%s n=%zu total=%zu%s%s%s",
             (unsigned long long)seed, t_type_name(t), mode_name[mode],
             flags ? "descending" : "ascending", shape_name[shape],
             nb > 0 ? " (narrow range)" : "", me, total,
             small_msgs ? " (alltoallw path)" : "",
             seed % 2 == 0 ? (seed % 4 == 0 ? " (gather none)" : " (gather 40)") : "",
             seed % 5 == 4 ? " (sparse forced)" : "");
    if (small_msgs)
        setenv("PORTSORT_MPI_MAX_MSG", (seed & 1) ? "1" : "40", 1);
    /* Every fifth case sends point-to-point whatever the counts (the
     * others choose by them: presorted, all-equal and one-rank inputs go
     * sparse), and every seventh from the fourth on keeps keys full
     * width, in case the choices hide a fault of each other. */
    if (seed % 5 == 4)
        setenv("PORTSORT_MPI_SPARSE", "1", 1);
    if (seed % 7 == 4)
        setenv("PORTSORT_MPI_NARROW", "0", 1);
    /* Every other case counts cut cells again instead of gathering their
     * keys (none, or up to 40, gathered): the rounds of large sorts. */
    if (seed % 2 == 0)
        setenv("PORTSORT_MPI_GATHER_MAX", seed % 4 == 0 ? "0" : "40", 1);

    /* Every fourth case: values right after the keys in one block, which
     * touch but do not overlap and must sort as separate arrays do. */
    int one_block = vs > 0 && seed % 4 == 1;
    void *keys = xmalloc(me * ks + (one_block ? me * vs : 0));
    unsigned char *vals = one_block ? (unsigned char *)keys + me * ks
                                    : xmalloc(me * (vs ? vs : 1));
    gen_keys(seed, shape, t, ks, keys, me, offset, total);
    for (size_t i = 0; i < me; i++)
        put_value(vals, vs, i, offset + i);
    void *in_all = gather(keys, n, ks);

    int st;
    void *out = NULL;
    if (mode == M_KEYS) {
        st = ps_mpi_sort_keys(MPI_COMM_WORLD, keys, me, t, flags);
    } else if (mode == M_KEYS_V) {
        /* First with no room: every rank learns what it needs, and the
         * keys must not move; then with exactly that. */
        st = ps_mpi_sort_keys_v(MPI_COMM_WORLD, keys, me, NULL, 0, &n_out, t, flags);
        expect_all(st, total > 0 ? PS_ERR_TOO_LARGE : PS_OK, what);
        size_t need = n_out, sum = 0;
        MPI_Allreduce(&need, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (sum != total)
            fail("%s: needed counts add up to %zu", what, sum);
        out = xmalloc(need * ks);
        st = ps_mpi_sort_keys_v(MPI_COMM_WORLD, keys, me, out, need, &n_out, t, flags);
        if (st == PS_OK && n_out != need)
            fail("%s: n_out %zu, announced %zu", what, n_out, need);
    } else {
        st = ps_mpi_sort_pairs(MPI_COMM_WORLD, keys, vals, vs, me, t, flags);
    }
    expect_all(st, PS_OK, what);
    if (small_msgs)
        unsetenv("PORTSORT_MPI_MAX_MSG");
    unsetenv("PORTSORT_MPI_GATHER_MAX");
    unsetenv("PORTSORT_MPI_SPARSE");
    unsetenv("PORTSORT_MPI_NARROW");

    /* Result counts: the input counts, or the free ones. */
    size_t *rn = n;
    if (mode == M_KEYS_V) {
        rn = xmalloc(sizeof(size_t) * (size_t)size);
        uint64_t mine = n_out, *all = xmalloc(8 * (size_t)size);
        MPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
        for (int r = 0; r < size; r++)
            rn[r] = (size_t)all[r];
        free(all);
    }
    void *keys_all = gather(mode == M_KEYS_V ? out : keys, rn, ks);
    void *vals_all = vs ? gather(vals, n, vs) : NULL;

    if (rank == 0) {
        size_t *perm = xmalloc(sizeof(size_t) * (total ? total : 1));
        t_oracle_perm(in_all, total, t, flags, perm);
        for (size_t j = 0; j < total; j++) {
            const unsigned char *want = (const unsigned char *)in_all + perm[j] * ks;
            const unsigned char *got = (const unsigned char *)keys_all + j * ks;
            if (memcmp(want, got, ks) != 0)
                fail("%s: key %zu of the sorted output differs", what, j);
            if (vs) {
                unsigned char ev[8];
                put_value(ev, vs, 0, perm[j]);
                if (memcmp(ev, (unsigned char *)vals_all + j * vs, vs) != 0)
                    fail("%s: value %zu is not that of input %zu (unstable or lost)", what,
                         j, perm[j]);
            }
        }
        if (mode == M_KEYS_V) {
            /* Every bucket is its exact share, equal keys included. */
            for (int r = 0; r < size; r++)
                if (rn[r] != bucket_share(total, r))
                    fail("%s: rank %d got %zu keys, its share is %zu", what, r, rn[r],
                         bucket_share(total, r));
        }
        free(perm);
    }
    if (rn != n)
        free(rn);
    free(keys_all);
    free(vals_all);
    free(in_all);
    free(out);
    free(keys);
    if (!one_block)
        free(vals);
    free(n);
    cases_run++;
}

/* Run one erroneous call: every rank must get `want`, and keys and values
 * must be unchanged on every rank. */
typedef int (*err_call)(void *keys, void *vals, size_t n, void *out, size_t *n_out);

static void check_error(const char *what, err_call call, int want)
{
    size_t n = 5 + (size_t)rank, n_out = 12345;
    /* Aligned for a size_t: some cases place n_out inside keys or out. */
    _Alignas(8) uint32_t keys[16];
    _Alignas(8) uint32_t out[64];
    uint32_t vals[16], k0[16], v0[16], o0[64];
    uint64_t s = 77 + (uint64_t)rank;
    for (size_t i = 0; i < 16; i++)
        keys[i] = (uint32_t)t_rand(&s), vals[i] = (uint32_t)i;
    for (size_t i = 0; i < 64; i++)
        out[i] = 0xDEADBEEF;
    memcpy(k0, keys, sizeof keys);
    memcpy(v0, vals, sizeof vals);
    memcpy(o0, out, sizeof out);
    int st = call(keys, vals, n, out, &n_out);
    expect_all(st, want, what);
    if (memcmp(k0, keys, sizeof keys) || memcmp(v0, vals, sizeof vals)
        || memcmp(o0, out, sizeof out))
        fail("%s: the arrays changed", what);
}

static int last(void) { return rank == size - 1; }

static int e_type_mismatch(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v; (void)o; (void)no;
    return ps_mpi_sort_keys(MPI_COMM_WORLD, k, n, last() ? PS_I32 : PS_U32, 0);
}
static int e_vsize_zero(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)o; (void)no;
    return ps_mpi_sort_pairs(MPI_COMM_WORLD, k, v, 0, n, PS_U32, 0);
}
static int e_vsize_zero_one(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)o; (void)no;
    return ps_mpi_sort_pairs(MPI_COMM_WORLD, k, v, last() ? 0 : 4, n, PS_U32, 0);
}
static int e_vsize_mismatch(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)o; (void)no;
    return ps_mpi_sort_pairs(MPI_COMM_WORLD, k, v, last() ? 2 : 4, n, PS_U32, 0);
}
static int e_null_keys(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)o; (void)no;
    return ps_mpi_sort_pairs(MPI_COMM_WORLD, last() ? NULL : k, v, 4, n, PS_U32, 0);
}
static int e_null_values(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)o; (void)no;
    return ps_mpi_sort_pairs(MPI_COMM_WORLD, k, last() ? NULL : v, 4, n, PS_U32, 0);
}
static int e_bad_flag(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v; (void)o; (void)no;
    return ps_mpi_sort_keys(MPI_COMM_WORLD, k, n, PS_U32, last() ? 4u : 0u);
}
static int e_flag_mismatch(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v; (void)o; (void)no;
    return ps_mpi_sort_keys(MPI_COMM_WORLD, k, n, PS_U32, last() ? PS_DESCENDING : 0u);
}
static int e_bad_type(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v; (void)o; (void)no;
    return ps_mpi_sort_keys(MPI_COMM_WORLD, k, n, (ps_type)99, 0);
}
static int e_op_mismatch(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)o; (void)no;
    if (last())
        return ps_mpi_sort_keys(MPI_COMM_WORLD, k, n, PS_U32, 0);
    return ps_mpi_sort_pairs(MPI_COMM_WORLD, k, v, 4, n, PS_U32, 0);
}
static int e_v_no_room(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v;
    /* The last rank offers no room, the others plenty. */
    int st = ps_mpi_sort_keys_v(MPI_COMM_WORLD, k, n, o, last() ? 0 : 64, no, PS_U32, 0);
    if (*no == 0 || *no > 64)
        fail("e_v_no_room: n_out %zu is not the count needed", *no);
    return st;
}
static int e_v_null_nout(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v;
    return ps_mpi_sort_keys_v(MPI_COMM_WORLD, k, n, o, 64, last() ? NULL : no, PS_U32, 0);
}
/* Arrays that overlap, on the last rank only. */
static int e_values_are_keys(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)o; (void)no;
    return ps_mpi_sort_pairs(MPI_COMM_WORLD, k, last() ? k : v, 4, n, PS_U32, 0);
}
static int e_values_in_keys(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)o; (void)no;
    return ps_mpi_sort_pairs(MPI_COMM_WORLD, k, last() ? (uint32_t *)k + 1 : v, 4, n,
                             PS_U32, 0);
}
static int e_v_out_is_in(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v;
    return ps_mpi_sort_keys_v(MPI_COMM_WORLD, k, n, last() ? k : o, last() ? 16 : 64, no,
                              PS_U32, 0);
}
static int e_v_n_out_in_out(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v;
    return ps_mpi_sort_keys_v(MPI_COMM_WORLD, k, n, o, 64, last() ? (size_t *)o + 3 : no,
                              PS_U32, 0);
}
static int e_v_n_out_in_in(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v;
    return ps_mpi_sort_keys_v(MPI_COMM_WORLD, k, n, o, 64, last() ? (size_t *)k : no,
                              PS_U32, 0);
}

/* Malformed on every rank: refused everywhere, not read as the default. */
static int e_msg_malformed(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v; (void)o; (void)no;
    setenv("PORTSORT_MPI_MAX_MSG", "64k", 1);
    int st = ps_mpi_sort_keys(MPI_COMM_WORLD, k, n, PS_U32, 0);
    unsetenv("PORTSORT_MPI_MAX_MSG");
    return st;
}

/* The wire's knobs: out of range everywhere, or differing on one rank
 * (the exchanges would not match). */
static int e_narrow_malformed(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v; (void)o; (void)no;
    setenv("PORTSORT_MPI_NARROW", "2", 1);
    int st = ps_mpi_sort_keys(MPI_COMM_WORLD, k, n, PS_U32, 0);
    unsetenv("PORTSORT_MPI_NARROW");
    return st;
}

static int e_sparse_mismatch(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v; (void)o; (void)no;
    if (last())
        setenv("PORTSORT_MPI_SPARSE", "1", 1);
    int st = ps_mpi_sort_keys(MPI_COMM_WORLD, k, n, PS_U32, 0);
    unsetenv("PORTSORT_MPI_SPARSE");
    return st;
}

static int e_msg_mismatch(void *k, void *v, size_t n, void *o, size_t *no)
{
    (void)v; (void)o; (void)no;
    if (last())
        setenv("PORTSORT_MPI_MAX_MSG", "64", 1);
    int st = ps_mpi_sort_keys(MPI_COMM_WORLD, k, n, PS_U32, 0);
    unsetenv("PORTSORT_MPI_MAX_MSG");
    return st;
}

/* An allocation failure on the last rank alone: the k-th allocation there
 * (libportsort_mpi's context and work block, libportsort's memory in the
 * sample sort and in the bucket sort) fails, for k = 1, 2, ... until the
 * call makes no k-th allocation.  Every rank must then return the same
 * error with its arrays as they were, or, where the library absorbs the
 * failure (the sample sort falls back to qsort), every rank succeed with
 * the right result. */
static void alloc_failures(void)
{
    enum { N = 3000 };
    static uint64_t keys[N], vals[N], k0[N], v0[N];
    size_t n[64];

    for (int r = 0; r < size && r < 64; r++)
        n[r] = N;
    for (long k = 1; k <= 32; k++) {
        uint64_t s = 1234 + (uint64_t)rank;
        char what[80];
        for (size_t i = 0; i < N; i++) {
            keys[i] = t_rand(&s) % 1000;
            vals[i] = (uint64_t)rank * N + i;
        }
        memcpy(k0, keys, sizeof keys);
        memcpy(v0, vals, sizeof vals);
        /* Nothing kept from earlier calls: every allocation happens. */
        ps_mpi_release_cache();
        ps_release_cache();
        MPI_Barrier(MPI_COMM_WORLD);
        if (last())
            t_fail_alloc_at(k);
        int st = ps_mpi_sort_pairs(MPI_COMM_WORLD, keys, vals, 8, N, PS_U64, 0);
        t_fail_alloc_at(0);
        int failed = last() && t_alloc_failed();
        MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        snprintf(what, sizeof what, "allocation %ld failing on the last rank", k);
        if (st != PS_OK || !failed) {
            expect_all(st, failed ? PS_ERR_NO_MEMORY : PS_OK, what);
            if (st != PS_OK && (memcmp(k0, keys, sizeof keys) || memcmp(v0, vals, sizeof vals)))
                fail("%s: the arrays changed", what);
            if (!failed)
                return;
            continue;
        }
        /* Absorbed: the result must be right all the same. */
        expect_all(st, PS_OK, what);
        uint64_t *ka = gather(keys, n, 8), *va = gather(vals, n, 8), *in = gather(k0, n, 8);
        if (rank == 0) {
            size_t total = (size_t)size * N;
            for (size_t j = 0; j < total; j++) {
                if (va[j] >= total || in[va[j]] != ka[j])
                    fail("%s: absorbed, but element %zu is not an input pair", what, j);
                if (j > 0 && (ka[j - 1] > ka[j] || (ka[j - 1] == ka[j] && va[j - 1] >= va[j])))
                    fail("%s: absorbed, but the result is out of order at %zu", what, j);
            }
        }
        free(ka);
        free(va);
        free(in);
    }
    fail("allocation failures: still failing after 32 allocations");
}

static void error_cases(void)
{
    check_error("value_size 0", e_vsize_zero, PS_ERR_INVALID_ARG);
    check_error("value_size 0 on the last rank", e_vsize_zero_one, PS_ERR_INVALID_ARG);
    check_error("NULL keys on the last rank", e_null_keys, PS_ERR_INVALID_ARG);
    check_error("NULL values on the last rank", e_null_values, PS_ERR_INVALID_ARG);
    check_error("unknown flag on the last rank", e_bad_flag, PS_ERR_INVALID_ARG);
    check_error("unknown type", e_bad_type, PS_ERR_INVALID_ARG);
    check_error("n_out NULL on the last rank", e_v_null_nout, PS_ERR_INVALID_ARG);
    /* The rank with no room needs at least its 5 + rank keys' worth... not
     * exactly, but some: with 5 + r keys per rank every bucket is
     * non-empty, so the call must fail everywhere. */
    check_error("no room for _v on the last rank", e_v_no_room, PS_ERR_TOO_LARGE);
    check_error("values == keys on the last rank", e_values_are_keys, PS_ERR_INVALID_ARG);
    check_error("values == keys + 1 on the last rank", e_values_in_keys,
                PS_ERR_INVALID_ARG);
    check_error("_v: out == in on the last rank", e_v_out_is_in, PS_ERR_INVALID_ARG);
    check_error("_v: n_out inside out on the last rank", e_v_n_out_in_out,
                PS_ERR_INVALID_ARG);
    check_error("_v: n_out inside in on the last rank", e_v_n_out_in_in,
                PS_ERR_INVALID_ARG);
    check_error("PORTSORT_MPI_MAX_MSG=64k on every rank", e_msg_malformed,
                PS_ERR_INVALID_ARG);
    check_error("PORTSORT_MPI_NARROW=2 on every rank", e_narrow_malformed,
                PS_ERR_INVALID_ARG);
    if (size > 1) {
        check_error("type differs on the last rank", e_type_mismatch, PS_ERR_INVALID_ARG);
        check_error("value_size differs on the last rank", e_vsize_mismatch,
                    PS_ERR_INVALID_ARG);
        check_error("flags differ on the last rank", e_flag_mismatch, PS_ERR_INVALID_ARG);
        check_error("keys on the last rank, pairs elsewhere", e_op_mismatch,
                    PS_ERR_INVALID_ARG);
        check_error("PORTSORT_MPI_MAX_MSG differs on the last rank", e_msg_mismatch,
                    PS_ERR_INVALID_ARG);
        check_error("PORTSORT_MPI_SPARSE differs on the last rank", e_sparse_mismatch,
                    PS_ERR_INVALID_ARG);
        if (size <= 64)
            alloc_failures();
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t0 = MPI_Wtime();

    /* A launcher of another MPI starts every process as a job of one
     * rank, and each would pass alone: test/mpi.sh says how many there
     * must be. */
    const char *want = getenv("PS_MPI_EXPECT_SIZE");
    if (want != NULL && atoi(want) != size)
        fail("MPI_COMM_WORLD has %d ranks, the launcher was asked for %s (a launcher "
             "of another MPI?)", size, want);

    /* Errors first and last: an error must leave nothing behind that
     * disturbs the calls after it. */
    error_cases();
    uint64_t seed = 1;
    for (int t = PS_U8; t <= T_TYPE_LAST; t++)
        for (int mode = 0; mode < M_COUNT; mode++)
            for (unsigned flags = 0; flags <= PS_DESCENDING; flags++)
                for (int shape = 0; shape < S_COUNT; shape++, seed++) {
                    run_case(seed, (ps_type)t, mode, flags, shape, seed % 23 == 0,
                             seed % 7 == 3);
                    /* The next call must allocate its work memory again,
                     * on some ranks only. */
                    if ((seed + (uint64_t)rank) % 37 == 0 && ps_mpi_release_cache() != PS_OK)
                        fail("ps_mpi_release_cache failed");
                }
    error_cases();
    if (rank == 0)
        printf("ps_test_mpi: %d ranks, %ld cases and the error cases passed in %.1f s\n",
               size, cases_run, MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
