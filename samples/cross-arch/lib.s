# cross-arch/lib.s — a library with static initializers and data relocations, written with
# directives only, so every GNU as target assembles it (ELF32 and ELF64, both byte orders).
# Built by scripts/build-samples for each installed cross binutils:
#   as -o lib.o lib.s && ld -shared -soname libcross.so -o libcross.so lib.o libdep.so
#   (and once more with -z pack-relative-relocs where the linker supports it: libcross-relr.so)
# Shows: DT_NEEDED [libdep.so]; 2 .init_array entries (ctor_one, ctor_two); exports ctor_one,
# ctor_two, table; imports dep_function and dep_data; relative relocations for the
# three local pointers in table, symbolic ones for the exported constructors (preemptible)
# and the dependency's symbols.
        .text
        .globl  ctor_one
        .type   ctor_one, %function
ctor_one:
        .byte   0, 0, 0, 0
        .size   ctor_one, 4
        .globl  ctor_two
        .type   ctor_two, %function
ctor_two:
        .byte   0, 0, 0, 0
        .size   ctor_two, 4

        .section .init_array, "aw"
        .balign 8
        .dc.a   ctor_one
        .dc.a   ctor_two

        .data
        .balign 8
        .globl  table
        .type   table, %object
table:
        .dc.a   local_one
        .dc.a   local_two
        .dc.a   local_one
        .dc.a   dep_function
        .dc.a   dep_data
        .size   table, . - table
local_one:
        .dc.a   0
local_two:
        .dc.a   0
