/* faults / exit-nonzero.c: a normal launch that fails.
 *
 * Built: gcc -O1 -g exit-nonzero.c -o DIR/faults/exit-nonzero
 * Shows: main logs "main", prints "exit-nonzero: failing" on stdout and exits with status 3.
 */
#include <stdio.h>

#include "selftime.h"

int main(void)
{
    premain_log_main();
    puts("exit-nonzero: failing");
    return 3;
}
