# backends/cuda: the CUDA backend, a libtool module (ps_cuda.so) built with
# nvcc from the shared host code in backends/gpu and the shared kernels in
# backends/kernels, with the CUDA runtime linked statically so that it needs
# only the driver (libcuda.so.1) at run time.
if PS_HAVE_CUDA
pkglib_LTLIBRARIES += backends/cuda/ps_cuda.la
PS_CUDA_KERNEL_LOS = $(PS_GPU_KV:%=backends/cuda/ps_cuda_k%.lo) \
	backends/cuda/ps_cuda_util.lo
backends_cuda_ps_cuda_la_SOURCES = $(PS_GPU_HOST_SOURCES)
backends_cuda_ps_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(PS_CUDA_CPPFLAGS) \
	-I$(top_srcdir)/backends/gpu -I$(top_srcdir)/backends/device -DPS_GPU_CUDA \
	-DPS_GPU_ARCH_LIST='"$(PS_CUDA_ARCH)"'
# --exclude-libs keeps the static runtime's symbols out of the module's
# exports: only ps_backend_entry is visible.
backends_cuda_ps_cuda_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--exclude-libs,ALL
backends_cuda_ps_cuda_la_LIBADD = $(PS_CUDA_KERNEL_LOS) backends/device/libps_device.la \
	$(PS_CUDA_LIBS) $(PTHREAD_LIBS) -lstdc++
backends_cuda_ps_cuda_la_DEPENDENCIES = $(PS_CUDA_KERNEL_LOS) \
	backends/device/libps_device.la
CLEANFILES += $(PS_CUDA_KERNEL_LOS) $(PS_CUDA_KERNEL_LOS:.lo=.o) \
	$(PS_GPU_KV:%=backends/cuda/ps_cuda_k%.ptxas)

PS_NVCC = $(NVCC) $(PS_NVCC_FLAGS) $(PS_GPU_KINC) -I$(top_srcdir)/lib

# ptxas's report on every kernel of each instantiation (registers, spills,
# shared memory, per target) goes to ps_cuda_kKV.ptxas beside the object,
# for test/ptxas-report.sh; anything else the compiler says is shown, and
# all of it when the compile fails.
PS_PTXAS_QUIET = -e '^ptxas info' -e 'bytes stack frame' -e 'ps-occupancy' -e '^ *\^ *$$' -e '^$$'
ps_ptxas_log = 2> $(1).ptxas || { cat $(1).ptxas >&2; exit 1; }; \
	grep -v $(PS_PTXAS_QUIET) $(1).ptxas >&2; :

backends/cuda/ps_cuda_k%.lo: $(PS_GPU_KERNEL_DEPS)
	$(AM_V_GEN)kv='$*'; $(call ps_gpu_obj,$(PS_NVCC) -Xptxas -v,$(srcdir)/backends/gpu/ps_gpu_kernels.cu,backends/cuda/ps_cuda_k$*,-DPS_KEY_BITS=$${kv%%_v*} -DPS_VAL_BYTES=$${kv##*_v},$(call ps_ptxas_log,backends/cuda/ps_cuda_k$*))

backends/cuda/ps_cuda_util.lo: $(srcdir)/backends/gpu/ps_gpu_util.cu
	$(AM_V_GEN)$(call ps_gpu_obj,$(PS_NVCC),$(srcdir)/backends/gpu/ps_gpu_util.cu,backends/cuda/ps_cuda_util)
endif

# ptxas's report on every kernel, checked for spills and for the
# occupancy the tuning assumes (skipped where the module is not built).
dist_check_SCRIPTS += test/ptxas-report.sh
TESTS += test/ptxas-report.sh

# The device API on a real GPU, run by test/cuda.sh (which skips without
# one) and by bench/gpu-run.sh.
if PS_HAVE_CUDA
check_PROGRAMS += test/ps_test_cuda_device
test_ps_test_cuda_device_SOURCES = test/ps_test_cuda_device.c test/ps_test_topkdev.c \
	test/ps_test_recdev.c test/ps_test_util.c
test_ps_test_cuda_device_CPPFLAGS = $(AM_CPPFLAGS) $(PS_CUDA_CPPFLAGS)
test_ps_test_cuda_device_LDADD = lib/libportsort.la $(PS_CUDA_LIBS) $(PTHREAD_LIBS)
endif
EXTRA_DIST += test/ps_test_cuda_device.c
# The CUDA benchmarks and bench/gpu-run.sh are in bench/local.mk.
