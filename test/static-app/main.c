/* Linked with -static against libportsort.a by test/static.sh, with the
 * flags of `pkg-config --static --libs portsort`: sorts 2^20 u64 keys with
 * their indices as values on the backend the library chooses, checks the
 * result, and prints the backend's name; on a failure, the error. */
#include <portsort.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    size_t n = (size_t)1 << 20, i;
    uint64_t *keys = malloc(n * sizeof *keys), x = 88172645463325252u;
    uint32_t *ids = malloc(n * sizeof *ids);
    int st;

    if (keys == NULL || ids == NULL)
        return 99;
    for (i = 0; i < n; i++) {
        /* xorshift64; every key is kept, in keys[ids[i]] form, below. */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        keys[i] = x >> (i % 3 == 0 ? 40 : 0);
        ids[i] = (uint32_t)i;
    }
    st = ps_sort_pairs(keys, ids, sizeof ids[0], n, PS_U64, 0);
    if (st != PS_OK) {
        printf("%s: %s\n", ps_strerror(st), ps_error_detail());
        return 1;
    }
    /* Sorted, and each key is the one generated at its index's place. */
    x = 88172645463325252u;
    {
        uint64_t *want = malloc(n * sizeof *want);
        if (want == NULL)
            return 99;
        for (i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            want[i] = x >> (i % 3 == 0 ? 40 : 0);
        }
        for (i = 0; i < n; i++) {
            if ((i > 0 && (keys[i - 1] > keys[i]
                           || (keys[i - 1] == keys[i] && ids[i - 1] >= ids[i])))
                || ids[i] >= n || want[ids[i]] != keys[i]) {
                printf("wrong at %zu on %s\n", i, ps_backend_name());
                return 1;
            }
        }
        free(want);
    }
    printf("%s\n", ps_backend_name());
    free(keys);
    free(ids);
    return 0;
}
