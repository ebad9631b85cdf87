/*
 * ps_test_gpu_arch - ps_gpu_arch_listed, which decides before any kernel
 * whether the HIP module has a code object for the GPU (a missing one
 * aborts the process in many ROCm releases): target IDs with and without
 * features, lists separated by spaces and commas, generic targets, and
 * names that only share a prefix.
 */
#include <stdio.h>

#include "ps_gpu_arch.h"

static int failures;

static void expect(const char *device, const char *built, int want)
{
    int got = ps_gpu_arch_listed(device, built);
    if (got != want) {
        fprintf(stderr, "FAIL: ps_gpu_arch_listed(\"%s\", \"%s\") = %d, want %d\n",
                device ? device : "(null)", built ? built : "(null)", got, want);
        failures++;
    }
}

int main(void)
{
    /* configure's list: space-separated, a leading space. */
    expect("gfx90a:sramecc+:xnack-", " gfx90a gfx908 gfx906", 1);
    expect("gfx908:sramecc+:xnack-", " gfx90a gfx908 gfx906", 1);
    expect("gfx942:sramecc+:xnack-", " gfx90a gfx908 gfx906", 0);
    expect("gfx1100", "gfx90a,gfx1100", 1);
    expect("gfx1100", "gfx90a, gfx1030", 0);
    /* A prefix is not a match, either way. */
    expect("gfx90", "gfx90a", 0);
    expect("gfx90a:xnack-", "gfx90", 0);
    expect("gfx9", "gfx90a gfx908", 0);
    /* Features an entry names must be set alike on the device. */
    expect("gfx90a:sramecc+:xnack-", "gfx90a:xnack-", 1);
    expect("gfx90a:sramecc+:xnack-", "gfx90a:xnack+", 0);
    expect("gfx90a:sramecc+:xnack-", "gfx90a:sramecc+:xnack-", 1);
    expect("gfx90a:sramecc+:xnack-", "gfx90a:sramecc-:xnack-", 0);
    expect("gfx90a:sramecc+:xnack-", "gfx90a:xnack+ gfx90a:xnack-", 1);
    expect("gfx90a:sramecc+:xnack-", "gfx90a:xnack+,gfx942:xnack-", 0);
    expect("gfx90a", "gfx90a:xnack+", 0);
    /* Generic targets run on members only the runtime knows. */
    expect("gfx1030", "gfx90a gfx10-3-generic", -1);
    expect("gfx90a:xnack-", "gfx9-generic gfx90a", 1);
    /* Nothing to go by. */
    expect("", "gfx90a", -1);
    expect(NULL, "gfx90a", -1);
    expect("gfx90a", "", 0);
    expect("gfx90a", " , ", 0);
    if (failures != 0) {
        fprintf(stderr, "ps_test_gpu_arch: %d case(s) failed\n", failures);
        return 1;
    }
    printf("ps_test_gpu_arch: passed\n");
    return 0;
}
