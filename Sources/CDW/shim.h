// libdw (elfutils) for source lines and inline information. Debian: libdw-dev.
#include <elfutils/libdw.h>
#include <dwarf.h>
