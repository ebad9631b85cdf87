#!/usr/bin/env bash
# Build with warnings as errors in build/ and run the whole test suite, then
# check that the distribution tarball builds and passes its tests too.  This
# is the command README.md gives for running the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
jobs=$(nproc 2>/dev/null || echo 2)
# timed CMD...: run CMD and print the seconds it took (.ci/run prints the
# steps' times; this splits the longest one).
# Its status is the command's, failure included.
timed() {
    local t0=$SECONDS rc=0
    "$@" || rc=$?
    echo "--- test.sh: $* took $((SECONDS - t0)) s (exit $rc)"
    return $rc
}
[ -x configure ] || autoreconf -fi
mkdir -p build
cd build
# The GPU modules are built whenever their compilers are here (no GPU is
# needed to build them), so CI compiles every kernel instantiation with
# nvcc and hipcc and checks that both modules refuse cleanly without a GPU
# (test/gpu-refused.sh).  The arch lists are cut to one target each to keep
# CI's build time down: the full default lists differ only in how many
# times ptxas/llc run over the same code.
gpu_flags=
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    gpu_flags="$gpu_flags --with-cuda --with-cuda-arch=${PS_CI_CUDA_ARCH:-sm_90,compute_90}"
fi
if command -v hipcc >/dev/null 2>&1; then
    gpu_flags="$gpu_flags --with-hip --with-hip-arch=${PS_CI_HIP_ARCH:-gfx90a}"
fi
echo "GPU modules:${gpu_flags:- none (no nvcc, no hipcc)}"
# libportsort_mpi whenever an MPI compiler wrapper is here: --with-mpi
# (not the default auto) so that a broken MPI install fails CI instead of
# silently skipping the library and its test.
mpi_flags=
if command -v mpicc >/dev/null 2>&1; then
    mpi_flags=--with-mpi
fi
if [ -n "$mpi_flags" ]; then
    echo "MPI library: built ($mpi_flags)"
else
    echo "MPI library: not built (no mpicc)"
fi
# shellcheck disable=SC2086
[ -f Makefile ] || "$top/configure" -q --enable-werror $gpu_flags $mpi_flags
timed make -j"$jobs"
timed make -j"$jobs" check || { cat test-suite.log; exit 1; }
# Every dependency is installed here, so a test that skips tests nothing:
# opencl-devfault.sh skipped unnoticed when relative module directories
# became refused (its path was relative).  A skip fails the run.
# What may skip: the GPU backends' own runs where there is no GPU (then
# gpu-refused.sh checks that they refuse cleanly), and the CUDA build's
# tests where no nvcc is installed (it is not a Debian package: README's
# fresh machine may lack it).
skipped=
for t in $(grep -rl --include='*.trs' ':test-result: SKIP' . | sed 's|^\./||; s|\.trs$||'); do
    allowed=no
    case $t in
        test/cuda.sh) if [ ! -e /dev/nvidia0 ]; then allowed=yes; fi ;;
        test/hip.sh) if [ ! -e /dev/kfd ]; then allowed=yes; fi ;;
        test/ptxas-report.sh|test/gpu-refused.sh)
            case $gpu_flags in *--with-cuda*) ;; *) allowed=yes ;; esac ;;
    esac
    if [ "$allowed" = no ]; then
        skipped="$skipped $t"
    fi
done
if [ -n "$skipped" ]; then
    echo "tests skipped although everything they need is installed:$skipped" >&2
    exit 1
fi
# No GPU runtime, and no MPI (only libportsort_mpi links it), may appear
# among the core library's dependencies.
if ldd lib/.libs/libportsort.so | grep -Ei 'cuda|hip|opencl|libmpi'; then
    echo "libportsort.so links a GPU runtime or MPI" >&2
    exit 1
fi
# The tarball's own make check proves that the tarball builds and that its
# tests find everything they need; the whole suite has just run above, so
# it runs one test of each part (each backend built in, the kernels'
# sources, the CLI and its man pages, MPI, the Python and CMake packages)
# at small sizes instead of all of them again (CI's time budget,
# doc/reliability.md).
dist_tests="test/serial.sh test/modules.sh test/ps_test_openmp_kernels
    test/opencl-select.sh test/cli/cli-info.sh test/cli/cli-sort-binary.sh
    test/cli/cli-manpages.sh test/python.sh test/cmake.sh test/static.sh"
[ -n "$mpi_flags" ] && dist_tests="$dist_tests test/mpi.sh"
PS_TEST_MAX_N=65537 timed make -j"$jobs" distcheck TESTS="$(echo $dist_tests)" \
    DISTCHECK_CONFIGURE_FLAGS="--enable-werror --disable-benchmarks $mpi_flags"
