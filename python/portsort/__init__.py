"""portsort: stable radix sort of NumPy arrays with libportsort.

The package calls the C library (libportsort.so) through ctypes: no compiled
extension.  The library is found through $PORTSORT_LIBRARY (a path), else
`pkg-config --variable=libdir portsort`, else the dynamic loader's search
path.  The library picks its backend (CUDA, HIP, OpenCL, OpenMP or serial)
once per process, from $PORTSORT_BACKEND; backend() says which.

    import numpy as np, portsort
    a = np.random.default_rng(1).random(10**6)
    portsort.sort(a)                       # in place, stable
    perm = portsort.argsort(a, descending=True)
    top, idx = portsort.topk(a, 10)        # the 10 smallest, sorted

Arrays.  Keys are 1-D, C-contiguous, aligned, native-endian arrays of
uint8..uint64, int8..int64, float16, float32 or float64: NumPy arrays, or any object
NumPy can view without copying (__array_interface__, the buffer protocol:
bytearray, array.array, memoryview...).  The sort happens in that memory:
views of it see the result.  Anything else (other dtypes, N-D,
non-contiguous, read-only, a numpy.ma.MaskedArray (its mask would not move
with the data), or an object NumPy would have to copy, such as a list)
raises TypeError or ValueError before any byte is touched.  CUDA
device arrays (__cuda_array_interface__) are never copied to the host: they
need the library's cuda backend, and are refused with portsort.Error when
it is unusable.

Key types.  The dtype says how keys compare, unless the type= keyword of
every sort names it: "u8".."u64", "i8".."i64", "f16", "bf16", "f32" or
"f64" (the names of `portsort sort --type`), for any native array of
numbers or raw words (dtype kind u, i, f or V) of that width, whose bits are
then read as that type, as a.view(...) would.  bfloat16 has no NumPy dtype:

    words = np.array([0x3f80, 0xbf80, 0x4000], dtype=np.uint16)
    portsort.sort(words, type="bf16")     # -1.0, 1.0, 2.0 as bfloat16 bits

Order.  Integers by value.  Floats by IEEE 754 totalOrder:
-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN, bit patterns (NaN
payloads) kept.  This differs from numpy.sort, which puts every NaN last
and treats -0.0 and +0.0 as equal (keeping their input order).  Every sort
is stable in both directions: equal keys keep their input order, also when
descending (which is not a reversed ascending sort).

Strings.  sort and argsort also take NumPy byte-string ('S') and
unicode ('U') arrays and lists of bytes or of str (ps_argsort_strings):
bytes compare as unsigned bytes, a proper prefix first (numpy.sort,
sorted()); str and 'U' by code point.  An array is sorted in place like
ndarray.sort, a list like list.sort; argsort returns the stable
permutation, as numpy.argsort(kind="stable") and sorted(range(n),
key=...) give it.

Threads.  ctypes releases the GIL for the duration of each call into the
library, so sorts in several Python threads run at the same time; the
library is thread-safe.  Do not touch an array from another thread while it
is being sorted.

Errors.  A failure in the library raises portsort.Error, whose .status is
the ps_status value and whose message is ps_strerror(status) followed by
ps_error_detail(); the arrays are then exactly as they were.
"""

import collections
import ctypes

import numpy as np

from . import _arrays, _clib, _records

__all__ = ["sort", "sort_pairs", "argsort", "sort_segments", "topk",
           "topk_segments", "lexsort", "backend",
           "backends", "version", "release_cache", "set_memory_limit",
           "scratch_bytes", "Error", "Backend"]

__version__ = "0.1.0"

Backend = collections.namedtuple("Backend",
                                 ["name", "built", "usable", "gpu", "detail"])
Backend.__doc__ = ("One backend libportsort knows (ps_backends): whether it "
                   "was built, is usable here, runs on a GPU, and the "
                   "device it would use or why it is unusable.")


class Error(Exception):
    """A libportsort call failed.

    status: the ps_status value (1 invalid argument, 2 no memory, 3 device
    memory, 4 backend unavailable, 5 device error, 6 too large).
    detail: ps_error_detail() of the failed call.
    """

    def __init__(self, status, detail=""):
        self.status = status
        self.detail = detail
        msg = _clib.text(_clib.lib().ps_strerror(status))
        super().__init__("%s: %s" % (msg, detail) if detail else msg)


def _check(status):
    """Raise Error for a failed call; the detail is per thread, and read in
    the thread that made the call."""
    if status != _clib.PS_OK:
        raise Error(status, _clib.text(_clib.lib().ps_error_detail()))


def _flags(descending):
    return _clib.PS_DESCENDING if descending else 0


def _refuse_device_array(obj):
    """CUDA device arrays: never copied to the host behind the caller's back.
    """
    lib = _clib.lib()
    if not lib.ps_device_api(b"cuda"):
        why = _clib.text(lib.ps_error_detail())
        raise Error(_clib.PS_ERR_BACKEND_UNAVAILABLE,
                    "%s is a CUDA device array, which needs libportsort's "
                    "cuda backend; it is unusable here (%s).  Copy it to the "
                    "host yourself to sort it there"
                    % (type(obj).__name__, why))
    raise Error(_clib.PS_ERR_BACKEND_UNAVAILABLE,
                "%s is a CUDA device array: the Python package does not sort "
                "device memory yet (the C API portsort_cuda.h does)"
                % type(obj).__name__)


def _host_keys(obj, writable=True, type=None):
    if _arrays.is_device_array(obj):
        _refuse_device_array(obj)
    return _arrays.keys_view(obj, writable, type)


def _string_perm(a, descending):
    """The stable sorting permutation of a list of bytes or str, or a 1-D
    'S' or 'U' array (ps_argsort_strings); None when a is none of these."""
    if isinstance(a, list):
        if not a:
            return np.empty(0, dtype=np.intp)
        kinds = {bytes if isinstance(x, (bytes, bytearray, memoryview)) else
                 str if isinstance(x, str) else object for x in a}
        if len(kinds) != 1 or object in kinds:
            return None
        if str in kinds:
            # UTF-8 orders as code points; lone surrogates encode in their
            # place among them.
            parts = [x.encode("utf-8", "surrogatepass") for x in a]
        else:
            parts = [bytes(x) for x in a]
        lengths = np.fromiter((len(x) for x in parts), dtype=np.uintp,
                              count=len(parts))
        data = np.frombuffer(b"".join(parts), dtype=np.uint8)
    elif isinstance(a, np.ndarray) and a.dtype.kind in "SU" and \
            not isinstance(a, np.ma.MaskedArray):
        if a.ndim != 1:
            raise ValueError("portsort sorts 1-D string arrays; this one has "
                             "shape %s" % (a.shape,))
        if a.dtype.kind == "U":
            # UCS-4 code points as big-endian words: bytewise order is
            # numeric order.
            a = a.astype(a.dtype.newbyteorder(">"))
        # Fixed width, padded with zero bytes, the smallest: comparing whole
        # items is comparing the strings with a proper prefix first.
        data = np.ascontiguousarray(a).view(np.uint8) if a.size else \
            np.empty(0, dtype=np.uint8)
        lengths = np.full(a.shape[0], a.dtype.itemsize, dtype=np.uintp)
    else:
        return None
    n = lengths.shape[0]
    offsets = np.zeros(n + 1, dtype=np.uintp)
    np.cumsum(lengths, out=offsets[1:])
    perm = np.empty(n, dtype=np.intp)
    _check(_clib.lib().ps_argsort_strings(data.ctypes.data if data.size
                                          else None,
                                          offsets.ctypes.data, n,
                                          perm.ctypes.data,
                                          _flags(descending)))
    return perm


def sort(a, descending=False, type=None, order=None):
    """Sort the 1-D array a in place, stably (ps_sort_keys).

    Floats go in IEEE totalOrder (see the module docstring).  type: the key
    type's name ("bf16", ...) when the dtype does not say it (see the
    module docstring).  The GIL is released while the library sorts.
    Strings: a list of bytes or of str, or a 1-D 'S' or 'U' array, is
    sorted in place by its strings (see the module docstring).
    Returns None, like list.sort.  Raises TypeError/ValueError for arrays
    it cannot sort in place, and Error when the library fails; a is
    unchanged in both cases.

    A structured array (a record dtype) is sorted by its fields
    (ps_sort_records): those order names (a name or a list, the first most
    significant), then, as numpy.sort does, the others in the dtype's
    order to break ties; every field must be a number.  descending is then
    a bool, or one bool a field of order.  Records need no alignment
    (packed dtypes are fine).
    """
    if _records.is_structured(a):
        if type is not None:
            raise TypeError("portsort: type= reads plain key arrays; a "
                            "structured array's fields have their own types")
        arr, fields, count = _records.record_view(a, order, descending, True)
        _check(_clib.lib().ps_sort_records(arr.ctypes.data,
                                           arr.dtype.itemsize, arr.shape[0],
                                           fields, count))
        return
    if order is not None:
        raise ValueError("portsort: order= is for structured arrays")
    if type is None:
        perm = _string_perm(a, descending)
        if perm is not None:
            if isinstance(a, list):
                a[:] = [a[i] for i in perm]
            else:
                a[...] = a[perm]
            return
    keys, ps_type = _host_keys(a, type=type)
    n = keys.shape[0]
    _check(_clib.lib().ps_sort_keys(keys.ctypes.data, n, ps_type,
                                    _flags(descending)))


def sort_pairs(keys, values, descending=False, type=None):
    """Sort keys in place and move the rows of values with them, stably
    (ps_sort_pairs).

    values: any C-contiguous writable array with len(keys) rows along axis
    0, of any dtype without Python objects (structured, 'V12', 2-D...);
    each row (values.nbytes // len(keys) bytes) is moved as opaque bytes.
    Keys and values must not overlap.  type as for sort.  The GIL is
    released while the library sorts.  On any error both arrays are
    unchanged.
    """
    k, ps_type = _host_keys(keys, type=type)
    v, value_size = _host_values(values, k)
    n = k.shape[0]
    _check(_clib.lib().ps_sort_pairs(k.ctypes.data, v.ctypes.data,
                                     value_size, n, ps_type,
                                     _flags(descending)))


def _host_values(values, keys):
    if _arrays.is_device_array(values):
        _refuse_device_array(values)
    return _arrays.values_view(values, keys)


def argsort(a, descending=False, type=None, order=None):
    """Return the stable sorting permutation of a, leaving a untouched
    (ps_argsort).

    The result is a new array of numpy.intp (the library writes size_t
    indices, which fit): a[argsort(a)] is sorted, and equal keys are listed
    in increasing index order, descending too.  a may be read-only.  type
    as for sort.  A list of bytes or str, or an 'S' or 'U' array, gives its
    strings' permutation.  A structured array is ordered by its fields,
    with order and descending as for sort (ps_argsort_records).  The GIL
    is released while the library sorts.
    """
    if _records.is_structured(a):
        if type is not None:
            raise TypeError("portsort: type= reads plain key arrays; a "
                            "structured array's fields have their own types")
        arr, fields, count = _records.record_view(a, order, descending, False)
        perm = np.empty(arr.shape[0], dtype=np.intp)
        _check(_clib.lib().ps_argsort_records(arr.ctypes.data,
                                              arr.dtype.itemsize,
                                              arr.shape[0], fields, count,
                                              perm.ctypes.data))
        return perm
    if order is not None:
        raise ValueError("portsort: order= is for structured arrays")
    if type is None:
        perm = _string_perm(a, descending)
        if perm is not None:
            return perm
    keys, ps_type = _host_keys(a, writable=False, type=type)
    n = keys.shape[0]
    perm = np.empty(n, dtype=np.intp)
    _check(_clib.lib().ps_argsort(keys.ctypes.data, perm.ctypes.data, n,
                                  ps_type, _flags(descending)))
    return perm


def sort_segments(keys, offsets, values=None, descending=False, type=None):
    """Sort each segment of keys on its own, in place, in one call
    (ps_sort_segments); values, when given, move with their keys.

    offsets: num_segments + 1 integers (a list, or any integer array)
    going from 0 to len(keys) without decreasing; segment i is
    keys[offsets[i]:offsets[i + 1]], and may be empty.  Each segment ends
    sorted as sort() (and sort_pairs(), with values) would sort it alone:
    stable, floats in totalOrder, descending when asked; no element leaves
    its segment.  values and type as for sort_pairs.  Offsets that are
    empty or negative, do not fit in size_t, do not start at 0, decrease,
    or do not end at len(keys) raise Error (status 1, PS_ERR_INVALID_ARG);
    bools (also in a list of ints) and other non-integers TypeError, and the arrays
    are then unchanged, as on every error.  The GIL is released while the library sorts.
    """
    k, ps_type = _host_keys(keys, type=type)
    if _arrays.is_device_array(offsets):
        _refuse_device_array(offsets)
    off, num_segments = _arrays.offsets_array(offsets)
    if off is None:
        # What size_t cannot say is refused here, in the library's words.
        raise Error(_clib.PS_ERR_INVALID_ARG, "sort_segments: " + num_segments)
    if values is None:
        vptr, value_size = None, 0
    else:
        v, value_size = _host_values(values, k)
        vptr = v.ctypes.data
    _check(_clib.lib().ps_sort_segments(
        k.ctypes.data, vptr, value_size, k.shape[0], off.ctypes.data,
        num_segments, ps_type, _flags(descending)))


def _count(k, what):
    """k as a count of results: a non-negative integer (bool refused, as
    for offsets: True is not a count)."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError("portsort: %s: k must be an integer, not %s"
                        % (what, type(k).__name__))
    if k < 0:
        raise ValueError("portsort: %s: k = %d is negative" % (what, k))
    return int(k)


def _topk_values(values, keys):
    """(array, value_size, row shape) of values to read, or Nones."""
    if values is None:
        return None, 0, None
    if _arrays.is_device_array(values):
        _refuse_device_array(values)
    v, value_size = _arrays.values_view(values, keys, writable=False)
    return v, value_size, v.shape[1:]


def topk(keys, k, *, values=None, descending=False, type=None):
    """The k smallest keys (the k largest with descending=True) in sorted
    order, without sorting the rest (ps_topk); keys and values are only
    read.

    Returns (top_keys, index) or, with values, (top_keys, index,
    top_values), like torch.topk: min(k, len(keys)) results, the first of
    the stable sorted order, so they equal sort()'s first k, index equals
    argsort()'s first k (numpy.intp), and ties at the k-th key are broken
    by the lower index, in both directions.  top_keys has keys' dtype and
    top_values values' dtype and row shape.  k is any non-negative integer
    (k > len(keys) returns every key, sorted).  Floats go in IEEE
    totalOrder, as for sort (a NaN with the sign bit clear is the largest
    key).  type as for sort.  The GIL is released while the library
    works.  Raises TypeError/ValueError for arguments it cannot take, and
    Error when the library fails.
    """
    k = _count(k, "topk")
    a, ps_type = _host_keys(keys, writable=False, type=type)
    n = a.shape[0]
    v, value_size, row = _topk_values(values, a)
    m = min(k, n)
    out_keys = np.empty(m, dtype=a.dtype)
    out_index = np.empty(m, dtype=np.intp)
    out_values = None if v is None else np.empty((m,) + row, dtype=v.dtype)
    _check(_clib.lib().ps_topk(
        a.ctypes.data, None if v is None else v.ctypes.data, value_size, n,
        k, out_keys.ctypes.data, None if v is None else out_values.ctypes.data,
        out_index.ctypes.data, ps_type, _flags(descending)))
    if v is None:
        return out_keys, out_index
    return out_keys, out_index, out_values


def topk_segments(keys, offsets, k, *, values=None, descending=False,
                  type=None):
    """topk() on each segment of keys, in one call (ps_topk_segments).

    offsets as for sort_segments.  Returns (top_keys, index, counts) or,
    with values, (top_keys, index, counts, top_values): top_keys and index
    have shape (num_segments, k), top_values (num_segments, k) + the rows'
    shape; row i holds segment i's counts[i] = min(k, len_i) results in
    the order topk() gives them for that segment alone, index counting
    from the start of the whole array.  Slots past counts[i] hold index -1
    and zero keys and values.  keys and values are only read.
    """
    k = _count(k, "topk_segments")
    a, ps_type = _host_keys(keys, writable=False, type=type)
    if _arrays.is_device_array(offsets):
        _refuse_device_array(offsets)
    off, num_segments = _arrays.offsets_array(offsets)
    if off is None:
        raise Error(_clib.PS_ERR_INVALID_ARG, "topk_segments: " + num_segments)
    v, value_size, row = _topk_values(values, a)
    if num_segments and k and k > (2**62) // num_segments:
        raise Error(_clib.PS_ERR_INVALID_ARG,
                    "topk_segments: num_segments * k = %d * %d slots do not "
                    "fit in memory" % (num_segments, k))
    out_keys = np.zeros((num_segments, k), dtype=a.dtype)
    out_index = np.full((num_segments, k), -1, dtype=np.intp)
    out_values = None if v is None else \
        np.zeros((num_segments, k) + row, dtype=v.dtype)
    _check(_clib.lib().ps_topk_segments(
        a.ctypes.data, None if v is None else v.ctypes.data, value_size,
        a.shape[0], off.ctypes.data, num_segments, k, out_keys.ctypes.data,
        None if v is None else out_values.ctypes.data, out_index.ctypes.data,
        ps_type, _flags(descending)))
    # Segments' lengths from offsets the library has just accepted.
    counts = np.minimum(np.diff(off.astype(np.uint64)), k).astype(np.intp)
    if v is None:
        return out_keys, out_index, counts
    return out_keys, out_index, counts, out_values


def lexsort(keys, descending=False):
    """The stable permutation that sorts by several key arrays, as
    numpy.lexsort: keys is a sequence of 1-D arrays of one length (or a
    2-D array's rows), the LAST the primary key
    (ps_argsort_columns).  descending: a bool, or one bool a key array,
    in the order of keys.  Each key array is read as argsort reads one
    (any key dtype, floats by totalOrder); none is written.  Returns a new
    numpy.intp array.
    """
    views, cols, types, flags, n = _records.columns_view(keys, descending)
    perm = np.empty(n, dtype=np.intp)
    _check(_clib.lib().ps_argsort_columns(cols, types, flags, len(views), n,
                                          perm.ctypes.data))
    return perm


def backend():
    """Name of the backend the library chose for host arrays ("serial",
    "openmp", "opencl", "cuda" or "hip"; "none" when the choice failed)."""
    return _clib.text(_clib.lib().ps_backend_name())


def backends():
    """Every backend the library knows, as a list of Backend namedtuples."""
    lib = _clib.lib()
    count = lib.ps_backends(None, 0)
    table = (_clib.BackendInfo * count)()
    count = min(count, lib.ps_backends(table, count))
    return [Backend(_clib.text(b.name), bool(b.built), bool(b.usable),
                    bool(b.gpu), _clib.text(b.detail))
            for b in table[:count]]


def version():
    """Version string of the loaded C library (ps_version)."""
    return _clib.text(_clib.lib().ps_version())


def release_cache():
    """Give back the memory the chosen backend keeps between sorts to save
    allocation time (ps_release_cache): scratch buffers, staging memory.
    Sorts running in other threads are not disturbed; later sorts allocate
    again.  Returns None; raises Error (status 4) when no backend could be
    chosen."""
    _check(_clib.lib().ps_release_cache())


def set_memory_limit(nbytes):
    """Cap the host memory each later call of the library takes for itself
    (ps_set_memory_limit; 0 removes the cap; overrules
    PORTSORT_MEMORY_LIMIT).  Under it, keys alone are sorted in place on the
    serial and openmp backends, and pairs (sort_pairs, argsort) stably in
    pieces that fit, merged in place; other calls that need more raise
    Error (status 2, out of host memory), their arrays unchanged.  Device
    memory is not counted.  Returns None."""
    if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)):
        raise TypeError("portsort: set_memory_limit takes a whole number of "
                        "bytes, not %r" % (nbytes,))
    if nbytes < 0 or nbytes >= 2 ** (8 * ctypes.sizeof(ctypes.c_size_t)):
        raise ValueError("portsort: a memory limit is 0 (none) to %d bytes, "
                         "not %d" % (2 ** (8 * ctypes.sizeof(ctypes.c_size_t))
                                     - 1, nbytes))
    _check(_clib.lib().ps_set_memory_limit(int(nbytes)))


def scratch_bytes(n, dtype, value_size=0, descending=False, type=None):
    """The host memory, in bytes, that sorting n keys of `dtype` (with values
    of value_size bytes each, 0 for keys alone) would take on the chosen
    backend (ps_scratch_bytes): a memory limit at least this large lets
    such a sort run its usual path.  0 for n < 2 or a sort that allocates
    nothing."""
    ps_type = _arrays.key_type(np.dtype(dtype), type)
    for name, v in (("n", n), ("value_size", value_size)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) \
                or v < 0:
            raise ValueError("portsort: %s must be a whole number >= 0, not "
                             "%r" % (name, v))
    lib = _clib.lib()
    got = lib.ps_scratch_bytes(int(n), int(value_size), ps_type,
                               _clib.PS_DESCENDING if descending else 0)
    if got == 0 and n >= 2 and lib.ps_error_detail():
        raise Error(_clib.PS_ERR_INVALID_ARG,
                    _clib.text(lib.ps_error_detail()))
    return int(got)
