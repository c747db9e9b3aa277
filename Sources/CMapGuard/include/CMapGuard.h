#ifndef CMAPGUARD_H
#define CMAPGUARD_H

#include <stddef.h>

/// Registers the file mapping [base, base + length) with the SIGBUS guard (installed on first
/// use). A read past the end of a file that shrank after it was mapped then finds a page of
/// zeros instead of killing the process, and the fault is counted for that mapping.
/// Returns a slot number, or -1 when every slot is taken or the handler cannot be installed
/// (then read the file instead of mapping it).
int mapguard_register(const void *base, size_t length);

/// How many pages of the mapping in `slot` were replaced by zeros so far.
unsigned long mapguard_faults(int slot);

/// Frees `slot` (before the mapping is unmapped); returns its fault count.
unsigned long mapguard_release(int slot);

#endif
