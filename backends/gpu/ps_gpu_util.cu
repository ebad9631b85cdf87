/*
 * ps_gpu_util.cu - the one kernel the CUDA/HIP device API needs beyond the
 * shared radix kernels: the identity permutation that argsort sorts as
 * values.  (The host-array API builds it on the host instead.)
 */
#if defined(__HIPCC__)
#  include <hip/hip_runtime.h>
#endif

namespace ps_util {
__global__ void __launch_bounds__(256) ps_iota64(unsigned long long *out,
                                                 unsigned long long n)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (; i < n; i += stride)
        out[i] = i;
}
}

extern "C" {
extern const void *const ps_gpu_iota64_kernel;
const void *const ps_gpu_iota64_kernel = (const void *)&ps_util::ps_iota64;
}
