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
#include <functional>

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

// Each sorter below is a struct whose run(first, last, less, threads)
// sorts a range; keys<S> and pairs<S> put it behind the peer interface
// (pairs packed), and PEER() builds its table.
template <typename S, typename K>
int keys(K *k, size_t n, int threads)
{
    S::run(k, k + n, std::less<K>(), threads);
    return 0;
}

template <typename S, typename K, typename V>
int pairs(K *k, V *v, size_t n, int threads)
{
    return packed(k, v, n, [threads](Pair<K, V> *a, Pair<K, V> *b) {
        S::run(a, b, ByKey(), threads);
    });
}

#define PEER(S, name, what, parallel, stable)                                  \
    {                                                                          \
        name, what, parallel, stable, keys<S, uint32_t>, keys<S, uint64_t>,    \
        keys<S, float>, keys<S, int64_t>, pairs<S, uint32_t, uint32_t>,        \
        pairs<S, uint64_t, uint64_t>,                                          \
    }

// ---- std::sort and std::stable_sort, one thread ----

struct StdSort {
    template <typename It, typename C>
    static void run(It a, It b, C c, int)
    {
        std::sort(a, b, c);
    }
};

struct StdStable {
    template <typename It, typename C>
    static void run(It a, It b, C c, int)
    {
        std::stable_sort(a, b, c);
    }
};

const ps_bench_peer std_sort_peer =
    PEER(StdSort, "std-sort-1t", "std::sort (introsort), one thread", 0, 0);
const ps_bench_peer std_stable_peer =
    PEER(StdStable, "std-stable-1t", "std::stable_sort (merge sort), one thread", 0, 1);

// ---- libstdc++ parallel mode: multiway mergesort on OpenMP ----
#ifdef PS_HAVE_GNU_PARALLEL
struct GnuParallel {
    template <typename It, typename C>
    static void run(It a, It b, C c, int threads)
    {
        __gnu_parallel::sort(a, b, c, __gnu_parallel::multiway_mergesort_tag(threads));
    }
};

const ps_bench_peer gnu_parallel_peer =
    PEER(GnuParallel, "gnu-parallel",
         "__gnu_parallel::sort, multiway mergesort (libstdc++ parallel mode, OpenMP)", 1, 0);
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

struct Tbb {
    template <typename It, typename C>
    static void run(It a, It b, C c, int threads)
    {
        arena(threads).execute([=] { tbb::parallel_sort(a, b, c); });
    }
};

const ps_bench_peer tbb_peer =
    PEER(Tbb, "tbb", "oneTBB tbb::parallel_sort (parallel quicksort) in a task_arena", 1, 0);
#endif

// ---- Boost.Sort: block_indirect_sort (parallel), spreadsort (serial) ----
#ifdef PS_HAVE_BOOST_SORT
struct BoostBis {
    template <typename It, typename C>
    static void run(It a, It b, C c, int threads)
    {
        boost::sort::block_indirect_sort(a, b, c, (uint32_t)threads);
    }
};

// spreadsort takes numbers as they are, and pairs by their key's bits.
struct BoostSpread {
    template <typename T, typename C>
    static void run(T *a, T *b, C, int)
    {
        boost::sort::spreadsort::spreadsort(a, b);
    }
    template <typename K, typename V, typename C>
    static void run(Pair<K, V> *a, Pair<K, V> *b, C c, int)
    {
        boost::sort::spreadsort::integer_sort(
            a, b, [](const Pair<K, V> &p, unsigned shift) { return p.key >> shift; }, c);
    }
};

const ps_bench_peer boost_bis_peer =
    PEER(BoostBis, "boost-bis", "Boost.Sort block_indirect_sort (parallel)", 1, 0);
const ps_bench_peer boost_spread_peer =
    PEER(BoostSpread, "boost-spread-1t",
         "Boost.Sort spreadsort (radix and comparison hybrid), one thread", 0, 0);
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
