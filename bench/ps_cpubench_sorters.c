/*
 * ps_cpubench_sorters.c - the plain LSD sort, the reference every result
 * is checked against, the check itself, the memcpy that traffic is
 * measured against, and the loading of peers from shared objects.
 */
#include <config.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ps_cpubench.h"

const ps_cb_kind_info ps_cb_kinds[PS_CB_NKINDS] = {
    { "u32", "u32", PS_U32, 4, 0 },
    { "u64", "u64", PS_U64, 8, 0 },
    { "f32", "f32", PS_F32, 4, 0 },
    { "i64", "i64", PS_I64, 8, 0 },
    { "u32+u32", "u32", PS_U32, 4, 4 },
    { "u64+u64", "u64", PS_U64, 8, 8 },
};

/* ---- the plain LSD ---------------------------------------------------- */

/* Scratch kept between calls, as a program that sorts often would keep it
 * (and as libportsort keeps its own): a fresh allocation would time page
 * faults, not sorting. */
static void *lsd_scratch(size_t bytes)
{
    static void *buf;
    static size_t have;
    if (bytes > have) {
        void *p = realloc(buf, bytes);
        if (p == NULL)
            return NULL;
        buf = p;
        have = bytes;
    }
    return buf;
}

/* Keys sort by their order image k ^ (sign ? m1 : 0) ^ m2: m1 = m2 = 0 for
 * unsigned keys, m2 = the sign bit for signed ones, and m1 = all but the
 * sign bit with m2 = the sign bit for floats (negative floats count
 * down).  values may be NULL. */
#define PS_CB_LSD(W)                                                           \
static int lsd_##W(uint##W##_t *k, uint##W##_t *v, size_t n, uint##W##_t m1,   \
                   uint##W##_t m2)                                             \
{                                                                              \
    enum { P = W / 8 };                                                        \
    size_t h[P][256], i;                                                       \
    uint##W##_t *kb = lsd_scratch(n * (v ? 2 : 1) * sizeof *kb);               \
    uint##W##_t *vb = kb + n, *ks = k, *kd = kb, *vs = v, *vd = vb;            \
    int p;                                                                     \
    if (kb == NULL)                                                            \
        return -1;                                                             \
    memset(h, 0, sizeof h);                                                    \
    for (i = 0; i < n; i++) {                                                  \
        uint##W##_t x = k[i];                                                  \
        x ^= (((uint##W##_t)0 - (x >> (W - 1))) & m1) ^ m2;                    \
        for (p = 0; p < P; p++)                                                \
            h[p][(x >> (8 * p)) & 0xff]++;                                     \
    }                                                                          \
    for (p = 0; p < P; p++) {                                                  \
        size_t off[256], sum = 0;                                              \
        int d;                                                                 \
        for (d = 0; d < 256; d++) {                                            \
            off[d] = sum;                                                      \
            sum += h[p][d];                                                    \
        }                                                                      \
        for (i = 0; i < n; i++) {                                              \
            uint##W##_t x = ks[i];                                             \
            size_t o;                                                          \
            x ^= (((uint##W##_t)0 - (x >> (W - 1))) & m1) ^ m2;                \
            o = off[(x >> (8 * p)) & 0xff]++;                                  \
            kd[o] = ks[i];                                                     \
            if (v)                                                             \
                vd[o] = vs[i];                                                 \
        }                                                                      \
        { uint##W##_t *t = ks; ks = kd; kd = t; }                              \
        { uint##W##_t *t = vs; vs = vd; vd = t; }                              \
    }                                                                          \
    return 0;                                                                  \
}
/* An even number of passes (4 and 8) ends in the caller's arrays. */
PS_CB_LSD(32)
PS_CB_LSD(64)

static int lsd_u32(uint32_t *k, size_t n, int t)
{
    (void)t;
    return lsd_32(k, NULL, n, 0, 0);
}

static int lsd_u64(uint64_t *k, size_t n, int t)
{
    (void)t;
    return lsd_64(k, NULL, n, 0, 0);
}

static int lsd_f32(float *k, size_t n, int t)
{
    (void)t;
    return lsd_32((uint32_t *)(void *)k, NULL, n, 0x7fffffffu, 0x80000000u);
}

static int lsd_i64(int64_t *k, size_t n, int t)
{
    (void)t;
    return lsd_64((uint64_t *)(void *)k, NULL, n, 0, (uint64_t)1 << 63);
}

static int lsd_u32_u32(uint32_t *k, uint32_t *v, size_t n, int t)
{
    (void)t;
    return lsd_32(k, v, n, 0, 0);
}

static int lsd_u64_u64(uint64_t *k, uint64_t *v, size_t n, int t)
{
    (void)t;
    return lsd_64(k, v, n, 0, 0);
}

const ps_bench_peer ps_cb_plain_lsd = {
    "plain-lsd", "plain LSD radix sort: 8-bit digits, one histogram pass, one thread",
    0, 1, lsd_u32, lsd_u64, lsd_f32, lsd_i64, lsd_u32_u32, lsd_u64_u64,
};

int ps_cb_peer_has(const ps_bench_peer *p, ps_cb_kind k)
{
    switch (k) {
    case PS_CB_U32: return p->u32 != NULL;
    case PS_CB_U64: return p->u64 != NULL;
    case PS_CB_F32: return p->f32 != NULL;
    case PS_CB_I64: return p->i64 != NULL;
    case PS_CB_U32_U32: return p->u32_u32 != NULL;
    case PS_CB_U64_U64: return p->u64_u64 != NULL;
    default: return 0;
    }
}

int ps_cb_peer_sort(const ps_bench_peer *p, ps_cb_kind k, void *keys, void *values,
                    size_t n, int threads)
{
    switch (k) {
    case PS_CB_U32: return p->u32(keys, n, threads);
    case PS_CB_U64: return p->u64(keys, n, threads);
    case PS_CB_F32: return p->f32(keys, n, threads);
    case PS_CB_I64: return p->i64(keys, n, threads);
    case PS_CB_U32_U32: return p->u32_u32(keys, values, n, threads);
    case PS_CB_U64_U64: return p->u64_u64(keys, values, n, threads);
    default: return -1;
    }
}

/* ---- the reference and the check -------------------------------------- */

/* Key i's order image: unsigned order is the sort order. */
static uint64_t image(ps_cb_kind k, const void *keys, size_t i)
{
    uint32_t a;
    uint64_t b;
    if (ps_cb_kinds[k].key_size == 4) {
        memcpy(&a, (const char *)keys + 4 * i, 4);
        if (k == PS_CB_F32)
            a ^= (a >> 31) ? 0xffffffffu : 0x80000000u;
        return a;
    }
    memcpy(&b, (const char *)keys + 8 * i, 8);
    return k == PS_CB_I64 ? b ^ (uint64_t)1 << 63 : b;
}

static uint64_t tag(ps_cb_kind k, const void *values, size_t i)
{
    uint32_t a;
    uint64_t b;
    if (ps_cb_kinds[k].value_size == 4) {
        memcpy(&a, (const char *)values + 4 * i, 4);
        return a;
    }
    memcpy(&b, (const char *)values + 8 * i, 8);
    return b;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* A set of n bits, for the tags. */
static unsigned char *bits_new(size_t n)
{
    return calloc(n / 8 + 1, 1);
}

/* Flip bit i; returns its old value. */
static int bits_flip(unsigned char *b, size_t i)
{
    int old = b[i / 8] >> (i % 8) & 1;
    b[i / 8] ^= (unsigned char)(1u << (i % 8));
    return old;
}

int ps_cb_reference(ps_cb_kind k, const void *src_keys, void *keys, void *values,
                    size_t n, char *why, size_t why_size)
{
    const ps_bench_peer *lsd = &ps_cb_plain_lsd;
    size_t ks = ps_cb_kinds[k].key_size, i;
    int pairs = ps_cb_kinds[k].value_size != 0;

    if (ps_cb_peer_sort(lsd, k, keys, values, n, 1) != 0) {
        snprintf(why, why_size, "out of memory for the reference sort");
        return -1;
    }
    for (i = 1; i < n; i++) {
        uint64_t a = image(k, keys, i - 1), b = image(k, keys, i);
        if (a > b || (pairs && a == b && tag(k, values, i - 1) >= tag(k, values, i))) {
            snprintf(why, why_size, "reference out of order at %zu", i);
            return -1;
        }
    }
    if (pairs) {
        unsigned char *seen = bits_new(n);
        if (seen == NULL) {
            snprintf(why, why_size, "out of memory for the check");
            return -1;
        }
        for (i = 0; i < n; i++) {
            uint64_t t = tag(k, values, i);
            if (t >= n || bits_flip(seen, t) ||
                memcmp((const char *)keys + i * ks, (const char *)src_keys + t * ks, ks) != 0) {
                free(seen);
                snprintf(why, why_size, "reference lost pair %zu", i);
                return -1;
            }
        }
        free(seen);
    } else {
        uint64_t in[2] = { 0, 0 }, out[2] = { 0, 0 };
        for (i = 0; i < n; i++) {
            uint64_t a = image(k, src_keys, i), b = image(k, keys, i);
            in[0] += mix(a);
            in[1] += mix(a ^ 0x5555555555555555ull);
            out[0] += mix(b);
            out[1] += mix(b ^ 0x5555555555555555ull);
        }
        if (in[0] != out[0] || in[1] != out[1]) {
            snprintf(why, why_size, "reference keys are not the input's");
            return -1;
        }
    }
    return 0;
}

int ps_cb_verify(ps_cb_kind k, const void *ref_keys, const void *ref_values,
                 const void *keys, const void *values, size_t n, int stable,
                 char *why, size_t why_size)
{
    size_t ks = ps_cb_kinds[k].key_size, vs = ps_cb_kinds[k].value_size, i, a;
    unsigned char *mark;

    if (memcmp(ref_keys, keys, n * ks) != 0) {
        for (i = 0; i < n; i++)
            if (memcmp((const char *)ref_keys + i * ks, (const char *)keys + i * ks, ks) != 0)
                break;
        snprintf(why, why_size, "key %zu differs from the reference", i);
        return -1;
    }
    if (vs == 0 || memcmp(ref_values, values, n * vs) == 0)
        return 0;
    if (stable) {
        snprintf(why, why_size, "values differ from the stable reference");
        return -1;
    }
    /* Run by run of equal keys: the reference's tags are marked, the
     * sorter's unmark them; a tag outside the run or seen twice finds its
     * bit clear. */
    mark = bits_new(n);
    if (mark == NULL) {
        snprintf(why, why_size, "out of memory for the check");
        return -1;
    }
    for (a = 0; a < n; a = i) {
        for (i = a + 1; i < n; i++)
            if (memcmp((const char *)keys + a * ks, (const char *)keys + i * ks, ks) != 0)
                break;
        for (size_t j = a; j < i; j++)
            bits_flip(mark, tag(k, ref_values, j));
        for (size_t j = a; j < i; j++) {
            uint64_t t = tag(k, values, j);
            if (t >= n || !bits_flip(mark, t)) {
                free(mark);
                snprintf(why, why_size, "value %zu belongs to another key", j);
                return -1;
            }
        }
    }
    free(mark);
    return 0;
}

/* ---- memcpy on several threads ---------------------------------------- */

static struct {
    pthread_t *threads;
    int nhelpers;
    pthread_barrier_t start, done;
    char *dst;
    const char *src;
    size_t bytes;
    int parts, quit;
} cp;

/* Part `part` of `parts` of the copy, cut on 64-byte lines. */
static void copy_part(int part)
{
    size_t per = (cp.bytes / (size_t)cp.parts + 63) & ~(size_t)63;
    size_t lo = per * (size_t)part, hi = lo + per;
    if (hi > cp.bytes)
        hi = cp.bytes;
    if (lo < hi)
        memcpy(cp.dst + lo, cp.src + lo, hi - lo);
}

static void *copy_helper(void *arg)
{
    int part = (int)(intptr_t)arg;
    for (;;) {
        pthread_barrier_wait(&cp.start);
        if (cp.quit)
            return NULL;
        copy_part(part);
        pthread_barrier_wait(&cp.done);
    }
}

int ps_cb_copy_start(int threads)
{
    int i;
    if (threads <= 1)
        return 0;
    cp.threads = calloc((size_t)threads, sizeof *cp.threads);
    if (cp.threads == NULL ||
        pthread_barrier_init(&cp.start, NULL, (unsigned)threads) != 0 ||
        pthread_barrier_init(&cp.done, NULL, (unsigned)threads) != 0)
        return -1;
    for (i = 1; i < threads; i++) {
        if (pthread_create(&cp.threads[i], NULL, copy_helper, (void *)(intptr_t)i) != 0)
            return -1;
        cp.nhelpers = i;
    }
    return 0;
}

void ps_cb_copy(void *dst, const void *src, size_t bytes, int threads)
{
    if (threads <= 1 || cp.nhelpers + 1 != threads) {
        memcpy(dst, src, bytes);
        return;
    }
    cp.dst = dst;
    cp.src = src;
    cp.bytes = bytes;
    cp.parts = threads;
    pthread_barrier_wait(&cp.start);
    copy_part(0);
    pthread_barrier_wait(&cp.done);
}

void ps_cb_copy_stop(void)
{
    int i;
    if (cp.nhelpers == 0)
        return;
    cp.quit = 1;
    pthread_barrier_wait(&cp.start);
    for (i = 1; i <= cp.nhelpers; i++)
        pthread_join(cp.threads[i], NULL);
    pthread_barrier_destroy(&cp.start);
    pthread_barrier_destroy(&cp.done);
    free(cp.threads);
    cp.nhelpers = 0;
}

/* ---- peers in shared objects ------------------------------------------ */

static int name_taken(const char *name, const ps_bench_peer **have, size_t count)
{
    size_t i;
    for (i = 0; i < count; i++)
        if (strcmp(have[i]->name, name) == 0)
            return 1;
    return 0;
}

void ps_cb_load_peers(const char *list, const ps_bench_peer **out, size_t *count,
                      size_t max, FILE *f)
{
    char *copy = strdup(list), *path, *save = NULL;

    if (copy == NULL)
        return;
    for (path = strtok_r(copy, ":", &save); path != NULL; path = strtok_r(NULL, ":", &save)) {
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        ps_bench_peer_list_fn list_fn;
        const ps_bench_peer *peers = NULL;
        const char *why = "no reason given";
        int n, i, used = 0;

        if (h == NULL) {
            fprintf(f, "peer %s: not loaded: %s\n", path, dlerror());
            continue;
        }
        *(void **)&list_fn = dlsym(h, PS_BENCH_PEER_ENTRY);
        if (list_fn == NULL) {
            fprintf(f, "peer %s: not a peer (no %s)\n", path, PS_BENCH_PEER_ENTRY);
            dlclose(h);
            continue;
        }
        n = list_fn(PS_BENCH_PEER_ABI, &peers, &why);
        if (n < 0 || (n > 0 && peers == NULL)) {
            fprintf(f, "peer %s: declined: %s\n", path, why ? why : "no reason given");
            dlclose(h);
            continue;
        }
        for (i = 0; i < n; i++) {
            const ps_bench_peer *p = &peers[i];
            if (p->name == NULL || p->name[0] == '\0' || strlen(p->name) > 15 ||
                name_taken(p->name, out, *count)) {
                fprintf(f, "peer %s: sorter %d left out: its name is empty, longer "
                        "than 15 characters or taken\n", path, i);
            } else if (*count < max) {
                out[(*count)++] = p;
                used++;
            }
        }
        if (used == 0)
            dlclose(h);
    }
    free(copy);
}
