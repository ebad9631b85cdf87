#!/usr/bin/env python3
"""Write the seed corpus of ps_fuzz_shapes (test/fuzz/corpus-shapes/): a few
hand-made cases, the first ones those of issue 16 (u64 keys with log-uniform
magnitudes, 100K to 1M, on the OpenMP backend's parallel path).  The byte
layout is described at the top of ps_fuzz_shapes.c; keep the two in step.
Run from the source tree: python3 test/fuzz/shapes-corpus.py"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus-shapes")
DIST = ["uniform", "loguniform", "zipf", "exponential", "rootdup", "twodup",
        "eightdup", "fewdistinct", "nestedheavy", "lowbits", "runs", "allequal",
        "specials"]
TYPE = ["u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64"]
OPS = {"keys": 0, "pairs": 1, "argsort": 2}
# Value size byte for each value size (decode: b % 20 < 4 -> 4 or 8, else
# 1 + (b % 20 - 4)).
VS = {4: 0, 8: 1, **{v: v + 3 for v in range(1, 17)}}
# Size classes of decode_n(): (class, parameter) for exact sizes.
MARKS = [16384, 32768, 49152, 65536, 131072, 4096, 12288, 24576,
         98304, 196608, 262144, 100000, 8192, 2048, 1024, 256]
LARGE = [1 << 20, 1 << 21, 1000000, 1 << 19, 200000, 300000, 500000, 1500000]


def size(n):
    """(class, parameter) that decode_n() turns into n."""
    for i, m in enumerate(LARGE):
        if n - m in (-1, 0, 1):
            return 12, i | ((n - m + 1) << 3)
    for i, m in enumerate(MARKS):
        if n - m in (-1, 0, 1):
            return 4, i | ((n - m + 1) << 4)
    if n < 64:
        return 0, n
    if n < 32768:
        return 3, n
    raise ValueError(f"no size class gives exactly {n}")


# k classes of decode_k() for ps_topk: (class, parameter) -> k.
K = {"0": (0, 0), "1": (1, 0), "n-1": (2, 0), "n": (3, 0), "n+1": (4, 0),
     "max": (4, 3), "100": (5, 99), "n/2": (7, 0)}


def case(name, typ, n, dist, a=0, b=0, c=0, seed=1, desc=False, op="keys", vs=4,
         topk=None, strings=False, records=None, memlimit=False):
    """topk: a K name, for ps_topk of op with that k.  strings: the keys as
    byte strings (ps_argsort_strings, ps_sort_strings), after a shared
    prefix of [0, 3, 8, 15, 64, 1000][c % 6] bytes.  records: "asc" or
    "desc", for ps_sort_records by (group in that direction, key).
    memlimit: the operation under a one-byte memory limit."""
    cls, p = size(n)
    rec = 0 if records is None else 32 | (64 if records == "desc" else 0)
    data = bytes([TYPE.index(typ), DIST.index(dist), cls,
                  int(desc) | OPS[op] << 1 | (8 if topk else 0) |
                  (16 if strings else 0) | rec | (128 if memlimit else 0),
                  a]) + \
        struct.pack("<H", p) + bytes([VS[vs], b, c]) + struct.pack("<Q", seed)
    if topk:
        kc, q = K[topk]
        data += struct.pack("<H", kc | q << 3)
    assert len(data) == (20 if topk else 18)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


os.makedirs(OUT, exist_ok=True)
# Issue 16: (uint64_t)exp2(63.0 * rand() / RAND_MAX); a = 63 gives magnitudes
# of 0..64 bits.
case("issue16-u64-loguniform-100k", "u64", 100000, "loguniform", a=63)
case("issue16-u64-loguniform-200k", "u64", 200000, "loguniform", a=63)
case("issue16-u64-loguniform-1m", "u64", 1000000, "loguniform", a=63)
case("issue16-u64-loguniform-100k-pairs8", "u64", 100000, "loguniform", a=63,
     op="pairs", vs=8, seed=2)
case("issue16-u64-loguniform-100k-argsort", "u64", 100000, "loguniform", a=63,
     op="argsort", seed=4)
case("issue16-i64-loguniform-both-100k-desc", "i64", 100000, "loguniform",
     a=63, c=1, desc=True, seed=3)
case("f32-loguniform-both-100k-desc", "f32", 100000, "loguniform", a=255, c=1,
     desc=True)
# Other shapes at the thresholds.
case("u32-nestedheavy-128k", "u32", 131072, "nestedheavy", a=7, b=3, c=12)
case("i32-zipf-48k+1", "i32", 49153, "zipf", a=32, b=15, c=1)
case("f64-specials-64k-1-pairs7", "f64", 65535, "specials", op="pairs", vs=7)
case("u16-rootdup-16k", "u16", 16384, "rootdup", c=2)
case("u64-twodup-32k+1-argsort", "u64", 32769, "twodup", c=1, op="argsort")
case("i8-eightdup-4k-pairs5", "i8", 4096, "eightdup", op="pairs", vs=5)
case("u32-fewdistinct-200k-desc", "u32", 200000, "fewdistinct", a=5, desc=True)
case("i16-lowbits-98k", "i16", 98304, "lowbits", a=3)
case("u64-runs-almostsorted-64k", "u64", 65536, "runs", a=2, b=1, c=20)
case("f64-exponential-48k-1-pairs1", "f64", 49151, "exponential", a=32, c=1,
     op="pairs", vs=1)
case("u8-allequal-300", "u8", 300 % 32768, "allequal", a=2)
# ps_topk: the k-th key among many equal ones, specials, all equal keys,
# and the edges of k.
case("topk-u64-loguniform-1m-k100", "u64", 1000000, "loguniform", a=63,
     topk="100")
case("topk-i64-fewdistinct-200k-argsort-half", "i64", 200000, "fewdistinct",
     a=5, op="argsort", topk="n/2")
case("topk-f64-specials-64k-1-pairs7-n-1", "f64", 65535, "specials",
     op="pairs", vs=7, desc=True, topk="n-1")
case("topk-u16-allequal-48k+1-k1", "u16", 49153, "allequal", a=1, topk="1")
case("topk-i8-eightdup-4k-argsort-max", "i8", 4096, "eightdup", op="argsort",
     topk="max", desc=True)
# Strings: keys as byte strings after a shared prefix (of 8 bytes, 1000,
# 64), NULs inside from the keys' high zero bytes.
case("strings-u64-uniform-100k-prefix8", "u64", 100000, "uniform", c=2,
     strings=True)
case("strings-u32-fewdistinct-4k-prefix1000-desc", "u32", 4096, "fewdistinct",
     a=5, c=5, desc=True, strings=True)
case("strings-u16-allequal-64k+1-prefix64", "u16", 65537, "allequal", a=1,
     c=4, strings=True)
case("strings-i64-loguniform-200k-desc", "i64", 200000, "loguniform", a=63,
     c=0, desc=True, strings=True)
# Records {u8 group, key, 3-byte tag} by (group, key): one word with the
# tag as rest (the pairs route), and u64/f64 keys over two words.
case("records-u32-fewdistinct-100k-groups-desc", "u32", 100000, "fewdistinct",
     a=3, records="desc")
case("records-f64-specials-64k+1-desc", "f64", 65537, "specials", a=2,
     desc=True, records="asc")
case("records-i16-twodup-48k", "i16", 49152, "twodup", a=1, records="asc")
case("records-u64-loguniform-200k", "u64", 200000, "loguniform", a=63,
     records="desc")
# Under a one-byte memory limit: keys alone sorted in place (the issue 16
# shape at 1M on the parallel buckets, heavy nested buckets, specials);
# pairs and argsort refused with their arrays unchanged.
case("memlimit-u64-loguniform-1m", "u64", 1000000, "loguniform", a=63,
     memlimit=True)
case("memlimit-u32-nestedheavy-128k-desc", "u32", 131072, "nestedheavy", a=7,
     b=3, c=12, desc=True, memlimit=True)
case("memlimit-f64-specials-64k+1", "f64", 65537, "specials", memlimit=True)
case("memlimit-i16-lowbits-98k-pairs8", "i16", 98304, "lowbits", a=3,
     op="pairs", vs=8, memlimit=True)
case("memlimit-u32-runs-48k+1-argsort", "u32", 49153, "runs", a=2, b=1, c=20,
     op="argsort", memlimit=True)
