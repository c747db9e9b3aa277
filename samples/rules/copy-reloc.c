/* rules/copy-reloc: built with -fno-pic -no-pie and linked against libvar.so; it reads
 * premain_var_table directly, so the linker emits an R_X86_64_COPY relocation and the
 * loader copies the table into the executable at start-up. Prints `copy-reloc: 1`. */
#include <stdio.h>

extern int premain_var_table[64];

int main(void) {
    printf("copy-reloc: %d\n", premain_var_table[0]);
    return 0;
}
