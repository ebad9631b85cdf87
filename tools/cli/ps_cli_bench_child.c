/*
 * ps_cli_bench_child.c - the child processes of `portsort bench`.
 *
 * The library fixes its backend once per process, so each backend is
 * measured in a child process (fork, then PORTSORT_BACKEND) that streams
 * its results to the parent as lines.  The parent never calls the library
 * itself, not even to list the backends: a GPU runtime initialised before
 * fork() is not usable in the child.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ps_cli_bench_parts.h"

int ps_cli_bench_child(const ps_cli_bench_cfg *cfg, const char *backend, int with_peers,
                       ps_cli_report *rp)
{
    int fd[2], status = 0;
    pid_t pid;
    FILE *in;
    char *line = NULL;
    size_t cap = 0;

    /* Flushed first, or the child would write the parent's buffered
     * output a second time. */
    ps_cli_flush_stdout();
    fflush(stderr);
    if (pipe(fd) != 0 || (pid = fork()) < 0) {
        perror(PS_CLI_NAME ": cannot start a child");
        return -1;
    }
    if (pid == 0) {
        FILE *out;
        close(fd[0]);
        out = fdopen(fd[1], "w");
        if (out == NULL)
            _exit(1);
        status = ps_cli_bench_measure(cfg, backend, with_peers, out);
        fclose(out);
        _exit(status);
    }
    close(fd[1]);
    in = fdopen(fd[0], "r");
    while (in != NULL && getline(&line, &cap, in) > 0)
        ps_cli_report_take(rp, line);
    free(line);
    if (in != NULL)
        fclose(in);
    else
        close(fd[0]);
    ps_cli_report_clear_progress(rp);
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "%s: backend %s: the measuring process died of signal %d\n",
                PS_CLI_NAME, backend ? backend : "(default)", WTERMSIG(status));
        return -1;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The usable backends, as a child sees them (see the top of the file for
 * why not the parent).  Returns how many names were stored. */
size_t ps_cli_bench_usable_backends(char **names, size_t max)
{
    int fd[2], status;
    pid_t pid;
    size_t k = 0;
    char buf[64];
    FILE *in;

    ps_cli_flush_stdout();
    if (pipe(fd) != 0 || (pid = fork()) < 0)
        return 0;
    if (pid == 0) {
        ps_backend_info info[16];
        size_t n = ps_backends(info, 16), i;
        FILE *out = fdopen(fd[1], "w");
        close(fd[0]);
        for (i = 0; out != NULL && i < n && i < 16; i++)
            if (info[i].usable)
                fprintf(out, "%s\n", info[i].name);
        if (out != NULL)
            fclose(out);
        _exit(0);
    }
    close(fd[1]);
    in = fdopen(fd[0], "r");
    while (in != NULL && k < max && fgets(buf, sizeof buf, in) != NULL) {
        buf[strcspn(buf, "\n")] = '\0';
        names[k] = strdup(buf);
        if (names[k] != NULL)
            k++;
    }
    if (in != NULL)
        fclose(in);
    waitpid(pid, &status, 0);
    return k;
}
