# backends/cuda/configure.m4 - the CUDA backend module, built with nvcc.
#
# --with-cuda[=DIR]: build it with DIR/bin/nvcc (default DIR: nvcc on PATH,
# else /usr/local/cuda).  Off by default: nvcc builds are slow and most
# machines have no CUDA toolkit.  Asked for and not buildable, configure
# stops and says what is missing.
# --with-cuda-arch=LIST: the GPUs to compile for, e.g. "sm_80 sm_90
# compute_90".  sm_NN is machine code for that GPU generation, compute_NN is
# PTX that the driver compiles for newer GPUs.  The default is sm_75 .. sm_90
# plus compute_90 PTX, less what this nvcc cannot target: CUDA 13 dropped
# everything before compute_75 (sm_70 Volta included), so the issue's
# sm_70 is kept only with an nvcc that still lists it.
#
# The module links the CUDA runtime statically (libcudart_static.a), so at
# run time it needs only the driver, libcuda.so.1, which cudart opens itself:
# a machine without a driver can still load the module, whose probe then
# says "no CUDA driver".  Flags go only to the module (PS_CUDA_*).
AC_ARG_WITH([cuda],
  [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
    [build the CUDA backend module with DIR/bin/nvcc (default: no)])],
  [], [with_cuda=no])
AC_ARG_WITH([cuda-arch],
  [AS_HELP_STRING([--with-cuda-arch=LIST],
    [CUDA targets, e.g. "sm_80,sm_90,compute_90" (default: sm_70 .. sm_90
     and compute_90 PTX, as far as nvcc supports them)])],
  [], [with_cuda_arch=default])

ps_cuda_enabled=no
PS_CUDA_CPPFLAGS=
PS_CUDA_LIBS=
PS_NVCC_FLAGS=
AS_IF([test "x$with_cuda" != xno],
  [AS_CASE([$with_cuda],
     [yes], [ps_cuda_path="$PATH$PATH_SEPARATOR/usr/local/cuda/bin"],
     [ps_cuda_path="$with_cuda/bin"])
   AC_PATH_PROG([NVCC], [nvcc], [], [$ps_cuda_path])
   AS_IF([test -z "$NVCC"],
     [AC_MSG_ERROR([--with-cuda: nvcc not found in $ps_cuda_path; install the CUDA toolkit or pass --with-cuda=DIR (DIR/bin/nvcc)])])
   ps_cuda_home=`AS_DIRNAME(["$NVCC"])`
   ps_cuda_home=`AS_DIRNAME(["$ps_cuda_home"])`
   # The static runtime: lib64 in the toolkit's own tree, lib/<triplet>
   # in distribution packages.
   ps_cudart=
   for d in "$ps_cuda_home/lib64" "$ps_cuda_home/lib" \
            "$ps_cuda_home/targets/x86_64-linux/lib" /usr/lib/x86_64-linux-gnu; do
     AS_IF([test -z "$ps_cudart" && test -f "$d/libcudart_static.a"],
           [ps_cudart="$d/libcudart_static.a"])
   done
   AS_IF([test -z "$ps_cudart"],
     [AC_MSG_ERROR([--with-cuda: libcudart_static.a not found under $ps_cuda_home (the module links the CUDA runtime statically)])])
   PS_CUDA_CPPFLAGS="-I$ps_cuda_home/include"
   PS_CUDA_LIBS="$ps_cudart -ldl -lrt"
   PS_SAVE_FLAGS
   CPPFLAGS="$CPPFLAGS $PS_CUDA_CPPFLAGS"
   LIBS="$PS_CUDA_LIBS $PTHREAD_LIBS $LIBS"
   AC_CHECK_HEADER([cuda_runtime_api.h], [],
     [AC_MSG_ERROR([--with-cuda: cuda_runtime_api.h not found in $ps_cuda_home/include])])
   AC_MSG_CHECKING([whether C code links the static CUDA runtime])
   AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <cuda_runtime_api.h>]],
                    [[int n; return cudaGetDeviceCount(&n) == cudaSuccess;]])],
     [AC_MSG_RESULT([yes])],
     [AC_MSG_RESULT([no])
      AC_MSG_ERROR([--with-cuda: cannot link $ps_cudart])])
   PS_RESTORE_FLAGS

   # Targets: the default list, less what this nvcc does not know.
   AS_IF([test "x$with_cuda_arch" = xdefault || test "x$with_cuda_arch" = xyes],
     [ps_known=`"$NVCC" --list-gpu-arch 2>/dev/null`
      with_cuda_arch=
      for a in sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 compute_90; do
        c=`echo "$a" | $SED 's/^sm_/compute_/'`
        AS_IF([test -z "$ps_known" || echo "$ps_known" | grep -qx "$c"],
              [with_cuda_arch="$with_cuda_arch $a"])
      done])
   # Commas or spaces separate the targets.
   with_cuda_arch=`echo "$with_cuda_arch" | tr ',' ' '`
   ps_gencode=
   for a in $with_cuda_arch; do
     AS_CASE([$a],
       [sm_*], [n=`echo "$a" | $SED 's/^sm_//'`
                ps_gencode="$ps_gencode -gencode arch=compute_$n,code=sm_$n"],
       [compute_*], [ps_gencode="$ps_gencode -gencode arch=$a,code=$a"],
       [AC_MSG_ERROR([--with-cuda-arch: '$a' is neither sm_NN nor compute_NN])])
   done
   AS_IF([test -z "$ps_gencode"],
     [AC_MSG_ERROR([--with-cuda-arch: no target left (nvcc knows: `echo $ps_known`)])])
   PS_NVCC_FLAGS="-std=c++17 -O3 $ps_gencode -Xcompiler -fPIC -Xcompiler -fvisibility=hidden"
   AC_MSG_CHECKING([whether nvcc compiles for$with_cuda_arch])
   cat > conftest.cu <<_PSEOF
__global__ void k(unsigned *p) { atomicAdd(p, 1u); }
_PSEOF
   AS_IF(["$NVCC" $PS_NVCC_FLAGS -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
     [AC_MSG_RESULT([yes])],
     [AC_MSG_RESULT([no])
      AC_MSG_ERROR([--with-cuda: $NVCC cannot compile for$with_cuda_arch (see config.log)])])
   rm -f conftest.cu conftest.$OBJEXT
   ps_cuda_enabled=yes])
AC_SUBST([NVCC])
AC_SUBST([PS_CUDA_CPPFLAGS])
AC_SUBST([PS_CUDA_LIBS])
AC_SUBST([PS_NVCC_FLAGS])
AC_SUBST([PS_CUDA_ARCH], [$with_cuda_arch])
AM_CONDITIONAL([PS_HAVE_CUDA], [test "x$ps_cuda_enabled" = xyes])
AS_IF([test "x$ps_cuda_enabled" = xyes],
  [AC_DEFINE([PS_HAVE_CUDA], [1], [Define to 1 when the CUDA module is built.])])
PS_BACKEND_MODULE([cuda])
PS_BACKEND_RESULT([cuda])
