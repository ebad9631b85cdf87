#!/bin/sh
# The man pages: libportsort(3) has a section for every public function of
# portsort.h (so a new function cannot go undocumented) and a `man NAME`
# link; portsort(1) covers every subcommand and bench option; both render
# without warnings.
. "${srcdir:-.}/test/cli/cli-common.sh"
src=${srcdir:-.}
funcs=$(sed -n 's/^PS_API[^(]*[ *]\(ps_[a-z_0-9]*\)(.*/\1/p' "$src/lib/portsort.h")
[ -n "$funcs" ] || fail "found the public functions in portsort.h"
for f in $funcs; do
    grep -q "^\.SS $f\$" "$src/doc/libportsort.3" || fail "libportsort.3 documents $f"
    grep -q "^\.so man3/libportsort\.3\$" "$src/doc/man/$f.3" 2>/dev/null ||
        fail "doc/man/$f.3 links to libportsort.3 (and is in doc/local.mk)"
done
# Every key type: ps_type's names in libportsort.3, the command's names
# (portsort info) in portsort.1.
types=$(sed -n '/^typedef enum ps_type/,/} ps_type;/p' "$src/lib/portsort.h" |
        sed 's,/\*.*\*/,,' | grep -o 'PS_[A-Z0-9]*')
[ "$(echo $types | wc -w)" -ge 12 ] || fail "found the key types in portsort.h"
for t in $types; do
    grep -qw "$t" "$src/doc/libportsort.3" || fail "libportsort.3 names $t"
done
for t in $("$PORTSORT" info 2>/dev/null | sed -n 's/^key types: //p'); do
    grep -qw "$t" "$src/doc/portsort.1" || fail "portsort.1 names the key type $t"
done
for c in info sort bench; do
    grep -q "^\.SS portsort $c\$" "$src/doc/portsort.1" || fail "portsort.1 documents $c"
done
# Every long option that --help lists appears in the man page.
for c in sort bench; do
    "$PORTSORT" "$c" --help | sed -n 's/^ *\(-., \)\{0,1\}--\([a-z-]*\).*/\2/p' |
    while read -r opt; do
        [ "$opt" = help ] && continue
        grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$src/doc/portsort.1" ||
            echo "portsort.1 lacks --$opt"
    done
done >"$work/missing"
[ -s "$work/missing" ] && fail "$(cat "$work/missing")"
if command -v man >/dev/null 2>&1; then
    for p in portsort.1 libportsort.3; do
        out=$(MANWIDTH=80 man --warnings -l "$src/doc/$p" 2>&1 >/dev/null)
        [ -z "$out" ] || fail "man $p renders without warnings: $out"
        MANWIDTH=80 man -l "$src/doc/$p" 2>/dev/null | grep -q NAME || fail "man $p renders"
    done
else
    echo "man not found: rendering not checked"
fi
finish
