// ps_recbench_std.cc - the std::stable_sort peer of bench/ps_recbench.c:
// the same records and comparisons (ps_rb_cmp_*, defined there), sorted by
// the C++ library's merge sort, as a C++ programmer would.
#include <algorithm>
#include <cstddef>
#include <cstdint>

extern "C" {
int ps_rb_cmp_coo(const void *x, const void *y);
int ps_rb_cmp_event(const void *x, const void *y);
int ps_rb_cmp_score(const void *x, const void *y);
void ps_rb_stable_sort(int layout, void *records, std::size_t n);
}

namespace {

// Records of N bytes, compared by CMP; the layouts' sizes are 16, 24, 16.
template <std::size_t N> struct rec { unsigned char b[N]; };

template <std::size_t N, int (*CMP)(const void *, const void *)>
void run(void *records, std::size_t n)
{
    rec<N> *r = static_cast<rec<N> *>(records);
    std::stable_sort(r, r + n, [](const rec<N> &a, const rec<N> &b) {
        return CMP(&a, &b) < 0;
    });
}

} // namespace

void ps_rb_stable_sort(int layout, void *records, std::size_t n)
{
    switch (layout) {
    case 0: run<16, ps_rb_cmp_coo>(records, n); break;
    case 1: run<24, ps_rb_cmp_event>(records, n); break;
    default: run<16, ps_rb_cmp_score>(records, n); break;
    }
}
