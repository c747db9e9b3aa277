/* closure/missing / needs-missing.c: an executable whose dependency does not exist.
 *
 * Built: a stub libdoesnotexist.so is built in a temporary folder, the executable is linked
 *        against it with DT_RUNPATH "$ORIGIN", then the stub is deleted:
 *          gcc -O1 -g needs-missing.c -L$TMP -ldoesnotexist -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
 *              -o DIR/closure/missing/needs-missing
 * Shows: DT_NEEDED [libdoesnotexist.so, libc.so.6]; libdoesnotexist.so is nowhere on disk, so
 *        running it fails before main: stderr contains "libdoesnotexist.so: cannot open shared
 *        object file", exit status 127; `ldd` shows "libdoesnotexist.so => not found".
 */
#include <stdio.h>

int premain_does_not_exist(void);

int main(void)
{
    printf("needs-missing: %d\n", premain_does_not_exist());
    return 0;
}
