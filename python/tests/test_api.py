"""What portsort accepts, what it refuses (leaving the data alone), errors,
backends, threads and library loading."""

import array
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import portsort
from oracle import make_keys, same_bits, stable_perm


# --- zero copy: the caller's memory is what gets sorted ---------------------

def test_view_of_larger_array_is_sorted_in_place():
    base = np.arange(100, dtype=np.int32)[::-1].copy()
    view = base[10:50]
    portsort.sort(view)
    assert view.base is base
    assert np.array_equal(base[10:50], np.arange(50, 90))
    assert np.array_equal(base[:10], np.arange(99, 89, -1))
    assert np.array_equal(base[50:], np.arange(49, -1, -1))


def test_reshaped_view_and_pairs_in_place():
    keys_base = np.array([[3, 1], [2, 0]], dtype=np.uint64)
    vals_base = np.arange(8, dtype=np.uint16).reshape(4, 2)
    portsort.sort_pairs(keys_base.reshape(-1), vals_base)
    assert np.array_equal(keys_base, [[0, 1], [2, 3]])
    assert np.array_equal(vals_base, [[6, 7], [2, 3], [4, 5], [0, 1]])


class Interface:
    """Exposes another array's memory only through __array_interface__."""

    def __init__(self, arr):
        self.arr = arr
        self.__array_interface__ = arr.__array_interface__


def test_array_interface_object_is_sorted_in_place():
    mem = np.array([5, 3, 9, 1], dtype=np.float32)
    portsort.sort(Interface(mem), descending=True)
    assert np.array_equal(mem, [9, 5, 3, 1])


def test_buffer_protocol_objects_are_sorted_in_place():
    b = bytearray(b"portsort")
    portsort.sort(b)
    assert b == bytearray(sorted(b"portsort"))
    arr = array.array("q", [3, -1, 2])
    portsort.sort(arr)
    assert list(arr) == [-1, 2, 3]
    mv = memoryview(bytearray(8)).cast("I")
    mv[0], mv[1] = 7, 4
    portsort.sort(mv)
    assert list(mv) == [4, 7]


def test_argsort_accepts_read_only_and_returns_new_array():
    a = make_keys(np.int16, 1000, "duplicated")
    a.setflags(write=False)
    perm = portsort.argsort(a, descending=True)
    assert np.array_equal(perm, stable_perm(a, True))
    assert not np.shares_memory(perm, a)


# --- refusals: raised before any byte is touched ----------------------------

BAD_DTYPES = [np.complex64, np.complex128, np.bool_, object,
              ">u4" if sys.byteorder == "little" else "<u4",
              ">f8" if sys.byteorder == "little" else "<f8",
              "datetime64[ns]", "V8"]


def assert_refused(exc, fn, *arrays):
    before = [a.tobytes() if a.dtype != object else list(a) for a in arrays]
    with pytest.raises(exc):
        fn()
    after = [a.tobytes() if a.dtype != object else list(a) for a in arrays]
    assert before == after


@pytest.mark.parametrize("dtype", BAD_DTYPES, ids=str)
def test_bad_key_dtypes_refused(dtype):
    a = np.zeros(64, dtype=dtype)
    if a.dtype != object:
        raw = a.view(np.uint8)
        raw[:] = np.arange(len(raw)) % 251
    for fn in (lambda: portsort.sort(a), lambda: portsort.argsort(a),
               lambda: portsort.sort_pairs(a, np.arange(64))):
        assert_refused(TypeError, fn, a)


def test_structured_keys_only_where_fields_are_read():
    """A structured array is sorted by its fields by sort and argsort
    (test_records.py); as the keys of sort_pairs, or with type=, it is
    refused, untouched."""
    a = np.zeros(64, dtype=[("a", "<u4"), ("b", "<u4")])
    a.view(np.uint8)[:] = np.arange(a.nbytes) % 251
    assert_refused(TypeError, lambda: portsort.sort_pairs(a, np.arange(64)), a)
    assert_refused(TypeError, lambda: portsort.sort(a, type="u64"), a)
    assert_refused(TypeError, lambda: portsort.argsort(a, type="u64"), a)


def test_masked_arrays_refused():
    """numpy.asarray drops the mask: the data would move under it."""
    m = np.ma.masked_array([3, 1, 2, 0], mask=[1, 0, 0, 0], dtype=np.int32)
    vals = np.ma.masked_array([30, 10, 20, 0], mask=[0, 1, 0, 0],
                              dtype=np.int64)
    for fn in (lambda: portsort.sort(m), lambda: portsort.argsort(m),
               lambda: portsort.topk(m, 2),
               lambda: portsort.sort_segments(m, [0, 4]),
               lambda: portsort.sort_pairs(m, np.arange(4))):
        with pytest.raises(TypeError, match="MaskedArray.*mask"):
            fn()
    assert m.data.tolist() == [3, 1, 2, 0] and m.mask.tolist() == [1, 0, 0, 0]
    keys = np.array([3, 1, 2, 0], np.int32)
    with pytest.raises(TypeError, match="MaskedArray"):
        portsort.sort_pairs(keys, vals)
    assert keys.tolist() == [3, 1, 2, 0] and vals.data.tolist() == [30, 10, 20, 0]


def test_non_contiguous_refused():
    base = np.arange(20, 0, -1, dtype=np.int32)
    strided = base[::2]
    vals = np.arange(10, dtype=np.int32)
    assert_refused(ValueError, lambda: portsort.sort(strided), base)
    assert_refused(ValueError, lambda: portsort.argsort(strided), base)
    assert_refused(ValueError, lambda: portsort.sort_pairs(strided, vals),
                   base, vals)
    wide = np.arange(40, dtype=np.int64)
    assert_refused(ValueError,
                   lambda: portsort.sort_pairs(base[:10], wide[::4]),
                   base, wide)
    fortran = np.asfortranarray(np.arange(20, dtype=np.int32).reshape(10, 2))
    assert_refused(ValueError,
                   lambda: portsort.sort_pairs(base[:10].copy(), fortran),
                   fortran)


def test_read_only_refused():
    a = np.arange(10, 0, -1, dtype=np.uint32)
    a.setflags(write=False)
    v = np.arange(10, dtype=np.uint32)
    assert_refused(ValueError, lambda: portsort.sort(a), a)
    assert_refused(ValueError, lambda: portsort.sort_pairs(a, v), a, v)
    w = np.arange(10, 0, -1, dtype=np.uint32)
    v.setflags(write=False)
    assert_refused(ValueError, lambda: portsort.sort_pairs(w, v), w, v)
    with pytest.raises((ValueError, TypeError)):
        portsort.sort(b"immutable")


def test_pairs_length_mismatch_and_overlap_refused():
    k = np.arange(10, 0, -1, dtype=np.int8)
    for bad in (np.arange(9), np.arange(11), np.array(5), np.zeros((10, 0))):
        assert_refused(ValueError, lambda: portsort.sort_pairs(k, bad), k, bad)
    mem = np.arange(16, 0, -1, dtype=np.uint32)
    assert_refused(ValueError,
                   lambda: portsort.sort_pairs(mem[:8], mem[4:12]), mem)
    obj = np.array([object()] * 10)
    assert_refused(TypeError, lambda: portsort.sort_pairs(k, obj), k)


def test_shapes_and_non_arrays_refused():
    m = np.arange(12, 0, -1, dtype=np.int32).reshape(3, 4)
    assert_refused(ValueError, lambda: portsort.sort(m), m)
    z = np.array(3, dtype=np.int32)
    assert_refused(ValueError, lambda: portsort.sort(z), z)
    data = [3, 2, 1]
    with pytest.raises(TypeError):
        portsort.sort(data)
    assert data == [3, 2, 1]


def test_misaligned_refused():
    raw = np.zeros(4 * 9, dtype=np.uint8)
    mis = raw[1:33].view(np.uint32)
    mis[:] = np.arange(8, 0, -1)
    assert not mis.flags.aligned
    assert_refused(ValueError, lambda: portsort.sort(mis), raw)


class FakeCudaArray:
    """A device array as CuPy or Numba would describe it.  Any attempt to
    read it on the host would fail: it has no __array_interface__."""

    def __init__(self, n):
        self.__cuda_array_interface__ = {
            "shape": (n,), "typestr": "<u4", "data": (0xdead0000, False),
            "version": 3, "strides": None, "stream": 1}


def test_cuda_device_array_refused_without_cuda_backend():
    if any(b.name == "cuda" and b.usable for b in portsort.backends()):
        pytest.skip("a usable CUDA backend is here")
    for fn in (lambda: portsort.sort(FakeCudaArray(4)),
               lambda: portsort.argsort(FakeCudaArray(4)),
               lambda: portsort.sort_pairs(FakeCudaArray(4),
                                           FakeCudaArray(4))):
        with pytest.raises(portsort.Error) as info:
            fn()
        assert info.value.status == 4
        assert "cuda" in str(info.value)


# --- errors, backends, version ----------------------------------------------

def test_error_carries_status_and_message():
    err = portsort.Error(1, "keys: NULL")
    assert err.status == 1 and err.detail == "keys: NULL"
    assert "keys: NULL" in str(err)
    assert isinstance(err, Exception)


def run_python(code, **env):
    """Run code in a fresh interpreter (the backend is chosen once per
    process) with env added."""
    full = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], env=full,
                          capture_output=True, text=True, timeout=120,
                          check=False)


def test_unusable_backend_raises_error_with_status_and_keeps_data():
    code = (
        "import numpy as np, portsort\n"
        "a = np.arange(50, 0, -1, dtype=np.int32); b = a.copy()\n"
        "try:\n"
        "    portsort.sort(a)\n"
        "except portsort.Error as e:\n"
        "    assert (a == b).all()\n"
        "    print(e.status); print(e)\n"
        "print(portsort.backend())\n")
    out = run_python(code, PORTSORT_BACKEND="no-such-backend")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "4"
    assert "no-such-backend" in lines[1]
    assert lines[-1] == "none"


def test_missing_library_named_in_error():
    out = run_python("import portsort; portsort.version()",
                     PORTSORT_LIBRARY="/nonexistent/libportsort.so")
    assert out.returncode != 0
    assert "PORTSORT_LIBRARY" in out.stderr
    assert "/nonexistent/libportsort.so" in out.stderr


def test_backends_and_version():
    infos = portsort.backends()
    names = [b.name for b in infos]
    assert "serial" in names
    serial = infos[names.index("serial")]
    assert serial.built and serial.usable and not serial.gpu
    assert portsort.backend() in names
    assert portsort.version().count(".") == 2


def test_release_cache_frees_and_sorting_goes_on():
    a = np.random.default_rng(5).integers(0, 2**32, 1 << 16, dtype=np.uint32)
    want = np.sort(a)
    portsort.sort(a.copy())
    assert portsort.release_cache() is None
    assert portsort.release_cache() is None     # nothing cached: still fine
    portsort.sort(a)
    assert np.array_equal(a, want)


def test_memory_limit_keys_in_place_pairs_refused():
    a = np.random.default_rng(6).integers(0, 2**64, 300001, dtype=np.uint64)
    want = np.sort(a)
    vals = np.arange(a.size, dtype=np.uint64)
    keys = a.copy()
    portsort.set_memory_limit(1)
    try:
        if portsort.backend() in ("serial", "openmp"):
            portsort.sort(keys)                 # in place, no scratch
            assert np.array_equal(keys, want)
            keys = a.copy()
        with pytest.raises(portsort.Error) as err:
            portsort.sort_pairs(keys, vals)
        assert err.value.status == 2            # out of host memory
        assert "memory limit" in str(err.value)
        assert np.array_equal(keys, a)
        assert np.array_equal(vals, np.arange(a.size, dtype=np.uint64))
    finally:
        portsort.set_memory_limit(0)
    portsort.sort_pairs(keys, vals)             # no limit: the usual path
    assert np.array_equal(keys, want)


def test_scratch_bytes_is_a_limit_that_lets_pairs_through():
    n = 100000
    need = portsort.scratch_bytes(n, np.uint32, value_size=8)
    assert need >= n * 12
    assert portsort.scratch_bytes(1, np.uint32) == 0
    keys = np.random.default_rng(7).integers(0, 2**32, n, dtype=np.uint32)
    vals = np.arange(n, dtype=np.uint64)
    portsort.set_memory_limit(need)
    try:
        portsort.sort_pairs(keys, vals)
    finally:
        portsort.set_memory_limit(0)
    assert np.all(keys[:-1] <= keys[1:])
    with pytest.raises(TypeError):
        portsort.scratch_bytes(n, np.complex64)
    with pytest.raises(ValueError):
        portsort.set_memory_limit(-1)
    with pytest.raises(TypeError):
        portsort.set_memory_limit(True)


# --- threads ----------------------------------------------------------------

def test_threads_sort_at_once():
    arrays = [make_keys(np.float64, 200003, "random", seed=s)
              for s in range(4)]
    expect = [np.sort(a) for a in arrays]
    errors = []

    def work(a):
        try:
            portsort.sort(a)
        except Exception as exc:  # reported below, in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(a,)) for a in arrays]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for a, e in zip(arrays, expect):
        assert same_bits(a, e)


def test_library_lookup_order(tmp_path, monkeypatch):
    """$PORTSORT_LIBRARY alone when set; else the copy a wheel bundles (when
    this package has one), pkg-config's libdir, then the loader's search by
    soname."""
    from portsort import _clib
    monkeypatch.setenv("PORTSORT_LIBRARY", "/x/libportsort.so")
    assert _clib._candidates() == [("PORTSORT_LIBRARY", "/x/libportsort.so")]

    fake = tmp_path / "pkg-config"
    fake.write_text("#!/bin/sh\necho /opt/ps/lib\n")
    fake.chmod(0o755)
    monkeypatch.delenv("PORTSORT_LIBRARY")
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ["PATH"])
    found = _clib._candidates()
    soname = "libportsort.so.%d" % _clib.SONAME_MAJOR
    bundled = _clib.bundled_path()
    if bundled:
        assert found.pop(0) == ("bundled", bundled)
    assert found[0] == ("pkg-config", "/opt/ps/lib/" + soname)
    assert found[-1] == ("loader path", soname)

    fake.write_text("#!/bin/sh\nexit 1\n")
    assert "pkg-config" not in [how for how, _ in _clib._candidates()]


def test_bundled_library_comes_first(tmp_path, monkeypatch):
    """A package with portsort/_lib/libportsort.so.0 tries it before any
    system library, and $PORTSORT_LIBRARY still overrides it."""
    from portsort import _clib
    lib = tmp_path / "portsort" / "_lib" / ("libportsort.so.%d"
                                            % _clib.SONAME_MAJOR)
    lib.parent.mkdir(parents=True)
    lib.write_bytes(b"")
    monkeypatch.setattr(_clib, "__file__", str(tmp_path / "portsort" /
                                               "_clib.py"))
    monkeypatch.delenv("PORTSORT_LIBRARY", raising=False)
    assert _clib._candidates()[0] == ("bundled", str(lib))
    monkeypatch.setenv("PORTSORT_LIBRARY", "/x/libportsort.so")
    assert _clib._candidates() == [("PORTSORT_LIBRARY", "/x/libportsort.so")]
