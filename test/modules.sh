#!/bin/sh
# Module loading, ABI checks and the backend choice, with stand-in modules.
exec "${top_builddir:-.}/test/ps_test_modules"
