# ps_fuzz.m4 - --enable-fuzzing builds the libFuzzer target (needs clang).

AC_DEFUN([PS_CHECK_FUZZING],
[AC_ARG_ENABLE([fuzzing],
  [AS_HELP_STRING([--enable-fuzzing],
    [build the libFuzzer target test/fuzz/ps_fuzz_sort (CC must be clang;
     add -fsanitize=fuzzer-no-link,address,undefined to CFLAGS)])],
  [], [enable_fuzzing=no])
AS_IF([test "x$enable_fuzzing" = xyes],
  [ps_save_LDFLAGS=$LDFLAGS ps_save_CFLAGS=$CFLAGS
   CFLAGS="$CFLAGS -fsanitize=fuzzer" LDFLAGS="$LDFLAGS -fsanitize=fuzzer"
   AC_MSG_CHECKING([whether $CC links libFuzzer targets])
   AC_LINK_IFELSE([AC_LANG_SOURCE([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }]])],
     [AC_MSG_RESULT([yes])],
     [AC_MSG_RESULT([no])
      AC_MSG_ERROR([--enable-fuzzing needs a compiler with libFuzzer: CC=clang (Debian: clang, libclang-rt-14-dev)])])
   LDFLAGS=$ps_save_LDFLAGS CFLAGS=$ps_save_CFLAGS])
AM_CONDITIONAL([PS_FUZZ], [test "x$enable_fuzzing" = xyes])
])
