/*
 * ps_test_process - the library where it meets the process it runs in:
 * privileges and resource limits.  test/process.sh runs it, as another
 * user and under limits, from a copy in a private directory: it is linked
 * with libportsort statically, so that it runs setuid (the dynamic loader
 * ignores LD_LIBRARY_PATH there) and from anywhere.
 *
 *   ps_test_process report     choose the backend and print the outcome
 *                              with the effective user id
 *   ps_test_process sort       sort 2^21 keys and check them: whatever
 *                              threads can or cannot be started, the
 *                              library sorts or fails with a status, and
 *                              never ends the process itself
 *   ps_test_process sort-as M  the same with the address space limited to
 *                              what the process maps with its keys, plus
 *                              M MiB
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ps_test_util.h"

static int report(void)
{
    int st = ps_init();
    printf("euid %d: %s: backend %s%s%s\n", (int)geteuid(), ps_strerror(st),
           ps_backend_name(), st != PS_OK ? ": " : "", st != PS_OK ? ps_error_detail() : "");
    return 0;
}

/* Bytes the process maps now (VmSize), or 0 when unknown. */
static size_t mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long kib = 0;
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmSize: %lu kB", &kib) == 1)
            break;
    fclose(f);
    return (size_t)kib * 1024;
}

/* Sort 2^21 keys; with limit_mib > 0, under an address space limit of
 * what is mapped once the keys are, plus limit_mib MiB. */
static int sort(long limit_mib)
{
    size_t n = (size_t)1 << 21, i;
    uint32_t *k = malloc(n * sizeof *k), *k0 = malloc(n * sizeof *k0);
    uint64_t seed = 11;
    int st;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    /* The keys freed, or LeakSanitizer would report them. */
    if (limit_mib > 0) {
        printf("SKIP: a sanitizer's shadow memory does not fit an address "
               "space limit\n");
        free(k);
        free(k0);
        return PS_TEST_SKIP;
    }
#endif
    if (k == NULL || k0 == NULL)
        t_fail("out of memory before the sort");
    for (i = 0; i < n; i++)
        k[i] = k0[i] = (uint32_t)t_rand(&seed);
    if (limit_mib > 0) {
        struct rlimit rl;
        size_t now = mapped_bytes();
        if (now == 0) {
            printf("SKIP: no VmSize in /proc/self/status\n");
            free(k);
            free(k0);
            return PS_TEST_SKIP;
        }
        rl.rlim_cur = rl.rlim_max = now + (size_t)limit_mib * 1024 * 1024;
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            t_fail("setrlimit(RLIMIT_AS)");
    }
    st = ps_sort_keys(k, n, PS_U32, 0);
    if (st == PS_OK) {
        for (i = 1; i < n; i++)
            if (k[i - 1] > k[i])
                t_fail("wrong order at %zu", i);
    } else if (st == PS_ERR_NO_MEMORY) {
        if (memcmp(k, k0, n * sizeof *k) != 0)
            t_fail("a failed sort changed the keys");
    } else {
        t_fail("sort: %s: %s", ps_strerror(st), ps_error_detail());
    }
    printf("ps_test_process: sort on %s: %s%s%s\n", ps_backend_name(), ps_strerror(st),
           st != PS_OK ? ": " : "", st != PS_OK ? ps_error_detail() : "");
    free(k);
    free(k0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "report") == 0)
        return report();
    if (argc >= 2 && strcmp(argv[1], "sort") == 0)
        return sort(0);
    if (argc >= 3 && strcmp(argv[1], "sort-as") == 0 && atol(argv[2]) > 0)
        return sort(atol(argv[2]));
    fprintf(stderr, "usage: ps_test_process report | sort | sort-as MIB\n");
    return 2;
}
