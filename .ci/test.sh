#!/usr/bin/env bash
# Build with warnings as errors in build/ and run the whole test suite, then
# check that the distribution tarball builds and passes its tests too.  This
# is the command README.md gives for running the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
jobs=$(nproc 2>/dev/null || echo 2)
[ -x configure ] || autoreconf -fi
mkdir -p build
cd build
[ -f Makefile ] || "$top/configure" -q --enable-werror
make -j"$jobs"
make -j"$jobs" check || { cat test-suite.log; exit 1; }
# No GPU runtime may appear among the core library's dependencies.
if ldd lib/.libs/libportsort.so | grep -Ei 'cuda|hip|opencl'; then
    echo "libportsort.so links a GPU runtime" >&2
    exit 1
fi
make -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror
