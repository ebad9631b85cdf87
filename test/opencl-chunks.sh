#!/bin/sh
# Host arrays larger than the device holds (issue 32, part 2): with the
# OpenCL module's buffers capped by PORTSORT_TEST_DEVICE_MEMORY, the core
# sorts in pieces and merges them (lib/ps_chunks.c); ps_test_device_chunks
# checks the result against the oracle on every type (pocl in CI).
. "$(dirname "$0")/opencl-env.sh"
PORTSORT_BACKEND=opencl "$top/test/ps_test_device_chunks"
