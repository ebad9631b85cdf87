/*
 * ps_test_gpu_copyfault - "nothing lost" when the device fails while a
 * host-array sort copies its result back (backends/gpu/ps_gpu_backend.c),
 * on the CPU stand-in runtime (test/standin/ps_gpu_fake.cc), which
 * gpu-fake.sh runs with PS_FAKE_FAIL_COPY_OUT=k for k = 1, 2, ...: the k-th
 * device-to-host copy of the process fails, and so does every later one,
 * as on a lost device.  The stand-in's staging buffers hold 1000 bytes, so
 * the keys and the values of one sort come back in many chunks, and some k
 * fail while the values are copied, after all of the keys have arrived.
 *
 * Usage: ps_test_gpu_copyfault OP, OP = keys | pairs4 | pairs8 | argsort.
 * Each of two sorts must succeed with the right result, or fail with
 * PS_ERR_DEVICE leaving every array byte for byte as it was.  Prints
 * "failed" or "sorted" for the first sort, so the script can tell which k
 * reached a copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_util.h"

#define N 3000

static int sort_once(const char *op, uint32_t *k, unsigned char *v, size_t *perm)
{
    if (strcmp(op, "keys") == 0)
        return ps_sort_keys(k, N, PS_U32, 0);
    if (strcmp(op, "pairs4") == 0)
        return ps_sort_pairs(k, v, 4, N, PS_U32, PS_DESCENDING);
    if (strcmp(op, "pairs8") == 0)
        return ps_sort_pairs(k, v, 8, N, PS_U32, 0);
    return ps_argsort(k, perm, N, PS_U32, 0);
}

int main(int argc, char **argv)
{
    static uint32_t k[N], k0[N];
    static unsigned char v[N * 8], v0[N * 8];
    static size_t perm[N], perm0[N], want[N];
    const char *op = argc > 1 ? argv[1] : "pairs4";
    unsigned flags = strcmp(op, "pairs4") == 0 ? PS_DESCENDING : 0;
    size_t vs = strcmp(op, "pairs4") == 0 ? 4 : 8;
    uint64_t s = 5;
    size_t i;
    int round;

    t_init_or_skip("ps_test_gpu_copyfault");
    for (round = 0; round < 2; round++) {
        int st;
        for (i = 0; i < N; i++) {
            uint64_t tag = i * 0x0101010101010101ull;
            k[i] = k0[i] = (uint32_t)t_rand(&s) % 700;
            memcpy(v + i * 8, &tag, 8);
            memcpy(v0 + i * 8, &tag, 8);
            perm[i] = perm0[i] = 7;
        }
        st = sort_once(op, k, v, perm);
        if (round == 0)
            printf("%s\n", st == PS_OK ? "sorted" : "failed");
        if (st != PS_OK) {
            if (st != PS_ERR_DEVICE)
                t_fail("%s: %s (%s), expected PS_OK or PS_ERR_DEVICE", op,
                       ps_strerror(st), ps_error_detail());
            if (memcmp(k, k0, sizeof k) || memcmp(v, v0, sizeof v)
                || memcmp(perm, perm0, sizeof perm))
                t_fail("%s, sort %d: the caller's arrays changed on a failed "
                       "copy back (%s)", op, round, ps_error_detail());
            continue;
        }
        t_oracle_perm(k0, N, PS_U32, flags, want);
        for (i = 0; i < N; i++) {
            int bad;
            if (strcmp(op, "argsort") == 0)
                bad = perm[i] != want[i];
            else
                bad = k[i] != k0[want[i]]
                      || (strcmp(op, "keys") != 0
                          && memcmp(v + i * vs, v0 + want[i] * vs, vs) != 0);
            if (bad)
                t_fail("%s, sort %d: wrong at %zu after success", op, round, i);
        }
    }
    return 0;
}
