/* pairs / cxx.cpp: the C++ pair. Both builds have one global object in this translation unit
 * whose constructor busy-waits; head's waits longer.
 *
 * Built: base: g++ -O1 -g -Wall cxx.cpp -o DIR/pairs/cxx-base/app
 *        head: g++ -O1 -g -Wall -DPREMAIN_HEAD cxx.cpp -o DIR/pairs/cxx-head/app
 * Shows: `_GLOBAL__sub_I_cxx.cpp` (the translation unit's initializer, in the executable's
 *        .init_array) runs `Registry::Registry()`, which busy-waits 1 ms in base and 3 ms in
 *        head (env PREMAIN_SAMPLE_COST_REGISTRY_MS overrides both at run time,
 *        -DPREMAIN_REGISTRY_MS=N at build time: scripts/bench-verdict builds a 12 -> 13 ms pair),
 *        logged "cxx:registry";
 *        main prints "cxx: base" or "cxx: head" and exits 0.
 */
#include <cstdio>

#include "selftime.h"

#ifdef PREMAIN_HEAD
#define PREMAIN_SIDE "head"
#ifndef PREMAIN_REGISTRY_MS
#define PREMAIN_REGISTRY_MS 3
#endif
#else
#define PREMAIN_SIDE "base"
#ifndef PREMAIN_REGISTRY_MS
#define PREMAIN_REGISTRY_MS 1
#endif
#endif

struct Registry {
    int entries;
    Registry() : entries(3) { premain_timed_init("cxx:registry", "REGISTRY", PREMAIN_REGISTRY_MS); }
};

Registry registry;

int main()
{
    premain_log_main();
    std::printf("cxx: %s (%d)\n", PREMAIN_SIDE, registry.entries);
    return 0;
}
