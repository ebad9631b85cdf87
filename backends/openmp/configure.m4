# backends/openmp/configure.m4 - the OpenMP CPU backend, built into
# libportsort.  On by default when the C compiler supports OpenMP;
# --disable-openmp turns it off, and an explicit --enable-openmp that the
# compiler cannot honour stops configure.
AC_ARG_ENABLE([openmp],
  [AS_HELP_STRING([--enable-openmp],
    [build the OpenMP CPU backend (default: when the compiler supports OpenMP)])],
  [ps_openmp_request=$enableval], [ps_openmp_request=auto])
ps_openmp_enabled=no
AS_IF([test "x$ps_openmp_request" != xno],
  [AC_OPENMP
   AS_IF([test "x$ac_cv_prog_c_openmp" != x && test "x$ac_cv_prog_c_openmp" != xunsupported],
     [ps_openmp_enabled=yes
      AC_DEFINE([PS_HAVE_OPENMP], [1], [Define to 1 to build the OpenMP backend.])],
     [AS_IF([test "x$ps_openmp_request" = xyes],
        [AC_MSG_ERROR([--enable-openmp: $CC does not support OpenMP])])])])
AM_CONDITIONAL([PS_HAVE_OPENMP], [test "x$ps_openmp_enabled" = xyes])

PS_BACKEND_RESULT([openmp])
