/* closure/wrong-class / wc-lib.c: libwc.so, built twice with different ELF classes.
 *
 * Built: 64-bit: gcc -O1 -g -fPIC -shared wc-lib.c -Wl,-soname,libwc.so
 *                    -o DIR/closure/wrong-class/lib64/libwc.so
 *        32-bit: gcc -m32 -fPIC -shared -nostdlib wc-lib.c -Wl,-soname,libwc.so
 *                    -o DIR/closure/wrong-class/lib32/libwc.so
 *                (needs only cc1's -m32 and ld's elf_i386, no gcc-multilib: there is no libc
 *                in it). When that fails, build-samples writes a bare ELF32 header
 *                (ELFCLASS32, ET_DYN, EM_386; 52 bytes, zero-padded to 128 because ld.so stops
 *                with "file too short" below 64) with printf instead; ld.so skips either copy
 *                by its class alone.
 * Shows: exports `premain_wc` returning the pointer width in bits (64 for the copy that loads).
 */
int premain_wc(void)
{
    return (int)(sizeof(void *) * 8);
}
