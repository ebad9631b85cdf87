# backends/hip/configure.m4 - the HIP backend module, built with hipcc.
#
# --with-hip[=DIR]: build it with DIR/bin/hipcc (default DIR: hipcc on PATH,
# else /opt/rocm).  Off by default.  Asked for and not buildable, configure
# stops and says what is missing.  On Debian: hipcc, libamdhip64-dev and
# rocm-device-libs.
# --with-hip-arch=LIST: AMD GPU targets (gfxNNN).  Default: gfx90a (MI200)
# plus gfx908 gfx906 gfx940 gfx942 gfx1030 gfx1100, each kept only when this
# hipcc can compile for it (Debian's ROCm 5.2 clang has no gfx942).  The
# kernels assume nothing about the wavefront width, so wave64 (gfx9) and
# wave32 (gfx10+) targets run the same code.
#
# The module links libamdhip64 (there is no static HIP runtime), so it
# loads only where ROCm is installed; elsewhere the loader reports the
# missing library and `hip` is unusable.  Flags go only to the module.
AC_ARG_WITH([hip],
  [AS_HELP_STRING([--with-hip@<:@=DIR@:>@],
    [build the HIP backend module with DIR/bin/hipcc (default: no)])],
  [], [with_hip=no])
AC_ARG_WITH([hip-arch],
  [AS_HELP_STRING([--with-hip-arch=LIST],
    [AMD GPU targets, e.g. "gfx90a,gfx942" (default: gfx90a and the other
     data-centre and recent targets this hipcc supports)])],
  [], [with_hip_arch=default])

ps_hip_enabled=no
PS_HIP_CPPFLAGS=
PS_HIP_LIBS=
PS_HIPCC_FLAGS=
AS_IF([test "x$with_hip" != xno],
  [AS_CASE([$with_hip],
     [yes], [ps_hip_path="$PATH$PATH_SEPARATOR/opt/rocm/bin"],
     [ps_hip_path="$with_hip/bin"])
   AC_PATH_PROG([HIPCC], [hipcc], [], [$ps_hip_path])
   AS_IF([test -z "$HIPCC"],
     [AC_MSG_ERROR([--with-hip: hipcc not found in $ps_hip_path; on Debian install hipcc, libamdhip64-dev and rocm-device-libs, or pass --with-hip=DIR])])
   ps_hip_home=`AS_DIRNAME(["$HIPCC"])`
   ps_hip_home=`AS_DIRNAME(["$ps_hip_home"])`
   AS_IF([test "x$ps_hip_home" != x/usr],
     [PS_HIP_CPPFLAGS="-I$ps_hip_home/include"
      PS_HIP_LIBS="-L$ps_hip_home/lib"])
   PS_HIP_CPPFLAGS="$PS_HIP_CPPFLAGS -D__HIP_PLATFORM_AMD__=1"
   PS_HIP_LIBS="$PS_HIP_LIBS -lamdhip64"
   PS_SAVE_FLAGS
   CPPFLAGS="$CPPFLAGS $PS_HIP_CPPFLAGS"
   LIBS="$PS_HIP_LIBS $LIBS"
   AC_CHECK_HEADER([hip/hip_runtime_api.h], [],
     [AC_MSG_ERROR([--with-hip: hip/hip_runtime_api.h not found (Debian: libamdhip64-dev)])])
   AC_MSG_CHECKING([whether C code links libamdhip64])
   AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <hip/hip_runtime_api.h>]],
                    [[int n; return hipGetDeviceCount(&n) == hipSuccess;]])],
     [AC_MSG_RESULT([yes])],
     [AC_MSG_RESULT([no])
      AC_MSG_ERROR([--with-hip: cannot link libamdhip64 (Debian: libamdhip64-dev)])])
   PS_RESTORE_FLAGS

   cat > conftest.hip <<_PSEOF
#include <hip/hip_runtime.h>
__global__ void k(unsigned *p) { atomicAdd(p, 1u); }
_PSEOF
   ps_hip_try() {
     "$HIPCC" -x hip --offload-arch=$[1] -c conftest.hip -o conftest.$OBJEXT \
       >&AS_MESSAGE_LOG_FD 2>&1
   }
   AS_IF([test "x$with_hip_arch" = xdefault || test "x$with_hip_arch" = xyes],
     [with_hip_arch=
      for a in gfx90a gfx908 gfx906 gfx940 gfx942 gfx1030 gfx1100; do
        AC_MSG_CHECKING([whether hipcc compiles for $a])
        AS_IF([ps_hip_try $a],
          [AC_MSG_RESULT([yes]); with_hip_arch="$with_hip_arch $a"],
          [AC_MSG_RESULT([no])])
      done])
   with_hip_arch=`echo "$with_hip_arch" | tr ',' ' '`
   ps_offload=
   for a in $with_hip_arch; do
     AS_CASE([$a], [gfx*], [], [AC_MSG_ERROR([--with-hip-arch: '$a' is not a gfx target])])
     ps_offload="$ps_offload --offload-arch=$a"
   done
   AS_IF([test -z "$ps_offload"],
     [AC_MSG_ERROR([--with-hip: hipcc compiles for none of the targets (see config.log)])])
   rm -f conftest.hip conftest.$OBJEXT
   PS_HIPCC_FLAGS="-std=c++17 -O3 $ps_offload -fPIC -fvisibility=hidden"
   ps_hip_enabled=yes])
AC_SUBST([HIPCC])
AC_SUBST([PS_HIP_CPPFLAGS])
AC_SUBST([PS_HIP_LIBS])
AC_SUBST([PS_HIPCC_FLAGS])
AC_SUBST([PS_HIP_ARCH], [$with_hip_arch])
AM_CONDITIONAL([PS_HAVE_HIP], [test "x$ps_hip_enabled" = xyes])
AS_IF([test "x$ps_hip_enabled" = xyes],
  [AC_DEFINE([PS_HAVE_HIP], [1], [Define to 1 when the HIP module is built.])])
PS_BACKEND_MODULE([hip])
PS_BACKEND_RESULT([hip])
