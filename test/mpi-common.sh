# Sourced by test/mpi.sh and test/cli/mpi-cli.sh: the launcher and its options.
# Skips (77) the caller where libportsort_mpi is not configured, where no
# launcher is found, and in a sanitizer build (MPI libraries are not
# instrumented, and their reports drown ours).  Sets $build, $mpirun and
# $mpi_opts; not a test itself.
build=$(cd "${top_builddir:-.}" && pwd) || exit 99
if [ ! -f "$build/mpi/libportsort_mpi.la" ]; then
    echo "libportsort_mpi not configured (./configure --with-mpi): skipped"
    exit 77
fi
mpirun=${PS_MPIRUN:-}
[ -n "$mpirun" ] || mpirun=$(command -v mpirun || command -v mpiexec || true)
if [ -z "$mpirun" ]; then
    echo "no mpirun or mpiexec: skipped"
    exit 77
fi
lib=$build/lib/.libs/libportsort.so
if [ -f "$lib" ] && ldd "$lib" 2>/dev/null | grep -Eq 'lib(a|t|ub)san'; then
    echo "sanitizer build: MPI under a sanitizer is not tested here: skipped"
    exit 77
fi

# Open MPI refuses more ranks than cores, and root, unless told.  MPICH's
# launcher does neither.
mpi_opts=
if "$mpirun" --version 2>&1 | grep -q 'Open MPI'; then
    mpi_opts=--oversubscribe
    if [ "$(id -u)" -eq 0 ]; then
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    fi
fi
# One thread per rank: the ranks already share the cores.
PORTSORT_THREADS=${PORTSORT_THREADS:-1}
export PORTSORT_THREADS
