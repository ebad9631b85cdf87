# backends/opencl: the OpenCL backend, a libtool module (ps_opencl.so) that
# links only the ICD loader, and the kernel source it embeds.

# The kernel source, in the dialect shared with the CUDA and HIP backends,
# is embedded as one C string: the dialect header first (it defines the
# guard that skips the kernel's own #include of it), then the kernels.
PS_KERNEL_SRC = backends/kernels/ps_kernel_dialect.h \
	backends/kernels/ps_kernel_radix.cl backends/kernels/ps_kernel_onesweep.cl \
	backends/kernels/ps_kernel_segments.cl backends/kernels/ps_kernel_topk.cl \
	backends/kernels/ps_kernel_records.cl
EXTRA_DIST += $(PS_KERNEL_SRC) backends/opencl/ps_opencl_embed.sed \
	doc/results-opencl.md doc/opencl-tuning.md
# Headers distributed in every configuration (portsort_opencl.h is always
# installed; see lib/local.mk).
noinst_HEADERS += backends/opencl/ps_opencl_internal.h

if PS_HAVE_OPENCL
pkglib_LTLIBRARIES += backends/opencl/ps_opencl.la
backends_opencl_ps_opencl_la_SOURCES = \
	backends/opencl/ps_opencl.c \
	backends/opencl/ps_opencl_api.c \
	backends/opencl/ps_opencl_cache.c \
	backends/opencl/ps_opencl_device.c \
	backends/opencl/ps_opencl_error.c \
	backends/opencl/ps_opencl_program.c \
	backends/opencl/ps_opencl_records.c \
	backends/opencl/ps_opencl_segments.c \
	backends/opencl/ps_opencl_sort.c \
	backends/opencl/ps_opencl_topk.c \
	backends/opencl/ps_opencl_tune.c
nodist_backends_opencl_ps_opencl_la_SOURCES = backends/opencl/ps_opencl_source.h
backends_opencl_ps_opencl_la_CPPFLAGS = $(AM_CPPFLAGS) $(PS_OPENCL_CPPFLAGS) \
	-I$(top_builddir)/backends/opencl -I$(top_srcdir)/backends/device
backends_opencl_ps_opencl_la_LDFLAGS = -module -avoid-version -shared \
	$(PS_OPENCL_LDFLAGS)
backends_opencl_ps_opencl_la_LIBADD = backends/device/libps_device.la \
	$(PS_OPENCL_LIBS) $(PTHREAD_LIBS)
BUILT_SOURCES += backends/opencl/ps_opencl_source.h
CLEANFILES += backends/opencl/ps_opencl_source.h
endif

backends/opencl/ps_opencl_source.h: $(PS_KERNEL_SRC) backends/opencl/ps_opencl_embed.sed
	$(AM_V_GEN)$(MKDIR_P) backends/opencl && { \
	  echo '/* Generated from $(PS_KERNEL_SRC) by make: do not edit. */'; \
	  echo 'static const char ps_opencl_source[] ='; \
	  cat $(PS_KERNEL_SRC:%=$(srcdir)/%) | $(SED) -f $(srcdir)/backends/opencl/ps_opencl_embed.sed; \
	  echo ';'; \
	} > $@.tmp && mv $@.tmp $@

# Tests: scripts exit 77 when the module is not built or has no device.
dist_check_SCRIPTS += test/opencl.sh test/opencl-onesweep.sh
TESTS += test/opencl.sh test/opencl-onesweep.sh
if PS_HAVE_OPENCL
PS_LONG_BACKENDS += opencl
endif

# The benchmark against Boost.Compute, bench/ps_clbench, is in
# bench/local.mk.

if PS_HAVE_OPENCL
check_PROGRAMS += test/ps_test_opencl
test_ps_test_opencl_SOURCES = test/ps_test_opencl.c test/ps_test_util.c \
	test/ps_test_topkdev.c test/ps_test_recdev.c
test_ps_test_opencl_CPPFLAGS = $(AM_CPPFLAGS) $(PS_OPENCL_CPPFLAGS)
test_ps_test_opencl_LDADD = lib/libportsort.la $(PS_OPENCL_LDFLAGS) $(PS_OPENCL_LIBS)
endif
dist_check_SCRIPTS += test/opencl-env.sh test/opencl-api.sh test/opencl-cache.sh \
	test/opencl-select.sh test/opencl-devfault.sh test/opencl-chunks.sh
TESTS += test/opencl-api.sh test/opencl-cache.sh test/opencl-select.sh \
	test/opencl-devfault.sh test/opencl-chunks.sh
# Device allocation failures (PORTSORT_TEST_FAIL_DEVICE_ALLOC); the program
# uses only the public API and skips without a usable OpenCL backend.
check_PROGRAMS += test/ps_test_devfault
test_ps_test_devfault_SOURCES = test/ps_test_devfault.c test/ps_test_util.c
test_ps_test_devfault_LDADD = lib/libportsort.la
# Host arrays beyond the device's memory, sorted in pieces (the cap is
# PORTSORT_TEST_DEVICE_MEMORY); public API only, like ps_test_devfault.
check_PROGRAMS += test/ps_test_device_chunks
test_ps_test_device_chunks_SOURCES = test/ps_test_device_chunks.c test/ps_test_util.c
test_ps_test_device_chunks_LDADD = lib/libportsort.la
