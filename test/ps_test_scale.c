/*
 * ps_test_scale - more than 2^32 elements (u8 keys, about 4.3 GB) through
 * the backend PORTSORT_BACKEND names, checked by sortedness and by the
 * count of every key value; then 2^32 - 1 u8 keys, the most the GPU
 * kernels count, where their 32-bit loop indices come closest to wrapping.  Needs about 2.2x the array in free memory
 * (keys plus the backend's scratch); exits 77 when the machine lacks it.
 * Then 2^29 + 3 u32 keys (just over 2^31 bytes), checked by sortedness and
 * an order-independent checksum: the size where 32-bit byte offsets break.
 * A backend that cannot address an array may refuse with PS_ERR_TOO_LARGE
 * or PS_ERR_DEVICE_MEMORY, never sort wrongly.
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

static int big_u32(void)
{
    const size_t n = ((size_t)1 << 29) + 3;
    uint32_t *k = malloc(n * sizeof *k);
    uint64_t s = 9, sum = 0, sum2 = 0, x = 0, x2 = 0;
    size_t i;
    int st;
    if (k == NULL) {
        printf("ps_test_scale: cannot allocate %zu u32 keys, skipped\n", n);
        return 0;
    }
    for (i = 0; i < n; i++) {
        k[i] = (uint32_t)t_rand(&s);
        sum += k[i];
        x ^= (uint64_t)k[i] * 0x9E3779B97F4A7C15ull;
    }
    st = ps_sort_keys(k, n, PS_U32, 0);
    if (st == PS_ERR_TOO_LARGE || st == PS_ERR_DEVICE_MEMORY) {
        printf("ps_test_scale: %zu u32 refused cleanly: %s: %s\n", n,
               ps_strerror(st), ps_error_detail());
        free(k);
        return 0;
    }
    if (st != PS_OK)
        t_fail("u32 n = %zu: %s: %s", n, ps_strerror(st), ps_error_detail());
    for (i = 0; i < n; i++) {
        if (i > 0 && k[i - 1] > k[i])
            t_fail("u32 n = %zu: not sorted at %zu", n, i);
        sum2 += k[i];
        x2 ^= (uint64_t)k[i] * 0x9E3779B97F4A7C15ull;
    }
    if (sum != sum2 || x != x2)
        t_fail("u32 n = %zu: keys lost or duplicated", n);
    printf("ps_test_scale: %zu u32 keys (%zu bytes) sorted on %s\n", n, n * 4,
           ps_backend_name());
    free(k);
    return 0;
}

/* n u8 keys, both directions, checked by order and by the count of every
 * value.  Returns 0, or fails the test. */
static int big_u8(size_t n)
{
    size_t count[256] = { 0 }, after[256] = { 0 }, i;
    unsigned char *k;
    uint64_t s = 5, r = 0;
    int st, desc;

    k = malloc(n);
    if (k == NULL) {
        printf("ps_test_scale: cannot allocate %zu bytes, skipped\n", n);
        return 0;
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
            printf("ps_test_scale: %zu u8 keys refused cleanly: %s: %s\n", n,
                   ps_strerror(st), ps_error_detail());
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

int main(void)
{
    const size_t n = ((size_t)1 << 32) + 4099;

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
    big_u8(n);
    /* The largest n the GPU kernels count (2^32 - 1): their strided loops
     * must stop before the index wraps past 2^32. */
    big_u8(((size_t)1 << 32) - 1);
    return big_u32();
}
