/* late-load / app.c: a program that loads a plugin with dlopen after main.
 *
 * Built: gcc -O1 -g app.c -ldl -o DIR/late-load/app  (plugin: see plugin.c)
 * Shows: main logs "main ...", then dlopens libplugin.so from its own folder (whose
 *        constructor does a fixed amount of work), prints "plugin loaded" and exits 0.
 *        premain measure lists libplugin.so under "loaded after main", never as an initializer
 *        before main; its initializer time ends at glibc's "opening file=" line.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "selftime.h"

int main(void)
{
    premain_log_main();
    char path[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 32);
    if (length <= 0)
        return 2;
    path[length] = '\0';
    char *slash = strrchr(path, '/');
    strcpy(slash ? slash + 1 : path, "libplugin.so");
    void *plugin = dlopen(path, RTLD_NOW);
    if (plugin == NULL) {
        fprintf(stderr, "late-load: %s\n", dlerror());
        return 1;
    }
    puts("plugin loaded");
    return 0;
}
