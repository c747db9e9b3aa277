#include "BuildInfo.h"

#ifndef PREMAIN_COMMIT
#define PREMAIN_COMMIT ""
#endif

const char *premain_build_commit(void) { return PREMAIN_COMMIT; }
