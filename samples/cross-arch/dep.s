# cross-arch/dep.s — a dependency library for every architecture GNU as targets here.
# Built by scripts/build-samples with each installed <triple>-as and <triple>-ld:
#   as -o dep.o dep.s && ld -shared -soname libdep.so -o libdep.so dep.o
# Shows: exports exactly dep_function (function) and dep_data (object).
        .text
        .globl  dep_function
        .type   dep_function, %function
dep_function:
        .byte   0, 0, 0, 0
        .size   dep_function, 4

        .data
        .balign 8
        .globl  dep_data
        .type   dep_data, %object
dep_data:
        .dc.a   0
        .size   dep_data, . - dep_data
