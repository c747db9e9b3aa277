// libdw's functions premain calls (PremainAudit's DebugInfo), forwarded to libdw.so.1
// loaded on first use. A function added to DebugInfo needs its line here (the link fails
// without it: CDW's module map links no libdw).
#include <elfutils/libdw.h>
#include "lazy.h"

#define LIBDW_FUNCTIONS(F)                                                                                              \
    F(Dwarf_Die *, dwarf_addrdie, (Dwarf *dbg, Dwarf_Addr addr, Dwarf_Die *result), (dbg, addr, result))                \
    F(Dwarf_Attribute *, dwarf_attr, (Dwarf_Die *die, unsigned int name, Dwarf_Attribute *result), (die, name, result)) \
    F(Dwarf_Attribute *, dwarf_attr_integrate, (Dwarf_Die *die, unsigned int name, Dwarf_Attribute *result),            \
      (die, name, result))                                                                                              \
    F(Dwarf *, dwarf_begin_elf, (Elf *elf, Dwarf_Cmd cmd, Elf_Scn *group), (elf, cmd, group))                           \
    F(int, dwarf_child, (Dwarf_Die *die, Dwarf_Die *result), (die, result))                                             \
    F(const char *, dwarf_decl_file, (Dwarf_Die *decl), (decl))                                                         \
    F(int, dwarf_decl_line, (Dwarf_Die *decl, int *line), (decl, line))                                                 \
    F(Dwarf_Off, dwarf_dieoffset, (Dwarf_Die *die), (die))                                                              \
    F(int, dwarf_end, (Dwarf *dwarf), (dwarf))                                                                          \
    F(int, dwarf_entrypc, (Dwarf_Die *die, Dwarf_Addr *address), (die, address))                                        \
    F(const char *, dwarf_filesrc, (Dwarf_Files *file, size_t index, Dwarf_Word *mtime, Dwarf_Word *length),            \
      (file, index, mtime, length))                                                                                     \
    F(int, dwarf_formaddr, (Dwarf_Attribute *attribute, Dwarf_Addr *address), (attribute, address))                    \
    F(Dwarf_Die *, dwarf_formref_die, (Dwarf_Attribute *attribute, Dwarf_Die *result), (attribute, result))             \
    F(const char *, dwarf_formstring, (Dwarf_Attribute *attribute), (attribute))                                        \
    F(int, dwarf_formudata, (Dwarf_Attribute *attribute, Dwarf_Word *value), (attribute, value))                        \
    F(Dwarf_Line *, dwarf_getsrc_die, (Dwarf_Die *cu, Dwarf_Addr address), (cu, address))                               \
    F(int, dwarf_getsrcfiles, (Dwarf_Die *cu, Dwarf_Files **files, size_t *count), (cu, files, count))                  \
    F(int, dwarf_getsrclines, (Dwarf_Die *cu, Dwarf_Lines **lines, size_t *count), (cu, lines, count))                  \
    F(int, dwarf_haschildren, (Dwarf_Die *die), (die))                                                                  \
    F(int, dwarf_haspc, (Dwarf_Die *die, Dwarf_Addr pc), (die, pc))                                                     \
    F(int, dwarf_lineaddr, (Dwarf_Line *line, Dwarf_Addr *address), (line, address))                                    \
    F(int, dwarf_lineno, (Dwarf_Line *line, int *number), (line, number))                                               \
    F(int, dwarf_lowpc, (Dwarf_Die *die, Dwarf_Addr *address), (die, address))                                          \
    F(const char *, dwarf_linesrc, (Dwarf_Line *line, Dwarf_Word *mtime, Dwarf_Word *length), (line, mtime, length))    \
    F(int, dwarf_nextcu,                                                                                                \
      (Dwarf *dwarf, Dwarf_Off offset, Dwarf_Off *next, size_t *headerSize, Dwarf_Off *abbrevOffset,                    \
       uint8_t *addressSize, uint8_t *offsetSize),                                                                      \
      (dwarf, offset, next, headerSize, abbrevOffset, addressSize, offsetSize))                                         \
    F(Dwarf_Die *, dwarf_offdie, (Dwarf *dbg, Dwarf_Off offset, Dwarf_Die *result), (dbg, offset, result))              \
    F(Dwarf_Line *, dwarf_onesrcline, (Dwarf_Lines *lines, size_t index), (lines, index))                               \
    F(ptrdiff_t, dwarf_ranges,                                                                                          \
      (Dwarf_Die *die, ptrdiff_t offset, Dwarf_Addr *base, Dwarf_Addr *start, Dwarf_Addr *end),                         \
      (die, offset, base, start, end))                                                                                  \
    F(int, dwarf_siblingof, (Dwarf_Die *die, Dwarf_Die *result), (die, result))                                         \
    F(int, dwarf_tag, (Dwarf_Die *die), (die))

// Each function is a forwarder (looked up on its first call), and its name is in the list the
// loader checks when it opens the library: a library without one of them is not used at all.
#define FORWARD(ret, name, params, args) PREMAIN_FORWARD(premain_libdw_symbol, ret, name, params, args)
LIBDW_FUNCTIONS(FORWARD)

#define NAME(ret, name, params, args) #name,
const char *const premain_libdw_functions[] = {LIBDW_FUNCTIONS(NAME) NULL};
