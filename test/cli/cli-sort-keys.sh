#!/bin/sh
# portsort sort without --type against GNU sort (LC_ALL=C): whole lines and
# sort(1)'s keys (-k POS1[,POS2] with b n g r, several keys, -t, -b, -n,
# -g, -r, -s, -u, -c, -C, -z, -o), on generated text with the shapes that
# break key code: high bytes, tabs and runs of blanks, empty lines and
# fields, lines that are prefixes of others, long shared prefixes, many
# duplicates, numbers GNU reads its own way (+7, -0, .5, 1e3, leading
# zeros, 30 digits), nan, inf and hex floats for -g.  Every combination is
# drawn at random from a fixed seed, so a failure is reproducible: the
# message prints the options and the file.
. "${srcdir:-.}/test/cli/cli-common.sh"
need_cmd perl
sort --version 2>/dev/null | grep -q GNU || { echo "GNU sort not found: skipped"; exit 77; }

# gen SEED LINES > file: one file of mixed shapes.
gen() {
    perl -e '
        srand($ARGV[0]); my $n = $ARGV[1];
        my @nums = ("0", "-0", "+7", "7", "007", "-7", ".5", "-.5", "5.", "1e3",
                    "-", "", "12345678901234567890123456789", "-12345678901234567890.5",
                    "1.50", "1.5", "1.55", "-1.5", "-1.55", "inf", "-inf",
                    "0x1p3", "9007199254740993", "9007199254740992", "1e-400", "abc",
                    " 3", "\t-2", "3 ", "1,5");
        my @words = ("a", "ab", "abc", "b", "B", "", "a b", "\xff", "\xc3\xa9t\xc3\xa9",
                     "x" x 40, "prefix/shared/path/" . "y" x 5);
        sub word { my $w = $words[int rand @words]; $w .= chr(32 + int rand 95) for 1 .. int rand 4; $w }
        sub field {
            my $r = rand;
            return $nums[int rand @nums] if $r < 0.45;
            return int(rand 100) - 50 if $r < 0.6;
            return sprintf("%.3f", rand(20) - 10) if $r < 0.7;
            return word();
        }
        sub sep { my @s = (" ", "  ", "\t", " \t", ","); $s[int rand @s] }
        my @prev;
        for (1 .. $n) {
            if (@prev && rand() < 0.15) { print $prev[int rand @prev], "\n"; next }
            my $line = (rand() < 0.2 ? sep() : "") . field();
            $line .= sep() . field() for 1 .. int rand 4;
            push @prev, $line;
            print $line, "\n";
        }' "$1" "$2"
}

# Draw a key: F[.C][opts][,F[.C][opts]]
keydef() {
    perl -e '
        srand($ARGV[0]);
        my @o = ("", "", "", "b", "n", "g", "r", "nr", "bn", "br", "bg");
        my $k = (1 + int rand 4);
        $k .= "." . (1 + int rand 3) if rand() < 0.3;
        $k .= $o[int rand @o];
        if (rand() < 0.6) {
            my $e = (1 + int rand 4);
            $e .= "." . int(rand 4) if rand() < 0.3;
            $e .= ("", "", "b")[int rand 3];
            $k .= ",$e";
        }
        print $k' "$1"
}

# compare WHAT FILE OPTION...: the output, exit status and (for -c) the
# message of both programs.
compare() {
    what=$1 f=$2
    shift 2
    sort "$@" "$f" >"$work/want" 2>"$work/want.err"
    wrc=$?
    "$PORTSORT" sort "$@" "$f" >"$work/got" 2>"$work/got.err"
    grc=$?
    sed 's/^sort: //' "$work/want.err" >"$work/want.msg"
    sed 's/^portsort: //' "$work/got.err" >"$work/got.msg"
    if [ "$wrc" -ne "$grc" ] || ! cmp -s "$work/want" "$work/got" ||
       ! cmp -s "$work/want.msg" "$work/got.msg"; then
        fail "$what: sort $* $(basename "$f"): exit $grc, GNU $wrc"
        diff "$work/want" "$work/got" | head -n 6
        diff "$work/want.msg" "$work/got.msg" | head -n 4
        cp "$f" "${TMPDIR:-/tmp}/cli-sort-keys-failed.txt"
        return 1
    fi
    return 0
}

i=0
ok=0
while [ $i -lt 40 ]; do
    gen $((100 + i)) $((50 + i * 13)) >"$work/in$i"
    i=$((i + 1))
done
# Whole lines, and the global options alone.
for g in "" -r -s -u -b -n -g -nr -gu -bu -ru -c -C -cu; do
    for f in 0 7 19 33; do
        # shellcheck disable=SC2086
        compare "whole lines" "$work/in$f" $g && ok=$((ok + 1))
    done
done
# With no byte below the newline in the input (no tabs), whole lines are
# sorted in place in the input, each with its newline: prefixes first.
tr -d '\t' <"$work/in4" >"$work/notab"
printf 'ab\nabc\nab\na\n\nb\n' >>"$work/notab"
for g in "" -r -u -ru -s -n; do
    # shellcheck disable=SC2086
    compare "whole lines, no tabs" "$work/notab" $g && ok=$((ok + 1))
done
# -c on sorted input: GNU's own output must pass ours.
for g in "" -n -g -r -u; do
    # shellcheck disable=SC2086
    sort $g "$work/in5" >"$work/sorted"
    # shellcheck disable=SC2086
    compare "-c on sorted" "$work/sorted" -c $g && ok=$((ok + 1))
done
# Random keys: 1-3 -k, global options, a separator.
r=0
while [ $r -lt 160 ]; do
    set --
    nk=$((1 + r % 3))
    j=0
    while [ $j -lt $nk ]; do
        set -- "$@" -k "$(keydef $((r * 7 + j)))"
        j=$((j + 1))
    done
    case $((r % 9)) in
        1) set -- "$@" -t , ;;
        2) set -- "$@" -t ' ' ;;
        3) set -- "$@" -b ;;
        4) set -- "$@" -n ;;
        5) set -- "$@" -s ;;
        6) set -- "$@" -u ;;
        7) set -- "$@" -r ;;
        8) set -- "$@" -g -s ;;
    esac
    case $((r % 5)) in
        3) set -- "$@" -c ;;
    esac
    compare "keys" "$work/in$((r % 40))" "$@" && ok=$((ok + 1))
    r=$((r + 1))
done
# -z: records end with NUL and may hold newlines (a blank for fields).
tr '\n' '\0' <"$work/in3" | perl -pe 's/a/a\n/ if rand() < 0.2' >"$work/z"
for g in "" "-k2" "-k2n -k1,1r" "-u -k1,1" "-b -k2,3"; do
    # shellcheck disable=SC2086
    compare "-z" "$work/z" -z $g && ok=$((ok + 1))
done
# Thousands of newlines in a row: the line count sums its byte counters
# every 4080 bytes, before they wrap.
{ printf 'b\na\n'; i=0; while [ $i -lt 6000 ]; do echo; i=$((i + 1)); done
  cat "$work/in2"; } >"$work/newlines"
for g in "" -u -r; do
    # shellcheck disable=SC2086
    compare "6000 empty lines" "$work/newlines" $g && ok=$((ok + 1))
done
# NaNs: after the conversion errors, before -inf, ordered by their bytes
# (GNU memcmps the long doubles).  Each NaN once: GNU compares the
# padding of equal ones too, whose order no one can reproduce.
printf 'nan b\n-nan a\n1\nx\nnan(123) c\n-inf\nnan(1) d\n-nan(7) e\n' >"$work/nan"
for g in -g -gs -gr "-k1g -k2r" -gu; do
    # shellcheck disable=SC2086
    compare "NaNs" "$work/nan" $g && ok=$((ok + 1))
done
# -o onto the input itself.
cp "$work/in9" "$work/self"
sort -k2,2n -k1 "$work/self" >"$work/want"
"$PORTSORT" sort -k2,2n -k1 -o "$work/self" "$work/self" &&
    same "$work/want" "$work/self" "-o onto the input"
# --head K: the sort's first K lines; --parallel N: the same bytes.
for k in 0 1 7 100000; do
    sort -k2,2 -k1r "$work/in11" | head -n $k >"$work/want"
    "$PORTSORT" sort --head $k -k2,2 -k1r "$work/in11" >"$work/got" &&
        same "$work/want" "$work/got" "--head $k with keys" || fail "--head $k"
done
sort -u "$work/in12" >"$work/want"
"$PORTSORT" sort --parallel=1 -u "$work/in12" >"$work/got" &&
    same "$work/want" "$work/got" "--parallel=1 -u" || fail "--parallel=1"
# Over 1 MiB: the lines are split, and written back through the
# permutation, by several threads (below it, by one).
i=0
while [ $i -lt 10 ]; do cat "$work/in$((30 + i))" "$work/in4"; i=$((i + 1)); done >"$work/big1"
cat "$work/big1" "$work/big1" "$work/big1" "$work/big1" >"$work/big2"
cat "$work/big2" "$work/big2" "$work/big2" "$work/big2" >"$work/big"
[ "$(wc -c <"$work/big")" -gt 1100000 ] || fail "the big input is under 1 MiB"
for g in "" "-k2,2 -k1" "-u -k3b,3" "-r -n"; do
    # shellcheck disable=SC2086
    compare "over 1 MiB" "$work/big" $g && ok=$((ok + 1))
done
# The output goes out in rounds of a few MB a thread: here of 1000 lines,
# so that lines (and -u's repeats) meet at the seams between rounds.
for g in "" "-u" "-u -k3b,3"; do
    # shellcheck disable=SC2086
    PORTSORT_TEST_ROUND_LINES=1000 compare "rounds of 1000 lines" "$work/big" $g &&
        ok=$((ok + 1))
done
# -C is silent on the --type path too; --parallel takes the size forms.
printf '2\n1\n' >"$work/c"
"$PORTSORT" sort --type u8 -C "$work/c" 2>"$work/err"
[ $? -eq 1 ] && [ ! -s "$work/err" ] || fail "--type -C: exit or message"
printf '3\n1\n2\n' | "$PORTSORT" sort --parallel=2^1 >"$work/got" &&
    printf '1\n2\n3\n' | cmp -s - "$work/got" || fail "--parallel=2^1"
# Options of sort(1) we do not have are refused by name, with exit 2.
# (-S and -T are ours for --binary and --type: cli-sort-external.sh.)
for o in -f -d -i -M -h -R -V -m --debug "--sort=month" "-k1f"; do
    # shellcheck disable=SC2086
    "$PORTSORT" sort $o "$work/in1" >/dev/null 2>"$work/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q "not supported" "$work/err"; then
        ok=$((ok + 1))
    else
        fail "sort $o: exit $rc, $(cat "$work/err")"
    fi
done
echo "$ok comparisons with GNU sort agreed"
finish
