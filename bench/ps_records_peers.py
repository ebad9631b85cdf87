#!/usr/bin/env python3
"""Time portsort on several keys (structured arrays, lexsort) against NumPy,
print a Markdown table.

    PORTSORT_LIBRARY=build/lib/.libs/libportsort.so PYTHONPATH=python \\
        python3 bench/ps_records_peers.py [--n 4M] [--repeat 5]

Cases, each on the same data for both:
  - coo: a structured array {u4 row, u4 col, f4 val} by row then col:
    np.sort(a, order=["row", "col"], kind="stable") against
    portsort.sort(a, order=["row", "col"]) (val breaks ties in both);
  - events: {f8 time, u4 id, u2 kind} by time, id (kind breaks ties);
  - lexsort: two int32 columns (issue 31's case), and three columns (u2,
    i4, f4), np.lexsort against portsort.lexsort, same argument order.
Floats hold no NaN or -0.0, where NumPy's order and totalOrder agree, and
the results are checked to be equal.  Each runs once to warm up, then
--repeat times (sorts on a fresh copy); medians in ms and NumPy's time over
portsort's.
"""

import argparse

import numpy as np

import portsort
from ps_py_bench import cpu_model, median_ms, parse_size


def cases(n, rng):
    coo = np.zeros(n, dtype=[("row", "u4"), ("col", "u4"), ("val", "f4")])
    coo["row"] = rng.integers(0, n // 8 + 1, n)
    coo["col"] = rng.integers(0, 10**6, n)
    coo["val"] = rng.random(n)
    ev = np.zeros(n, dtype=[("time", "f8"), ("id", "u4"), ("kind", "u2")])
    ev["time"] = rng.integers(0, 100000, n) * 0.001
    ev["id"] = rng.integers(0, 2**32, n)
    ev["kind"] = rng.integers(0, 2**16, n)
    cols = [rng.integers(0, 2**16, n).astype(np.uint16),
            rng.integers(-1000, 1000, n).astype(np.int32),
            rng.integers(0, 100, n).astype(np.float32)]
    two = [rng.integers(-2**31, 2**31, n).astype(np.int32),
           rng.integers(-1000, 1000, n).astype(np.int32)]
    return [("coo by row, col", coo, ["row", "col"]),
            ("events by time, id", ev, ["time", "id"]),
            ("lexsort i4, i4", two, None),
            ("lexsort u2, i4, f4", cols, None)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", default="4M")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    n = parse_size(args.n)
    rng = np.random.default_rng(31)
    print("portsort on several keys against NumPy, n = %d, median of %d; "
          "%s, backend %s\n" % (n, args.repeat, cpu_model(), portsort.backend()))
    print("| case | portsort ms | numpy ms | numpy / portsort |")
    print("| --- | ---: | ---: | ---: |")
    for name, data, order in cases(n, rng):
        if order is None:
            ours = portsort.lexsort(data)
            assert np.array_equal(ours, np.lexsort(data)), name
            t_ours = median_ms(lambda: portsort.lexsort(data), args.repeat)
            t_np = median_ms(lambda: np.lexsort(data), args.repeat)
        else:
            a = data.copy()
            portsort.sort(a, order=order)
            assert a.tobytes() == np.sort(data, order=order,
                                          kind="stable").tobytes(), name
            t_ours = median_ms(lambda: portsort.sort(data.copy(), order=order),
                               args.repeat)
            t_np = median_ms(lambda: np.sort(data, order=order, kind="stable"),
                             args.repeat)
        print("| %s | %.1f | %.1f | %.1f |" % (name, t_ours, t_np, t_np / t_ours))


if __name__ == "__main__":
    main()
