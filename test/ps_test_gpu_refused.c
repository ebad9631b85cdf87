/*
 * ps_test_gpu_refused - a GPU module that is built but cannot run here (no
 * driver, no device) must be refused cleanly: PORTSORT_BACKEND=<name> makes
 * ps_init and every sort return PS_ERR_BACKEND_UNAVAILABLE with a reason
 * that names the missing piece, the arrays stay untouched, ps_backends()
 * lists the module as built but unusable, and its device API is refused
 * the same way (ps_device_api() NULL, the portsort_<name>.h wrappers return
 * PS_ERR_BACKEND_UNAVAILABLE).
 *
 * Usage: ps_test_gpu_refused cuda|hip.  Exits 77 when the module is not
 * built (nothing to refuse) or when it is usable (a GPU is here: the
 * refusal cannot be tested, the differential test covers that machine).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portsort.h"
#include "portsort_cuda.h"
#include "portsort_hip.h"
#include "ps_test_util.h"

/* The reasons a probe may give on a machine without the GPU: the probe's
 * own words, or the loader's when the runtime library itself is missing. */
static int reason_ok(const char *name, const char *detail)
{
    if (strcmp(name, "cuda") == 0)
        return strstr(detail, "no CUDA driver") != NULL
               || strstr(detail, "CUDA driver too old") != NULL
               || strstr(detail, "no CUDA device") != NULL;
    return strstr(detail, "no HIP device") != NULL
           || strstr(detail, "no HIP driver") != NULL
           || strstr(detail, "libamdhip64") != NULL;
}

/* Every wrapper of portsort_<rt>.h; the first status that is not
 * PS_ERR_BACKEND_UNAVAILABLE, or that one. */
#define TRY_WRAPPERS(rt) (                                                   \
    (st = ps_##rt##_scratch_size(PS_GPU_SORT_KEYS, 5, PS_U32, 0, &bytes))    \
        != PS_ERR_BACKEND_UNAVAILABLE ? st                                   \
    : (st = ps_##rt##_sort_keys(keys, 5, PS_U32, 0, NULL, 0, NULL))          \
        != PS_ERR_BACKEND_UNAVAILABLE ? st                                   \
    : (st = ps_##rt##_sort_pairs(keys, vals, 4, 5, PS_U32, 0, NULL, 0, NULL))\
        != PS_ERR_BACKEND_UNAVAILABLE ? st                                   \
    : ps_##rt##_argsort(keys, perm, 5, PS_U32, 0, NULL, 0, NULL))

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "cuda";
    uint32_t keys[5] = { 5, 1, 4, 2, 3 }, vals[5] = { 0, 1, 2, 3, 4 };
    const uint32_t keys0[5] = { 5, 1, 4, 2, 3 }, vals0[5] = { 0, 1, 2, 3, 4 };
    size_t perm[5] = { 9, 9, 9, 9, 9 }, bytes = 0, i, count;
    ps_backend_info info[16];
    const ps_backend_info *me = NULL;
    const ps_gpu_api *api;
    int st;

    count = ps_backends(info, 16);
    for (i = 0; i < count && i < 16; i++)
        if (strcmp(info[i].name, name) == 0)
            me = &info[i];
    if (me == NULL)
        t_fail("%s: not among the backends ps_backends() lists", name);
    if (!me->built && strstr(me->detail, "not found") != NULL) {
        printf("SKIP: module ps_%s.so not built here (%s)\n", name, me->detail);
        return PS_TEST_SKIP;
    }
    if (me->usable) {
        printf("SKIP: %s is usable here (%s): nothing to refuse\n", name, me->detail);
        return PS_TEST_SKIP;
    }
    if (!reason_ok(name, me->detail))
        t_fail("%s: unusable for an unexpected reason: %s", name, me->detail);
    printf("%s refused: %s\n", name, me->detail);

    /* The environment names this backend: the choice must fail. */
    st = ps_init();
    if (st != PS_ERR_BACKEND_UNAVAILABLE)
        t_fail("ps_init: %d (%s), want PS_ERR_BACKEND_UNAVAILABLE", st, ps_strerror(st));
    if (!reason_ok(name, ps_error_detail()))
        t_fail("ps_init detail: '%s'", ps_error_detail());
    if (strcmp(ps_backend_name(), "none") != 0)
        t_fail("ps_backend_name: %s, want none", ps_backend_name());
    if (ps_sort_keys(keys, 5, PS_U32, 0) != PS_ERR_BACKEND_UNAVAILABLE
        || ps_sort_pairs(keys, vals, 4, 5, PS_U32, 0) != PS_ERR_BACKEND_UNAVAILABLE
        || ps_argsort(keys, perm, 5, PS_U32, PS_DESCENDING) != PS_ERR_BACKEND_UNAVAILABLE)
        t_fail("a sort did not return PS_ERR_BACKEND_UNAVAILABLE");
    if (memcmp(keys, keys0, sizeof keys) != 0 || memcmp(vals, vals0, sizeof vals) != 0
        || perm[0] != 9 || perm[4] != 9)
        t_fail("a refused sort touched the arrays");

    /* The device API: refused with the same reason, through both the raw
     * call and the header's wrappers. */
    if (ps_device_api(name) != NULL)
        t_fail("ps_device_api(%s) returned a table", name);
    if (!reason_ok(name, ps_error_detail()))
        t_fail("ps_device_api detail: '%s'", ps_error_detail());
    api = strcmp(name, "cuda") == 0 ? ps_cuda_api_get() : ps_hip_api_get();
    if (api != NULL)
        t_fail("ps_%s_api_get returned a table", name);
    if (strcmp(name, "cuda") == 0)
        st = TRY_WRAPPERS(cuda);
    else
        st = TRY_WRAPPERS(hip);
    if (st != PS_ERR_BACKEND_UNAVAILABLE)
        t_fail("a ps_%s_* wrapper returned %d", name, st);
    if (!reason_ok(name, ps_error_detail()))
        t_fail("wrapper detail: '%s'", ps_error_detail());
    if (memcmp(keys, keys0, sizeof keys) != 0 || bytes != 0)
        t_fail("a refused device call wrote something");
    printf("ps_test_gpu_refused %s: ok\n", name);
    return 0;
}
