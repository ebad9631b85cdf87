#!/bin/sh
# Device selection by index and by name substring, a name that matches
# nothing, and a machine without any OpenCL platform (the ICD loader pointed
# at an empty vendor directory): there PORTSORT_BACKEND=opencl is refused
# with a reason while serial and auto keep working.
. "$(dirname "$0")/opencl-env.sh"
PORTSORT_BACKEND=opencl
export PORTSORT_BACKEND
t=$top/test/ps_test_opencl

PORTSORT_OPENCL_DEVICE=0:0 "$t" quick > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "index 0:0"; }
name=$(sed -n 's/^device: //p' "$tmp/out" | cut -c1-6)
[ -n "$name" ] || fail "no device name printed"
PORTSORT_OPENCL_DEVICE=$name "$t" quick > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "substring '$name'"; }

# A bare number is a platform index (its first device), as PyOpenCL's
# PYOPENCL_CTX reads it, never a piece of a name.
PORTSORT_OPENCL_DEVICE=0 "$t" quick > "$tmp/out0" 2>&1 || { cat "$tmp/out0"; fail "platform 0"; }
[ "$(sed -n 's/^device: //p' "$tmp/out0" | cut -c1-6)" = "$name" ] || fail "platform 0: another device"
PORTSORT_OPENCL_DEVICE=7 "$t" quick > "$tmp/out" 2>&1
[ $? -eq 3 ] || { cat "$tmp/out"; fail "platform 7 was not refused"; }
grep -q "no device matches PORTSORT_OPENCL_DEVICE=7" "$tmp/out" || { cat "$tmp/out"; fail "platform 7: reason"; }

PORTSORT_OPENCL_DEVICE=no-such-device-xyz "$t" quick > "$tmp/out" 2>&1
[ $? -eq 3 ] || { cat "$tmp/out"; fail "an unmatched name was not refused"; }
grep -q "no device matches PORTSORT_OPENCL_DEVICE=no-such-device-xyz" "$tmp/out" || { cat "$tmp/out"; fail "reason"; }
PORTSORT_OPENCL_DEVICE=9:9 "$t" quick > "$tmp/out" 2>&1
[ $? -eq 3 ] || fail "index 9:9 was not refused"

# A malformed tuning or algorithm is refused at the one-time choice, naming
# the variable and what it accepts, never replaced by a silent default.
for bad in PORTSORT_OPENCL_TUNE=bogus PORTSORT_OPENCL_TUNE=wg=0 \
        PORTSORT_OPENCL_TUNE=wg=64,wg=64 PORTSORT_OPENCL_TUNE=bits=9 \
        PORTSORT_OPENCL_ALGO=fast; do
    env "$bad" "$t" quick > "$tmp/out" 2>&1
    [ $? -eq 3 ] || { cat "$tmp/out"; fail "$bad was not refused"; }
    grep -q "$bad: invalid value (accepted: " "$tmp/out" || { cat "$tmp/out"; fail "$bad: reason"; }
done

mkdir "$tmp/novendors"
OCL_ICD_VENDORS=$tmp/novendors
export OCL_ICD_VENDORS
"$t" quick > "$tmp/out" 2>&1
[ $? -eq 3 ] || { cat "$tmp/out"; fail "no platform: opencl not refused"; }
grep -q "no OpenCL platform" "$tmp/out" || { cat "$tmp/out"; fail "no platform: reason"; }
PORTSORT_BACKEND=serial "$t" quick > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "no platform: serial"; }
PORTSORT_BACKEND=auto "$t" quick > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "no platform: auto"; }
echo "device selection and the no-platform machine passed"
