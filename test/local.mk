# test/: make check.  Every backend is covered by the same differential test
# binary, run once per backend by a one-line script; a backend that is not
# built here makes its script exit 77 (skipped).
check_PROGRAMS += test/ps_test_diff test/ps_test_errors test/ps_test_threads \
	test/ps_test_modules
noinst_HEADERS += test/ps_test_util.h

test_ps_test_diff_SOURCES = test/ps_test_diff.c test/ps_test_util.c
test_ps_test_diff_LDADD = lib/libportsort.la
test_ps_test_errors_SOURCES = test/ps_test_errors.c test/ps_test_util.c
test_ps_test_errors_LDADD = lib/libportsort.la
test_ps_test_threads_SOURCES = test/ps_test_threads.c test/ps_test_util.c
test_ps_test_threads_LDADD = lib/libportsort.la $(PTHREAD_LIBS)
test_ps_test_modules_SOURCES = test/ps_test_modules.c test/ps_test_util.c
test_ps_test_modules_LDADD = lib/libportsort.la

# Stand-in backend modules, built for the tests only: one that works, one
# with the wrong ABI, one whose probe finds no device, and one that fails in
# the middle of a sort.  ps_test_modules installs them under real backend
# names in a private module directory.
check_LTLIBRARIES += test/ps_stub_good.la test/ps_stub_badabi.la \
	test/ps_stub_nodevice.la test/ps_stub_failing.la
PS_STUB_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
test_ps_stub_good_la_SOURCES = test/ps_stub_module.c
test_ps_stub_good_la_CPPFLAGS = $(AM_CPPFLAGS) -DPS_STUB_MODE=0
test_ps_stub_good_la_LDFLAGS = $(PS_STUB_LDFLAGS)
test_ps_stub_badabi_la_SOURCES = test/ps_stub_module.c
test_ps_stub_badabi_la_CPPFLAGS = $(AM_CPPFLAGS) -DPS_STUB_MODE=1
test_ps_stub_badabi_la_LDFLAGS = $(PS_STUB_LDFLAGS)
test_ps_stub_nodevice_la_SOURCES = test/ps_stub_module.c
test_ps_stub_nodevice_la_CPPFLAGS = $(AM_CPPFLAGS) -DPS_STUB_MODE=2
test_ps_stub_nodevice_la_LDFLAGS = $(PS_STUB_LDFLAGS)
test_ps_stub_failing_la_SOURCES = test/ps_stub_module.c
test_ps_stub_failing_la_CPPFLAGS = $(AM_CPPFLAGS) -DPS_STUB_MODE=3
test_ps_stub_failing_la_LDFLAGS = $(PS_STUB_LDFLAGS)

# test/<backend>.sh runs ps_test_diff, ps_test_errors and ps_test_threads
# with PORTSORT_BACKEND=<backend> (through run-backend.sh).
dist_check_SCRIPTS += test/run-backend.sh test/serial.sh test/modules.sh
TESTS += test/serial.sh test/modules.sh

# The portsort command line (tools/portsort): sort against GNU sort and an
# independent Perl oracle, every bad input, and a short bench whose CSV is
# parsed.  cli-common.sh is sourced by them, not run.
dist_check_SCRIPTS += test/cli-info.sh test/cli-sort-text.sh test/cli-sort-binary.sh \
	test/cli-sort-errors.sh test/cli-bench.sh test/cli-manpages.sh
EXTRA_DIST += test/cli-common.sh
TESTS += test/cli-info.sh test/cli-sort-text.sh test/cli-sort-binary.sh \
	test/cli-sort-errors.sh test/cli-bench.sh test/cli-manpages.sh
