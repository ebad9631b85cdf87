/*
 * ps_module.c - find and load the backends that live in libtool modules
 * (OpenCL, CUDA, HIP, and any other ps_<name>.so), so that libportsort
 * itself never links a GPU runtime and loads on machines that have none.
 *
 * The module directories are, in this order of precedence:
 *  - PORTSORT_MODULE_PATH (colon-separated), when set: it replaces the rest.
 *    Only absolute directories are searched: a relative entry would be
 *    resolved against whatever the current directory happens to be, so a
 *    program run from a directory someone else controls would load their
 *    code.  Relative entries are skipped, which PORTSORT_VERBOSE=1 and the
 *    reason of a backend then not found say.  A privileged (setuid)
 *    process does not read the variable at all (ps_getenv);
 *  - when this libportsort runs uninstalled from its libtool build tree
 *    (it was loaded from <top>/lib/.libs), that tree's backends/NAME/.libs,
 *    so that ./tools/portsort and the tests see the modules built beside
 *    them rather than an older installed set;
 *  - else the module directory beside the library itself, <dir>/PACKAGE
 *    where <dir> holds the file this libportsort.so was loaded from (its
 *    symbolic links resolved), then the directory the package was
 *    configured to install its modules in.  The first keeps the backends
 *    of an installed tree that moved (a DESTDIR staging, a prefix renamed,
 *    a Python wheel); the second is the same directory in a tree that
 *    did not move.
 * Every ps_<name>.so found there names a backend (libfabric's provider
 * scan): a new backend needs no edit of the core.  An absent module is not
 * an error worth shouting about; a present but broken one is, so the caller
 * is told which.
 */
/* dladdr(), which finds the file this library was loaded from, is a GNU
 * and BSD extension that glibc declares only with _GNU_SOURCE. */
#ifndef _GNU_SOURCE
#  define _GNU_SOURCE 1
#endif
#include <config.h>

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ps_internal.h"

#ifndef PS_MODULE_DIR
#  define PS_MODULE_DIR "/usr/local/lib/portsort"
#endif
/* The module directory's name inside the library's directory: PS_MODULE_DIR
 * is $(pkglibdir), which Automake defines as $(libdir)/$(PACKAGE). */
#ifndef PS_MODULE_SUBDIR
#  define PS_MODULE_SUBDIR "portsort"
#endif

/* ------------------------------------------------------------------------
 * The module path.
 * ------------------------------------------------------------------------ */

/* The module directories when PORTSORT_MODULE_PATH is unset: the build
 * tree's, or the one beside the library and the configured one.  Found
 * once: the library does not move while it is loaded. */
static char default_path[4096];
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

/* Append dir to the colon-separated list in buf, when it fits. */
static void path_append(char *buf, size_t len, const char *dir)
{
    size_t used = strlen(buf);
    size_t need = strlen(dir) + (used > 0 ? 1 : 0);
    if (used + need + 1 > len)
        return;
    snprintf(buf + used, len - used, "%s%s", used > 0 ? ":" : "", dir);
}

/* The build tree's backends/NAME/.libs directories into default_path, when
 * file (this library) is <top>/lib/.libs/<name>; returns 1 if it is. */
static int find_build_tree(const char *file)
{
    static const char marker[] = "/lib/.libs/";
    const char *at;
    char top[2048], dirname[2048 + 300];
    DIR *d;
    struct dirent *e;

    /* libtool keeps an uninstalled library in <top>/lib/.libs; no installed
     * library lives in a directory named .libs. */
    at = strstr(file, marker);
    if (at == NULL || strchr(at + sizeof marker - 1, '/') != NULL
        || (size_t)(at - file) >= sizeof top)
        return 0;
    snprintf(top, sizeof top, "%.*s", (int)(at - file), file);
    snprintf(dirname, sizeof dirname, "%s/backends", top);
    d = opendir(dirname);
    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(dirname, sizeof dirname, "%s/backends/%.255s/.libs", top, e->d_name);
        if (stat(dirname, &st) == 0 && S_ISDIR(st.st_mode))
            path_append(default_path, sizeof default_path, dirname);
    }
    closedir(d);
    return default_path[0] != '\0';
}

/* <dir>/PS_MODULE_SUBDIR, where <dir> holds the shared library file (its
 * links resolved), into default_path.  Not for a program that linked
 * libportsort.a: the file is then the program, whose directory (bin/, a
 * build directory) holds no modules of ours. */
static void find_beside_library(const char *file)
{
    char real[4096], dir[4096 + sizeof PS_MODULE_SUBDIR + 1];
    const char *base, *slash;
    if (realpath(file, real) == NULL)
        return;
    slash = strrchr(real, '/');
    base = slash != NULL ? slash + 1 : real;
    if (slash == NULL || strncmp(base, "libportsort", 11) != 0
        || strstr(base, ".so") == NULL)
        return;
    snprintf(dir, sizeof dir, "%.*s/%s", (int)(slash - real), real,
             PS_MODULE_SUBDIR);
    if (strcmp(dir, PS_MODULE_DIR) != 0)
        path_append(default_path, sizeof default_path, dir);
}

static void find_default_path(void)
{
    Dl_info info;
    if (dladdr((void *)ps_module_load, &info) != 0 && info.dli_fname != NULL) {
        if (find_build_tree(info.dli_fname))
            return;
        find_beside_library(info.dli_fname);
    }
    path_append(default_path, sizeof default_path, PS_MODULE_DIR);
}

/* The directories to search, as a colon-separated list.  The environment
 * is read on every call: a test (or a forked child) may set it late. */
static const char *module_path(void)
{
    const char *env = ps_getenv_set("PORTSORT_MODULE_PATH");
    if (env != NULL)
        return env;
    pthread_once(&default_once, find_default_path);
    return default_path;
}

/* The first entry of path that is not an absolute directory, as
 * "'entry'" in buf (cut to fit); "" when every entry is absolute. */
static const char *first_relative(const char *path, char *buf, size_t len)
{
    const char *p = path;
    buf[0] = '\0';
    for (;;) {
        const char *end = strchr(p, ':');
        size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
        if (n > 0 && p[0] != '/') {
            snprintf(buf, len, "'%.*s'", (int)(n < 200 ? n : 200), p);
            return buf;
        }
        if (end == NULL)
            return buf;
        p = end + 1;
    }
}

/* Call fn(dir, dir_len, arg) for each absolute directory of the path until
 * it returns nonzero; returns that value, or 0.  Empty and relative entries
 * are skipped (see the top of this file). */
static int each_dir(const char *path, int (*fn)(const char *, size_t, void *),
                    void *arg)
{
    const char *p = path;
    for (;;) {
        const char *end = strchr(p, ':');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        int r = len > 0 && p[0] == '/' ? fn(p, len, arg) : 0;
        if (r != 0)
            return r;
        if (end == NULL)
            return 0;
        p = end + 1;
    }
}

/* ------------------------------------------------------------------------
 * Discovery: the backend names the module directories hold.
 * ------------------------------------------------------------------------ */

struct scan {
    void (*fn)(const char *name, void *arg);
    void *arg;
};

/* "ps_<name>.so" with a name of lower-case letters, digits and '_' that
 * fits ps_backend_info's users; anything else is not ours. */
static int module_name(const char *file, char *name, size_t name_len)
{
    size_t len = strlen(file), i;
    if (len < 7 || strncmp(file, "ps_", 3) != 0 || strcmp(file + len - 3, ".so") != 0
        || len - 6 >= name_len)
        return -1;
    for (i = 3; i < len - 3; i++) {
        char c = file[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return -1;
    }
    snprintf(name, name_len, "%.*s", (int)(len - 6), file + 3);
    return 0;
}

static int scan_dir(const char *dir, size_t len, void *arg)
{
    struct scan *sc = arg;
    char path[4096];
    DIR *d;
    struct dirent *e;
    if (len >= sizeof path)
        return 0;
    snprintf(path, sizeof path, "%.*s", (int)len, dir);
    d = opendir(path);
    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char name[PS_MODULE_NAME_MAX];
        if (module_name(e->d_name, name, sizeof name) == 0)
            sc->fn(name, sc->arg);
    }
    closedir(d);
    return 0;
}

void ps_module_scan(void (*fn)(const char *name, void *arg), void *arg)
{
    struct scan sc = { fn, arg };
    const char *path = module_path();
    char rel[216];
    if (first_relative(path, rel, sizeof rel)[0] != '\0')
        ps_log("PORTSORT_MODULE_PATH: skipping %s and any other relative "
               "entry: only absolute directories are searched", rel);
    each_dir(path, scan_dir, &sc);
}

/* ------------------------------------------------------------------------
 * Loading.
 * ------------------------------------------------------------------------ */

/* Open one module file, check its table, and keep it loaded.  dlclose on
 * every error path so a broken module leaves nothing mapped. */
static const ps_backend_ops *open_module(const char *path, const char *name,
                                         char *why, size_t why_len)
{
    void *handle;
    const ps_backend_ops *ops;
    const char *err;
    char what[160];

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
    if (ps_ops_check(ops, what, sizeof what) != 0) {
        snprintf(why, why_len, "%s has %s: rebuild it against this "
                 "libportsort", path, what);
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

/* dl_iterate_phdr reports the main program first: stop there, with 1
 * when it names a program interpreter (the dynamic loader). */
static int main_has_interp(struct dl_phdr_info *info, size_t size, void *arg)
{
    ElfW(Half) i;
    (void)size;
    for (i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_INTERP)
            *(int *)arg = 1;
    return 1;
}

/* A statically linked program (libportsort.a linked with -static) has no
 * dynamic loader: glibc's dlopen there maps a module together with a
 * second C library that shares neither malloc nor the threads' state with
 * the program's, and the module's first call into its GPU runtime (which
 * starts threads) crashes the process.  Such a program keeps its
 * built-in backends, and is told why the modules are not loaded. */
static int program_is_static(void)
{
    int interp = 0;
    dl_iterate_phdr(main_has_interp, &interp);
    return !interp;
}

struct find {
    const char *name;
    char file[4096];
};

static int find_in_dir(const char *dir, size_t len, void *arg)
{
    struct find *f = arg;
    if (len >= sizeof f->file - 64)
        return 0;
    snprintf(f->file, sizeof f->file, "%.*s/ps_%s.so", (int)len, dir, f->name);
    return access(f->file, F_OK) == 0;
}

const ps_backend_ops *ps_module_load(const char *name, int *present,
                                     char *why, size_t why_len)
{
    struct find f;
    const char *path = module_path();

    *present = 0;
    f.name = name;
    if (each_dir(path, find_in_dir, &f) != 0) {
        *present = 1;
        if (program_is_static()) {
            snprintf(why, why_len, "%s is not loaded: this program is linked "
                     "statically, and a module needs the dynamic loader (link "
                     "the program with libportsort.so to use it)", f.file);
            return NULL;
        }
        ps_log("%s: trying module %s", name, f.file);
        return open_module(f.file, name, why, why_len);
    }
    {
        char rel[216];
        first_relative(path, rel, sizeof rel);
        snprintf(why, why_len, "module ps_%s.so not found in %s%s%s%s", name, path,
                 rel[0] != '\0' ? " (skipped " : "", rel,
                 rel[0] != '\0' ? " and any other relative entry: only "
                                  "absolute directories are searched)" : "");
    }
    return NULL;
}
