/*
 * ps_test_threads - several threads race to the first call (the one-time
 * backend choice) and then sort different types at once; every result is
 * checked.  Also checks that error details stay per thread, and that the
 * scratch the library keeps between calls (a few blocks, ps_scratch.c)
 * serves racing sorts of numbers and of strings while another thread
 * frees it again and again with ps_release_cache().
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_test_util.h"

#define THREADS 8
#define ROUNDS 6

static pthread_barrier_t start;
static int done;

/* Strings of 1-12 letters from a small alphabet (many equal ones), sorted
 * by ps_sort_strings; checked for order and stability (the pointers
 * point into one buffer in input order). */
static void strings_round(long id, uint64_t *s, size_t n)
{
    char *buf = malloc(n * 13);
    const char **p = malloc(n * sizeof *p);
    size_t i, j;
    int st;
    if (buf == NULL || p == NULL)
        t_fail("thread %ld: out of memory", id);
    for (i = 0; i < n; i++) {
        size_t len = 1 + (size_t)(t_rand(s) % 12);
        p[i] = buf + i * 13;
        for (j = 0; j < len; j++)
            buf[i * 13 + j] = (char)('a' + t_rand(s) % 3);
        buf[i * 13 + len] = 0;
    }
    st = ps_sort_strings(p, n, 0);
    if (st != PS_OK)
        t_fail("thread %ld: strings: %s: %s", id, ps_strerror(st), ps_error_detail());
    for (i = 1; i < n; i++) {
        int c = strcmp(p[i - 1], p[i]);
        if (c > 0 || (c == 0 && p[i - 1] > p[i]))
            t_fail("thread %ld: %zu strings wrong at %zu", id, n, i);
    }
    free(buf);
    free((void *)p);
}

/* Frees the kept scratch while the workers sort. */
static void *trimmer(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&done, __ATOMIC_SEQ_CST))
        if (ps_release_cache() != PS_OK)
            t_fail("ps_release_cache: %s", ps_error_detail());
    return NULL;
}

static void *worker(void *arg)
{
    long id = (long)arg;
    uint64_t s = 1000 + (uint64_t)id;
    int r;
    pthread_barrier_wait(&start);
    for (r = 0; r < ROUNDS; r++) {
        ps_type type = (ps_type)(PS_U8 + (id + r) % 10);
        unsigned flags = (unsigned)(id + r) & 1;
        size_t n = 1000 + (size_t)(t_rand(&s) % 200000), kb = ps_type_size(type), i;
        unsigned char *k = malloc(n * kb), *orig = malloc(n * kb);
        uint32_t *v = malloc(n * sizeof *v);
        size_t *perm = malloc(n * sizeof *perm);
        int st;
        if (!k || !orig || !v || !perm)
            t_fail("thread %ld: out of memory", id);
        for (i = 0; i < n * kb; i++)
            orig[i] = (unsigned char)(t_rand(&s) % 7); /* many equal keys */
        memcpy(k, orig, n * kb);
        for (i = 0; i < n; i++)
            v[i] = (uint32_t)i;
        st = ps_sort_pairs(k, v, 4, n, type, flags);
        if (st != PS_OK)
            t_fail("thread %ld: %s: %s", id, ps_strerror(st), ps_error_detail());
        t_oracle_perm(orig, n, type, flags, perm);
        for (i = 0; i < n; i++)
            if (v[i] != perm[i] || memcmp(k + i * kb, orig + perm[i] * kb, kb))
                t_fail("thread %ld: %s n=%zu wrong at %zu", id, t_type_name(type), n, i);
        /* A failing call in this thread sets this thread's detail only. */
        if (ps_sort_keys(NULL, 1, type, 0) != PS_ERR_INVALID_ARG
            || strstr(ps_error_detail(), "NULL") == NULL)
            t_fail("thread %ld: detail message not per thread", id);
        free(k); free(orig); free(v); free(perm);
        if (r % 2 == 1)
            strings_round(id, &s, 40000 + (size_t)(t_rand(&s) % 50000));
    }
    return NULL;
}

int main(void)
{
    pthread_t th[THREADS], trim;
    long i;
    /* No ps_init here: the threads race to the one-time choice. */
    const char *want = getenv("PORTSORT_BACKEND");
    if (want != NULL && strcmp(want, "serial") != 0) {
        ps_backend_info info[16];
        size_t j, c = ps_backends(info, 16);
        for (j = 0; j < c && j < 16; j++)
            if (strcmp(info[j].name, want) == 0 && !info[j].usable) {
                printf("SKIP: backend %s not usable: %s\n", want, info[j].detail);
                return PS_TEST_SKIP;
            }
    }
    pthread_barrier_init(&start, NULL, THREADS);
    for (i = 0; i < THREADS; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)i) != 0)
            t_fail("pthread_create");
    if (pthread_create(&trim, NULL, trimmer, NULL) != 0)
        t_fail("pthread_create");
    for (i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    __atomic_store_n(&done, 1, __ATOMIC_SEQ_CST);
    pthread_join(trim, NULL);
    printf("ps_test_threads: %d threads x %d rounds passed on backend %s\n",
           THREADS, ROUNDS, ps_backend_name());
    return 0;
}
