#ifndef PREMAIN_BUILD_INFO_H
#define PREMAIN_BUILD_INFO_H

/// The commit premain was built from (40 hex digits), or "" when the build did not know it.
/// Package.swift defines PREMAIN_COMMIT (see there).
const char *premain_build_commit(void);

#endif
