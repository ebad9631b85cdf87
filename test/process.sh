#!/bin/sh
# The library where it meets the process (issue 27, items 2 and 9), through
# test/ps_test_process, a copy of which runs from a private directory:
#  - a setuid-root program run by another user does not read the
#    environment: a module planted through PORTSORT_MODULE_PATH is not
#    loaded (its constructor would say so on stderr), while the same
#    program without the setuid bit does load it (so the check can fail);
#  - when the threads a sort asks for cannot be started (RLIMIT_NPROC of
#    an unprivileged user, RLIMIT_AS), the library sorts with the threads
#    it can have, down to one, says so under PORTSORT_VERBOSE=1, and the
#    process goes on (GNU libgomp, which the backend once used, would
#    exit(1)).
# The setuid and RLIMIT_NPROC cases need root (to make the program setuid
# and to run it as nobody: RLIMIT_NPROC does not bind root); elsewhere they
# are skipped with a message.  Exits 77 when nothing could run.
top=$(cd "${top_builddir:-.}" && pwd)
prog=$top/test/ps_test_process
stub=$top/test/.libs/ps_stub_good.so
ran=0
fail() { echo "FAIL: $*"; exit 1; }

[ -x "$prog" ] || { echo "no $prog: skipped"; exit 77; }
unset OMP_STACKSIZE GOMP_STACKSIZE PORTSORT_BACKEND PORTSORT_MODULE_PATH
dir=$(mktemp -d "${TMPDIR:-/tmp}/ps-process.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
# Without a static libportsort (configure --disable-static) the program is
# libtool's wrapper script, which a copy elsewhere, setuid or run by
# another user cannot use: those cases are skipped, the RLIMIT_AS one runs.
if [ "$(head -c 4 "$prog" | tr -d '\177')" = ELF ]; then
    cp "$prog" "$dir/prog" || exit 1
    copy=yes
else
    ln -s "$prog" "$dir/prog" || exit 1
    copy=no
fi
openmp=no
PORTSORT_BACKEND=openmp "$dir/prog" report | grep -q 'backend openmp' && openmp=yes

# The threads of a sort under RLIMIT_AS, which binds every user: stacks of
# 256 MiB for threads that take RLIMIT_STACK's size (libgomp's did), and
# room for the scratch of 8 threads but not for one more such stack.
if [ "$openmp" = yes ]; then
    echo "--- RLIMIT_AS: 8 threads asked for, no room for one more stack"
    if (ulimit -s 262144) 2>/dev/null; then
        (ulimit -s 262144 &&
            PORTSORT_BACKEND=openmp PORTSORT_THREADS=8 PORTSORT_VERBOSE=1 \
                timeout 120 "$dir/prog" sort-as 160) >"$dir/log" 2>&1
        rc=$?
        cat "$dir/log"
        if [ "$rc" -ne 77 ]; then
            [ "$rc" -eq 0 ] || fail "the sort under RLIMIT_AS ended the process (exit $rc)"
            # The pool's threads have stacks of their own size, not
            # RLIMIT_STACK's, so they may all fit; if one did not, the
            # library must have said so.
            if grep -q "could be started" "$dir/log"; then
                echo "(sorted with fewer threads)"
            else
                echo "(every thread could be started: their stacks are small)"
            fi
            ran=$((ran + 1))
        fi
    else
        echo "cannot raise the stack limit: RLIMIT_AS case skipped"
    fi
else
    echo "OpenMP backend not built: the thread limit cases are skipped"
fi

if [ "$(id -u)" != 0 ] || [ "$copy" = no ]; then
    echo "not root, or no static libportsort to copy the program with:" \
        "the setuid and RLIMIT_NPROC cases are skipped"
    [ "$ran" -gt 0 ] || exit 77
    exit 0
fi
if command -v setpriv >/dev/null 2>&1; then
    as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
elif command -v runuser >/dev/null 2>&1; then
    as_nobody="runuser -u nobody --"
else
    echo "neither setpriv nor runuser: the setuid and RLIMIT_NPROC cases are skipped"
    [ "$ran" -gt 0 ] || exit 77
    exit 0
fi

# RLIMIT_NPROC, as nobody: no thread at all (1), and a few (what nobody
# runs now, plus 3).
if [ "$openmp" = yes ] && command -v prlimit >/dev/null 2>&1; then
    now=$(ps -L -u 65534 --no-headers 2>/dev/null | wc -l)
    for lim in 1 $((now + 3)); do
        echo "--- RLIMIT_NPROC=$lim as nobody, 8 threads asked for"
        # timeout outside: under RLIMIT_NPROC=1 it could not fork.
        # LeakSanitizer stops the world from a thread of its own, which the
        # limit refuses too ("LeakSanitizer has encountered a fatal error").
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        timeout 120 sh -c "$as_nobody"' prlimit --nproc="$0" env \
            PORTSORT_BACKEND=openmp PORTSORT_THREADS=8 PORTSORT_VERBOSE=1 "$1" sort' \
            "$lim" "$dir/prog" >"$dir/log" 2>&1
        rc=$?
        cat "$dir/log"
        [ "$rc" -eq 0 ] || fail "the sort under RLIMIT_NPROC=$lim ended the process (exit $rc)"
        if [ "$lim" -eq 1 ]; then
            grep -q "could be started" "$dir/log" ||
                fail "the library did not say it sorted with fewer threads"
        fi
    done
    ran=$((ran + 1))
fi

# The setuid program.  First without the bit: nobody's environment is
# read, and the module is loaded (the control).
if [ -f "$stub" ]; then
    mkdir "$dir/mods" && cp "$stub" "$dir/mods/ps_cuda.so" && chmod -R a+rX "$dir" ||
        exit 1
    run_report() {
        timeout 60 $as_nobody env PS_STUB_ANNOUNCE=1 PORTSORT_MODULE_PATH="$dir/mods" \
            PORTSORT_BACKEND=cuda "$dir/prog" report >"$dir/out" 2>"$dir/err"
        echo "rc $?: $(cat "$dir/out")"
        cat "$dir/err"
    }
    echo "--- as nobody, not setuid: the planted module is loaded"
    run_report
    grep -q "ps_stub: module loaded" "$dir/err" && grep -q "backend cuda" "$dir/out" ||
        fail "the control run did not load the module: the test cannot see a load"
    chown root:root "$dir/prog" && chmod 4755 "$dir/prog" || exit 1
    echo "--- as nobody, setuid root: the environment is not read"
    run_report
    if ! grep -q "^euid 0:" "$dir/out"; then
        echo "the setuid bit was not honoured here (nosuid mount?): setuid case skipped"
    else
        grep -q "ps_stub" "$dir/err" &&
            fail "a setuid-root program loaded a module from the caller's PORTSORT_MODULE_PATH"
        grep -q "backend cuda" "$dir/out" &&
            fail "a setuid-root program took PORTSORT_BACKEND from its caller"
        ran=$((ran + 1))
    fi
else
    echo "no stand-in module $stub: setuid case skipped"
fi
[ "$ran" -gt 0 ] || exit 77
echo "process.sh: passed"
