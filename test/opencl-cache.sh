#!/bin/sh
# The program cache: a cold run builds and writes a binary, a warm run
# loads it, a damaged binary is rebuilt and overwritten, an unwritable
# cache directory still sorts (building every time), and a build failure
# is reported as a device error with the build log.
. "$(dirname "$0")/opencl-env.sh"
PORTSORT_BACKEND=opencl
PORTSORT_VERBOSE=1
export PORTSORT_BACKEND PORTSORT_VERBOSE
run() { "$top/test/ps_test_opencl" quick > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "$1: sort failed"; }; }

run cold
grep -q "building kernels" "$tmp/out" || fail "cold: no build"
grep -q "cached program binary" "$tmp/out" || fail "cold: nothing cached"
ls "$XDG_CACHE_HOME"/portsort/*.bin > /dev/null 2>&1 || fail "cold: no file in $XDG_CACHE_HOME/portsort"
ls "$XDG_CACHE_HOME"/portsort/*.tmp.* > /dev/null 2>&1 && fail "cold: temporary file left"

run warm
grep -q "program from cache" "$tmp/out" || fail "warm: cache not used"
grep -q "building kernels" "$tmp/out" && fail "warm: built again"

# Damaged: same header, flipped payload bytes.  Then garbage of the wrong
# length.  Both must be rebuilt and the entry rewritten.
for f in "$XDG_CACHE_HOME"/portsort/*.bin; do
    printf 'XXXXXXXX' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null
done
run damaged
grep -q "damaged" "$tmp/out" || fail "damaged: not detected"
grep -q "cached program binary" "$tmp/out" || fail "damaged: not rewritten"
for f in "$XDG_CACHE_HOME"/portsort/*.bin; do echo garbage > "$f"; done
run truncated
grep -q "damaged" "$tmp/out" || fail "truncated: not detected"
run rewritten
grep -q "program from cache" "$tmp/out" || fail "rewritten entry not used"

# Unwritable: the cache directory's parent is a regular file.  pocl keeps
# its own kernel cache under XDG_CACHE_HOME too and finds no device when it
# cannot write there, so it gets a directory of its own.
: > "$tmp/file"
mkdir "$tmp/pocl"
POCL_CACHE_DIR=$tmp/pocl XDG_CACHE_HOME=$tmp/file/sub run unwritable
grep -q "not caching" "$tmp/out" || fail "unwritable: no message"
# A kernel that does not build: PS_ERR_DEVICE ("device error"), the build
# log under PORTSORT_VERBOSE=1, nothing cached.
PORTSORT_OPENCL_OPTIONS=-DPS_ITEMS= "$top/test/ps_test_opencl" quick > "$tmp/out" 2>&1
[ $? -eq 3 ] || { cat "$tmp/out"; fail "broken build: sort did not fail"; }
grep -q "kernel build failed" "$tmp/out" || { cat "$tmp/out"; fail "broken build: no detail"; }
grep -q "build log" "$tmp/out" || { cat "$tmp/out"; fail "broken build: no build log"; }
grep -q "cached program binary" "$tmp/out" && fail "broken build: cached"
echo "program cache: cold, warm, damaged, truncated, unwritable passed"
