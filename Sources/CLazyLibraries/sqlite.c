// SQLite's functions premain calls (PremainHistory, the test support), forwarded to
// libsqlite3.so.0 loaded on first use. A function added there needs its line here (the link
// fails without it: CSQLite's module map links no libsqlite3).
#include <sqlite3.h>
#include "lazy.h"

#define SQLITE_FUNCTIONS(F)                                                                                          \
    F(int, sqlite3_bind_double, (sqlite3_stmt *statement, int index, double value), (statement, index, value))       \
    F(int, sqlite3_bind_int64, (sqlite3_stmt *statement, int index, sqlite3_int64 value), (statement, index, value)) \
    F(int, sqlite3_bind_null, (sqlite3_stmt *statement, int index), (statement, index))                              \
    F(int, sqlite3_bind_text,                                                                                        \
      (sqlite3_stmt *statement, int index, const char *text, int length, void (*destructor)(void *)),                \
      (statement, index, text, length, destructor))                                                                  \
    F(int, sqlite3_busy_timeout, (sqlite3 *db, int ms), (db, ms))                                                    \
    F(int, sqlite3_close, (sqlite3 *db), (db))                                                                       \
    F(int, sqlite3_close_v2, (sqlite3 *db), (db))                                                                    \
    F(int, sqlite3_column_count, (sqlite3_stmt *statement), (statement))                                             \
    F(double, sqlite3_column_double, (sqlite3_stmt *statement, int column), (statement, column))                     \
    F(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt *statement, int column), (statement, column))               \
    F(const unsigned char *, sqlite3_column_text, (sqlite3_stmt *statement, int column), (statement, column))        \
    F(int, sqlite3_column_type, (sqlite3_stmt *statement, int column), (statement, column))                          \
    F(int, sqlite3_db_readonly, (sqlite3 *db, const char *name), (db, name))                                         \
    F(const char *, sqlite3_errmsg, (sqlite3 *db), (db))                                                             \
    F(const char *, sqlite3_errstr, (int code), (code))                                                              \
    F(int, sqlite3_exec,                                                                                             \
      (sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *context, char **error),   \
      (db, sql, callback, context, error))                                                                           \
    F(int, sqlite3_finalize, (sqlite3_stmt *statement), (statement))                                                 \
    F(sqlite3_int64, sqlite3_last_insert_rowid, (sqlite3 *db), (db))                                                 \
    F(int, sqlite3_open_v2, (const char *filename, sqlite3 **db, int flags, const char *vfs),                        \
      (filename, db, flags, vfs))                                                                                    \
    F(int, sqlite3_prepare_v2,                                                                                       \
      (sqlite3 *db, const char *sql, int length, sqlite3_stmt **statement, const char **tail),                       \
      (db, sql, length, statement, tail))                                                                            \
    F(int, sqlite3_step, (sqlite3_stmt *statement), (statement))

// Each function is a forwarder (looked up on its first call), and its name is in the list the
// loader checks when it opens the library: a library without one of them is not used at all.
#define FORWARD(ret, name, params, args) PREMAIN_FORWARD(premain_sqlite_symbol, ret, name, params, args)
SQLITE_FUNCTIONS(FORWARD)

#define NAME(ret, name, params, args) #name,
const char *const premain_sqlite_functions[] = {SQLITE_FUNCTIONS(NAME) NULL};
