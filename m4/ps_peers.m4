# ps_peers.m4 - the sorters benchmarks compare libportsort with, found at
# configure time.  None is required: a missing peer is a missing column.

# PS_CHECK_PEERS
# --------------
# Highway's vqsort (C++, Debian libhwy-dev): PS_HAVE_HWY and PS_HWY_LIBS for
# portsort bench and bench/ps_cpubench.
AC_DEFUN([PS_CHECK_PEERS],
[AC_REQUIRE([AC_PROG_CXX])
ps_have_hwy=no
AC_LANG_PUSH([C++])
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
AC_LANG_POP([C++])
AS_IF([test "x$ps_have_hwy" = xyes],
  [AC_DEFINE([PS_HAVE_HWY], [1], [Define to 1 when Highway vqsort is available.])
   AC_SUBST([PS_HWY_LIBS], ["-lhwy_contrib -lhwy"])])
AM_CONDITIONAL([PS_HAVE_HWY], [test "x$ps_have_hwy" = xyes])
ps_peers_found=qsort
AS_IF([test "x$ps_have_hwy" = xyes], [ps_peers_found="$ps_peers_found vqsort"])
])
