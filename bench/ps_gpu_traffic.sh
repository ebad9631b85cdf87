#!/bin/sh
# bench/ps_gpu_traffic.sh - global-memory bytes per key of the CUDA/HIP
# kernels, counted on the CPU stand-in runtime under valgrind's DHAT.
#
# Usage, from a build tree configured with --with-cuda (or any build: the
# stand-in is built by make check):
#   make check TESTS= && sh ../bench/ps_gpu_traffic.sh [N]
# PATHS (default "onesweep portable") and CONFIGS (default
# "u32:0 u32:4 u64:0 u64:8", key type:value bytes) choose the rows; each
# row is one valgrind run of a few minutes at N = 16384.
# prints one Markdown row per (path, key type, value size): bytes read,
# written, and their sum per key, split into the keys' and values' arrays
# and the scratch (alternate arrays, digit counts, look-back status).
#
# How: bench/ps_gpu_traffic sorts N random keys through the CUDA device
# API on test/ps_gpu_fake.so (installed as ps_cuda.so), whose "device"
# memory is host memory and whose kernels are the real ones compiled for
# the CPU, one work-item per thread.  DHAT counts the bytes read and
# written in every heap block by allocation site; the program allocates
# keys, values and scratch in functions of their own, so those counts are
# the kernels' global-memory traffic.  The program's own accesses (filling
# the arrays, checking the order) are known exactly and subtracted.  The
# stand-in's tiny test portions are replaced by the real ones
# (PS_FAKE_OS_PORTION_TILES).  The counts are bytes requested, i.e. a GPU's
# traffic with perfect coalescing.
set -u
top=${top_builddir:-.}
n=${1:-16384}
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found" >&2; exit 77; }
so="$top/test/.libs/ps_gpu_fake.so"
prog="$top/bench/.libs/ps_gpu_traffic"
[ -f "$so" ] && [ -x "$prog" ] || { echo "run 'make check TESTS=' first" >&2; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ps-traffic.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cp "$so" "$dir/ps_cuda.so" || exit 1
libdir=$(cd "$top/lib/.libs" && pwd)

echo "| path | keys | value bytes | n | read B/key | written B/key | total B/key | keys+values | scratch |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for algo in ${PATHS:-onesweep portable}; do
    for cfg in ${CONFIGS:-u32:0 u32:4 u64:0 u64:8}; do
        set -- $(echo "$cfg" | tr : ' ')
        LD_LIBRARY_PATH=$libdir PORTSORT_MODULE_PATH=$dir PORTSORT_GPU_ALGO=$algo \
            PS_FAKE_OS_PORTION_TILES=65536 \
            valgrind --tool=dhat --dhat-out-file="$dir/dhat.json" \
            "$prog" "$1" "$n" "$2" > "$dir/log" 2>&1 ||
            { tail -5 "$dir/log" >&2; echo "ps_gpu_traffic $1 $n $2 failed" >&2; exit 1; }
        python3 - "$dir/dhat.json" "$algo" "$1" "$2" "$n" <<'EOF'
import json, sys
path, algo, t, vs, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
kb = 8 if t == "u64" else 4
d = json.load(open(path))
frames = d["ftbl"]
got = {"traffic_keys": [0, 0], "traffic_values": [0, 0], "traffic_scratch": [0, 0]}
for pp in d["pps"]:
    names = " ".join(frames[f] for f in pp["fs"])
    for site in got:
        if site + " " in names or site + "(" in names:
            got[site][0] += pp.get("rb", 0)
            got[site][1] += pp.get("wb", 0)
# The driver's own accesses: filling keys and values, checking the order.
got["traffic_keys"][1] -= n * kb
got["traffic_keys"][0] -= 2 * (n - 1) * kb
got["traffic_values"][1] -= n * vs
r = sum(v[0] for v in got.values()) / n
w = sum(v[1] for v in got.values()) / n
kv = (sum(got["traffic_keys"]) + sum(got["traffic_values"])) / n
sc = sum(got["traffic_scratch"]) / n
print(f"| {algo} | {t} | {vs} | {n} | {r:.2f} | {w:.2f} | {r + w:.2f} | {kv:.2f} | {sc:.2f} |")
EOF
    done
done
