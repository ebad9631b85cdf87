/*
 * ps_test_scale - more than 2^32 elements (u8 keys, about 4.3 GB) through
 * the backend PORTSORT_BACKEND names, checked by sortedness and by the
 * count of every key value.  Needs about 2.2x the array in free memory
 * (keys plus the backend's scratch); exits 77 when the machine lacks it.
 * Part of `make check-long`, not of `make check`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ps_test_util.h"

static size_t available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    size_t kb = 0;
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %zu kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

int main(void)
{
    const size_t n = ((size_t)1 << 32) + 4099;
    size_t count[256] = { 0 }, after[256] = { 0 }, i;
    unsigned char *k;
    uint64_t s = 5, r = 0;
    int st, desc;

    if (sizeof(size_t) < 8) {
        printf("SKIP: 32-bit size_t\n");
        return PS_TEST_SKIP;
    }
    if (available_bytes() < n / 10 * 22) {
        printf("SKIP: needs %zu MB free, %zu MB available\n", n / 10 * 22 >> 20,
               available_bytes() >> 20);
        return PS_TEST_SKIP;
    }
    t_init_or_skip("ps_test_scale");
    k = malloc(n);
    if (k == NULL) {
        printf("SKIP: cannot allocate %zu bytes\n", n);
        return PS_TEST_SKIP;
    }
    for (desc = 0; desc < 2; desc++) {
        for (i = 0; i < n; i++) {
            if ((i & 7) == 0)
                r = t_rand(&s);
            k[i] = (unsigned char)(r >> (8 * (i & 7)));
        }
        memset(count, 0, sizeof count);
        memset(after, 0, sizeof after);
        for (i = 0; i < n; i++)
            count[k[i]]++;
        st = ps_sort_keys(k, n, PS_U8, desc ? PS_DESCENDING : 0);
        if (st == PS_ERR_TOO_LARGE || st == PS_ERR_DEVICE_MEMORY) {
            printf("ps_test_scale: refused cleanly: %s: %s\n", ps_strerror(st),
                   ps_error_detail());
            continue;
        }
        if (st != PS_OK)
            t_fail("n = %zu: %s: %s", n, ps_strerror(st), ps_error_detail());
        for (i = 0; i < n; i++) {
            after[k[i]]++;
            if (i > 0 && (desc ? k[i - 1] < k[i] : k[i - 1] > k[i]))
                t_fail("n = %zu: not sorted at %zu", n, i);
        }
        if (memcmp(count, after, sizeof count) != 0)
            t_fail("n = %zu: keys lost or duplicated", n);
        printf("ps_test_scale: %zu u8 keys sorted %s on %s\n", n,
               desc ? "descending" : "ascending", ps_backend_name());
    }
    free(k);
    return 0;
}
