/*
 * ps_peer_ips.cc - IPS4o (github.com/ips4o/ips4o) or IPS2Ra
 * (github.com/ips4o/ips2ra) as a peer of bench/ps_cpubench
 * (bench/ps_bench_peer.h), for the benchmark only: never part of
 * libportsort.  bench/peers/build.sh compiles it with -DPS_IPS4O or
 * -DPS_IPS2RA and that project's include directory.
 *
 * The parallel sorter keeps one thread pool (std::thread) between calls,
 * as a program sorting many arrays would: starting one a call cost more
 * than the sort below a million keys.  Pairs are sorted as an array of
 * (key, value) structs, packed before and unpacked after (both timed):
 * neither takes separate arrays.
 */
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#if defined(PS_IPS4O)
#  include "ips4o.hpp"
#  define PS_NS ips4o
#  define PS_NAME "ips4o"
#elif defined(PS_IPS2RA)
#  include "ips2ra.hpp"
#  define PS_NS ips2ra
#  define PS_NAME "ips2ra"
#else
#  error "define PS_IPS4O or PS_IPS2RA"
#endif

#include "ps_bench_peer.h"

namespace {

template <typename K>
struct kv {
    K k, v;
};

/* IPS2Ra sorts unsigned integers by an extractor; IPS4o by a comparator.
 * The extractors map each type to an unsigned key of the same order. */
struct u32x { uint32_t operator()(uint32_t x) const { return x; } };
struct u64x { uint64_t operator()(uint64_t x) const { return x; } };
struct i64x {
    uint64_t operator()(int64_t x) const
    { return (uint64_t)x ^ ((uint64_t)1 << 63); }
};
struct f32x {
    uint32_t operator()(float f) const
    {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        return u ^ ((uint32_t)((int32_t)u >> 31) | 0x80000000u);
    }
};
template <typename K, typename X>
struct kvx {
    auto operator()(const kv<K> &p) const { return X()(p.k); }
};

PS_NS::StdThreadPool &pool(int threads)
{
    static std::unique_ptr<PS_NS::StdThreadPool> p;
    if (!p || p->numThreads() != threads)
        p.reset(new PS_NS::StdThreadPool(threads));
    return *p;
}

template <typename T, typename X>
void run(T *b, T *e, int threads)
{
#if defined(PS_IPS4O)
    auto less = [](const T &x, const T &y) { return X()(x) < X()(y); };
    if (threads < 2)
        ips4o::sort(b, e, less);
    else
        ips4o::parallel::sort(b, e, less, pool(threads));
#else
    if (threads < 2)
        ips2ra::sort(b, e, X());
    else
        ips2ra::parallel::sort(b, e, X(), pool(threads));
#endif
}

template <typename T, typename X>
int keys(T *k, size_t n, int threads)
{
    run<T, X>(k, k + n, threads);
    return 0;
}

template <typename K, typename X>
int pairs(K *k, K *v, size_t n, int threads)
{
    std::vector<kv<K>> a;
    try {
        a.resize(n);
    } catch (const std::bad_alloc &) {
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        a[i].k = k[i], a[i].v = v[i];
    run<kv<K>, kvx<K, X>>(a.data(), a.data() + n, threads);
    for (size_t i = 0; i < n; i++)
        k[i] = a[i].k, v[i] = a[i].v;
    return 0;
}

int u32_1(uint32_t *k, size_t n, int) { return keys<uint32_t, u32x>(k, n, 1); }
int u64_1(uint64_t *k, size_t n, int) { return keys<uint64_t, u64x>(k, n, 1); }
int f32_1(float *k, size_t n, int) { return keys<float, f32x>(k, n, 1); }
int i64_1(int64_t *k, size_t n, int) { return keys<int64_t, i64x>(k, n, 1); }
int u32p_1(uint32_t *k, uint32_t *v, size_t n, int)
{ return pairs<uint32_t, u32x>(k, v, n, 1); }
int u64p_1(uint64_t *k, uint64_t *v, size_t n, int)
{ return pairs<uint64_t, u64x>(k, v, n, 1); }

int u32_t(uint32_t *k, size_t n, int t) { return keys<uint32_t, u32x>(k, n, t); }
int u64_t(uint64_t *k, size_t n, int t) { return keys<uint64_t, u64x>(k, n, t); }
int f32_t(float *k, size_t n, int t) { return keys<float, f32x>(k, n, t); }
int i64_t(int64_t *k, size_t n, int t) { return keys<int64_t, i64x>(k, n, t); }
int u32p_t(uint32_t *k, uint32_t *v, size_t n, int t)
{ return pairs<uint32_t, u32x>(k, v, n, t); }
int u64p_t(uint64_t *k, uint64_t *v, size_t n, int t)
{ return pairs<uint64_t, u64x>(k, v, n, t); }

const ps_bench_peer table[] = {
    { PS_NAME "-1t", PS_NAME ", sequential", 0, 0,
      u32_1, u64_1, f32_1, i64_1, u32p_1, u64p_1 },
    { PS_NAME, PS_NAME ", parallel, one std::thread pool kept", 1, 0,
      u32_t, u64_t, f32_t, i64_t, u32p_t, u64p_t },
};

} // namespace

extern "C" int ps_bench_peer_list(unsigned abi, const ps_bench_peer **peers,
                                  const char **why)
{
    if (abi != PS_BENCH_PEER_ABI) {
        *why = "built for another PS_BENCH_PEER_ABI";
        return -1;
    }
    *peers = table;
    return (int)(sizeof table / sizeof table[0]);
}
