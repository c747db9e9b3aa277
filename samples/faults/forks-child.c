/* faults / forks-child.c: the launched process exits but leaves a child behind.
 *
 * Built: gcc -O1 -g forks-child.c -o DIR/faults/forks-child
 *        gcc -O1 -g -DFORK_IN_CONSTRUCTOR forks-child.c -o DIR/faults/forks-in-init
 * Shows: a child is forked that stays in the parent's process group (no setsid/setpgid),
 *        keeps the inherited stdout/stderr open and sleeps PREMAIN_SAMPLE_CHILD_SLEEP_S
 *        seconds (default 30), then exits 0 without printing.
 *   forks-child:   main logs "main", forks, prints "forks-child: parent exiting" and exits 0.
 *   forks-in-init: the fork happens in constructor `premain_fork_ctor` (logged
 *                  "exe:fork_ctor <ns> <ns> 0.000" by the parent); main then logs "main",
 *                  prints "forks-in-init: parent exiting" and exits 0.
 *   A launcher that waits for EOF on stdout, or for the whole process group, waits for the
 *   child; one that waits only for the direct child's pid returns at once.
 */
#include <stdio.h>
#include <sys/types.h>

#include "selftime.h"

static void fork_lingering_child(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        const char *v = getenv("PREMAIN_SAMPLE_CHILD_SLEEP_S");
        unsigned seconds = (v != NULL && *v != '\0') ? (unsigned)strtoul(v, NULL, 10) : 30u;
        while (seconds > 0)
            seconds = sleep(seconds);
        _exit(0);
    }
}

#ifdef FORK_IN_CONSTRUCTOR
__attribute__((constructor)) void premain_fork_ctor(void)
{
    uint64_t now = premain_now_ns();
    fork_lingering_child();
    premain_log("exe:fork_ctor", now, now);
}
#endif

int main(void)
{
    premain_log_main();
#ifdef FORK_IN_CONSTRUCTOR
    puts("forks-in-init: parent exiting");
#else
    fork_lingering_child();
    puts("forks-child: parent exiting");
#endif
    return 0;
}
