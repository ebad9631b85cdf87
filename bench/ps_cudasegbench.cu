/*
 * ps_cudasegbench - our segmented sort of device arrays
 * (ps_cuda_sort_segments, portsort_cuda.h) against CUB's
 * cub::DeviceSegmentedSort::SortKeys / SortPairs on the same device
 * buffers, in one run, with ps_cuda_sort_keys over the same n keys
 * unsegmented as the yardstick (issue 20's goal: the segmented sort within
 * 1.5x of it, whatever the shape).
 *
 * Usage: ps_cudasegbench [-n N] [--reps R] [--csv FILE] [SHAPE[:K]...]
 *   N keys (default 10000000), R timed repetitions (default 7, the median
 *   is reported), shapes as `portsort bench --segments` has them (default:
 *   csr uniform power-law equal), built by the same code
 *   (tools/cli/ps_cli_segments.c), so the figures compare with the CLI's.
 * Cases: u32 keys, u32 keys with u32 values, u64 keys; random keys.
 *
 * Every sort starts from the same input, copied into place untimed; CUB
 * sorts through a DoubleBuffer (its lowest-memory mode, like ours in
 * place), its temporary storage allocated once, with a copy home timed
 * when the result ends in the alternate buffer.  CUB gets int offsets (its
 * usual and fastest offset type), ours its size_t ones.  Each sort is timed
 * with CUDA events on one stream; ours includes its one wait for the
 * classification's counts.  Results are checked equal to CUB's: keys to
 * SortKeys', pairs to StableSortPairs' (SortPairs need not be stable; ours
 * is), computed once, untimed.
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cub/device/device_segmented_sort.cuh>
#include <cuda_runtime.h>

#include "portsort_cuda.h"

extern "C" {
#include "ps_cli_bench_parts.h"

/* The generator tools/cli/ps_cli_segments.c draws segment lengths from (the
 * CLI has it in ps_cli_data.c, with the datasets this tool does not need). */
uint64_t ps_cli_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
}

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                 cudaGetErrorString(e_)); std::exit(1); } } while (0)

enum Case { U32_KEYS, U32_PAIRS, U64_KEYS };
static const char *case_name[] = { "u32-keys", "u32/u32-pairs", "u64-keys" };
enum Who { OURS, CUB, WHOLE, WHO_COUNT };

struct Bufs {
    void *src_k, *src_v, *k, *v, *alt_k, *alt_v, *cub_temp, *ours_scratch, *whole_scratch;
    size_t *d_off;
    int *d_ioff;
    size_t cub_bytes, ours_bytes, whole_bytes;
};

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* CUB's segmented sort; query: only size its temporary storage.  stable:
 * StableSortPairs instead of SortPairs (the reference for pairs). */
template <typename K>
static void cub_sort(Bufs &b, size_t n, size_t ns, bool pairs, bool stable,
                     cudaStream_t s, bool query)
{
    cub::DoubleBuffer<K> keys((K *)b.k, (K *)b.alt_k);
    cub::DoubleBuffer<uint32_t> vals((uint32_t *)b.v, (uint32_t *)b.alt_v);
    size_t bytes = query ? 0 : b.cub_bytes;
    void *temp = query ? nullptr : b.cub_temp;
    if (pairs && stable)
        CK(cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, keys, vals, (int64_t)n,
                                                     (int64_t)ns, b.d_ioff, b.d_ioff + 1, s));
    else if (pairs)
        CK(cub::DeviceSegmentedSort::SortPairs(temp, bytes, keys, vals, (int64_t)n,
                                               (int64_t)ns, b.d_ioff, b.d_ioff + 1, s));
    else
        CK(cub::DeviceSegmentedSort::SortKeys(temp, bytes, keys, (int64_t)n, (int64_t)ns,
                                              b.d_ioff, b.d_ioff + 1, s));
    if (query) {
        b.cub_bytes = std::max(b.cub_bytes, bytes);
        return;
    }
    if (keys.Current() != (K *)b.k)
        CK(cudaMemcpyAsync(b.k, keys.Current(), n * sizeof(K), cudaMemcpyDeviceToDevice, s));
    if (pairs && vals.Current() != (uint32_t *)b.v)
        CK(cudaMemcpyAsync(b.v, vals.Current(), n * 4, cudaMemcpyDeviceToDevice, s));
}

static int run_one(Bufs &b, size_t n, size_t ns, Case c, Who w, cudaStream_t s)
{
    ps_type t = c == U64_KEYS ? PS_U64 : PS_U32;
    bool pairs = c == U32_PAIRS;
    if (w == WHOLE)
        return pairs ? ps_cuda_sort_pairs(b.k, b.v, 4, n, t, 0, b.whole_scratch,
                                          b.whole_bytes, s)
                     : ps_cuda_sort_keys(b.k, n, t, 0, b.whole_scratch, b.whole_bytes, s);
    return ps_cuda_sort_segments(b.k, pairs ? b.v : nullptr, pairs ? 4 : 0, n, b.d_off, ns,
                                 t, 0, b.ours_scratch, b.ours_bytes, s);
}

int main(int argc, char **argv)
{
    size_t n = 10000000;
    int reps = 7, i;
    const char *csv_path = nullptr;
    std::vector<const char *> shapes;
    for (i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "-n") && i + 1 < argc) n = std::strtoull(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (argv[i][0] != '-') shapes.push_back(argv[i]);
        else {
            std::fprintf(stderr, "usage: %s [-n N] [--reps R] [--csv F] [SHAPE[:K]...]\n",
                         argv[0]);
            return 2;
        }
    }
    if (shapes.empty())
        shapes = { "csr", "uniform", "power-law", "equal" };
    if (n < 2 || n > 0x7fffffff || reps < 1) {
        std::fprintf(stderr, "-n 2 .. 2^31 - 1 (CUB's int offsets), --reps >= 1\n");
        return 2;
    }
    if (!ps_cuda_available()) {
        std::printf("SKIP: CUDA device API unavailable: %s\n", ps_error_detail());
        return 77;
    }
    cudaDeviceProp prop;
    int dev;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    std::printf("device: %s (sm_%d%d, %d SMs), n = %zu, median of %d\n", prop.name,
                prop.major, prop.minor, prop.multiProcessorCount, n, reps);
    FILE *csv = csv_path ? std::fopen(csv_path, "w") : nullptr;
    if (csv)
        std::fprintf(csv, "gpu,n,shape,segments,case,ours_ms,cub_ms,whole_ms,"
                     "cub_over_ours,ours_over_whole\n");
    std::printf("%-14s %9s %-14s %9s %9s %9s %8s %9s\n", "shape", "segments", "case",
                "ours ms", "cub ms", "whole ms", "cub/ours", "ours/whole");

    cudaStream_t s;
    cudaEvent_t e0, e1;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    uint64_t rng = 0x5e9;
    for (const char *spec : shapes) {
        char name[64];
        std::snprintf(name, sizeof name, "%s", spec);
        char *colon = std::strchr(name, ':');
        if (colon)
            *colon = '\0';
        const ps_cli_segshape *shape = ps_cli_segshape_by_name(name);
        if (shape == nullptr) {
            std::fprintf(stderr, "unknown shape '%s'\n", name);
            return 2;
        }
        unsigned param = colon ? (unsigned)std::atoi(colon + 1) : shape->param;
        std::vector<size_t> off(n + 1);
        size_t ns = shape->make(n, param, off.data());
        std::vector<int> ioff(off.begin(), off.begin() + ns + 1);
        for (int c = 0; c < 3; c++) {
            size_t kb = c == U64_KEYS ? 8 : 4;
            bool pairs = c == U32_PAIRS;
            ps_type t = kb == 8 ? PS_U64 : PS_U32;
            Bufs b = {};
            std::vector<unsigned char> hk(n * kb), hv(pairs ? n * 4 : 0);
            std::vector<unsigned char> got_k[WHO_COUNT], got_v[WHO_COUNT], ref_v;
            for (size_t j = 0; j < n; j++) {
                uint64_t r = ps_cli_mix64(rng++);
                std::memcpy(&hk[j * kb], &r, kb);
                if (pairs) {
                    uint32_t v = (uint32_t)j;
                    std::memcpy(&hv[j * 4], &v, 4);
                }
            }
            CK(cudaMalloc(&b.src_k, n * kb));
            CK(cudaMalloc(&b.k, n * kb));
            CK(cudaMalloc(&b.alt_k, n * kb));
            CK(cudaMalloc(&b.d_off, (ns + 1) * sizeof(size_t)));
            CK(cudaMalloc(&b.d_ioff, (ns + 1) * sizeof(int)));
            CK(cudaMemcpy(b.src_k, hk.data(), n * kb, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(b.d_off, off.data(), (ns + 1) * sizeof(size_t), cudaMemcpyHostToDevice));
            CK(cudaMemcpy(b.d_ioff, ioff.data(), (ns + 1) * sizeof(int), cudaMemcpyHostToDevice));
            if (pairs) {
                CK(cudaMalloc(&b.src_v, n * 4));
                CK(cudaMalloc(&b.v, n * 4));
                CK(cudaMalloc(&b.alt_v, n * 4));
                CK(cudaMemcpy(b.src_v, hv.data(), n * 4, cudaMemcpyHostToDevice));
            }
            for (int stable = 0; stable < 2; stable++) {
                if (kb == 8) cub_sort<uint64_t>(b, n, ns, pairs, stable, s, true);
                else cub_sort<uint32_t>(b, n, ns, pairs, stable, s, true);
            }
            CK(cudaMalloc(&b.cub_temp, b.cub_bytes));
            if (ps_cuda_scratch_size(PS_GPU_SORT_SEGMENTS, n, t, pairs ? 4 : 0,
                                     &b.ours_bytes) != PS_OK
                || ps_cuda_scratch_size(pairs ? PS_GPU_SORT_PAIRS : PS_GPU_SORT_KEYS, n, t, 4,
                                        &b.whole_bytes) != PS_OK) {
                std::fprintf(stderr, "scratch_size: %s\n", ps_error_detail());
                return 1;
            }
            CK(cudaMalloc(&b.ours_scratch, b.ours_bytes ? b.ours_bytes : 1));
            CK(cudaMalloc(&b.whole_scratch, b.whole_bytes ? b.whole_bytes : 1));
            if (pairs) {    /* the stable reference for the values */
                CK(cudaMemcpy(b.k, b.src_k, n * kb, cudaMemcpyDeviceToDevice));
                CK(cudaMemcpy(b.v, b.src_v, n * 4, cudaMemcpyDeviceToDevice));
                cub_sort<uint32_t>(b, n, ns, true, true, s, false);
                CK(cudaStreamSynchronize(s));
                ref_v.resize(n * 4);
                CK(cudaMemcpy(ref_v.data(), b.v, n * 4, cudaMemcpyDeviceToHost));
            }

            std::vector<double> times[WHO_COUNT];
            for (int r = 0; r <= reps; r++) {      /* r == 0: warm-up and check */
                for (int w = 0; w < WHO_COUNT; w++) {
                    CK(cudaMemcpyAsync(b.k, b.src_k, n * kb, cudaMemcpyDeviceToDevice, s));
                    if (pairs)
                        CK(cudaMemcpyAsync(b.v, b.src_v, n * 4, cudaMemcpyDeviceToDevice, s));
                    CK(cudaEventRecord(e0, s));
                    if (w == CUB) {
                        if (kb == 8) cub_sort<uint64_t>(b, n, ns, pairs, false, s, false);
                        else cub_sort<uint32_t>(b, n, ns, pairs, false, s, false);
                    } else if (run_one(b, n, ns, (Case)c, (Who)w, s) != PS_OK) {
                        std::fprintf(stderr, "portsort: %s\n", ps_error_detail());
                        return 1;
                    }
                    CK(cudaEventRecord(e1, s));
                    CK(cudaEventSynchronize(e1));
                    float ms;
                    CK(cudaEventElapsedTime(&ms, e0, e1));
                    if (r > 0)
                        times[w].push_back(ms);
                    else if (w != WHOLE) {
                        got_k[w].resize(n * kb);
                        CK(cudaMemcpy(got_k[w].data(), b.k, n * kb, cudaMemcpyDeviceToHost));
                        if (pairs) {
                            got_v[w].resize(n * 4);
                            CK(cudaMemcpy(got_v[w].data(), b.v, n * 4, cudaMemcpyDeviceToHost));
                        }
                    }
                }
            }
            bool ok = got_k[OURS] == got_k[CUB] && (!pairs || got_v[OURS] == ref_v);
            double ms[WHO_COUNT];
            for (int w = 0; w < WHO_COUNT; w++)
                ms[w] = median(times[w]);
            std::printf("%-14s %9zu %-14s %9.3f %9.3f %9.3f %7.2fx %9.2f%s\n", spec, ns,
                        case_name[c], ms[OURS], ms[CUB], ms[WHOLE], ms[CUB] / ms[OURS],
                        ms[OURS] / ms[WHOLE], ok ? "" : "  MISMATCH");
            std::fflush(stdout);
            if (csv)
                std::fprintf(csv, "\"%s\",%zu,%s,%zu,%s,%.4f,%.4f,%.4f,%.3f,%.3f\n",
                             prop.name, n, spec, ns, case_name[c], ms[OURS], ms[CUB],
                             ms[WHOLE], ms[CUB] / ms[OURS], ms[OURS] / ms[WHOLE]);
            cudaFree(b.src_k); cudaFree(b.k); cudaFree(b.alt_k); cudaFree(b.src_v);
            cudaFree(b.v); cudaFree(b.alt_v); cudaFree(b.cub_temp); cudaFree(b.ours_scratch);
            cudaFree(b.whole_scratch); cudaFree(b.d_off); cudaFree(b.d_ioff);
            if (!ok) {
                std::fprintf(stderr, "results differ from CUB's\n");
                return 1;
            }
        }
    }
    if (csv)
        std::fclose(csv);
    return 0;
}
