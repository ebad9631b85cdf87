#!/bin/sh
# The backend-parametrised tests (differential, errors, threads, fork) on
# the HIP backend, with the module of this build tree.  Skipped (77) where
# it cannot run, i.e. on every machine without a HIP GPU (CI): there
# test/gpu-refused.sh checks the refusal instead.
PORTSORT_MODULE_PATH="${PORTSORT_MODULE_PATH:+$PORTSORT_MODULE_PATH:}$(cd "${top_builddir:-.}" && pwd)/backends/hip/.libs"
export PORTSORT_MODULE_PATH
exec "$(dirname "$0")/run-backend.sh" hip
