# test/: make check.  Every backend is covered by the same differential test
# binary, run once per backend by a one-line script; a backend that is not
# built here makes its script exit 77 (skipped).
check_PROGRAMS += test/ps_test_diff test/ps_test_errors test/ps_test_threads \
	test/ps_test_fork test/ps_test_modules test/ps_test_scale \
	test/ps_test_segments test/ps_test_topk test/ps_test_records \
	test/ps_test_strings test/ps_test_memory
noinst_HEADERS += test/ps_test_util.h test/ps_test_topkdev.h test/ps_test_recdev.h

test_ps_test_diff_SOURCES = test/ps_test_diff.c test/ps_test_util.c
test_ps_test_diff_LDADD = lib/libportsort.la
test_ps_test_errors_SOURCES = test/ps_test_errors.c test/ps_test_util.c \
	test/ps_test_faults.c
test_ps_test_errors_LDADD = lib/libportsort.la
test_ps_test_threads_SOURCES = test/ps_test_threads.c test/ps_test_util.c
test_ps_test_threads_LDADD = lib/libportsort.la $(PTHREAD_LIBS)
test_ps_test_fork_SOURCES = test/ps_test_fork.c test/ps_test_util.c
# OpenMP of its own: a child of a program that ran a parallel region.
test_ps_test_fork_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
test_ps_test_fork_LDFLAGS = $(OPENMP_CFLAGS)
test_ps_test_fork_LDADD = lib/libportsort.la $(PTHREAD_LIBS)
test_ps_test_scale_SOURCES = test/ps_test_scale.c test/ps_test_util.c
test_ps_test_scale_LDADD = lib/libportsort.la
test_ps_test_segments_SOURCES = test/ps_test_segments.c test/ps_test_util.c \
	test/ps_test_faults.c
test_ps_test_segments_LDADD = lib/libportsort.la
test_ps_test_topk_SOURCES = test/ps_test_topk.c test/ps_test_util.c \
	test/ps_test_faults.c
test_ps_test_topk_LDADD = lib/libportsort.la
test_ps_test_records_SOURCES = test/ps_test_records.c test/ps_test_util.c \
	test/ps_test_faults.c
test_ps_test_records_LDADD = lib/libportsort.la
test_ps_test_strings_SOURCES = test/ps_test_strings.c test/ps_test_util.c \
	test/ps_test_faults.c
test_ps_test_strings_LDADD = lib/libportsort.la
test_ps_test_memory_SOURCES = test/ps_test_memory.c test/ps_test_util.c
test_ps_test_memory_LDADD = lib/libportsort.la
test_ps_test_modules_SOURCES = test/ps_test_modules.c test/ps_test_util.c
test_ps_test_modules_LDADD = lib/libportsort.la

# Stand-in backend modules, built for the tests only from
# test/standin/ps_stub_module.c: one that works, one with the wrong ABI,
# one whose probe finds no device, one that fails in the middle of a
# sort, and three whose ops tables are of other sizes than the core's: the
# shortest one it takes (an older module), a longer one (a newer module)
# and one too short.  ps_test_modules installs them under real backend
# names in a private module directory.
check_LTLIBRARIES += test/ps_stub_good.la test/ps_stub_badabi.la \
	test/ps_stub_nodevice.la test/ps_stub_failing.la test/ps_stub_short.la \
	test/ps_stub_newer.la test/ps_stub_tooshort.la
PS_STUB_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
test_ps_stub_good_la_SOURCES = test/standin/ps_stub_module.c
test_ps_stub_good_la_CPPFLAGS = $(AM_CPPFLAGS) -DPS_STUB_MODE=0
test_ps_stub_good_la_LDFLAGS = $(PS_STUB_LDFLAGS)
test_ps_stub_badabi_la_SOURCES = test/standin/ps_stub_module.c
test_ps_stub_badabi_la_CPPFLAGS = $(AM_CPPFLAGS) -DPS_STUB_MODE=1
test_ps_stub_badabi_la_LDFLAGS = $(PS_STUB_LDFLAGS)
test_ps_stub_nodevice_la_SOURCES = test/standin/ps_stub_module.c
test_ps_stub_nodevice_la_CPPFLAGS = $(AM_CPPFLAGS) -DPS_STUB_MODE=2
test_ps_stub_nodevice_la_LDFLAGS = $(PS_STUB_LDFLAGS)
test_ps_stub_failing_la_SOURCES = test/standin/ps_stub_module.c
test_ps_stub_failing_la_CPPFLAGS = $(AM_CPPFLAGS) -DPS_STUB_MODE=3
test_ps_stub_failing_la_LDFLAGS = $(PS_STUB_LDFLAGS)
test_ps_stub_short_la_SOURCES = test/standin/ps_stub_module.c
test_ps_stub_short_la_CPPFLAGS = $(AM_CPPFLAGS) -DPS_STUB_MODE=4
test_ps_stub_short_la_LDFLAGS = $(PS_STUB_LDFLAGS)
test_ps_stub_newer_la_SOURCES = test/standin/ps_stub_module.c
test_ps_stub_newer_la_CPPFLAGS = $(AM_CPPFLAGS) -DPS_STUB_MODE=5
test_ps_stub_newer_la_LDFLAGS = $(PS_STUB_LDFLAGS)
test_ps_stub_tooshort_la_SOURCES = test/standin/ps_stub_module.c
test_ps_stub_tooshort_la_CPPFLAGS = $(AM_CPPFLAGS) -DPS_STUB_MODE=6
test_ps_stub_tooshort_la_LDFLAGS = $(PS_STUB_LDFLAGS)

# The library at the edges of the process (test/process.sh): a setuid
# program and thread limits.  Linked with libportsort statically (libtool's
# -static: the uninstalled library's archive), so that a copy runs setuid,
# where the dynamic loader ignores LD_LIBRARY_PATH, and as another user.
check_PROGRAMS += test/ps_test_process
test_ps_test_process_SOURCES = test/ps_test_process.c test/ps_test_util.c
test_ps_test_process_LDADD = lib/libportsort.la
test_ps_test_process_LDFLAGS = -static
dist_check_SCRIPTS += test/process.sh
TESTS += test/process.sh

# dlopen, sort on openmp, dlclose, again (the library stays loaded: -z
# nodelete).  Not linked with libportsort: it loads it.
check_PROGRAMS += test/ps_test_dlopen
test_ps_test_dlopen_SOURCES = test/ps_test_dlopen.c
TESTS += test/ps_test_dlopen

# bench/ps_cpubench (issue 34) on stand-in peers loaded as shared objects:
# one with five sorters (right, unstable but claiming stability, failing,
# wrong, keys only), one that declines.  test/cpubench.sh runs it.
check_LTLIBRARIES += test/ps_bench_stub_peers.la test/ps_bench_stub_declines.la
test_ps_bench_stub_peers_la_SOURCES = test/standin/ps_bench_peer_stub.c
test_ps_bench_stub_peers_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench -DPS_STUB_MODE=0
test_ps_bench_stub_peers_la_LDFLAGS = $(PS_STUB_LDFLAGS)
test_ps_bench_stub_declines_la_SOURCES = test/standin/ps_bench_peer_stub.c
test_ps_bench_stub_declines_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench -DPS_STUB_MODE=1
test_ps_bench_stub_declines_la_LDFLAGS = $(PS_STUB_LDFLAGS)
dist_check_SCRIPTS += test/cpubench.sh
if PS_BENCH
TESTS += test/cpubench.sh
endif

# test/<backend>.sh runs ps_test_diff, ps_test_errors and ps_test_threads
# with PORTSORT_BACKEND=<backend> (through run-backend.sh).
dist_check_SCRIPTS += test/run-backend.sh test/serial.sh test/modules.sh
TESTS += test/serial.sh test/modules.sh

# make check-long: the tests too slow or too big for every make check.
# Backends add their names to PS_LONG_BACKENDS (declared in Makefile.am).
check-long: $(check_PROGRAMS) $(check_LTLIBRARIES)
	@for b in $(PS_LONG_BACKENDS); do \
	  echo "== check-long: ps_test_scale on $$b"; \
	  $(AM_TESTS_ENVIRONMENT) PORTSORT_BACKEND=$$b \
	    PORTSORT_MODULE_PATH=$(abs_top_builddir)/backends/$$b/.libs ./test/ps_test_scale; \
	  rc=$$?; if [ $$rc -ne 0 ] && [ $$rc -ne 77 ]; then exit 1; fi; \
	done
.PHONY: check-long

# The tests make check runs, one a line: .ci/sanitize.sh runs all but a
# named few of them under ASan.
list-tests:
	@for t in $(TESTS); do echo "$$t"; done
.PHONY: list-tests

# The libFuzzer target (configure --enable-fuzzing with CC=clang); see
# .ci/fuzz.sh for how CI runs it and doc/reliability.md for results.
# ps_fuzz_shapes is the structured target: its input chooses type, size,
# distribution and operation, and it generates the keys (issue 16).
EXTRA_DIST += test/fuzz/ps_fuzz_sort.c test/fuzz/corpus \
	test/fuzz/ps_fuzz_shapes.c test/fuzz/corpus-shapes test/fuzz/shapes-corpus.py
if PS_FUZZ
noinst_PROGRAMS += test/fuzz/ps_fuzz_sort test/fuzz/ps_fuzz_shapes
test_fuzz_ps_fuzz_sort_SOURCES = test/fuzz/ps_fuzz_sort.c test/ps_test_util.c
test_fuzz_ps_fuzz_sort_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
test_fuzz_ps_fuzz_sort_LDFLAGS = -fsanitize=fuzzer
test_fuzz_ps_fuzz_sort_LDADD = lib/libportsort.la
test_fuzz_ps_fuzz_shapes_SOURCES = test/fuzz/ps_fuzz_shapes.c test/ps_test_util.c
test_fuzz_ps_fuzz_shapes_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
test_fuzz_ps_fuzz_shapes_LDFLAGS = -fsanitize=fuzzer
test_fuzz_ps_fuzz_shapes_LDADD = lib/libportsort.la -lm
endif
EXTRA_DIST += test/lsan.supp test/seg-classes.awk

# The portsort command line (tools/portsort), in test/cli/: sort against
# GNU sort and an independent Perl oracle, every bad input, and a short
# bench whose CSV is parsed; the system's edges (standard output on
# /dev/full, signals, file size limits, a truncated input, kept modes) and
# an I/O failure at every point of the output (PORTSORT_TEST_FAIL_IO).
# cli-common.sh is sourced by them, not run.
# (test/cli/mpi-cli.sh, portsort-mpi's, is listed in mpi/local.mk.)
PS_CLI_TESTS = test/cli/cli-info.sh test/cli/cli-sort-text.sh \
	test/cli/cli-sort-filter.sh test/cli/cli-sort-binary.sh \
	test/cli/cli-sort-errors.sh test/cli/cli-bench.sh \
	test/cli/cli-bench-segments.sh test/cli/cli-manpages.sh test/cli/cli-env.sh \
	test/cli/cli-io.sh test/cli/cli-sort-faults.sh test/cli/cli-sort-head.sh \
	test/cli/cli-sort-keys.sh test/cli/cli-sort-external.sh
dist_check_SCRIPTS += $(PS_CLI_TESTS)
EXTRA_DIST += test/cli/cli-common.sh test/cli/cli-half-oracle.py
TESTS += $(PS_CLI_TESTS)

# The reduce-then-scan kernels' loops at n just below 2^32 (issue 17, item
# 1), as a C++ model run of the last block of each kernel over reserved
# address space: no GPU and no 4 GiB needed (a few seconds).
check_PROGRAMS += test/ps_test_kernel_wrap
test_ps_test_kernel_wrap_SOURCES = test/ps_test_kernel_wrap.cc
test_ps_test_kernel_wrap_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/backends/gpu \
	-I$(top_srcdir)/backends/kernels
test_ps_test_kernel_wrap_CXXFLAGS = -std=c++20 -Wall -Wextra $(PTHREAD_CFLAGS)
test_ps_test_kernel_wrap_LDADD = $(PTHREAD_LIBS)
TESTS += test/ps_test_kernel_wrap

# The OpenMP backend's kernels, called directly (issue 28, item 4): every
# entry of its per-width tables, the packed pairs and the sorting networks
# of this CPU, against naive versions, with guard bytes around every array
# and the arrays at every offset in a write-combining unit (a few seconds).
# Linked against the backend's convenience library, whose hidden symbols a
# program linked statically sees; libportsort.so exports nothing more.
if PS_HAVE_OPENMP
check_PROGRAMS += test/ps_test_openmp_kernels
test_ps_test_openmp_kernels_SOURCES = test/ps_test_openmp_kernels.c \
	test/ps_test_util.c
test_ps_test_openmp_kernels_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/backends/openmp
test_ps_test_openmp_kernels_LDADD = backends/openmp/libps_openmp.la \
	lib/libportsort.la
TESTS += test/ps_test_openmp_kernels
endif

# The device plan's arithmetic (backends/device; issue 28, item 4), called
# directly at its limits for every tuning the OpenCL, CUDA and HIP hosts
# make: no device needed, so it runs in every configuration (well under a
# second).
check_PROGRAMS += test/ps_test_device_plan
test_ps_test_device_plan_SOURCES = test/ps_test_device_plan.c
test_ps_test_device_plan_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/backends/device
test_ps_test_device_plan_LDADD = backends/device/libps_device.la
TESTS += test/ps_test_device_plan

# The HIP module's check of a GPU's target against the code objects it
# was built for (backends/gpu/ps_gpu_arch.c; issue 33, item 6): names
# only, so it runs in every configuration.
check_PROGRAMS += test/ps_test_gpu_arch
test_ps_test_gpu_arch_SOURCES = test/ps_test_gpu_arch.c backends/gpu/ps_gpu_arch.c
test_ps_test_gpu_arch_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/backends/gpu
TESTS += test/ps_test_gpu_arch

# The CUDA and HIP modules: refused cleanly without a GPU (gpu-refused.sh,
# always run; it skips when neither module is built), and the differential
# test on them where a GPU is (cuda.sh, hip.sh skip elsewhere).
check_PROGRAMS += test/ps_test_gpu_refused
test_ps_test_gpu_refused_SOURCES = test/ps_test_gpu_refused.c test/ps_test_util.c
test_ps_test_gpu_refused_LDADD = lib/libportsort.la
dist_check_SCRIPTS += test/gpu-refused.sh test/cuda.sh test/hip.sh
TESTS += test/gpu-refused.sh test/cuda.sh test/hip.sh

# make coverage (configure --enable-coverage; .ci/coverage.sh does it all in
# build-cov/): make check from zeroed counters, then gcovr's line and branch
# coverage of lib/, reference/ and backends/ into coverage/ (summary.txt,
# branches.txt, per-directory and per-function tables in tables.md, an
# HTML report in html/index.html).  doc/coverage.md has the figures.
EXTRA_DIST += test/coverage-report.py
# gcovr matches its filters against physical paths: $(abs_top_srcdir) may
# be build-cov/.., so the rule resolves it first.
PS_GCOVR_FILTERS = --filter "$$src/lib/" --filter "$$src/reference/" \
	--filter "$$src/backends/"
if PS_COVERAGE
coverage:
	@test -n "$(GCOVR)" || { echo "make coverage needs gcovr (Debian: gcovr)"; exit 1; }
	find $(abs_top_builddir) -name '*.gcda' -delete
	rm -rf coverage && $(MKDIR_P) coverage/html
	rc=0; $(MAKE) $(AM_MAKEFLAGS) check || rc=$$?; \
	src=`cd $(top_srcdir) && pwd -P`; \
	$(GCOVR) -r "$$src" $(abs_top_builddir) $(PS_GCOVR_FILTERS) \
	  --exclude-unreachable-branches --exclude-throw-branches \
	  --json coverage/coverage.json --txt coverage/summary.txt \
	  --html-details coverage/html/index.html \
	  --html-title 'libportsort: make check coverage' -s && \
	$(GCOVR) -a coverage/coverage.json -b --txt coverage/branches.txt && \
	$(PYTHON3) $(top_srcdir)/test/coverage-report.py coverage/coverage.json \
	  > coverage/tables.md || exit 1; \
	if [ $$rc -ne 0 ]; then echo "make coverage: make check failed (the report covers what ran)"; fi; \
	echo "make coverage: reports in $(abs_top_builddir)/coverage/"; exit $$rc
else
coverage:
	@echo "make coverage: configure with --enable-coverage first (see .ci/coverage.sh)"; exit 1
endif
.PHONY: coverage
clean-local:
	-rm -rf coverage $(PS_POCL_CACHE)
	-find . \( -name '*.gcda' -o -name '*.gcno' \) -delete

# The shapes of real data (issue 16) on every backend here: shapes-cpu.sh
# runs serial and openmp (1, 2, 3 and 8 threads, and each SIMD level),
# shapes-gpu.sh opencl on pocl (both kernel paths) and the CUDA stand-in,
# with sizes capped for their speed.
check_PROGRAMS += test/ps_test_shapes
test_ps_test_shapes_SOURCES = test/ps_test_shapes.c test/ps_test_util.c
test_ps_test_shapes_LDADD = lib/libportsort.la -lm
dist_check_SCRIPTS += test/shapes-cpu.sh test/shapes-gpu.sh
TESTS += test/shapes-cpu.sh test/shapes-gpu.sh

# A program linked with -static against libportsort.a with the flags of
# pkg-config --static (test/static.sh, test/static-app/main.c): it sorts on
# serial, openmp and auto, and refuses this tree's modules with the reason.
dist_check_SCRIPTS += test/static.sh
TESTS += test/static.sh
EXTRA_DIST += test/static-app/main.c

# An installed tree moved elsewhere keeps its backend modules
# (test/relocate.sh: make install DESTDIR=..., mv, portsort info and a sort
# on each module).
dist_check_SCRIPTS += test/relocate.sh
TESTS += test/relocate.sh

# The Python package (python/, pytest on this tree's library) and the CMake
# package (make install DESTDIR=..., then a CMake project that uses it).
# Each skips (77) where python3+numpy+pytest, or cmake, is missing.
dist_check_SCRIPTS += test/python.sh test/cmake.sh
TESTS += test/python.sh test/cmake.sh
EXTRA_DIST += python/pyproject.toml python/README.md python/setup.py \
	python/portsort/__init__.py python/portsort/_clib.py \
	python/portsort/_arrays.py python/portsort/_records.py \
	python/tests/oracle.py python/tests/test_sort.py python/tests/test_api.py \
	python/tests/test_half.py python/tests/test_segments.py \
	python/tests/test_topk.py python/tests/test_records.py \
	python/tests/test_strings.py \
	test/cmake-app/CMakeLists.txt test/cmake-app/main.c
# The wheel (pip install ./python bundles the library it builds from this
# tree): not in make check, since it builds the library twice and needs
# PyPI; CI runs it as a step of its own (.ci/run), as can anyone from an
# unpacked tarball.
EXTRA_DIST += test/wheel.sh test/python-common.sh
