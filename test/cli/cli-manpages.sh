#!/bin/sh
# The man pages: libportsort(3) has a section for every public function of
# portsort.h (so a new function cannot go undocumented) and a `man NAME`
# link; portsort(1) covers every subcommand and every long option the
# --help texts print; every PORTSORT_* variable the sources read is in the
# ENVIRONMENT section of the pages of the code that reads it; the pages
# render without warnings.
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
# portsort-mpi takes the key types of portsort (tools/cli/ps_cli_types.c).
mpi_types=$("$PORTSORT" info 2>/dev/null | sed -n 's/^key types: //p')
for t in $mpi_types; do
    grep -qw "$t" "$src/doc/portsort-mpi.1" || fail "portsort-mpi.1 names the key type $t"
done
[ "$(echo $mpi_types | wc -w)" -ge 12 ] || fail "found the key types in portsort info"
# Every long option that a --help text prints (all of them, also a second
# spelling on the same line, and those named in the text) appears in the
# man page as itself: "\-\-values" followed by no more of the name, so
# that --values-out does not stand for --values.
"$PORTSORT" --help | grep -q -- '--version' || fail "portsort --help names --version"
for c in "" sort bench info; do
    # shellcheck disable=SC2086
    "$PORTSORT" $c --help || fail "portsort $c --help"
done >"$work/help"
grep -o -- '--[a-z][a-z-]*[a-z]' "$work/help" | sort -u | while read -r opt; do
    pat=$(echo "$opt" | sed 's/-/\\\\-/g')
    grep -Eq -- "$pat(\$|[^a-z\\]|\\[^-])" "$src/doc/portsort.1" ||
        echo "portsort.1 lacks $opt"
done >"$work/missing"
[ -s "$work/missing" ] && fail "$(cat "$work/missing")"
# Every PORTSORT_* variable a source file reads: the library's (lib/,
# backends/) in portsort(1) and libportsort(3), libportsort_mpi's (mpi/) in
# libportsort(3) and portsort-mpi(1), a tool's in its own page, the Python
# package's in libportsort(3), each in the page's ENVIRONMENT section.
# Reads go through ps_getenv, ps_env_number, ps_env_word, getenv,
# os.environ or a macro, so every "PORTSORT_..." string literal counts.
# The tags of the section's .TP entries, one variable a line.
env_tags() {
    sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$src/doc/$1" |
        awk '/^\.TP/ { getline; print }' | grep -o 'PORTSORT_[A-Z0-9_]*'
}
for p in portsort.1 libportsort.3 portsort-mpi.1; do
    env_tags "$p" >"$work/env-$p"
    [ -s "$work/env-$p" ] || fail "$p has an ENVIRONMENT section with entries"
done
vars_in() {
    (cd "$src" && find "$@" -type f \( -name '*.[ch]' -o -name '*.cc' -o -name '*.py' \) \
        -exec grep -ho '"PORTSORT_[A-Z0-9_]*"' {} +) | tr -d '"' | sort -u
}
cli=$(cd "$src" && ls tools/cli/*.c | grep -v mpi)
mpi_cli=$(cd "$src" && ls tools/cli/*mpi*.c)
[ -n "$cli" ] && [ -n "$mpi_cli" ] || fail "found the tools' sources"
# shellcheck disable=SC2086
{
    vars_in lib backends | sed 's/$/ portsort.1 libportsort.3/'
    vars_in mpi | sed 's/$/ libportsort.3 portsort-mpi.1/'
    vars_in $cli | sed 's/$/ portsort.1/'
    vars_in $mpi_cli | sed 's/$/ portsort-mpi.1/'
    vars_in python/portsort | sed 's/$/ libportsort.3/'
} >"$work/vars"
[ "$(wc -l <"$work/vars")" -ge 10 ] || fail "found the variables the sources read"
while read -r var pages; do
    for p in $pages; do
        grep -qx "$var" "$work/env-$p" || echo "the ENVIRONMENT section of $p lacks $var"
    done
done <"$work/vars" >"$work/missing-env"
[ -s "$work/missing-env" ] && fail "$(cat "$work/missing-env")"
if command -v man >/dev/null 2>&1; then
    for p in portsort.1 libportsort.3 portsort-mpi.1; do
        out=$(MANWIDTH=80 man --warnings -l "$src/doc/$p" 2>&1 >/dev/null)
        [ -z "$out" ] || fail "man $p renders without warnings: $out"
        MANWIDTH=80 man -l "$src/doc/$p" 2>/dev/null | grep -q NAME || fail "man $p renders"
    done
else
    echo "man not found: rendering not checked"
fi
finish
