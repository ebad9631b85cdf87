"""Finding, loading and declaring the C library (libportsort.so).

Only the stable C ABI of <portsort.h> is used, through ctypes, so the package
has no Python extension: it loads the copy of libportsort that a wheel
bundles in portsort/_lib (python/setup.py builds it), or whichever
libportsort is installed.
"""

import ctypes
import ctypes.util
import os
import subprocess
import threading

# Major version of the library's soname (libportsort.so.0): the ABI this
# package was written against.  A library with another major is not loaded
# by name.
SONAME_MAJOR = 0

# ps_type values (lib/portsort.h; fixed, never renumbered).
PS_U8, PS_U16, PS_U32, PS_U64 = 1, 2, 3, 4
PS_I8, PS_I16, PS_I32, PS_I64 = 5, 6, 7, 8
PS_F32, PS_F64 = 9, 10
PS_F16, PS_BF16 = 11, 12

PS_DESCENDING = 1

# ps_status values used on the Python side.
PS_OK = 0
PS_ERR_INVALID_ARG = 1
PS_ERR_BACKEND_UNAVAILABLE = 4


class BackendInfo(ctypes.Structure):
    """struct ps_backend_info."""
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("built", ctypes.c_int),
        ("usable", ctypes.c_int),
        ("gpu", ctypes.c_int),
        ("detail", ctypes.c_char_p),
    ]


_lock = threading.Lock()
_lib = None


def _pkg_config_libdir():
    """libdir of the portsort pkg-config package, or None."""
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "portsort"],
                             capture_output=True, text=True, timeout=30,
                             check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    libdir = out.stdout.strip()
    return libdir if out.returncode == 0 and libdir else None


def bundled_path():
    """The library a wheel bundles beside this file (its backend modules in
    _lib/libportsort/ next to it, where the library looks first), or None
    for a package installed without it."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib",
                        "libportsort.so.%d" % SONAME_MAJOR)
    return path if os.path.isfile(path) else None


def _candidates():
    """Where to look for the library, in order, as (how, path) pairs.

    $PORTSORT_LIBRARY, when set, is the only candidate: a user who names a
    library must get that one or an error, never another copy found
    elsewhere.  Otherwise the bundled copy comes first: it is the build
    this package was installed with, while a system library may be older.
    """
    soname = "libportsort.so.%d" % SONAME_MAJOR
    named = os.environ.get("PORTSORT_LIBRARY")
    if named:
        return [("PORTSORT_LIBRARY", named)]
    found = []
    bundled = bundled_path()
    if bundled:
        found.append(("bundled", bundled))
    libdir = _pkg_config_libdir()
    if libdir:
        found.append(("pkg-config", os.path.join(libdir, soname)))
    by_name = ctypes.util.find_library("portsort")
    if by_name:
        found.append(("find_library", by_name))
    found.append(("loader path", soname))
    return found


def _declare(lib):
    """Set argument and result types: ctypes would otherwise pass size_t
    arguments as int and truncate pointers."""
    c_size, c_void, c_int, c_uint = (ctypes.c_size_t, ctypes.c_void_p,
                                     ctypes.c_int, ctypes.c_uint)
    protos = {
        "ps_sort_keys": (c_int, [c_void, c_size, c_int, c_uint]),
        "ps_sort_pairs": (c_int, [c_void, c_void, c_size, c_size, c_int,
                                  c_uint]),
        "ps_argsort": (c_int, [c_void, c_void, c_size, c_int, c_uint]),
        "ps_sort_segments": (c_int, [c_void, c_void, c_size, c_size, c_void,
                                     c_size, c_int, c_uint]),
        "ps_topk": (c_int, [c_void, c_void, c_size, c_size, c_size, c_void,
                            c_void, c_void, c_int, c_uint]),
        "ps_topk_segments": (c_int, [c_void, c_void, c_size, c_size, c_void,
                                     c_size, c_size, c_void, c_void, c_void,
                                     c_int, c_uint]),
        "ps_sort_records": (c_int, [c_void, c_size, c_size, c_void, c_size]),
        "ps_argsort_records": (c_int, [c_void, c_size, c_size, c_void, c_size,
                                       c_void]),
        "ps_argsort_columns": (c_int, [c_void, c_void, c_void, c_size, c_size,
                                       c_void]),
        "ps_argsort_strings": (c_int, [c_void, c_void, c_size, c_void,
                                       c_uint]),
        "ps_backend_name": (ctypes.c_char_p, []),
        "ps_backends": (c_size, [ctypes.POINTER(BackendInfo), c_size]),
        "ps_strerror": (ctypes.c_char_p, [c_int]),
        "ps_error_detail": (ctypes.c_char_p, []),
        "ps_type_size": (c_size, [c_int]),
        "ps_version": (ctypes.c_char_p, []),
        "ps_release_cache": (c_int, []),
        "ps_set_memory_limit": (c_int, [c_size]),
        "ps_scratch_bytes": (c_size, [c_size, c_size, c_int, c_uint]),
        "ps_device_api": (c_void, [ctypes.c_char_p]),
    }
    for name, (restype, argtypes) in protos.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def _load():
    tried = []
    for how, path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            tried.append("%s (%s): %s" % (path, how, exc))
            continue
        try:
            _declare(lib)
        except AttributeError as exc:
            tried.append("%s (%s): not libportsort: %s" % (path, how, exc))
            continue
        return lib
    raise OSError("portsort: cannot load libportsort; set PORTSORT_LIBRARY "
                  "to its path.  Tried: " + "; ".join(tried))


def lib():
    """The loaded library, loaded on first use (so `import portsort` works,
    and says nothing, where the library is missing until a sort is asked
    for)."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                _lib = _load()
    return _lib


def text(ptr):
    """A C string returned by the library, as str."""
    return ptr.decode("utf-8", "replace") if ptr is not None else ""
