// ps_peer_vqsort.cc - Highway's vqsort behind the C interface of
// ps_peers.h.  vqsort sorts by value, so float keys here are ordered as
// numbers (NaNs aside), which is what the benchmark data contains.
#include <config.h>

#include <stdint.h>

#include "ps_peers.h"
#include "portsort.h"

#ifdef PS_HAVE_HWY
#include <hwy/contrib/sort/vqsort.h>

template <typename T>
static int vqsort_as(void *keys, size_t n)
{
    // One Sorter per thread: it owns scratch, and construction allocates,
    // which a benchmark should not time on every call.
    static thread_local hwy::Sorter sorter;
    sorter(static_cast<T *>(keys), n, hwy::SortAscending());
    return 0;
}

extern "C" int ps_peer_vqsort(void *keys, size_t n, int type)
{
    switch (type) {
    case PS_U16: return vqsort_as<uint16_t>(keys, n);
    case PS_U32: return vqsort_as<uint32_t>(keys, n);
    case PS_U64: return vqsort_as<uint64_t>(keys, n);
    case PS_I16: return vqsort_as<int16_t>(keys, n);
    case PS_I32: return vqsort_as<int32_t>(keys, n);
    case PS_I64: return vqsort_as<int64_t>(keys, n);
    case PS_F32: return vqsort_as<float>(keys, n);
    case PS_F64: return vqsort_as<double>(keys, n);
    default: return -1;
    }
}

extern "C" int ps_peer_vqsort_available(void)
{
    return 1;
}
#else
extern "C" int ps_peer_vqsort(void *keys, size_t n, int type)
{
    (void)keys;
    (void)n;
    (void)type;
    return -1;
}

extern "C" int ps_peer_vqsort_available(void)
{
    return 0;
}
#endif
