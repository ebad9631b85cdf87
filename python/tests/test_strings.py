"""portsort.sort/argsort on strings (ps_argsort_strings): NumPy 'S' and 'U'
arrays against numpy.sort / numpy.argsort(kind="stable"), lists of bytes and
str against sorted(), both directions, bytes >= 0x80, NULs inside, code
points beyond the BMP and lone surrogates; inputs that are not strings
still refused."""

import numpy as np
import pytest

import portsort


def words(n, seed, alphabet):
    rng = np.random.default_rng(seed)
    lens = rng.integers(0, 9, n)
    return ["".join(alphabet[i] for i in rng.integers(0, len(alphabet), k))
            for k in lens]


ALPHABETS = {
    "ascii": "ab",
    "latin": "aé\u00ff",
    "astral": "a\U0001f600\ud7ff\ue000",
}


def stable_desc(keys):
    """Stable descending permutation: sorted(reverse=True) keeps ties in
    input order."""
    return sorted(range(len(keys)), key=keys.__getitem__, reverse=True)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 1000])
@pytest.mark.parametrize("alpha", sorted(ALPHABETS))
def test_str_lists(n, alpha):
    s = words(n, n, ALPHABETS[alpha])
    want = sorted(range(n), key=s.__getitem__)
    assert portsort.argsort(s).tolist() == want
    assert portsort.argsort(s, descending=True).tolist() == stable_desc(s)
    t = list(s)
    portsort.sort(t)
    assert t == sorted(s)
    portsort.sort(t, descending=True)
    assert t == sorted(s, reverse=True)


def test_lone_surrogates_and_empty():
    s = ["\udc00", "\ud800x", "", "\uffff", "\U00010000", "\ud7ff", ""]
    assert portsort.argsort(s).tolist() == sorted(range(len(s)),
                                                  key=s.__getitem__)


@pytest.mark.parametrize("n", [0, 1, 2, 1000, 20000])
def test_bytes_lists_unsigned_and_nul(n):
    rng = np.random.default_rng(n + 5)
    b = [bytes(rng.integers(0, 256, int(k)).astype(np.uint8))
         for k in rng.integers(0, 5, n)]
    b += [b"\x00", b"", b"\x00\x00", b"\x80", b"\x7f", b"a\x00"][:n]
    assert portsort.argsort(b).tolist() == sorted(range(len(b)),
                                                  key=b.__getitem__)
    assert portsort.argsort(b, descending=True).tolist() == stable_desc(b)
    c = list(b)
    portsort.sort(c)
    assert c == sorted(b)


@pytest.mark.parametrize("kind", ["S", "U"])
@pytest.mark.parametrize("n", [0, 1, 3, 1000, 20000])
def test_numpy_string_arrays(kind, n):
    s = words(n, n + 1, "ab\u00ff\u0100\U0001f600" if kind == "U" else "ab")
    a = np.array(s, dtype=kind) if n else np.array([], dtype=kind + "1")
    if kind == "S" and n:
        # bytes >= 0x80 and NULs inside, which 'S' keeps unless trailing
        a = np.array([x.encode() + (b"\x00z" if i % 7 == 0 else b"")
                      + (b"\xff" if i % 5 == 0 else b"")
                      for i, x in enumerate(s)], dtype="S")
    want = np.argsort(a, kind="stable")
    assert np.array_equal(portsort.argsort(a), want)
    b = a.copy()
    portsort.sort(b)
    assert np.array_equal(b, np.sort(a, kind="stable"))
    if n:
        rev = portsort.argsort(a, descending=True)
        assert np.all(a[rev][:-1] >= a[rev][1:])
        keys = a.tolist()
        assert rev.tolist() == stable_desc(keys)


def test_non_native_unicode_array():
    a = np.array(["b", "a\U0001f600", "a", "ab", "a"], dtype=">U2")
    assert np.array_equal(portsort.argsort(a), np.argsort(a, kind="stable"))


def test_masked_string_array_refused():
    m = np.ma.masked_array(["b", "a"], mask=[1, 0])
    before = m.data.tobytes()
    with pytest.raises(TypeError):
        portsort.sort(m)
    assert m.data.tobytes() == before


def test_not_strings_refused():
    with pytest.raises((TypeError, ValueError)):
        portsort.sort([b"a", "a"])
    with pytest.raises((TypeError, ValueError)):
        portsort.argsort(np.array([["a", "b"]]))
    with pytest.raises((TypeError, ValueError)):
        portsort.sort([1, 2, 3])
