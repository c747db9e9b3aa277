// Built by scripts/build-samples as steering/close-channel (gcc -O1 -g -Wall).
// Its constructor calls close_range(3, ~0U, 0), as a daemon's start-up may: the loader's
// LD_DEBUG_OUTPUT channel is closed before "transferring control", so the initializers and
// main are never reported (issue 34, defect 5). Then main prints "main" and exits 0.
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>

__attribute__((constructor)) static void close_everything(void) {
    syscall(SYS_close_range, 3U, ~0U, 0U);
}

int main(void) {
    puts("main");
    return 0;
}
