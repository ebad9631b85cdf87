#!/bin/sh
# portsort info lists the backends and the choice; a backend that cannot run
# is reported with its reason and a nonzero exit.
. "${srcdir:-.}/test/cli/cli-common.sh"

"$PORTSORT" info >"$work/info" 2>&1 || fail "portsort info exits 0"
cat "$work/info"
grep -q '^libportsort [0-9]' "$work/info" || fail "info names the version"
grep -q '^key types: u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64$' "$work/info" ||
    fail "info lists the twelve key types"
grep -q '^  serial *usable' "$work/info" || fail "info lists serial as usable"
grep -q '^chosen: *serial' "$work/info" || fail "info names the chosen backend"
for b in cuda hip opencl openmp; do
    grep -q "^  $b " "$work/info" || fail "info lists $b"
done

# Run from the build tree with no PORTSORT_MODULE_PATH, the uninstalled
# libportsort finds the modules built beside it (backends/*/.libs): each
# one is listed as built, usable or with the reason it cannot run here.
top=${top_builddir:-.}
if [ -f "$top/lib/.libs/libportsort.so" ]; then
    env -u PORTSORT_MODULE_PATH "$PORTSORT" info >"$work/tree" 2>&1
    cat "$work/tree"
    for so in "$top"/backends/*/.libs/ps_*.so; do
        [ -f "$so" ] || continue
        b=${so##*/ps_}
        b=${b%.so}
        grep -q "^  $b " "$work/tree" || fail "info lists the build tree's $b module"
        grep "^  $b " "$work/tree" | grep -q 'not built' &&
            fail "info reports the build tree's $b module as not built"
    done
else
    echo "no shared libportsort in $top/lib/.libs: build-tree modules not checked"
fi

PORTSORT_BACKEND=nosuch "$PORTSORT" info >"$work/bad" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "an unknown backend makes info exit 1 (got $rc)"
grep -q 'nosuch' "$work/bad" || fail "info says why the backend is unusable"

"$PORTSORT" --version | grep -q '^portsort' || fail "--version"
"$PORTSORT" nosuch >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown command exits 2"
finish
