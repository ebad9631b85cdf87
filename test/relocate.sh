#!/bin/sh
# A moved install keeps its backends (issue 35): `make install
# DESTDIR=<tmp>` from this build tree, the staged tree moved elsewhere,
# then the installed portsort, run from there with PORTSORT_MODULE_PATH
# unset, must load every installed module from the moved tree (not from
# the configured directory, which may hold another install), list it as
# built, and sort on each module usable here.  The CPU backends sort too.
# (cli-common.sh: the scratch directory $work, fail and finish.)
. "${srcdir:-.}/test/cli/cli-common.sh"
build=$(cd "${top_builddir:-.}" && pwd) || exit 99
if [ -z "${PS_LIBDIR:-}" ]; then
    echo "PS_LIBDIR comes from make check's environment"
    exit 99
fi
# A sub-make of make check, as in test/cmake.sh: it only copies files.
${MAKE:-make} -C "$build" install DESTDIR="$work/dest" >"$work/install.log" 2>&1 || {
    cat "$work/install.log"; echo "FAIL: make install DESTDIR=..."; exit 1; }
mv "$work/dest" "$work/moved" || exit 99
libdir=$work/moved$PS_LIBDIR
portsort=$(find "$work/moved" -type f -name portsort | head -n 1)
[ -x "$portsort" ] || { echo "FAIL: portsort not installed"; exit 1; }
unset PORTSORT_MODULE_PATH PORTSORT_BACKEND
# The OpenCL backend caches its kernels there: not in the HOME of whoever runs the tests.
XDG_CACHE_HOME=$work/cache
export XDG_CACHE_HOME
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

printf '3\n-7\n42\n0\n-1\n' >"$work/in"
printf -- '-7\n-1\n0\n3\n42\n' >"$work/want"
# sorts_on BACKEND: the moved portsort sorts on it.
sorts_on() {
    if PORTSORT_BACKEND=$1 "$portsort" sort --text --type i32 "$work/in" \
            >"$work/out" 2>"$work/err" && cmp -s "$work/want" "$work/out"; then
        echo "ok: sorts on $1"
    else
        fail "PORTSORT_BACKEND=$1 sort: $(cat "$work/err")"
    fi
}

PORTSORT_VERBOSE=1 "$portsort" info >"$work/info" 2>"$work/verbose" ||
    fail "portsort info: $(cat "$work/info" "$work/verbose")"
cat "$work/info"
for b in serial openmp; do
    grep -q "^ *$b  *usable" "$work/info" && sorts_on $b
done
mods=$(find "$work/moved" -name 'ps_*.so' | sort)
[ -n "$mods" ] || echo "no backend module installed: only the CPU backends checked"
for m in $mods; do
    name=$(basename "$m" .so)
    name=${name#ps_}
    grep -q "^portsort: $name: trying module $m\$" "$work/verbose" ||
        fail "$name: not loaded from the moved tree ($m): $(grep "$name" "$work/verbose")"
    line=$(grep "^ *$name " "$work/info")
    case $line in
        *"not built"*|*broken*) fail "portsort info: $line" ;;
        *" usable "*) sorts_on "$name" ;;
        *) echo "ok: $name loaded, not usable here: $line" ;;
    esac
done
finish
