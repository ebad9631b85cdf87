"""portsort.sort_segments (ps_sort_segments) against a per-segment NumPy
oracle: every segment sorted on its own, stably, in totalOrder, nothing
leaving its segment; bad offsets refused with the arrays untouched."""

import numpy as np
import pytest

import portsort
from oracle import (bf16_words, make_floats, make_keys, same_bits,
                    stable_perm)


def segment_perm(a, offsets, descending=False, kind=None):
    """The global permutation that sorts each segment stably."""
    perm = np.arange(len(a))
    for lo, hi in zip(offsets[:-1], offsets[1:]):
        perm[lo:hi] = lo + stable_perm(a[lo:hi], descending, kind)
    return perm


def offsets_of(sizes):
    return np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])


def shapes(n, rng):
    """Segmentations of n keys as users have them."""
    out = {
        "one": [n],
        "singles": [1] * n,
        "empties-around": [0, 0] + [n // 3, 0, n - n // 3] + [0],
        "random": None,
        "power-law": None,
        "giant-and-tiny": [n - min(n, 40)] + [1] * min(n, 40),
    }
    sizes, left = [], n
    while left:
        s = min(left, int(rng.integers(0, 50)))
        sizes.append(s)
        left -= s
    out["random"] = sizes
    sizes, left = [], n
    while left:
        s = min(left, int(rng.pareto(1.2) * 3))    # many tiny, a few huge
        sizes.append(s)
        left -= s
    out["power-law"] = sizes
    return out


KEYS = {
    "u32": lambda n: make_keys(np.uint32, n, "duplicated"),
    "i64": lambda n: make_keys(np.int64, n, "random"),
    "f64": lambda n: make_floats(np.float64, n, "random"),
    "f16": lambda n: make_floats(np.float16, n, "duplicated"),
    "bf16": lambda n: bf16_words(n, "random"),
}


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("name", sorted(KEYS))
@pytest.mark.parametrize("shape", ["one", "singles", "empties-around",
                                   "random", "power-law", "giant-and-tiny"])
def test_segments_match_oracle(shape, name, descending):
    rng = np.random.default_rng(len(shape) * 31 + len(name))
    n = 5003
    a = KEYS[name](n)
    offsets = offsets_of(shapes(n, rng)[shape])
    kind = "f" if name == "bf16" else None
    type = "bf16" if name == "bf16" else None
    perm = segment_perm(a, offsets, descending, kind)

    keys = a.copy()
    portsort.sort_segments(keys, offsets, descending=descending, type=type)
    assert same_bits(keys, a[perm])

    keys = a.copy()
    values = np.arange(n, dtype=np.uint32)
    portsort.sort_segments(keys, offsets.tolist(), values,
                           descending=descending, type=type)
    assert same_bits(keys, a[perm])
    assert np.array_equal(values, perm)


def test_many_rows_like_csr():
    """100K keys in 10K rows of about 10, with 12-byte values."""
    rng = np.random.default_rng(5)
    n = 100000
    offsets = np.concatenate([[0], np.sort(rng.integers(0, n, 9999)), [n]])
    a = make_keys(np.uint32, n, "random") % 1000
    values = np.zeros((n, 12), np.uint8)
    values[:, :8] = np.arange(n, dtype=np.uint64).view(np.uint8).reshape(n, 8)
    keys = a.copy()
    portsort.sort_segments(keys, offsets.astype(np.uint64), values)
    perm = segment_perm(a, offsets)
    assert np.array_equal(keys, a[perm])
    assert np.array_equal(values[:, :8].copy().view(np.uint64).ravel(), perm)


def test_empty_inputs():
    portsort.sort_segments(np.zeros(0, np.float16), [0])
    portsort.sort_segments(np.zeros(0, np.uint8), [0, 0, 0],
                           np.zeros(0, np.uint64))
    one = np.array([7], np.int8)
    portsort.sort_segments(one, [0, 1])
    assert one.tolist() == [7]


@pytest.mark.parametrize("offsets,why", [
    ([0, 3, 2, 6], "decrease"),
    ([0, 2, 5], "must be n"),
    ([0, 2, 7], "must be n"),
    ([1, 6], "must be 0"),
    ([], "empty"),
    ([0, -1, 6], "negative"),
    ([0, 2**70], "does not fit in size_t"),
    ([0, 3, 2**64], "does not fit in size_t"),
    ([0, -2**70, 6], "negative"),
    (np.array([0, 6, 3, 6], np.uint8), "decrease"),
])
def test_bad_offsets_raise_error_and_touch_nothing(offsets, why):
    keys = np.array([5, 3, 4, 1, 2, 0], np.float16)
    values = np.arange(6, dtype=np.uint64)[::-1].copy()
    kb, vb = keys.tobytes(), values.tobytes()
    with pytest.raises(portsort.Error) as err:
        portsort.sort_segments(keys, offsets, values)
    assert err.value.status == 1            # PS_ERR_INVALID_ARG
    assert why in str(err.value)
    assert keys.tobytes() == kb and values.tobytes() == vb
    with pytest.raises(portsort.Error):
        portsort.sort_segments(keys, offsets)
    assert keys.tobytes() == kb


@pytest.mark.parametrize("offsets,exc", [
    (np.array([0.0, 6.0]), TypeError),
    (np.array([False, True]), TypeError),
    ([0, True, 6], TypeError),
    ([False, 6], TypeError),
    ((0, np.True_, 6), TypeError),
    (np.array([0, 3, True, 6], dtype=object), TypeError),
    (np.ma.masked_array([0, 3, 6], mask=[0, 1, 0]), TypeError),
    (np.array([[0, 6]]), ValueError),
])
def test_offsets_of_wrong_kind_refused(offsets, exc):
    keys = np.array([5, 3, 4, 1, 2, 0], np.int16)
    before = keys.tobytes()
    with pytest.raises(exc):
        portsort.sort_segments(keys, offsets)
    assert keys.tobytes() == before


def test_values_of_wrong_length_refused():
    keys = np.array([3, 2, 1], np.uint32)
    with pytest.raises(ValueError):
        portsort.sort_segments(keys, [0, 3], np.arange(4, dtype=np.uint32))
    assert keys.tolist() == [3, 2, 1]
