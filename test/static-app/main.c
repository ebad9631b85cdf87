/* Linked with -static against libportsort.a by test/static.sh, with the
 * flags of `pkg-config --static --libs portsort`: sorts 2^20 u64 keys with
 * their indices as values on the backend the library chooses, checks the
 * result, and prints the backend's name; on a failure, the error. */
#include <portsort.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The i-th key, from the xorshift64 state *x: a third of them small, so
 * that equal keys (and the order of their values) are tested too. */
static uint64_t next_key(uint64_t *x, size_t i)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x >> (i % 3 == 0 ? 40 : 0);
}

int main(void)
{
    const uint64_t seed = 88172645463325252u;
    size_t n = (size_t)1 << 20, i;
    uint64_t *keys = malloc(n * sizeof *keys), *want = malloc(n * sizeof *want);
    uint32_t *ids = malloc(n * sizeof *ids);
    uint64_t x = seed;
    int st;

    if (keys == NULL || want == NULL || ids == NULL)
        return 99;
    for (i = 0; i < n; i++) {
        keys[i] = want[i] = next_key(&x, i);
        ids[i] = (uint32_t)i;
    }
    st = ps_sort_pairs(keys, ids, sizeof ids[0], n, PS_U64, 0);
    if (st != PS_OK) {
        printf("%s: %s\n", ps_strerror(st), ps_error_detail());
        return 1;
    }
    /* Sorted, stably (so no index twice), and each key the one generated
     * at its index. */
    for (i = 0; i < n; i++) {
        if ((i > 0 && (keys[i - 1] > keys[i]
                       || (keys[i - 1] == keys[i] && ids[i - 1] >= ids[i])))
            || ids[i] >= n || want[ids[i]] != keys[i]) {
            printf("wrong at %zu on %s\n", i, ps_backend_name());
            return 1;
        }
    }
    printf("%s\n", ps_backend_name());
    free(keys);
    free(want);
    free(ids);
    return 0;
}
