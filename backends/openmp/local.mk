# backends/openmp: the parallel radix sort on the host CPU, built into
# libportsort (unless configure --disable-openmp).  Its threads are its own
# (ps_openmp_team.c), started with pthreads: it needs no OpenMP runtime.
if PS_HAVE_OPENMP
noinst_LTLIBRARIES += backends/openmp/libps_openmp.la
backends_openmp_libps_openmp_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/reference
backends_openmp_libps_openmp_la_SOURCES = backends/openmp/ps_openmp.c \
	backends/openmp/ps_openmp_plan.c backends/openmp/ps_openmp_plan.h \
	backends/openmp/ps_openmp_segments.c \
	backends/openmp/ps_openmp_sort.h backends/openmp/ps_openmp_msd.c \
	backends/openmp/ps_openmp_leaf-inl.h \
	backends/openmp/ps_openmp_kernels.c \
	backends/openmp/ps_openmp_kernels-inl.h \
	backends/openmp/ps_openmp_packed-inl.h \
	backends/openmp/ps_openmp_net.c backends/openmp/ps_openmp_net.h \
	backends/openmp/ps_openmp_small-inl.h \
	backends/openmp/ps_openmp_team.c backends/openmp/ps_openmp_team.h
lib_libportsort_la_LIBADD += backends/openmp/libps_openmp.la

check_PROGRAMS += test/ps_test_openmp_large
test_ps_test_openmp_large_SOURCES = test/ps_test_openmp_large.c test/ps_test_util.c \
	test/ps_test_faults.c
test_ps_test_openmp_large_LDADD = lib/libportsort.la $(PTHREAD_LIBS)
TESTS += test/openmp.sh
PS_LONG_BACKENDS += openmp
endif
# Listed whatever the configuration, so that every tarball can build it.
dist_check_SCRIPTS += test/openmp.sh
EXTRA_DIST += backends/openmp/ps_openmp_plan.c backends/openmp/ps_openmp_plan.h \
	backends/openmp/ps_openmp_segments.c \
	backends/openmp/ps_openmp_sort.h backends/openmp/ps_openmp_msd.c \
	backends/openmp/ps_openmp_leaf-inl.h \
	backends/openmp/ps_openmp_kernels.c \
	backends/openmp/ps_openmp_kernels-inl.h \
	backends/openmp/ps_openmp_packed-inl.h \
	backends/openmp/ps_openmp_net.c backends/openmp/ps_openmp_net.h \
	backends/openmp/ps_openmp_small-inl.h \
	backends/openmp/ps_openmp_team.c backends/openmp/ps_openmp_team.h \
	doc/results-openmp.md

# The CPU benchmark, bench/ps_cpubench, is in bench/local.mk.
