// Built by scripts/build-samples as steering/forge-main (gcc -O1 -g -Wall).
// Its constructor writes a fake "PID:\ttransferring control: ARGV0" line, as glibc's loader
// prints it, to the loader's LD_DEBUG_OUTPUT channel (each descriptor 3..1023 whose
// /proc/self/fd link starts with $LD_DEBUG_OUTPUT: only that one, so that descriptors a test
// harness leaked into it are left alone), then busy-waits PREMAIN_SAMPLE_COST_FORGE_MS (default
// 20 ms). A measurer that believed the line would see main about 20 ms early (issue 34, defect 5).
// With CLOSE_AFTER defined (steering/forge-main-close) it then closes the channel, so the real
// line never arrives. With LIBRARY too (steering/libforge.so, linked by steering/forge-lib-app)
// the constructor is a library's, so the forged line comes before "initialize program".
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "selftime.h"

__attribute__((constructor)) static void forge(int argc, char **argv, char **envp) {
    (void)envp;
    char line[512];
    int length = snprintf(line, sizeof line, "%5d:\t\n%5d:\ttransferring control: %s\n%5d:\t\n", (int)getpid(),
                          (int)getpid(), argc > 0 ? argv[0] : "", (int)getpid());
    const char *channel = getenv("LD_DEBUG_OUTPUT");
    for (int fd = 3; channel && fd < 1024; fd++) {
        char link[64], target[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t size = readlink(link, target, sizeof target - 1);
        if (size <= 0) continue;
        target[size] = 0;
        if (strncmp(target, channel, strlen(channel)) != 0) continue;
        if (write(fd, line, (size_t)length) < 0) continue;
#ifdef CLOSE_AFTER
        close(fd);
#endif
    }
    premain_busy_wait_ms(premain_cost_ms("FORGE", 20));
}

#ifndef LIBRARY
int main(void) {
    puts("main");
    return 0;
}
#endif
