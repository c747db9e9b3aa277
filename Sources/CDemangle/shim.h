// Demanglers that already ship on the machine: libstdc++'s for C++ names and the Swift
// runtime's for Swift names (libswiftCore exports it). Declarations only.
#include <stddef.h>
#include <stdint.h>

char *__cxa_demangle(const char *mangled_name, char *output_buffer, size_t *length, int *status);
char *swift_demangle(const char *mangled_name, size_t mangled_name_length, char *output_buffer,
                     size_t *output_buffer_size, uint32_t flags);
