#!/bin/sh
# The examples of doc/examples/, run as a user would, at several sizes: each
# prints "ok" and exits 0, and refuses bad arguments with a message and
# exit 2 instead of printing a wrong result.
set -u
b=${top_builddir:-.}/doc/examples
st=0
fail() { echo "FAIL: $*"; st=1; }

for args in "1 1" "7" "10 10" "1000 10" "100000 20" "3 3"; do
    # shellcheck disable=SC2086
    out=$("$b/csr_from_coo" $args 2>&1)
    rc=$?
    echo "csr_from_coo $args: $out"
    [ "$rc" -eq 0 ] || fail "csr_from_coo $args: exit $rc"
    case $out in *": ok") ;; *) fail "csr_from_coo $args: not ok" ;; esac
done
for args in "10 20" "0" "abc" "10 x" "1 2 3"; do
    # shellcheck disable=SC2086
    out=$("$b/csr_from_coo" $args 2>&1)
    rc=$?
    [ "$rc" -eq 2 ] || fail "csr_from_coo $args: exit $rc, want 2"
    case $out in *csr_from_coo*) ;; *) fail "csr_from_coo $args: no message" ;; esac
    echo "refused: csr_from_coo $args: $out"
done
exit $st
