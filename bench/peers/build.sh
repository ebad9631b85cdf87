#!/bin/sh
# bench/peers/build.sh - build the sorters that bench/ps_cpubench measures
# beside libportsort but the project does not carry (x86-simd-sort, IPS4o,
# IPS2Ra), each as a shared object for PS_BENCH_PEERS, from checkouts of
# their repositories.  For the benchmark only: nothing here is linked into
# the library, and nothing is downloaded (CI cannot reach GitHub; a
# developer's session brings the snapshots with its `fetch` tool or git).
#
#   sh bench/peers/build.sh XSS_DIR IPS4O_DIR IPS2RA_DIR OUT_DIR
#
# then, in the build directory,
#
#   PS_BENCH_PEERS=OUT_DIR/xss-avx2.so:OUT_DIR/xss-avx512.so:\
#   OUT_DIR/ips4o.so:OUT_DIR/ips2ra.so ./bench/ps_cpubench ...
#
# A directory given as - is skipped.  x86-simd-sort is built twice, for
# AVX2 and for AVX-512 (the object says at load time when the CPU lacks
# the instructions); IPS4o and IPS2Ra with -march=native, as their CMake
# builds them by default (with oneTBB, libtbb-dev, which their parallel
# code allocates with).  CXX (default g++) and CXXFLAGS (default -O3)
# are honoured.
set -eu
[ $# -eq 4 ] || { echo "usage: $0 XSS_DIR IPS4O_DIR IPS2RA_DIR OUT_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
bench=$(dirname "$here")
CXX=${CXX:-g++}
CXXFLAGS=${CXXFLAGS:--O3}
mkdir -p "$4"
out=$(cd "$4" && pwd)
common="-std=c++17 -shared -fPIC -fvisibility=hidden -I$bench"

if [ "$1" != - ]; then
    $CXX $CXXFLAGS $common -fopenmp -DXSS_USE_OPENMP -I"$1/src" \
        -DPS_XSS_ISA=avx2 -DPS_XSS_CPU=avx2 -mavx2 -mfma -mbmi2 -mpopcnt \
        "$here/ps_peer_xss.cc" -o "$out/xss-avx2.so"
    $CXX $CXXFLAGS $common -fopenmp -DXSS_USE_OPENMP -I"$1/src" \
        -DPS_XSS_ISA=avx512 -DPS_XSS_CPU=avx512bw \
        -mavx512f -mavx512dq -mavx512vl -mavx512bw -mbmi2 -mpopcnt \
        "$here/ps_peer_xss.cc" -o "$out/xss-avx512.so"
    echo "built $out/xss-avx2.so $out/xss-avx512.so"
fi
if [ "$2" != - ]; then
    $CXX $CXXFLAGS $common -march=native -mcx16 -pthread -DPS_IPS4O \
        -I"$2/include" "$here/ps_peer_ips.cc" -o "$out/ips4o.so" -ltbb -latomic
    echo "built $out/ips4o.so"
fi
if [ "$3" != - ]; then
    $CXX $CXXFLAGS $common -march=native -mcx16 -pthread -DPS_IPS2RA \
        -I"$3/include" "$here/ps_peer_ips.cc" -o "$out/ips2ra.so" -ltbb -latomic
    echo "built $out/ips2ra.so"
fi
