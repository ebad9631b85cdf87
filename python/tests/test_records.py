"""portsort.lexsort and structured arrays in sort/argsort (ps_argsort_columns,
ps_argsort_records, ps_sort_records) against numpy.lexsort of order-
preserving unsigned keys (so floats go by totalOrder, NaNs and -0/+0
included, and descending keys by their complement, ties kept in index
order); the inputs only read where they should be; bad arguments refused
with the arrays unchanged."""

import numpy as np
import pytest

import portsort
from oracle import float_specials, make_keys, order_key


def lex_oracle(keys, descending):
    """numpy.lexsort (last key primary) of each key's order image,
    complemented where descending."""
    imgs = []
    for k, d in zip(keys, descending):
        img = order_key(k)
        imgs.append(~img if d else img)
    return np.lexsort(imgs)


def mixed_keys(n, seed):
    rng = np.random.default_rng(seed)
    return [
        make_keys(np.uint16, n, "duplicated", seed),
        rng.integers(-3, 3, n).astype(np.int32),
        np.resize(float_specials(np.float64), n)[rng.permutation(n)]
        if n else np.zeros(0),
        make_keys(np.int8, n, "random", seed + 1),
        rng.integers(0, 4, n).astype(np.float32) - np.float32(1.5),
    ]


@pytest.mark.parametrize("n", [0, 1, 2, 17, 1000, 70001])
@pytest.mark.parametrize("pattern", ["asc", "desc", "mixed"])
def test_lexsort_matches_numpy_on_images(n, pattern):
    keys = mixed_keys(n, n)
    before = [k.copy() for k in keys]
    if pattern == "mixed":
        desc = [bool(i % 2) for i in range(len(keys))]
        got = portsort.lexsort(keys, descending=desc)
    else:
        desc = [pattern == "desc"] * len(keys)
        got = portsort.lexsort(keys, descending=pattern == "desc")
    want = lex_oracle(keys, desc)
    assert got.dtype == np.intp
    assert np.array_equal(got, want)
    for k, b in zip(keys, before):
        assert k.tobytes() == b.tobytes(), "lexsort wrote into a key"


def test_lexsort_is_numpy_lexsort_on_plain_integers():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 10, 5000)
    b = rng.integers(0, 10, 5000).astype(np.uint8)
    assert np.array_equal(portsort.lexsort([a, b]), np.lexsort([a, b]))
    two_d = np.stack([a, b.astype(a.dtype)])
    assert np.array_equal(portsort.lexsort(two_d), np.lexsort(two_d))


PACKED = np.dtype([("a", "u2"), ("b", "i4"), ("c", "f2"), ("d", "f8")])
ALIGNED = np.dtype([("a", "u2"), ("b", "i4"), ("c", "f2"), ("d", "f8")],
                   align=True)


def records(dt, n, seed):
    rng = np.random.default_rng(seed)
    r = np.zeros(n, dtype=dt)
    r["a"] = rng.integers(0, 3, n)
    r["b"] = rng.integers(-2, 2, n)
    r["c"] = rng.integers(-1, 2, n).astype(np.float16)
    r["d"] = np.resize(float_specials(np.float64), n)[rng.permutation(n)] \
        if n else 0
    return r


@pytest.mark.parametrize("dt", [PACKED, ALIGNED], ids=["packed", "aligned"])
@pytest.mark.parametrize("n", [0, 1, 3, 999, 70001])
@pytest.mark.parametrize("order,descending", [
    (None, False),
    (None, True),
    ("b", [True]),
    (["c", "a"], [False, True]),
    (["d", "b", "a", "c"], [True, False, True, False]),
])
def test_structured_arrays_by_fields(dt, n, order, descending):
    r = records(dt, n, n)
    # Raw rows, padding bytes included (r.copy() and r[perm] need not
    # keep those; the library moves whole records).
    before = np.frombuffer(r.tobytes(), dtype=np.uint8).reshape(n, dt.itemsize)
    named = list(dt.names) if order is None else \
        ([order] if isinstance(order, str) else list(order))
    dirs = [descending] * len(named) if isinstance(descending, bool) \
        else list(descending)
    rest = [nm for nm in dt.names if nm not in named]
    rest_dir = descending if isinstance(descending, bool) else False
    keys = [r[nm] for nm in named + rest]
    desc = dirs + [rest_dir] * len(rest)
    want = lex_oracle(keys[::-1], desc[::-1])
    got = portsort.argsort(r, order=order, descending=descending)
    assert np.array_equal(got, want)
    assert r.tobytes() == before.tobytes(), "argsort wrote into the records"
    portsort.sort(r, order=order, descending=descending)
    assert r.tobytes() == before[want].tobytes()


def test_structured_matches_numpy_sort_without_specials():
    rng = np.random.default_rng(9)
    r = np.zeros(20000, dtype=[("x", "i8"), ("y", "f4"), ("z", "u1")])
    r["x"] = rng.integers(0, 50, r.size)
    r["y"] = rng.integers(0, 50, r.size) / 4
    r["z"] = rng.integers(0, 255, r.size)
    for order in (None, "y", ["z", "x"]):
        want = np.argsort(r, order=order, kind="stable")
        assert np.array_equal(portsort.argsort(r, order=order), want)


def test_records_refusals_leave_the_arrays():
    r = records(PACKED, 50, 1)
    before = r.copy()
    with pytest.raises(ValueError):
        portsort.sort(r, order="nope")
    with pytest.raises(ValueError):
        portsort.sort(r, order=["a", "a"])
    with pytest.raises(ValueError):
        portsort.sort(r, order=["a", "b"], descending=[True])
    with pytest.raises(TypeError):
        portsort.sort(r, order="a", descending=[1])
    s = np.zeros(10, dtype=[("k", "u4"), ("name", "S8")])
    with pytest.raises(TypeError, match="name"):
        portsort.sort(s, order="k")       # NumPy would break ties by name
    with pytest.raises(ValueError):
        portsort.sort(np.arange(5), order="a")
    assert r.tobytes() == before.tobytes()
    with pytest.raises(TypeError):
        portsort.lexsort(np.arange(5))
    with pytest.raises(ValueError):
        portsort.lexsort([np.arange(5), np.arange(6)])
    with pytest.raises(ValueError):
        portsort.lexsort([])
    with pytest.raises(TypeError):
        portsort.lexsort([np.array(["a", "b"])])
    ro = records(PACKED, 10, 2)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        portsort.sort(ro)
    assert np.array_equal(portsort.argsort(ro), lex_oracle(
        [ro[nm] for nm in ro.dtype.names][::-1], [False] * 4))
