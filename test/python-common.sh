# Sourced by test/python.sh and test/wheel.sh: find_python MODULES... sets
# $python to the first interpreter that imports every module named:
# $PYTHON, python3 on PATH (which may be a private Python without Debian's
# python3-numpy), then the system one; empty when none does.
find_python() {
    python=
    for p in "${PYTHON:-}" python3 /usr/bin/python3; do
        [ -n "$p" ] || continue
        if "$p" -c "import $(echo "$@" | tr ' ' ',')" >/dev/null 2>&1; then
            python=$p
            return 0
        fi
    done
    return 1
}
