// Built by scripts/build-samples into folders with odd names (issue 34, defect 6):
// as a library (-shared, -DLIBRARY: one constructor, one relocation) and as a program that
// links two such libraries (steering/named-app: libnl.so in a folder whose name holds a
// newline, libun\xff.so whose name holds a byte that is not UTF-8, both found by DT_RUNPATH).
// It uses nothing of libun\xff.so (linked with --no-as-needed), so check finds that entry
// unused and prices it from a measure report of the program.
#include <stdio.h>

#ifdef LIBRARY
int named_value = 1;
int *named_pointer = &named_value;
__attribute__((constructor)) static void named_init(void) { named_value = 2; }
int NAMED_FUNCTION(void) { return *named_pointer; }
#else
int named_nl(void);
int main(void) { return named_nl() == 2 ? 0 : 1; }
#endif
