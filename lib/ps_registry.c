/*
 * ps_registry.c - the backends this libportsort is built with, in one
 * table, and how the core takes any backend's ops table in.
 *
 * Adding a built-in backend is one line here (and its folder); a module
 * backend needs none: configure's PS_MODULE_NAMES lists the ones this
 * package can build, so that `portsort info` can say "not built", and
 * every ps_<name>.so in the module directories is found by ps_module.c.
 * The rest of the core names no backend.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

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

int ps_ops_check(const ps_backend_ops *in, char *why, size_t why_len)
{
    /* abi first: a table of another ABI may have no size member at all. */
    if (in->abi != PS_BACKEND_ABI) {
        snprintf(why, why_len, "backend ABI %u, this libportsort needs %u",
                 in->abi, PS_BACKEND_ABI);
        return -1;
    }
    if (in->size < PS_BACKEND_OPS_MIN) {
        snprintf(why, why_len, "an ops table of %zu bytes, shorter than the "
                 "%zu bytes of the members every backend must have",
                 in->size, (size_t)PS_BACKEND_OPS_MIN);
        return -1;
    }
    return 0;
}

int ps_ops_adopt(ps_backend_ops *out, const ps_backend_ops *in, char *why,
                 size_t why_len)
{
    size_t have;
    memset(out, 0, sizeof *out);
    if (ps_ops_check(in, why, why_len) != 0)
        return -1;
    /* The part both sides know: never more of *in than its backend built
     * (reading past it reads another object), never more than *out holds
     * (a newer backend's extra members mean nothing to this core).  The
     * rest of *out stays NULL and 0, each member's documented default. */
    have = in->size < sizeof *out ? in->size : sizeof *out;
    memcpy(out, in, have);
    out->size = sizeof *out;
    return 0;
}
