/*
 * ps_fuzz_sort - libFuzzer target: arbitrary bytes become a type, flags, an
 * operation and keys; the backend PORTSORT_BACKEND names sorts them and the
 * result is compared with the stable merge sort of the tests.  Invalid types
 * and flags are fed too, and must be refused with the data unchanged.
 *
 * Input layout:  byte 0  type (0..255; only 1..12 are valid)
 *                byte 1  bit 0 descending, bits 1-3 operation, bit 7 adds
 *                        an unknown flag
 *                byte 2  value size for the odd-size pairs operation
 *                rest    keys, little-endian, as many whole keys as fit
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ps_test_util.h"

enum { OP_KEYS, OP_PAIRS4, OP_PAIRS8, OP_PAIRS_ODD, OP_ARGSORT, OP_COUNT };

static void check(int cond, const char *what, ps_type type, size_t n)
{
    if (!cond) {
        fprintf(stderr, "ps_fuzz_sort: %s (type %d, n %zu, backend %s, detail '%s')\n",
                what, (int)type, n, ps_backend_name(), ps_error_detail());
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Choose the backend once, before fuzzing: exits 77 when the backend named
 * by PORTSORT_BACKEND is not usable here, so scripts can skip it. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    t_init_or_skip("ps_fuzz_sort");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ps_type type;
    unsigned flags;
    size_t kb, n, vs = 4, i;
    int op, st, valid;
    unsigned char *keys, *vals, *vals0;
    size_t *perm, *want;

    if (size < 3)
        return 0;
    type = (ps_type)data[0];
    flags = (data[1] & 1u) | ((data[1] & 0x80u) ? 0x100u : 0u);
    op = (data[1] >> 1 & 7) % OP_COUNT;
    valid = ps_type_size(type) != 0 && !(flags & ~PS_DESCENDING);
    kb = valid ? ps_type_size(type) : 1;
    if (op == OP_PAIRS8)
        vs = 8;
    else if (op == OP_PAIRS_ODD)
        vs = 1 + data[2] % 24;
    data += 3, size -= 3;
    n = size / kb;

    keys = malloc(n * kb + 1);
    vals = malloc(n * vs + 1);
    vals0 = malloc(n * vs + 1);
    perm = malloc((n + 1) * sizeof *perm);
    want = malloc((n + 1) * sizeof *want);
    check(keys && vals && vals0 && perm && want, "out of memory", type, n);
    memcpy(keys, data, n * kb);
    for (i = 0; i < n * vs; i++)
        vals[i] = vals0[i] = (unsigned char)(i * 131 + i / vs);
    for (i = 0; i <= n; i++)
        perm[i] = (size_t)-1;

    switch (op) {
    case OP_KEYS: st = ps_sort_keys(keys, n, type, flags); break;
    case OP_ARGSORT: st = ps_argsort(keys, perm, n, type, flags); break;
    default: st = ps_sort_pairs(keys, vals, vs, n, type, flags); break;
    }

    if (!valid) {
        check(st == PS_ERR_INVALID_ARG, "invalid type or flags accepted", type, n);
        check(memcmp(keys, data, n * kb) == 0, "refused call changed keys", type, n);
        check(memcmp(vals, vals0, n * vs) == 0, "refused call changed values", type, n);
        goto out;
    }
    check(st == PS_OK, "valid call failed", type, n);
    t_oracle_perm(data, n, type, flags, want);
    if (op == OP_ARGSORT) {
        check(memcmp(keys, data, n * kb) == 0, "argsort changed keys", type, n);
        for (i = 0; i < n; i++)
            check(perm[i] == want[i], "argsort permutation differs", type, n);
        goto out;
    }
    for (i = 0; i < n; i++) {
        check(memcmp(keys + i * kb, data + want[i] * kb, kb) == 0, "keys differ",
              type, n);
        if (op != OP_KEYS)
            check(memcmp(vals + i * vs, vals0 + want[i] * vs, vs) == 0,
                  "values differ", type, n);
    }
out:
    free(keys); free(vals); free(vals0); free(perm); free(want);
    return 0;
}
