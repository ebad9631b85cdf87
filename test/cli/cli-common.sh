# Sourced by the test/cli/cli-*.sh scripts: where portsort is, a private scratch
# directory (never the source tree, which is read-only in make distcheck),
# and small assertions.  Not a test itself.
PORTSORT=${top_builddir:-.}/tools/portsort
if [ ! -x "$PORTSORT" ]; then
    echo "portsort not built at $PORTSORT"
    exit 99
fi
# The tool must not pick a GPU or a half-configured backend under test:
# serial is always there and is the oracle.
PORTSORT_BACKEND=${CLI_TEST_BACKEND:-serial}
export PORTSORT_BACKEND
LC_ALL=C
export LC_ALL
work=$(mktemp -d "${TMPDIR:-/tmp}/portsort-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# A test run under nohup, or as a background job of a non-interactive
# shell, starts with SIGHUP or SIGINT ignored, which portsort keeps (as
# GNU sort does), so a raised signal would do nothing and the sort would
# finish.  Cases that expect a signal to end the process run the tool
# through $sigdefault: the default dispositions (env --default-signal,
# coreutils 8.31), or the inherited ones where env cannot give them.
if env --default-signal=INT,TERM,HUP true 2>/dev/null; then
    sigdefault="env --default-signal=INT,TERM,HUP"
else
    sigdefault=
fi

# need_cmd CMD: skip the whole test (77) when a tool it compares with is
# missing here.
need_cmd() {
    command -v "$1" >/dev/null 2>&1 || { echo "$1 not found: skipped"; exit 77; }
}

# same EXPECTED ACTUAL WHAT
same() {
    if cmp -s "$1" "$2"; then
        echo "ok: $3"
    else
        fail "$3"
        diff "$1" "$2" | head -n 10
    fi
}

finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures check(s) failed"
        exit 1
    fi
    echo "all checks passed"
    exit 0
}
