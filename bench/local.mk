# bench/: the developer benchmarks and GPU-session scripts, none installed.
# Each compares libportsort with the best peer that runs where it is built;
# doc/results-*.md and doc/cuda.md give the commands and the figures.

# The CPU benchmark of issue 34: ours against every sorter that runs here
# (the plain LSD, std::sort, and those configure found: vqsort, oneTBB,
# libstdc++'s parallel mode, Boost.Sort; m4/ps_peers.m4), and the shared
# objects named in PS_BENCH_PEERS (ps_bench_peer.h), quiet and under load.
# The inputs are those of portsort bench (tools/cli/ps_cli_data.c).
# bench/ps_cpubench.sh runs the whole matrix; doc/results-openmp.md has
# its figures.
# Every program here but ps_gpu_traffic (a test's) is left out of `make`
# by configure --disable-benchmarks (PS_BENCH), as CI's extra builds do.
if PS_BENCH
noinst_PROGRAMS += bench/ps_cpubench
endif
bench_ps_cpubench_SOURCES = bench/ps_cpubench.c bench/ps_cpubench.h \
	bench/ps_bench_peer.h bench/ps_cpubench_sorters.c bench/ps_cpubench_proc.c \
	bench/ps_cpubench_peers.cc tools/cli/peers/ps_peer_vqsort.cc \
	tools/cli/ps_cli_data.c tools/cli/ps_cli_types.c
bench_ps_cpubench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/cli \
	-I$(top_srcdir)/bench
bench_ps_cpubench_CXXFLAGS = $(PS_WARN_CFLAGS) $(PTHREAD_CFLAGS) $(PS_BENCH_CXXFLAGS)
bench_ps_cpubench_LDADD = lib/libportsort.la $(PS_HWY_LIBS) $(PS_BENCH_LIBS) \
	$(PTHREAD_LIBS) -lm
EXTRA_DIST += bench/ps_cpubench.sh
# The peers the project does not carry, built from their checkouts for
# PS_BENCH_PEERS (bench/peers/build.sh; doc/results-openmp.md).
EXTRA_DIST += bench/peers/build.sh bench/peers/ps_peer_xss.cc \
	bench/peers/ps_peer_ips.cc

# ps_topk against ps_sort_keys on the same keys, and ps_topk_segments
# against ps_sort_segments (issue 30); doc/topk.md has the figures.
if PS_BENCH
noinst_PROGRAMS += bench/ps_topkbench
endif
bench_ps_topkbench_SOURCES = bench/ps_topkbench.c bench/ps_bench_clock.h
bench_ps_topkbench_LDADD = lib/libportsort.la

# ps_sort_records against qsort with a comparator (issue 31);
# doc/records.md has the figures.
if PS_BENCH
noinst_PROGRAMS += bench/ps_recbench
endif
bench_ps_recbench_SOURCES = bench/ps_recbench.c bench/ps_recbench_std.cc
bench_ps_recbench_CXXFLAGS = $(PS_WARN_CFLAGS) $(PS_BENCH_CXXFLAGS)
bench_ps_recbench_LDADD = lib/libportsort.la
# ps_sort_strings against qsort(strcmp) and tlx::sort_strings, loaded at
# run time from bench/ps_strbench_tlx.cc (issue 29); doc/strings.md has
# the figures and the command that builds the tlx peer.
if PS_BENCH
noinst_PROGRAMS += bench/ps_strbench
endif
bench_ps_strbench_SOURCES = bench/ps_strbench.c bench/ps_bench_clock.h
bench_ps_strbench_LDADD = lib/libportsort.la
EXTRA_DIST += bench/ps_strbench_tlx.cc

# The OpenCL benchmark against Boost.Compute (optional peer).
EXTRA_DIST += bench/ps_clbench.cc
if PS_HAVE_BOOST_COMPUTE
if PS_BENCH
noinst_PROGRAMS += bench/ps_clbench
endif
bench_ps_clbench_SOURCES = bench/ps_clbench.cc
bench_ps_clbench_CPPFLAGS = $(AM_CPPFLAGS) $(PS_OPENCL_CPPFLAGS)
bench_ps_clbench_CXXFLAGS = $(PS_WARN_CFLAGS) -Wno-deprecated-declarations
bench_ps_clbench_LDADD = lib/libportsort.la $(PS_OPENCL_LDFLAGS) $(PS_OPENCL_LIBS)
endif

# bench/ps_cudabench: our device-pointer sort against cub::DeviceRadixSort
# (CUB ships with the toolkit).  nvcc compiles it; libtool links it against
# libportsort and the static CUDA runtime.  bench/gpu-run.sh builds, tests
# and times the CUDA backend on a machine with a GPU (doc/cuda.md).
EXTRA_DIST += bench/ps_cudabench.cu bench/ps_cudasegbench.cu bench/gpu-run.sh \
	bench/ps_sass_stats.py bench/ps_ncu_summary.py
if PS_HAVE_CUDA
if PS_BENCH
noinst_PROGRAMS += bench/ps_cudabench
endif
bench_ps_cudabench_SOURCES =
bench_ps_cudabench_LDADD = bench/ps_cudabench_cu.$(OBJEXT) lib/libportsort.la \
	$(PS_CUDA_LIBS) $(PTHREAD_LIBS) -lstdc++ -lm
bench_ps_cudabench_DEPENDENCIES = bench/ps_cudabench_cu.$(OBJEXT) lib/libportsort.la
CLEANFILES += bench/ps_cudabench_cu.$(OBJEXT)
bench/ps_cudabench_cu.$(OBJEXT): $(srcdir)/bench/ps_cudabench.cu $(srcdir)/lib/portsort_cuda.h \
		$(srcdir)/lib/portsort_gpu.h $(srcdir)/lib/portsort.h
	$(AM_V_GEN)$(MKDIR_P) bench && \
	$(NVCC) $(PS_NVCC_FLAGS) -I$(top_srcdir)/lib -c $(srcdir)/bench/ps_cudabench.cu -o $@
endif

# bench/ps_cudasegbench: ps_cuda_sort_segments against
# cub::DeviceSegmentedSort on the shapes of `portsort bench --segments`
# (the same generator, tools/cli/ps_cli_segments.c, compiled in).
if PS_HAVE_CUDA
if PS_BENCH
noinst_PROGRAMS += bench/ps_cudasegbench
endif
bench_ps_cudasegbench_SOURCES = tools/cli/ps_cli_segments.c
bench_ps_cudasegbench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/cli
bench_ps_cudasegbench_LDADD = bench/ps_cudasegbench_cu.$(OBJEXT) lib/libportsort.la \
	$(PS_CUDA_LIBS) $(PTHREAD_LIBS) -lstdc++ -lm
bench_ps_cudasegbench_DEPENDENCIES = bench/ps_cudasegbench_cu.$(OBJEXT) lib/libportsort.la
CLEANFILES += bench/ps_cudasegbench_cu.$(OBJEXT)
bench/ps_cudasegbench_cu.$(OBJEXT): $(srcdir)/bench/ps_cudasegbench.cu \
		$(srcdir)/lib/portsort_cuda.h $(srcdir)/lib/portsort_gpu.h \
		$(srcdir)/lib/portsort.h $(srcdir)/tools/cli/ps_cli_bench_parts.h
	$(AM_V_GEN)$(MKDIR_P) bench && \
	$(NVCC) $(PS_NVCC_FLAGS) -I$(top_srcdir)/lib -I$(top_srcdir)/tools/cli \
	  -c $(srcdir)/bench/ps_cudasegbench.cu -o $@
endif

# Global-memory bytes per key of the GPU kernels, counted with valgrind's
# DHAT on the CPU stand-in runtime (bench/ps_gpu_traffic.sh, doc/cuda.md).
# Built with the tests; it needs no GPU and no CUDA header.
check_PROGRAMS += bench/ps_gpu_traffic
bench_ps_gpu_traffic_SOURCES = bench/ps_gpu_traffic.c
bench_ps_gpu_traffic_LDADD = lib/libportsort.la
EXTRA_DIST += bench/ps_gpu_traffic.sh

# portsort sort against GNU sort on 10M-line files (doc/cli-sort.md).
EXTRA_DIST += bench/ps_cli_vs_sort.sh bench/ps_external_bench.sh \
	bench/ps_external_text_bench.sh bench/ps_external_values_bench.sh \
	bench/ps_external_common.sh

# portsort.sort against NumPy (doc/python.md).
EXTRA_DIST += bench/ps_py_bench.py bench/ps_topk_peers.py \
	bench/ps_records_peers.py
