#!/usr/bin/env bash
# Build the libFuzzer target with clang (ASan + UBSan) in build-fuzz/ and
# fuzz every backend that can run here for FUZZ_SECONDS each (default 30),
# starting from the seed corpus in test/fuzz/corpus.  Exits non-zero on the
# first crash or mismatch; libFuzzer prints the input that caused it.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
seconds=${FUZZ_SECONDS:-30}
backends=${FUZZ_BACKENDS:-serial openmp opencl}
[ -x configure ] || autoreconf -fi
mkdir -p build-fuzz
cd build-fuzz
if [ ! -f Makefile ]; then
    flags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
    # C++ programs (benchmarks) link against the instrumented library too,
    # so C++ and the linker get the sanitizers as well.
    "$top/configure" -q CC=clang CXX=clang++ --enable-fuzzing --disable-static \
        CFLAGS="$flags" CXXFLAGS="$flags" LDFLAGS="-fsanitize=address,undefined"
fi
make -j"$(nproc)" test/fuzz/ps_fuzz_sort lib/libportsort.la >/dev/null
make -j"$(nproc)" all >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for b in $backends; do
    run() {
        PORTSORT_BACKEND=$b PORTSORT_MODULE_PATH="$PWD/backends/$b/.libs" \
            ./libtool --mode=execute ./test/fuzz/ps_fuzz_sort "$@"
    }
    rc=0
    run -runs=0 "$top/test/fuzz/corpus" >"$work/$b.log" 2>&1 || rc=$?
    if [ "$rc" -eq 77 ]; then
        echo "fuzz: backend $b not usable here, skipped"
        continue
    fi
    mkdir -p "$work/corpus-$b"
    echo "fuzz: backend $b for ${seconds}s"
    rc=0
    run -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 \
        "$work/corpus-$b" "$top/test/fuzz/corpus" >"$work/$b.log" 2>&1 || rc=$?
    grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss|Done )" "$work/$b.log" || true
    if [ "$rc" -ne 0 ]; then
        tail -40 "$work/$b.log"
        exit 1
    fi
done
