#!/bin/sh
# portsort where it meets the system: standard output that cannot be
# written fails every command; a full output reports the error of the write
# that failed; a file size limit (SIGXFSZ) and a signal leave no temporary
# file; an input truncated while it is read does not kill the process; and
# -o onto an existing file keeps its mode, owner and group.
. "${srcdir:-.}/test/cli/cli-common.sh"
need_cmd awk

mkdir "$work/d"
d=$work/d
# 256 KiB of u32 keys: far beyond stdio's buffer; and 5000 text lines.
awk 'BEGIN { for (i = 0; i < 65536; i++) printf "%c%c%c%c", i % 251, i % 241, 7, 9 }' \
    >"$work/big"
awk 'BEGIN { for (i = 5000; i > 0; i--) print i * 7919 % 100003 }' >"$work/txt"
awk 'BEGIN { for (i = 5000; i > 0; i--) print "v" i }' >"$work/tvals"

# no_temp WHAT: no hidden temporary file is left in $d.
no_temp() {
    # shellcheck disable=SC2012
    if [ "$(ls -A "$d" | grep -c '^\.')" != 0 ]; then
        fail "$1: a temporary file was left: $(ls -A "$d" | grep '^\.' | tr '\n' ' ')"
        rm -f "$d"/.[!.]*
        return 1
    fi
    return 0
}

# ---- standard output on /dev/full ----
# full WHAT MESSAGE-REGEX ARGS...: portsort ARGS with standard output on
# /dev/full must fail and say why.
full() {
    what=$1 msg=$2
    shift 2
    "$PORTSORT" "$@" >/dev/full 2>"$work/err"
    rc=$?
    if [ "$rc" -eq 0 ]; then
        fail "$what > /dev/full: exit status 0"
    elif ! grep -Eq "$msg" "$work/err"; then
        fail "$what > /dev/full: message '$(cat "$work/err")' does not match '$msg'"
    else
        echo "ok: $what > /dev/full fails ($(head -n 1 "$work/err"))"
    fi
}
if [ -c /dev/full ]; then
    nospc='No space left on device'
    full "--help" "write error: $nospc" --help
    full "--version" "write error: $nospc" --version
    full "info" "write error: $nospc" info
    full "info --help" "write error: $nospc" info --help
    full "sort --help" "write error: $nospc" sort --help
    full "bench --help" "write error: $nospc" bench --help
    full "bench --perf-csv-to-stdout" "write error: $nospc" bench --perf-csv-to-stdout \
        --types u8 --sizes 64 --datasets zeros --repeats 1 --peers none
    full "sort --text" "cannot write standard output: $nospc" sort --text --type u32 \
        "$work/txt"
    # The error of the write that failed, not EIO made up at the end.
    full "sort, 256 KiB" "cannot write standard output: $nospc" sort --binary --type u32 "$work/big"
    full "sort -o /dev/full" "cannot write /dev/full: $nospc" sort --binary --type u32 \
        -o /dev/full "$work/big"
    full "sort -o /dev/stdout" "cannot write /dev/stdout: $nospc" sort --text \
        --type u32 -o /dev/stdout "$work/txt"
else
    echo "no /dev/full here: its checks skipped"
fi

# ---- a file size limit: EFBIG, not death by SIGXFSZ ----
echo "keep me" >"$d/out"
(ulimit -f 16 && exec "$PORTSORT" sort --binary --type u32 -o "$d/out" "$work/big") 2>"$work/err"
rc=$?
if [ "$rc" -ne 1 ]; then
    fail "past ulimit -f: exit status $rc, want 1 ($(cat "$work/err"))"
elif ! grep -q "cannot write $d/out: File too large" "$work/err"; then
    fail "past ulimit -f: message '$(cat "$work/err")'"
elif [ "$(cat "$d/out")" != "keep me" ]; then
    fail "past ulimit -f: the existing output was changed"
elif no_temp "past ulimit -f"; then
    echo "ok: past ulimit -f: $(cat "$work/err")"
fi

# ---- signals remove the temporary files ----
# The test hook raises the signal just before the first write of the
# output; the process must still die of it (its status says so), having
# removed the temporary file it made.  The signals' dispositions are the
# defaults ($sigdefault, cli-common.sh) where env can give them.
[ -n "$sigdefault" ] ||
    echo "skip: env --default-signal missing; the signal cases use the inherited dispositions"
for sig in INT:2 TERM:15 HUP:1; do
    num=${sig#*:} sig=${sig%:*}
    echo "keep me" >"$d/out"
    PORTSORT_TEST_FAIL_IO=write:1:$sig $sigdefault "$PORTSORT" sort --text --type u32 \
        -o "$d/out" "$work/txt" 2>/dev/null
    rc=$?
    want=$((num + 128))
    if [ "$rc" -ne "$want" ]; then
        fail "SIG$sig during the output: exit status $rc, want $want"
    elif [ "$(cat "$d/out")" != "keep me" ]; then
        fail "SIG$sig during the output: the existing output was changed"
    elif no_temp "SIG$sig during the output"; then
        echo "ok: SIG$sig during the output removes the temporary file"
    fi
done
# A signal the caller ignores (nohup ignores SIGHUP) stays ignored: the
# raised SIGHUP does nothing and the sort completes.
if env --ignore-signal=HUP true 2>/dev/null; then
    echo "keep me" >"$d/out"
    PORTSORT_TEST_FAIL_IO=write:1:HUP env --ignore-signal=HUP "$PORTSORT" sort --text \
        --type u32 -o "$d/out" "$work/txt" 2>"$work/err"
    rc=$?
    "$PORTSORT" sort --text --type u32 -o "$work/want" "$work/txt"
    if [ "$rc" -ne 0 ]; then
        fail "SIGHUP ignored by the caller: exit status $rc, want 0 ($(cat "$work/err"))"
    else
        same "$work/want" "$d/out" "SIGHUP ignored by the caller (nohup) stays ignored: sorted"
    fi
    no_temp "SIGHUP ignored by the caller"
fi

# ---- an input truncated while it is read ----
# The values come from a FIFO, opened only once the keys file has been
# read (or mapped): the writer's open returns then, it truncates the keys
# file and only then sends the values.  The keys read before must be
# sorted whole; a mapped input would die of SIGBUS on the lost pages.
if mkfifo "$work/fifo" 2>/dev/null; then
    cp "$work/txt" "$work/keys"
    timeout 60 sh -c 'exec 3>"$1" && : >"$2" && cat "$3" >&3' sh "$work/fifo" \
        "$work/keys" "$work/tvals" &
    writer=$!
    "$PORTSORT" sort --text --type u32 --values "$work/fifo" --values-out "$d/vout" \
        -o "$d/out" "$work/keys" 2>"$work/err"
    rc=$?
    wait "$writer"
    "$PORTSORT" sort --text --type u32 --values "$work/tvals" --values-out "$work/vwant" \
        -o "$work/want" "$work/txt"
    if [ "$rc" -ne 0 ]; then
        fail "an input truncated after it was read: exit status $rc ($(cat "$work/err"))"
    elif [ -s "$work/keys" ]; then
        fail "an input truncated after it was read: the writer did not truncate it"
    else
        same "$work/want" "$d/out" "an input truncated after it was read is sorted as read"
        same "$work/vwant" "$d/vout" "... and its values"
    fi
    no_temp "an input truncated after it was read"
    rm -f "$d/out" "$d/vout"
else
    echo "no mkfifo here: the truncated input check skipped"
fi

# ---- -o onto an existing file keeps its mode, owner and group ----
printf '3\n1\n2\n' >"$d/in"
printf 'old\n' >"$d/out"
chmod 0640 "$d/out"
owner=
if [ "$(id -u)" -eq 0 ] && chown nobody "$d/out" 2>/dev/null; then
    # Root can give the file away: it must come back to the same owner.
    chgrp "$(id -gn nobody 2>/dev/null || echo nogroup)" "$d/out" 2>/dev/null
    owner=$(ls -ln "$d/out" | awk '{ print $3 ":" $4 }')
fi
"$PORTSORT" sort --text --type u32 -o "$d/out" "$d/in" ||
    fail "sort -o onto an existing file"
printf '1\n2\n3\n' >"$work/want"
same "$work/want" "$d/out" "sort -o onto an existing file"
mode=$(ls -l "$d/out" | cut -c1-10)
[ "$mode" = "-rw-r-----" ] || fail "-o keeps the mode 0640: now $mode"
if [ -n "$owner" ]; then
    now=$(ls -ln "$d/out" | awk '{ print $3 ":" $4 }')
    [ "$now" = "$owner" ] || fail "-o keeps the owner and group $owner: now $now"
    echo "ok: -o keeps the mode (0640), owner and group ($owner)"
else
    echo "ok: -o keeps the mode (0640) (the owner check needs root: skipped)"
fi
# In place (FILE is OUT): the same.
chmod 0604 "$d/in"
"$PORTSORT" sort --text --type u32 -o "$d/in" "$d/in" || fail "sort in place"
same "$work/want" "$d/in" "sort in place"
mode=$(ls -l "$d/in" | cut -c1-10)
[ "$mode" = "-rw----r--" ] || fail "sorting in place keeps the mode 0604: now $mode"
no_temp "-o onto an existing file"
finish
