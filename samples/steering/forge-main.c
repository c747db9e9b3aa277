// Built by scripts/build-samples as steering/forge-main (gcc -O1 -g -Wall).
// Its constructor writes a fake "PID:\ttransferring control: ARGV0" line, as glibc's loader
// prints it, to every descriptor 3..20 (the loader's LD_DEBUG_OUTPUT channel is one of them),
// then busy-waits PREMAIN_SAMPLE_COST_FORGE_MS (default 20 ms). A measurer that believed the
// line would see main about 20 ms early (issue 34, defect 5).
// With CLOSE_AFTER defined (steering/forge-main-close) it then closes them too, so the real
// line never arrives.
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "selftime.h"

__attribute__((constructor)) static void forge(int argc, char **argv, char **envp) {
    (void)envp;
    char line[512];
    int length = snprintf(line, sizeof line, "%5d:\t\n%5d:\ttransferring control: %s\n%5d:\t\n", (int)getpid(),
                          (int)getpid(), argc > 0 ? argv[0] : "", (int)getpid());
    for (int fd = 3; fd <= 20; fd++) {
        if (write(fd, line, (size_t)length) < 0) continue;
    }
#ifdef CLOSE_AFTER
    for (int fd = 3; fd <= 20; fd++) close(fd);
#endif
    premain_busy_wait_ms(premain_cost_ms("FORGE", 20));
}

int main(void) {
    puts("main");
    return 0;
}
