#!/bin/sh
# The CMake package: `make install DESTDIR=<tmp>` from this build tree,
# then a small CMake project (test/cmake-app) finds it with
# find_package(portsort CONFIG), links portsort::portsort, and sorts five
# ints; another (test/cmake-app-mpi) links portsort::portsort_mpi where
# libportsort_mpi is built.  The installed tree is then moved, and found again there (the
# package must be relocatable).  Skipped (77) without cmake.
src=$(cd "${srcdir:-.}" && pwd) || exit 99
build=$(cd "${top_builddir:-.}" && pwd) || exit 99
if ! command -v cmake >/dev/null 2>&1; then
    echo "cmake not found (Debian: cmake): skipped"
    exit 77
fi
if [ -z "${PS_PREFIX:-}" ] || [ -z "${PS_LIBDIR:-}" ] || [ -z "${PS_VERSION:-}" ]; then
    echo "PS_PREFIX, PS_LIBDIR and PS_VERSION come from make check's environment"
    exit 99
fi
# A sanitizer build's library needs the sanitizer's runtime linked into
# the program, which a plain CMake project does not do.
if ldd "$build/lib/.libs/libportsort.so" 2>/dev/null | grep -Eq 'lib(a|t|ub)san'; then
    echo "libportsort is a sanitizer build: a plain CMake app cannot load it: skipped"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/portsort-cmake.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM

# A sub-make of make check: it shares the job server and sees the tree
# already built, so it only copies files.
${MAKE:-make} -C "$build" install DESTDIR="$work/dest" >"$work/install.log" 2>&1 || {
    cat "$work/install.log"; echo "FAIL: make install DESTDIR=..."; exit 1; }
for f in portsort-config.cmake portsort-config-version.cmake; do
    [ -f "$work/dest$PS_LIBDIR/cmake/portsort/$f" ] ||
        { echo "FAIL: $f not installed in \$(libdir)/cmake/portsort"; exit 1; }
done

expected="-7 -1 0 3 42"

# build_and_run NAME PREFIX LIBDIR [CMAKE ARGS]: configure, build and run
# the app against the package installed under PREFIX.
build_and_run() {
    name=$1 prefix=$2 libdir=$3
    shift 3
    cmake -S "$src/test/cmake-app" -B "$work/$name" -DCMAKE_PREFIX_PATH="$prefix" \
        "$@" >"$work/$name.log" 2>&1 &&
    cmake --build "$work/$name" >>"$work/$name.log" 2>&1 || {
        cat "$work/$name.log"; echo "FAIL: $name: cmake configure or build"; return 1; }
    got=$(LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
          PORTSORT_BACKEND=serial "$work/$name/ps_cmake_app") || {
        echo "FAIL: $name: ps_cmake_app failed"; return 1; }
    if [ "$got" != "$expected" ]; then
        echo "FAIL: $name: got '$got', expected '$expected'"
        return 1
    fi
    echo "ok: $name"
}

major=${PS_VERSION%%.*}
build_and_run installed "$work/dest$PS_PREFIX" "$work/dest$PS_LIBDIR" || exit 1
build_and_run same-major "$work/dest$PS_PREFIX" "$work/dest$PS_LIBDIR" \
    -DPORTSORT_WANT="$major.0" || exit 1

# Another major is refused.
if cmake -S "$src/test/cmake-app" -B "$work/next-major" \
        -DCMAKE_PREFIX_PATH="$work/dest$PS_PREFIX" \
        -DPORTSORT_WANT="$((major + 1)).0" >"$work/next-major.log" 2>&1; then
    echo "FAIL: find_package(portsort $((major + 1)).0) accepted $PS_VERSION"
    exit 1
fi
echo "ok: find_package(portsort $((major + 1)).0) refused"

# The mpi component: portsort::portsort_mpi where libportsort_mpi is built
# (run on two ranks through the configured launcher), refused where not.
mpi_app="$src/test/cmake-app-mpi"
if [ -f "$build/mpi/libportsort_mpi.la" ]; then
    rc=0
    (
        . "$src/test/mpi-common.sh"
        cmake -S "$mpi_app" -B "$work/mpi" -DCMAKE_PREFIX_PATH="$work/dest$PS_PREFIX" \
            >"$work/mpi.log" 2>&1 &&
        cmake --build "$work/mpi" >>"$work/mpi.log" 2>&1 || {
            cat "$work/mpi.log"; echo "FAIL: mpi: cmake configure or build"; exit 1; }
        # shellcheck disable=SC2086
        got=$(LD_LIBRARY_PATH="$work/dest$PS_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
              PORTSORT_BACKEND=serial "$mpirun" $mpi_opts -np 2 "$work/mpi/ps_cmake_mpi_app") || {
            echo "FAIL: mpi: ps_cmake_mpi_app failed on 2 ranks"; exit 1; }
        [ "$got" = "-7 -1 0 3 41 42" ] || { echo "FAIL: mpi: got '$got'"; exit 1; }
        echo "ok: the mpi component, portsort::portsort_mpi on 2 ranks"
    ) || rc=$?
    # 77: no launcher here (the library and its package were still built).
    case $rc in 0|77) ;; *) exit 1 ;; esac
elif cmake -S "$mpi_app" -B "$work/no-mpi" -DCMAKE_PREFIX_PATH="$work/dest$PS_PREFIX" \
        >"$work/no-mpi.log" 2>&1; then
    echo "FAIL: find_package(portsort COMPONENTS mpi) accepted a build without libportsort_mpi"
    exit 1
elif ! grep -q "no component 'mpi'" "$work/no-mpi.log"; then
    cat "$work/no-mpi.log"
    echo "FAIL: find_package(portsort COMPONENTS mpi) failed, but not for the component"
    exit 1
else
    echo "ok: the mpi component refused without libportsort_mpi"
fi

# Relocated: the whole prefix moved elsewhere (only where libdir is under
# the prefix; the config file names an outside libdir absolutely).
case $PS_LIBDIR in
    "$PS_PREFIX"/*)
        mv "$work/dest$PS_PREFIX" "$work/moved"
        build_and_run moved "$work/moved" "$work/moved/${PS_LIBDIR#"$PS_PREFIX"/}" || exit 1
        ;;
esac
echo "all checks passed"
