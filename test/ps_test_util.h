/*
 * ps_test_util.h - helpers shared by the tests: a deterministic generator,
 * an oracle independent of the library's key transforms, and the skip rule.
 */
#ifndef PS_TEST_UTIL_H
#define PS_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "portsort.h"

#define PS_TEST_SKIP 77

/* Deterministic 64-bit generator (splitmix64). */
uint64_t t_rand(uint64_t *state);

/* Compare two keys of `type` by value, floats by IEEE 754 totalOrder,
 * computed from values and signs rather than from bit tricks so that it
 * does not share the library's reasoning.  Returns <0, 0, >0. */
int t_cmp(const void *a, const void *b, ps_type type);

/* Stable sorting permutation of n keys (merge sort), for ascending or
 * descending order; equal keys keep input order either way. */
void t_oracle_perm(const void *keys, size_t n, ps_type type, unsigned flags,
                   size_t *perm);

/* Stable sorting permutation of n byte strings (string i is
 * bytes[offsets[i]] .. bytes[offsets[i + 1] - 1]) in memcmp order, a proper
 * prefix first; PS_DESCENDING reverses the order, ties still by index. */
void t_oracle_strings_perm(const unsigned char *bytes, const size_t *offsets,
                           size_t n, unsigned flags, size_t *perm);

/* The same permutation from a candidate (the library's own ps_argsort),
 * which is taken only once proven to be it, in O(n) with t_cmp: a
 * permutation of 0 .. n - 1 under which every key is in order after the
 * one before (by t_cmp, in the direction of flags), and equal keys are in
 * increasing index order.  The stable sorted permutation is the only one
 * with those properties, so this equals t_oracle_perm's answer; a
 * candidate that fails (NULL included) gets t_oracle_perm's merge sort,
 * and the test's own comparison with it then reports the failure.  The
 * merge sort's O(n log n) calls of t_cmp were most of the shapes tests'
 * time (CI's time, doc/reliability.md). */
/* SIZE_MAX when out[i] == src[perm[i]] (elements of `size` bytes) for
 * every i < n, else the first i where not.  Typed loads for sizes of 1, 2,
 * 4 and 8 bytes: a memcmp call per element was a quarter of the
 * differential test's time. */
size_t t_gathered_mismatch(const void *out, const void *src, const size_t *perm,
                           size_t n, size_t size);

void t_oracle_perm_from(const void *keys, size_t n, ps_type type,
                        unsigned flags, const size_t *candidate, size_t *perm);

/* Check a segmented sort: every segment [offsets[s], offsets[s + 1]) of
 * out is that segment of orig stably sorted (t_oracle_perm), and with
 * vs > 0 the values of vout followed their keys from vorig.  Fails the
 * test, naming `what` and the segment, otherwise. */
void t_check_segments(const char *what, const void *orig, const void *out,
                      const void *vorig, const void *vout, size_t vs,
                      const size_t *offsets, size_t ns, ps_type type,
                      unsigned flags);

/* Offsets (malloc'd in *out) cutting n keys into a mix of segment lengths:
 * empty and tiny ones, up to 300, up to 3300 and up to 23000 keys, so that
 * a device backend's every size class gets some.  Returns their number. */
size_t t_mixed_offsets(size_t n, uint64_t *rng, size_t **out);

/* Choose the backend named by PORTSORT_BACKEND and exit 77 when that
 * backend is a GPU module that is not built or has no device here.  serial
 * and openmp never skip: if they were built they must work. */
void t_init_or_skip(const char *prog);

/* Fail the test with a message (prints and exits 1). */
void t_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

const char *t_type_name(ps_type type);

/* 1 when `name` is in the comma-separated list of environment variable
 * `var`, or that variable is unset or empty (everything is wanted): how
 * PS_TEST_TYPES and PS_TEST_OPS narrow a test's matrix for slow backends. */
int t_wanted(const char *var, const char *name);

/* Values of half-precision bit patterns (NaN for NaNs), decoded field by
 * field, for oracles and data generators. */
double t_f16_value(uint16_t h);
double t_bf16_value(uint16_t h);

/* The nearest half-precision bit pattern to x (ties to even, overflow to
 * infinity, NaN to a quiet NaN of x's sign). */
uint16_t t_f16_bits(double x);
uint16_t t_bf16_bits(double x);

/* A special value of a type, by number (r % 8): +-0, +-inf, NaNs of both
 * signs and a payload, 1.0 for floats; 0, 1, the extremes for integers. */
uint64_t t_special(ps_type t, uint64_t r);

/* Shapes of test keys (t_make_keys), and their names: uniform random,
 * one value, two values (one in five the second), a shared 48-bit prefix
 * with sparse low bits, five values, presorted up and down, the type's
 * specials (t_special), and log-uniform magnitudes (a random word shifted
 * right by a random count: most keys small, a few as wide as the type). */
enum { T_RANDOM, T_EQUAL, T_TWO, T_PREFIX, T_FEW, T_SORTED, T_REVERSE,
       T_SPECIAL, T_LOGUNI, T_SHAPES };
extern const char *const t_shape_names[T_SHAPES];

/* Fill k with n keys of type t in the given shape from *rng (sorted ones
 * by ps_sort_keys, which must work). */
void t_make_keys(void *k, size_t n, ps_type t, int shape, uint64_t *rng);

/* The last key type, for loops over every type. */
#define T_TYPE_LAST PS_BF16

/* Allocation fault injection (ps_test_faults.c, linked into the programs
 * that use it): it defines aligned_alloc, which
 * libportsort uses for all its host memory; after t_fail_alloc_at(k) the
 * k-th allocation from then on fails (k = 0 disarms).  t_alloc_count()
 * tells how many allocations were made since arming. */
void t_fail_alloc_at(long k);
long t_alloc_count(void);
int t_alloc_failed(void);

#endif
