/* closure/origin / origin-app.c: $ORIGIN expansion in DT_RUNPATH.
 *
 * Built: gcc -O1 -g origin-app.c -L../lib -lorigin -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib'
 *            -o DIR/closure/origin/bin/origin-app
 * Shows: DT_NEEDED [liborigin.so, libc.so.6], DT_RUNPATH "$ORIGIN/../lib"; liborigin.so resolves
 *        to DIR/closure/origin/lib/liborigin.so (path as ld.so prints it:
 *        DIR/closure/origin/bin/../lib/liborigin.so); prints "origin-app: 1" and exits 0.
 */
#include <stdio.h>

int premain_origin(void);

int main(void)
{
    printf("origin-app: %d\n", premain_origin());
    return 0;
}
