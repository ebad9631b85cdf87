"""Turning what the caller passed into a NumPy view of the same memory, and
refusing, before any byte is touched, whatever the C library cannot sort in
place."""

import numpy as np

from . import _clib

# (dtype kind, itemsize) -> ps_type.  Native byte order only; everything
# else (bool, complex, datetime, object, structured, strings) is refused
# rather than reinterpreted, unless the caller names the type.
_KEY_TYPES = {
    ("u", 1): _clib.PS_U8, ("u", 2): _clib.PS_U16,
    ("u", 4): _clib.PS_U32, ("u", 8): _clib.PS_U64,
    ("i", 1): _clib.PS_I8, ("i", 2): _clib.PS_I16,
    ("i", 4): _clib.PS_I32, ("i", 8): _clib.PS_I64,
    ("f", 2): _clib.PS_F16, ("f", 4): _clib.PS_F32, ("f", 8): _clib.PS_F64,
}

# The type= names (those of `portsort sort --type`): name -> (ps_type,
# bytes per key).  bfloat16 has no NumPy dtype, so its keys come as 2-byte
# words (uint16, or ml_dtypes' bfloat16) with type="bf16".
TYPE_NAMES = {
    "u8": (_clib.PS_U8, 1), "u16": (_clib.PS_U16, 2),
    "u32": (_clib.PS_U32, 4), "u64": (_clib.PS_U64, 8),
    "i8": (_clib.PS_I8, 1), "i16": (_clib.PS_I16, 2),
    "i32": (_clib.PS_I32, 4), "i64": (_clib.PS_I64, 8),
    "f16": (_clib.PS_F16, 2), "bf16": (_clib.PS_BF16, 2),
    "f32": (_clib.PS_F32, 4), "f64": (_clib.PS_F64, 8),
}

# Dtype kinds whose bits may be read as another key type when type= says
# so: numbers, and raw words without fields (V2, ml_dtypes.bfloat16).
_REINTERPRETABLE = "uifV"


def is_device_array(obj):
    """True for CUDA device arrays (CuPy, Numba, PyTorch on a GPU...).  They
    must never go through numpy.asarray, which would either fail or copy
    them to the host."""
    return (hasattr(obj, "__cuda_array_interface__")
            and not isinstance(obj, np.ndarray))


def _source_address(obj):
    """Address of obj's first byte as the object itself reports it, or None
    when it exposes no memory of its own (a list, say).  Compared with the
    address of numpy.asarray(obj) to prove no copy was made."""
    if isinstance(obj, np.ndarray):
        return obj.ctypes.data
    iface = getattr(obj, "__array_interface__", None)
    if isinstance(iface, dict) and iface.get("data") is not None:
        data = iface["data"]
        return data[0] if isinstance(data, tuple) else None
    try:
        view = memoryview(obj)
    except TypeError:
        return None
    if not view.c_contiguous:
        raise ValueError("portsort: buffer of %s is not contiguous"
                         % type(obj).__name__)
    if view.nbytes == 0:
        return None
    # frombuffer maps the buffer's bytes and never copies (read-only ones
    # included, which the caller then refuses for in-place sorts).
    return np.frombuffer(view, dtype=np.uint8).ctypes.data


def _refuse_masked(obj, what):
    """numpy.asarray drops a masked array's mask: the library would sort
    (or read) the data under it, masked elements included, and the mask
    would stay where it was, over other elements."""
    if isinstance(obj, np.ma.MaskedArray):
        raise TypeError("portsort: %s is a numpy.ma.MaskedArray: sorting its "
                        "data would leave the mask in place, over other "
                        "elements; pass a.compressed() (the unmasked "
                        "elements) or a.filled(value) instead" % what)


def _as_view(obj, what):
    """numpy.asarray(obj) when that is a view of obj's own memory."""
    _refuse_masked(obj, what)
    arr = np.asarray(obj)
    if isinstance(obj, np.ndarray) or arr.nbytes == 0:
        return arr
    src = _source_address(obj)
    if src is None or src != arr.ctypes.data:
        raise TypeError("portsort: %s must be an array whose memory can be "
                        "sorted in place (a NumPy array, an object with "
                        "__array_interface__ or a writable buffer); got %s, "
                        "which NumPy would have to copy"
                        % (what, type(obj).__name__))
    return arr


def _check_layout(arr, what, writable):
    if writable and not arr.flags.writeable:
        raise ValueError("portsort: %s is read-only" % what)
    if not arr.flags.c_contiguous:
        raise ValueError("portsort: %s is not contiguous; sort "
                         "numpy.ascontiguousarray(...) of it instead" % what)
    if not arr.flags.aligned:
        raise ValueError("portsort: %s is not aligned to its element size"
                         % what)


def _plain(dtype):
    return dtype.isnative and dtype.fields is None and dtype.subdtype is None


def key_type(dtype, type=None):
    """ps_type of keys of a NumPy dtype, read as `type` (a TYPE_NAMES name)
    when given, or TypeError/ValueError."""
    if type is not None:
        if not isinstance(type, str) or type not in TYPE_NAMES:
            raise ValueError("portsort: unknown key type %r; one of %s"
                             % (type, " ".join(TYPE_NAMES)))
        ps_type, size = TYPE_NAMES[type]
        if (not _plain(dtype) or dtype.kind not in _REINTERPRETABLE
                or dtype.itemsize != size):
            raise TypeError("portsort: type=%r sorts native %d-byte words; "
                            "keys of dtype %s are not" % (type, size, dtype))
        return ps_type
    ps_type = _KEY_TYPES.get((dtype.kind, dtype.itemsize)) if _plain(dtype) \
        else None
    if ps_type is None:
        raise TypeError("portsort: cannot sort keys of dtype %s; keys must be "
                        "native-endian uint8..uint64, int8..int64, float16, "
                        "float32 or float64, or name their type with type= "
                        "(bfloat16: 2-byte words with type='bf16')" % dtype)
    return ps_type


def keys_view(obj, writable=True, type=None):
    """(array, ps_type) for a 1-D contiguous array of sortable keys."""
    arr = _as_view(obj, "keys")
    ps_type = key_type(arr.dtype, type)
    if arr.ndim != 1:
        raise ValueError("portsort: keys must be 1-D, not %d-D (sort "
                         "a.reshape(-1) to sort a contiguous array flat)"
                         % arr.ndim)
    _check_layout(arr, "keys", writable)
    return arr, ps_type


def values_view(obj, keys, writable=True):
    """(array, value_size) for values that travel with keys: n rows of
    opaque bytes along axis 0, value_size = nbytes // n.  writable=False
    for values only read (topk), which may then be read-only."""
    arr = _as_view(obj, "values")
    n = keys.shape[0]
    if arr.ndim == 0 or arr.shape[0] != n:
        raise ValueError("portsort: values must have len(keys) = %d rows "
                         "along axis 0, not shape %s" % (n, arr.shape))
    if arr.dtype.hasobject:
        # Python objects are not bytes to move while the GIL is released.
        raise TypeError("portsort: values of dtype %s hold Python objects"
                        % arr.dtype)
    _check_layout(arr, "values", writable)
    row = arr.dtype.itemsize * int(np.prod(arr.shape[1:], dtype=np.int64))
    if row == 0:
        raise ValueError("portsort: values have 0 bytes per key")
    if n > 0 and np.may_share_memory(keys, arr):
        raise ValueError("portsort: keys and values overlap in memory")
    return arr, row


def offsets_array(obj):
    """(numpy.uintp array, num_segments) for ps_sort_segments: obj's
    entries as size_t words (a copy unless they already are), or None
    with the reason when there are none, or one that size_t cannot hold
    (negative, or 2**64 and more).  Whether the entries go from 0 to n
    without decreasing is the library's to check."""
    _refuse_masked(obj, "offsets")
    if isinstance(obj, (list, tuple)) and any(
            isinstance(x, (bool, np.bool_)) for x in obj):
        # NumPy would read True as 1 in a list of ints: a bool is not an
        # offset, whatever it is mixed with.
        raise TypeError("portsort: offsets must be integers, not bool")
    arr = np.asarray(obj)
    if arr.ndim != 1:
        raise ValueError("portsort: offsets must be 1-D (num_segments + 1 "
                         "entries), not shape %s" % (arr.shape,))
    if arr.size == 0:
        return None, "offsets is empty; it needs num_segments + 1 >= 1 entries"
    if arr.dtype.kind == "O":
        # Python ints beyond every NumPy integer dtype (2**70) make an
        # object array: integers only (bool is not one), as for the rest.
        for x in arr.tolist():
            if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
                raise TypeError("portsort: offsets must be integers, not %s"
                                % type(x).__name__)
    elif arr.dtype.kind not in "ui":
        raise TypeError("portsort: offsets must be integers, not dtype %s"
                        % arr.dtype)
    top = np.iinfo(np.uintp).max
    if arr.dtype.kind == "O" or arr.dtype.itemsize > np.dtype(np.uintp).itemsize:
        # Entries that may be beyond size_t, which the cast below would wrap.
        for i, x in enumerate(arr.tolist()):
            if x < 0:
                return None, "offsets[%d] = %d is negative" % (i, x)
            if x > top:
                return None, ("offsets[%d] = %d does not fit in size_t (at "
                              "most %d)" % (i, x, top))
    elif arr.dtype.kind == "i" and arr.min() < 0:
        i = int(np.argmax(arr < 0))
        return None, "offsets[%d] = %d is negative" % (i, arr[i])
    off = np.ascontiguousarray(arr, dtype=np.uintp)
    return off, len(off) - 1
