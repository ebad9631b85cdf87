// ps_cpubench_peers.cc - the sorters bench/ps_cpubench is built with, as
// ps_bench_peer tables (bench/ps_bench_peer.h): the C++ standard library's
// serial sorts and parallel mode, oneTBB, Boost.Sort and Highway's vqsort.
// Each one that configure did not find is simply not in the list.
//
// Pairs: these sorters take one array of elements, so a pair sort packs
// the caller's key and value arrays into one array of {key, value}
// structs, sorts it by key and unpacks it, all inside the timed call (the
// benchmark's interface, like libportsort's, is two arrays).  The packing
// costs two passes over the data; doc/results-openmp.md says so.
#include <config.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "ps_bench_peer.h"
#include "ps_cpubench.h"
#include "peers/ps_peers.h"
#include "portsort.h"

#ifdef PS_HAVE_GNU_PARALLEL
#include <parallel/algorithm>
#endif
#ifdef PS_HAVE_TBB
#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/task_arena.h>
#endif
#ifdef PS_HAVE_BOOST_SORT
#include <boost/sort/block_indirect_sort/block_indirect_sort.hpp>
#include <boost/sort/spreadsort/spreadsort.hpp>
#endif

namespace {

template <typename K, typename V>
struct Pair {
    K key;
    V value;
};

struct ByKey {
    template <typename P>
    bool operator()(const P &a, const P &b) const
    {
        return a.key < b.key;
    }
};

// One scratch array for the packed pairs, kept between calls so that its
// allocation is timed once, not on every repetition (the benchmark calls
// from one thread at a time).
void *pack_scratch(size_t bytes)
{
    static void *buf;
    static size_t have;
    if (bytes > have) {
        void *p = std::realloc(buf, bytes);
        if (p == nullptr)
            return nullptr;
        buf = p;
        have = bytes;
    }
    return buf;
}

// Pack, run sort_fn(first, last) on the structs, unpack.
template <typename K, typename V, typename F>
int packed(K *keys, V *values, size_t n, F sort_fn)
{
    auto *p = static_cast<Pair<K, V> *>(pack_scratch(n * sizeof(Pair<K, V>)));
    if (p == nullptr)
        return -1;
    for (size_t i = 0; i < n; i++)
        p[i] = Pair<K, V>{keys[i], values[i]};
    sort_fn(p, p + n);
    for (size_t i = 0; i < n; i++) {
        keys[i] = p[i].key;
        values[i] = p[i].value;
    }
    return 0;
}

// ---- std::sort and std::stable_sort, one thread ----

template <typename K>
int std_keys(K *k, size_t n, int)
{
    std::sort(k, k + n);
    return 0;
}

template <typename K, typename V>
int std_pairs(K *k, V *v, size_t n, int)
{
    return packed(k, v, n, [](Pair<K, V> *a, Pair<K, V> *b) { std::sort(a, b, ByKey()); });
}

template <typename K>
int stable_keys(K *k, size_t n, int)
{
    std::stable_sort(k, k + n);
    return 0;
}

template <typename K, typename V>
int stable_pairs(K *k, V *v, size_t n, int)
{
    return packed(k, v, n,
                  [](Pair<K, V> *a, Pair<K, V> *b) { std::stable_sort(a, b, ByKey()); });
}

const ps_bench_peer std_sort_peer = {
    "std-sort-1t", "std::sort (introsort), one thread", 0, 0,
    std_keys<uint32_t>, std_keys<uint64_t>, std_keys<float>, std_keys<int64_t>,
    std_pairs<uint32_t, uint32_t>, std_pairs<uint64_t, uint64_t>,
};

const ps_bench_peer std_stable_peer = {
    "std-stable-1t", "std::stable_sort (merge sort), one thread", 0, 1,
    stable_keys<uint32_t>, stable_keys<uint64_t>, stable_keys<float>, stable_keys<int64_t>,
    stable_pairs<uint32_t, uint32_t>, stable_pairs<uint64_t, uint64_t>,
};

// ---- libstdc++ parallel mode: multiway mergesort on OpenMP ----
#ifdef PS_HAVE_GNU_PARALLEL
template <typename K>
int gnu_keys(K *k, size_t n, int threads)
{
    __gnu_parallel::sort(k, k + n, std::less<K>(),
                         __gnu_parallel::multiway_mergesort_tag(threads));
    return 0;
}

template <typename K, typename V>
int gnu_pairs(K *k, V *v, size_t n, int threads)
{
    return packed(k, v, n, [threads](Pair<K, V> *a, Pair<K, V> *b) {
        __gnu_parallel::sort(a, b, ByKey(), __gnu_parallel::multiway_mergesort_tag(threads));
    });
}

const ps_bench_peer gnu_parallel_peer = {
    "gnu-parallel", "__gnu_parallel::sort, multiway mergesort (libstdc++ parallel mode, OpenMP)",
    1, 0,
    gnu_keys<uint32_t>, gnu_keys<uint64_t>, gnu_keys<float>, gnu_keys<int64_t>,
    gnu_pairs<uint32_t, uint32_t>, gnu_pairs<uint64_t, uint64_t>,
};
#endif

// ---- oneTBB parallel_sort, in an arena of `threads` ----
#ifdef PS_HAVE_TBB
// One arena kept for the run (its thread count only changes with
// --threads, which is fixed per run), as an application would keep it.
tbb::task_arena &arena(int threads)
{
    static tbb::task_arena *a;
    static int a_threads;
    if (a == nullptr || a_threads != threads) {
        delete a;
        a = new tbb::task_arena(threads);
        a_threads = threads;
    }
    return *a;
}

template <typename K>
int tbb_keys(K *k, size_t n, int threads)
{
    arena(threads).execute([=] { tbb::parallel_sort(k, k + n); });
    return 0;
}

template <typename K, typename V>
int tbb_pairs(K *k, V *v, size_t n, int threads)
{
    return packed(k, v, n, [threads](Pair<K, V> *a, Pair<K, V> *b) {
        arena(threads).execute([=] { tbb::parallel_sort(a, b, ByKey()); });
    });
}

const ps_bench_peer tbb_peer = {
    "tbb", "oneTBB tbb::parallel_sort (parallel quicksort) in a task_arena",
    1, 0,
    tbb_keys<uint32_t>, tbb_keys<uint64_t>, tbb_keys<float>, tbb_keys<int64_t>,
    tbb_pairs<uint32_t, uint32_t>, tbb_pairs<uint64_t, uint64_t>,
};
#endif

// ---- Boost.Sort: block_indirect_sort (parallel), spreadsort (serial) ----
#ifdef PS_HAVE_BOOST_SORT
template <typename K>
int bis_keys(K *k, size_t n, int threads)
{
    boost::sort::block_indirect_sort(k, k + n, std::less<K>(), (uint32_t)threads);
    return 0;
}

template <typename K, typename V>
int bis_pairs(K *k, V *v, size_t n, int threads)
{
    return packed(k, v, n, [threads](Pair<K, V> *a, Pair<K, V> *b) {
        boost::sort::block_indirect_sort(a, b, ByKey(), (uint32_t)threads);
    });
}

template <typename K>
int spread_keys(K *k, size_t n, int)
{
    boost::sort::spreadsort::spreadsort(k, k + n);
    return 0;
}

template <typename K, typename V>
int spread_pairs(K *k, V *v, size_t n, int)
{
    return packed(k, v, n, [](Pair<K, V> *a, Pair<K, V> *b) {
        boost::sort::spreadsort::integer_sort(
            a, b, [](const Pair<K, V> &p, unsigned shift) { return p.key >> shift; },
            ByKey());
    });
}

const ps_bench_peer boost_bis_peer = {
    "boost-bis", "Boost.Sort block_indirect_sort (parallel)", 1, 0,
    bis_keys<uint32_t>, bis_keys<uint64_t>, bis_keys<float>, bis_keys<int64_t>,
    bis_pairs<uint32_t, uint32_t>, bis_pairs<uint64_t, uint64_t>,
};

const ps_bench_peer boost_spread_peer = {
    "boost-spread-1t", "Boost.Sort spreadsort (radix and comparison hybrid), one thread",
    0, 0,
    spread_keys<uint32_t>, spread_keys<uint64_t>, spread_keys<float>, spread_keys<int64_t>,
    spread_pairs<uint32_t, uint32_t>, spread_pairs<uint64_t, uint64_t>,
};
#endif

// ---- Highway vqsort, one thread (tools/cli/peers/ps_peer_vqsort.cc) ----
#ifdef PS_HAVE_HWY
int vq_u32(uint32_t *k, size_t n, int)
{
    return ps_peer_vqsort(k, n, PS_U32);
}

int vq_u64(uint64_t *k, size_t n, int)
{
    return ps_peer_vqsort(k, n, PS_U64);
}

int vq_f32(float *k, size_t n, int)
{
    return ps_peer_vqsort(k, n, PS_F32);
}

int vq_i64(int64_t *k, size_t n, int)
{
    return ps_peer_vqsort(k, n, PS_I64);
}

int vq_u32_u32(uint32_t *k, uint32_t *v, size_t n, int)
{
    return ps_peer_vqsort_pairs(k, v, n, 4);
}

int vq_u64_u64(uint64_t *k, uint64_t *v, size_t n, int)
{
    return ps_peer_vqsort_pairs(k, v, n, 8);
}

const ps_bench_peer vqsort_peer = {
    "vqsort-1t", "Highway vqsort (hwy::Sorter), one thread; pairs as K32V32 / K64V64",
    0, 0, vq_u32, vq_u64, vq_f32, vq_i64, vq_u32_u32, vq_u64_u64,
};
#endif

const ps_bench_peer *const builtin[] = {
#ifdef PS_HAVE_HWY
    &vqsort_peer,
#endif
#ifdef PS_HAVE_TBB
    &tbb_peer,
#endif
#ifdef PS_HAVE_GNU_PARALLEL
    &gnu_parallel_peer,
#endif
#ifdef PS_HAVE_BOOST_SORT
    &boost_bis_peer,
    &boost_spread_peer,
#endif
    &std_sort_peer,
    &std_stable_peer,
};

} // namespace

extern "C" size_t ps_cb_builtin_peers(const ps_bench_peer *const **out)
{
    *out = builtin;
    return sizeof builtin / sizeof builtin[0];
}
