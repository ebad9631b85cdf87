/*
 * ps_cudabench - our device-pointer sort (portsort_cuda.h) against CUB's
 * cub::DeviceRadixSort on the same device buffers, in one run.
 *
 * Usage: ps_cudabench [--min LOG2] [--max LOG2] [--reps R] [--csv FILE]
 *   sizes 2^min .. 2^max keys (default 2^20 .. 2^28, every power of two),
 *   R timed repetitions per case (default 7; the median is reported).
 * Cases: u32 keys, u32/u32 pairs, u64 keys; datasets random and
 * low-entropy (each key the AND of 3 random words: 0.81 bits of entropy
 * per bit, Thearling & Smith), so that CUB's and our digit-skipping and
 * scatter behaviour on skewed digits show.
 *
 * Both sorts start from the same input, copied into place untimed before
 * every repetition; CUB sorts in place through a DoubleBuffer (its
 * lowest-memory mode, like ours), with its temporary storage allocated
 * once.  Each sort is timed with CUDA events on one stream.  Results are
 * checked equal to CUB's (both are stable, so pairs must match exactly).
 * Prints one line per case: n, case, dataset, median ms and Gkeys/s of
 * each, and our speed as a ratio of CUB's (> 1: we are faster).
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include "portsort_cuda.h"

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                 cudaGetErrorString(e_)); std::exit(1); } } while (0)

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next64()
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

enum Case { U32_KEYS, U32_PAIRS, U64_KEYS };
static const char *case_name[] = { "u32-keys", "u32/u32-pairs", "u64-keys" };

struct Buffers {
    void *src_k, *src_v, *k, *v, *alt_k, *alt_v, *cub_temp, *our_scratch;
    size_t cub_bytes, our_bytes;
};

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <typename K>
static void cub_sort(Buffers &b, size_t n, bool pairs, cudaStream_t s, bool query)
{
    cub::DoubleBuffer<K> keys((K *)b.k, (K *)b.alt_k);
    cub::DoubleBuffer<uint32_t> vals((uint32_t *)b.v, (uint32_t *)b.alt_v);
    size_t bytes = query ? 0 : b.cub_bytes;
    void *temp = query ? nullptr : b.cub_temp;
    int n32 = (int)n;
    if (pairs)
        CK(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, vals, n32, 0,
                                           (int)(8 * sizeof(K)), s));
    else
        CK(cub::DeviceRadixSort::SortKeys(temp, bytes, keys, n32, 0,
                                          (int)(8 * sizeof(K)), s));
    if (query) {
        b.cub_bytes = bytes;
        return;
    }
    /* The result ends in whichever buffer CUB selected; ours ends in place,
     * so a copy home, when CUB needs one, is part of CUB's timed cost (for
     * an even number of passes it never does). */
    if (keys.Current() != (K *)b.k)
        CK(cudaMemcpyAsync(b.k, keys.Current(), n * sizeof(K),
                           cudaMemcpyDeviceToDevice, s));
    if (pairs && vals.Current() != (uint32_t *)b.v)
        CK(cudaMemcpyAsync(b.v, vals.Current(), n * 4, cudaMemcpyDeviceToDevice, s));
}

static int our_sort(Buffers &b, size_t n, Case c, cudaStream_t s)
{
    ps_type t = c == U64_KEYS ? PS_U64 : PS_U32;
    if (c == U32_PAIRS)
        return ps_cuda_sort_pairs(b.k, b.v, 4, n, t, 0, b.our_scratch, b.our_bytes, s);
    return ps_cuda_sort_keys(b.k, n, t, 0, b.our_scratch, b.our_bytes, s);
}

int main(int argc, char **argv)
{
    int lo = 20, hi = 28, reps = 7, i;
    const char *csv_path = nullptr;
    for (i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--min") && i + 1 < argc) lo = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--max") && i + 1 < argc) hi = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else { std::fprintf(stderr, "usage: %s [--min L] [--max L] [--reps R] [--csv F]\n", argv[0]); return 2; }
    }
    if (!ps_cuda_available()) {
        std::printf("SKIP: CUDA device API unavailable: %s\n", ps_error_detail());
        return 77;
    }
    cudaDeviceProp prop;
    int dev;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    std::printf("device: %s (sm_%d%d, %d SMs, %.1f GiB)\n", prop.name, prop.major,
                prop.minor, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0);
    FILE *csv = csv_path ? std::fopen(csv_path, "w") : nullptr;
    if (csv)
        std::fprintf(csv, "gpu,n,case,dataset,ours_ms,cub_ms,ours_gkeys,cub_gkeys,ratio\n");
    std::printf("%11s %-14s %-11s %10s %9s %10s %9s %7s\n", "n", "case", "data",
                "ours ms", "Gkeys/s", "cub ms", "Gkeys/s", "ratio");

    cudaStream_t s;
    cudaEvent_t e0, e1;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int lg = lo; lg <= hi; lg++) {
        size_t n = (size_t)1 << lg;
        for (int c = 0; c < 3; c++) {
            size_t kb = c == U64_KEYS ? 8 : 4;
            bool pairs = c == U32_PAIRS;
            for (int d = 0; d < 2; d++) {
                Buffers b = {};
                std::vector<unsigned char> hk(n * kb), hv(pairs ? n * 4 : 0);
                std::vector<unsigned char> ours_k(n * kb), cub_k(n * kb);
                std::vector<unsigned char> ours_v(hv.size()), cub_v(hv.size());
                for (size_t j = 0; j < n; j++) {
                    uint64_t r = next64();
                    if (d == 1)
                        r &= next64() & next64();
                    std::memcpy(&hk[j * kb], &r, kb);
                    if (pairs) {
                        uint32_t v = (uint32_t)j;
                        std::memcpy(&hv[j * 4], &v, 4);
                    }
                }
                CK(cudaMalloc(&b.src_k, n * kb));
                CK(cudaMalloc(&b.k, n * kb));
                CK(cudaMalloc(&b.alt_k, n * kb));
                if (pairs) {
                    CK(cudaMalloc(&b.src_v, n * 4));
                    CK(cudaMalloc(&b.v, n * 4));
                    CK(cudaMalloc(&b.alt_v, n * 4));
                    CK(cudaMemcpy(b.src_v, hv.data(), n * 4, cudaMemcpyHostToDevice));
                }
                CK(cudaMemcpy(b.src_k, hk.data(), n * kb, cudaMemcpyHostToDevice));
                if (kb == 8) cub_sort<uint64_t>(b, n, pairs, s, true);
                else cub_sort<uint32_t>(b, n, pairs, s, true);
                CK(cudaMalloc(&b.cub_temp, b.cub_bytes));
                if (ps_cuda_scratch_size(pairs ? PS_GPU_SORT_PAIRS : PS_GPU_SORT_KEYS,
                                         n, kb == 8 ? PS_U64 : PS_U32, 4,
                                         &b.our_bytes) != PS_OK) {
                    std::fprintf(stderr, "scratch_size: %s\n", ps_error_detail());
                    return 1;
                }
                CK(cudaMalloc(&b.our_scratch, b.our_bytes ? b.our_bytes : 1));

                std::vector<double> t_ours, t_cub;
                for (int r = 0; r <= reps; r++) {      /* r == 0: warm-up */
                    for (int who = 0; who < 2; who++) {
                        CK(cudaMemcpyAsync(b.k, b.src_k, n * kb, cudaMemcpyDeviceToDevice, s));
                        if (pairs)
                            CK(cudaMemcpyAsync(b.v, b.src_v, n * 4, cudaMemcpyDeviceToDevice, s));
                        CK(cudaEventRecord(e0, s));
                        if (who == 0) {
                            int st = our_sort(b, n, (Case)c, s);
                            if (st != PS_OK) {
                                std::fprintf(stderr, "portsort: %s: %s\n", ps_strerror(st),
                                             ps_error_detail());
                                return 1;
                            }
                        } else if (kb == 8) {
                            cub_sort<uint64_t>(b, n, pairs, s, false);
                        } else {
                            cub_sort<uint32_t>(b, n, pairs, s, false);
                        }
                        CK(cudaEventRecord(e1, s));
                        CK(cudaEventSynchronize(e1));
                        float ms;
                        CK(cudaEventElapsedTime(&ms, e0, e1));
                        if (r > 0)
                            (who == 0 ? t_ours : t_cub).push_back(ms);
                        if (r == 0) {
                            CK(cudaMemcpy(who == 0 ? ours_k.data() : cub_k.data(), b.k,
                                          n * kb, cudaMemcpyDeviceToHost));
                            if (pairs)
                                CK(cudaMemcpy(who == 0 ? ours_v.data() : cub_v.data(), b.v,
                                              n * 4, cudaMemcpyDeviceToHost));
                        }
                    }
                }
                bool ok = ours_k == cub_k && ours_v == cub_v;
                double mo = median(t_ours), mc = median(t_cub);
                double go = n / mo / 1e6, gc = n / mc / 1e6;
                std::printf("%11zu %-14s %-11s %10.3f %9.2f %10.3f %9.2f %6.2fx%s\n", n,
                            case_name[c], d ? "low-entropy" : "random", mo, go, mc, gc,
                            mc / mo, ok ? "" : "  MISMATCH");
                std::fflush(stdout);
                if (csv)
                    std::fprintf(csv, "\"%s\",%zu,%s,%s,%.4f,%.4f,%.3f,%.3f,%.3f\n",
                                 prop.name, n, case_name[c], d ? "low-entropy" : "random",
                                 mo, mc, go, gc, mc / mo);
                cudaFree(b.src_k); cudaFree(b.k); cudaFree(b.alt_k);
                cudaFree(b.src_v); cudaFree(b.v); cudaFree(b.alt_v);
                cudaFree(b.cub_temp); cudaFree(b.our_scratch);
                if (!ok) {
                    std::fprintf(stderr, "results differ from CUB's\n");
                    return 1;
                }
            }
        }
    }
    if (csv)
        std::fclose(csv);
    return 0;
}
