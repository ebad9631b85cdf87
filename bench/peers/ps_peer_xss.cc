/*
 * ps_peer_xss.cc - x86-simd-sort (github.com/intel/x86-simd-sort) as a
 * peer of bench/ps_cpubench (bench/ps_bench_peer.h), for the benchmark
 * only: never part of libportsort.
 *
 * Built once per instruction set by bench/peers/build.sh, from the
 * header-only static interface (src/x86simdsort-static-incl.h), with
 * -DXSS_USE_OPENMP -fopenmp so that its OpenMP paths run for large
 * arrays: -DPS_XSS_ISA=avx2 with -mavx2, or avx512 with the AVX-512
 * flags.  Each object lists two sorters: one thread (OpenMP limited to
 * 1) and `threads` threads (omp_set_num_threads), x86-simd-sort's own
 * choice of when to use them.
 */
#include <cstdint>
#include <cstring>

#include <omp.h>

#include "x86simdsort-static-incl.h"
#include "ps_bench_peer.h"

#define PS_STR2(x) #x
#define PS_STR(x) PS_STR2(x)

namespace {

template <typename T>
int keys(T *k, size_t n, int threads)
{
    omp_set_num_threads(threads);
    x86simdsortStatic::qsort(k, n, false, false);
    return 0;
}

template <typename K>
int pairs(K *k, K *v, size_t n, int threads)
{
    omp_set_num_threads(threads);
    x86simdsortStatic::keyvalue_qsort(k, v, n, false, false);
    return 0;
}

int u32_1(uint32_t *k, size_t n, int) { return keys(k, n, 1); }
int u64_1(uint64_t *k, size_t n, int) { return keys(k, n, 1); }
int f32_1(float *k, size_t n, int) { return keys(k, n, 1); }
int i64_1(int64_t *k, size_t n, int) { return keys(k, n, 1); }
int u32p_1(uint32_t *k, uint32_t *v, size_t n, int) { return pairs(k, v, n, 1); }
int u64p_1(uint64_t *k, uint64_t *v, size_t n, int) { return pairs(k, v, n, 1); }

int u32_t(uint32_t *k, size_t n, int t) { return keys(k, n, t); }
int u64_t(uint64_t *k, size_t n, int t) { return keys(k, n, t); }
int f32_t(float *k, size_t n, int t) { return keys(k, n, t); }
int i64_t(int64_t *k, size_t n, int t) { return keys(k, n, t); }
int u32p_t(uint32_t *k, uint32_t *v, size_t n, int t) { return pairs(k, v, n, t); }
int u64p_t(uint64_t *k, uint64_t *v, size_t n, int t) { return pairs(k, v, n, t); }

const ps_bench_peer table[] = {
    { "xss-" PS_STR(PS_XSS_ISA) "-1t",
      "x86-simd-sort static " PS_STR(PS_XSS_ISA) ", one thread",
      0, 0, u32_1, u64_1, f32_1, i64_1, u32p_1, u64p_1 },
    { "xss-" PS_STR(PS_XSS_ISA) "-omp",
      "x86-simd-sort static " PS_STR(PS_XSS_ISA) ", OpenMP threads",
      1, 0, u32_t, u64_t, f32_t, i64_t, u32p_t, u64p_t },
};

} // namespace

extern "C" int ps_bench_peer_list(unsigned abi, const ps_bench_peer **peers,
                                  const char **why)
{
    if (abi != PS_BENCH_PEER_ABI) {
        *why = "built for another PS_BENCH_PEER_ABI";
        return -1;
    }
    __builtin_cpu_init();
    if (!__builtin_cpu_supports(PS_STR(PS_XSS_CPU))) {
        *why = "this CPU lacks " PS_STR(PS_XSS_CPU);
        return -1;
    }
    *peers = table;
    return (int)(sizeof table / sizeof table[0]);
}
