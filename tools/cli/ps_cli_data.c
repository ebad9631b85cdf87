/*
 * ps_cli_data.c - the inputs of `portsort bench`.
 *
 * Yatskov & Mürdter's five datasets (Zeros, Random, RandomDistributed,
 * Range, InvertedRange), Merrill's reduced-entropy keys, the keys a sparse
 * matrix product sorts (Polok et al., "Fast Radix Sort for Sparse Linear
 * Algebra on GPU"), and the skewed shapes of real data from the IPS4o and
 * vqsort benchmark sets (issue 16: log-uniform magnitudes, Zipf, the dup
 * sets, a heavy bucket at every level, a few values spread over the
 * range), which measure what skew costs.  Every generator is a pure function of
 * (type, n, param): the benchmark measures each backend in its own process,
 * and they must all sort the same data.
 */
#include <math.h>
#include <stdint.h>

#include "ps_cli_bench_parts.h"

/* splitmix64: fast, good enough for benchmark data, and seekable, so that
 * element i does not depend on how the array was filled. */
uint64_t ps_cli_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* The i-th random word of stream `s`. */
static uint64_t rnd(uint64_t s, uint64_t i)
{
    return ps_cli_mix64(s * 0xD1B54A32D192ED03ull + i);
}

static void fill_zeros(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    size_t i;
    (void)p;
    for (i = 0; i < n; i++)
        ps_cli_put_bits(t, keys, i, 0);
}

/* Every bit equally likely: for floats this includes NaNs and infinities,
 * which the library must order by totalOrder. */
static void fill_random(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    size_t i;
    (void)p;
    for (i = 0; i < n; i++)
        ps_cli_put_bits(t, keys, i, rnd(1, i));
}

/* Values uniform in a range, as a uniform distribution generator gives
 * them: integers in [0, n) (so keys have about log2(n) significant bits and
 * repeat), floats in [0, 1). */
static void fill_distributed(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    size_t i;
    (void)p;
    for (i = 0; i < n; i++) {
        uint64_t r = rnd(2, i);
        if (t->is_float)
            ps_cli_put_float(t, keys, i, (double)(r >> 11) * 0x1p-53);
        else
            ps_cli_put_bits(t, keys, i, r % n);
    }
}

/* Range element i: integers count up from the type's minimum (wrapping
 * in narrow types), floats count up through zero. */
static void put_range(const ps_cli_type *t, void *keys, size_t at, size_t i, size_t n)
{
    if (t->is_float) {
        ps_cli_put_float(t, keys, at, (double)i - (double)(n / 2));
    } else {
        uint64_t min = t->is_signed ? (uint64_t)1 << (t->size * 8 - 1) : 0;
        ps_cli_put_bits(t, keys, at, min + i);
    }
}

static void fill_range(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    size_t i;
    (void)p;
    for (i = 0; i < n; i++)
        put_range(t, keys, i, i, n);
}

static void fill_inverted(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    size_t i;
    (void)p;
    for (i = 0; i < n; i++)
        put_range(t, keys, i, n - 1 - i, n);
}

/* Merrill and Grimshaw's reduced-entropy keys: the bitwise AND of k random
 * words makes each bit 1 with probability 2^-k (k = 1: 1 bit of entropy per
 * bit; 2: 0.81; 3: 0.54; 4: 0.34). */
static void fill_low_entropy(const ps_cli_type *t, void *keys, size_t n, unsigned k)
{
    size_t i;
    unsigned j;
    for (i = 0; i < n; i++) {
        uint64_t w = ~(uint64_t)0;
        for (j = 0; j < k; j++)
            w &= rnd(3 + j, i);
        ps_cli_put_bits(t, keys, i, w);
    }
}

/*
 * Polok et al.'s keys: the destinations of the scalar products of a sparse
 * matrix product C = A * B, key = col * rows + row, in the order a
 * column-by-column product emits them (grouped by column, unsorted within).
 * A and B are m x m with d nonzeros per column at random rows.  m is as
 * large as the key type allows (m * m must fit), and d grows when n needs
 * more products than m columns of d * d give.
 */
static void fill_sparse(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    unsigned bits = t->is_float ? ps_cli_float_digits(t) : (unsigned)t->size * 8;
    uint64_t max_m = (uint64_t)1 << (bits / 2 < 31 ? bits / 2 : 31);
    uint64_t d = p, m, j, i = 0;
    while (d * d * max_m < n)
        d++;
    m = (n + d * d - 1) / (d * d);
    if (m > max_m)
        m = max_m;
    if (m < 1)
        m = 1;
    for (j = 0; i < n; j++) {
        uint64_t col = j % m, a, b;
        for (b = 0; b < d && i < n; b++) {
            uint64_t k = rnd(4, col * d + b) % m;     /* row k of B's column */
            for (a = 0; a < d && i < n; a++, i++) {
                uint64_t row = rnd(5, k * d + a) % m; /* rows of A's column k */
                uint64_t key = col * m + row;
                if (t->is_float)
                    ps_cli_put_float(t, keys, i, (double)key);
                else
                    ps_cli_put_bits(t, keys, i, key);
            }
        }
    }
}

/* A uniform double in (0, 1), element i of stream s. */
static double unit(uint64_t s, uint64_t i)
{
    return ((double)(rnd(s, i) >> 11) + 0.5) * 0x1p-53;
}

/* Key bits of a type, less the sign bit for signed ones. */
static unsigned magnitude_bits(const ps_cli_type *t)
{
    return (unsigned)t->size * 8 - (t->is_signed ? 1 : 0);
}

static void put_value(const ps_cli_type *t, void *keys, size_t i, int64_t v)
{
    if (t->is_float)
        ps_cli_put_float(t, keys, i, (double)v);
    else
        ps_cli_put_bits(t, keys, i, (uint64_t)v);
}

/* Magnitudes spread evenly over all decades, as file sizes and latencies
 * are: 2^(U * bits); both signs for signed types and floats (floats over
 * 2^-P..2^P, P = 16 for f16, 120 for f32 and bf16, 1000 for f64). */
static void fill_log_uniform(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    size_t i;
    (void)p;
    for (i = 0; i < n; i++) {
        double u = unit(6, i);
        int neg = (rnd(7, i) & 1) && (t->is_signed || t->is_float);
        if (t->is_float) {
            double span = t->type == PS_F16 ? 32.0 : t->size == 8 ? 2000.0 : 240.0;
            ps_cli_put_float(t, keys, i, (neg ? -1 : 1) * exp2((u - 0.5) * span));
        } else {
            uint64_t m = (uint64_t)exp2(u * (magnitude_bits(t) - 0.01));
            ps_cli_put_bits(t, keys, i, neg ? 0 - m : m);
        }
    }
}

/* Zipf-like ranks: rank r with probability about r^-(1 + 1/p), p = 2 by
 * default (r = U^-p, at most 2^60). */
static void fill_zipf(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    size_t i;
    for (i = 0; i < n; i++) {
        double z = pow(unit(8, i), -(double)(p ? p : 2));
        put_value(t, keys, i, z < 0x1p60 ? (int64_t)z : (int64_t)1 << 60);
    }
}

/* IPS4o's duplicate sets: i mod floor(sqrt n), (i^2 + n/2) mod n and
 * (i^8 + n/2) mod n. */
static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m)
{
    return (uint64_t)((unsigned __int128)a * b % m);
}

static void fill_root_dup(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    size_t i, root = (size_t)sqrt((double)n) + 1;
    (void)p;
    for (i = 0; i < n; i++)
        put_value(t, keys, i, (int64_t)(i % root));
}

static void fill_two_dup(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    size_t i;
    (void)p;
    for (i = 0; i < n; i++)
        put_value(t, keys, i, (int64_t)((mulmod(i, i, n) + n / 2) % n));
}

static void fill_eight_dup(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    size_t i;
    (void)p;
    for (i = 0; i < n; i++) {
        uint64_t x = mulmod(i, i, n);
        x = mulmod(x, x, n);
        put_value(t, keys, i, (int64_t)((mulmod(x, x, n) + n / 2) % n));
    }
}

/* A heavy bucket at every level of an MSD radix sort: each key drops its
 * top 8 bits more while a coin of p% (default 60) says so, so about p% of
 * the keys share each level's bucket 0. */
static void fill_heavy(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    unsigned bits = (unsigned)t->size * 8;
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned level = 0;
        uint64_t r = rnd(9, i), coins = rnd(10, i);
        while (level < bits / 8 && (coins >> (8 * level) & 0xff) * 100 < 256u * p)
            level++;
        r = level * 8 >= bits ? 0 : r >> (64 - bits + level * 8);
        if (t->is_float)
            ps_cli_put_float(t, keys, i, (double)r);
        else
            ps_cli_put_bits(t, keys, i, r);
    }
}

/* p distinct values (default 7) spread evenly over the key range. */
static void fill_few_spread(const ps_cli_type *t, void *keys, size_t n, unsigned p)
{
    unsigned bits = (unsigned)t->size * 8;
    uint64_t step = (bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1) / (p ? p : 7);
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t v = rnd(11, i) % (p ? p : 7);
        if (t->is_float)
            ps_cli_put_float(t, keys, i, (double)v * 1e30 - 3e30);
        else
            ps_cli_put_bits(t, keys, i, v * step);
    }
}

const ps_cli_dataset ps_cli_datasets[] = {
    { "zeros", "all keys 0", fill_zeros, 0 },
    { "random", "uniformly random bits (floats: NaNs and infinities too)",
      fill_random, 0 },
    { "random-distributed", "uniform values: integers in [0,n), floats in [0,1)",
      fill_distributed, 0 },
    { "range", "ascending from the type's minimum (floats: from -n/2)",
      fill_range, 0 },
    { "inverted-range", "range, descending", fill_inverted, 0 },
    { "low-entropy", "AND of K random words (low-entropy:K, default 3)",
      fill_low_entropy, 3 },
    { "sparse-matrix", "col*rows+row of the products of a sparse matrix product "
      "(sparse-matrix:D nonzeros per column, default 8)", fill_sparse, 8 },
    { "log-uniform", "magnitudes 2^(U*bits) over all decades, both signs "
      "where the type has them", fill_log_uniform, 0 },
    { "zipf", "ranks U^-P, probability ~ r^-(1+1/P) (zipf:P, default 2)",
      fill_zipf, 2 },
    { "root-dup", "i mod sqrt(n)", fill_root_dup, 0 },
    { "two-dup", "(i^2 + n/2) mod n", fill_two_dup, 0 },
    { "eight-dup", "(i^8 + n/2) mod n", fill_eight_dup, 0 },
    { "heavy", "P% of the keys in bucket 0 of every 8-bit level "
      "(heavy:P, default 60)", fill_heavy, 60 },
    { "few-spread", "P values spread over the range (few-spread:P, default 7)",
      fill_few_spread, 7 },
};
const size_t ps_cli_ndatasets = sizeof ps_cli_datasets / sizeof ps_cli_datasets[0];
