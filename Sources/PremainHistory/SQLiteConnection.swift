import CLazyLibraries
import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// What went wrong with the history database, in one line (lowercase, no trailing period).
public struct HistoryError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable {
        /// No database at the path (a read; a write creates it).
        case missing
        /// The file cannot be opened, created or written (permissions, a read-only file system,
        /// a folder, FIFO or device in the way).
        case cannotOpen
        /// The file is not an SQLite database, or is damaged, or is another program's.
        case damaged
        /// Written by a newer premain (a schema version this one does not know).
        case newerSchema
        /// The report given to `add` is not a premain report.
        case unreadableReport
        /// Another writer held the database for longer than the busy timeout.
        case busy
        /// Any other SQLite failure.
        case failed
        /// libsqlite3.so.0 cannot be loaded, or is not SQLite 3 (a library of the machine, not
        /// the database, is at fault).
        case libraryUnavailable
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// One SQLite connection: statements with bound values, rows as Swift values. A write
/// connection is opened in WAL mode with a busy timeout, so two writers (two CI jobs) wait for
/// each other instead of failing or corrupting the file; a read connection writes nothing.
final class SQLiteConnection {
    /// A value bound to a statement or read from a row.
    enum Value: Equatable {
        case integer(Int64)
        case real(Double)
        case text(String)
        case null
    }

    /// How the file is opened.
    enum Access: Equatable {
        /// Read and write; the file is created when `create`.
        case write(create: Bool)
        /// Read-only beside a writer's `-wal` and `-shm` (`readonly_shm`): sees what the writer
        /// committed, creates and writes nothing.
        case readBesideLog
        /// Read-only from the main file alone, without locks (`immutable`): for a database with
        /// no write-ahead log, where SQLite would otherwise create `-wal` and `-shm` and leave
        /// them. The caller checks that the file did not change while it read.
        case readImmutable
        /// A private database in memory.
        case memory
    }

    private var handle: OpaquePointer?
    /// The database's path, as messages name it.
    let path: String
    let busyTimeoutMs: Int32

    /// Opens the database at `path` for `access`; waits up to `busyTimeoutMs` for another
    /// writer's lock. A write connection that SQLite could only open read-only is refused.
    init(path: String, access: Access, busyTimeoutMs: Int32 = 30_000) throws(HistoryError) {
        self.path = path
        self.busyTimeoutMs = busyTimeoutMs
        // SQLite is loaded on first use (CLazyLibraries): its absence is this one-line error.
        if let problem = premain_sqlite_load() { throw Self.libraryUnavailable(String(cString: problem)) }
        let name: String
        var flags = SQLITE_OPEN_NOMUTEX
        switch access {
        case .write(let create):
            // A URI too, so that a path such as "file:x?mode=memory" stays a file name.
            name = Self.uri(path, "")
            flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_URI
        case .readBesideLog:
            name = Self.uri(path, "mode=ro&readonly_shm=1")
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
        case .readImmutable:
            name = Self.uri(path, "mode=ro&immutable=1")
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
        case .memory:
            name = ":memory:"
            flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY
        }
        let status = sqlite3_open_v2(name, &handle, flags, nil)
        guard status == SQLITE_OK, handle != nil else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close(handle)
            handle = nil
            throw HistoryError(.cannotOpen, "\(path): cannot open the history database (\(message))")
        }
        if case .write = access, sqlite3_db_readonly(handle, "main") == 1 {
            // SQLite opened it read-only because it may not write it (an immutable file, say).
            sqlite3_close(handle)
            handle = nil
            throw HistoryError(.cannotOpen, "\(path): cannot write the history database (read-only)")
        }
        sqlite3_busy_timeout(handle, busyTimeoutMs)
    }

    /// Opens (creating when `create`) the database at `path` for reading and writing.
    convenience init(path: String, create: Bool, busyTimeoutMs: Int32 = 30_000) throws(HistoryError) {
        try self.init(path: path, access: .write(create: create), busyTimeoutMs: busyTimeoutMs)
    }

    /// `file:` URI of `path` with `query`: `%`, `?` and `#` escaped, as SQLite's URI names need.
    static func uri(_ path: String, _ query: String) -> String {
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(character)
            }
        }
        // An absolute path after an empty authority ("file:///tmp/x"), so "//x" is not a host.
        return (escaped.hasPrefix("/") ? "file://" : "file:") + escaped + (query.isEmpty ? "" : "?" + query)
    }

    deinit {
        // Also after a throwing init: no SQLite call then, which may be why it threw.
        if let handle { sqlite3_close_v2(handle) }
    }

    /// The one-line error of a libsqlite3 that cannot be used: it names the library, not the
    /// database, which is not at fault.
    static func libraryUnavailable(_ problem: String) -> HistoryError {
        HistoryError(
            .libraryUnavailable,
            "libsqlite3.so.0 cannot be used (\(problem)): the history needs SQLite 3; install libsqlite3-0")
    }

    /// Runs one statement (or several without values) and returns its rows.
    @discardableResult
    func execute(_ sql: String, _ values: [Value] = []) throws(HistoryError) -> [[Value]] {
        var statement: OpaquePointer?
        var status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status) }
        defer { sqlite3_finalize(statement) }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .integer(let number): status = sqlite3_bind_int64(statement, position, number)
            case .real(let number): status = sqlite3_bind_double(statement, position, number)
            case .text(let text): status = sqlite3_bind_text(statement, position, text, -1, Self.transient)
            case .null: status = sqlite3_bind_null(statement, position)
            }
            guard status == SQLITE_OK else { throw error(status) }
        }
        var rows: [[Value]] = []
        while true {
            status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw error(status) }
            rows.append(
                (0..<sqlite3_column_count(statement)).map { column in
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
                    case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
                    case SQLITE_TEXT:
                        return .text(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
                    default: return .null
                    }
                })
        }
    }

    /// Runs several statements without values (a migration).
    func executeScript(_ sql: String) throws(HistoryError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status) }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT` (the write lock taken at the start, so two
    /// writers queue on the busy timeout instead of failing at commit); rolls back on error.
    func transaction<T>(_ body: () throws(HistoryError) -> T) throws(HistoryError) -> T {
        try executeScript("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try executeScript("COMMIT")
            return result
        } catch {
            try? executeScript("ROLLBACK")
            throw error
        }
    }

    var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` again while it fails with `.busy`, until the busy timeout has passed since
    /// the first try. For what SQLite does not wait for itself: a connection that has read the
    /// file and then asks to write while another writer holds it gets SQLITE_BUSY at once
    /// (waiting could deadlock), and the switch to WAL mode of a new file does exactly that.
    func retryingWhileBusy<T>(_ body: () throws(HistoryError) -> T) throws(HistoryError) -> T {
        let deadline = Self.monotonicMs() + Int64(busyTimeoutMs)
        var pauseUs: UInt32 = 1_000
        while true {
            do {
                return try body()
            } catch  where error.kind == .busy && Self.monotonicMs() < deadline {
                usleep(pauseUs)
                pauseUs = min(pauseUs * 2, 50_000)
            }
        }
    }

    private static func monotonicMs() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// The error for `status`: damage and busy named as such, with SQLite's own words.
    func error(_ status: Int32) -> HistoryError {
        let message = String(cString: sqlite3_errmsg(handle))
        switch status & 0xff {
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            return HistoryError(
                .damaged, "\(path): not a usable history database (\(message)); move it away to start a new one")
        case SQLITE_BUSY, SQLITE_LOCKED:
            return HistoryError(.busy, "\(path): the history database stayed locked by another writer (\(message))")
        case SQLITE_READONLY:
            return HistoryError(.cannotOpen, "\(path): cannot write the history database (\(message))")
        case SQLITE_CANTOPEN:
            return HistoryError(
                .cannotOpen, "\(path): cannot open the history database or its -wal and -shm files (\(message))")
        default:
            return HistoryError(.failed, "\(path): \(message)")
        }
    }

    /// SQLITE_TRANSIENT: SQLite copies bound text before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

extension SQLiteConnection.Value {
    var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    var real: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }
    var text: String? { if case .text(let value) = self { value } else { nil } }
}
