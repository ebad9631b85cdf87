// ps_peer_vqsort.cc - Highway's vqsort behind the C interface of
// ps_peers.h.  vqsort sorts by value, so float keys here are ordered as
// numbers (NaNs aside), which is what the benchmark data contains.
#include <config.h>

#include <stdint.h>
#include <stdlib.h>

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

// vqsort sorts pairs as one array of K32V32 or K64V64 (value in the low
// half): pack, sort, unpack.  The packed array is kept between calls, so a
// benchmark times its allocation once.
template <typename KV, typename T>
static int vqsort_kv(T *keys, T *values, size_t n)
{
    static thread_local hwy::Sorter sorter;
    static thread_local KV *buf;
    static thread_local size_t have;
    if (n > have) {
        KV *p = static_cast<KV *>(realloc(buf, n * sizeof(KV)));
        if (p == nullptr)
            return -1;
        buf = p;
        have = n;
    }
    for (size_t i = 0; i < n; i++) {
        buf[i].key = keys[i];
        buf[i].value = values[i];
    }
    sorter(buf, n, hwy::SortAscending());
    for (size_t i = 0; i < n; i++) {
        keys[i] = buf[i].key;
        values[i] = buf[i].value;
    }
    return 0;
}

extern "C" int ps_peer_vqsort_pairs(void *keys, void *values, size_t n, int width)
{
    if (width == 4)
        return vqsort_kv<hwy::K32V32>(static_cast<uint32_t *>(keys),
                                      static_cast<uint32_t *>(values), n);
    if (width == 8)
        return vqsort_kv<hwy::K64V64>(static_cast<uint64_t *>(keys),
                                      static_cast<uint64_t *>(values), n);
    return -1;
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

extern "C" int ps_peer_vqsort_pairs(void *keys, void *values, size_t n, int width)
{
    (void)keys;
    (void)values;
    (void)n;
    (void)width;
    return -1;
}

extern "C" int ps_peer_vqsort_available(void)
{
    return 0;
}
#endif
