"""Several keys at once: NumPy structured arrays sorted by their fields
(ps_sort_records, ps_argsort_records) and lexsort over separate key arrays
(ps_argsort_columns)."""

import ctypes

import numpy as np

from . import _arrays, _clib


class Field(ctypes.Structure):
    """struct ps_field of portsort.h."""
    _fields_ = [("offset", ctypes.c_size_t), ("type", ctypes.c_int),
                ("flags", ctypes.c_uint)]


def _directions(descending, count, what):
    """One bool a key: descending as given for all of them, or a sequence
    of exactly `count` bools."""
    if isinstance(descending, (bool, np.bool_)):
        return [bool(descending)] * count
    try:
        seq = list(descending)
    except TypeError:
        raise TypeError("portsort: descending must be a bool or a sequence "
                        "of bools, one a %s" % what) from None
    if len(seq) != count:
        raise ValueError("portsort: descending has %d entries for %d %ss"
                         % (len(seq), count, what))
    for d in seq:
        if not isinstance(d, (bool, np.bool_)):
            raise TypeError("portsort: descending entries must be bools, not "
                            "%s" % type(d).__name__)
    return [bool(d) for d in seq]


def is_structured(obj):
    return isinstance(obj, np.ndarray) and obj.dtype.names is not None


def record_view(obj, order, descending, writable):
    """(array, ctypes array of Field, count) for a 1-D structured array
    sorted by the fields `order` names (a name or a sequence of names),
    then, as NumPy does, by the fields it does not name, in the dtype's
    order, to break ties.  descending: a bool, or one bool a field of
    order (the tie-breaking fields then go ascending)."""
    arr = _arrays._as_view(obj, "records")
    if arr.ndim != 1:
        raise ValueError("portsort: a structured array must be 1-D, not "
                         "%d-D" % arr.ndim)
    _arrays._check_layout(arr, "records", writable)
    names = list(arr.dtype.names)
    if order is None:
        named = names
    else:
        named = [order] if isinstance(order, str) else list(order)
        for nm in named:
            if not isinstance(nm, str) or nm not in arr.dtype.fields:
                raise ValueError("portsort: order names %r, which is not a "
                                 "field of %s" % (nm, arr.dtype))
        if len(set(named)) != len(named):
            raise ValueError("portsort: order names a field twice: %r"
                             % (named,))
    dirs = _directions(descending, len(named), "field of order")
    if isinstance(descending, (bool, np.bool_)):
        rest_dir = bool(descending)
    else:
        rest_dir = False
    keys = named + [nm for nm in names if nm not in named]
    dirs += [rest_dir] * (len(keys) - len(named))
    fields = (Field * len(keys))()
    for i, nm in enumerate(keys):
        fdt, off = arr.dtype.fields[nm][:2]
        try:
            ps_type = _arrays.key_type(fdt)
        except TypeError:
            how = "named in order" if nm in named else \
                "not named in order, so NumPy would break ties by it"
            raise TypeError("portsort: field %r (%s) is %s and of dtype %s, "
                            "which portsort cannot sort by; keys must be "
                            "native-endian integers or floats"
                            % (nm, ", ".join(names), how, fdt)) from None
        fields[i].offset = off
        fields[i].type = ps_type
        fields[i].flags = _clib.PS_DESCENDING if dirs[i] else 0
    return arr, fields, len(keys)


def columns_view(keys, descending):
    """(views, ctypes columns, types, flags, n) for lexsort: keys as NumPy
    takes them (a sequence of 1-D arrays or a 2-D array's rows, the LAST
    the primary key), passed to the library first-primary."""
    if isinstance(keys, np.ndarray) and keys.ndim == 2:
        keys = list(keys)
    elif isinstance(keys, np.ndarray) and keys.ndim == 1:
        raise TypeError("portsort: lexsort takes a sequence of key arrays "
                        "(or a 2-D array of them), not one 1-D array; use "
                        "argsort for one key")
    try:
        keys = list(keys)
    except TypeError:
        raise TypeError("portsort: lexsort takes a sequence of key arrays") \
            from None
    if not keys:
        raise ValueError("portsort: lexsort needs at least one key array")
    dirs = _directions(descending, len(keys), "key array")
    views = []
    for k in keys:
        if _arrays.is_device_array(k):
            raise TypeError("portsort: lexsort sorts host arrays only")
        views.append(_arrays.keys_view(k, writable=False))
    n = views[0][0].shape[0]
    for v, _ in views:
        if v.shape[0] != n:
            raise ValueError("portsort: lexsort's key arrays differ in "
                             "length (%d and %d)" % (n, v.shape[0]))
    views.reverse()
    dirs.reverse()
    cols = (ctypes.c_void_p * len(views))(*[v.ctypes.data for v, _ in views])
    types = (ctypes.c_int * len(views))(*[t for _, t in views])
    flags = (ctypes.c_uint * len(views))(
        *[_clib.PS_DESCENDING if d else 0 for d in dirs])
    return views, cols, types, flags, n
