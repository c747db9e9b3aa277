/* pairs / work.c: the instruction-count pair. Head has one constructor doing a fixed amount of
 * work; base has none. Nothing depends on the clock, so instruction counts are exact.
 *
 * Built: base: gcc -O1 -g -Wall work.c -o DIR/pairs/work-base/app
 *        head: gcc -O1 -g -Wall -DPREMAIN_HEAD work.c -o DIR/pairs/work-head/app
 * Shows: head's constructor `premain_work_ctor` (global T in .symtab, the executable's
 *        .init_array) adds PREMAIN_WORK_ITERATIONS (500000) iterations of a volatile
 *        read-add-write loop: 6 instructions each with gcc 12 -O1, 3000002 instructions with its
 *        entry and ret, about 1 ms natively on the development machine (samples/README.md).
 *        main prints "work: base" or "work: head" and exits 0; DT_NEEDED [libc.so.6] for both.
 */
#include <stdio.h>

#ifndef PREMAIN_WORK_ITERATIONS
#define PREMAIN_WORK_ITERATIONS 500000
#endif

static volatile unsigned long premain_work_sink;

#ifdef PREMAIN_HEAD
__attribute__((constructor)) void premain_work_ctor(void)
{
    for (unsigned long i = 0; i < PREMAIN_WORK_ITERATIONS; i++)
        premain_work_sink += i;
}
#define PREMAIN_SIDE "head"
#else
#define PREMAIN_SIDE "base"
#endif

int main(void)
{
    printf("work: %s (%lu)\n", PREMAIN_SIDE, premain_work_sink > 0 ? 1ul : 0ul);
    return 0;
}
