/* faults / hang.c: a program that never finishes on its own.
 *
 * Built: gcc -O1 -g hang.c -o DIR/faults/hang
 * Shows: main logs "main ...", prints "hang: sleeping" (flushed), then sleeps
 *        PREMAIN_SAMPLE_HANG_S seconds (default 3600). Tests must time it out and kill it.
 */
#include <stdio.h>

#include "selftime.h"

int main(void)
{
    premain_log_main();
    puts("hang: sleeping");
    fflush(stdout);
    const char *v = getenv("PREMAIN_SAMPLE_HANG_S");
    unsigned seconds = (v != NULL && *v != '\0') ? (unsigned)strtoul(v, NULL, 10) : 3600u;
    while (seconds > 0)
        seconds = sleep(seconds);
    return 0;
}
