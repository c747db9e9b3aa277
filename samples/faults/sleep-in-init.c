/* faults / sleep-in-init.c: a constructor that waits without using the CPU.
 *
 * Built: gcc -O1 -g sleep-in-init.c -o DIR/faults/sleep-in-init
 * Shows: `premain_sleep_ctor` (constructor) nanosleeps 50 ms (env PREMAIN_SAMPLE_COST_SLEEP_MS)
 *        and logs "exe:sleep_in_init" with that wall-clock duration (>= 50.000), while its CPU
 *        time stays near 0. main logs "main", prints "sleep-in-init: main reached", exits 0.
 */
#include <stdio.h>

#include "selftime.h"

__attribute__((constructor)) void premain_sleep_ctor(void)
{
    uint64_t start = premain_now_ns();
    long ms = premain_cost_ms("SLEEP", 50);
    struct timespec left = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&left, &left) != 0) {
    }
    premain_log("exe:sleep_in_init", start, premain_now_ns());
}

int main(void)
{
    premain_log_main();
    puts("sleep-in-init: main reached");
    return 0;
}
