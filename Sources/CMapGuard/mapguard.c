// A SIGBUS guard for read-only file mappings: a file truncated while premain reads it through
// a mapping turns the faulting page into zeros (counted) instead of killing the process.
#define _GNU_SOURCE
#include "CMapGuard.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define SLOTS 4096

static _Atomic int used[SLOTS];
static _Atomic uintptr_t starts[SLOTS], ends[SLOTS];
static _Atomic unsigned long faults[SLOTS];
static struct sigaction previous;
static uintptr_t page_mask;
static int installed;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void on_sigbus(int signal, siginfo_t *info, void *context) {
    int saved = errno;
    uintptr_t address = (uintptr_t)info->si_addr;
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t start = atomic_load(&starts[i]), end = atomic_load(&ends[i]);
        if (start == 0 || address < start || address >= end) continue;
        void *page = (void *)(address & page_mask);
        if (mmap(page, ~page_mask + 1, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            atomic_fetch_add(&faults[i], 1);
            errno = saved;
            return;  // the read is retried and finds zeros
        }
        break;
    }
    // Not a guarded mapping: the handler that was there before (or the default action) takes
    // the fault when the instruction runs again.
    sigaction(SIGBUS, &previous, NULL);
    (void)signal;
    (void)context;
    errno = saved;
}

static void install(void) {
    page_mask = ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
    struct sigaction action = {0};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    installed = sigaction(SIGBUS, &action, &previous) == 0;
}

int mapguard_register(const void *base, size_t length) {
    pthread_once(&once, install);
    if (!installed || base == NULL || length == 0) return -1;
    // The search starts after the slot taken last: with hundreds of files kept open (a
    // folder's libraries), starting at 0 would test every taken slot on each call.
    static _Atomic int hint;
    int start = atomic_load_explicit(&hint, memory_order_relaxed);
    for (int n = 0; n < SLOTS; n++) {
        int i = (start + n) % SLOTS;
        int free_slot = 0;
        if (atomic_load_explicit(&used[i], memory_order_relaxed) != 0) continue;
        if (!atomic_compare_exchange_strong(&used[i], &free_slot, 1)) continue;
        atomic_store_explicit(&hint, (i + 1) % SLOTS, memory_order_relaxed);
        atomic_store(&faults[i], 0);
        atomic_store(&ends[i], (uintptr_t)base + length);
        atomic_store(&starts[i], (uintptr_t)base);
        return i;
    }
    return -1;
}

unsigned long mapguard_faults(int slot) {
    return slot >= 0 && slot < SLOTS ? atomic_load(&faults[slot]) : 0;
}

unsigned long mapguard_release(int slot) {
    if (slot < 0 || slot >= SLOTS) return 0;
    atomic_store(&starts[slot], 0);
    atomic_store(&ends[slot], 0);
    unsigned long count = atomic_load(&faults[slot]);
    atomic_store(&used[slot], 0);
    return count;
}
