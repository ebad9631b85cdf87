/*
 * ps_cudabench - our device-pointer sort (portsort_cuda.h) against CUB's
 * cub::DeviceRadixSort on the same device buffers, in one run, on both of
 * our paths: Onesweep and reduce-then-scan ("portable"), chosen per call
 * through PORTSORT_GPU_ALGO, which the library reads at every sort.
 *
 * Usage: ps_cudabench [--min LOG2] [--max LOG2] [--reps R] [--csv FILE]
 *                     [--case NAME] [--data NAME] [--no-portable]
 *   sizes 2^min .. 2^max keys (default 2^20 .. 2^28, every power of two),
 *   R timed repetitions per case (default 7; the median is reported);
 *   --case and --data run one case (u32-keys, u32/u32-pairs, u64-keys) or
 *   one dataset (random, low-entropy, narrow) only, so that a profiler
 *   (Nsight Compute's DRAM byte counters, bench/gpu-run.sh's traffic step)
 *   sees each case's kernels in a process of their own; --no-portable
 *   leaves our reduce-then-scan path out (its columns print 0), so that
 *   bench/gpu-run.sh's `variants` step, which rebuilds only Onesweep's
 *   variants, spends its time on them.
 * Cases: u32 keys, u32/u32 pairs, u64 keys; datasets random and
 * low-entropy (each key the AND of 3 random words: 0.81 bits of entropy
 * per bit, Thearling & Smith), so that CUB's and our digit-skipping and
 * scatter behaviour on skewed digits show; and, only when --data names it,
 * narrow (random keys with the top byte zero: the last pass's digit is
 * the same in every tile, the case of CUB's and our short circuit).
 *
 * Both sorts start from the same input, copied into place untimed before
 * every repetition; CUB sorts in place through a DoubleBuffer (its
 * lowest-memory mode, like ours), with its temporary storage allocated
 * once.  Each sort is timed with CUDA events on one stream.  Results are
 * checked equal to CUB's (both are stable, so pairs must match exactly).
 * Prints one line per case: n, case, dataset, median ms and Gkeys/s of
 * each sort, and each of our paths' speed as a ratio of CUB's (> 1: we are
 * faster).
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
static const char *data_name[] = { "random", "low-entropy", "narrow" };

/* Our two paths, then CUB: the order of the timed sorts in each round. */
enum Who { ONESWEEP, PORTABLE, CUB, WHO_COUNT };
static const char *algo_env[] = { "onesweep", "portable" };

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

static int our_sort(Buffers &b, size_t n, Case c, Who w, cudaStream_t s)
{
    ps_type t = c == U64_KEYS ? PS_U64 : PS_U32;
    setenv("PORTSORT_GPU_ALGO", algo_env[w], 1);
    if (c == U32_PAIRS)
        return ps_cuda_sort_pairs(b.k, b.v, 4, n, t, 0, b.our_scratch, b.our_bytes, s);
    return ps_cuda_sort_keys(b.k, n, t, 0, b.our_scratch, b.our_bytes, s);
}

int main(int argc, char **argv)
{
    int lo = 20, hi = 28, reps = 7, i;
    const char *csv_path = nullptr, *only_case = nullptr, *only_data = nullptr;
    bool no_portable = false;
    for (i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--min") && i + 1 < argc) lo = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--max") && i + 1 < argc) hi = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!std::strcmp(argv[i], "--case") && i + 1 < argc) only_case = argv[++i];
        else if (!std::strcmp(argv[i], "--data") && i + 1 < argc) only_data = argv[++i];
        else if (!std::strcmp(argv[i], "--no-portable")) no_portable = true;
        else { std::fprintf(stderr, "usage: %s [--min L] [--max L] [--reps R] [--csv F] [--case C] [--data D] [--no-portable]\n", argv[0]); return 2; }
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
        std::fprintf(csv, "gpu,n,case,dataset,onesweep_ms,portable_ms,cub_ms,"
                     "onesweep_gkeys,portable_gkeys,cub_gkeys,onesweep_ratio,"
                     "portable_ratio\n");
    std::printf("%11s %-14s %-11s %9s %8s %9s %8s %9s %8s %6s %6s\n", "n", "case",
                "data", "1sweep ms", "Gkeys/s", "portbl ms", "Gkeys/s", "cub ms",
                "Gkeys/s", "1s/cub", "pt/cub");

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
            if (only_case && std::strcmp(only_case, case_name[c]))
                continue;
            for (int d = 0; d < 3; d++) {
                if (only_data ? std::strcmp(only_data, data_name[d]) != 0 : d == 2)
                    continue;
                Buffers b = {};
                std::vector<unsigned char> hk(n * kb), hv(pairs ? n * 4 : 0);
                std::vector<unsigned char> got_k[WHO_COUNT], got_v[WHO_COUNT];
                for (size_t j = 0; j < n; j++) {
                    uint64_t r = next64();
                    if (d == 1)
                        r &= next64() & next64();
                    if (d == 2)
                        r &= ((uint64_t)1 << (8 * kb - 8)) - 1;
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
                /* Scratch for whichever of our paths needs more. */
                for (int w = ONESWEEP; w <= PORTABLE; w++) {
                    size_t bytes;
                    setenv("PORTSORT_GPU_ALGO", algo_env[w], 1);
                    if (ps_cuda_scratch_size(pairs ? PS_GPU_SORT_PAIRS : PS_GPU_SORT_KEYS,
                                             n, kb == 8 ? PS_U64 : PS_U32, 4,
                                             &bytes) != PS_OK) {
                        std::fprintf(stderr, "scratch_size: %s\n", ps_error_detail());
                        return 1;
                    }
                    b.our_bytes = std::max(b.our_bytes, bytes);
                }
                CK(cudaMalloc(&b.our_scratch, b.our_bytes ? b.our_bytes : 1));

                std::vector<double> times[WHO_COUNT];
                for (int r = 0; r <= reps; r++) {      /* r == 0: warm-up */
                    for (int w = 0; w < WHO_COUNT; w++) {
                        if (w == PORTABLE && no_portable)
                            continue;
                        CK(cudaMemcpyAsync(b.k, b.src_k, n * kb, cudaMemcpyDeviceToDevice, s));
                        if (pairs)
                            CK(cudaMemcpyAsync(b.v, b.src_v, n * 4, cudaMemcpyDeviceToDevice, s));
                        CK(cudaEventRecord(e0, s));
                        if (w != CUB) {
                            int st = our_sort(b, n, (Case)c, (Who)w, s);
                            if (st != PS_OK) {
                                std::fprintf(stderr, "portsort (%s): %s: %s\n",
                                             algo_env[w], ps_strerror(st),
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
                            times[w].push_back(ms);
                        if (r == 0) {
                            got_k[w].resize(n * kb);
                            got_v[w].resize(hv.size());
                            CK(cudaMemcpy(got_k[w].data(), b.k, n * kb,
                                          cudaMemcpyDeviceToHost));
                            if (pairs)
                                CK(cudaMemcpy(got_v[w].data(), b.v, n * 4,
                                              cudaMemcpyDeviceToHost));
                        }
                    }
                }
                bool ok1 = got_k[ONESWEEP] == got_k[CUB] && got_v[ONESWEEP] == got_v[CUB];
                bool ok2 = no_portable
                           || (got_k[PORTABLE] == got_k[CUB] && got_v[PORTABLE] == got_v[CUB]);
                double ms[WHO_COUNT], gk[WHO_COUNT];
                for (int w = 0; w < WHO_COUNT; w++) {
                    ms[w] = times[w].empty() ? 0.0 : median(times[w]);
                    gk[w] = ms[w] > 0 ? n / ms[w] / 1e6 : 0.0;
                }
                std::printf("%11zu %-14s %-11s %9.3f %8.2f %9.3f %8.2f %9.3f %8.2f "
                            "%5.2fx %5.2fx%s%s\n", n, case_name[c],
                            data_name[d], ms[ONESWEEP], gk[ONESWEEP],
                            ms[PORTABLE], gk[PORTABLE], ms[CUB], gk[CUB],
                            ms[CUB] / ms[ONESWEEP], ms[PORTABLE] > 0 ? ms[CUB] / ms[PORTABLE] : 0.0,
                            ok1 ? "" : "  MISMATCH(onesweep)",
                            ok2 ? "" : "  MISMATCH(portable)");
                std::fflush(stdout);
                if (csv)
                    std::fprintf(csv, "\"%s\",%zu,%s,%s,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f,"
                                 "%.3f,%.3f\n", prop.name, n, case_name[c],
                                 data_name[d], ms[ONESWEEP],
                                 ms[PORTABLE], ms[CUB], gk[ONESWEEP], gk[PORTABLE],
                                 gk[CUB], ms[CUB] / ms[ONESWEEP],
                                 ms[PORTABLE] > 0 ? ms[CUB] / ms[PORTABLE] : 0.0);
                cudaFree(b.src_k); cudaFree(b.k); cudaFree(b.alt_k);
                cudaFree(b.src_v); cudaFree(b.v); cudaFree(b.alt_v);
                cudaFree(b.cub_temp); cudaFree(b.our_scratch);
                if (!ok1 || !ok2) {
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
