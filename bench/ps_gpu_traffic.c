/*
 * ps_gpu_traffic - one device sort through the CUDA device API, for
 * counting the global-memory bytes the kernels read and write.
 *
 *     ps_gpu_traffic TYPE N VALUE_SIZE
 *
 * Run on the CPU stand-in runtime (test/ps_gpu_fake.so installed as
 * ps_cuda.so), where "device memory" is host memory, the kernels are the
 * real ones compiled for the CPU, and every load and store a work-item
 * makes is a load or store of this process.  bench/ps_gpu_traffic.sh runs
 * it under valgrind's DHAT, which counts the bytes read and written in
 * each heap block by allocation site: the keys, the values and the
 * scratch (alternate arrays, digit counts, look-back status words) are
 * each allocated by a function of their own below, so their counts are
 * the kernels' global-memory traffic, separate from everything else.
 *
 * Keys are random (every pass runs); the sort is checked, so a count is
 * never taken of a wrong sort.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portsort.h"
#include "portsort_cuda.h"

/* One allocation site each, never inlined or folded into one (noipa), and
 * no tail call (the empty asm after malloc keeps the frame): DHAT tells
 * them apart by the function that called malloc. */
#define ALLOCATOR(name)                                                      \
    __attribute__((noipa)) static void *name(size_t bytes)                   \
    {                                                                        \
        void *p = malloc(bytes ? bytes : 1);                                 \
        __asm__ volatile("" : : "r"(p) : "memory");                          \
        return p;                                                            \
    }
ALLOCATOR(traffic_keys)
ALLOCATOR(traffic_values)
ALLOCATOR(traffic_scratch)

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    ps_type type;
    size_t n, vs, kb, bytes = 0, i;
    unsigned char *keys, *vals = NULL;
    void *scratch;
    uint64_t s = 42;
    int st;

    if (argc != 4) {
        fprintf(stderr, "usage: ps_gpu_traffic u32|u64 N VALUE_SIZE(0|4|8)\n");
        return 2;
    }
    type = strcmp(argv[1], "u64") == 0 ? PS_U64 : PS_U32;
    n = strtoull(argv[2], NULL, 10);
    vs = strtoull(argv[3], NULL, 10);
    kb = ps_type_size(type);
    keys = traffic_keys(n * kb);
    if (vs != 0)
        vals = traffic_values(n * vs);
    if (keys == NULL || (vs != 0 && vals == NULL))
        return 1;
    for (i = 0; i < n; i++) {
        uint64_t r = next(&s);
        memcpy(keys + i * kb, &r, kb);
        if (vals != NULL)
            memcpy(vals + i * vs, &i, vs);
    }
    st = ps_cuda_scratch_size(vs ? PS_GPU_SORT_PAIRS : PS_GPU_SORT_KEYS, n, type, vs,
                              &bytes);
    scratch = st == PS_OK ? traffic_scratch(bytes) : NULL;
    if (st == PS_OK)
        st = vs ? ps_cuda_sort_pairs(keys, vals, vs, n, type, 0, scratch, bytes, NULL)
                : ps_cuda_sort_keys(keys, n, type, 0, scratch, bytes, NULL);
    if (st != PS_OK) {
        fprintf(stderr, "ps_gpu_traffic: %s: %s\n", ps_strerror(st), ps_error_detail());
        return 1;
    }
    /* The stand-in runs a stream's work before the call returns. */
    for (i = 1; i < n; i++) {
        uint64_t a = 0, b = 0;
        memcpy(&a, keys + (i - 1) * kb, kb);
        memcpy(&b, keys + i * kb, kb);
        if (a > b) {
            fprintf(stderr, "ps_gpu_traffic: not sorted at %zu\n", i);
            return 1;
        }
    }
    printf("ps_gpu_traffic: %s n=%zu value_size=%zu scratch=%zu sorted\n", argv[1], n,
           vs, bytes);
    free(keys);
    free(vals);
    free(scratch);
    return 0;
}
