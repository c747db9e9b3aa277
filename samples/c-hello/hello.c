/* c-hello: the smallest dynamic (and static) C program.
 *
 * Built: gcc -O1 -g hello.c -o DIR/c-hello/c-hello
 *        gcc -O1 -g -static hello.c -o DIR/c-hello/c-hello-static
 * Shows: prints exactly "hello\n" and exits 0.
 *   c-hello:        dynamically linked; DT_NEEDED is exactly [libc.so.6]; has PT_INTERP
 *                   (/lib64/ld-linux-x86-64.so.2); no DT_RPATH/DT_RUNPATH; no user constructors.
 *   c-hello-static: ET_EXEC, no PT_INTERP, no PT_DYNAMIC / .dynamic, no DT_NEEDED.
 */
#include <stdio.h>

int main(void)
{
    puts("hello");
    return 0;
}
