#!/bin/sh
# The Python package (python/portsort) on the library of this build tree:
# its pytest suite, run from the source tree without writing there (make
# distcheck makes it read-only): no .pyc files, no pytest cache.  Skipped
# (77) where no python3 with numpy and pytest is found.
src=${srcdir:-.}
build=$(cd "${top_builddir:-.}" && pwd) || exit 99
lib=$build/lib/.libs/libportsort.so
if [ ! -f "$lib" ]; then
    echo "libportsort not built at $lib"
    exit 99
fi

# A sanitizer build's library cannot be loaded into an uninstrumented
# python3 (the ASan runtime must come first in the process).
if ldd "$lib" 2>/dev/null | grep -Eq 'lib(a|t|ub)san'; then
    echo "libportsort is a sanitizer build: not loadable into python3: skipped"
    exit 77
fi

. "$src/test/python-common.sh"
if ! find_python numpy pytest; then
    echo "no python3 with numpy and pytest (Debian: python3-numpy python3-pytest): skipped"
    exit 77
fi

PORTSORT_LIBRARY=$lib
PYTHONPATH=$src/python${PYTHONPATH:+:$PYTHONPATH}
PYTHONDONTWRITEBYTECODE=1
export PORTSORT_LIBRARY PYTHONPATH PYTHONDONTWRITEBYTECODE
# PORTSORT_MODULE_PATH (this tree's modules) comes from AM_TESTS_ENVIRONMENT.
echo "$python: $("$python" -c 'import sys, numpy; print(sys.version.split()[0], "numpy", numpy.__version__)')"
exec "$python" -m pytest -q -p no:cacheprovider "$src/python/tests"
