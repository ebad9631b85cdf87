# ps_compiler.m4 - compiler checks of the core.

# PS_CHECK_PTHREAD
# ----------------
# POSIX threads for pthread_once and the module lock: -pthread when the
# compiler takes it, and whatever library pthread_once needs.
AC_DEFUN([PS_CHECK_PTHREAD],
[AC_CACHE_CHECK([whether $CC accepts -pthread], [ps_cv_cc_pthread],
  [ps_save_CFLAGS=$CFLAGS
   CFLAGS="$CFLAGS -pthread"
   AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <pthread.h>
static pthread_once_t once = PTHREAD_ONCE_INIT;
static void f(void) {}]], [[return pthread_once(&once, f);]])],
     [ps_cv_cc_pthread=yes], [ps_cv_cc_pthread=no])
   CFLAGS=$ps_save_CFLAGS])
AS_IF([test "x$ps_cv_cc_pthread" = xyes],
      [PTHREAD_CFLAGS=-pthread PTHREAD_LIBS=-pthread],
      [PTHREAD_CFLAGS= PTHREAD_LIBS=
       AC_SEARCH_LIBS([pthread_once], [pthread], [],
         [AC_MSG_ERROR([POSIX threads not found])])])
AC_SUBST([PTHREAD_CFLAGS])
AC_SUBST([PTHREAD_LIBS])
])

# PS_CHECK_VISIBILITY
# -------------------
# Export only what PS_API marks: -fvisibility=hidden when supported.
AC_DEFUN([PS_CHECK_VISIBILITY],
[AC_CACHE_CHECK([whether $CC accepts -fvisibility=hidden], [ps_cv_cc_visibility],
  [ps_save_CFLAGS=$CFLAGS
   CFLAGS="$CFLAGS -fvisibility=hidden -Werror"
   AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[__attribute__((visibility("default"))) int f(void);]], [[]])],
     [ps_cv_cc_visibility=yes], [ps_cv_cc_visibility=no])
   CFLAGS=$ps_save_CFLAGS])
AS_IF([test "x$ps_cv_cc_visibility" = xyes],
      [PS_VISIBILITY_CFLAGS=-fvisibility=hidden], [PS_VISIBILITY_CFLAGS=])
AC_SUBST([PS_VISIBILITY_CFLAGS])
])

# PS_CHECK_NODELETE
# -----------------
# libportsort must stay mapped once loaded: the OpenMP runtime it pulls in
# keeps a pool of threads parked in its code, and a dlclose that unmapped
# it under them would crash the process.  -Wl,-z,nodelete marks the
# library so that dlclose leaves it (and so its dependencies) in place.
AC_DEFUN([PS_CHECK_NODELETE],
[AC_CACHE_CHECK([whether the linker accepts -Wl,-z,nodelete], [ps_cv_ld_nodelete],
  [ps_save_LDFLAGS=$LDFLAGS
   LDFLAGS="$LDFLAGS -Wl,-z,nodelete -Wl,--fatal-warnings"
   AC_LINK_IFELSE([AC_LANG_PROGRAM([[]], [[]])],
     [ps_cv_ld_nodelete=yes], [ps_cv_ld_nodelete=no])
   LDFLAGS=$ps_save_LDFLAGS])
AS_IF([test "x$ps_cv_ld_nodelete" = xyes],
      [PS_NODELETE_LDFLAGS=-Wl,-z,nodelete], [PS_NODELETE_LDFLAGS=])
AC_SUBST([PS_NODELETE_LDFLAGS])
])

# PS_WARNINGS
# -----------
# -Wall -Wextra always; --enable-werror (CI) makes them errors.
AC_DEFUN([PS_WARNINGS],
[AC_ARG_ENABLE([werror],
  [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors (CI)])],
  [], [enable_werror=no])
PS_WARN_CFLAGS="-Wall -Wextra"
AS_IF([test "x$enable_werror" = xyes], [PS_WARN_CFLAGS="$PS_WARN_CFLAGS -Werror"])
AC_SUBST([PS_WARN_CFLAGS])
])

# PS_CHECK_DEBUG
# --------------
# --enable-debug defines PS_DEBUG, which turns on the invariant checks of
# PS_DEBUG_ASSERT (lib/ps_backend.h): recursion budgets, buffer bounds.
AC_DEFUN([PS_CHECK_DEBUG],
[AC_ARG_ENABLE([debug],
  [AS_HELP_STRING([--enable-debug],
    [check the backends' internal invariants (recursion budgets, buffer
     bounds) with assertions; slower, for tests and sanitizer runs])],
  [], [enable_debug=no])
AS_IF([test "x$enable_debug" = xyes],
  [AC_DEFINE([PS_DEBUG], [1], [Check internal invariants (--enable-debug).])])
])
