#!/bin/sh
# The Debian packages (issue 35, goal 4): debian/ builds them with
# `dpkg-buildpackage -us -uc -b` from a clean copy of HEAD (git archive:
# committed files only, no configure script), lintian finds no error in
# them, and, unpacked with `dpkg -x` into a scratch root (no root
# privileges, no container), they work from there with LD_LIBRARY_PATH:
#
#   portsort (CLI)        `portsort info` lists openmp usable and the
#                         OpenCL module of libportsort0-opencl loaded from
#                         the scratch root (usable on pocl), and `portsort
#                         sort` sorts on openmp and opencl;
#   libportsort-dev       test/static-app/main.c, compiled (dynamically)
#                         with the scratch root's header and pkg-config
#                         file, and test/cmake-app through its CMake
#                         package, sort;
#   libportsort-mpi*      test/cmake-app-mpi on 2 ranks, and portsort-mpi
#   portsort-mpi          sort on 2 ranks writes what portsort sort does.
#
# The test suite does not run in the package build (DEB_BUILD_OPTIONS and
# DEB_BUILD_PROFILES nocheck): CI runs it in its own steps.  Not part of
# make check: it builds the whole tree again.  CI runs it as a step of its
# own (.ci/run).  Needs dpkg-dev, debhelper, fakeroot, lintian and the
# Build-Depends of debian/control; PS_DEB_KEEP=1 keeps the work directory.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/portsort-deb.XXXXXX")
if [ "${PS_DEB_KEEP:-}" = 1 ]; then
    echo "work directory: $work (kept)"
else
    trap 'rm -rf "$work"' EXIT
fi
trap 'exit 1' HUP INT TERM
unset LD_LIBRARY_PATH PORTSORT_LIBRARY PORTSORT_MODULE_PATH PORTSORT_BACKEND
XDG_CACHE_HOME=$work/cache
LC_ALL=C
export XDG_CACHE_HOME LC_ALL

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

for cmd in git dpkg-buildpackage dh fakeroot lintian cc pkg-config; do
    command -v "$cmd" >/dev/null 2>&1 ||
        fail "$cmd not found (Debian: dpkg-dev debhelper fakeroot lintian build-essential pkg-config)"
done

# The clean copy: dpkg-buildpackage builds in its source tree and writes
# the packages into the directory above it.
git -C "$top" archive --format=tar --prefix=libportsort/ HEAD | tar -xf - -C "$work" ||
    fail "git archive HEAD"
t0=$(date +%s)
(cd "$work/libportsort" &&
    DEB_BUILD_OPTIONS="nocheck parallel=$(nproc 2>/dev/null || echo 2)" \
    DEB_BUILD_PROFILES=nocheck dpkg-buildpackage -us -uc -b) \
    >"$work/build.log" 2>&1 || { tail -n 60 "$work/build.log"; fail "dpkg-buildpackage"; }
echo "ok: dpkg-buildpackage -us -uc -b ($(($(date +%s) - t0)) s)"
for p in libportsort0 libportsort0-opencl libportsort-dev portsort \
         libportsort-mpi0 libportsort-mpi-dev portsort-mpi; do
    ls "$work/${p}_"*.deb >/dev/null 2>&1 || fail "no package $p"
done

# lintian: every tag shown, errors fail (doc/packaging.md lists the rest).
set -- "$work"/libportsort_*.changes
lintian --display-info --fail-on error "$1" >"$work/lintian.txt" 2>&1 || {
    cat "$work/lintian.txt"; fail "lintian reports errors"; }
sed 's/^/  lintian: /' "$work/lintian.txt"
echo "ok: lintian, no error"

# The scratch root.
root=$work/root
for deb in "$work"/*.deb; do
    case $deb in *-dbgsym_*) continue ;; esac
    dpkg -x "$deb" "$root" || fail "dpkg -x $deb"
done
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=$root/usr/lib/$multiarch
LD_LIBRARY_PATH=$libdir
export LD_LIBRARY_PATH
portsort=$root/usr/bin/portsort
case $(ldd "$portsort" | grep 'libportsort\.so') in
    *"=> $libdir/libportsort.so.0 "*) ;;
    *) fail "portsort does not load the scratch root's library: $(ldd "$portsort")" ;;
esac

PORTSORT_VERBOSE=1 "$portsort" info >"$work/info" 2>"$work/verbose" ||
    fail "portsort info: $(cat "$work/info" "$work/verbose")"
sed 's/^/  /' "$work/info"
grep -q '^ *openmp  *usable' "$work/info" || fail "portsort info: openmp not usable"
grep -qx "portsort: opencl: trying module $libdir/libportsort/ps_opencl.so" "$work/verbose" ||
    fail "the OpenCL module is not loaded from the scratch root: $(cat "$work/verbose")"
grep -q '^ *opencl  *usable' "$work/info" ||
    fail "portsort info: opencl not usable (pocl-opencl-icd installed?)"
echo "ok: portsort info: openmp usable, OpenCL module from the scratch root usable"

printf '3\n-7\n42\n0\n-1\n' >"$work/in"
printf -- '-7\n-1\n0\n3\n42\n' >"$work/want"
for b in openmp opencl; do
    PORTSORT_BACKEND=$b "$portsort" sort --type i32 "$work/in" >"$work/out" ||
        fail "portsort sort on $b"
    cmp -s "$work/want" "$work/out" || fail "portsort sort on $b: $(cat "$work/out")"
    echo "ok: portsort sort on $b"
done

# libportsort-dev: the header, pkg-config file and shared library of the
# scratch root, its prefix moved there with --define-variable.
pc="pkg-config --define-variable=prefix=$root/usr"
PKG_CONFIG_LIBDIR=$libdir/pkgconfig
export PKG_CONFIG_LIBDIR
# shellcheck disable=SC2046
cc -o "$work/app" "$work/libportsort/test/static-app/main.c" $($pc --cflags --libs portsort) ||
    fail "cc with pkg-config portsort"
case $($pc --cflags portsort) in
    *"-I$root/usr/include"*) ;;
    *) fail "pkg-config --cflags portsort: $($pc --cflags portsort)" ;;
esac
got=$("$work/app") || fail "the pkg-config program: $got"
echo "ok: a program built with pkg-config portsort sorts on $got"

if command -v cmake >/dev/null 2>&1; then
    cmake -S "$work/libportsort/test/cmake-app" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$root/usr" \
        >"$work/cmake.log" 2>&1 && cmake --build "$work/cmake" >>"$work/cmake.log" 2>&1 ||
        { cat "$work/cmake.log"; fail "cmake-app against the CMake package"; }
    got=$(PORTSORT_BACKEND=serial "$work/cmake/ps_cmake_app")
    [ "$got" = "-7 -1 0 3 42" ] || fail "cmake-app: got '$got'"
    echo "ok: a CMake project with find_package(portsort) sorts"
else
    echo "cmake not found: the CMake package is not checked"
fi

# The MPI packages, on two ranks of the launcher that mpi-default-bin
# provides (Open MPI refuses root and more ranks than cores unless told).
mpirun=$(command -v mpirun || true)
[ -n "$mpirun" ] || fail "no mpirun (Debian: mpi-default-bin)"
mpi_opts=
if "$mpirun" --version 2>&1 | grep -q 'Open MPI'; then
    mpi_opts="--oversubscribe -x LD_LIBRARY_PATH -x XDG_CACHE_HOME"
    if [ "$(id -u)" -eq 0 ]; then
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    fi
fi
perl -e 'srand(35); print pack("l<*", map { int(rand(2**31)) - 2**30 } 1 .. 10007)' \
    >"$work/keys.bin"
PORTSORT_BACKEND=serial "$portsort" sort --binary --type i32 "$work/keys.bin" -o "$work/want.bin" ||
    fail "portsort sort --binary"
# shellcheck disable=SC2086
PORTSORT_BACKEND=serial PORTSORT_THREADS=1 "$mpirun" $mpi_opts -np 2 \
    "$root/usr/bin/portsort-mpi" sort --type i32 "$work/keys.bin" -o "$work/got.bin" ||
    fail "portsort-mpi sort on 2 ranks"
cmp -s "$work/want.bin" "$work/got.bin" || fail "portsort-mpi sort: wrong output"
echo "ok: portsort-mpi sort on 2 ranks"
if command -v cmake >/dev/null 2>&1; then
    cmake -S "$work/libportsort/test/cmake-app-mpi" -B "$work/cmake-mpi" -DCMAKE_PREFIX_PATH="$root/usr" \
        >"$work/cmake-mpi.log" 2>&1 && cmake --build "$work/cmake-mpi" >>"$work/cmake-mpi.log" 2>&1 ||
        { cat "$work/cmake-mpi.log"; fail "cmake-app-mpi against the CMake package"; }
    # shellcheck disable=SC2086
    got=$(PORTSORT_BACKEND=serial "$mpirun" $mpi_opts -np 2 "$work/cmake-mpi/ps_cmake_mpi_app")
    [ "$got" = "-7 -1 0 3 41 42" ] || fail "cmake-app-mpi: got '$got'"
    echo "ok: find_package(portsort COMPONENTS mpi) links portsort::portsort_mpi, sorts on 2 ranks"
fi
echo "PASS: deb"
