# backends/openmp/configure.m4 - the parallel CPU backend, built into
# libportsort.  Its name is "openmp" (PORTSORT_BACKEND=openmp, part of the
# contract), but since issue 34 its threads are its own pthreads
# (ps_openmp_team.c says why), so it needs no OpenMP runtime and is built
# wherever pthreads are; --disable-openmp leaves it out.
AC_ARG_ENABLE([openmp],
  [AS_HELP_STRING([--disable-openmp],
    [leave out the parallel CPU backend "openmp" (default: built)])],
  [ps_openmp_request=$enableval], [ps_openmp_request=yes])
ps_openmp_enabled=no
AS_IF([test "x$ps_openmp_request" != xno],
  [ps_openmp_enabled=yes
   AC_DEFINE([PS_HAVE_OPENMP], [1], [Define to 1 to build the OpenMP backend.])
   # The leaves' sorting networks (ps_openmp_net.c) are AVX-512 and AVX2
   # code in functions of their own, chosen at run time: the compiler
   # must accept target attributes (one that does for AVX-512 does for
   # AVX2) and ask the CPU what it runs.
   AC_CACHE_CHECK([whether $CC builds AVX-512 functions by target attribute],
     [ps_cv_avx512_target],
     [AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <immintrin.h>
__attribute__((target("avx512f"))) static int f(const unsigned *p)
{
    __m512i v = _mm512_maskz_loadu_epi32(3, p);
    v = _mm512_mask_max_epu32(_mm512_min_epu32(v, v), 1, v, v);
    return _mm512_reduce_add_epi32(v);
}]], [[unsigned a[16] = {0};
__builtin_cpu_init();
return __builtin_cpu_supports("avx512f") ? f(a) : 0;]])],
       [ps_cv_avx512_target=yes], [ps_cv_avx512_target=no])])
   AS_IF([test "x$ps_cv_avx512_target" = xyes],
     [AC_DEFINE([PS_HAVE_AVX512_TARGET], [1],
     [Define to 1 when the compiler builds AVX-512 functions by target attribute.])])])
AM_CONDITIONAL([PS_HAVE_OPENMP], [test "x$ps_openmp_enabled" = xyes])

PS_BACKEND_RESULT([openmp])
