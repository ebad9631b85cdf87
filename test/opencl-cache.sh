#!/bin/sh
# The program cache: a cold run builds and writes a binary, a warm run
# loads it, a damaged binary is rebuilt and overwritten, an unwritable
# cache directory still sorts (building every time), and a build failure
# is reported as a device error with the build log.
#
# Then the cache as a hostile file system presents it: a genuine binary of
# another program and a file of the first format under the entry's name,
# a file or directory that another user could have written, symbolic links
# at the entry's name, at the directory's and at the first format's
# temporary name, a FIFO and a directory at the entry's name.  Each is
# refused (never handed to the driver, never followed, never blocked on),
# the sort is still right, and nothing outside the directory is written.
. "$(dirname "$0")/opencl-env.sh"
PORTSORT_BACKEND=opencl
PORTSORT_VERBOSE=1
export PORTSORT_BACKEND PORTSORT_VERBOSE
prog=$top/test/ps_test_opencl
run() {
    what=$1
    shift
    "$prog" quick "$@" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "$what: sort failed"; }
}
has() { grep -q "$2" "$tmp/out" || { cat "$tmp/out"; fail "$1: no \"$2\" in the log"; }; }
hasnt() { grep -q "$2" "$tmp/out" && { cat "$tmp/out"; fail "$1: \"$2\" in the log"; }; return 0; }
mode() { ls -ld "$1" | cut -c1-10; }
dir=$XDG_CACHE_HOME/portsort

run cold
has cold "building kernels"
has cold "cached program binary"
set -- "$dir"/*.bin
[ $# -eq 1 ] && [ -f "$1" ] || fail "cold: not one file in $dir: $*"
f32=$1
ls "$dir"/*.tmp.* > /dev/null 2>&1 && fail "cold: temporary file left"
# Only this user may read or write what the library will run.
[ "$(mode "$dir")" = drwx------ ] || fail "cold: $dir is $(mode "$dir"), not drwx------"
[ "$(mode "$f32")" = -rw------- ] || fail "cold: $f32 is $(mode "$f32"), not -rw-------"

run warm
has warm "program from cache"
hasnt warm "building kernels"

# Damaged: flipped payload bytes near the end, then a truncated file.
# Both must be rebuilt and the entry rewritten.
size=$(wc -c < "$f32")
printf 'XXXXXXXX' | dd of="$f32" bs=1 seek=$((size - 64)) conv=notrunc 2>/dev/null
run damaged
has damaged "damaged"
has damaged "cached program binary"
head -c 1000 "$f32" > "$tmp/part" && cat "$tmp/part" > "$f32"
run truncated
has truncated "damaged"
run rewritten
has rewritten "program from cache"

# PORTSORT_OPENCL_NO_CACHE: built, neither read nor written.
rm -f "$f32"
PORTSORT_OPENCL_NO_CACHE=1 run no-cache
has no-cache "building kernels"
hasnt no-cache "cached program binary"
[ -e "$f32" ] && fail "no-cache: $f32 written"

# Set but empty: the default (ps_env.h), the cache on: the entry the run
# above left out is written now.
PORTSORT_OPENCL_NO_CACHE= run empty-no-cache
[ -e "$f32" ] || fail "PORTSORT_OPENCL_NO_CACHE empty: $f32 not written"

# A genuine binary of another program (u64 keys) under the u32 entry's
# name.  Handed to the driver, it sorts u32 keys as u64 ones: wrong keys,
# or a crash.  The file says what it was built for, and that is not ours.
run cold-u64 u64
for f in "$dir"/*.bin; do [ "$f" != "$f32" ] && f64=$f; done
[ -n "${f64:-}" ] || fail "cold-u64: no second entry in $dir"
cp "$f64" "$f32"
run swapped
hasnt swapped "program from cache"
has swapped "not ours"
has swapped "cached program binary"
run swapped-rewritten
has swapped-rewritten "program from cache"

# The first format, with a right checksum over a payload that is no
# program: never handed to the driver.
"$prog" old-format "$f32" || fail "old-format: cannot write $f32"
chmod 600 "$f32"
run old-format
has old-format "not ours"
hasnt old-format "rejected by the driver"
hasnt old-format "program from cache"

# A file, then the directory, that others could have written: refused, and
# the directory is not written either.
chmod g+w "$f32"
run group-writable-file
has group-writable-file "writable by group or others"
hasnt group-writable-file "program from cache"
[ "$(mode "$f32")" = -rw------- ] || fail "group-writable-file: not replaced ($(mode "$f32"))"
chmod 777 "$dir"
run world-writable-dir
has world-writable-dir "writable by group or others"
hasnt world-writable-dir "program from cache"
hasnt world-writable-dir "cached program binary"
chmod 700 "$dir"
if [ "$(id -u)" -eq 0 ] && id nobody > /dev/null 2>&1; then
    chown nobody "$dir"
    run foreign-dir
    has foreign-dir "owned by uid"
    hasnt foreign-dir "program from cache"
    hasnt foreign-dir "cached program binary"
    chown 0 "$dir"
    chown nobody "$f32"
    run foreign-file
    has foreign-file "owned by uid"
    hasnt foreign-file "program from cache"
else
    echo "not root: the cases of a directory and a file owned by another user skipped"
fi

# Symbolic links: at the directory's name, at the entry's name (to a
# genuine binary elsewhere), and at the name the first format used for its
# temporary file (pid and a counter): none is followed, the target is
# never written.
mv "$dir" "$tmp/real"
ln -s "$tmp/real" "$dir"
run dir-symlink
has dir-symlink "symbolic link"
hasnt dir-symlink "program from cache"
hasnt dir-symlink "cached program binary"
rm "$dir"
mv "$tmp/real" "$dir"
cp "$f32" "$tmp/target"
cp "$f32" "$tmp/target.orig"
rm "$f32"
ln -s "$tmp/target" "$f32"
run file-symlink
has file-symlink "symbolic link"
hasnt file-symlink "program from cache"
cmp -s "$tmp/target" "$tmp/target.orig" || fail "file-symlink: the link's target was written"
[ -f "$f32" ] && [ ! -L "$f32" ] || fail "file-symlink: the link was not replaced by an entry"
rm "$f32"
echo precious > "$tmp/precious"
sh -c 'ln -s "$1" "$2.tmp.$$.1" && exec "$3" quick' sh "$tmp/precious" "$f32" "$prog" \
    > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "temp-symlink: sort failed"; }
[ "$(cat "$tmp/precious")" = precious ] || fail "temp-symlink: the link's target was written"
rm -f "$f32".tmp.*

# A FIFO at the entry's name: no open that waits for a writer.  A
# directory there: refused, and the temporary removed when the rename
# fails.
if command -v timeout > /dev/null 2>&1; then
    rm -f "$f32"
    mkfifo "$f32"
    timeout 120 "$prog" quick > "$tmp/out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || { cat "$tmp/out"; fail "fifo: sort failed or hung (exit $rc)"; }
    has fifo "not a regular file"
    [ -f "$f32" ] && [ ! -p "$f32" ] || fail "fifo: not replaced by an entry"
else
    echo "no timeout(1): the FIFO case skipped"
fi
rm -f "$f32"
mkdir "$f32"
run directory
has directory "not a regular file"
has directory "not caching"
ls "$dir" | grep -q tmp && fail "directory: temporary file left: $(ls "$dir")"
rmdir "$f32"

# Unwritable: the cache directory's parent is a regular file.  pocl keeps
# its own kernel cache under XDG_CACHE_HOME too and finds no device when it
# cannot write there, so it gets a directory of its own.
: > "$tmp/file"
mkdir "$tmp/pocl"
POCL_CACHE_DIR=$tmp/pocl XDG_CACHE_HOME=$tmp/file/sub run unwritable
has unwritable "not caching"
# A kernel that does not build: PS_ERR_DEVICE ("device error"), the build
# log under PORTSORT_VERBOSE=1, nothing cached.
PORTSORT_OPENCL_OPTIONS=-DPS_ITEMS= "$prog" quick > "$tmp/out" 2>&1
[ $? -eq 3 ] || { cat "$tmp/out"; fail "broken build: sort did not fail"; }
has "broken build" "kernel build failed"
has "broken build" "build log"
hasnt "broken build" "cached program binary"
echo "program cache: cold, warm, damaged, truncated, no-cache, swapped, old format," \
     "writable by others, owned by others, symbolic links, FIFO, directory," \
     "unwritable passed"
