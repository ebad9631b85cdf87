# lib/: the public header, the backend interface and the core (argument
# checks, fallbacks, backend choice, module loading, errors).
lib_LTLIBRARIES += lib/libportsort.la
include_HEADERS += lib/portsort.h
# Always installed (it includes CL/cl.h); its inline functions reach the
# OpenCL module through ps_device_api(), so the core links no OpenCL.
include_HEADERS += lib/portsort_opencl.h
noinst_HEADERS += lib/ps_backend.h lib/ps_env.h lib/ps_internal.h lib/ps_keytype.h lib/ps_overlap.h lib/ps_recplan.h \
	lib/ps_squeeze.h
pkgconfig_DATA += lib/portsort.pc

lib_libportsort_la_SOURCES = \
	lib/ps_api.c \
	lib/ps_chunks.c \
	lib/ps_dispatch.c \
	lib/ps_registry.c \
	lib/ps_error.c \
	lib/ps_host.c \
	lib/ps_index.c \
	lib/ps_module.c \
	lib/ps_pieces.c \
	lib/ps_scratch.c \
	lib/ps_segments.c \
	lib/ps_seglimit.c \
	lib/ps_strings.c \
	lib/ps_topk.c \
	lib/ps_topk_x512.c \
	lib/ps_topk_vec.c \
	lib/ps_topk_vec.h \
	lib/ps_topk_avx2.c \
	lib/ps_records.c
lib_libportsort_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/reference \
	-DPS_MODULE_DIR='"$(pkglibdir)"' -DPS_MODULE_SUBDIR='"$(PACKAGE)"'
# Built-in backends add themselves to these two.
lib_libportsort_la_LIBADD = reference/libpsreference.la backends/serial/libps_serial.la
# PS_NODELETE_LDFLAGS: dlclose never unmaps the library (m4/ps_compiler.m4).
lib_libportsort_la_LDFLAGS = -version-info $(PS_LT_VERSION) -no-undefined \
	$(PTHREAD_LIBS) $(PS_NODELETE_LDFLAGS)
