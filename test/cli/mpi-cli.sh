#!/bin/sh
# portsort-mpi sort on 1, 2 and 3 ranks: its output must be byte for byte
# that of `portsort sort` (itself checked against Perl in
# cli-sort-binary.sh), for random keys, all-equal keys, presorted keys, an
# empty file, keys with values, both directions, and reads and writes in
# several collective rounds.  Then the refusals: each said once, exit 1 or
# 2 on every rank, no output file made and an existing one left as it was.
# And portsort-mpi bench, tiny: it runs, and counts the library's bytes.
. "${srcdir:-.}/test/mpi-common.sh"
. "${srcdir:-.}/test/cli/cli-common.sh"
need_cmd perl
srcdir=${srcdir:-.}
PMPI=$build/tools/portsort-mpi
[ -x "$PMPI" ] || { echo "portsort-mpi not built"; exit 99; }

# gen FILE FORMAT N SHAPE: N keys packed with Perl's FORMAT: random bits,
# all equal, or already sorted.
gen() {
    perl -e '
    my ($file, $f, $n, $shape) = @ARGV;
    srand(7 * $n + length $shape);
    my @k = map { $shape eq "equal" ? 12345 : $shape eq "sorted" ? $_ * 3
                : int(rand(2**32)) << 16 ^ int(rand(2**32)) } 0 .. $n - 1;
    open my $h, ">:raw", $file or die; print $h pack("$f*", @k); close $h;
    ' "$@"
}
gen "$work/u32" 'L<' 20011 random
gen "$work/equal" 's<' 5003 equal
gen "$work/sorted" 'Q<' 3001 sorted
gen "$work/f32" 'L<' 4099 random
gen "$work/vals" 'C' 12297 random
: >"$work/empty"

# run NP ARGS...: portsort-mpi on NP ranks; each rank's exit status goes
# to $work/rc.* (through a shell per rank, which MPI's environment passes
# through), stderr to $work/err.
run() {
    np=$1
    shift
    rm -f "$work"/rc.*
    # shellcheck disable=SC2086
    timeout "${PS_TEST_TIMEOUT:-120}" "$mpirun" $mpi_opts -np "$np" \
        sh -c '"$@"; echo $? >"'"$work"'/rc.$$"' sh "$PMPI" "$@" >"$work/out" 2>"$work/err"
    # The exit status of every rank, sorted and made unique.
    cat "$work"/rc.* 2>/dev/null | sort -u | tr '\n' ' '
}

# sorted NP WHAT ARGS...: portsort-mpi sort ARGS -o $work/got must succeed
# on NP ranks and write what portsort sort ARGS writes.
sorted() {
    np=$1 what=$2
    shift 2
    "$PORTSORT" sort --binary "$@" -o "$work/want" || { fail "portsort sort $*"; return; }
    rcs=$(run "$np" sort "$@" -o "$work/got")
    if [ "$rcs" != "0 " ]; then
        fail "$what on $np ranks: exit statuses $rcs"
        cat "$work/err"
        return
    fi
    same "$work/want" "$work/got" "$what on $np ranks"
}

for np in 1 2 3; do
    # Reads and writes in 4 KiB rounds: several per rank.
    PORTSORT_MPI_IO_CHUNK=4096 sorted "$np" "u32 random" --type u32 "$work/u32"
    sorted "$np" "i16 all equal, descending" --type i16 -r "$work/equal"
    sorted "$np" "u64 presorted" --type u64 "$work/sorted"
    sorted "$np" "empty file" --type f64 "$work/empty"
    # Pairs: 4099 f32 keys (NaNs, signed zeros...) with 3-byte values.
    "$PORTSORT" sort --binary --type f32 -r --values "$work/vals" --value-size 3 \
        --values-out "$work/vwant" "$work/f32" -o "$work/kwant"
    rcs=$(run "$np" sort --binary --type f32 -r --values "$work/vals" --value-size 3 \
        --values-out "$work/vgot" "$work/f32" -o "$work/kgot")
    [ "$rcs" = "0 " ] || { fail "pairs on $np ranks: exit statuses $rcs"; cat "$work/err"; }
    same "$work/kwant" "$work/kgot" "f32 keys with values, descending, on $np ranks"
    same "$work/vwant" "$work/vgot" "their values on $np ranks"
done

# refused NP STATUS WHAT ARGS...: every rank exits with STATUS, the error
# is said once, and neither $work/x (absent) nor $work/keep (present) is
# touched.
echo "keep me" >"$work/keep"
refused() {
    np=$1 want=$2 what=$3
    shift 3
    rm -f "$work/x"
    rcs=$(run "$np" "$@")
    [ "$rcs" = "$want " ] || fail "$what: exit statuses $rcs, want $want on every rank"
    lines=$(grep -c '^portsort-mpi: ' "$work/err")
    [ "$lines" = 1 ] || { fail "$what: said $lines times"; cat "$work/err"; }
    [ ! -e "$work/x" ] || fail "$what: left $work/x"
    [ "$(cat "$work/keep")" = "keep me" ] || fail "$what: changed an existing output"
    # shellcheck disable=SC2012
    [ "$(ls -A "$work" | grep -c '^\.')" = 0 ] || fail "$what: left a temporary file"
    echo "ok: $what"
}
refused 3 1 "a missing input" sort --type u32 "$work/missing" -o "$work/x"
refused 3 1 "a size not a multiple of the key" sort --type u64 "$work/u32" -o "$work/keep"
refused 3 2 "an unknown type" sort --type u128 "$work/u32" -o "$work/x"
refused 2 1 "values that do not match the keys" sort --type u32 --values "$work/vals" \
    --value-size 3 --values-out "$work/x" "$work/u32" -o "$work/keep"
refused 2 2 "no -o" sort --type u32 "$work/u32"
# Two outputs on one file that does not exist yet: refused before anything
# is written, however the name is spelled (a dangling link included).
refused 2 2 "-o and --values-out: one new file" sort --type u32 --values "$work/vals" \
    --value-size 3 --values-out "$work/x" "$work/u32" -o "$work/../${work##*/}/./x"
# A malformed testing knob fails on every rank, named, instead of being
# replaced by the default without a word.
PORTSORT_MPI_IO_CHUNK=4k2 refused 2 1 "PORTSORT_MPI_IO_CHUNK=4k2" sort --type u32 \
    "$work/u32" -o "$work/x"
grep -q "PORTSORT_MPI_IO_CHUNK=4k2: invalid value" "$work/err" || fail "IO_CHUNK: reason"
PORTSORT_MPI_MAX_MSG=0 refused 2 1 "PORTSORT_MPI_MAX_MSG=0" sort --type u32 \
    "$work/u32" -o "$work/x"
grep -q "PORTSORT_MPI_MAX_MSG=0: invalid value" "$work/err" || fail "MAX_MSG: reason"
PORTSORT_MPI_GATHER_MAX=65537 refused 2 1 "PORTSORT_MPI_GATHER_MAX=65537" sort --type u32 \
    "$work/u32" -o "$work/x"
grep -q "PORTSORT_MPI_GATHER_MAX=65537: invalid value" "$work/err" || fail "GATHER_MAX: reason"
PORTSORT_MPI_TRACE=yes refused 2 1 "PORTSORT_MPI_TRACE=yes" sort --type u32 \
    "$work/u32" -o "$work/x"
grep -q "PORTSORT_MPI_TRACE=yes: invalid value" "$work/err" || fail "TRACE: reason"
# Asked, each rank says where its sort's time went; not asked, nothing.
rcs=$(PORTSORT_MPI_TRACE=1 run 2 sort --type u32 "$work/u32" -o "$work/x")
[ "$rcs" = "0 " ] || fail "PORTSORT_MPI_TRACE=1: exit statuses $rcs"
for r in 0 1; do
    grep -Eq "^portsort_mpi: rank $r of 2, [0-9]+ keys in, [0-9]+ out \(ms\): count [0-9.]+ list" \
        "$work/err" || fail "PORTSORT_MPI_TRACE=1: no line from rank $r"
done
rcs=$(PORTSORT_MPI_TRACE=0 run 2 sort --type u32 "$work/u32" -o "$work/x")
[ "$rcs" = "0 " ] && [ ! -s "$work/err" ] || fail "PORTSORT_MPI_TRACE=0: not silent"
ln -s x "$work/xlink"
refused 2 2 "-o through a dangling link to --values-out" sort --type u32 \
    --values "$work/vals" --value-size 3 --values-out "$work/x" "$work/u32" -o "$work/xlink"
rm -f "$work/xlink"

# Standard output that cannot be written (every rank's on /dev/full) fails
# the command on every rank, said.
if [ -c /dev/full ]; then
    for args in --version --help "sort --help" "bench --help"; do
        rm -f "$work"/rc.*
        # shellcheck disable=SC2086
        timeout "${PS_TEST_TIMEOUT:-120}" "$mpirun" $mpi_opts -np 2 \
            sh -c '"$@" >/dev/full; echo $? >"'"$work"'/rc.$$"' sh "$PMPI" $args \
            2>"$work/err"
        rcs=$(cat "$work"/rc.* 2>/dev/null | sort -u | tr '\n' ' ')
        if [ "$rcs" != "1 " ]; then
            fail "$args > /dev/full: exit statuses $rcs, want 1 on every rank"
        elif ! grep -q 'portsort-mpi: write error: No space left on device' "$work/err"; then
            fail "$args > /dev/full: message '$(cat "$work/err")'"
        else
            echo "ok: $args > /dev/full fails"
        fi
    done
fi

# The benchmark runs and reports both scalings (its figures are not
# checked: a test makes no timing assertion).
rcs=$(run 2 bench --size 5000 --repeats 1 --type i64)
[ "$rcs" = "0 " ] || { fail "bench: exit statuses $rcs"; cat "$work/err"; }
for s in strong weak; do
    grep -q "^$s *2 " "$work/out" || fail "bench reports $s scaling on 2 ranks"
done
# The bytes moved are counted (through the MPI profiling interface): on 2
# ranks about half of the 8-byte keys cross, never nothing.
awk '$1 == "strong" && $2 == 2 && $9 > 1 && $9 < 8 { ok = 1 } END { exit !ok }' \
    "$work/out" || fail "bench counts the bytes moved: $(grep '^strong *2 ' "$work/out")"
# They are the library call's alone: the tool's own reductions around it
# (the time, the status, the check of the first repeat's output) are not
# counted, so one repeat and three give the same bytes per key.
bytes() { awk '$1 == "strong" && $2 == 2 { print $9, $11 }' "$work/out"; }
one=$(bytes)
rcs=$(run 2 bench --size 5000 --repeats 3 --type i64)
[ "$rcs" = "0 " ] || { fail "bench --repeats 3: exit statuses $rcs"; cat "$work/err"; }
three=$(bytes)
[ -n "$one" ] && [ "$one" = "$three" ] ||
    fail "bench counts the library's bytes alone: data and control $one with one repeat, $three with three"
echo "ok: bench"

# portsort-mpi(1) covers every long option that --help lists, and renders
# without warnings.
for c in sort bench; do
    run 1 "$c" --help >/dev/null
    sed -n 's/^ *\(-., \)\{0,1\}--\([a-z-]*\).*/\2/p' "$work/out" | while read -r opt; do
        [ "$opt" = help ] && continue
        grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$srcdir/doc/portsort-mpi.1" ||
            echo "portsort-mpi.1 lacks $c --$opt"
    done
done >"$work/missing"
[ -s "$work/missing" ] && fail "$(cat "$work/missing")"
if command -v man >/dev/null 2>&1; then
    out=$(MANWIDTH=80 man --warnings -l "$srcdir/doc/portsort-mpi.1" 2>&1 >/dev/null)
    [ -z "$out" ] || fail "man portsort-mpi.1 renders without warnings: $out"
fi
echo "ok: the man page"
finish
