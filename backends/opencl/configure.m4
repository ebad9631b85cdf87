# backends/opencl/configure.m4 - the OpenCL backend module.
#
# --with-opencl[=DIR]: DIR holds include/CL/cl.h and lib/libOpenCL.so (the
# ICD loader).  Default: built when the header and the loader are found.
# --with-opencl (or =DIR) that cannot be satisfied stops configure;
# --without-opencl turns the backend off.  Flags found here go only to the
# module (PS_OPENCL_CPPFLAGS/LDFLAGS/LIBS), never into the core.
AC_ARG_WITH([opencl],
  [AS_HELP_STRING([--with-opencl@<:@=DIR@:>@],
    [build the OpenCL backend module (default: when CL/cl.h and libOpenCL are found)])],
  [], [with_opencl=check])

ps_opencl_enabled=no
PS_OPENCL_CPPFLAGS=
PS_OPENCL_LDFLAGS=
PS_OPENCL_LIBS=
AS_IF([test "x$with_opencl" != xno],
  [AS_CASE([$with_opencl],
     [yes|check], [],
     [PS_OPENCL_CPPFLAGS="-I$with_opencl/include"
      PS_OPENCL_LDFLAGS="-L$with_opencl/lib -L$with_opencl/lib64"])
   PS_SAVE_FLAGS
   CPPFLAGS="$CPPFLAGS $PS_OPENCL_CPPFLAGS -DCL_TARGET_OPENCL_VERSION=120"
   LDFLAGS="$LDFLAGS $PS_OPENCL_LDFLAGS"
   ps_opencl_ok=yes
   AC_CHECK_HEADER([CL/cl.h], [], [ps_opencl_ok=no])
   AS_IF([test "x$ps_opencl_ok" = xyes],
     [AC_CHECK_LIB([OpenCL], [clGetPlatformIDs],
        [PS_OPENCL_LIBS=-lOpenCL], [ps_opencl_ok=no])])
   PS_RESTORE_FLAGS
   AS_IF([test "x$ps_opencl_ok" = xyes], [ps_opencl_enabled=yes],
     [test "x$with_opencl" != xcheck],
     [AC_MSG_ERROR([--with-opencl: CL/cl.h or libOpenCL (the ICD loader) not found; on Debian install ocl-icd-opencl-dev and opencl-headers, or pass --with-opencl=DIR])])])
# The program cache names its temporary files from getrandom where the C
# library has it (ps_opencl_cache.c).
AC_CHECK_FUNCS([getrandom])
AC_SUBST([PS_OPENCL_CPPFLAGS])
AC_SUBST([PS_OPENCL_LDFLAGS])
AC_SUBST([PS_OPENCL_LIBS])
AM_CONDITIONAL([PS_HAVE_OPENCL], [test "x$ps_opencl_enabled" = xyes])

# The benchmark's optional peer: Boost.Compute (header-only, C++).
AC_ARG_WITH([boost-compute],
  [AS_HELP_STRING([--with-boost-compute],
    [build bench/ps_clbench against Boost.Compute's sort (default: when found)])],
  [], [with_boost_compute=check])
ps_boost_compute=no
# AC_PROG_CXX must run unconditionally (Automake's dependency tracking);
# it does not fail when there is no C++ compiler.
AC_PROG_CXX
AS_IF([test "x$ps_opencl_enabled" = xyes && test "x$with_boost_compute" != xno],
  [AC_LANG_PUSH([C++])
   PS_SAVE_FLAGS
   CPPFLAGS="$CPPFLAGS $PS_OPENCL_CPPFLAGS"
   AC_CHECK_HEADER([boost/compute/algorithm/sort.hpp], [ps_boost_compute=yes])
   PS_RESTORE_FLAGS
   AC_LANG_POP([C++])
   AS_IF([test "x$ps_boost_compute" = xno && test "x$with_boost_compute" = xyes],
     [AC_MSG_ERROR([--with-boost-compute: boost/compute not found (Debian: libboost-dev)])])])
AM_CONDITIONAL([PS_HAVE_BOOST_COMPUTE], [test "x$ps_boost_compute" = xyes])

PS_BACKEND_MODULE([opencl])
PS_BACKEND_RESULT([opencl])
