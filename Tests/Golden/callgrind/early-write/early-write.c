/* Golden/callgrind/early-write/early-write.c: the program behind the callgrind files recorded here.
 *
 * Built: gcc -O1 -g early-write.c -o /tmp/early-write
 * Recorded with InstructionCounter.valgrindOptions (files renamed without the pid, 11618):
 *   setarch x86_64 -R valgrind --tool=callgrind --command-line-only=yes -q --vgdb=no
 *     --trace-children=no --log-file=DIR/valgrind.log --trace-syscalls=yes --show-below-main=yes
 *     --demangle=no --collect-systime=no --callgrind-out-file=DIR/callgrind.out.%p
 *     --dump-before=main --dump-before=write --dump-before=writev --dump-before=__write_nocancel
 *     /tmp/early-write </dev/null >/dev/null 2>&1
 *   with valgrind 3.19, glibc 2.36, gcc 12.2 (Debian 12, x86-64).
 * Shows: a constructor that works 1000 + 2000 loop iterations around two writes: one to a file
 *        (fd 4 under valgrind, whose log holds fd 3; not output), then "early" to stderr, the
 *        first output, before main. main prints with printf, which writes at exit (stdout is not
 *        a terminal). Dumps: 1 before the fd 4 write, 2 before the stderr write, 3 before main,
 *        4 before the stdout write, then the exit dump.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static volatile unsigned long fixture_sink;

__attribute__((constructor)) void fixture_ctor(void)
{
    for (unsigned long i = 0; i < 1000; i++)
        fixture_sink += i;
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (write(fd, "x", 1) < 0 || write(2, "early\n", 6) < 0)
        fixture_sink = 0;
    close(fd);
    for (unsigned long i = 0; i < 2000; i++)
        fixture_sink += i;
}

int main(void)
{
    printf("main %lu\n", fixture_sink > 0 ? 1ul : 0ul);
    return 0;
}
