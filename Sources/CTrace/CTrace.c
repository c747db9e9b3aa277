#define _GNU_SOURCE
#include "CTrace.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static int pin(pid_t pid, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(pid, sizeof set, &set) == 0 ? 0 : -errno;
}

pid_t ctrace_spawn(const char *path, char *const argv[], char *const envp[],
                   const ctrace_spawn_options *options) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -errno;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(report[0]);
        close(report[1]);
        return -e;
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls from here to exec.
        setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, 0);
        if (options->cpu >= 0) pin(0, options->cpu);
        if (options->stdinFD >= 0) dup2(options->stdinFD, 0);
        if (options->stdoutFD >= 0) dup2(options->stdoutFD, 1);
        if (options->stderrFD >= 0) dup2(options->stderrFD, 2);
        if (options->traceme) ptrace(PTRACE_TRACEME, 0, 0, 0);
        execve(path, argv, envp);
        int e = errno;
        ssize_t ignored = write(report[1], &e, sizeof e);
        (void)ignored;
        _exit(127);
    }
    close(report[1]);
    int childErrno = 0;
    ssize_t n;
    do {
        n = read(report[0], &childErrno, sizeof childErrno);
    } while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == (ssize_t)sizeof childErrno) {
        // exec failed: reap the child, which has exited with 127.
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        return -childErrno;
    }
    setpgid(pid, pid);  // Also from the parent, so the group exists before anyone signals it.
    return pid;
}

long ctrace_ptrace(int request, pid_t pid, unsigned long addr, unsigned long data) {
    errno = 0;
    return ptrace((enum __ptrace_request)request, pid, (void *)addr, (void *)data);
}

int ctrace_pin_self(int cpu) { return pin(0, cpu); }

int ctrace_allowed_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    return CPU_COUNT(&set);
}
