/*
 * ps_gpu_arch.c - is a device's AMD target among a module's (ps_gpu_arch.h).
 *
 * A target ID is a processor name and features, "gfx90a:sramecc+:xnack-"
 * (LLVM's AMDGPU usage guide, "Target ID").  The device reports every
 * feature it has a setting for; a code object compiled without naming a
 * feature runs with either setting, one compiled with "xnack+" only where
 * XNACK is on.  So an entry matches when the processor names are equal and
 * each feature the entry names appears, with the same sign, on the device.
 */
#include <config.h>

#include <string.h>

#include "ps_gpu_arch.h"

/* Length of the token at s, up to a separator (space, tab, comma) or
 * the end. */
static size_t token_len(const char *s)
{
    return strcspn(s, " \t,");
}

/* Whether the feature f (length n, "xnack-") is in the feature list of
 * the device's target ID, after its processor name. */
static int has_feature(const char *dev_features, const char *f, size_t n)
{
    const char *p = dev_features;
    while (p != NULL && *p == ':') {
        size_t m = strcspn(p + 1, ":");
        if (m == n && memcmp(p + 1, f, n) == 0)
            return 1;
        p = strchr(p + 1, ':');
    }
    return 0;
}

/* Whether the entry e (length n) runs on the device whose processor name
 * is dev (length dn) and whose features follow at dev + dn. */
static int entry_runs(const char *e, size_t n, const char *dev, size_t dn)
{
    size_t en = strcspn(e, ":");
    const char *f;
    if (en > n)
        en = n;
    if (en != dn || memcmp(e, dev, dn) != 0)
        return 0;
    f = e + en;
    while (f < e + n && *f == ':') {
        size_t m = strcspn(f + 1, ":");
        if (f + 1 + m > e + n)
            m = (size_t)(e + n - (f + 1));
        if (!has_feature(dev + dn, f + 1, m))
            return 0;
        f += 1 + m;
    }
    return 1;
}

int ps_gpu_arch_listed(const char *device, const char *built)
{
    size_t dn;
    const char *p;
    int generic = 0;

    if (device == NULL || device[0] == '\0' || built == NULL)
        return -1;
    dn = strcspn(device, ":");
    for (p = built; *p != '\0';) {
        size_t n = token_len(p), pn = strcspn(p, ":");
        const char *g = strstr(p, "-generic");
        if (n == 0) {
            p++;
            continue;
        }
        if (entry_runs(p, n, device, dn))
            return 1;
        if (g != NULL && g < p + (pn < n ? pn : n))
            generic = 1;
        p += n;
    }
    return generic ? -1 : 0;
}
