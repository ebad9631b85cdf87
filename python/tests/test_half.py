"""Half-precision keys: numpy.float16 arrays (PS_F16), bfloat16 as uint16
words with type="bf16" (PS_BF16), and the type= keyword in general."""

import sys

import numpy as np
import pytest

import portsort
from oracle import (BF16_SPECIALS, PATTERNS, SIZES, bf16_values, bf16_words,
                    make_floats, same_bits, stable_perm)

DIRECTIONS = [False, True]


def check_all_ops(a, perm, descending, type=None):
    """sort, argsort and sort_pairs on copies of a give a[perm], bit for
    bit (NaN payloads, -0.0), and perm."""
    keys = a.copy()
    portsort.sort(keys, descending=descending, type=type)
    assert same_bits(keys, a[perm])

    original = a.copy()
    assert np.array_equal(portsort.argsort(a, descending=descending,
                                           type=type), perm)
    assert same_bits(a, original), "argsort must not touch the keys"

    keys = a.copy()
    values = np.arange(len(a), dtype=np.uint64)
    portsort.sort_pairs(keys, values, descending=descending, type=type)
    assert same_bits(keys, a[perm])
    assert np.array_equal(values, perm)


@pytest.mark.parametrize("descending", DIRECTIONS, ids=["asc", "desc"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("n", SIZES)
def test_float16_total_order(n, pattern, descending):
    a = make_floats(np.float16, n, pattern)
    check_all_ops(a, stable_perm(a, descending), descending)


@pytest.mark.parametrize("descending", DIRECTIONS, ids=["asc", "desc"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("n", SIZES)
def test_bf16_words_total_order(n, pattern, descending):
    w = bf16_words(n, pattern)
    check_all_ops(w, stable_perm(w, descending, kind="f"), descending,
                  type="bf16")


def test_float16_agrees_with_numpy_sort():
    """Without NaNs, totalOrder and numpy.sort give the same values; the
    zeros come out -0.0 first."""
    rng = np.random.default_rng(16)
    a = (rng.standard_normal(50000) * 300).astype(np.float16)
    a[::97] = 0.0
    a[::89] = -0.0
    a[::101] = np.inf
    a[::103] = -np.inf
    want = np.sort(a, kind="stable")
    got = a.copy()
    portsort.sort(got)
    assert np.array_equal(got, want)        # equal as numbers
    zeros = got[got == 0]
    assert np.all(np.signbit(zeros[:np.count_nonzero(np.signbit(zeros))]))


def test_bf16_agrees_with_numpy_sort_of_float32():
    """bfloat16 words sort as the float32 values they are the top of."""
    rng = np.random.default_rng(17)
    f = (rng.standard_normal(50000) * 1e20).astype(np.float32)
    w = (f.view(np.uint32) >> 16).astype(np.uint16)
    w[::53] = 0x0001                        # a subnormal
    got = w.copy()
    portsort.sort(got, type="bf16")
    assert np.array_equal(bf16_values(got),
                          np.sort(bf16_values(w), kind="stable"))
    portsort.sort(got, descending=True, type="bf16")
    assert np.array_equal(bf16_values(got),
                          np.sort(bf16_values(w), kind="stable")[::-1])


def test_nan_payloads_and_signs_kept():
    specials = np.array(BF16_SPECIALS, np.uint16)
    got = specials.copy()
    portsort.sort(got, type="bf16")
    assert sorted(got.tolist()) == sorted(specials.tolist())
    assert got[0] == 0xffff and got[-1] == 0x7fd5   # largest payloads out
    assert list(got[1:3]) == [0xffc0, 0xff81]
    h = np.array([0x7e55, 0xfc01, 0x8000, 0x0000, 0x7c01, 0xfe00],
                 np.uint16)
    portsort.sort(h.view(np.float16))
    assert h.tolist() == [0xfe00, 0xfc01, 0x8000, 0x0000, 0x7c01, 0x7e55]


def test_type_reinterprets_words_of_that_width():
    a = np.array([1.5, -2.0, 0.25, -0.0, 0.0, 7.0], np.float16)
    words = a.view(np.uint16).copy()
    portsort.sort(words, type="f16")
    want = a.copy()
    portsort.sort(want)
    assert same_bits(words.view(np.float16), want)
    # The same bits as integers: the sign bit makes negatives largest.
    ints = a.copy()
    portsort.sort(ints, type="u16")
    assert same_bits(ints.view(np.uint16), np.sort(a.view(np.uint16)))
    # Raw 2-byte words (the kind ml_dtypes' bfloat16 has) are words too.
    raw = np.array([0x4000, 0xbf80, 0x3f80], np.uint16).view("V2")
    portsort.sort(raw, type="bf16")
    assert raw.view(np.uint16).tolist() == [0xbf80, 0x3f80, 0x4000]
    # type= naming what the dtype says anyway is fine.
    b = np.array([3, 1, 2], np.int32)
    portsort.sort(b, type="i32")
    assert b.tolist() == [1, 2, 3]


def assert_untouched(exc, fn, arr):
    before = arr.tobytes()
    with pytest.raises(exc):
        fn()
    assert arr.tobytes() == before


@pytest.mark.parametrize("bad", ["bfloat16", "float16", "F16", 12, "u128"])
def test_unknown_type_names_refused(bad):
    w = np.array([3, 1, 2], np.uint16)
    for fn in (lambda: portsort.sort(w, type=bad),
               lambda: portsort.argsort(w, type=bad),
               lambda: portsort.sort_pairs(w, np.arange(3), type=bad)):
        assert_untouched(ValueError, fn, w)


OTHER = ">u2" if sys.byteorder == "little" else "<u2"


@pytest.mark.parametrize("dtype,type", [
    (np.float32, "bf16"), (np.uint8, "f16"), (np.uint16, "f32"),
    (np.bool_, "u8"), (OTHER, "bf16"), ("S2", "bf16"), ("U1", "f32"),
    ([("a", "u1"), ("b", "u1")], "bf16"), (np.float64, "u32"),
], ids=str)
def test_type_of_another_width_or_kind_refused(dtype, type):
    arr = np.zeros(8, dtype=dtype)
    raw = arr.view(np.uint8)
    raw[:] = np.arange(len(raw)) % 251
    for fn in (lambda: portsort.sort(arr, type=type),
               lambda: portsort.argsort(arr, type=type)):
        assert_untouched(TypeError, fn, arr)
