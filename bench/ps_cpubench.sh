#!/bin/sh
# bench/ps_cpubench.sh - the whole benchmark of issue 34, quiet and then
# busy: u32, u64, f32, i64 keys and u32+u32, u64+u64 pairs at 2^8..2^14,
# 2^16, 2^20, 2^24 and 10^7 keys and the neighbours of the powers of two,
# every sorter that runs here, then the same under one spinning process
# per CPU.  Prints the machine (CPU model, family and model from
# /proc/cpuinfo) and the load average before and after.
#
#   cd build && ../bench/ps_cpubench.sh [ps_cpubench options...]
#
# Options go to bench/ps_cpubench (e.g. --csv FILE, -r 7, --threads 2,
# --data zipf).  PORTSORT_BACKEND defaults to openmp here;
# PS_BENCH_PEERS names the shared objects of the peers whose code the
# project does not carry (bench/ps_bench_peer.h, doc/results-openmp.md).
# PS_CPUBENCH is the program (default ./bench/ps_cpubench).
set -eu
prog=${PS_CPUBENCH:-./bench/ps_cpubench}
if [ ! -x "$prog" ]; then
    echo "ps_cpubench.sh: $prog not found: run it in the build directory after make" >&2
    exit 2
fi
field() {
    sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo 2>/dev/null | head -n 1
}
echo "machine: $(uname -srm); CPU: $(field 'model name') (family $(field 'cpu family'), model $(field model)); $(nproc) CPUs for this process"
echo "start: $(date -u '+%Y-%m-%d %H:%M UTC'); $(uptime | sed 's/.*load/load/')"
echo "PORTSORT_BACKEND=${PORTSORT_BACKEND:-openmp} PS_BENCH_PEERS=${PS_BENCH_PEERS:-}"
rc=0
PORTSORT_BACKEND=${PORTSORT_BACKEND:-openmp} "$prog" --both --types u32,u64,f32,i64,u32+u32,u64+u64 \
    --sizes issue34 "$@" || rc=$?
echo "end: $(date -u '+%Y-%m-%d %H:%M UTC'); $(uptime | sed 's/.*load/load/')"
exit $rc
