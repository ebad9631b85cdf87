# Sourced by the test/opencl-*.sh scripts: skip when the OpenCL module was
# not built, load it from this build tree, and keep program binaries in a
# private cache directory that is removed at exit.
top=$(cd "${top_builddir:-.}" && pwd)
if [ ! -x "$top/test/ps_test_opencl" ] || [ ! -f "$top/backends/opencl/.libs/ps_opencl.so" ]; then
    echo "OpenCL backend not built: skipped"
    exit 77
fi
PORTSORT_MODULE_PATH="${PORTSORT_MODULE_PATH:+$PORTSORT_MODULE_PATH:}$top/backends/opencl/.libs"
export PORTSORT_MODULE_PATH
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ps-opencl.XXXXXX") || exit 1
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
fail() { echo "FAIL: $*"; exit 1; }
