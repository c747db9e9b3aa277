import FoundationEssentials
import PremainModel

#if canImport(Glibc)
    import Glibc
#endif

/// premain's history database: every report added, whole, with its metrics, in SQLite (WAL,
/// busy timeout, each add one `BEGIN IMMEDIATE` transaction). The schema is versioned with
/// `PRAGMA user_version`; `migrations[i]` takes version i to i + 1 and runs in the transaction
/// that records the new version, so a database is never half-migrated. A write opens the file
/// only once it is known to be premain's (or new); a read (`reading`) opens it read-only and
/// writes nothing, not even `-wal` or `-shm`.
public final class HistoryStore {
    /// The schema, one step per version. Append only: a released step never changes.
    static let migrations: [String] = [
        // 1: reports kept whole (nothing is lost even if metrics are added later), metrics per report.
        """
        CREATE TABLE reports (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            commit_sha TEXT,
            kind TEXT NOT NULL,
            recorded_at TEXT NOT NULL,
            json TEXT NOT NULL
        );
        CREATE TABLE metrics (
            report_id INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            unit TEXT NOT NULL,
            value REAL NOT NULL,
            PRIMARY KEY (report_id, name)
        );
        CREATE INDEX metrics_by_name ON metrics(name, report_id);
        """,
        // 2: commits looked up by SHA (the trend line of `premain pr`).
        "CREATE INDEX reports_by_commit ON reports(commit_sha, id);",
        // 3: one series per quantity: the loader's counts from measure reports under the names
        // compare's have (`CountQuantity.metricName`).
        renamedMetrics.map { "UPDATE OR REPLACE metrics SET name = '\($0.value)' WHERE name = '\($0.key)';" }.sorted()
            .joined(separator: "\n"),
    ]

    /// Metric names versions 1 and 2 stored, and the name each has from version 3 on. Frozen: a
    /// name renamed later is a new migration with its own list.
    static let renamedMetrics: [String: String] = [
        "loader.symbolLookups": "count.symbolLookups",
        "loader.relocationsFromCache": "count.relocationsFromCache",
        "loader.relativeRelocations": "count.relativeRelocations",
    ]

    /// The schema version from which metrics have their `renamedMetrics` names.
    static let renamedMetricsVersion = 3

    /// The schema version this premain writes.
    public static var currentVersion: Int { migrations.count }

    /// The oldest schema the reads below understand without migrating (they use only the tables
    /// version 1 made). Older databases are read after a write has migrated them.
    static let oldestReadableVersion = 1

    /// The tables every premain database has, by which one is told from another program's.
    static let premainTables: Set<String> = ["reports", "metrics"]

    /// Reads of a database without a write-ahead log are retried this many times when the file
    /// changed while it was read (a writer's checkpoint).
    static let readAttempts = 8

    let connection: SQLiteConnection
    public var path: String { connection.path }
    /// Read from a schema older than `renamedMetricsVersion` without migrating it: metrics are
    /// asked for, and listed, under their new names.
    private var readsOldNames = false

    /// Opens the database at `path` for writing, creating it (its folder is the caller's
    /// business) when `create`, and migrates it to the current schema. Before any pragma or
    /// write, the file must be a regular file this process may write, and an existing one is
    /// read read-only to tell that it is premain's. Throws `.missing` (not there, and not
    /// `create`), `.cannotOpen` (a folder, FIFO or device; no permission), `.damaged` (not
    /// SQLite, damaged, or another program's database), `.newerSchema` or `.busy`.
    public init(path: String, create: Bool = true, upTo version: Int = HistoryStore.currentVersion) throws(HistoryError)
    {
        let file = try DatabaseFile.look(at: path, forWriting: true)
        if file == nil && !create { throw HistoryError(.missing, "\(path): no history database") }
        // Whose is it? Asked read-only first: a write connection would switch another program's
        // file to WAL. A log without its -shm (a writer that crashed) only a write connection
        // can read; the file is in WAL mode already, so reading it there changes no header.
        let log = DatabaseFile.size(of: path + "-wal") ?? 0
        if ((file?.size ?? 0) > 0 || log > 0) && !(log > 0 && DatabaseFile.size(of: path + "-shm") == nil) {
            do {
                try Self.reading(path) { _ throws(HistoryError) in }
            } catch  where error == Self.logWithoutShm(path) {
                // Another writer between making its -wal and its -shm, or removing them: the
                // file is in WAL mode already, and the write connection reads it (below) as
                // it reads a crashed writer's log.
            }
        }
        connection = try SQLiteConnection(path: path, access: .write(create: create))
        // And again on this connection, before any pragma: the file may have been replaced.
        _ = try connection.retryingWhileBusy { () throws(HistoryError) in try Self.identify(connection) }
        // SQLite does not wait on the busy timeout here when another writer holds a new file.
        let mode = try connection.retryingWhileBusy { () throws(HistoryError) in
            try connection.execute("PRAGMA journal_mode=WAL").first?.first?.text ?? ""
        }
        if mode.lowercased() != "wal" {
            throw HistoryError(.failed, "\(path): cannot switch the history database to WAL mode (got '\(mode)')")
        }
        try connection.executeScript("PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL")
        try connection.retryingWhileBusy { () throws(HistoryError) in
            try migrate(upTo: min(version, Self.currentVersion))
        }
    }

    /// A store over an open connection whose schema `identify` has checked to be `version`.
    private init(connection: SQLiteConnection, version: Int) {
        self.connection = connection
        readsOldNames = version < Self.renamedMetricsVersion
    }

    /// What a read says of a write-ahead log without its -shm file (a writer that crashed, or
    /// one caught between making or removing the two).
    static func logWithoutShm(_ path: String) -> HistoryError {
        HistoryError(
            .cannotOpen,
            "\(path): has a write-ahead log (\(path)-wal) without its -shm file, which only a write can recover; run 'premain history add' on it once"
        )
    }

    /// Runs `body` on the database at `path` opened read-only: nothing is written, migrated or
    /// created (no `-wal`, `-shm` or `-journal`), so it works where the file or its folder may
    /// not be written. Beside a writer's write-ahead log the read goes through it; without one
    /// the main file is read without locks, and the read (with `body`) is done again when a
    /// writer changed the file meanwhile. An empty file reads as a history with no reports, an
    /// older schema as it is. Throws `.missing`, `.cannotOpen`, `.damaged`, `.newerSchema`, or
    /// `.busy` when the file kept changing.
    public static func reading<T>(_ path: String, _ body: (HistoryStore) throws(HistoryError) -> T) throws(HistoryError)
        -> T
    {
        var attempt = 0
        while true {
            attempt += 1
            guard let file = try DatabaseFile.look(at: path, forWriting: false) else {
                throw HistoryError(.missing, "\(path): no history database")
            }
            let log = DatabaseFile.size(of: path + "-wal") ?? 0
            if log > 0 && DatabaseFile.size(of: path + "-shm") == nil { throw logWithoutShm(path) }
            if log == 0 && file.size == 0 { return try reading(emptyFile: path, body) }
            let beside = log > 0
            // A writer may be changing what is there: read again when it did. Beside a log, the
            // writer may have ended (and removed its -wal and -shm) before SQLite opened them;
            // without locks, its checkpoint (a -wal is there then) or its rollback journal (the
            // switch of a new file to WAL) may have changed the file.
            let changed = { () -> Bool in
                beside
                    ? DatabaseFile.size(of: path + "-shm") == nil || (DatabaseFile.size(of: path + "-wal") ?? 0) == 0
                    : !file.isCurrent(at: path) || DatabaseFile.size(of: path + "-journal") != nil
                        || (DatabaseFile.size(of: path + "-wal") ?? 0) > 0
            }
            let last = attempt >= readAttempts
            do throws(HistoryError) {
                let connection = try SQLiteConnection(path: path, access: beside ? .readBesideLog : .readImmutable)
                let version = try identify(connection, lowest: oldestReadableVersion)
                let result =
                    version == 0
                    ? try reading(emptyFile: path, body)
                    : try body(HistoryStore(connection: connection, version: version))
                if beside || !changed() || (last && file.isCurrent(at: path)) { return result }
                if last { throw HistoryError(.busy, "\(path): the history database kept changing while it was read") }
            } catch  where !last && (changed() || (beside && error.kind == .cannotOpen)) {
                // Read while a writer changed the file: read it again.
            }
            usleep(UInt32(2_000 * attempt))
        }
    }

    /// `body` on an empty history named `path`, in memory: an empty file, or premain's database
    /// before its first migration.
    private static func reading<T>(emptyFile path: String, _ body: (HistoryStore) throws(HistoryError) -> T)
        throws(HistoryError) -> T
    {
        let connection = try SQLiteConnection(path: path, access: .memory)
        for step in migrations { try connection.executeScript(step) }
        return try body(HistoryStore(connection: connection, version: currentVersion))
    }

    /// The schema version of the open database (0 before its first migration), after checking
    /// that it is premain's: another program's database (other tables, or a version without
    /// premain's tables) is `.damaged`, one newer than this premain `.newerSchema`, one older
    /// than `lowest` `.cannotOpen` with what to run.
    static func identify(_ connection: SQLiteConnection, lowest: Int = 0) throws(HistoryError) -> Int {
        let path = connection.path
        // One statement, so one snapshot: a writer may commit the first migration in between.
        let rows = try connection.execute(
            """
            SELECT 'version', user_version FROM pragma_user_version
            UNION ALL
            SELECT 'table', name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!'
            """)
        let found = Int(rows.first { $0.first?.text == "version" }?.last?.integer ?? 0)
        let tables = rows.filter { $0.first?.text == "table" }.compactMap { $0.last?.text }.sorted()
        if found == 0 && tables.isEmpty { return 0 }
        guard found > 0, premainTables.isSubset(of: tables) else {
            let others = tables.filter { !premainTables.contains($0) }
            let what =
                others.isEmpty
                ? "no \(premainTables.subtracting(tables).sorted().joined(separator: " or ")) table, user_version \(found)"
                : "it has other tables: \(others.prefix(3).joined(separator: ", "))"
            throw HistoryError(.damaged, "\(path): not a premain history database (\(what)); give premain its own file")
        }
        if found > currentVersion {
            throw HistoryError(
                .newerSchema,
                "\(path): history schema version \(found) is newer than this premain's (\(currentVersion)); use a newer premain"
            )
        }
        if found < lowest {
            throw HistoryError(
                .cannotOpen,
                "\(path): history schema version \(found) is too old to read as it is; run 'premain history add' once to migrate it"
            )
        }
        return found
    }

    /// The schema version of the open database.
    public func schemaVersion() throws(HistoryError) -> Int {
        Int(try connection.execute("PRAGMA user_version").first?.first?.integer ?? 0)
    }

    private func migrate(upTo target: Int) throws(HistoryError) {
        let found = try schemaVersion()
        if found > Self.currentVersion {
            throw HistoryError(
                .newerSchema,
                "\(path): history schema version \(found) is newer than this premain's (\(Self.currentVersion)); use a newer premain"
            )
        }
        guard found < target else { return }
        try connection.transaction { () throws(HistoryError) in
            // Read again under the write lock: another process may have migrated meanwhile, or
            // put something else in the file since it was looked at.
            let version = try Self.identify(connection)
            guard version < target else { return }
            for step in version..<target {
                try connection.executeScript(Self.migrations[step])
                try connection.executeScript("PRAGMA user_version = \(step + 1)")
            }
        }
    }

    /// Stores the report text whole with `metrics`; returns its id (the order of adding).
    @discardableResult
    public func add(
        json: String, kind: String, metrics: [HistoryMetric], commit: String?,
        recordedAt: String
    ) throws(HistoryError) -> Int {
        try connection.transaction { () throws(HistoryError) -> Int in
            try connection.execute(
                "INSERT INTO reports (commit_sha, kind, recorded_at, json) VALUES (?, ?, ?, ?)",
                [commit.map { .text($0) } ?? .null, .text(kind), .text(recordedAt), .text(json)])
            let id = connection.lastInsertedRow
            for metric in metrics where metric.value.isFinite {
                try connection.execute(
                    "INSERT OR REPLACE INTO metrics (report_id, name, unit, value) VALUES (?, ?, ?, ?)",
                    [.integer(id), .text(metric.name), .text(metric.unit), .real(metric.value)])
            }
            return Int(id)
        }
    }

    /// Reports stored.
    public func reportCount() throws(HistoryError) -> Int {
        Int(try connection.execute("SELECT COUNT(*) FROM reports").first?.first?.integer ?? 0)
    }

    /// The report stored under `id`, as it was added; `nil` when there is none.
    public func reportJSON(id: Int) throws(HistoryError) -> String? {
        try connection.execute("SELECT json FROM reports WHERE id = ?", [.integer(Int64(id))]).first?.first?.text
    }

    /// The metric names stored, sorted.
    public func metricNames() throws(HistoryError) -> [String] {
        let names = try connection.execute("SELECT DISTINCT name FROM metrics ORDER BY name").compactMap {
            $0.first?.text
        }
        return readsOldNames ? Set(names.map { Self.renamedMetrics[$0] ?? $0 }).sorted() : names
    }

    /// `metric` and, in a database not yet migrated, the names it was stored under before.
    private func storedNames(of metric: String) -> [String] {
        readsOldNames ? [metric] + Self.renamedMetrics.filter { $0.value == metric }.map(\.key) : [metric]
    }

    /// One metric's series: one point per commit (reports without a commit are points of
    /// their own), ordered by the commit's first report, the value the median of the commit's
    /// reports; the last `last` points when given. `nil` when the metric is unknown.
    public func series(_ metric: String, last: Int? = nil) throws(HistoryError) -> (
        unit: String, points: [HistoryPoint]
    )? {
        let names = storedNames(of: metric)
        let rows = try connection.execute(
            """
            SELECT r.id, r.commit_sha, r.recorded_at, m.value, m.unit FROM metrics m JOIN reports r ON r.id = m.report_id
            WHERE m.name IN (\(names.map { _ in "?" }.joined(separator: ", "))) ORDER BY r.id
            """, names.map { .text($0) })
        guard let unit = rows.first?[4].text else { return nil }
        var order: [String] = []
        var groups: [String: (commit: String?, report: Int, recordedAt: String, values: [Double])] = [:]
        for row in rows {
            guard let id = row[0].integer, let value = row[3].real else { continue }
            let commit = row[1].text
            let key = commit ?? "#\(id)"
            if groups[key] == nil { order.append(key) }
            var group = groups[key] ?? (commit, Int(id), row[2].text ?? "", [])
            group.report = Int(id)
            group.recordedAt = row[2].text ?? group.recordedAt
            group.values.append(value)
            groups[key] = group
        }
        var points = order.compactMap { key -> HistoryPoint? in
            guard let group = groups[key], let median = SampleStatistics.median(group.values) else { return nil }
            return HistoryPoint(
                commit: group.commit, report: group.report, recordedAt: group.recordedAt, value: median,
                reports: group.values.count)
        }
        if let last, points.count > last { points = Array(points.suffix(last)) }
        return (unit, points)
    }

    /// The history of `metrics` (every metric when empty; a name of before schema 3 is read as
    /// its new one) with the steps `detector` finds.
    public func report(
        metrics: [String], last: Int?, detector: StepDetector = StepDetector(),
        database: String
    ) throws(HistoryError) -> HistoryReport {
        let names = metrics.isEmpty ? try metricNames() : metrics.map { Self.renamedMetrics[$0] ?? $0 }
        var series: [HistorySeries] = []
        for name in names {
            guard let (unit, points) = try self.series(name, last: last) else { continue }
            series.append(
                HistorySeries(
                    metric: name, unit: unit, points: points,
                    noise: StepDetector.noise(points.map(\.value)),
                    steps: detector.steps(of: points)))
        }
        return HistoryReport(database: database, reports: try reportCount(), series: series)
    }
}
