/*
 * ps_module.c - load optional backends (OpenCL, CUDA, HIP) from libtool
 * modules, so that libportsort itself never links a GPU runtime and loads
 * on machines that have none.
 *
 * A module is ps_<name>.so in one of the directories of PORTSORT_MODULE_PATH
 * (colon-separated; it replaces the default) or else in the directory the
 * package installed its modules in.  An absent module is not an error worth
 * shouting about; a present but broken one is, so the caller is told which.
 */
#include <config.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ps_internal.h"

#ifndef PS_MODULE_DIR
#  define PS_MODULE_DIR "/usr/local/lib/portsort"
#endif

/* Open one module file, check its table, and keep it loaded.  dlclose on
 * every error path so a broken module leaves nothing mapped. */
static const ps_backend_ops *open_module(const char *path, const char *name,
                                         char *why, size_t why_len)
{
    void *handle;
    const ps_backend_ops *ops;
    const char *err;

    dlerror();
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        err = dlerror();
        snprintf(why, why_len, "cannot load %s: %s", path,
                 err != NULL ? err : "unknown error");
        return NULL;
    }
    ops = (const ps_backend_ops *)dlsym(handle, PS_BACKEND_ENTRY_NAME);
    if (ops == NULL) {
        snprintf(why, why_len, "%s has no symbol %s", path, PS_BACKEND_ENTRY_NAME);
        dlclose(handle);
        return NULL;
    }
    if (ops->abi != PS_BACKEND_ABI) {
        snprintf(why, why_len, "%s has backend ABI %u, this libportsort needs %u",
                 path, ops->abi, PS_BACKEND_ABI);
        dlclose(handle);
        return NULL;
    }
    if (ops->name == NULL || strcmp(ops->name, name) != 0 || ops->probe == NULL
        || ops->init == NULL || ops->sort_keys == NULL || ops->sort_pairs == NULL) {
        snprintf(why, why_len, "%s is not a complete '%s' backend", path, name);
        dlclose(handle);
        return NULL;
    }
    /* The handle is deliberately kept: the table lives in the module. */
    return ops;
}

/* The first ps_<name>.so on the module path, in file; 0 when found. */
static int find_module(const char *name, char *file, size_t file_len,
                       const char **searched)
{
    const char *env = getenv("PORTSORT_MODULE_PATH");
    const char *path = (env != NULL && env[0] != '\0') ? env : PS_MODULE_DIR;
    const char *p = path;

    *searched = path;
    while (*p != '\0') {
        const char *end = strchr(p, ':');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len > 0 && len < file_len - 64) {
            snprintf(file, file_len, "%.*s/ps_%s.so", (int)len, p, name);
            if (access(file, F_OK) == 0)
                return 0;
        }
        if (end == NULL)
            break;
        p = end + 1;
    }
    return -1;
}

const ps_backend_ops *ps_module_load(const char *name, int *present,
                                     char *why, size_t why_len)
{
    char file[4096];
    const char *path;

    *present = 0;
    if (find_module(name, file, sizeof file, &path) == 0) {
        *present = 1;
        ps_log("%s: trying module %s", name, file);
        return open_module(file, name, why, why_len);
    }
    snprintf(why, why_len, "module ps_%s.so not found in %s", name, path);
    return NULL;
}

void *ps_module_symbol(const char *name, const char *symbol, char *why,
                       size_t why_len)
{
    char file[4096];
    const char *path, *err;
    void *handle, *sym;

    if (find_module(name, file, sizeof file, &path) != 0) {
        snprintf(why, why_len, "module ps_%s.so not found in %s", name, path);
        return NULL;
    }
    /* A second dlopen of a loaded module only takes a reference. */
    dlerror();
    handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        err = dlerror();
        snprintf(why, why_len, "cannot load %s: %s", file,
                 err != NULL ? err : "unknown error");
        return NULL;
    }
    sym = dlsym(handle, symbol);
    if (sym == NULL) {
        snprintf(why, why_len, "%s has no symbol %s", file, symbol);
        dlclose(handle);
        return NULL;
    }
    /* Kept loaded: the caller holds pointers into it. */
    return sym;
}
