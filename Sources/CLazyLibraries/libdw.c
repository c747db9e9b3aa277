// libdw's functions premain calls (PremainAudit's DebugInfo), forwarded to libdw.so.1
// loaded on first use. A function added to DebugInfo needs its line here (the link fails
// without it: CDW's module map links no libdw).
#include <elfutils/libdw.h>
#include "lazy.h"

#define FORWARD(ret, name, params, args) PREMAIN_FORWARD(premain_libdw_symbol, ret, name, params, args)

FORWARD(Dwarf_Die *, dwarf_addrdie, (Dwarf *dbg, Dwarf_Addr addr, Dwarf_Die *result), (dbg, addr, result))
FORWARD(Dwarf_Attribute *, dwarf_attr, (Dwarf_Die *die, unsigned int name, Dwarf_Attribute *result), (die, name, result))
FORWARD(Dwarf_Attribute *, dwarf_attr_integrate, (Dwarf_Die *die, unsigned int name, Dwarf_Attribute *result),
        (die, name, result))
FORWARD(Dwarf *, dwarf_begin_elf, (Elf *elf, Dwarf_Cmd cmd, Elf_Scn *group), (elf, cmd, group))
FORWARD(int, dwarf_child, (Dwarf_Die *die, Dwarf_Die *result), (die, result))
FORWARD(const char *, dwarf_decl_file, (Dwarf_Die *decl), (decl))
FORWARD(int, dwarf_decl_line, (Dwarf_Die *decl, int *line), (decl, line))
FORWARD(Dwarf_Off, dwarf_dieoffset, (Dwarf_Die *die), (die))
FORWARD(int, dwarf_end, (Dwarf *dwarf), (dwarf))
FORWARD(int, dwarf_entrypc, (Dwarf_Die *die, Dwarf_Addr *address), (die, address))
FORWARD(const char *, dwarf_filesrc, (Dwarf_Files *file, size_t index, Dwarf_Word *mtime, Dwarf_Word *length),
        (file, index, mtime, length))
FORWARD(const char *, dwarf_formstring, (Dwarf_Attribute *attribute), (attribute))
FORWARD(int, dwarf_formudata, (Dwarf_Attribute *attribute, Dwarf_Word *value), (attribute, value))
FORWARD(Dwarf_Line *, dwarf_getsrc_die, (Dwarf_Die *cu, Dwarf_Addr address), (cu, address))
FORWARD(int, dwarf_getsrcfiles, (Dwarf_Die *cu, Dwarf_Files **files, size_t *count), (cu, files, count))
FORWARD(int, dwarf_getsrclines, (Dwarf_Die *cu, Dwarf_Lines **lines, size_t *count), (cu, lines, count))
FORWARD(int, dwarf_haschildren, (Dwarf_Die *die), (die))
FORWARD(int, dwarf_haspc, (Dwarf_Die *die, Dwarf_Addr pc), (die, pc))
FORWARD(int, dwarf_lineaddr, (Dwarf_Line *line, Dwarf_Addr *address), (line, address))
FORWARD(int, dwarf_lineno, (Dwarf_Line *line, int *number), (line, number))
FORWARD(const char *, dwarf_linesrc, (Dwarf_Line *line, Dwarf_Word *mtime, Dwarf_Word *length), (line, mtime, length))
FORWARD(int, dwarf_nextcu,
        (Dwarf *dwarf, Dwarf_Off offset, Dwarf_Off *next, size_t *headerSize, Dwarf_Off *abbrevOffset,
         uint8_t *addressSize, uint8_t *offsetSize),
        (dwarf, offset, next, headerSize, abbrevOffset, addressSize, offsetSize))
FORWARD(Dwarf_Die *, dwarf_offdie, (Dwarf *dbg, Dwarf_Off offset, Dwarf_Die *result), (dbg, offset, result))
FORWARD(Dwarf_Line *, dwarf_onesrcline, (Dwarf_Lines *lines, size_t index), (lines, index))
FORWARD(ptrdiff_t, dwarf_ranges,
        (Dwarf_Die *die, ptrdiff_t offset, Dwarf_Addr *base, Dwarf_Addr *start, Dwarf_Addr *end),
        (die, offset, base, start, end))
FORWARD(int, dwarf_siblingof, (Dwarf_Die *die, Dwarf_Die *result), (die, result))
FORWARD(int, dwarf_tag, (Dwarf_Die *die), (die))
