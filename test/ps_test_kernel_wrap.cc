// ps_test_kernel_wrap - a model run of the reduce-then-scan kernels
// (backends/kernels/ps_kernel_radix.cl, compiled here as C++ with the CUDA
// cut of ps_gpu_tune.h: 256 work-items, 4-bit digits, tiles of 2048 u8
// keys) at n just below 2^32, where a 32-bit index that steps past n wraps
// to a small value and, unguarded, starts over or runs on for ever (issue
// 17, item 1).  A GPU is not needed to show it, and neither are 4 GiB:
// only the last block of a pass runs (the one whose loops reach n), over
// address space reserved without memory, of which only that block's keys
// are readable and writable.  An index that wraps reads or writes below
// them, and the fault handler says so.  The block's results are checked
// too: its histogram, its digit counts and its keys scattered in digit
// order.  ps_os_hist (Onesweep), strided over the whole array by every
// group, runs its last group with each work-item's key count capped at
// what its stride allows.
//
// Work-items are threads meeting at a std::barrier, as in the CUDA
// stand-in (test/standin/ps_gpu_fake.cc); local arrays are static.  Exits
// 77 where 2^33 bytes of address space cannot be reserved.
#include <atomic>
#include <barrier>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "ps_gpu_tune.h"

#define PS_KERNEL_DIALECT_H
typedef unsigned char ps_u8;
typedef unsigned short ps_u16;
typedef unsigned int ps_u32;
typedef unsigned long long ps_u64;

namespace {
thread_local unsigned t_lid;
unsigned g_group, g_ngroups;
std::barrier<> *g_barrier;
// Keys each work-item may count in ps_os_hist before it must have
// stopped (0: no cap), and what it counted.
unsigned long long g_cap;
thread_local unsigned long long t_counted;
// Local atomic adds of this work-item, and the most of any work-item in
// the last group run (ps_os_hist must add a run of equal digits at once).
thread_local unsigned long long t_adds;
std::atomic<unsigned long long> g_most_adds;
volatile const char *g_running = "";

// Called with every local atomic add: v keys counted at once.
void count_key(unsigned v)
{
    t_adds++;
    if (g_cap != 0 && (t_counted += v) > g_cap) {
        std::fprintf(stderr, "FAIL: %s: a work-item counted more than the %llu keys "
                     "its stride reaches: a 32-bit index wrapped\n",
                     (const char *)g_running, g_cap);
        std::_Exit(1);
    }
}
}  // namespace

#define PS_KERNEL_WG(wg) [[maybe_unused]] static void
#define PS_KERNEL_WG_MIN(wg, blocks) [[maybe_unused]] static void
#define PS_FN static inline
#define PS_GLOBAL
#define PS_LOCAL
#define PS_LOCAL_ARRAY(type, name, n) static type name[n]
#define PS_BARRIER() g_barrier->arrive_and_wait()
#define PS_LID() t_lid
#define PS_GROUP() g_group
#define PS_NGROUPS() g_ngroups
#define PS_ATOMIC_ADD_LOCAL(p, v) (count_key(v), __atomic_fetch_add((p), (v), __ATOMIC_RELAXED))
#define PS_ATOMIC_ADD_GLOBAL(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)

#define PS_KEY_BITS 8
#define PS_VAL_BYTES 0
#define PS_WG PS_GPU_WG
#define PS_DIGIT_BITS PS_GPU_DIGIT_BITS
#define PS_ITEMS PS_GPU_ITEMS(1, 0)
// The Onesweep file for ps_os_hist (its other kernels come along, in
// their form without warp intrinsics, unused).
#define PS_ATOMIC_LOAD_GLOBAL(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define PS_ATOMIC_STORE_GLOBAL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define PS_ATOMIC_MAX_GLOBAL(p, v) __atomic_fetch_or((p), 0u * (v), __ATOMIC_RELAXED)  // not run
#define PS_SPIN_PAUSE(i) ((void)(i))
#define PS_WITH_ONESWEEP 1
#include "ps_kernel_radix.cl"
#include "ps_kernel_onesweep.cl"

namespace {
const size_t span = (size_t)UINT32_MAX + 1;    // every index a ps_u32 can hold

// Runs fn in group g of ng, as PS_WG work-items.
template <typename F> void run_group(const char *what, unsigned g, unsigned ng, F fn)
{
    std::barrier<> b(PS_WG);
    std::vector<std::thread> items;
    g_running = what;
    g_barrier = &b;
    g_group = g;
    g_ngroups = ng;
    for (unsigned t = 0; t < PS_WG; t++)
        items.emplace_back([t, &fn] {
            t_lid = t;
            t_counted = 0;
            t_adds = 0;
            fn();
            unsigned long long m = g_most_adds.load();
            while (t_adds > m && !g_most_adds.compare_exchange_weak(m, t_adds)) {
            }
        });
    for (auto &th : items)
        th.join();
}

void on_fault(int)
{
    static const char msg[] = "FAIL: a kernel touched a key outside the last block's "
                              "range: a 32-bit index wrapped\n";
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    std::_Exit(1);
}

// Address space for 2^32 + slack one-byte keys, none of it accessible.
unsigned char *reserve()
{
    void *p = mmap(nullptr, span + 65536, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<unsigned char *>(p);
}

// [lo, hi) of base made readable and writable (whole pages).
void open_range(unsigned char *base, size_t lo, size_t hi)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), a = lo / pg * pg;
    if (mprotect(base + a, (hi - a + pg - 1) / pg * pg, PROT_READ | PROT_WRITE) != 0) {
        std::perror("mprotect");
        std::exit(1);
    }
}

int fail(const char *what, uint32_t n)
{
    std::fprintf(stderr, "FAIL: %s, n = %u\n", what, n);
    return 1;
}

// The last block of every reduce-then-scan kernel of the first pass (digit
// bits 0..3) over n keys, as the host cuts them with tpb tiles a block.
int last_block(uint32_t n, uint32_t tpb)
{
    const uint32_t tile = TILE, radix = RADIX;
    uint64_t ntiles = ((uint64_t)n + tile - 1) / tile, nb = (ntiles + tpb - 1) / tpb;
    uint32_t b = (uint32_t)(nb - 1), lo = (uint32_t)((uint64_t)b * tpb * tile), hi = n;
    unsigned char *kin = reserve(), *kout = reserve();
    std::vector<ps_u32> totals(PASSES * RADIX);
    // counts[d * nb + b], of which this block touches 16 words.
    size_t cbytes = (size_t)radix * nb * 4;
    void *cmap = mmap(nullptr, cbytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ps_u32 *counts = cmap == MAP_FAILED ? nullptr : static_cast<ps_u32 *>(cmap);
    std::vector<uint64_t> want(PASSES * RADIX);
    std::vector<uint32_t> run(radix);
    uint32_t i, d;
    int bad = 0;

    if (kin == nullptr || kout == nullptr || counts == nullptr)
        return 77;
    open_range(kin, lo, hi);
    open_range(kout, lo, hi);
    for (i = lo; i < hi; i++) {
        kin[i] = (unsigned char)((i * 2654435761u) >> 24);
        for (unsigned p = 0; p < PASSES; p++)
            want[p * RADIX + ((kin[i] >> (p * PS_DIGIT_BITS)) & DMASK)]++;
    }

    run_group("ps_hist", b, (unsigned)nb, [&] {
        ps_hist(kin, 0, n, tpb, totals.data(), 0, 0, 0);
    });
    for (d = 0; d < PASSES * RADIX; d++)
        bad |= totals[d] != want[d];
    if (bad)
        return fail("ps_hist: the last block's histogram is wrong", n);

    run_group("ps_upsweep", b, (unsigned)nb, [&] {
        ps_upsweep(kin, 0, n, tpb, 0, counts, 0, 0, 0, 1);
    });
    for (d = 0; d < radix; d++)
        bad |= counts[(size_t)d * nb + b] != want[d];
    if (bad)
        return fail("ps_upsweep: the last block's digit counts are wrong", n);

    // The scan's result for this block if every key before it had a digit
    // below 0: the block's keys land in [lo, hi), in digit order.
    for (d = 0, run[0] = lo; d + 1 < radix; d++)
        run[d + 1] = run[d] + (uint32_t)want[d];
    for (d = 0; d < radix; d++)
        counts[(size_t)d * nb + b] = run[d];
    run_group("ps_downsweep", b, (unsigned)nb, [&] {
        ps_downsweep(kin, 0, kout, 0, n, tpb, 0, counts, 0, 0, 0, 1, 1);
    });
    for (i = lo; i < hi; i++) {
        d = kin[i] & DMASK;
        bad |= kout[run[d]++] != kin[i];
    }
    if (bad)
        return fail("ps_downsweep: the last block's keys are not in stable digit order", n);

    // ps_os_hist's last group strides over all n keys from its first.
    {
        unsigned ng = PS_GPU_MAX_BLOCKS;
        uint64_t stride = (uint64_t)ng * PS_WG, first = (uint64_t)(ng - 1) * PS_WG;
        std::vector<ps_u32> bins(OS_RADIX);
        munmap(kin, span + 65536);
        kin = static_cast<unsigned char *>(mmap(nullptr, span + 65536, PROT_READ,
                                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                                                -1, 0));
        if (kin == MAP_FAILED)
            return 77;
        g_cap = (n - first + stride - 1) / stride;
        g_most_adds = 0;
        run_group("ps_os_hist", ng - 1, ng, [&] {
            ps_os_hist(kin, 0, n, bins.data(), 0, 0, 0);
        });
        uint64_t cap = g_cap;
        g_cap = 0;
        // Zero pages: every key is 0; the group counts its items' share.
        uint64_t mine = 0;
        for (unsigned t = 0; t < PS_WG; t++)
            if (first + t < n)
                mine += (n - first - t + stride - 1) / stride;
        if (bins[0] != mine)
            return fail("ps_os_hist: the last group's count is wrong", n);
        // Every key has digit 0: one add per OS_LOADS keys, not one per
        // key, or a warp's items serialise on the one counter (issue 33).
        if (g_most_adds > (cap + OS_LOADS - 1) / OS_LOADS)
            return fail("ps_os_hist: a run of equal digits took an atomic add per key", n);
    }
    munmap(kin, span + 65536);
    munmap(kout, span + 65536);
    munmap(cmap, cbytes);
    return 0;
}
}  // namespace

int main()
{
    // n: the most the kernels count; a full last tile ending at 2^32 - 256
    // and one ending at 2^32 (base + TILE wraps to 0); a last tile of one
    // key; 255 keys short of 2^32, where i + WG wraps in ps_hist and
    // ps_upsweep.
    static const uint32_t sizes[] = { 0xffffffffu, 0xffffffffu - 255u,
                                      0u - (uint32_t)TILE, 0u - (uint32_t)TILE + 1u,
                                      0u - 2u * (uint32_t)TILE + 1u };
    static const uint32_t tpbs[] = { 1, 3 };
    if (sizeof(size_t) < 8) {
        std::puts("ps_test_kernel_wrap: needs a 64-bit address space: skipped");
        return 77;
    }
    std::signal(SIGSEGV, on_fault);
    std::signal(SIGBUS, on_fault);
    for (uint32_t n : sizes)
        for (uint32_t tpb : tpbs) {
            int rc = last_block(n, tpb);
            if (rc == 77) {
                std::puts("ps_test_kernel_wrap: cannot reserve 8 GiB of address space: skipped");
                return 77;
            }
            if (rc != 0)
                return rc;
            std::printf("ps_test_kernel_wrap: n = %u, %u tile(s) a block: ok\n", n, tpb);
        }
    return 0;
}
