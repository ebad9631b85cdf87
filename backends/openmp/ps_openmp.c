/*
 * ps_openmp.c - the OpenMP backend: a parallel radix sort on the host CPU.
 *
 * The algorithm (doc/results-openmp.md has the longer story):
 *  - one read finds which bits of the keys vary at all (OR and AND of every
 *    key's order image) and counts the first MSD digit; bits that are the
 *    same in every key are never sorted on;
 *  - while a range is larger than the caches, a stable MSD pass splits it
 *    by its top remaining digit, every thread scattering its own slice
 *    through write-combining line buffers with streaming stores;
 *  - once a bucket fits in cache, one thread finishes it with LSD passes
 *    that run in cache, so the data crosses DRAM about twice instead of
 *    once per digit.
 * Keys keep their bits; digits come from the order image computed on the
 * fly, so signed, float and descending cost nothing extra.
 *
 * This file holds the backend's ops table, its settings read from the
 * environment (the threads of a sort, the sorting networks it may use)
 * and the sort of one array: a plan (ps_openmp_plan.c), a block of
 * scratch from the cache (ps_openmp_scratch.c), and the sort itself,
 * ps_omp_sort (ps_openmp_msd.c) over the kernels of ps_openmp_kernels.c.
 * The segmented sort is ps_openmp_segments.c.  ps_openmp_sort.h shows
 * the layers, ps_openmp_plan.h what this layer's files share.
 * Everything is allocated before the caller's arrays are written.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ps_inplace.h"
#include "ps_openmp_net.h"
#include "ps_openmp_plan.h"

/* The most threads a sort uses (PORTSORT_THREADS accepts up to this). */
#define PS_THREADS_MAX PS_TEAM_MAX

/* ---- the settings: threads and networks ------------------------------ */

/* The threads of a sort: PORTSORT_THREADS, else OMP_NUM_THREADS (its first
 * number, as OpenMP reads it: programs set it for every parallel library
 * they use), else the CPUs this process may use (ps_team_cpus: its
 * affinity and its cgroup's quota).  Read once, at init; check_env has
 * refused a malformed PORTSORT_THREADS before (a value set later is
 * ignored).  OMP_NUM_THREADS is OpenMP's, not ours to refuse: a value that
 * does not start with a number from 1 up is ignored. */
static int threads_parse(int *out, char *why, size_t why_len)
{
    unsigned long long v;
    int r = ps_env_number("PORTSORT_THREADS", 1, PS_THREADS_MAX, &v, why, why_len);
    if (r == 1)
        *out = (int)v;
    return r;
}

static int threads_wanted(void)
{
    char why[160];
    int t = 0;
    const char *omp = ps_getenv_set("OMP_NUM_THREADS");
    if (threads_parse(&t, why, sizeof why) == 1)
        return t;
    if (omp != NULL) {
        char *end;
        long v = strtol(omp, &end, 10);
        if (end != omp && (*end == '\0' || *end == ',') && v >= 1)
            return v < PS_THREADS_MAX ? (int)v : PS_THREADS_MAX;
    }
    return ps_team_cpus();
}

static void openmp_probe(ps_probe *out)
{
    int t = threads_wanted();
    out->usable = 1;
    out->gpu = 0;
    snprintf(out->detail, sizeof out->detail, "host CPU, %d thread%s", t,
             t == 1 ? "" : "s");
}

/* Which sorting networks the sorts may use (ps_omp_nets): the best the CPU
 * runs, or less when PORTSORT_OPENMP_SIMD says so (`avx2` or `none`; the
 * tests use it to run every path on one machine).  Read once, at init. */
static const char *const net_isa_names[] = { "none", "avx2", "avx512", NULL };

static int net_parse(int *out, char *why, size_t why_len)
{
    return ps_env_word("PORTSORT_OPENMP_SIMD", net_isa_names, "avx512, avx2 or none",
                       out, why, why_len);
}

static int net_wanted(void)
{
#if defined(PS_HAVE_AVX512_TARGET)
    char why[160];
    int have = ps_omp_net_isa(), want = have;
    net_parse(&want, why, sizeof why);
    return want < have ? want : have;
#else
    return PS_NET_NONE;
#endif
}

/* Both variables, at the choice of backend (ps_backend_ops.check_env):
 * refused whatever the CPU or the build supports, so that a script's value
 * means the same everywhere. */
static int openmp_check_env(char *why, size_t why_len)
{
    int t, isa;
    return threads_parse(&t, why, why_len) < 0 || net_parse(&isa, why, why_len) < 0
           ? -1 : 0;
}

/* ---- the ops ---------------------------------------------------------- */

static int openmp_init(const ps_host *h, void **state)
{
    ps_omp_host = h;
    ps_omp_threads = threads_wanted();
    ps_omp_nets = net_wanted();
    h->log("openmp: %d threads, leaf networks: %s", ps_omp_threads,
           net_isa_names[ps_omp_nets]);
    *state = NULL;
    return PS_OK;
}

/* Jobs on the team's members (ps_inplace_run, and run_jobs below). */
typedef struct jobs_call {
    void (*job)(void *ctx, size_t i);
    void *ctx;
} jobs_call;

static void jobs_item(void *arg, int member, size_t i)
{
    const jobs_call *c = arg;
    (void)member;
    c->job(c->ctx, i);
}

static void team_jobs(void *team, size_t jobs,
                      void (*job)(void *ctx, size_t i), void *ctx)
{
    jobs_call c = { job, ctx };
    ps_team_for(team, jobs, jobs_item, &c);
}

/* One array: keys alone (values NULL) or pairs.  Keys alone whose scratch
 * cannot be had (no memory, or the memory limit) are sorted in place
 * (reference/ps_inplace.h), slower but without allocating; pairs fail
 * with PS_ERR_NO_MEMORY, as an in-place radix sort of them would not be
 * stable, and the core then sorts them in pieces that fit and merges them
 * (lib/ps_pieces.c, through this backend's segmented sort). */
static int openmp_sort(void *keys, void *values, size_t vs, size_t n,
                       ps_type type, unsigned flags)
{
    ps_omp_ctx c;
    size_t bytes;
    unsigned char *block;
    int from_cache, st = PS_OK;
    ps_team *team;

    if (n <= PS_SMALL_N) {
        ps_omp_kernels_of(ps_type_bytes(type))->insert(keys, values, vs, n,
                                                       ps_xf_make(type, flags));
        return PS_OK;
    }
    if (values == NULL && ps_omp_small_net(keys, n, type, flags))
        return PS_OK;
    /* The team first: the scratch has an area per member it got. */
    team = n >= PS_PARALLEL_MIN ? ps_omp_team_open() : NULL;
    bytes = ps_omp_plan(&c, keys, values, vs, n, type, flags, team);
    block = bytes != 0 ? ps_omp_host->take(bytes, &from_cache) : NULL;
    if (bytes == 0) {
        ps_omp_host->fail("openmp: %zu elements overflow the scratch size", n);
        st = PS_ERR_TOO_LARGE;
    } else if (block == NULL && values == NULL) {
        ps_omp_host->log("openmp: no scratch of %zu bytes for %zu keys: "
                         "sorting them in place", bytes, n);
        ps_inplace_sort_keys(keys, n, type, flags,
                             team != NULL ? team_jobs : NULL, team);
    } else if (block == NULL) {
        ps_omp_host->fail("openmp: cannot allocate %zu bytes of scratch "
                          "for a stable sort of %zu pairs", bytes, n);
        st = PS_ERR_NO_MEMORY;
    } else {
        ps_omp_run(&c, block);
        ps_omp_host->put(block, from_cache);
    }
    ps_team_close(team);
    return st;
}

static int openmp_sort_keys(void *state, void *keys, size_t n, ps_type type,
                            unsigned flags)
{
    (void)state;
    return openmp_sort(keys, NULL, 0, n, type, flags);
}

static int openmp_sort_pairs(void *state, void *keys, void *values,
                             size_t value_size, size_t n, ps_type type,
                             unsigned flags)
{
    (void)state;
    return openmp_sort(keys, values, value_size, n, type, flags);
}

/* ps_backend_ops.run_jobs: the core's host-side jobs on the same pool and
 * members as the sorts (ps_openmp_team.h), so a busy machine costs them
 * no more than it costs a sort. */
static void openmp_run_jobs(void *state, size_t jobs,
                            void (*job)(void *ctx, size_t i), void *ctx)
{
    ps_team *team = jobs > 1 ? ps_omp_team_open() : NULL;
    (void)state;
    team_jobs(team, jobs, job, ctx);
    ps_team_close(team);
}

/* ps_backend_ops.scratch_bytes: the plan's block for a team of every
 * thread the backend may use (a sort that finds the pool taken runs alone
 * and takes less). */
static size_t openmp_scratch_bytes(void *state, size_t n, size_t vs,
                                   ps_type type, unsigned flags)
{
    size_t bytes;
    (void)state;
    if (n <= PS_SMALL_N)
        return 0;
    bytes = ps_omp_plan_bytes(n, vs, type, flags,
                              ps_omp_threads < PS_TEAM_MAX ? ps_omp_threads
                                                           : PS_TEAM_MAX);
    return bytes != 0 ? bytes : SIZE_MAX;
}

/* The sorts' value-size dispatch (VS_FL in ps_openmp_kernels-inl.h) and their
 * one-value buffers (tmp[8]) know values of 4 and 8 bytes only: the core
 * sends other sizes through its index fallback because of this field. */
#define PS_OPENMP_VALUE_SIZES (PS_VALUE_SIZE_BIT(4) | PS_VALUE_SIZE_BIT(8))

const ps_backend_ops ps_openmp_ops = {
    PS_BACKEND_HEAD,
    .name = "openmp",
    .priority = 20,
    .device = 0,
    .value_sizes = PS_OPENMP_VALUE_SIZES,
    .probe = openmp_probe,
    .init = openmp_init,
    .sort_keys = openmp_sort_keys,
    .sort_pairs = openmp_sort_pairs,
    .device_api = NULL, /* no device API: host memory is its device */
    .sort_segments = ps_omp_sort_segments,
    .check_env = openmp_check_env,
    .run_jobs = openmp_run_jobs,
    .scratch_bytes = openmp_scratch_bytes,
};
