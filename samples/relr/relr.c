/* relr / relr.c: a library whose data holds 2000 pointers (2000 relative relocations).
 *
 * Built: gcc -O1 -g -fPIC -shared relr.c -Wl,-z,nopack-relative-relocs -Wl,-soname,librelr-plain.so
 *            -o DIR/relr/librelr-plain.so
 *        gcc -O1 -g -fPIC -shared relr.c -Wl,-z,pack-relative-relocs -Wl,-soname,librelr-packed.so
 *            -o DIR/relr/librelr-packed.so
 * Shows: `premain_relr_table` is a const array of 2000 pointers to distinct string literals,
 *        so the plain library has 2000 + a few (crt) R_X86_64_RELATIVE relocations in .rela.dyn
 *        and the packed one moves all of them to .relr.dyn (DT_RELR, DT_RELRSZ, DT_RELRENT).
 *        Exact counts: samples/README.md.
 */
#include <stddef.h>

#define S(n) "entry " #n,
#define S10(p) S(p##0) S(p##1) S(p##2) S(p##3) S(p##4) S(p##5) S(p##6) S(p##7) S(p##8) S(p##9)
#define S100(p) S10(p##0) S10(p##1) S10(p##2) S10(p##3) S10(p##4) \
                S10(p##5) S10(p##6) S10(p##7) S10(p##8) S10(p##9)
#define S1000(p) S100(p##0) S100(p##1) S100(p##2) S100(p##3) S100(p##4) \
                 S100(p##5) S100(p##6) S100(p##7) S100(p##8) S100(p##9)

const char *const premain_relr_table[] = { S1000(0) S1000(1) };

size_t premain_relr_count(void)
{
    return sizeof premain_relr_table / sizeof premain_relr_table[0];
}
