/* many-deps / main.c: an executable with 30 direct shared-library dependencies.
 *
 * Built: gcc -O1 -g main.c -Llib -ldep00 ... -ldep29 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib'
 *        -o DIR/many-deps/many-deps
 * Shows: DT_NEEDED is libdep00.so .. libdep29.so (30 entries, in that order) then libc.so.6
 *        (31 DT_NEEDED in total); DT_RUNPATH "$ORIGIN/lib"; calls every premain_depNN once,
 *        prints "many-deps: 30 libraries" and exits 0.
 */
#include <stdio.h>

#define DEPS(X) \
    X(00) X(01) X(02) X(03) X(04) X(05) X(06) X(07) X(08) X(09) \
    X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) \
    X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29)

#define DECLARE(n) int premain_dep##n(void);
DEPS(DECLARE)

int main(void)
{
    int total = 0;
#define CALL(n) total += premain_dep##n();
    DEPS(CALL)
    printf("many-deps: %d libraries\n", total);
    return 0;
}
