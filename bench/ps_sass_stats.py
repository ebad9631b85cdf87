#!/usr/bin/env python3
"""ps_sass_stats.py - static SASS instruction counts of GPU kernels, by kind.

Usage: cuobjdump --dump-sass OBJECT | python3 bench/ps_sass_stats.py [REGEX...]

Reads cuobjdump's listing on standard input and prints, for every kernel
whose mangled name matches one of the regular expressions (all kernels
when none is given), its instruction count and the counts of the
instructions that set a Onesweep tile's cost: warp matching and votes,
shuffles, block barriers, shared-memory loads, stores and atomics, global
loads, stores and atomics, sleeps and branches.  The loops over a
thread's keys are unrolled (PS_UNROLL, CUB's _CCCL_PRAGMA_UNROLL_FULL), so
a kernel's static counts divided by its keys per thread say roughly what
each key costs; doc/cuda.md compares ps_onesweep with CUB's
DeviceRadixSortOnesweepKernel this way.
"""
import re
import sys

KINDS = [
    ("MATCH", r"MATCH"), ("VOTE", r"VOTE"), ("SHFL", r"SHFL"),
    ("BAR", r"BAR"), ("LDS", r"LDS"), ("STS", r"STS"), ("ATOMS", r"ATOMS"),
    ("LDG", r"LDG"), ("STG", r"STG"), ("ATOMG", r"(ATOMG|RED)"),
    ("SLEEP", r"NANOSLEEP"), ("BRA", r"BRA"),
]


def main():
    pats = [re.compile(p) for p in sys.argv[1:]]
    name, counts, rows = None, None, []
    for line in sys.stdin:
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name is not None:
                rows.append((name, counts))
            name, counts = m.group(1), {}
            if pats and not any(p.search(name) for p in pats):
                name = None
            continue
        if name is None:
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if not m:
            continue
        op = m.group(2).split(".")[0]
        counts["all"] = counts.get("all", 0) + 1
        for kind, rx in KINDS:
            if re.fullmatch(rx, op):
                counts[kind] = counts.get(kind, 0) + 1
    if name is not None:
        rows.append((name, counts))
    print("%-6s %s  kernel" % ("all", " ".join("%5s" % k for k, _ in KINDS)))
    for name, c in rows:
        print("%-6d %s  %s" % (c.get("all", 0),
                               " ".join("%5d" % c.get(k, 0) for k, _ in KINDS),
                               name[:110]))
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
