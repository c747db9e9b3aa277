// libelf (elfutils) for ELFKit, the only module that imports it, and zlib, which libelf links
// already, for the sections ELFKit inflates only in part (ELFInflatingSection).
#include <libelf.h>
#include <gelf.h>
#include <elf.h>
#include <zlib.h>
