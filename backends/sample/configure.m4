# backends/sample/configure.m4 - a stand-in backend built for make check
# only (never installed).  It is the template for a new backend: a folder
# with its sources, this fragment (one m4_include line in configure.ac) and
# local.mk (one include line in Makefile.am), and no edit under lib/: the
# core finds ps_sample.so by scanning the module directories and learns its
# name, priority and kind from its ops table.
#
# --disable-sample-backend skips it (and its test).
AC_ARG_ENABLE([sample-backend],
  [AS_HELP_STRING([--disable-sample-backend],
    [do not build the stand-in backend module that make check uses to show a backend plugs in without core changes])],
  [ps_sample_enabled=$enableval], [ps_sample_enabled=yes])
AM_CONDITIONAL([PS_HAVE_SAMPLE], [test "x$ps_sample_enabled" = xyes])
