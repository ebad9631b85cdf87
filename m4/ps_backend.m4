# ps_backend.m4 - helpers shared by the backends' configure.m4 fragments.

# PS_BACKEND_RESULT(NAME)
# -----------------------
# Called at the end of backends/NAME/configure.m4, which configure.ac pulls
# in with one m4_include line per backend.  The fragment sets ps_NAME_enabled
# to yes or no and calls AM_CONDITIONAL for PS_HAVE_<NAME> itself; this adds
# NAME to the summary.  A fragment that checks for a runtime must save and
# restore CPPFLAGS, LDFLAGS and LIBS (PS_SAVE_FLAGS / PS_RESTORE_FLAGS) so
# that backend flags never leak into the core's link line.
AC_DEFUN([PS_BACKEND_RESULT],
[AS_IF([test "x$ps_$1_enabled" = xyes],
       [ps_backends_enabled="$ps_backends_enabled $1"])
])

# PS_SAVE_FLAGS / PS_RESTORE_FLAGS
# --------------------------------
AC_DEFUN([PS_SAVE_FLAGS],
[ps_save_CPPFLAGS=$CPPFLAGS ps_save_CFLAGS=$CFLAGS ps_save_LDFLAGS=$LDFLAGS ps_save_LIBS=$LIBS])
AC_DEFUN([PS_RESTORE_FLAGS],
[CPPFLAGS=$ps_save_CPPFLAGS CFLAGS=$ps_save_CFLAGS LDFLAGS=$ps_save_LDFLAGS LIBS=$ps_save_LIBS])

# PS_BACKEND_MODULE(NAME)
# -----------------------
# Called by the configure.m4 of a backend built as a loadable module
# (ps_NAME.so), whether or not this configuration builds it: the core lists
# NAME among the backends it knows (PS_MODULE_NAMES), so that `portsort info`
# can say "not built" rather than leave it out.  Modules this list does not
# name are still found, by scanning the module directories.
AC_DEFUN([PS_BACKEND_MODULE],
[ps_module_names="$ps_module_names $1"])
