/* Sorts five ints through the CMake-imported portsort::portsort target and
 * prints them; test/cmake.sh checks the output. */
#include <portsort.h>
#include <stdio.h>

int main(void)
{
    int keys[] = { 3, -7, 42, 0, -1 };
    size_t i, n = sizeof keys / sizeof keys[0];
    int st = ps_sort_keys(keys, n, PS_I32, 0);

    if (st != PS_OK) {
        fprintf(stderr, "%s: %s\n", ps_strerror(st), ps_error_detail());
        return 1;
    }
    for (i = 0; i < n; i++)
        printf("%d%c", keys[i], i + 1 < n ? ' ' : '\n');
    return 0;
}
