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

# The CPU benchmark compares with Highway's vqsort (C++) when libhwy is
# installed; without it the benchmark still builds, minus that column.
AC_PROG_CXX
ps_have_hwy=no
AS_IF([test "x$ps_openmp_enabled" = xyes],
  [AC_LANG_PUSH([C++])
   PS_SAVE_FLAGS
   LIBS="-lhwy_contrib -lhwy $LIBS"
   AC_MSG_CHECKING([for Highway vqsort (libhwy-dev)])
   AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <hwy/contrib/sort/vqsort.h>
#include <stdint.h>]], [[uint32_t k[2] = { 2, 1 };
hwy::Sorter sorter;
sorter(k, 2, hwy::SortAscending());]])],
     [ps_have_hwy=yes], [ps_have_hwy=no])
   AC_MSG_RESULT([$ps_have_hwy])
   PS_RESTORE_FLAGS
   AC_LANG_POP([C++])])
AS_IF([test "x$ps_have_hwy" = xyes],
  [AC_DEFINE([PS_HAVE_HWY], [1], [Define to 1 when Highway vqsort is available.])
   AC_SUBST([PS_HWY_LIBS], ["-lhwy_contrib -lhwy"])])
AM_CONDITIONAL([PS_HAVE_HWY], [test "x$ps_have_hwy" = xyes])
PS_BACKEND_RESULT([openmp])
