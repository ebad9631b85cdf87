# mpi/: libportsort_mpi, the distributed sort over MPI (configure
# --with-mpi).  Only this library and its test get the MPI flags;
# libportsort links no MPI.  doc/mpi.md describes it.
if PS_HAVE_MPI
lib_LTLIBRARIES += mpi/libportsort_mpi.la
include_HEADERS += mpi/portsort_mpi.h
pkgconfig_DATA += mpi/portsort-mpi.pc
mpi_libportsort_mpi_la_SOURCES = mpi/ps_mpi_sort.c mpi/ps_mpi_agree.c \
	mpi/ps_mpi_order.c mpi/ps_mpi_grid.c mpi/ps_mpi_exchange.c \
	mpi/ps_mpi_redistribute.c mpi/ps_mpi_partition.c mpi/ps_mpi_cache.c \
	mpi/ps_mpi_internal.h
mpi_libportsort_mpi_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi $(MPI_CFLAGS)
mpi_libportsort_mpi_la_LIBADD = lib/libportsort.la $(MPI_LIBS)
mpi_libportsort_mpi_la_LDFLAGS = -version-info $(PS_LT_VERSION) -no-undefined

# The differential test: one mpirun per communicator size, each looping
# over every case (test/mpi.sh).
check_PROGRAMS += test/ps_test_mpi
test_ps_test_mpi_SOURCES = test/ps_test_mpi.c test/ps_test_util.c test/ps_test_faults.c
test_ps_test_mpi_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi $(MPI_CFLAGS)
test_ps_test_mpi_LDADD = mpi/libportsort_mpi.la lib/libportsort.la $(MPI_LIBS) -lm

# portsort-mpi: the file sort with MPI-IO and the scaling benchmark
# (tools/cli/portsort_mpi.c), on the type table and the all-or-nothing output
# of the portsort command, built again under its own name.
bin_PROGRAMS += tools/portsort-mpi
man1_MANS = doc/portsort-mpi.1
tools_portsort_mpi_SOURCES = tools/cli/portsort_mpi.c tools/cli/ps_mpi_cli.h \
	tools/cli/ps_mpi_cli_fail.c tools/cli/ps_mpi_cli_sort.c tools/cli/ps_mpi_cli_bench.c \
	tools/cli/ps_mpi_cli_traffic.h tools/cli/ps_mpi_cli_traffic.c tools/cli/ps_cli.h \
	tools/cli/ps_cli_types.c tools/cli/ps_cli_file.c
tools_portsort_mpi_CPPFLAGS = $(AM_CPPFLAGS) -DPS_CLI_NAME='"portsort-mpi"' \
	-I$(top_srcdir)/tools/cli -I$(top_srcdir)/mpi $(MPI_CFLAGS)
tools_portsort_mpi_LDADD = mpi/libportsort_mpi.la lib/libportsort.la $(MPI_LIBS) -lm
endif
AM_TESTS_ENVIRONMENT += PS_MPIRUN='$(MPIRUN)'; export PS_MPIRUN;
TESTS += test/mpi.sh test/cli/mpi-cli.sh
dist_check_SCRIPTS += test/mpi.sh test/cli/mpi-cli.sh
EXTRA_DIST += test/mpi-common.sh test/cmake-app-mpi/CMakeLists.txt \
	test/cmake-app-mpi/main.c
# Distributed whatever the configuration (automake only lists conditional
# sources it sees).
EXTRA_DIST += mpi/portsort_mpi.h mpi/ps_mpi_internal.h mpi/ps_mpi_sort.c \
	mpi/ps_mpi_agree.c mpi/ps_mpi_order.c mpi/ps_mpi_grid.c \
	mpi/ps_mpi_exchange.c mpi/ps_mpi_redistribute.c mpi/ps_mpi_partition.c \
	mpi/ps_mpi_cache.c test/ps_test_mpi.c \
	tools/cli/portsort_mpi.c tools/cli/ps_mpi_cli.h tools/cli/ps_mpi_cli_fail.c \
	tools/cli/ps_mpi_cli_sort.c tools/cli/ps_mpi_cli_bench.c \
	tools/cli/ps_mpi_cli_traffic.h tools/cli/ps_mpi_cli_traffic.c \
	doc/portsort-mpi.1 doc/mpi.md
