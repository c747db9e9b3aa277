// libelf (elfutils) for ELFKit, the only module that imports it.
#include <libelf.h>
#include <gelf.h>
#include <elf.h>
