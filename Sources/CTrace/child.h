// What a vforked child of CTrace does before execve, shared by ctrace_spawn (CTrace.c) and
// ctrace_field_spawn (field.c). Async-signal-safe: system calls only, no allocation, no lock.
#ifndef CTRACE_CHILD_H
#define CTRACE_CHILD_H

#include <signal.h>

// Appends the decimal `value` to `to` (which ends at `end`); returns the new end.
static inline char *ctrace_append_decimal(char *to, char *end, unsigned long long value) {
    char digits[24];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0 && count < 24);
    while (count > 0 && to < end) *to++ = digits[--count];
    return to;
}

// Resets every caught signal to its default action: no handler of the parent's may run in the
// child while it shares the parent's memory, nor in the program it becomes.
static inline void ctrace_child_default_signals(void) {
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction action;
        if (sigaction(sig, 0, &action) == 0 && action.sa_handler != SIG_IGN && action.sa_handler != SIG_DFL) {
            action.sa_handler = SIG_DFL;
            action.sa_flags = 0;
            sigaction(sig, &action, 0);
        }
    }
}

#endif
