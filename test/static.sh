#!/bin/sh
# A statically linked program (issue 35): `cc -static` of
# test/static-app/main.c with the flags of `pkg-config --static --cflags
# --libs portsort`, taken from this build tree's portsort.pc (its libdir
# and includedir redefined to the uninstalled library and header), must
# link and sort on serial, on openmp, and under auto with this tree's
# device modules on the module path: a static program does not load them
# (it has no dynamic loader), so auto picks a built-in backend, and a
# module named in PORTSORT_BACKEND is refused with the reason.  Skipped
# (77) where no static C library is installed, or no libportsort.a built.
src=$(cd "${srcdir:-.}" && pwd) || exit 99
build=$(cd "${top_builddir:-.}" && pwd) || exit 99
cc=${PS_STATIC_CC:-cc}
pkgconfig=${PKG_CONFIG:-pkg-config}
work=$(mktemp -d "${TMPDIR:-/tmp}/portsort-static.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM

printf 'int main(void) { return 0; }\n' >"$work/trivial.c"
if ! "$cc" -static "$work/trivial.c" -o "$work/trivial" >/dev/null 2>&1; then
    echo "$cc -static cannot link a trivial program (no static C library): skipped"
    exit 77
fi
if [ ! -f "$build/lib/.libs/libportsort.a" ]; then
    echo "no libportsort.a (configure --disable-static): skipped"
    exit 77
fi
if ! command -v "$pkgconfig" >/dev/null 2>&1; then
    echo "$pkgconfig not found: skipped"
    exit 77
fi
if nm "$build/lib/.libs/libportsort.a" 2>/dev/null | grep -q ' U __[atu]san_'; then
    echo "libportsort.a is a sanitizer build: skipped"
    exit 77
fi
flags=$(PKG_CONFIG_PATH="$build/lib" "$pkgconfig" --static --cflags --libs \
        --define-variable=libdir="$build/lib/.libs" \
        --define-variable=includedir="$src/lib" portsort) || {
    echo "FAIL: pkg-config --static portsort"; exit 1; }
echo "flags: $flags"
# shellcheck disable=SC2086
"$cc" -static -o "$work/app" "$src/test/static-app/main.c" $flags \
    >"$work/link.log" 2>&1 || {
    cat "$work/link.log"; echo "FAIL: cc -static ... \$(pkg-config --static portsort)"; exit 1; }
echo "ok: linked statically"

failures=0
# run WANT [VAR=VALUE]...: the program's output must be WANT.
run() {
    want=$1
    shift
    got=$(env "$@" "$work/app" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then
        echo "ok: $* sorts on $want"
    else
        echo "FAIL: $*: exit $rc, '$got' (expected '$want')"
        failures=$((failures + 1))
    fi
}
run serial PORTSORT_BACKEND=serial
if "$build/tools/portsort" info 2>/dev/null | grep -q '^ *openmp  *usable'; then
    cpu=openmp
    run openmp PORTSORT_BACKEND=openmp PORTSORT_THREADS=4
else
    cpu=serial
fi
# This tree's modules, as an installed program would find them.
mods=
for d in "$build"/backends/*/.libs; do
    ls "$d"/ps_*.so >/dev/null 2>&1 && mods=$mods${mods:+:}$d
done
if [ -n "$mods" ]; then
    run $cpu PORTSORT_MODULE_PATH="$mods"
    for m in "$build"/backends/*/.libs/ps_*.so; do
        name=$(basename "$m" .so)
        name=${name#ps_}
        got=$(PORTSORT_MODULE_PATH="$mods" PORTSORT_BACKEND=$name "$work/app" 2>&1)
        rc=$?
        case $rc:$got in
            1:*"linked statically"*) echo "ok: $name refused: $got" ;;
            *) echo "FAIL: PORTSORT_BACKEND=$name: exit $rc, '$got'"
               failures=$((failures + 1)) ;;
        esac
    done
else
    echo "no device module built: auto not tried with one"
fi
[ $failures -eq 0 ] || exit 1
echo "all checks passed"
