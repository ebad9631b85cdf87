# ps_external_common.sh - sourced by the external sort's text benchmarks
# (bench/ps_external_text_bench.sh, bench/ps_external_values_bench.sh) once
# they have set PORTSORT and DIR: the C locale for both sorts, the tools
# they need (exit 2 naming one that is missing), and $DIR/tmp for -T.
LC_ALL=C
export LC_ALL
[ -x "$PORTSORT" ] || { echo "portsort not found at $PORTSORT" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time needed (peak memory)" >&2; exit 2; }
sort --version | grep -q GNU || { echo "GNU sort needed" >&2; exit 2; }
mkdir -p "$DIR/tmp"
