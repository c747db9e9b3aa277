// cxx-static-init / registry.cpp: part of libinit.so, the heaviest static initializer.
//
// Built: g++ -O1 -g -fPIC -shared registry.cpp plugins.cpp ctor_c.c(as C) -Wl,-soname,libinit.so
//        -o DIR/cxx-static-init/libinit.so   (link order: registry, plugins, ctor_c)
// Shows: one global object whose constructor busy-waits 20 ms
//        (env PREMAIN_SAMPLE_COST_REGISTRY_MS), logged as "lib:registry.cpp".
//        This TU includes <iostream>, so with GCC 12 `_GLOBAL__sub_I_registry.cpp` also
//        constructs a `std::ios_base::Init` (undefined symbol _ZNSt8ios_base4InitC1Ev).
//        g++ emits the TU initializer as the local symbol `_GLOBAL__sub_I_registry.cpp`.
#include <iostream>

#include "selftime.h"

namespace {

struct Registry {
    Registry() { premain_timed_init("lib:registry.cpp", "REGISTRY", 20); }
    int size() const { return 1; }
};

Registry registry;

} // namespace

extern "C" int premain_registry_size() { return registry.size(); }
