/*
 * ps_dispatch.c - the backends libportsort knows, and the one-time choice
 * among them.
 *
 * The registry holds the backends of ps_registry.c's table (those built
 * into the library, and the modules this package can build, so that
 * `portsort info` can say "not built"), and every ps_<name>.so the module
 * directories hold (ps_module.c).  This file names no backend: the order
 * `auto` tries them in and whether one needs a GPU come from each
 * backend's ops table (priority, device), which it reads through a whole
 * copy (ps_ops_adopt), so that a member a module predates reads as NULL.
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

typedef struct slot {
    char name[PS_MODULE_NAME_MAX];
    const ps_backend_ops *builtin;  /* compiled in; NULL otherwise */
    int module;                     /* 1: looked for as ps_<name>.so */
    /* How far advance() has brought it: 0, LOADED, PROBED.  The fields
     * below are written by the one thread that advances it (busy), outside
     * probe_lock, and read by others once `stage` says they are done. */
    int stage;
    int busy;                       /* a thread is advancing it */
    pthread_t busy_by;
    int present;                    /* a module file was found */
    const ps_backend_ops *ops;      /* &table; NULL when not built or broken */
    ps_backend_ops table;           /* the backend's table, adopted whole */
    int env_bad;                    /* its check_env refused a variable */
    ps_probe result;                /* detail also when not loaded, env_bad */
    /* Filled once by init_slot(), the same way (init_busy, init_lock). */
    int inited;
    int init_busy;
    pthread_t init_by;
    int init_status;
    void *state;
    char init_why[384];
    /* Set once by ps_backend_lost(), lost last (release), so a reader that
     * sees lost (acquire) sees lost_why complete. */
    int lost;
    char lost_why[384];
} slot;

/* slot.stage */
enum { LOADED = 1, PROBED = 2 };

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
    const char *p = ps_module_names;
    size_t i;

    for (i = 0; i < ps_nbuiltins; i++)
        add_slot(ps_builtins[i].name, strlen(ps_builtins[i].name),
                 ps_builtins[i].ops, 0);
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
/* Separate from probe_lock: waiting for a backend's init, which may take
 * seconds (device contexts, kernel builds), must not hold up
 * ps_backends(). */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lost_lock = PTHREAD_MUTEX_INITIALIZER;

/* Signalled when a slot's stage or init is done (waiters: the same slot). */
static pthread_cond_t probe_done = PTHREAD_COND_INITIALIZER;
static pthread_cond_t init_done = PTHREAD_COND_INITIALIZER;

/* ------------------------------------------------------------------------
 * fork().
 *
 * fork() copies the locks of the core as they are, held or not, into a
 * child with one thread; a lock that another thread of the parent held
 * would stay held there forever, and the child's first call would hang.
 * So the handlers below take every lock of the core before the fork and
 * release it on both sides after.  That is safe because no lock is ever
 * held across a backend's code (loading a module, its probe, its init):
 * those run unlocked, marked busy, while other threads wait on a
 * condition; a foreign library may register fork handlers of its own
 * there (pthread_atfork), which waits for a fork in progress, whose
 * prepare handler would otherwise wait for our lock.  A child then finds
 * the work another thread was doing abandoned halfway, and says so for
 * that backend instead of waiting for it.
 *
 * The handlers are registered by a constructor, not at the first call:
 * what a child must know is whether it is a child at all, whenever the
 * fork happened.  The OpenMP backend registers its own the same way.
 * ------------------------------------------------------------------------ */

static pthread_mutex_t *const core_locks[] = { &init_lock, &probe_lock, &lost_lock };
#define N_CORE_LOCKS (sizeof core_locks / sizeof core_locks[0])

/* Device runtimes do not survive fork(): the child inherits a copy of the
 * parent's runtime state without the threads and driver connections behind
 * it (pocl's child hangs in its first call; CUDA and ROCm document the
 * same).  So once a module has been loaded, a child process refuses every
 * module backend with a reason, and never calls a module's release (at its
 * exit, release_backends), while the built-in CPU backends keep working. */
static int module_loaded;       /* atomic: set by advance() */
static int forked_child;

static void fork_prepare(void)
{
    size_t i;
    for (i = 0; i < N_CORE_LOCKS; i++)
        pthread_mutex_lock(core_locks[i]);
}

static void fork_parent(void)
{
    size_t i = N_CORE_LOCKS;
    while (i-- > 0)
        pthread_mutex_unlock(core_locks[i]);
}

static void fork_child(void)
{
#define PS_GONE(what) "another thread was " what " it when this process " \
                      "forked; restart the process to use it"
    pthread_t me = pthread_self();
    size_t i;
    if (__atomic_load_n(&module_loaded, __ATOMIC_RELAXED))
        forked_child = 1;
    /* Work of threads that the child does not have: never finished. */
    for (i = 0; i < nslots; i++) {
        slot *s = &slots[i];
        if (s->busy && !pthread_equal(s->busy_by, me)) {
            s->busy = 0;
            if (s->stage == 0)
                s->ops = NULL;      /* its module may be half loaded */
            s->result.usable = 0;
            snprintf(s->result.detail, sizeof s->result.detail, "%s",
                     s->stage == 0 ? PS_GONE("loading") : PS_GONE("probing"));
            s->stage = PROBED;
        }
        if (s->init_busy && !pthread_equal(s->init_by, me)) {
            s->init_busy = 0;
            s->inited = 1;
            s->init_status = PS_ERR_BACKEND_UNAVAILABLE;
            snprintf(s->init_why, sizeof s->init_why, "%.32s: %s", s->name,
                     PS_GONE("initialising"));
        }
    }
#undef PS_GONE
    /* Their waiters are gone too. */
    pthread_cond_init(&probe_done, NULL);
    pthread_cond_init(&init_done, NULL);
    fork_parent();
}

__attribute__((constructor)) static void watch_forks(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
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
 * environment variables.  A backend whose check_env refuses a variable is
 * never probed: it is reported unusable with the refusal, and the choice
 * fails on it (check_environment). */
static void load(slot *s)
{
    char why[sizeof s->result.detail];
    const ps_backend_ops *raw = NULL;
    if (s->builtin != NULL) {
        raw = s->builtin;
    } else if (s->module) {
        raw = ps_module_load(s->name, &s->present, s->result.detail,
                             sizeof s->result.detail);
        if (raw != NULL)
            __atomic_store_n(&module_loaded, 1, __ATOMIC_RELAXED);
    } else {
        snprintf(s->result.detail, sizeof s->result.detail,
                 "not built into this libportsort (configure --enable-%s)",
                 s->name);
    }
    /* From here on the core reads the table through its whole copy: the
     * members a backend predates are NULL there (ps_backend.h). */
    if (raw != NULL && ps_ops_adopt(&s->table, raw, s->result.detail,
                                    sizeof s->result.detail) == 0)
        s->ops = &s->table;
    if (s->ops != NULL && s->ops->check_env != NULL) {
        why[0] = '\0';
        if (s->ops->check_env(why, sizeof why) != 0) {
            s->env_bad = 1;
            memcpy(s->result.detail, why, sizeof why);
            s->result.detail[sizeof s->result.detail - 1] = '\0';
        }
    }
}

static void probe(slot *s)
{
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

/* Bring s to `stage` (LOADED or PROBED), once per process: one thread does
 * each step, outside probe_lock (see fork() above); others wait for it. */
static slot *advance(slot *s, int stage)
{
    pthread_mutex_lock(&probe_lock);
    while (s->stage < stage) {
        int from = s->stage;
        if (s->busy) {
            pthread_cond_wait(&probe_done, &probe_lock);
            continue;
        }
        s->busy = 1;
        s->busy_by = pthread_self();
        pthread_mutex_unlock(&probe_lock);
        if (from == 0)
            load(s);
        else
            probe(s);
        pthread_mutex_lock(&probe_lock);
        s->busy = 0;
        s->stage = from + 1;
        pthread_cond_broadcast(&probe_done);
    }
    pthread_mutex_unlock(&probe_lock);
    return s;
}

static slot *probe_slot(slot *s)
{
    return advance(s, PROBED);
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
        || ps_mem_limit_check(why, why_len) < 0
        || ps_env_number("PORTSORT_GPU_MIN_N", 0, SIZE_MAX, &min_n, why, why_len) < 0)
        return -1;
    pthread_once(&registry_once, build_registry);
    for (i = 0; i < nslots; i++) {
        if (advance(&slots[i], LOADED)->env_bad) {
            snprintf(why, why_len, "%s", slots[i].result.detail);
            return -1;
        }
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
    pthread_mutex_lock(&init_lock);
    while (!s->inited && s->init_busy)
        pthread_cond_wait(&init_done, &init_lock);
    if (!s->inited) {
        void *state = NULL;
        s->init_busy = 1;
        s->init_by = pthread_self();
        /* Unlocked, as a probe is (see fork() above). */
        pthread_mutex_unlock(&init_lock);
        ps_detail_clear();
        st = s->ops->init(ps_host_get(), &state);
        if (st == PS_OK) {
            s->state = state;
        } else {
            snprintf(s->init_why, sizeof s->init_why, "%s: init failed: %s%s%s",
                     s->name, ps_strerror(st), ps_error_detail()[0] ? ": " : "",
                     ps_error_detail());
            ps_log("%s", s->init_why);
        }
        pthread_mutex_lock(&init_lock);
        s->init_status = st;
        s->inited = 1;
        s->init_busy = 0;
        pthread_cond_broadcast(&init_done);
    }
    st = s->init_status;
    pthread_mutex_unlock(&init_lock);
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
    pthread_mutex_lock(&lost_lock);
    if (!s->lost) {
        snprintf(s->lost_why, sizeof s->lost_why, "%s: device lost: %s; "
                 "restart the process to use it again%s", name,
                 why != NULL ? why : "(no reason given)",
                 chosen.is_auto && chosen.slot == s
                     ? " (PORTSORT_BACKEND=auto: sorting on the CPU)" : "");
        __atomic_store_n(&s->lost, 1, __ATOMIC_RELEASE);
        ps_log("%s", s->lost_why);
    }
    pthread_mutex_unlock(&lost_lock);
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
    ps_scratch_trim();
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
    /* The detail is left alone otherwise: a caller that lists the
     * backends after a failed ps_init still reads why it failed. */
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
    ps_scratch_trim();
}
