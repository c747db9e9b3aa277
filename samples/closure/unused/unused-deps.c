/* closure/unused / unused-deps.c: DT_NEEDED entries whose symbols are never used.
 *
 * Built: gcc -O1 -g unused-deps.c -Wl,--no-as-needed -L. -lunused -lm
 *            -Wl,--enable-new-dtags,-rpath,'$ORIGIN' -o DIR/closure/unused/unused-deps
 * Shows: DT_NEEDED [libunused.so, libm.so.6, libc.so.6] in that order; the executable imports
 *        no symbol from libunused.so or libm.so.6 (only from libc.so.6), so both are unused
 *        (`ldd -u` lists libunused.so and libm.so.6). Prints "unused-deps: hello", exits 0.
 */
#include <stdio.h>

int main(void)
{
    puts("unused-deps: hello");
    return 0;
}
