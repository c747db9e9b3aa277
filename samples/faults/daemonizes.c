/* faults / daemonizes.c: a program that leaves a daemon behind, the classic way.
 *
 * Built: gcc -O1 -g daemonizes.c -o DIR/faults/daemonizes
 * Shows: main logs "main", forks; the child calls setsid (a new session and process group,
 *        so killing the launch's process group does not reach it) and forks again; the
 *        grandchild sleeps PREMAIN_SAMPLE_CHILD_SLEEP_S seconds (default 30) with stdout and
 *        stderr closed; the child exits at once, and main prints "daemonizes: parent exiting"
 *        and exits 0. premain must still end the grandchild (target cgroup, or as a child
 *        subreaper) and say so.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selftime.h"

int main(void)
{
    premain_log_main();
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        setsid();
        if (fork() == 0) {
            close(1);
            close(2);
            const char *v = getenv("PREMAIN_SAMPLE_CHILD_SLEEP_S");
            unsigned seconds = (v != NULL && *v != '\0') ? (unsigned)strtoul(v, NULL, 10) : 30u;
            while (seconds > 0)
                seconds = sleep(seconds);
            _exit(0);
        }
        _exit(0);
    }
    if (child > 0)
        waitpid(child, NULL, 0);
    puts("daemonizes: parent exiting");
    return 0;
}
