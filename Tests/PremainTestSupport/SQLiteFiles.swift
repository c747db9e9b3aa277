import CSQLite

/// SQLite files that are not premain's, made with SQLite itself: another program's database
/// for the history tests.
public enum SQLiteFiles {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Creates (or opens) the database at `path` and runs `sql` in it (several statements may
    /// be given, `PRAGMA journal_mode=WAL` among them). Throws SQLite's message when it fails.
    public static func run(_ sql: String, in path: String) throws {
        var handle: OpaquePointer?
        defer { sqlite3_close(handle) }
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            throw Failure(description: "\(path): \(String(cString: sqlite3_errmsg(handle)))")
        }
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: "\(path): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }
}
