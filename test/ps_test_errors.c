/*
 * ps_test_errors - bad arguments and allocation failures on the backend that
 * PORTSORT_BACKEND names: each gets the right status, a detail message, and
 * leaves every caller array byte for byte as it was.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_util.h"

#define N 5000

static uint32_t keys[N], keys0[N];
static uint64_t vals[N], vals0[N];
static unsigned char wide[N * 12], wide0[N * 12];
static size_t perm[N], perm0[N];

static void reset(void)
{
    uint64_t s = 99;
    size_t i;
    for (i = 0; i < N; i++) {
        keys[i] = keys0[i] = (uint32_t)t_rand(&s) % 977;  /* duplicates */
        vals[i] = vals0[i] = t_rand(&s);
        perm[i] = perm0[i] = (size_t)-1;
    }
    for (i = 0; i < sizeof wide; i++)
        wide[i] = wide0[i] = (unsigned char)t_rand(&s);
}

static void untouched(const char *what)
{
    if (memcmp(keys, keys0, sizeof keys) || memcmp(vals, vals0, sizeof vals)
        || memcmp(perm, perm0, sizeof perm) || memcmp(wide, wide0, sizeof wide))
        t_fail("%s: the caller's data changed", what);
}

static void expect(const char *what, int got, int want)
{
    if (got != want)
        t_fail("%s: got %d (%s), expected %d (%s)", what, got, ps_strerror(got),
               want, ps_strerror(want));
    if (want != PS_OK && ps_error_detail()[0] == '\0')
        t_fail("%s: no detail message", what);
    if (want != PS_OK)
        printf("  %-40s -> %s: %s\n", what, ps_strerror(got), ps_error_detail());
    untouched(what);
}

static void bad_arguments(void)
{
    reset();
    expect("keys NULL", ps_sort_keys(NULL, 10, PS_U32, 0), PS_ERR_INVALID_ARG);
    expect("type 0", ps_sort_keys(keys, N, (ps_type)0, 0), PS_ERR_INVALID_ARG);
    expect("type 13", ps_sort_keys(keys, N, (ps_type)13, 0), PS_ERR_INVALID_ARG);
    expect("type 0, n 0", ps_sort_keys(keys, 0, (ps_type)0, 0), PS_ERR_INVALID_ARG);
    expect("flags 2", ps_sort_keys(keys, N, PS_U32, 2), PS_ERR_INVALID_ARG);
    expect("flags ~0", ps_sort_keys(keys, N, PS_U32, ~0u), PS_ERR_INVALID_ARG);
    expect("keys misaligned", ps_sort_keys((char *)keys + 1, 10, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("argsort keys misaligned", ps_argsort((char *)vals + 4, perm, 10, PS_U64, 0),
           PS_ERR_INVALID_ARG);
    expect("n*8 overflows", ps_sort_keys(keys, SIZE_MAX / 4, PS_U64, 0),
           PS_ERR_INVALID_ARG);
    expect("pairs keys NULL", ps_sort_pairs(NULL, vals, 8, N, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("pairs values NULL", ps_sort_pairs(keys, NULL, 8, N, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("pairs value_size 0", ps_sort_pairs(keys, vals, 0, N, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("pairs value_size 0, n 0", ps_sort_pairs(keys, vals, 0, 0, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("pairs bad type", ps_sort_pairs(keys, vals, 8, N, (ps_type)42, 0),
           PS_ERR_INVALID_ARG);
    expect("pairs bad flags", ps_sort_pairs(keys, vals, 8, N, PS_U32, 4),
           PS_ERR_INVALID_ARG);
    expect("pairs n*value_size overflows",
           ps_sort_pairs(keys, vals, SIZE_MAX / 2, 3, PS_U32, 0), PS_ERR_INVALID_ARG);
    expect("argsort keys NULL", ps_argsort(NULL, perm, N, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("argsort perm NULL", ps_argsort(keys, NULL, N, PS_U32, 0),
           PS_ERR_INVALID_ARG);
    expect("argsort bad type", ps_argsort(keys, perm, N, (ps_type)-1, 0),
           PS_ERR_INVALID_ARG);
    expect("argsort n*8 overflows", ps_argsort(keys, perm, SIZE_MAX / 2, PS_U8, 0),
           PS_ERR_INVALID_ARG);
    /* n == 0 is success, with NULL pointers too. */
    expect("keys n 0", ps_sort_keys(NULL, 0, PS_F64, PS_DESCENDING), PS_OK);
    expect("pairs n 0", ps_sort_pairs(NULL, NULL, 3, 0, PS_I8, 0), PS_OK);
    expect("argsort n 0", ps_argsort(NULL, NULL, 0, PS_U16, 0), PS_OK);
}

/* Values need no alignment: a misaligned 4-byte value array takes the
 * byte-wise path and must still come out right. */
static void misaligned_values(void)
{
    uint32_t k[1000];
    unsigned char raw[4 * 1000 + 1], *v = raw + 1;
    size_t i;
    uint32_t x;
    for (i = 0; i < 1000; i++) {
        k[i] = (uint32_t)(1000 - i) % 97;
        x = (uint32_t)i;
        memcpy(v + 4 * i, &x, 4);
    }
    if (ps_sort_pairs(k, v, 4, 1000, PS_U32, 0) != PS_OK)
        t_fail("misaligned values: %s", ps_error_detail());
    for (i = 1; i < 1000; i++) {
        uint32_t a, b;
        memcpy(&a, v + 4 * (i - 1), 4);
        memcpy(&b, v + 4 * i, 4);
        if (k[i - 1] > k[i] || (k[i - 1] == k[i] && a > b)
            || k[i] != (uint32_t)(1000 - b) % 97)
            t_fail("misaligned values: wrong result at %zu", i);
    }
}

static void check_sorted(const char *what, int descending)
{
    size_t i;
    for (i = 1; i < N; i++)
        if (descending ? keys[i - 1] < keys[i] : keys[i - 1] > keys[i])
            t_fail("%s: result not sorted", what);
}

/* Fail the k-th host allocation of one call, for k = 1, 2, ... until the
 * call makes no more allocations: each run must succeed correctly or fail
 * with PS_ERR_NO_MEMORY and the arrays unchanged. */
static void allocation_faults(const char *what, int op)
{
    long k;
    for (k = 1; k < 1000; k++) {
        int st;
        reset();
        t_fail_alloc_at(k);
        switch (op) {
        case 0: st = ps_sort_keys(keys, N, PS_U32, 0); break;
        case 1: st = ps_sort_pairs(keys, vals, 8, N, PS_U32, PS_DESCENDING); break;
        case 2: st = ps_sort_pairs(keys, wide, 12, N, PS_U32, 0); break;
        default: st = ps_argsort(keys, perm, N, PS_U32, 0); break;
        }
        t_fail_alloc_at(0);
        if (!t_alloc_failed()) {
            if (st != PS_OK)
                t_fail("%s: no injected failure, yet status %s", what, ps_strerror(st));
            if (op < 3)
                check_sorted(what, op == 1);
            /* argsort always needs scratch: seeing none means the injection
             * does not reach the library and this test proves nothing. */
            if (op == 3 && k == 1)
                t_fail("%s: no allocation observed: fault injection is not active",
                       what);
            printf("  %-40s %ld allocation(s), each failure handled\n", what, k - 1);
            return;
        }
        if (st == PS_OK) {
            /* A backend may survive a failed allocation (e.g. by using
             * less scratch); then the result must be right. */
            if (op < 3)
                check_sorted(what, op == 1);
            continue;
        }
        if (st != PS_ERR_NO_MEMORY)
            t_fail("%s: allocation %ld failed, got %s", what, k, ps_strerror(st));
        untouched(what);
    }
    t_fail("%s: more than 1000 allocations in one call", what);
}

int main(void)
{
    int s;
    t_init_or_skip("ps_test_errors");
    bad_arguments();
    misaligned_values();
    /* Under valgrind its own allocator replaces aligned_alloc before the
     * test's interposer can: .ci/sanitize.sh sets PS_TEST_NO_FAULTS there
     * (the plain and ASan runs cover the faults). */
    if (getenv("PS_TEST_NO_FAULTS") != NULL) {
        printf("  allocation faults skipped (PS_TEST_NO_FAULTS)\n");
    } else {
        allocation_faults("keys, failing allocation k", 0);
        allocation_faults("pairs/8, failing allocation k", 1);
        allocation_faults("pairs/12, failing allocation k", 2);
        allocation_faults("argsort, failing allocation k", 3);
    }
    for (s = -2; s <= 8; s++)
        if (ps_strerror(s) == NULL || ps_strerror(s)[0] == '\0')
            t_fail("ps_strerror(%d) is empty", s);
    if (strcmp(ps_strerror(PS_OK), ps_strerror(PS_ERR_DEVICE)) == 0)
        t_fail("ps_strerror does not tell statuses apart");
    printf("ps_test_errors: passed on backend %s\n", ps_backend_name());
    return 0;
}
