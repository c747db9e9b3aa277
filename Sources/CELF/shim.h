// libelf (elfutils) for ELFKit, the only module that imports it; zlib's types (no zlib is
// linked: ELFKit calls it through CLazyLibraries' forwarders, ELFInflatingSection).
#include <libelf.h>
#include <gelf.h>
#include <elf.h>
#include <zlib.h>
