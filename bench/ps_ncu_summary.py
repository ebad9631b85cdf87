#!/usr/bin/env python3
"""ps_ncu_summary.py - one table of Nsight Compute's readings, ours against CUB.

Usage: python3 bench/ps_ncu_summary.py NAME=RAW.csv [NAME=RAW.csv...]

Each RAW.csv is `ncu --import REPORT --page raw --csv` of one profiled
kernel (bench/gpu-run.sh's `profile` step: one Onesweep pass of ours and
one of CUB's, --set full).  Prints, one column per NAME, the readings that
say where a Onesweep tile's time goes: the kernel's time, instructions
issued, achieved occupancy, the shared-memory bank conflicts, and the
warp stall reasons (cycles a warp spent stalled per instruction issued,
by reason, largest first), so that the next change aims at the stall
that differs most between the two kernels.
"""
import csv
import sys

# (label, metric name) read as they are; the stall reasons are found by
# their prefix below.
ROWS = [
    ("time (us)", "gpu__time_duration.sum", 1),
    ("cycles (SM active, avg)", "sm__cycles_active.avg", 1),
    ("warp instructions issued", "smsp__inst_executed.sum", 1),
    ("registers a thread", "launch__registers_per_thread", 1),
    ("threads a block", "launch__block_size", 1),
    ("blocks", "launch__grid_size", 1),
    ("blocks a SM (theory)", "launch__occupancy_limit_registers", 1),
    ("shared memory a block (B)", "launch__shared_mem_per_block_static", 1),
    ("achieved occupancy (%)", "sm__warps_active.avg.pct_of_peak_sustained_active", 1),
    ("DRAM throughput (% peak)", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 1),
    ("SM throughput (% peak)", "sm__throughput.avg.pct_of_peak_sustained_elapsed", 1),
    ("issue slots busy (%)", "sm__inst_issued.avg.pct_of_peak_sustained_active", 1),
    ("shared ld bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 1),
    ("shared st bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 1),
    ("shared ld wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 1),
    ("shared st wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 1),
    ("shared atomics (inst)", "sm__sass_inst_executed_op_shared_atom.sum", 1),
    ("global ld sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1),
    ("global st sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 1),
    ("L2 <- L1 atom/red sectors", "lts__t_sectors_srcunit_l1_op_atom.sum", 1),
]
# Times in microseconds, whatever unit the report chose.
TIME_UNITS = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6}
STALL = "smsp__average_warps_issue_stalled_"
STALL_END = "_per_issue_active.ratio"


def read(path):
    """The first data row of a raw page, as {metric: float or str}."""
    with open(path, newline="", errors="replace") as f:
        rows = [r for r in csv.reader(f) if r]
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if head is None or head + 2 >= len(rows):
        return {}
    names, units, data = rows[head], rows[head + 1], rows[head + 2]
    out = {}
    for k, u, v in zip(names, units, data):
        try:
            out[k] = float(v.replace(",", "")) * TIME_UNITS.get(u, 1)
        except ValueError:
            out[k] = v
    return out


def fmt(v, scale=1):
    if isinstance(v, float):
        v *= scale
        return "%.3g" % v if abs(v) < 100 else "%.0f" % v
    return "-" if v is None else str(v)[:14]


def main():
    cols = []
    for arg in sys.argv[1:]:
        name, _, path = arg.partition("=")
        try:
            cols.append((name, read(path)))
        except OSError as e:
            cols.append((name, {"error": str(e)}))
    if not cols:
        sys.exit(__doc__)
    width = max(14, *(len(n) for n, _ in cols))
    print("%-34s" % "reading" + "".join(" %*s" % (width, n) for n, _ in cols))
    for d in cols:
        if "Kernel Name" in d[1]:
            print("%-34s" % "kernel" + "".join(
                " %*s" % (width, str(c.get("Kernel Name", "-"))[:width]) for _, c in cols))
            break
    for label, metric, scale in ROWS:
        print("%-34s" % label + "".join(
            " %*s" % (width, fmt(c.get(metric), scale)) for _, c in cols))
    reasons = set()
    for _, c in cols:
        reasons.update(k for k in c if k.startswith(STALL) and k.endswith(STALL_END)
                       and "not_issued" not in k)
    total = lambda c: sum(c.get(k, 0) for k in reasons if isinstance(c.get(k), float))
    print("%-34s" % "stall cycles / issue, all" + "".join(
        " %*.3g" % (width, total(c)) for _, c in cols))
    key = lambda k: -max((c.get(k, 0) if isinstance(c.get(k), float) else 0) for _, c in cols)
    for k in sorted(reasons, key=key):
        label = "  " + k[len(STALL):-len(STALL_END)]
        print("%-34s" % label + "".join(" %*s" % (width, fmt(c.get(k))) for _, c in cols))


if __name__ == "__main__":
    main()
