/*
 * ps_cli_info.c - `portsort info`: what this libportsort can do here.
 *
 * ps_backends() probes without choosing, so the list is printed first and
 * the choice `auto` makes (ps_backend_name()) last; with PORTSORT_BACKEND
 * set, that line says what the environment picks, or why it cannot.
 */
#include <stdlib.h>
#include <string.h>

#include "ps_cli.h"

int ps_cli_info(int argc, char **argv)
{
    ps_backend_info *info;
    size_t n, i;
    const char *env = getenv("PORTSORT_BACKEND");
    int st;

    if (argc > 1) {
        if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
            printf("Usage: portsort info\n"
                   "Print the library version, the key types, every backend it knows,\n"
                   "whether each is usable here (and why not), its device, and the\n"
                   "one chosen.\n");
            return 0;
        }
        fprintf(stderr, "%s: info takes no arguments\n", PS_CLI_NAME);
        return 2;
    }
    printf("libportsort %s\n", ps_version());
    printf("key types: %s\n", ps_cli_type_names());
    n = ps_backends(NULL, 0);
    info = calloc(n ? n : 1, sizeof *info);
    if (info == NULL) {
        fprintf(stderr, "%s: out of memory\n", PS_CLI_NAME);
        return 1;
    }
    n = ps_backends(info, n);
    printf("backends:\n");
    for (i = 0; i < n; i++) {
        const char *state = !info[i].built ? "not built"
                            : !info[i].usable ? "unusable"
                            : info[i].gpu ? "usable (GPU)" : "usable (CPU)";
        printf("  %-8s %-13s %s\n", info[i].name, state, info[i].detail);
    }
    free(info);
    st = ps_init();
    if (env != NULL && *env != '\0')
        printf("chosen:   %s (PORTSORT_BACKEND=%s)", ps_backend_name(), env);
    else
        printf("chosen:   %s (auto)", ps_backend_name());
    if (st != PS_OK)
        printf(": %s: %s", ps_strerror(st), ps_error_detail());
    printf("\n");
    return st == PS_OK ? 0 : 1;
}
