// SQLite 3 for premain's history database. Debian: libsqlite3-dev.
#include <sqlite3.h>
