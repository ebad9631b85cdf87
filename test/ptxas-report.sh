#!/bin/sh
# ptxas's report on the CUDA module's kernels, checked (issue 33, item 1):
# the build saves it for every kernel instantiation and target
# (backends/cuda/ps_cuda_kKV.ptxas, -Xptxas -v), and this fails when any
# kernel spills or has a stack frame (its arrays in local memory: every
# key a round trip to DRAM), or when ps_onesweep uses more registers than
# the blocks per multiprocessor its tuning assumes allow
# (PS_GPU_OS_MIN_BLOCKS in ps_gpu_tune.h, which the kernel also declares
# in __launch_bounds__, and which the compiler states in each report as
# "ps-occupancy: ps_onesweep THREADS threads x BLOCKS blocks").  One more
# register on another nvcc or target would otherwise halve the blocks a
# multiprocessor runs, silently.  Skipped where the CUDA module is not
# built.
#
# Usage: ptxas-report.sh [FILE.ptxas...] (default: the build's reports).
# PS_PTXAS_BLOCKS=N checks against N blocks instead of what the build
# assumed (to see the check fail: doc/cuda.md).
top=$(cd "${top_builddir:-.}" && pwd)
if [ $# -eq 0 ]; then
    set -- "$top"/backends/cuda/ps_cuda_k*.ptxas
    if [ ! -f "$1" ]; then
        echo "no ptxas reports in $top/backends/cuda (CUDA module not built): skipped"
        exit 77
    fi
fi
status=0
for f in "$@"; do
    awk -v file="$(basename "$f")" -v force="${PS_PTXAS_BLOCKS:-}" '
    function fail(msg) { print "FAIL: " file ": " msg; bad = 1 }
    # One line per (kernel, target) once its register count is known.
    function done_entry(   alloc, fit) {
        if (fn == "" || regs == "") return
        entries++
        if (stack > 0 || spst > 0 || spld > 0)
            fail(short " (" arch "): " stack " bytes stack frame, " spst \
                 " bytes spill stores, " spld " bytes spill loads")
        if (short == "ps_onesweep") {
            if (blocks == "") { fail("no ps-occupancy line: the kernels do not say what they assume"); }
            else {
                alloc = int((regs + 7) / 8) * 8
                fit = int(65536 / (alloc * threads))
                printf "%s: ps_onesweep (%s): %d registers, %d threads: %d blocks " \
                       "a multiprocessor (assumed: %d)\n", file, arch, regs, threads, fit, blocks
                if (fit < blocks)
                    fail("ps_onesweep (" arch ") uses " regs " registers: " fit \
                         " blocks of " threads " fit a multiprocessor, the tuning assumes " blocks)
            }
        }
        fn = ""; regs = ""
    }
    /ps-occupancy: ps_onesweep [0-9]+ threads x [0-9]+ blocks/ && blocks == "" {
        sub(/.*ps-occupancy: ps_onesweep /, "")
        threads = $1 + 0; blocks = $4 + 0
        if (force != "") blocks = force + 0
    }
    /Compiling entry function/ {
        done_entry()
        fn = $0; sub(/.*function .../, "", fn); sub(/. for .*/, "", fn)
        arch = $0; sub(/.* for ./, "", arch); sub(/.$/, "", arch)
        short = fn
        if (match(fn, /ps_[a-z_]+E/)) short = substr(fn, RSTART, RLENGTH - 1)
        # The mangled name is <len>ps_name: the length digits precede it.
        sub(/^[0-9]+/, "", short)
        stack = spst = spld = 0
    }
    /bytes stack frame/ && fn != "" {
        stack = $1 + 0; spst = $5 + 0; spld = $9 + 0
    }
    /Used [0-9]+ registers/ && fn != "" {
        regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs); regs += 0
        done_entry()
    }
    END {
        if (entries == 0) fail("no kernel entries in the report")
        else printf "%s: %d kernel entries checked\n", file, entries
        exit bad
    }' "$f" || status=1
done
exit $status
