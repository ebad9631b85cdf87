/*
 * ps_dispatch.c - the backends libportsort knows, and the one-time choice
 * among them.
 *
 * The registry holds the backends built into the library (serial, OpenMP),
 * the module backends this package can build (configure's PS_MODULE_NAMES,
 * so that `portsort info` can say "not built"), and every ps_<name>.so the
 * module directories hold (ps_module.c).  The core knows no backend by
 * name beyond that list: the order `auto` tries them in and whether one
 * needs a GPU come from each backend's ops table (priority, device).
 *
 * The choice happens once per process, behind pthread_once, from
 * PORTSORT_BACKEND, after every variable the library reads has been
 * checked (check_environment): a malformed one fails the choice with
 * PS_ERR_INVALID_ARG, whichever backend it belongs to.  A named backend that cannot run is an error with a
 * reason, never a silent fallback: users who ask for the GPU must learn that
 * they are not getting it.  "auto" walks the backends from the highest
 * priority down, taking a device backend only when its device is a GPU;
 * serial always works.
 *
 * A backend whose device is lost mid-process (a kernel fault kills a GPU
 * context for good) tells the core through ps_host.lost; from then on
 * `auto` sorts on the CPU, and a named backend fails with the reason.
 */
#include <config.h>

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_internal.h"

extern const ps_backend_ops ps_serial_ops;
#ifdef PS_HAVE_OPENMP
extern const ps_backend_ops ps_openmp_ops;
#endif

#ifndef PS_MODULE_NAMES
#  define PS_MODULE_NAMES ""
#endif

typedef struct slot {
    char name[PS_MODULE_NAME_MAX];
    const ps_backend_ops *builtin;  /* compiled in; NULL otherwise */
    int module;                     /* 1: looked for as ps_<name>.so */
    /* Filled once by load_slot(), under probe_lock. */
    int loaded;
    int present;                    /* a module file was found */
    const ps_backend_ops *ops;      /* NULL when not built or broken */
    int env_bad;                    /* its check_env refused a variable */
    /* Filled once by probe_slot(), under probe_lock (result.detail also
     * by load_slot, when the backend does not load or env_bad). */
    int probed;
    ps_probe result;
    /* Filled once by init_slot(), under init_lock. */
    int inited;
    int init_status;
    void *state;
    char init_why[384];
    /* Set once by ps_backend_lost(), lost last (release), so a reader that
     * sees lost (acquire) sees lost_why complete. */
    int lost;
    char lost_why[384];
} slot;

/* Room for the built-in backends and the modules found: a directory with
 * more ps_*.so files than this has its extra ones ignored. */
#define MAX_SLOTS 32

static slot slots[MAX_SLOTS];
static size_t nslots;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

static slot *lookup(const char *name)
{
    size_t i;
    for (i = 0; i < nslots; i++)
        if (strcmp(slots[i].name, name) == 0)
            return &slots[i];
    return NULL;
}

static void add_slot(const char *name, size_t len, const ps_backend_ops *builtin,
                     int module)
{
    slot *s;
    char key[PS_MODULE_NAME_MAX];
    if (len == 0 || len >= sizeof key || nslots == MAX_SLOTS)
        return;
    snprintf(key, sizeof key, "%.*s", (int)len, name);
    if (lookup(key) != NULL)
        return;
    s = &slots[nslots++];
    memcpy(s->name, key, sizeof key);
    s->builtin = builtin;
    s->module = module;
}

static void add_found_module(const char *name, void *arg)
{
    (void)arg;
    add_slot(name, strlen(name), NULL, 1);
}

/* Once per process, at the first use of the registry (which is also when
 * PORTSORT_MODULE_PATH is read for the scan). */
static void build_registry(void)
{
    const char *p = PS_MODULE_NAMES;

    add_slot("serial", 6, &ps_serial_ops, 0);
#ifdef PS_HAVE_OPENMP
    add_slot("openmp", 6, &ps_openmp_ops, 0);
#else
    add_slot("openmp", 6, NULL, 0);     /* reported as not built in */
#endif
    while (*p != '\0') {
        size_t len = strcspn(p, " ");
        add_slot(p, len, NULL, 1);
        p += len;
        p += strspn(p, " ");
    }
    ps_module_scan(add_found_module, NULL);
}

static slot *find_slot(const char *name)
{
    pthread_once(&registry_once, build_registry);
    return lookup(name);
}

static int is_lost(const slot *s)
{
    return __atomic_load_n(&s->lost, __ATOMIC_ACQUIRE);
}

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
/* Separate from probe_lock: a backend's init may take seconds (device
 * contexts, kernel builds) and must not hold up ps_backends(). */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lost_lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------------------
 * fork().
 *
 * fork() copies the locks of the core as they are, held or not, into a
 * child with one thread; a lock that another thread of the parent held
 * would stay held there forever, and the child's first call would hang.
 * So the handlers below take every lock of the core before the fork and
 * release it on both sides after: the child starts with each one free and
 * the state it guards whole (a probe or an init that was running in
 * another thread has finished, so the fork may wait for one).  They are
 * registered by a constructor, not at the first call, because what the
 * child must know is whether it is a child at all, whenever the fork
 * happened: the OpenMP backend registers its own the same way.
 *
 * A backend's probe or init may itself fork (a driver running a compiler
 * or linker), in the thread that holds probe_lock or init_lock: the
 * prepare handler skips the locks its own thread holds, which it could
 * never take, and the child (which only execs) inherits them held.
 * ------------------------------------------------------------------------ */

enum { HOLD_PROBE = 1, HOLD_INIT = 2, HOLD_LOST = 4 };
/* The core locks this thread holds, and those its prepare handler took. */
static _Thread_local unsigned holding, fork_took;

static void lock_core(pthread_mutex_t *m, unsigned bit)
{
    pthread_mutex_lock(m);
    holding |= bit;
}

static void unlock_core(pthread_mutex_t *m, unsigned bit)
{
    holding &= ~bit;
    pthread_mutex_unlock(m);
}

/* In lock order: init_lock is held across a backend's init, which may
 * report a lost device (lost_lock); probe_lock is never held with another. */
static struct { pthread_mutex_t *m; unsigned bit; } const core_locks[] = {
    { &init_lock, HOLD_INIT }, { &probe_lock, HOLD_PROBE }, { &lost_lock, HOLD_LOST },
};
#define N_CORE_LOCKS (sizeof core_locks / sizeof core_locks[0])

/* Device runtimes do not survive fork(): the child inherits a copy of the
 * parent's runtime state without the threads and driver connections behind
 * it (pocl's child hangs in its first call; CUDA and ROCm document the
 * same).  So once a module has been loaded, a child process refuses every
 * module backend with a reason, and never calls a module's release (at its
 * exit, release_backends), while the built-in CPU backends keep working. */
static int module_loaded;       /* set under probe_lock */
static int forked_child;

static void fork_prepare(void)
{
    size_t i;
    fork_took = 0;
    for (i = 0; i < N_CORE_LOCKS; i++) {
        if (holding & core_locks[i].bit)
            continue;
        pthread_mutex_lock(core_locks[i].m);
        fork_took |= core_locks[i].bit;
    }
}

static void fork_release(void)
{
    size_t i = N_CORE_LOCKS;
    while (i-- > 0)
        if (fork_took & core_locks[i].bit)
            pthread_mutex_unlock(core_locks[i].m);
    fork_took = 0;
}

static void fork_child(void)
{
    if (module_loaded)
        forked_child = 1;
    fork_release();
}

__attribute__((constructor)) static void watch_forks(void)
{
    pthread_atfork(fork_prepare, fork_release, fork_child);
}

static int refused_after_fork(const slot *s)
{
    if (!forked_child || !s->module)
        return 0;
    ps_detail_set("backend %s was loaded before this process was forked; device "
                  "runtimes cannot be used in a forked child", s->name);
    return 1;
}

/* ------------------------------------------------------------------------
 * Loading and probing.
 * ------------------------------------------------------------------------ */

/* 1 for a backend that sorts on a device (see ps_backend_ops.device). */
static int is_device(const slot *s)
{
    return s->ops != NULL && s->ops->device;
}

/* Load a backend (a module's file, or the built-in table) and check its
 * environment variables, once; under probe_lock.  A backend whose
 * check_env refuses a variable is never probed: it is reported unusable
 * with the refusal, and the choice fails on it (check_environment). */
static void load_slot(slot *s)
{
    char why[sizeof s->result.detail];
    if (s->loaded)
        return;
    s->loaded = 1;
    if (s->builtin != NULL) {
        s->ops = s->builtin;
    } else if (s->module) {
        s->ops = ps_module_load(s->name, &s->present, s->result.detail,
                                sizeof s->result.detail);
        if (s->ops != NULL)
            module_loaded = 1;
    } else {
        snprintf(s->result.detail, sizeof s->result.detail,
                 "not built into this libportsort (configure --enable-%s)",
                 s->name);
    }
    if (s->ops != NULL && s->ops->check_env != NULL) {
        why[0] = '\0';
        if (s->ops->check_env(why, sizeof why) != 0) {
            s->env_bad = 1;
            memcpy(s->result.detail, why, sizeof why);
            s->result.detail[sizeof s->result.detail - 1] = '\0';
        }
    }
}

static slot *probe_slot(slot *s)
{
    lock_core(&probe_lock, HOLD_PROBE);
    if (!s->probed) {
        s->probed = 1;
        load_slot(s);
        if (s->ops != NULL && !s->env_bad) {
            memset(&s->result, 0, sizeof s->result);
            s->ops->probe(&s->result);
            s->result.detail[sizeof s->result.detail - 1] = '\0';
        }
        ps_log("%s: %s%s", s->name,
               s->ops == NULL ? (s->present ? "broken: " : "not available: ")
               : s->env_bad ? "refused: "
               : s->result.usable ? "usable: " : "unusable: ",
               s->result.detail);
    }
    unlock_core(&probe_lock, HOLD_PROBE);
    return s;
}

/* Once, at the choice: every variable the library knows, whichever backend
 * is chosen: the core's own (PORTSORT_VERBOSE, PORTSORT_GPU_MIN_N) and
 * each backend's, through its check_env, so that every backend found is
 * loaded (not probed) here.  The first malformed one is the reason. */
static int check_environment(char *why, size_t why_len)
{
    unsigned long long min_n;
    size_t i;
    if (ps_verbose_check(why, why_len) < 0
        || ps_env_number("PORTSORT_GPU_MIN_N", 0, SIZE_MAX, &min_n, why, why_len) < 0)
        return -1;
    pthread_once(&registry_once, build_registry);
    for (i = 0; i < nslots; i++) {
        slot *s = &slots[i];
        int bad;
        lock_core(&probe_lock, HOLD_PROBE);
        load_slot(s);
        bad = s->env_bad;
        if (bad)
            snprintf(why, why_len, "%s", s->result.detail);
        unlock_core(&probe_lock, HOLD_PROBE);
        if (bad)
            return -1;
    }
    return 0;
}

/* Probe every backend, and write their indices into idx from the highest
 * priority down (ties in registry order; backends that did not load last).
 * Returns how many there are. */
static size_t ranked(size_t idx[MAX_SLOTS])
{
    size_t i, j, n;
    pthread_once(&registry_once, build_registry);
    n = nslots;
    for (i = 0; i < n; i++) {
        int pi = probe_slot(&slots[i])->ops != NULL ? slots[i].ops->priority : INT_MIN;
        for (j = i; j > 0; j--) {
            const slot *prev = &slots[idx[j - 1]];
            if ((prev->ops != NULL ? prev->ops->priority : INT_MIN) >= pi)
                break;
            idx[j] = idx[j - 1];
        }
        idx[j] = i;
    }
    return n;
}

/* The outcome of the one-time choice. */
static struct {
    int status;
    const ps_backend_ops *ops;
    void *state;
    slot *slot;             /* the chosen backend's */
    int is_auto;            /* chosen by auto: may fall back to the CPU */
    char why[640];
    size_t min_n;           /* under auto: smaller sorts go to the CPU */
    const ps_backend_ops *cpu_ops;  /* ... this one, initialised at choice */
    void *cpu_state;
} chosen;
static pthread_once_t choose_once = PTHREAD_ONCE_INIT;

/* Initialise a usable backend once per process, whether it was chosen or
 * reached through ps_device_api(). */
static int init_slot(slot *s)
{
    int st;
    lock_core(&init_lock, HOLD_INIT);
    if (!s->inited) {
        void *state = NULL;
        s->inited = 1;
        ps_detail_clear();
        st = s->ops->init(ps_host_get(), &state);
        s->init_status = st;
        if (st == PS_OK) {
            s->state = state;
        } else {
            snprintf(s->init_why, sizeof s->init_why, "%s: init failed: %s%s%s",
                     s->name, ps_strerror(st), ps_error_detail()[0] ? ": " : "",
                     ps_error_detail());
            ps_log("%s", s->init_why);
        }
    }
    st = s->init_status;
    unlock_core(&init_lock, HOLD_INIT);
    return st;
}

static int try_init(slot *s)
{
    if (init_slot(s) != PS_OK) {
        snprintf(chosen.why, sizeof chosen.why, "%s", s->init_why);
        return s->init_status;
    }
    chosen.ops = s->ops;
    chosen.state = s->state;
    chosen.slot = s;
    chosen.status = PS_OK;
    ps_log("using backend %s (%s)", s->name, s->result.detail);
    return PS_OK;
}

/* Under auto, a GPU backend's crossover: PORTSORT_GPU_MIN_N overrides the
 * probe's provisional value (so it can be measured and set per machine).
 * The CPU backend that takes the small arrays is found and initialised here,
 * once, so that small sorts take no lock on their way. */
/* The CPU backend `auto` hands work to (small arrays, a lost device):
 * OpenMP when built and usable, else serial; NULL only if neither inits. */
static slot *cpu_slot(void)
{
    size_t idx[MAX_SLOTS], i, n = ranked(idx);
    for (i = 0; i < n; i++) {
        slot *c = &slots[idx[i]];
        if (c->ops != NULL && !c->ops->device && c->result.usable
            && init_slot(c) == PS_OK)
            return c;
    }
    return NULL;
}

static void set_crossover(const slot *s)
{
    unsigned long long env;
    char why[160];
    slot *c;
    chosen.min_n = s->result.min_n;
    /* Checked at the choice (check_environment): well-formed here. */
    if (ps_env_number("PORTSORT_GPU_MIN_N", 0, SIZE_MAX, &env, why, sizeof why) == 1)
        chosen.min_n = (size_t)env;
    c = chosen.min_n > 0 ? cpu_slot() : NULL;
    if (c != NULL) {
        chosen.cpu_ops = c->ops;
        chosen.cpu_state = c->state;
        ps_log("auto: host arrays of fewer than %zu keys go to %s",
               chosen.min_n, c->name);
        return;
    }
    chosen.min_n = 0;   /* no CPU backend: the GPU sorts everything */
}

static void choose_named(const char *name)
{
    slot *s = find_slot(name);
    if (s == NULL) {
        char known[256] = "auto";
        size_t i;
        for (i = 0; i < nslots; i++) {
            size_t used = strlen(known), len = strlen(slots[i].name);
            if (used + len + 3 > sizeof known)
                break;
            memcpy(known + used, ", ", 2);
            memcpy(known + used + 2, slots[i].name, len + 1);
        }
        snprintf(chosen.why, sizeof chosen.why,
                 "PORTSORT_BACKEND=%s: unknown backend (known: %s)", name, known);
        ps_log("%s", chosen.why);
        return;
    }
    probe_slot(s);
    if (s->ops == NULL || !s->result.usable) {
        snprintf(chosen.why, sizeof chosen.why, "PORTSORT_BACKEND=%s: %s",
                 name, s->result.detail);
        ps_log("%s", chosen.why);
        return;
    }
    try_init(s);
}

static void choose_auto(void)
{
    size_t idx[MAX_SLOTS], i, n = ranked(idx);
    for (i = 0; i < n; i++) {
        slot *s = &slots[idx[i]];
        if (s->ops == NULL || !s->result.usable)
            continue;
        /* A device backend is worth it only on a GPU (OpenCL on pocl is
         * slower than OpenMP). */
        if (is_device(s) && !s->result.gpu) {
            ps_log("%s: skipped by auto: its device is not a GPU", s->name);
            continue;
        }
        if (try_init(s) == PS_OK) {
            if (is_device(s))
                set_crossover(s);
            return;
        }
    }
}

static void choose(void)
{
    const char *env = ps_getenv_set("PORTSORT_BACKEND");
    chosen.status = PS_ERR_BACKEND_UNAVAILABLE;
    if (check_environment(chosen.why, sizeof chosen.why) != 0) {
        chosen.status = PS_ERR_INVALID_ARG;
        ps_log("%s", chosen.why);
        return;
    }
    chosen.is_auto = env == NULL || strcmp(env, "auto") == 0;
    if (chosen.is_auto)
        choose_auto();
    else
        choose_named(env);
    if (chosen.status != PS_OK && chosen.why[0] == '\0')
        snprintf(chosen.why, sizeof chosen.why, "no usable backend");
}

int ps_backend_get(const ps_backend_ops **ops, void **state)
{
    pthread_once(&choose_once, choose);
    if (chosen.status != PS_OK) {
        ps_detail_set("%s", chosen.why);
        return chosen.status;
    }
    if (refused_after_fork(chosen.slot))
        return PS_ERR_BACKEND_UNAVAILABLE;
    if (chosen.slot != NULL && is_lost(chosen.slot)) {
        /* The crossover's CPU backend when there is one (no locks on the
         * way); else find one, as the crossover would have. */
        slot *c = !chosen.is_auto || chosen.cpu_ops != NULL ? NULL : cpu_slot();
        if (chosen.is_auto && chosen.cpu_ops != NULL) {
            *ops = chosen.cpu_ops;
            *state = chosen.cpu_state;
            return PS_OK;
        }
        if (c == NULL) {
            ps_detail_set("%s", chosen.slot->lost_why);
            return PS_ERR_DEVICE;
        }
        *ops = c->ops;
        *state = c->state;
        return PS_OK;
    }
    *ops = chosen.ops;
    *state = chosen.state;
    return PS_OK;
}

void ps_backend_lost(const char *name, const char *why)
{
    slot *s = name != NULL ? find_slot(name) : NULL;
    if (s == NULL)
        return;
    lock_core(&lost_lock, HOLD_LOST);
    if (!s->lost) {
        snprintf(s->lost_why, sizeof s->lost_why, "%s: device lost: %s; "
                 "restart the process to use it again%s", name,
                 why != NULL ? why : "(no reason given)",
                 chosen.is_auto && chosen.slot == s
                     ? " (PORTSORT_BACKEND=auto: sorting on the CPU)" : "");
        __atomic_store_n(&s->lost, 1, __ATOMIC_RELEASE);
        ps_log("%s", s->lost_why);
    }
    unlock_core(&lost_lock, HOLD_LOST);
}

int ps_backend_for(size_t n, const ps_backend_ops **ops, void **state)
{
    int st = ps_backend_get(ops, state);
    if (st == PS_OK && n < chosen.min_n) {
        *ops = chosen.cpu_ops;
        *state = chosen.cpu_state;
    }
    return st;
}

int ps_init(void)
{
    const ps_backend_ops *ops = NULL;
    void *state = NULL;
    ps_detail_clear();
    return ps_backend_get(&ops, &state);
}

const char *ps_backend_name(void)
{
    const ps_backend_ops *ops = NULL;
    void *state = NULL;
    if (ps_backend_get(&ops, &state) != PS_OK)
        return "none";
    return ops->name;
}

int ps_release_cache(void)
{
    const ps_backend_ops *ops = NULL;
    void *state = NULL;
    int st;
    ps_detail_clear();
    st = ps_backend_get(&ops, &state);
    if (st == PS_OK && ops->trim != NULL)
        ops->trim(state);
    return st;
}

const void *ps_device_api(const char *name)
{
    slot *s;
    ps_detail_clear();
    s = name != NULL ? find_slot(name) : NULL;
    if (s == NULL) {
        ps_detail_set("ps_device_api: unknown backend '%s'", name ? name : "(null)");
        return NULL;
    }
    if (refused_after_fork(s))
        return NULL;
    probe_slot(s);
    if (s->ops == NULL || !s->result.usable) {
        ps_detail_set("ps_device_api: %s: %s", name, s->result.detail);
        return NULL;
    }
    if (s->ops->device_api == NULL) {
        ps_detail_set("ps_device_api: backend %s has no device API", name);
        return NULL;
    }
    if (is_lost(s)) {
        ps_detail_set("ps_device_api: %s", s->lost_why);
        return NULL;
    }
    if (init_slot(s) != PS_OK) {
        ps_detail_set("ps_device_api: %s", s->init_why);
        return NULL;
    }
    return s->ops->device_api;
}

size_t ps_backends(ps_backend_info *out, size_t max)
{
    size_t idx[MAX_SLOTS], i, n = ranked(idx);
    ps_detail_clear();
    if (out == NULL && max > 0) {
        ps_detail_set("ps_backends: out is NULL with max %zu: nothing written "
                      "(pass max 0 to only count the backends)", max);
        max = 0;
    }
    for (i = 0; i < n && i < max; i++) {
        const slot *s = &slots[idx[i]];
        out[i].name = s->name;
        out[i].built = s->ops != NULL || s->present;
        out[i].usable = s->ops != NULL && s->result.usable && !is_lost(s);
        out[i].gpu = s->result.gpu;
        out[i].detail = is_lost(s) ? s->lost_why : s->result.detail;
    }
    return n;
}

/* Release every initialised backend when the process exits (the library
 * is never unloaded: -z nodelete), so that device contexts and cached
 * scratch are given back in order.  Not a module's in a forked child: its
 * runtime state is the parent's copy, and releasing it hangs there (see
 * fork() above); the process is ending, which frees the memory anyway. */
__attribute__((destructor)) static void release_backends(void)
{
    size_t i;
    chosen.ops = NULL;
    chosen.status = PS_ERR_BACKEND_UNAVAILABLE;
    for (i = 0; i < nslots; i++) {
        slot *s = &slots[i];
        if (s->inited && s->init_status == PS_OK && s->ops->release != NULL
            && !(forked_child && s->module))
            s->ops->release(s->state);
        s->inited = 0;
    }
}
