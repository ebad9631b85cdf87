# backends/sample: a stand-in CPU backend module (ps_sample.so), built for
# make check only.  backends/sample/sample.sh puts its .libs directory on
# PORTSORT_MODULE_PATH and runs the differential tests on it through the
# public API: the proof that a backend plugs in as one folder.
EXTRA_DIST += backends/sample/configure.m4
dist_check_SCRIPTS += backends/sample/sample.sh

if PS_HAVE_SAMPLE
check_LTLIBRARIES += backends/sample/ps_sample.la
backends_sample_ps_sample_la_SOURCES = backends/sample/ps_sample.c
# -rpath makes libtool build a shared module that is never installed.
backends_sample_ps_sample_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
TESTS += backends/sample/sample.sh
endif
