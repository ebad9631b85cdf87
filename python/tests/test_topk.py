"""portsort.topk and topk_segments (ps_topk, ps_topk_segments) against the
first k of NumPy's stable sort of an order-preserving unsigned key: keys,
indices and values bit for bit, ties at the k-th key by the lower index,
NaNs and -0/+0 in totalOrder; inputs only read; bad arguments refused."""

import numpy as np
import pytest

import portsort
from oracle import bf16_words, float_specials, make_floats, make_keys, \
    stable_perm


def first_k(a, k, descending=False, kind=None):
    return stable_perm(a, descending, kind)[:k]


def same_bits(x, y):
    return x.dtype == y.dtype and x.shape == y.shape and \
        x.tobytes() == y.tobytes()


KEYS = {
    "u8": lambda n: make_keys(np.uint8, n, "random"),
    "u32-dup": lambda n: make_keys(np.uint32, n, "duplicated"),
    "u32-sorted": lambda n: make_keys(np.uint32, n, "sorted"),
    "i16": lambda n: make_keys(np.int16, n, "random"),
    "i64-rev": lambda n: make_keys(np.int64, n, "reversed"),
    "u64-loguniform": lambda n: (np.uint64(1) << np.random.default_rng(n).
                                 integers(0, 64, n).astype(np.uint64)),
    "f32": lambda n: make_floats(np.float32, n, "random"),
    "f64-specials": lambda n: np.resize(float_specials(np.float64), n),
    "f16-dup": lambda n: make_floats(np.float16, n, "duplicated"),
    "all-equal": lambda n: np.full(n, 7, dtype=np.uint32),
}


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("name", sorted(KEYS))
@pytest.mark.parametrize("n", [0, 1, 2, 100, 5000, 70001])
def test_topk_matches_first_k_of_stable_sort(name, n, descending):
    a = KEYS[name](n)
    before = a.copy()
    for k in sorted({0, 1, 2, 10, n // 2, max(n - 1, 0), n, n + 5}):
        top, idx = portsort.topk(a, k, descending=descending)
        want = first_k(a, k, descending)
        assert same_bits(idx, want.astype(np.intp)), (name, n, k)
        assert same_bits(top, a[want]), (name, n, k)
    assert same_bits(a, before), "topk wrote into its keys"


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_topk_values_rows_and_bf16(descending):
    n, k = 30000, 777
    words = bf16_words(n, "duplicated")
    vals = np.arange(n * 3, dtype=np.int16).reshape(n, 3)
    vals.flags.writeable = False            # only read: read-only is fine
    top, idx, tv = portsort.topk(words, k, values=vals, type="bf16",
                                 descending=descending)
    want = first_k(words, k, descending, kind="f")
    assert same_bits(idx, want.astype(np.intp))
    assert same_bits(top, words[want])
    assert same_bits(tv, vals[want])


def test_topk_ties_at_the_kth_key_go_by_index():
    # 1000 copies of the k-th key: which of them make the cut is decided by
    # their index alone, the lowest first, in both directions.
    a = np.array([5] * 1000 + [1] * 10 + [9] * 10, dtype=np.int32)
    np.random.default_rng(3).shuffle(a)
    for desc in (False, True):
        top, idx = portsort.topk(a, 15, descending=desc)
        assert list(idx) == list(first_k(a, 15, desc))


def test_topk_refusals_leave_nothing_half_done():
    a = np.arange(10, dtype=np.uint32)
    with pytest.raises(TypeError):
        portsort.topk(a, 2.0)
    with pytest.raises(TypeError):
        portsort.topk(a, True)
    with pytest.raises(ValueError):
        portsort.topk(a, -1)
    with pytest.raises(ValueError):
        portsort.topk(a, 3, values=np.zeros(9))          # wrong row count
    with pytest.raises(ValueError):
        portsort.topk(a, 3, values=a)                    # same memory
    with pytest.raises(TypeError):
        portsort.topk(a.astype(object), 3)
    assert list(a) == list(range(10))


def segments_of(n, rng):
    sizes, left = [], n
    while left:
        s = min(left, int(rng.pareto(1.1) * 4))
        sizes.append(s)
        left -= s
    return np.concatenate([[0, 0], np.cumsum(sizes), [n]]).astype(np.int64)


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("name", ["u32-dup", "f64-specials", "i16", "all-equal"])
@pytest.mark.parametrize("k", [0, 1, 3, 50])
def test_topk_segments_per_segment(name, k, descending):
    n = 20000
    a = KEYS[name](n)
    off = segments_of(n, np.random.default_rng(k))
    vals = np.arange(n, dtype=np.float64)
    top, idx, counts, tv = portsort.topk_segments(
        a, off, k, values=vals, descending=descending)
    nseg = len(off) - 1
    assert top.shape == (nseg, k) and idx.shape == (nseg, k)
    for i in range(nseg):
        lo, hi = off[i], off[i + 1]
        want = lo + first_k(a[lo:hi], k, descending)
        c = len(want)
        assert counts[i] == c
        assert same_bits(idx[i, :c], want.astype(np.intp)), i
        assert same_bits(top[i, :c], a[want])
        assert same_bits(tv[i, :c], vals[want])
        assert (idx[i, c:] == -1).all()


def test_topk_segments_bad_offsets():
    a = np.arange(10, dtype=np.uint32)
    for off in ([0, 5, 3, 10], [1, 10], [0, 11], []):
        with pytest.raises(portsort.Error) as e:
            portsort.topk_segments(a, off, 2)
        assert e.value.status == 1
    with pytest.raises(TypeError):
        portsort.topk_segments(a, [0, 10], None)
