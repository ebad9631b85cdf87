#!/bin/sh
# An I/O failure at every point of portsort sort's output changes no file:
# through the test hook PORTSORT_TEST_FAIL_IO=OP:K, the K-th write, fsync,
# fchmod, close or rename fails, for K = 1, 2, ... until a run makes fewer
# than K such calls (and then succeeds).  Each failing run must exit 1 with
# a message naming an output and the error, leave every input and every
# existing output byte for byte as it was, and leave no temporary file.
# Then OP:K:TERM: a signal at each of those points ends the process, which
# leaves no temporary file and the outputs either all old or all new.
. "${srcdir:-.}/test/cli/cli-common.sh"
need_cmd awk

d=$work/d
mkdir "$d" "$work/orig" "$work/want"
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "%c%c%c%c", i % 251, i % 13, 0, 0 }' \
    >"$work/orig/in"
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "v%04d\n", i }' | cut -c1-4 | tr -d '\n' \
    >"$work/orig/vals"
awk 'BEGIN { for (i = 3000; i > 0; i--) print i * 7919 % 10007 }' >"$work/orig/txt"
awk 'BEGIN { for (i = 3000; i > 0; i--) print "line " i }' >"$work/orig/tvals"
echo "old keys" >"$work/orig/out"
echo "old values" >"$work/orig/vout"

# reset: the files of $d as they were.
reset() {
    rm -rf "$d"
    cp -R "$work/orig" "$d"
}

# unchanged WHAT: every file of $d is as it was, and no other is there.
unchanged() {
    for f in "$work"/orig/*; do
        cmp -s "$f" "$d/${f##*/}" || { fail "$1: ${f##*/} was changed"; return 1; }
    done
    # shellcheck disable=SC2012
    if [ "$(ls -A "$d" | wc -l)" -ne "$(ls -A "$work/orig" | wc -l)" ]; then
        fail "$1: left $(ls -A "$d" | tr '\n' ' ')"
        return 1
    fi
    return 0
}

# scenario NAME OUTPUTS SIGNALS -- ARGS...: portsort sort ARGS in $d, whose
# outputs are OUTPUTS (names in $d, space-separated), under every fault,
# and with SIGNALS=yes under a signal at each point.
scenario() {
    name=$1 outs=$2 signals=$3
    shift 4
    reset
    (cd "$d" && "$abs" sort "$@") || { fail "$name: the run without faults"; return; }
    for o in $outs; do
        cp "$d/$o" "$work/want/$o"
    done
    for op in write fsync fchmod close rename; do
        k=1
        while [ "$k" -le 20 ]; do
            reset
            (cd "$d" && PORTSORT_TEST_FAIL_IO=$op:$k "$abs" sort "$@") 2>"$work/err"
            rc=$?
            [ "$rc" -eq 0 ] && break
            what="$name, $op $k failing"
            msg=$(cat "$work/err")
            if [ "$rc" -ne 1 ]; then
                fail "$what: exit status $rc, want 1 ($msg)"
            elif ! echo "$msg" | grep -q 'Input/output error'; then
                fail "$what: the message does not give the error: $msg"
            elif ! for o in $outs; do echo "$msg" | grep -q " $o:" && echo y; done |
                   grep -q y; then
                fail "$what: the message names no output: $msg"
            else
                unchanged "$what" && echo "ok: $what ($msg)"
            fi
            k=$((k + 1))
        done
        if [ "$k" -eq 1 ]; then
            fail "$name: no $op call to fail"
        elif [ "$k" -gt 20 ]; then
            fail "$name: still failing with the 20th $op failing"
        fi
        for o in $outs; do
            cmp -s "$work/want/$o" "$d/$o" ||
                fail "$name: with fewer than $k $op calls, the run wrote a wrong $o"
        done
        # A signal at each of the points: no temporary file, and the
        # outputs all old or all new, never some of each.
        j=1
        while [ "$signals" = yes ] && [ "$j" -lt "$k" ]; do
            reset
            # (Not the last command of the subshell, so that the shell
            # that says "Terminated" is the one whose stderr is dropped.)
            (cd "$d" && PORTSORT_TEST_FAIL_IO=$op:$j:TERM $sigdefault "$abs" sort "$@"; exit $?) \
                2>/dev/null
            rc=$?
            what="$name, SIGTERM at $op $j"
            old=0 new=0
            for o in $outs; do
                if cmp -s "$work/want/$o" "$d/$o"; then
                    new=$((new + 1))
                else
                    cmp -s "$work/orig/$o" "$d/$o" && old=$((old + 1))
                fi
            done
            # shellcheck disable=SC2012
            left=$(ls -A "$d" | grep '^\.' | tr '\n' ' ')
            if [ "$rc" -ne 143 ]; then
                fail "$what: exit status $rc, want 143"
            elif [ -n "$left" ]; then
                fail "$what: left $left"
            elif [ "$old" -ne 0 ] && [ "$new" -ne 0 ]; then
                fail "$what: $old outputs old and $new new"
            elif [ $((old + new)) -ne "$(echo $outs | wc -w)" ]; then
                fail "$what: an output is neither old nor new"
            else
                echo "ok: $what"
            fi
            j=$((j + 1))
        done
    done
}

abs=$(cd "$(dirname "$PORTSORT")" && pwd)/portsort
scenario "keys" "out" no -- --binary --type u32 -o out in
scenario "keys and values" "out vout" no -- --binary --type u32 --values vals --value-size 4 \
    -o out --values-out vout in
scenario "keys and values in place" "in vals" yes -- --binary --type u32 --values vals \
    --value-size 4 -o in --values-out vals in
scenario "text" "out" no -- --text --type u32 -o out txt
scenario "text with values" "out vout" yes -- --text --type u32 --values tvals \
    --values-out vout -o out txt
scenario "text by sort(1) keys, in place" "txt" no -- -k1,1r -o txt txt
finish
