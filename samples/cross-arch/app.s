# cross-arch/app.s — an ET_EXEC (non-PIE) executable linked against libdep.so.
#   as -o app.o app.s && ld -o app -e _start --dynamic-linker /lib/ld.so.1 app.o libdep.so
# Shows: ET_EXEC with PT_INTERP, DT_NEEDED [libdep.so], 1 .init_array entry, imports of
# dep_data and dep_function through symbolic relocations.
        .text
        .globl  _start
        .type   _start, %function
_start:
        .byte   0, 0, 0, 0
        .size   _start, 4
        .type   app_ctor, %function
app_ctor:
        .byte   0, 0, 0, 0
        .size   app_ctor, 4

        .section .init_array, "aw"
        .balign 8
        .dc.a   app_ctor

        .data
        .balign 8
        .globl  pointers
pointers:
        .dc.a   dep_data
        .dc.a   dep_function
