# ps_peers.m4 - the sorters benchmarks compare libportsort with, found at
# configure time.  None is required: a missing peer is a missing column.
# Each check caches its answer (ps_cv_peer_NAME), so that a build without
# one is one `ps_cv_peer_NAME=no ./configure` away.  Only benchmarks link
# them, never the library.

# PS_PEER_CHECK(NAME, WHAT, EXTRA-CXXFLAGS, EXTRA-LIBS, INCLUDES, BODY)
# ----------------------------------------------------------------------
# Link BODY as C++ with the extra flags; sets ps_cv_peer_NAME to yes or no.
AC_DEFUN([PS_PEER_CHECK],
[AC_CACHE_CHECK([for $2], [ps_cv_peer_$1],
  [AC_LANG_PUSH([C++])
   PS_SAVE_FLAGS
   ps_save_CXXFLAGS=$CXXFLAGS
   CXXFLAGS="$CXXFLAGS $3"
   LIBS="$4 $LIBS"
   AC_LINK_IFELSE([AC_LANG_PROGRAM([$5], [$6])],
     [ps_cv_peer_$1=yes], [ps_cv_peer_$1=no])
   CXXFLAGS=$ps_save_CXXFLAGS
   PS_RESTORE_FLAGS
   AC_LANG_POP([C++])])
])

# PS_CHECK_PEERS
# --------------
# Highway's vqsort (Debian libhwy-dev): PS_HAVE_HWY and PS_HWY_LIBS for
# portsort bench and bench/ps_cpubench.  For bench/ps_cpubench alone:
# oneTBB's parallel_sort (libtbb-dev), libstdc++'s parallel mode (OpenMP),
# Boost.Sort (libboost-dev); their flags gather in PS_BENCH_CXXFLAGS and
# PS_BENCH_LIBS.
AC_DEFUN([PS_CHECK_PEERS],
[AC_REQUIRE([AC_PROG_CXX])
PS_PEER_CHECK([hwy], [Highway vqsort (libhwy-dev)], [], [-lhwy_contrib -lhwy],
  [[#include <hwy/contrib/sort/vqsort.h>
#include <stdint.h>]], [[uint32_t k[2] = { 2, 1 };
hwy::Sorter sorter;
sorter(k, 2, hwy::SortAscending());]])
AS_IF([test "x$ps_cv_peer_hwy" = xyes],
  [AC_DEFINE([PS_HAVE_HWY], [1], [Define to 1 when Highway vqsort is available.])
   AC_SUBST([PS_HWY_LIBS], ["-lhwy_contrib -lhwy"])])
AM_CONDITIONAL([PS_HAVE_HWY], [test "x$ps_cv_peer_hwy" = xyes])
ps_peers_found=qsort
AS_IF([test "x$ps_cv_peer_hwy" = xyes], [ps_peers_found="$ps_peers_found vqsort"])

ps_bench_cxxflags=
ps_bench_libs=
PS_PEER_CHECK([tbb], [oneTBB parallel_sort (libtbb-dev)], [], [-ltbb],
  [[#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/task_arena.h>]], [[unsigned k[2] = { 2, 1 };
tbb::task_arena arena(2);
arena.execute([&] { tbb::parallel_sort(k, k + 2); });
return (int)k[0] - 1;]])
AS_IF([test "x$ps_cv_peer_tbb" = xyes],
  [AC_DEFINE([PS_HAVE_TBB], [1], [Define to 1 when oneTBB is available to the benchmarks.])
   ps_bench_libs="$ps_bench_libs -ltbb"
   ps_peers_found="$ps_peers_found tbb"])

# The parallel mode is OpenMP code in headers: it needs the compiler's
# OpenMP flag, and --disable-openmp turns it off with the backend.
AS_IF([test "x$enable_openmp" != xno],
  [PS_PEER_CHECK([gnu_parallel], [libstdc++ parallel mode (-fopenmp)], [-fopenmp], [],
    [[#include <functional>
#include <parallel/algorithm>]], [[unsigned k[2] = { 2, 1 };
__gnu_parallel::sort(k, k + 2, std::less<unsigned>(),
                     __gnu_parallel::multiway_mergesort_tag(2));
return (int)k[0] - 1;]])])
AS_IF([test "x$ps_cv_peer_gnu_parallel" = xyes],
  [AC_DEFINE([PS_HAVE_GNU_PARALLEL], [1],
     [Define to 1 when libstdc++'s parallel mode is available to the benchmarks.])
   ps_bench_cxxflags="$ps_bench_cxxflags -fopenmp"
   ps_bench_libs="$ps_bench_libs -fopenmp"
   ps_peers_found="$ps_peers_found gnu-parallel"])

PS_PEER_CHECK([boost_sort], [Boost.Sort (libboost-dev)], [$PTHREAD_CFLAGS], [$PTHREAD_LIBS],
  [[#include <functional>
#include <boost/sort/block_indirect_sort/block_indirect_sort.hpp>
#include <boost/sort/spreadsort/spreadsort.hpp>]], [[unsigned k[2] = { 2, 1 };
boost::sort::block_indirect_sort(k, k + 2, std::less<unsigned>(), 2u);
boost::sort::spreadsort::spreadsort(k, k + 2);
return (int)k[0] - 1;]])
AS_IF([test "x$ps_cv_peer_boost_sort" = xyes],
  [AC_DEFINE([PS_HAVE_BOOST_SORT], [1],
     [Define to 1 when Boost.Sort is available to the benchmarks.])
   ps_peers_found="$ps_peers_found boost-sort"])
AC_SUBST([PS_BENCH_CXXFLAGS], [$ps_bench_cxxflags])
AC_SUBST([PS_BENCH_LIBS], [$ps_bench_libs])
])

# PS_CHECK_BENCHMARKS
# -------------------
# --disable-benchmarks leaves bench/'s programs out of `make` (their peers'
# C++ takes a minute to compile); CI's extra builds (sanitizers, MPICH,
# the fuzzer, distcheck) use it, as none of their tests runs a benchmark.
# test/cpubench.sh skips where ps_cpubench was not built.
AC_DEFUN([PS_CHECK_BENCHMARKS],
[AC_ARG_ENABLE([benchmarks],
  [AS_HELP_STRING([--disable-benchmarks],
    [do not build the developer benchmarks of bench/ (faster builds)])],
  [], [enable_benchmarks=yes])
AM_CONDITIONAL([PS_BENCH], [test "x$enable_benchmarks" != xno])
])
