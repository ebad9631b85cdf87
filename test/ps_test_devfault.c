/*
 * ps_test_devfault - device failures through the public API.  Run with
 * PORTSORT_TEST_FAIL_DEVICE_ALLOC=k or PORTSORT_TEST_FAIL_DEVICE_READ=k
 * (see test/opencl-devfault.sh): the backend's k-th device allocation, or
 * its k-th read of a host-array result, in this process fails.  Each call
 * below (sorts of keys, pairs, argsort, a segmented sort) must then
 * either succeed with a correct result or return
 * PS_ERR_DEVICE_MEMORY with the caller's arrays byte for byte unchanged:
 * when the values' read fails after the keys' one succeeded, the keys
 * must not come back sorted alone.  Prints "injected" when some call saw
 * the failure, so the script can tell that k reached an allocation or a
 * read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_util.h"

#define N 300000

int main(void)
{
    static uint32_t k[N], k0[N], v[N], v0[N];
    static size_t perm[N], perm0[N];
    uint64_t s = 11;
    size_t i, nseg, *offs;
    int op, injected = 0;

    t_init_or_skip("ps_test_devfault");
    nseg = t_mixed_offsets(N, &s, &offs);
    for (op = 0; op < 5; op++) {
        int st;
        for (i = 0; i < N; i++) {
            k[i] = k0[i] = (uint32_t)t_rand(&s) % 5000;
            v[i] = v0[i] = (uint32_t)i;
            perm[i] = perm0[i] = 7;
        }
        switch (op) {
        case 0: st = ps_sort_keys(k, N, PS_U32, 0); break;
        case 1: st = ps_sort_pairs(k, v, 4, N, PS_U32, PS_DESCENDING); break;
        case 2: st = ps_argsort(k, perm, N, PS_U32, 0); break;
        case 3: st = ps_sort_pairs(k, v, 4, N / 3, PS_U32, 0); break;
        default: st = ps_sort_segments(k, v, 4, N, offs, nseg, PS_U32, 0); break;
        }
        if (st == PS_OK && op == 4) {
            t_check_segments("segments", k0, k, v0, v, 4, offs, nseg, PS_U32, 0);
            continue;
        } else if (st == PS_OK) {
            size_t m = op == 3 ? N / 3 : N;
            for (i = 1; i < m && op != 2; i++)
                if (op == 1 ? k[i - 1] < k[i] : k[i - 1] > k[i])
                    t_fail("op %d: wrong result after success", op);
            continue;
        }
        if (st != PS_ERR_DEVICE_MEMORY)
            t_fail("op %d: %s (%s), expected success or PS_ERR_DEVICE_MEMORY", op,
                   ps_strerror(st), ps_error_detail());
        if (memcmp(k, k0, sizeof k) || memcmp(v, v0, sizeof v)
            || memcmp(perm, perm0, sizeof perm))
            t_fail("op %d: the caller's arrays changed on a device failure", op);
        printf("op %d: injected: %s\n", op, ps_error_detail());
        injected = 1;
    }
    free(offs);
    printf("ps_test_devfault: %s\n", injected ? "injected failure handled" : "no failure hit");
    return 0;
}
