/* faults / crash-in-init.c: a constructor that dies with SIGSEGV before main.
 *
 * Built: gcc -O1 -g crash-in-init.c -o DIR/faults/crash-in-init
 * Shows: `premain_crash_ctor` (constructor) first logs "exe:crash_ctor <ns> <ns> 0.000" to
 *        $PREMAIN_SAMPLE_LOG, then stores through a null pointer read from a volatile
 *        (a real SEGV_MAPERR fault, not raise()). The process is killed by SIGSEGV
 *        (signal 11; shells report 139); main never runs and nothing is printed on stdout.
 */
#include <stdio.h>

#include "selftime.h"

static int *volatile premain_null_pointer;

__attribute__((constructor)) void premain_crash_ctor(void)
{
    uint64_t now = premain_now_ns();
    premain_log("exe:crash_ctor", now, now);
    *premain_null_pointer = 1;
}

int main(void)
{
    premain_log_main();
    puts("crash-in-init: main reached (should not happen)");
    return 0;
}
