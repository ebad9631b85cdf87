/*
 * ps_test_modules - module loading and the backend choice, through the
 * public API.  Each scenario runs in a child process, because the choice is
 * made once per process: the child sets PORTSORT_BACKEND and
 * PORTSORT_MODULE_PATH to a private directory holding a stand-in module
 * under the name ps_cuda.so (or garbage, or nothing), then checks statuses,
 * messages and that refused calls leave data untouched.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ps_test_util.h"

static char stubdir[PATH_MAX];
static char tmpdir[PATH_MAX];
/* The OpenCL module of this build, or "" when it is not built. */
static char opencl_so[PATH_MAX];
/* A variable the next scenario's child sets before its first call. */
static const char *env_var, *env_value;

/* Make the private module directory hold `stub` as ps_<as>.so ("" = empty). */
static void install(const char *stub, const char *as)
{
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/*.so", tmpdir);
    if (system(cmd) != 0)
        t_fail("cannot clean %s", tmpdir);
    if (stub[0] == '\0')
        return;
    if (strcmp(stub, "garbage") == 0) {
        snprintf(cmd, sizeof cmd, "echo 'not a shared object' > '%s/ps_%s.so'",
                 tmpdir, as);
    } else if (strcmp(stub, "fake") == 0) {
        /* The CUDA backend's own host code on the CPU stand-in runtime. */
        snprintf(cmd, sizeof cmd, "cp '%s/ps_gpu_fake.so' '%s/ps_%s.so'", stubdir,
                 tmpdir, as);
    } else if (strcmp(stub, "opencl") == 0) {
        snprintf(cmd, sizeof cmd, "cp '%s' '%s/ps_%s.so'", opencl_so, tmpdir, as);
    } else {
        snprintf(cmd, sizeof cmd, "cp '%s/ps_stub_%s.so' '%s/ps_%s.so'", stubdir,
                 stub, tmpdir, as);
    }
    if (system(cmd) != 0)
        t_fail("cannot run: %s", cmd);
}

static int sorts_correctly(void)
{
    int32_t k[300];
    uint32_t v[300];
    unsigned char w[300 * 3];
    size_t perm[300], i;
    uint64_t s = 7;
    for (i = 0; i < 300; i++) {
        k[i] = (int32_t)(t_rand(&s) % 50) - 25;
        v[i] = (uint32_t)i;
        w[3 * i] = (unsigned char)i;
    }
    if (ps_argsort(k, perm, 300, PS_I32, PS_DESCENDING) != PS_OK)
        return 0;
    for (i = 1; i < 300; i++)
        if (k[perm[i - 1]] < k[perm[i]]
            || (k[perm[i - 1]] == k[perm[i]] && perm[i - 1] > perm[i]))
            return 0;
    if (ps_sort_pairs(k, w, 3, 300, PS_I32, 0) != PS_OK)
        return 0;
    if (ps_sort_pairs(k, v, 4, 300, PS_I32, 0) != PS_OK)
        return 0;
    for (i = 1; i < 300; i++)
        if (k[i - 1] > k[i])
            return 0;
    return 1;
}

/* Every entry point refuses with `want` and changes nothing. */
static void refused(int want, const char *needle)
{
    uint32_t k[64], k0[64], v[64];
    size_t perm[64], perm0[64], i;
    for (i = 0; i < 64; i++)
        k[i] = k0[i] = v[i] = (uint32_t)(64 - i), perm[i] = perm0[i] = 0;
    if (ps_init() != want)
        t_fail("ps_init: expected %s", ps_strerror(want));
    if (needle != NULL && strstr(ps_error_detail(), needle) == NULL)
        t_fail("detail '%s' does not mention '%s'", ps_error_detail(), needle);
    printf("    refused as expected: %s\n", ps_error_detail());
    if (ps_sort_keys(k, 64, PS_U32, 0) != want
        || ps_sort_pairs(k, v, 4, 64, PS_U32, 0) != want
        || ps_argsort(k, perm, 64, PS_U32, 0) != want)
        t_fail("a sort was not refused with %s", ps_strerror(want));
    if (memcmp(k, k0, sizeof k) || memcmp(perm, perm0, sizeof perm))
        t_fail("a refused call changed the data");
    for (i = 0; i < 64; i++)
        if (v[i] != 64 - i)
            t_fail("a refused call changed the values");
    if (strcmp(ps_backend_name(), "none") != 0)
        t_fail("ps_backend_name after refusal is %s", ps_backend_name());
}

typedef void (*scenario)(void);

static void run(const char *title, const char *stub, const char *as,
                const char *backend, scenario body)
{
    pid_t pid;
    int status;
    install(stub, as);
    printf("  %s\n", title);
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        t_fail("fork");
    if (pid == 0) {
        setenv("PORTSORT_MODULE_PATH", tmpdir, 1);
        if (backend)
            setenv("PORTSORT_BACKEND", backend, 1);
        else
            unsetenv("PORTSORT_BACKEND");
        if (env_var != NULL)
            setenv(env_var, env_value, 1);
        body();
        fflush(stdout);
        _exit(0);
    }
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
        t_fail("scenario '%s' failed", title);
}

static void good_named(void)
{
    if (ps_init() != PS_OK || strcmp(ps_backend_name(), "cuda") != 0)
        t_fail("stand-in cuda module not chosen: %s", ps_error_detail());
    if (!sorts_correctly())
        t_fail("sorting through the module is wrong");
}

/* Segments through the chosen backend, sorted; then ps_release_cache and
 * an exit that runs the library's destructor (the module's trim and
 * release), which run() would skip with _exit. */
static void segments_cache_exit(void)
{
    uint32_t k[100];
    size_t off[4] = { 0, 30, 31, 100 }, s, i;
    uint64_t seed = 5;
    for (i = 0; i < 100; i++)
        k[i] = (uint32_t)t_rand(&seed);
    if (ps_sort_segments(k, NULL, 0, 100, off, 3, PS_U32, 0) != PS_OK)
        t_fail("segments through the module: %s", ps_error_detail());
    for (s = 0; s < 3; s++)
        for (i = off[s] + 1; i < off[s + 1]; i++)
            if (k[i - 1] > k[i])
                t_fail("segment %zu unsorted", s);
    if (ps_release_cache() != PS_OK)
        t_fail("ps_release_cache: %s", ps_error_detail());
    fflush(stdout);
    exit(0);
}

/* A module built before every optional member of the table existed (stub
 * mode 4: the shortest table the core takes, whose later members are
 * traps).  The core reads only the part it has: its check_env (which would
 * refuse) is never called, segments take the core's own path, trim and
 * release are not called, and ps_device_api refuses with a reason. */
static void short_table(void)
{
    good_named();
    if (ps_device_api("cuda") != NULL || !strstr(ps_error_detail(), "no device API"))
        t_fail("ps_device_api of a module that predates device_api: '%s'",
               ps_error_detail());
    segments_cache_exit();
}

/* A module built for a later revision of the table (stub mode 5: members
 * past the core's end, each a trap): taken, with every member the core
 * knows, and the rest neither called nor copied over the core's state. */
static void newer_table(void)
{
    const unsigned *api;
    good_named();
    api = ps_device_api("cuda");
    if (api == NULL || api[0] != 0x50535441u)
        t_fail("ps_device_api of a newer module: %s", ps_error_detail());
    segments_cache_exit();
}

static void too_short(void)
{
    refused(PS_ERR_BACKEND_UNAVAILABLE, "shorter than");
    if (ps_init() != PS_ERR_BACKEND_UNAVAILABLE
        || strstr(ps_error_detail(), "rebuild") == NULL)
        t_fail("the refusal does not say what to do: '%s'", ps_error_detail());
}

/* ps_device_api hands out the module's table, whatever PORTSORT_BACKEND
 * chose, and refuses backends without one with a reason. */
static void device_api(void)
{
    const unsigned *api = ps_device_api("cuda");
    if (api == NULL || api[0] != 0x50535441u)
        t_fail("ps_device_api(cuda) did not return the module's table: %s",
               ps_error_detail());
    if (strcmp(ps_backend_name(), "serial") != 0)
        t_fail("ps_device_api changed the chosen backend to %s", ps_backend_name());
    if (!sorts_correctly())
        t_fail("serial sorting beside an initialised module is wrong");
    if (ps_device_api("serial") != NULL || !strstr(ps_error_detail(), "no device API"))
        t_fail("ps_device_api(serial): expected no device API");
    if (ps_device_api("hip") != NULL || !strstr(ps_error_detail(), "not found"))
        t_fail("ps_device_api(hip): expected module not found");
    if (ps_device_api("bogus") != NULL || ps_device_api(NULL) != NULL)
        t_fail("ps_device_api accepted an unknown name");
}

static void device_api_nodevice(void)
{
    if (ps_device_api("cuda") != NULL || !strstr(ps_error_detail(), "no CUDA device"))
        t_fail("ps_device_api on a module without device: '%s'", ps_error_detail());
}

static void good_auto(void)
{
    ps_backend_info info[8];
    size_t c = ps_backends(info, 8), i, serial = 0;
    if (strcmp(ps_backend_name(), "cuda") != 0)
        t_fail("auto did not prefer the GPU module: %s", ps_backend_name());
    /* Listed from the highest priority down: the stand-in GPU (300) first,
     * serial (10) after every other loaded backend. */
    if (c == 0 || strcmp(info[0].name, "cuda") != 0
        || !(info[0].built && info[0].usable && info[0].gpu))
        t_fail("ps_backends does not list the module first, as a usable GPU");
    for (i = 0; i < c && i < 8; i++)
        if (strcmp(info[i].name, "serial") == 0)
            serial = i;
    for (i = serial + 1; i < c && i < 8; i++)
        if (info[i].built)
            t_fail("ps_backends lists %s (loaded) after serial", info[i].name);
}

/* A module file that does not load is built but unusable, with the reason:
 * not confused with an absent one. */
static void garbage_listed(void)
{
    ps_backend_info info[8];
    size_t c = ps_backends(info, 8), i;
    for (i = 0; i < c && i < 8; i++)
        if (strcmp(info[i].name, "cuda") == 0) {
            if (!info[i].built || info[i].usable
                || strstr(info[i].detail, "cannot load") == NULL)
                t_fail("a broken module listed as built %d, usable %d: '%s'",
                       info[i].built, info[i].usable, info[i].detail);
            return;
        }
    t_fail("ps_backends does not list the broken cuda module");
}

/* An absent module is listed as not built. */
static void missing_listed(void)
{
    ps_backend_info info[8];
    size_t c = ps_backends(info, 8), i;
    for (i = 0; i < c && i < 8; i++)
        if (strcmp(info[i].name, "cuda") == 0 && (info[i].built || info[i].usable))
            t_fail("an absent module listed as built");
}

static void bad_abi(void) { refused(PS_ERR_BACKEND_UNAVAILABLE, "ABI"); }
static void missing(void) { refused(PS_ERR_BACKEND_UNAVAILABLE, "not found"); }
static void no_device(void) { refused(PS_ERR_BACKEND_UNAVAILABLE, "no CUDA device"); }
static void garbage(void) { refused(PS_ERR_BACKEND_UNAVAILABLE, "cannot load"); }
static void nonsense(void) { refused(PS_ERR_BACKEND_UNAVAILABLE, "unknown backend"); }

static void auto_skips_broken(void)
{
    if (ps_init() != PS_OK)
        t_fail("auto failed with a broken module present: %s", ps_error_detail());
    if (strcmp(ps_backend_name(), "cuda") == 0)
        t_fail("auto chose the broken module");
    if (!sorts_correctly())
        t_fail("the CPU backend chosen by auto sorts wrongly");
}

static void failing(void)
{
    uint64_t k[100], k0[100], v[100];
    size_t i;
    if (ps_init() != PS_OK)
        t_fail("failing module not chosen");
    for (i = 0; i < 100; i++)
        k[i] = k0[i] = 100 - i, v[i] = i;
    if (ps_sort_pairs(k, v, 8, 100, PS_U64, 0) != PS_ERR_DEVICE)
        t_fail("device failure not reported");
    if (strstr(ps_error_detail(), "simulated") == NULL)
        t_fail("module's message lost: '%s'", ps_error_detail());
    for (i = 0; i < 100; i++)
        if (k[i] != k0[i] || v[i] != i)
            t_fail("data changed by a failed sort");
    /* The fallback path (value size 5) must report it the same way. */
    if (ps_sort_pairs(k, v, 5, 100, PS_U64, 0) != PS_ERR_DEVICE
        || memcmp(k, k0, sizeof k) != 0)
        t_fail("indirect pairs: device failure not reported or data changed");
}

/* The crossover of `auto`: with PORTSORT_GPU_MIN_N=1000, host arrays of
 * fewer keys go to the CPU (the failing stand-in GPU is not even called),
 * larger ones to the GPU module; a named backend gets every size. */
static void crossover(void)
{
    uint32_t k[2000];
    size_t i;
    int named = getenv("PORTSORT_BACKEND") != NULL;
    for (i = 0; i < 2000; i++)
        k[i] = (uint32_t)(2000 - i);
    setenv("PORTSORT_GPU_MIN_N", "1000", 1);
    if (ps_init() != PS_OK || strcmp(ps_backend_name(), "cuda") != 0)
        t_fail("crossover: stand-in cuda not chosen: %s", ps_error_detail());
    if (ps_sort_keys(k, 999, PS_U32, 0) != (named ? PS_ERR_DEVICE : PS_OK))
        t_fail("crossover: 999 keys %s the GPU module", named ? "avoided" : "went to");
    if (!named && (k[0] != 1002 || k[998] != 2000))
        t_fail("crossover: the CPU backend sorted wrongly");
    if (ps_sort_keys(k, 2000, PS_U32, 0) != PS_ERR_DEVICE)
        t_fail("crossover: 2000 keys did not go to the GPU module");
}

/* A malformed variable (env_var=env_value) fails ps_init and every sort
 * with PS_ERR_INVALID_ARG, whichever backend it belongs to and whichever
 * is chosen, the detail naming the variable, its value and what is
 * accepted; the library prints nothing (PORTSORT_VERBOSE=no included). */
static void env_refused(void)
{
    FILE *err = tmpfile();
    int saved = dup(2), st;
    if (err == NULL || saved < 0 || dup2(fileno(err), 2) < 0)
        t_fail("cannot redirect stderr");
    st = ps_init();
    fflush(stderr);
    if (dup2(saved, 2) < 0)
        t_fail("cannot restore stderr");
    if (lseek(fileno(err), 0, SEEK_END) != 0)
        t_fail("the library printed while refusing %s=%s", env_var, env_value);
    if (st != PS_ERR_INVALID_ARG)
        t_fail("ps_init returned %s: %s", ps_strerror(st), ps_error_detail());
    refused(PS_ERR_INVALID_ARG, env_var);
    if (strstr(ps_error_detail(), env_value) == NULL
        || strstr(ps_error_detail(), "accepted") == NULL)
        t_fail("detail '%s' does not give the value '%s' and what is accepted",
               ps_error_detail(), env_value);
}

static void env_accepted(void)
{
    if (ps_init() != PS_OK)
        t_fail("%s=%s refused: %s", env_var, env_value, ps_error_detail());
    if (!sorts_correctly())
        t_fail("%s=%s: wrong sort", env_var, env_value);
}

/* ps_backends lists the backend whose variable is malformed as unusable,
 * saying why, and never probes it. */
static void env_listed(void)
{
    ps_backend_info info[16];
    size_t c = ps_backends(info, 16), i;
    for (i = 0; i < c && i < 16; i++)
        if (strcmp(info[i].name, "openmp") == 0 && info[i].built) {
            if (info[i].usable || strstr(info[i].detail, env_var) == NULL)
                t_fail("openmp listed usable %d, '%s'", info[i].usable,
                       info[i].detail);
            return;
        }
    printf("    openmp not built: listing not checked\n");
}

/* ps_backends(NULL, max > 0) writes nothing, counts, and says why. */
static void backends_null(void)
{
    ps_backend_info one;
    size_t c = ps_backends(NULL, 5);
    if (c == 0 || c != ps_backends(&one, 1))
        t_fail("ps_backends(NULL, 5) returned %zu", c);
    c = ps_backends(NULL, 5);
    if (strstr(ps_error_detail(), "NULL") == NULL)
        t_fail("ps_backends(NULL, 5): detail '%s'", ps_error_detail());
    if (ps_backends(NULL, 0) != c)
        t_fail("ps_backends(NULL, 0) is not the count");
}

/* A relative PORTSORT_MODULE_PATH entry is not searched, even when the
 * current directory holds the module, and the reason says so. */
static void relative_path(void)
{
    if (chdir(tmpdir) != 0)
        t_fail("chdir %s", tmpdir);
    setenv("PORTSORT_MODULE_PATH", ".:mods", 1);
    refused(PS_ERR_BACKEND_UNAVAILABLE, "absolute");
    if (strstr(ps_error_detail(), "'.'") == NULL)
        t_fail("detail '%s' does not name the relative entry", ps_error_detail());
}

struct env_case {
    const char *module;     /* stand-in to install as ps_<as>.so, or "" */
    const char *as;
    const char *var, *value;
    int ok;                 /* 1: accepted */
};

static const struct env_case env_cases[] = {
    { "", "cuda", "PORTSORT_THREADS", "0", 0 },
    { "", "cuda", "PORTSORT_THREADS", "-1", 0 },
    { "", "cuda", "PORTSORT_THREADS", "abc", 0 },
    { "", "cuda", "PORTSORT_THREADS", "1025", 0 },
    { "", "cuda", "PORTSORT_THREADS", " 4", 0 },
    { "", "cuda", "PORTSORT_THREADS", "4x", 0 },
    { "", "cuda", "PORTSORT_THREADS", "99999999999999999999999", 0 },
    { "", "cuda", "PORTSORT_THREADS", "3", 1 },
    { "", "cuda", "PORTSORT_THREADS", "1024", 1 },
    { "", "cuda", "PORTSORT_THREADS", "", 1 },
    { "", "cuda", "PORTSORT_OPENMP_SIMD", "bogus", 0 },
    { "", "cuda", "PORTSORT_OPENMP_SIMD", "AVX2", 0 },
    { "", "cuda", "PORTSORT_OPENMP_SIMD", "none", 1 },
    { "", "cuda", "PORTSORT_OPENMP_SIMD", "avx512", 1 },
    { "", "cuda", "PORTSORT_VERBOSE", "no", 0 },
    { "", "cuda", "PORTSORT_VERBOSE", "yes", 0 },
    { "", "cuda", "PORTSORT_VERBOSE", "2", 0 },
    { "", "cuda", "PORTSORT_VERBOSE", "0", 1 },
    { "", "cuda", "PORTSORT_VERBOSE", "", 1 },
    { "", "cuda", "PORTSORT_GPU_MIN_N", "abc", 0 },
    { "", "cuda", "PORTSORT_GPU_MIN_N", "-5", 0 },
    { "", "cuda", "PORTSORT_GPU_MIN_N", "1e3", 0 },
    { "", "cuda", "PORTSORT_GPU_MIN_N", "1000", 1 },
    { "fake", "cuda", "PORTSORT_GPU_ALGO", "other", 0 },
    { "fake", "cuda", "PORTSORT_GPU_ALGO", "portable", 1 },
    { "fake", "cuda", "PORTSORT_CUDA_DEVICE", "abc", 0 },
    { "fake", "cuda", "PORTSORT_CUDA_DEVICE", "-1", 0 },
    { "fake", "cuda", "PORTSORT_CUDA_DEVICE", "0", 1 },
    { "opencl", "opencl", "PORTSORT_OPENCL_ALGO", "other", 0 },
    { "opencl", "opencl", "PORTSORT_OPENCL_ALGO", "portable", 1 },
    { "opencl", "opencl", "PORTSORT_OPENCL_TUNE", "garbage", 0 },
    { "opencl", "opencl", "PORTSORT_OPENCL_TUNE", "wg=64,bits=9", 0 },
    { "opencl", "opencl", "PORTSORT_OPENCL_TUNE", "wg=64,wg=32", 0 },
    { "opencl", "opencl", "PORTSORT_OPENCL_TUNE", "wg=0", 0 },
    { "opencl", "opencl", "PORTSORT_OPENCL_TUNE", "wg=64,", 0 },
    { "opencl", "opencl", "PORTSORT_OPENCL_TUNE", "wg=64;items=2", 0 },
    { "opencl", "opencl", "PORTSORT_OPENCL_TUNE", "speed=3", 0 },
    { "opencl", "opencl", "PORTSORT_OPENCL_TUNE",
      "wg=64,items=4,bits=4,blocks=5,portion=3,seg=32,huge=300", 1 },
};

/* Every case on the serial backend (the variables of the others are
 * checked all the same), the refusals under auto too. */
static void env_scenarios(void)
{
    size_t i;
    char title[256];
    for (i = 0; i < sizeof env_cases / sizeof env_cases[0]; i++) {
        const struct env_case *e = &env_cases[i];
        int b;
        if (strcmp(e->module, "opencl") == 0 && opencl_so[0] == '\0') {
            printf("  %s=%s: OpenCL module not built: skipped\n", e->var, e->value);
            continue;
        }
        if (strcmp(e->module, "fake") == 0) {
            char so[PATH_MAX + 32];
            snprintf(so, sizeof so, "%s/ps_gpu_fake.so", stubdir);
            if (access(so, R_OK) != 0) {
                printf("  %s=%s: no CUDA stand-in: skipped\n", e->var, e->value);
                continue;
            }
        }
        env_var = e->var;
        env_value = e->value;
        for (b = 0; b < (e->ok ? 1 : 2); b++) {
            snprintf(title, sizeof title, "%s=%s, PORTSORT_BACKEND=%s: %s", e->var,
                     e->value, b ? "auto" : "serial", e->ok ? "accepted" : "refused");
            run(title, e->module, e->as, b ? "auto" : "serial",
                e->ok ? env_accepted : env_refused);
        }
    }
    env_var = "PORTSORT_THREADS";
    env_value = "abc";
    run("PORTSORT_THREADS=abc: openmp listed unusable", "", "cuda", "serial",
        env_listed);
    env_var = env_value = NULL;
}

int main(void)
{
    const char *b = getenv("top_builddir");
    char path[PATH_MAX], probe[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/test/.libs", b ? b : ".");
    if (realpath(path, stubdir) == NULL) {
        printf("SKIP: no stand-in modules in %s (shared libraries disabled?)\n", path);
        return PS_TEST_SKIP;
    }
    snprintf(probe, sizeof probe, "%s/ps_stub_good.so", stubdir);
    if (access(probe, R_OK) != 0) {
        printf("SKIP: %s not built (shared libraries disabled?)\n", probe);
        return PS_TEST_SKIP;
    }
    snprintf(path, sizeof path, "%s/backends/opencl/.libs/ps_opencl.so", b ? b : ".");
    if (realpath(path, opencl_so) == NULL)
        opencl_so[0] = '\0';
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ps_test_modules.XXXXXX");
    if (mkdtemp(tmpdir) == NULL)
        t_fail("mkdtemp");

    run("a working module, named", "good", "cuda", "cuda", good_named);
    run("a working GPU module, auto", "good", "cuda", NULL, good_auto);
    run("a working GPU module, auto spelled out", "good", "cuda", "auto", good_auto);
    run("device API of a module, serial chosen", "good", "cuda", "serial", device_api);
    run("device API of a module without device", "nodevice", "cuda", NULL,
        device_api_nodevice);
    run("an ops table older than the core's", "short", "cuda", "cuda", short_table);
    run("an ops table newer than the core's", "newer", "cuda", "cuda", newer_table);
    run("an ops table too short, named", "tooshort", "cuda", "cuda", too_short);
    run("an ops table too short, auto", "tooshort", "cuda", "auto", auto_skips_broken);
    run("wrong ABI, named", "badabi", "cuda", "cuda", bad_abi);
    run("wrong ABI, auto", "badabi", "cuda", "auto", auto_skips_broken);
    run("missing module, named", "", "cuda", "cuda", missing);
    run("missing hip module, named", "", "hip", "hip", missing);
    run("no device, named", "nodevice", "cuda", "cuda", no_device);
    run("no device, auto", "nodevice", "cuda", NULL, auto_skips_broken);
    run("not a shared object, named", "garbage", "cuda", "cuda", garbage);
    run("not a shared object, auto", "garbage", "cuda", NULL, auto_skips_broken);
    run("not a shared object, listed", "garbage", "cuda", NULL, garbage_listed);
    run("missing module, listed", "", "cuda", NULL, missing_listed);
    run("failing in the middle of a sort", "failing", "cuda", "cuda", failing);
    run("auto: small arrays to the CPU", "failing", "cuda", NULL, crossover);
    run("named: every size to the GPU", "failing", "cuda", "cuda", crossover);
    run("unknown backend name", "good", "cuda", "nonsense", nonsense);
    run("empty module path entry", "", "cuda", NULL, auto_skips_broken);
    run("relative module path entries", "good", "cuda", "cuda", relative_path);
    run("ps_backends(NULL, 5)", "", "cuda", NULL, backends_null);
    env_scenarios();

    install("", "cuda");
    rmdir(tmpdir);
    printf("ps_test_modules: passed\n");
    return 0;
}
