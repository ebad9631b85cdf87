# backends/hip: the HIP backend, a libtool module (ps_hip.so) built with
# hipcc from the same host code and kernels as the CUDA one (backends/gpu,
# backends/kernels).  It links libamdhip64, the only form of the HIP
# runtime ROCm ships.
if PS_HAVE_HIP
pkglib_LTLIBRARIES += backends/hip/ps_hip.la
PS_HIP_KERNEL_LOS = $(PS_GPU_KV:%=backends/hip/ps_hip_k%.lo) \
	backends/hip/ps_hip_util.lo
backends_hip_ps_hip_la_SOURCES = $(PS_GPU_HOST_SOURCES)
backends_hip_ps_hip_la_CPPFLAGS = $(AM_CPPFLAGS) $(PS_HIP_CPPFLAGS) \
	-I$(top_srcdir)/backends/gpu -I$(top_srcdir)/backends/device -DPS_GPU_HIP \
	-DPS_GPU_ARCH_LIST='"$(PS_HIP_ARCH)"'
backends_hip_ps_hip_la_LDFLAGS = -module -avoid-version -shared
backends_hip_ps_hip_la_LIBADD = $(PS_HIP_KERNEL_LOS) backends/device/libps_device.la \
	$(PS_HIP_LIBS) $(PTHREAD_LIBS)
backends_hip_ps_hip_la_DEPENDENCIES = $(PS_HIP_KERNEL_LOS) \
	backends/device/libps_device.la
CLEANFILES += $(PS_HIP_KERNEL_LOS) $(PS_HIP_KERNEL_LOS:.lo=.o)

PS_HIPCC = $(HIPCC) -x hip $(PS_HIPCC_FLAGS) $(PS_HIP_CPPFLAGS) $(PS_GPU_KINC) \
	-I$(top_srcdir)/lib

backends/hip/ps_hip_k%.lo: $(PS_GPU_KERNEL_DEPS)
	$(AM_V_GEN)kv='$*'; $(call ps_gpu_obj,$(PS_HIPCC),$(srcdir)/backends/gpu/ps_gpu_kernels.cu,backends/hip/ps_hip_k$*,-DPS_KEY_BITS=$${kv%%_v*} -DPS_VAL_BYTES=$${kv##*_v})

backends/hip/ps_hip_util.lo: $(srcdir)/backends/gpu/ps_gpu_util.cu
	$(AM_V_GEN)$(call ps_gpu_obj,$(PS_HIPCC),$(srcdir)/backends/gpu/ps_gpu_util.cu,backends/hip/ps_hip_util)
endif

# The kernels' warp width on wave32 and wave64 targets, compiled with hipcc
# when it is here, whether or not the module is built (skips without it).
dist_check_SCRIPTS += test/hip-wavesize.sh
TESTS += test/hip-wavesize.sh
