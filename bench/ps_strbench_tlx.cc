// ps_strbench_tlx.cc - tlx's string sorts as peers of bench/ps_strbench,
// loaded at run time through PS_STRBENCH_PEERS (never linked into the
// library or built by make).  PS_TLX_PARALLEL=1 at build time selects
// tlx::sort_strings_parallel (pS5, parallel super scalar string sample
// sort, on every hardware thread); otherwise tlx::sort_strings (its
// sequential radix sort with character caching and multikey quicksort).
// doc/strings.md gives the command that builds it against a tlx checkout.
#include <cstddef>

#include <tlx/sort/strings.hpp>
#if PS_TLX_PARALLEL
#include <tlx/sort/strings_parallel.hpp>
#endif

extern "C" const char *ps_strbench_peer_name(void)
{
#if PS_TLX_PARALLEL
    return "tlx pS5 (parallel)";
#else
    return "tlx::sort_strings";
#endif
}

extern "C" int ps_strbench_peer_sort(const char **strings, size_t n)
{
#if PS_TLX_PARALLEL
    tlx::sort_strings_parallel(strings, n, /* memory */ 0);
#else
    tlx::sort_strings(strings, n, /* memory */ 0);
#endif
    return 0;
}
