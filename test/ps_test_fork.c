/*
 * ps_test_fork - a program that uses the library, then forks, and sorts in
 * both the parent and the child at the same time.  Backends keep threads,
 * device contexts and cached scratch; none of that may break the child or
 * the parent.  The built-in CPU backends must sort in the child; a module
 * backend (device runtime) must refuse there with PS_ERR_BACKEND_UNAVAILABLE
 * and say why, never hang, crash or sort wrongly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ps_test_util.h"

static int sort_and_check(const char *who, size_t n, uint64_t seed)
{
    int64_t *k = malloc(n * sizeof *k);
    uint32_t *v = malloc(n * sizeof *v);
    size_t i;
    int st;
    if (k == NULL || v == NULL)
        t_fail("%s: out of memory", who);
    for (i = 0; i < n; i++) {
        k[i] = (int64_t)(t_rand(&seed) % 1000) - 500;
        v[i] = (uint32_t)i;
    }
    st = ps_sort_pairs(k, v, 4, n, PS_I64, PS_DESCENDING);
    if (st == PS_OK) {
        for (i = 1; i < n; i++)
            if (k[i - 1] < k[i] || (k[i - 1] == k[i] && v[i - 1] > v[i]))
                t_fail("%s: wrong order at %zu", who, i);
    }
    free(k);
    free(v);
    return st;
}

int main(void)
{
    pid_t pid;
    int status, st, round;
    const char *backend;
    t_init_or_skip("ps_test_fork");
    backend = ps_backend_name();
    if (sort_and_check("parent before fork", 300000, 1) != PS_OK)
        t_fail("parent before fork: %s", ps_error_detail());
    for (round = 0; round < 2; round++) {
        fflush(stdout);
        pid = fork();
        if (pid < 0)
            t_fail("fork");
        if (pid == 0) {
            int cpu = strcmp(backend, "serial") == 0 || strcmp(backend, "openmp") == 0;
            alarm(120);  /* a hang is a failure, not a stuck test suite */
            st = sort_and_check("child", 200000, 2);
            if (st != PS_OK)
                printf("child: refused with %s: %s\n", ps_strerror(st), ps_error_detail());
            else
                printf("child: sorted on %s\n", backend);
            fflush(stdout);
            if (cpu)
                _exit(st == PS_OK ? 0 : 3);
            _exit(st == PS_ERR_BACKEND_UNAVAILABLE && strstr(ps_error_detail(), "fork")
                  ? 0 : 4);
        }
        /* The parent sorts while the child does. */
        if (sort_and_check("parent during child", 300000, 3) != PS_OK)
            t_fail("parent after fork: %s", ps_error_detail());
        if (waitpid(pid, &status, 0) < 0)
            t_fail("waitpid");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            t_fail("child failed (status 0x%x)", status);
    }
    printf("ps_test_fork: passed on backend %s\n", ps_backend_name());
    return 0;
}
