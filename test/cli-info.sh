#!/bin/sh
# portsort info lists the backends and the choice; a backend that cannot run
# is reported with its reason and a nonzero exit.
. "${srcdir:-.}/test/cli-common.sh"

"$PORTSORT" info >"$work/info" 2>&1 || fail "portsort info exits 0"
cat "$work/info"
grep -q '^libportsort [0-9]' "$work/info" || fail "info names the version"
grep -q '^  serial *usable' "$work/info" || fail "info lists serial as usable"
grep -q '^chosen: *serial' "$work/info" || fail "info names the chosen backend"
for b in cuda hip opencl openmp; do
    grep -q "^  $b " "$work/info" || fail "info lists $b"
done

PORTSORT_BACKEND=nosuch "$PORTSORT" info >"$work/bad" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "an unknown backend makes info exit 1 (got $rc)"
grep -q 'nosuch' "$work/bad" || fail "info says why the backend is unusable"

"$PORTSORT" --version | grep -q '^portsort' || fail "--version"
"$PORTSORT" nosuch >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown command exits 2"
finish
