/*
 * ps_registry.c - the backends this libportsort is built with, in one
 * table.
 *
 * Adding a built-in backend is one line here (and its folder); a module
 * backend needs none: configure's PS_MODULE_NAMES lists the ones this
 * package can build, so that `portsort info` can say "not built", and
 * every ps_<name>.so in the module directories is found by ps_module.c.
 * The rest of the core names no backend.
 */
#include <config.h>

#include "ps_internal.h"

extern const ps_backend_ops ps_serial_ops;
#ifdef PS_HAVE_OPENMP
extern const ps_backend_ops ps_openmp_ops;
#endif

#ifndef PS_MODULE_NAMES
#  define PS_MODULE_NAMES ""
#endif

/* Built in, in the order `portsort info` lists backends of one priority.
 * A backend this build left out keeps its line with NULL, so that it is
 * reported as "not built into this libportsort". */
const ps_builtin ps_builtins[] = {
    { "serial", &ps_serial_ops },
#ifdef PS_HAVE_OPENMP
    { "openmp", &ps_openmp_ops },
#else
    { "openmp", NULL },
#endif
};
const size_t ps_nbuiltins = sizeof ps_builtins / sizeof ps_builtins[0];

const char ps_module_names[] = PS_MODULE_NAMES;
