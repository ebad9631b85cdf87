# ps_coverage.m4 - --enable-coverage: build for gcov (line and branch
# coverage of make check; .ci/coverage.sh makes the report).  No effect
# unless given.

# PS_CHECK_COVERAGE
# -----------------
# Appends --coverage and -O0 to CFLAGS, CXXFLAGS and LDFLAGS (last, so that
# -O0 wins over configure's default -O2 and over per-target flags: at -O0
# every line and branch of the source is one in the object).  Needs a
# compiler that takes --coverage (gcc; clang's gcov output needs a matching
# gcov), checked by linking.  Finds gcovr for `make coverage`.
AC_DEFUN([PS_CHECK_COVERAGE],
[AC_ARG_ENABLE([coverage],
  [AS_HELP_STRING([--enable-coverage],
    [instrument the build for gcov (--coverage -O0) so that `make coverage'
     can report the line and branch coverage of make check (needs gcc and
     gcovr)])],
  [], [enable_coverage=no])
AS_IF([test "x$enable_coverage" = xyes],
  [ps_save_CFLAGS=$CFLAGS ps_save_LDFLAGS=$LDFLAGS
   CFLAGS="$CFLAGS --coverage" LDFLAGS="$LDFLAGS --coverage"
   AC_MSG_CHECKING([whether $CC links with --coverage])
   AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
     [AC_MSG_RESULT([yes])],
     [AC_MSG_RESULT([no])
      AC_MSG_ERROR([--enable-coverage needs a compiler that takes --coverage (gcc)])])
   CFLAGS="$ps_save_CFLAGS -O0 --coverage"
   CXXFLAGS="$CXXFLAGS -O0 --coverage"
   LDFLAGS="$ps_save_LDFLAGS --coverage"])
AC_PATH_PROG([GCOVR], [gcovr])
AC_PATH_PROG([PYTHON3], [python3])
AM_CONDITIONAL([PS_COVERAGE], [test "x$enable_coverage" = xyes])
])
