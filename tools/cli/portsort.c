/*
 * portsort.c - the portsort command: `portsort info|sort|bench ...`.
 *
 * Each subcommand lives in its own file (ps_cli_*.c); this one only picks
 * it.  No subcommand calls the library before it has handled its options,
 * because the library fixes its backend on the first call and --backend
 * must come first.  Whatever the command, the exit status is not 0 when
 * its standard output could not be written.
 */
#include <signal.h>
#include <string.h>

#include "ps_cli.h"

static void usage(FILE *f)
{
    fprintf(f,
"Usage: portsort COMMAND [OPTION]...\n"
"Sort numeric keys with libportsort, and measure it.\n"
"\n"
"Commands:\n"
"  info     the library version, its backends, and the one chosen here\n"
"  sort     sort a binary or text file of keys (and values)\n"
"  bench    benchmark the backends against qsort and other peers\n"
"\n"
"Options:\n"
"  -h, --help     show this help\n"
"  -V, --version  print the version of portsort and libportsort\n"
"\n"
"'portsort COMMAND --help' describes each; see also portsort(1).\n"
"PORTSORT_BACKEND picks the backend (auto, serial, openmp, opencl, cuda, hip).\n");
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "info") == 0)
        return ps_cli_info(argc - 1, argv + 1);
    if (strcmp(argv[1], "sort") == 0)
        return ps_cli_sort(argc - 1, argv + 1);
    if (strcmp(argv[1], "bench") == 0)
        return ps_cli_bench(argc - 1, argv + 1);
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("portsort (libportsort) %s\n", ps_version());
        return 0;
    }
    fprintf(stderr, "%s: unknown command '%s'\n", PS_CLI_NAME, argv[1]);
    usage(stderr);
    return 2;
}

int main(int argc, char **argv)
{
    int rc;

    /* Past `ulimit -f`, a write fails with EFBIG instead of killing the
     * process, which would leave its temporary files behind. */
    signal(SIGXFSZ, SIG_IGN);
    rc = run(argc, argv);
    /* Output that never reached standard output is a failure, whatever
     * the command (a full disk, > /dev/full). */
    if (ps_cli_close_stdout() != 0 && rc == 0)
        rc = 1;
    return rc;
}
