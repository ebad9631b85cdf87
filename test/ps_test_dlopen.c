/*
 * ps_test_dlopen - a program that loads libportsort with dlopen (as
 * plugins and language bindings do), sorts, dlcloses it, and does it all
 * again.  The OpenMP runtime keeps its pool of threads parked in its own
 * code after a sort; had dlclose unmapped the library, and with it the
 * runtime it pulled in, those threads would crash the process.  The
 * library stays loaded instead (-z nodelete), so the second dlopen finds
 * it there, the backend already chosen.
 *
 * Not linked with libportsort or OpenMP.  Loads
 * $top_builddir/lib/.libs/libportsort.so.0 and sorts on openmp (skipped,
 * 77, where that backend is not built).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*sort_keys_fn)(void *, size_t, int, unsigned);
typedef const char *(*name_fn)(void);

#define PS_U32_TYPE 3   /* PS_U32 in portsort.h */
#define PS_UNAVAILABLE 4    /* PS_ERR_BACKEND_UNAVAILABLE */

int main(void)
{
    const char *top = getenv("top_builddir");
    char path[4096];
    size_t n = (size_t)1 << 20, i;
    uint32_t *k = malloc(n * sizeof *k);
    uint64_t x = 88172645463325252ull;
    int round;
    snprintf(path, sizeof path, "%s/lib/.libs/libportsort.so.0", top ? top : ".");
    setenv("PORTSORT_BACKEND", "openmp", 1);
    if (k == NULL)
        return 1;
    for (round = 0; round < 3; round++) {
        struct timespec pause = { 0, 200 * 1000 * 1000 };
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        sort_keys_fn sort;
        name_fn name;
        int st;
        if (h == NULL) {
            printf("SKIP: cannot dlopen %s: %s\n", path, dlerror());
            return 77;
        }
        sort = (sort_keys_fn)(uintptr_t)dlsym(h, "ps_sort_keys");
        name = (name_fn)(uintptr_t)dlsym(h, "ps_backend_name");
        if (sort == NULL || name == NULL) {
            printf("FAIL: %s lacks ps_sort_keys or ps_backend_name\n", path);
            return 1;
        }
        for (i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            k[i] = (uint32_t)x;
        }
        st = sort(k, n, PS_U32_TYPE, 0);
        if (st == PS_UNAVAILABLE) {
            printf("SKIP: the OpenMP backend is not built\n");
            return 77;
        }
        for (i = 1; st == 0 && i < n; i++)
            if (k[i - 1] > k[i]) {
                printf("FAIL: round %d: wrong order at %zu\n", round, i);
                return 1;
            }
        if (st != 0) {
            printf("FAIL: round %d: sort returned %d\n", round, st);
            return 1;
        }
        printf("round %d: sorted %zu keys on %s, dlclose\n", round, n, name());
        fflush(stdout);
        if (dlclose(h) != 0) {
            printf("FAIL: dlclose: %s\n", dlerror());
            return 1;
        }
        /* Time for the runtime's parked threads to wake up in unmapped
         * code, were it unmapped. */
        nanosleep(&pause, NULL);
    }
    free(k);
    printf("ps_test_dlopen: passed\n");
    return 0;
}
