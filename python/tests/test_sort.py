"""portsort.sort, argsort and sort_pairs against NumPy's stable sorts."""

import numpy as np
import pytest

import portsort
from oracle import (FLOAT_TYPES, INT_TYPES, PATTERNS, SIZES, make_floats,
                    make_keys, same_bits, stable_perm)

DIRECTIONS = [False, True]


def type_id(t):
    return np.dtype(t).name


@pytest.mark.parametrize("descending", DIRECTIONS, ids=["asc", "desc"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", INT_TYPES, ids=type_id)
def test_integers(dtype, n, pattern, descending):
    a = make_keys(dtype, n, pattern)
    perm = stable_perm(a, descending)
    if not descending:
        # The oracle itself agrees with NumPy's own stable sorts.
        assert np.array_equal(perm, np.argsort(a, kind="stable"))
        assert np.array_equal(a[perm], np.sort(a, kind="stable"))
    else:
        # ... and with a lexsort by negated value, index breaking ties
        # (exact in int64 for keys narrower than 8 bytes).
        if a.dtype.itemsize < 8:
            neg = -a.astype(np.int64)
            assert np.array_equal(perm, np.lexsort((np.arange(n), neg)))
    check_all_ops(a, perm, descending)


@pytest.mark.parametrize("descending", DIRECTIONS, ids=["asc", "desc"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=type_id)
def test_floats_total_order(dtype, n, pattern, descending):
    a = make_floats(dtype, n, pattern)
    check_all_ops(a, stable_perm(a, descending), descending)


def check_all_ops(a, perm, descending):
    """sort, argsort and sort_pairs (4-byte index values) on copies of a."""
    keys = a.copy()
    portsort.sort(keys, descending=descending)
    assert same_bits(keys, a[perm])

    original = a.copy()
    got = portsort.argsort(a, descending=descending)
    assert got.dtype == np.intp
    assert np.array_equal(got, perm)
    assert same_bits(a, original), "argsort must not touch the keys"

    keys = a.copy()
    values = np.arange(len(a), dtype=np.uint32)
    portsort.sort_pairs(keys, values, descending=descending)
    assert same_bits(keys, a[perm])
    assert np.array_equal(values, perm.astype(np.uint32))


def test_float_order_differs_from_numpy():
    a = np.array([np.nan, 1.0, -np.nan, 0.0, -0.0, -np.inf, np.inf])
    a[2] = -abs(a[2])  # make sure the second NaN is negative
    portsort.sort(a)
    assert np.isnan(a[0]) and np.signbit(a[0])
    assert a[1] == -np.inf
    assert a[2] == 0.0 and np.signbit(a[2])
    assert a[3] == 0.0 and not np.signbit(a[3])
    assert np.isnan(a[-1]) and not np.signbit(a[-1])


def v12_values(n):
    """12-byte opaque values, unique per index."""
    raw = np.zeros((n, 12), np.uint8)
    idx = np.arange(n, dtype=np.uint64)
    raw[:, :8] = idx.view(np.uint8).reshape(n, 8)
    raw[:, 8:] = 0xA5
    return raw.view("V12").reshape(n)


def structured_values(n):
    dt = np.dtype([("id", "<u4"), ("w", "<f4"), ("tag", "<i4")])
    v = np.zeros(n, dt)
    v["id"] = np.arange(n)
    v["w"] = np.arange(n) * 0.5
    v["tag"] = -np.arange(n)
    return v


VALUE_MAKERS = {
    "u8": lambda n: (np.arange(n) % 251).astype(np.uint8),
    "i32": lambda n: np.arange(n, dtype=np.int32) * -3,
    "f64": lambda n: np.arange(n, dtype=np.float64) + 0.25,
    "V12": v12_values,
    "struct12": structured_values,
    "2d_f32x3": lambda n: np.arange(3 * n, dtype=np.float32).reshape(n, 3),
}


@pytest.mark.parametrize("descending", DIRECTIONS, ids=["asc", "desc"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", sorted(VALUE_MAKERS))
@pytest.mark.parametrize("dtype", [np.uint16, np.int64, np.float32],
                         ids=type_id)
def test_pairs_values_travel_stably(dtype, kind, n, descending):
    a = make_keys(dtype, n, "duplicated")
    values = VALUE_MAKERS[kind](n)
    assert n == 0 or values.nbytes // n in (1, 4, 8, 12)
    perm = stable_perm(a, descending)
    keys, expect = a.copy(), values[perm]
    portsort.sort_pairs(keys, values, descending=descending)
    assert same_bits(keys, a[perm])
    assert same_bits(values, expect)
