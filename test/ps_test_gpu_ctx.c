/*
 * ps_test_gpu_ctx - the CUDA backend's manners with devices (issue 17,
 * items 3 and 6), on the CPU stand-in runtime
 * (test/standin/ps_gpu_fake.cc), which records which devices got a
 * primary context, each thread's current context and where each kernel
 * ran.  One scenario per run, since the
 * backend is chosen once per process (test/gpu-fake.sh runs them all):
 *
 *   other-device  PORTSORT_CUDA_DEVICE=1: host sorts create no context on
 *                 GPU 0, leave a fresh thread with no context and a thread
 *                 of the application on its own device.
 *   current       no PORTSORT_CUDA_DEVICE: an application on GPU 1 sorts
 *                 on GPU 1; the device API runs on whatever device is
 *                 current at each call.
 *   no-image      GPU 0 has no kernel image: the device API refuses there
 *                 with the reason, data untouched, and still works on 1.
 *   fault         a kernel faults: that sort and every later one fail with
 *                 PS_ERR_DEVICE ("device lost"), data untouched; the
 *                 backend is reported unusable; the device API refuses.
 *   fault-auto    the same under PORTSORT_BACKEND=auto: later sorts run on
 *                 the CPU and are correct.
 *   no-entry      PORTSORT_CUDA_DEVICE=1 and no driver entry points
 *                 (PS_FAKE_NO_ENTRY_POINTS=1): switching a thread that
 *                 never chose a device to GPU 1 and back through
 *                 cudaSetDevice would create a context on GPU 0, so the
 *                 backend refuses there, saying what to do, and no context
 *                 appears on GPU 0: at ps_init on such a thread; with
 *                 "chosen", the main thread chose GPU 1 and sorts, and a
 *                 fresh thread's sort is refused with its keys untouched.
 *   launch-limit  PS_FAKE_MAX_ITEMS=1280 (HIP's 2^32 - 1 work-items a
 *                 launch, scaled down: 5 work-groups): a segmented sort
 *                 whose medium segments need more is refused with
 *                 PS_ERR_TOO_LARGE before its small ones are sorted;
 *                 one within the limit sorts.
 *   alloc         the device API's own scratch: an error the application
 *                 left pending (cudaGetLastError's) is still there after
 *                 a sort; with PS_FAKE_POOL_FAILS=1 (pools reported, the
 *                 pool cannot grow) the scratch comes from plain
 *                 allocation and the sort succeeds, leaving no error.
 *
 * The stand-in's hooks are found with dlsym in the module the library
 * loaded (dlopen of the same file returns it).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portsort.h"
#include "portsort_cuda.h"
#include "ps_test_util.h"

#define N 5000

static struct {
    unsigned (*contexts)(void);
    int (*thread_context)(void);
    int (*last_launch)(void);
    int (*set_device)(int);
    void (*set_last_error)(int);
    int (*get_last_error)(void);
    long (*async_failures)(void);
} fake;

static void load_fake(void)
{
    const char *dir = getenv("PORTSORT_MODULE_PATH");
    char path[4096];
    void *h;
    snprintf(path, sizeof path, "%s/ps_cuda.so", dir ? dir : ".");
    /* The library's own dlopen of the same file will return this handle. */
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        t_fail("cannot load the stand-in module %s: %s", path, dlerror());
    *(void **)&fake.contexts = dlsym(h, "ps_fake_contexts");
    *(void **)&fake.thread_context = dlsym(h, "ps_fake_thread_context");
    *(void **)&fake.last_launch = dlsym(h, "ps_fake_last_launch_device");
    *(void **)&fake.set_device = dlsym(h, "psfakeSetDevice");
    *(void **)&fake.set_last_error = dlsym(h, "ps_fake_set_last_error");
    *(void **)&fake.get_last_error = dlsym(h, "psfakeGetLastError");
    *(void **)&fake.async_failures = dlsym(h, "ps_fake_async_failures");
    if (!fake.contexts || !fake.thread_context || !fake.last_launch || !fake.set_device
        || !fake.set_last_error || !fake.get_last_error || !fake.async_failures)
        t_fail("%s is not the CPU stand-in (no ps_fake_* hooks)", path);
}

static void fill(uint32_t *k, size_t n, uint64_t seed)
{
    size_t i;
    for (i = 0; i < n; i++)
        k[i] = (uint32_t)t_rand(&seed);
}

static void expect_sorted(const uint32_t *k, size_t n, const char *what)
{
    size_t i;
    for (i = 1; i < n; i++)
        if (k[i - 1] > k[i])
            t_fail("%s: keys %zu and %zu out of order", what, i - 1, i);
}

/* A host-array sort that must succeed. */
static void host_sort(const char *what)
{
    static uint32_t k[N];
    int st;
    fill(k, N, 7);
    st = ps_sort_keys(k, N, PS_U32, 0);
    if (st != PS_OK)
        t_fail("%s: ps_sort_keys: %s: %s", what, ps_strerror(st), ps_error_detail());
    expect_sorted(k, N, what);
}

static void expect_contexts(unsigned want, const char *what)
{
    if (fake.contexts() != want)
        t_fail("%s: primary contexts on devices 0x%x, expected 0x%x", what,
               fake.contexts(), want);
}

static void expect_thread(int want, const char *what)
{
    if (fake.thread_context() != want)
        t_fail("%s: the thread's current context is on device %d, expected %d "
               "(-1: none)", what, fake.thread_context(), want);
}

static void *app_thread_on_0(void *arg)
{
    (void)arg;
    if (fake.set_device(0) != 0)
        t_fail("psfakeSetDevice(0) failed");
    host_sort("a thread of the application on GPU 0");
    expect_thread(0, "after a sort, a thread on GPU 0");
    return NULL;
}

static void other_device(void)
{
    pthread_t th;
    host_sort("PORTSORT_CUDA_DEVICE=1, fresh thread");
    expect_contexts(0x2, "PORTSORT_CUDA_DEVICE=1");
    expect_thread(-1, "after a sort, a thread that never chose a device");
    if (fake.last_launch() != 1)
        t_fail("kernels ran on device %d, not 1", fake.last_launch());
    if (pthread_create(&th, NULL, app_thread_on_0, NULL) != 0)
        t_fail("pthread_create failed");
    pthread_join(th, NULL);
    if (fake.last_launch() != 1)
        t_fail("a thread on GPU 0: kernels ran on device %d, not 1",
               fake.last_launch());
}

/* A device-API sort of "device" memory (host memory, on the stand-in). */
static int device_sort(uint32_t *k, size_t n)
{
    return ps_cuda_sort_keys(k, n, PS_U32, 0, NULL, 0, NULL);
}

static void current(void)
{
    static uint32_t k[N];
    int st;
    host_sort("an application on GPU 1");
    expect_contexts(0x2, "an application on GPU 1, host sort");
    expect_thread(1, "after a sort, the application's thread");
    if (fake.last_launch() != 1)
        t_fail("host sort: kernels ran on device %d, not 1", fake.last_launch());
    if (fake.set_device(0) != 0)
        t_fail("psfakeSetDevice(0) failed");
    fill(k, N, 11);
    st = device_sort(k, N);
    if (st != PS_OK)
        t_fail("device API on GPU 0: %s: %s", ps_strerror(st), ps_error_detail());
    expect_sorted(k, N, "device API on GPU 0");
    if (fake.last_launch() != 0)
        t_fail("device API: kernels ran on device %d, not the current 0",
               fake.last_launch());
    expect_thread(0, "after a device-API sort");
}

static void no_image(void)
{
    static uint32_t k[N], copy[N];
    int st;
    host_sort("an application on GPU 1, GPU 0 without an image");
    fake.set_device(0);
    fill(k, N, 13);
    memcpy(copy, k, sizeof k);
    st = device_sort(k, N);
    if (st != PS_ERR_DEVICE || strstr(ps_error_detail(), "no kernel image for GPU 0") == NULL)
        t_fail("device API on a GPU without an image: got %s: %s, expected "
               "PS_ERR_DEVICE naming the missing image", ps_strerror(st),
               ps_error_detail());
    if (memcmp(k, copy, sizeof k) != 0)
        t_fail("the refused call changed the keys");
    fake.set_device(1);
    st = device_sort(k, N);
    if (st != PS_OK)
        t_fail("device API back on GPU 1: %s: %s", ps_strerror(st), ps_error_detail());
    expect_sorted(k, N, "device API back on GPU 1");
}

static void expect_no_context_on_0(const char *what)
{
    if (fake.contexts() & 1u)
        t_fail("%s: a context was created on GPU 0 (contexts 0x%x)", what,
               fake.contexts());
}

/* Before t_init_or_skip: the backend's own start on a thread that never
 * chose a device. */
static void no_entry_init(void)
{
    int st = ps_init();
    if (st != PS_ERR_BACKEND_UNAVAILABLE
        || strstr(ps_error_detail(), "cudaSetDevice(1)") == NULL)
        t_fail("no entry points, ps_init on a thread that never chose a device: "
               "got %s: %s, expected PS_ERR_BACKEND_UNAVAILABLE saying to call "
               "cudaSetDevice(1)", ps_strerror(st), ps_error_detail());
    printf("refused at init: %s\n", ps_error_detail());
    expect_no_context_on_0("no entry points, ps_init");
}

static void *no_entry_fresh(void *arg)
{
    static uint32_t k[N], copy[N];
    int st;
    (void)arg;
    fill(k, N, 23);
    memcpy(copy, k, sizeof k);
    memcpy(copy, k, sizeof k);
    st = ps_sort_keys(k, N, PS_U32, 0);
    if (st != PS_ERR_DEVICE || strstr(ps_error_detail(), "cudaSetDevice(1)") == NULL)
        t_fail("no entry points, a thread that never chose a device: got %s: %s, "
               "expected PS_ERR_DEVICE saying to call cudaSetDevice(1)",
               ps_strerror(st), ps_error_detail());
    if (memcmp(k, copy, sizeof k) != 0)
        t_fail("the refused sort changed the keys");
    printf("refused on a fresh thread: %s\n", ps_error_detail());
    expect_thread(-1, "after the refusal, a thread that never chose a device");
    return NULL;
}

static void no_entry_chosen(void)
{
    pthread_t th;
    host_sort("no entry points, the main thread on GPU 1");
    if (pthread_create(&th, NULL, no_entry_fresh, NULL) != 0)
        t_fail("pthread_create failed");
    pthread_join(th, NULL);
    expect_no_context_on_0("no entry points, a fresh thread");
}

static void launch_limit(void)
{
    /* Three small segments (one window, which fits) before eight medium
     * ones of 300 keys (eight work-groups, which do not): the check must
     * come before the small ones are sorted, or the refusal would leave
     * them changed. */
    enum { SMALL = 3, MEDIUM = 8, NSEG = SMALL + MEDIUM,
           NKEYS = SMALL * 50 + MEDIUM * 300 };
    static uint32_t k[NKEYS], copy[NKEYS];
    size_t offs[NSEG + 1], i;
    int st;
    for (i = 0; i <= NSEG; i++)
        offs[i] = i <= SMALL ? i * 50 : SMALL * 50 + (i - SMALL) * 300;
    fill(k, NKEYS, 29);
    memcpy(copy, k, sizeof k);
    st = ps_cuda_sort_segments(k, NULL, 0, NKEYS, offs, NSEG, PS_U32, 0, NULL, 0, NULL);
    if (st != PS_ERR_TOO_LARGE || strstr(ps_error_detail(), "in parts") == NULL)
        t_fail("a segmented sort past the launch limit: got %s: %s, expected "
               "PS_ERR_TOO_LARGE saying to sort in parts", ps_strerror(st),
               ps_error_detail());
    if (memcmp(k, copy, sizeof k) != 0)
        t_fail("the refused segmented sort changed the keys");
    printf("refused: %s\n", ps_error_detail());
    /* The small ones and four medium ones: within the limit. */
    st = ps_cuda_sort_segments(k, NULL, 0, offs[SMALL + 4], offs, SMALL + 4, PS_U32, 0,
                               NULL, 0, NULL);
    if (st != PS_OK)
        t_fail("segments within the limit: %s: %s", ps_strerror(st), ps_error_detail());
    for (i = 0; i < SMALL + 4; i++)
        expect_sorted(k + offs[i], offs[i + 1] - offs[i], "a segment within the limit");
}

static void alloc(void)
{
    static uint32_t k[N];
    const int pending = 719;    /* cudaErrorLaunchFailure: the application's */
    int pool_fails = getenv("PS_FAKE_POOL_FAILS") != NULL, st, last;
    long refused = fake.async_failures();

    if (!pool_fails)
        fake.set_last_error(pending);
    fill(k, N, 19);
    st = device_sort(k, N);
    if (st != PS_OK)
        t_fail("device API%s: %s: %s", pool_fails ? " with a pool that cannot grow" : "",
               ps_strerror(st), ps_error_detail());
    expect_sorted(k, N, "device API, its own scratch");
    last = fake.get_last_error();
    if (pool_fails) {
        if (fake.async_failures() == refused)
            t_fail("PS_FAKE_POOL_FAILS=1: no stream-ordered allocation was tried");
        if (last != 0)
            t_fail("the refused stream-ordered allocation left error %d behind", last);
        printf("a pool that cannot grow: the scratch came from plain allocation\n");
    } else if (last != pending) {
        t_fail("the application's pending error %d was cleared by the sort "
               "(the last error is now %d)", pending, last);
    }
}

static void expect_lost(int st, const char *what)
{
    if (st != PS_ERR_DEVICE || strstr(ps_error_detail(), "lost") == NULL)
        t_fail("%s: got %s: %s, expected PS_ERR_DEVICE saying the device is "
               "lost", what, ps_strerror(st), ps_error_detail());
}

static void fault(int is_auto)
{
    static uint32_t k[N], copy[N];
    ps_backend_info info[8];
    size_t i, nb;
    int st;

    fill(k, N, 17);
    memcpy(copy, k, sizeof k);
    st = ps_sort_keys(k, N, PS_U32, 0);     /* PS_FAKE_FAULT_LAUNCH hits it */
    if (st != PS_ERR_DEVICE)
        t_fail("the faulting sort: got %s, expected PS_ERR_DEVICE", ps_strerror(st));
    if (memcmp(k, copy, sizeof k) != 0)
        t_fail("the faulting sort changed the keys");
    printf("faulting sort: %s\n", ps_error_detail());
    nb = ps_backends(info, 8);
    for (i = 0; i < nb && i < 8; i++)
        if (strcmp(info[i].name, "cuda") == 0
            && (info[i].usable || strstr(info[i].detail, "lost") == NULL))
            t_fail("ps_backends: cuda usable=%d (%s) after the fault",
                   info[i].usable, info[i].detail);
    if (ps_device_api("cuda") != NULL || strstr(ps_error_detail(), "lost") == NULL)
        t_fail("ps_device_api(\"cuda\") after the fault: %s", ps_error_detail());
    if (!is_auto) {
        expect_lost(ps_sort_keys(k, N, PS_U32, 0), "a sort after the fault");
        if (memcmp(k, copy, sizeof k) != 0)
            t_fail("a refused sort changed the keys");
        expect_lost(ps_init(), "ps_init after the fault");
        printf("later sort: %s\n", ps_error_detail());
        return;
    }
    host_sort("auto, after the GPU was lost");
    if (strcmp(ps_backend_name(), "openmp") != 0 && strcmp(ps_backend_name(), "serial") != 0)
        t_fail("auto after the loss: backend %s, expected a CPU one", ps_backend_name());
    printf("auto after the loss: sorting on %s\n", ps_backend_name());
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    load_fake();
    /* The application chose GPU 1 before its first sort: the backend,
     * initialised by that sort, must take the thread's device. */
    if ((strcmp(mode, "current") == 0 || strcmp(mode, "no-image") == 0
         || strcmp(mode, "no-entry-chosen") == 0)
        && fake.set_device(1) != 0)
        t_fail("psfakeSetDevice(1) failed");
    if (strcmp(mode, "no-entry") == 0) {
        no_entry_init();
        printf("ps_test_gpu_ctx %s: passed\n", mode);
        return 0;
    }
    t_init_or_skip("ps_test_gpu_ctx");
    if (strcmp(ps_backend_name(), "cuda") != 0)
        t_fail("backend %s, expected the stand-in posing as cuda", ps_backend_name());
    if (strcmp(mode, "other-device") == 0)
        other_device();
    else if (strcmp(mode, "current") == 0)
        current();
    else if (strcmp(mode, "no-image") == 0)
        no_image();
    else if (strcmp(mode, "fault") == 0)
        fault(0);
    else if (strcmp(mode, "fault-auto") == 0)
        fault(1);
    else if (strcmp(mode, "alloc") == 0)
        alloc();
    else if (strcmp(mode, "no-entry-chosen") == 0)
        no_entry_chosen();
    else if (strcmp(mode, "launch-limit") == 0)
        launch_limit();
    else
        t_fail("usage: ps_test_gpu_ctx other-device|current|no-image|fault|fault-auto|"
               "alloc|no-entry|no-entry-chosen|launch-limit");
    printf("ps_test_gpu_ctx %s: passed\n", mode);
    return 0;
}
