// cxx-static-init / plugins.cpp: part of libinit.so, a lighter static initializer.
//
// Built: with registry.cpp into DIR/cxx-static-init/libinit.so (see registry.cpp).
// Shows: one global object whose constructor busy-waits 5 ms
//        (env PREMAIN_SAMPLE_COST_PLUGINS_MS), logged as "lib:plugins.cpp".
//        Does not include <iostream>; its initializer is `_GLOBAL__sub_I_plugins.cpp`.
#include "selftime.h"

namespace {

struct Plugins {
    Plugins() { premain_timed_init("lib:plugins.cpp", "PLUGINS", 5); }
    int count() const { return 2; }
};

Plugins plugins;

} // namespace

extern "C" int premain_plugins_count() { return plugins.count(); }
