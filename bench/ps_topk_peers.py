#!/usr/bin/env python3
"""Time portsort.topk against what a Python user would otherwise call for the
k smallest keys in order, print a Markdown table.

    PORTSORT_LIBRARY=build/lib/.libs/libportsort.so PYTHONPATH=python \\
        python3 bench/ps_topk_peers.py [--n 16M] [--ks 1,100,10000,1000000]

Peers, on the same array (random u32 bits; f32 uniform in [-1, 1)):
  - numpy: np.argpartition(a, k - 1)[:k] and a stable argsort of those
    keys, i.e. the k smallest with their indices, sorted (NumPy's
    partition is introselect; its order among ties differs from ours);
  - numpy-sort: np.argsort(a, kind="stable")[:k], the full sort;
  - torch: torch.topk(t, k, largest=False, sorted=True) on a CPU tensor,
    when torch imports (it is not installed by the package);
  - portsort-sort: portsort.argsort(a)[:k], our own full sort.
Each runs once to warm up, then --repeat times; medians in ms, and the
ratio of each peer's time to portsort.topk's.  portsort's keys are checked
against NumPy's full sort's first k.
"""

import argparse
import os
import sys

import numpy as np

import portsort
# The same size syntax and CPU name as the sort benchmark beside it.
from ps_py_bench import cpu_model, median_ms, parse_size


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", default="16M")
    ap.add_argument("--ks", default="1,100,10000,1000000")
    ap.add_argument("--types", default="u32,f32")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    n = parse_size(args.n)
    ks = [parse_size(k) for k in args.ks.split(",")]
    try:
        import torch
        torch.set_num_threads(os.cpu_count() or 1)
    except ImportError:
        torch = None
    rng = np.random.default_rng(30)
    print("portsort.topk against NumPy%s, n = %d, median of %d; %s, %d CPUs, "
          "backend %s" % (" and torch" if torch else " (torch not installed)",
                          n, args.repeat, cpu_model(), os.cpu_count(),
                          portsort.backend()))
    print()
    cols = ["numpy", "numpy-sort"] + (["torch"] if torch else []) + \
        ["portsort-sort"]
    print("| type | k | portsort.topk ms | " +
          " | ".join("%s ms (x)" % c for c in cols) + " |")
    print("| --- | ---: | ---: |" + " ---: |" * len(cols))
    for tname in args.types.split(","):
        if tname == "u32":
            a = rng.integers(0, 2**32, n, dtype=np.uint32)
        elif tname == "f32":
            a = rng.uniform(-1, 1, n).astype(np.float32)
        else:
            sys.exit("ps_topk_peers: types are u32 and f32")
        first = np.argsort(a, kind="stable")
        t = torch.from_numpy(a.astype(np.int64) if tname == "u32" else a) \
            if torch else None
        for k in ks:
            top, idx = portsort.topk(a, k)
            if not np.array_equal(idx, first[:k]):
                sys.exit("ps_topk_peers: portsort.topk differs from the "
                         "stable sort's first k (%s, k = %d)" % (tname, k))
            ours = median_ms(lambda: portsort.topk(a, k), args.repeat)

            def np_part():
                p = np.argpartition(a, k - 1)[:k]
                return p[np.argsort(a[p], kind="stable")]

            peers = {
                "numpy": lambda: np_part(),
                "numpy-sort": lambda: np.argsort(a, kind="stable")[:k],
                "portsort-sort": lambda: portsort.argsort(a)[:k],
            }
            if torch:
                peers["torch"] = lambda: torch.topk(t, k, largest=False,
                                                    sorted=True)
            row = ["%s" % tname, "%d" % k, "%.2f" % ours]
            for c in cols:
                ms = median_ms(peers[c], args.repeat)
                row.append("%.2f (%.1f)" % (ms, ms / ours))
            print("| " + " | ".join(row) + " |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
