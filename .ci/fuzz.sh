#!/usr/bin/env bash
# Build the libFuzzer targets with clang (ASan + UBSan) in build-fuzz/ and
# fuzz every backend that can run here for FUZZ_SECONDS each (default 30):
#  - ps_fuzz_sort, raw bytes as keys, from the seed corpus test/fuzz/corpus;
#  - ps_fuzz_shapes, the structured target (input bytes choose type, size up
#    to 2^21, distribution, operation; it generates the keys), from
#    test/fuzz/corpus-shapes.  The OpenMP backend reads PORTSORT_THREADS once
#    per process, so on openmp this target runs once per thread count in
#    FUZZ_OPENMP_THREADS (default "2 3"), sharing the backend's FUZZ_SECONDS.
# FUZZ_TARGETS picks some of "sort shapes" (default both), FUZZ_BACKENDS some
# backends.  Exits non-zero on the first crash or mismatch; libFuzzer prints
# the input that caused it (ps_fuzz_shapes also names the decoded case).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
seconds=${FUZZ_SECONDS:-30}
backends=${FUZZ_BACKENDS:-serial openmp opencl}
targets=${FUZZ_TARGETS:-sort shapes}
omp_threads=${FUZZ_OPENMP_THREADS:-2 3}
[ -x configure ] || autoreconf -fi
mkdir -p build-fuzz
cd build-fuzz
if [ ! -f Makefile ]; then
    flags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
    # C++ programs link against the instrumented library too, so C++ and
    # the linker get the sanitizers as well; the benchmarks are not built
    # (their peers' C++ takes a minute, and nothing here runs them).
    "$top/configure" -q CC=clang CXX=clang++ --enable-fuzzing --disable-static --disable-benchmarks \
        CFLAGS="$flags" CXXFLAGS="$flags" LDFLAGS="-fsanitize=address,undefined"
fi
make -j"$(nproc)" test/fuzz/ps_fuzz_sort test/fuzz/ps_fuzz_shapes lib/libportsort.la >/dev/null
make -j"$(nproc)" all >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# fuzz_one TARGET BACKEND LABEL SECONDS SEED_CORPUS LIBFUZZER_ARGS...
# Fuzzes from the seed corpus; exit 77 (from LLVMFuzzerInitialize, before
# any input) means the backend is not usable here: skipped.  libFuzzer's
# own exit code for a finding is 77 too by default, which would pass a
# crash off as a skip: -error_exitcode=1.  The seed corpus is run once, as
# the start of the timed run (ps_fuzz_shapes's seeds take seconds).
fuzz_one() {
    local target=$1 b=$2 label=$3 secs=$4 seeds=$5 rc
    shift 5
    mkdir -p "$work/corpus-$label"
    rc=0
    PORTSORT_BACKEND=$b PORTSORT_MODULE_PATH="$PWD/backends/$b/.libs" \
        ./libtool --mode=execute "./test/fuzz/$target" -error_exitcode=1 \
        -max_total_time="$secs" -print_final_stats=1 "$@" \
        "$work/corpus-$label" "$seeds" >"$work/$label.log" 2>&1 || rc=$?
    if [ "$rc" -eq 77 ]; then
        echo "fuzz: $target: backend $b not usable here, skipped"
        return 0
    fi
    echo "fuzz: $target: $label, ${secs}s"
    grep -E "^(#[0-9]+.*(INITED|DONE)|stat::number_of_executed_units|stat::peak_rss|Done )" \
        "$work/$label.log" || true
    if [ "$rc" -ne 0 ]; then
        echo "fuzz: $target: $label failed (exit $rc)"
        grep -E "^(ps_fuzz_|SUMMARY|==[0-9]+==ERROR)" "$work/$label.log" | head -5 || true
        tail -40 "$work/$label.log"
        exit 1
    fi
}

for b in $backends; do
    for t in $targets; do
        case $t in
        sort)
            fuzz_one ps_fuzz_sort "$b" "sort-$b" "$seconds" "$top/test/fuzz/corpus" \
                -max_len=65536
            ;;
        shapes)
            # A case sorts up to 2^21 keys and checks them against a merge
            # sort, under ASan: seconds, so a generous per-input timeout and
            # room for the arrays.
            args=(-max_len=32 -len_control=0 -timeout=120 -rss_limit_mb=4096)
            if [ "$b" = openmp ]; then
                set -- $omp_threads
                per=$(( (seconds + $# - 1) / $# ))
                for th in "$@"; do
                    export PORTSORT_THREADS=$th
                    fuzz_one ps_fuzz_shapes "$b" "shapes-$b-$th-threads" "$per" \
                        "$top/test/fuzz/corpus-shapes" "${args[@]}"
                done
                unset PORTSORT_THREADS
            else
                fuzz_one ps_fuzz_shapes "$b" "shapes-$b" "$seconds" \
                    "$top/test/fuzz/corpus-shapes" "${args[@]}"
            fi
            ;;
        *) echo "fuzz: unknown target $t (want sort or shapes)"; exit 2 ;;
        esac
    done
done
