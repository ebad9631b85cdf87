// ps_clbench - libportsort's OpenCL sort against Boost.Compute's sort on the
// same OpenCL device and the same data (4M random u32 keys by default, keys
// and u32/u32 pairs).  Both sort device buffers on one queue, so the
// comparison is kernel work only; the host-array API (copies included) is
// timed as well.  Best of R runs after a warm-up run (which builds and
// caches the kernels of both libraries).
//
//   bench/ps_clbench [n] [runs]
//
// The device is the one PORTSORT_OPENCL_DEVICE selects, by the same rule
// (an index "P:D" or a name substring; default: first GPU, else first device).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CL_TARGET_OPENCL_VERSION 120
#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/algorithm/sort_by_key.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/system.hpp>

#include "portsort.h"
#include "portsort_opencl.h"

namespace bc = boost::compute;

static double now()
{
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

static bc::device pick()
{
    const char *want = std::getenv("PORTSORT_OPENCL_DEVICE");
    std::vector<bc::platform> ps = bc::system::platforms();
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < ps.size(); i++) {
            std::vector<bc::device> ds = ps[i].devices();
            for (size_t j = 0; j < ds.size(); j++) {
                if (want != nullptr && *want) {
                    char idx[64];
                    std::snprintf(idx, sizeof idx, "%zu:%zu", i, j);
                    if (std::strcmp(idx, want) == 0
                        || ds[j].name().find(want) != std::string::npos)
                        return ds[j];
                } else if (pass == 1 || ds[j].type() & CL_DEVICE_TYPE_GPU) {
                    return ds[j];
                }
            }
        }
    std::fprintf(stderr, "ps_clbench: no OpenCL device\n");
    std::exit(77);
}

static bool sorted_pairs(const std::vector<cl_uint> &k, const std::vector<cl_uint> &v,
                         const std::vector<cl_uint> &k0)
{
    for (size_t i = 1; i < k.size(); i++)
        if (k[i - 1] > k[i])
            return false;
    if (v.empty())
        return true;
    for (size_t i = 0; i < k.size(); i++)
        if (k0[v[i]] != k[i] || (i && k[i - 1] == k[i] && v[i - 1] > v[i]))
            return false;
    return true;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (size_t)1 << 22;
    int runs = argc > 2 ? std::atoi(argv[2]) : 5;
    bc::device dev = pick();
    bc::context ctx(dev);
    bc::command_queue q(ctx, dev);
    std::vector<cl_uint> keys(n), idx(n), out(n), vout(n);
    unsigned long long s = 42;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        keys[i] = (cl_uint)(s >> 11);
        idx[i] = (cl_uint)i;
    }
    bc::vector<cl_uint> dk(n, ctx), dv(n, ctx);
    size_t scratch_bytes = 0;
    if (ps_opencl_scratch_size(q.get(), n, PS_U32, 4, &scratch_bytes) != PS_OK) {
        std::fprintf(stderr, "ps_clbench: %s\n", ps_error_detail());
        return 1;
    }
    bc::buffer scratch(ctx, scratch_bytes ? scratch_bytes : 4);

    std::printf("device: %s (%s)\nn = %zu random u32, best of %d runs after a warm-up\n",
                dev.name().c_str(), dev.platform().name().c_str(), n, runs);
    std::printf("%-34s %10s %10s\n", "what", "ms", "Mkeys/s");
    for (int pairs = 0; pairs < 2; pairs++) {
        double best_ps = 1e9, best_bc = 1e9;
        bool ok = true;
        for (int r = 0; r <= runs; r++) {
            bc::copy(keys.begin(), keys.end(), dk.begin(), q);
            if (pairs)
                bc::copy(idx.begin(), idx.end(), dv.begin(), q);
            q.finish();
            double t0 = now();
            int st = pairs
                ? ps_opencl_sort_pairs(q.get(), dk.get_buffer().get(), 0,
                                       dv.get_buffer().get(), 0, 4, n, PS_U32, 0,
                                       scratch.get(), scratch_bytes)
                : ps_opencl_sort_keys(q.get(), dk.get_buffer().get(), 0, n, PS_U32,
                                      0, scratch.get(), scratch_bytes);
            q.finish();
            double t = now() - t0;
            if (st != PS_OK) {
                std::fprintf(stderr, "ps_clbench: %s: %s\n", ps_strerror(st),
                             ps_error_detail());
                return 1;
            }
            if (r > 0)
                best_ps = std::min(best_ps, t);
            if (r == runs) {
                bc::copy(dk.begin(), dk.end(), out.begin(), q);
                if (pairs)
                    bc::copy(dv.begin(), dv.end(), vout.begin(), q);
                ok = ok && sorted_pairs(out, pairs ? vout : std::vector<cl_uint>(), keys);
            }

            bc::copy(keys.begin(), keys.end(), dk.begin(), q);
            if (pairs)
                bc::copy(idx.begin(), idx.end(), dv.begin(), q);
            q.finish();
            t0 = now();
            if (pairs)
                bc::sort_by_key(dk.begin(), dk.end(), dv.begin(), q);
            else
                bc::sort(dk.begin(), dk.end(), q);
            q.finish();
            t = now() - t0;
            if (r > 0)
                best_bc = std::min(best_bc, t);
            if (r == runs) {
                bc::copy(dk.begin(), dk.end(), out.begin(), q);
                if (pairs)
                    bc::copy(dv.begin(), dv.end(), vout.begin(), q);
                ok = ok && sorted_pairs(out, pairs ? vout : std::vector<cl_uint>(), keys);
            }
        }
        const char *what = pairs ? "u32/u32 pairs" : "u32 keys";
        std::printf("%-34s %10.1f %10.1f\n", (std::string("portsort cl_mem, ") + what).c_str(),
                    best_ps * 1e3, n / best_ps / 1e6);
        std::printf("%-34s %10.1f %10.1f\n", (std::string("Boost.Compute, ") + what).c_str(),
                    best_bc * 1e3, n / best_bc / 1e6);
        std::printf("%-34s %10.2fx%s\n", "speed-up", best_bc / best_ps,
                    ok ? "" : "   RESULTS WRONG");
        if (!ok)
            return 1;
    }
    // The host-array API on the same data (copies to and from the device
    // included), when PORTSORT_BACKEND=opencl.
    if (std::getenv("PORTSORT_BACKEND") && !std::strcmp(std::getenv("PORTSORT_BACKEND"), "opencl")) {
        double best = 1e9;
        for (int r = 0; r <= runs; r++) {
            out = keys;
            double t0 = now();
            if (ps_sort_keys(out.data(), n, PS_U32, 0) != PS_OK) {
                std::fprintf(stderr, "ps_clbench: %s\n", ps_error_detail());
                return 1;
            }
            double t = now() - t0;
            if (r > 0)
                best = std::min(best, t);
        }
        std::printf("%-34s %10.1f %10.1f\n", "portsort host API, u32 keys",
                    best * 1e3, n / best / 1e6);
    }
    return 0;
}
