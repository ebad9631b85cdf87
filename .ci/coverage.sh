#!/usr/bin/env bash
# Line and branch coverage of make check (doc/coverage.md): configures
# build-cov/ with --enable-coverage (gcc --coverage -O0) and runs
# `make coverage`, which zeroes the counters, runs make check and writes
# gcovr's reports of lib/, reference/ and backends/ to build-cov/coverage/:
# summary.txt (lines), branches.txt, tables.md (per directory, per file,
# functions that never ran) and html/index.html.  Not part of .ci/run: the
# -O0 make check is slow.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
jobs=$(nproc 2>/dev/null || echo 2)
[ -x configure ] || autoreconf -fi
mkdir -p build-cov
cd build-cov
[ -f Makefile ] || "$top/configure" -q --enable-coverage
make -j"$jobs" >/dev/null
make -j"$jobs" coverage
