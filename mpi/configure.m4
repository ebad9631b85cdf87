# mpi/configure.m4 - the companion library libportsort_mpi (distributed
# sort over MPI).  --with-mpi=auto (default) builds it when an MPI C
# compiler wrapper is found; --with-mpi=yes stops configure when none is;
# --with-mpi=no skips it.  Only libportsort_mpi and its tests get the MPI
# flags: libportsort itself never links MPI.
#
# The flags come from the wrapper rather than from building everything with
# CC=mpicc, so the core keeps the user's compiler: Open MPI's mpicc answers
# -showme:compile / -showme:link, MPICH's (and its derivatives') -show
# prints the whole command line, from which the compiler word is dropped.
#
# MPICC=wrapper picks another MPI (Debian installs MPICH beside Open MPI as
# mpicc.mpich); the launcher of the tests is then looked for beside it and
# with its suffix first (mpiexec.mpich), since another MPI's mpirun would
# start each process as a one-rank job of its own.
AC_ARG_WITH([mpi],
  [AS_HELP_STRING([--with-mpi@<:@=auto|yes|no@:>@],
    [build libportsort_mpi, the distributed sort (default: auto, when mpicc is found);
     MPICC=path names the MPI compiler wrapper])],
  [ps_mpi_request=$withval], [ps_mpi_request=auto])
AC_ARG_VAR([MPICC], [MPI C compiler wrapper whose flags build libportsort_mpi])
AC_ARG_VAR([MPIRUN], [MPI launcher for the tests of libportsort_mpi])
ps_mpi_enabled=no
ps_mpi_why=
AS_CASE([$ps_mpi_request],
  [yes|no|auto], [],
  [AC_MSG_ERROR([--with-mpi takes auto, yes or no, not '$ps_mpi_request'])])
AS_IF([test "x$ps_mpi_request" != xno],
  [# A name given in MPICC is looked for on the PATH (AC_PATH_PROGS alone
   # would only keep a full path and otherwise look for mpicc).
   ps_mpi_cc=${MPICC:-mpicc}
   AC_PATH_PROGS([MPICC], [$ps_mpi_cc], [])
   AS_IF([test "x$MPICC" = x],
     [ps_mpi_why="no $ps_mpi_cc on PATH (Debian: openmpi-bin libopenmpi-dev)"],
     [AC_MSG_CHECKING([for the MPI compile and link flags of $MPICC])
      # Open MPI first: its -showme:* print exactly the flags.
      AS_IF([ps_mpi_cf=`$MPICC -showme:compile 2>/dev/null` &&
             ps_mpi_lf=`$MPICC -showme:link 2>/dev/null`],
        [MPI_CFLAGS=$ps_mpi_cf MPI_LIBS=$ps_mpi_lf],
        [AS_IF([ps_mpi_all=`$MPICC -show 2>/dev/null`],
           [# MPICH: "cc -I... -L... -lmpi"; keep -I/-D for compiling, the
            # rest (less the compiler word) for linking.
            MPI_CFLAGS= MPI_LIBS=
            set dummy $ps_mpi_all; shift; shift
            for ps_w in "$@"; do
              AS_CASE([$ps_w],
                [-I*|-D*], [MPI_CFLAGS="$MPI_CFLAGS $ps_w"],
                [-c], [],
                [MPI_LIBS="$MPI_LIBS $ps_w"])
            done],
           [ps_mpi_why="$MPICC answers neither -showme:compile nor -show"])])
      AC_MSG_RESULT([${ps_mpi_why:-$MPI_CFLAGS / $MPI_LIBS}])
      AS_IF([test "x$ps_mpi_why" = x],
        [PS_SAVE_FLAGS
         CPPFLAGS="$CPPFLAGS $MPI_CFLAGS"
         LIBS="$MPI_LIBS $LIBS"
         AC_CACHE_CHECK([whether MPI programs link with those flags], [ps_cv_mpi_links],
           [AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
              [[int n = 0; MPI_Init(0, 0); MPI_Comm_size(MPI_COMM_WORLD, &n);
                MPI_Finalize(); return n < 0;]])],
              [ps_cv_mpi_links=yes], [ps_cv_mpi_links=no])])
         PS_RESTORE_FLAGS
         AS_IF([test "x$ps_cv_mpi_links" = xyes],
           [ps_mpi_enabled=yes],
           [ps_mpi_why="a program calling MPI_Init does not link with $MPI_CFLAGS $MPI_LIBS"])])])
   AS_IF([test "x$ps_mpi_enabled" = xyes],
     [ps_mpi_path=$PATH
      AS_CASE([$MPICC],
        [*/*], [ps_mpi_path=`AS_DIRNAME(["$MPICC"])`$PATH_SEPARATOR$PATH])
      ps_mpi_s=`expr "x$MPICC" : 'x.*mpicc\(\.[[^/]]*\)$'`
      ps_mpi_launchers=
      AS_IF([test -n "$ps_mpi_s"],
        [ps_mpi_launchers="mpiexec$ps_mpi_s mpirun$ps_mpi_s"])
      AC_PATH_PROGS([MPIRUN], [$ps_mpi_launchers mpirun mpiexec], [], [$ps_mpi_path])],
     [AS_IF([test "x$ps_mpi_request" = xyes],
        [AC_MSG_ERROR([--with-mpi: cannot build libportsort_mpi: $ps_mpi_why])])])])
AC_SUBST([MPI_CFLAGS])
AC_SUBST([MPI_LIBS])
# For the CMake package (cmake/ps-cmake-config.sh): yes or no.
AC_SUBST([PS_MPI_ENABLED], [$ps_mpi_enabled])
AM_CONDITIONAL([PS_HAVE_MPI], [test "x$ps_mpi_enabled" = xyes])
