/* field-mark: a C program that marks its own end of start-up with premain_mark("ready").
 *
 * Built: gcc -O1 -g -I Sources/PremainRecord/include mark.c -o DIR/field-mark/field-mark
 * Shows: prints exactly "marked\n" and exits with the number given as its first argument
 *   (0 without one). Run under LD_AUDIT=libpremain-record.so with PREMAIN_FIELD_DIR set, its
 *   spool gets one kind=launch record and one kind=mark record named "ready" whose t is after
 *   the launch's main; without the recorder premain_mark() writes nothing.
 */
#include "premain_mark.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    premain_mark("ready");
    puts("marked");
    return argc > 1 ? atoi(argv[1]) : 0;
}
