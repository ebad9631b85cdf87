#!/usr/bin/env python3
"""Time portsort.sort against NumPy's in-place sorts, print a Markdown table.

    PORTSORT_LIBRARY=build/lib/.libs/libportsort.so PYTHONPATH=python \\
        python3 bench/ps_py_bench.py [--sizes 1M,16M] [--types u32,u64,f32,f64]

For each type and size one random array is made (uniform random bits for
integers, standard normal floats, so no NaN where the two orders differ);
every method sorts a fresh copy of that same array in place (the copy is
not timed): portsort.sort, ndarray.sort(kind="stable") and ndarray.sort()
(NumPy's default, quicksort/introsort).  Each is run once to warm up, then
--repeat times; the median is reported, as Mkeys/s and as portsort's
speed over NumPy's.  Every portsort result is checked against NumPy's.
"""

import argparse
import os
import platform
import subprocess
import sys
import time

import numpy as np

import portsort

TYPES = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
         "u64": np.uint64, "i32": np.int32, "i64": np.int64,
         "f16": np.float16, "f32": np.float32, "f64": np.float64}


def parse_size(text):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper()
    if text[-1] in mult:
        return int(text[:-1]) * mult[text[-1]]
    return int(text)


def size_label(n):
    for unit, mult in (("M", 1 << 20), ("K", 1 << 10)):
        if n % mult == 0:
            return "%d%s" % (n // mult, unit)
    return str(n)


def make_data(dtype, n, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(n).astype(dtype)
    raw = rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype)


def median_seconds(method, data, repeat):
    """Median wall time of method(copy) over repeat runs, after a warm-up;
    returns (seconds, the last sorted copy)."""
    times = []
    for i in range(repeat + 1):
        work = data.copy()
        t0 = time.perf_counter()
        method(work)
        elapsed = time.perf_counter() - t0
        if i > 0:
            times.append(elapsed)
    times.sort()
    return times[len(times) // 2], work


METHODS = [
    ("portsort", portsort.sort),
    ("numpy stable", lambda a: a.sort(kind="stable")),
    ("numpy default", lambda a: a.sort()),
]


def median_ms(fn, repeat):
    """fn() once to warm up, then `repeat` timed calls: their median in
    ms (the peer scripts beside this one time callables this way)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True,
                             check=False, env=dict(os.environ, LC_ALL="C"))
        for line in out.stdout.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def backend_detail():
    name = portsort.backend()
    for b in portsort.backends():
        if b.name == name:
            return "%s (%s)" % (name, b.detail)
    return name


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1M,16M")
    ap.add_argument("--types", default="u32,u64,f32,f64")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    types = args.types.split(",")
    rng = np.random.default_rng(args.seed)

    print("CPU: %s, %d logical CPUs; portsort backend: %s; libportsort %s; "
          "NumPy %s; Python %s; median of %d runs.\n"
          % (cpu_model(), os.cpu_count(), backend_detail(),
             portsort.version(), np.__version__, platform.python_version(),
             args.repeat))
    print("| type | n | portsort Mkeys/s | numpy stable Mkeys/s "
          "| numpy default Mkeys/s | vs stable | vs default |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for tname in types:
        for n in sizes:
            data = make_data(TYPES[tname], n, rng)
            rate, results = {}, {}
            for name, method in METHODS:
                sec, results[name] = median_seconds(method, data, args.repeat)
                rate[name] = n / sec / 1e6
            if not np.array_equal(results["portsort"], results["numpy stable"]):
                sys.exit("portsort and numpy disagree on %s n=%d" % (tname, n))
            print("| %s | %s | %.1f | %.1f | %.1f | %.2fx | %.2fx |"
                  % (tname, size_label(n), rate["portsort"],
                     rate["numpy stable"], rate["numpy default"],
                     rate["portsort"] / rate["numpy stable"],
                     rate["portsort"] / rate["numpy default"]), flush=True)


if __name__ == "__main__":
    main()
