// Built by scripts/build-samples as steering/dlopens (gcc -O1 -g -Wall, -ldl).
// main dlopens each argument in order (RTLD_NOW) and exits 0, or 1 when one fails to load.
// The tests give it libraries in folders whose names hold " [", a newline or a byte that is
// not UTF-8 (issue 34, defect 6).
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!dlopen(argv[i], RTLD_NOW)) {
            fprintf(stderr, "%s\n", dlerror());
            return 1;
        }
    }
    return 0;
}
