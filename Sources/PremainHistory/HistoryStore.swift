import FoundationEssentials
import PremainModel

/// premain's history database: every report added, whole, with its metrics, in SQLite (WAL,
/// busy timeout, each add one `BEGIN IMMEDIATE` transaction). The schema is versioned with
/// `PRAGMA user_version`; `migrations[i]` takes version i to i + 1 and runs in the transaction
/// that records the new version, so a database is never half-migrated.
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
    ]

    /// The schema version this premain writes.
    public static var currentVersion: Int { migrations.count }

    let connection: SQLiteConnection
    public var path: String { connection.path }

    /// Opens the database at `path`, creating it (and its folder is the caller's business)
    /// when `create`, and migrates it to the current schema. Throws `.cannotOpen`, `.damaged`
    /// (not SQLite, damaged, or another program's database) or `.newerSchema`.
    public init(path: String, create: Bool = true, upTo version: Int = HistoryStore.currentVersion) throws(HistoryError) {
        connection = try SQLiteConnection(path: path, create: create)
        // SQLite does not wait on the busy timeout here when another writer holds a new file.
        let mode = try connection.retryingWhileBusy { () throws(HistoryError) in
            try connection.execute("PRAGMA journal_mode=WAL").first?.first?.text ?? ""
        }
        if mode.lowercased() != "wal" {
            throw HistoryError(.failed, "\(path): cannot switch the history database to WAL mode (got '\(mode)')")
        }
        try connection.executeScript("PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL")
        try connection.retryingWhileBusy { () throws(HistoryError) in try migrate(upTo: min(version, Self.currentVersion)) }
    }

    /// The schema version of the open database.
    public func schemaVersion() throws(HistoryError) -> Int {
        Int(try connection.execute("PRAGMA user_version").first?.first?.integer ?? 0)
    }

    private func migrate(upTo target: Int) throws(HistoryError) {
        let found = try schemaVersion()
        if found > Self.currentVersion {
            throw HistoryError(.newerSchema, "\(path): history schema version \(found) is newer than this premain's (\(Self.currentVersion)); use a newer premain")
        }
        guard found < target else { return }
        try connection.transaction { () throws(HistoryError) in
            // Read again under the write lock: another process may have migrated meanwhile.
            let version = try schemaVersion()
            if version == 0 {
                let tables = try connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0.first?.text }
                if !tables.isEmpty {
                    throw HistoryError(.damaged, "\(path): not a premain history database (it has other tables: \(tables.prefix(3).joined(separator: ", ")))")
                }
            }
            for step in version..<target {
                try connection.executeScript(Self.migrations[step])
                try connection.executeScript("PRAGMA user_version = \(step + 1)")
            }
        }
    }

    /// Stores the report text whole with `metrics`; returns its id (the order of adding).
    @discardableResult
    public func add(json: String, kind: String, metrics: [HistoryMetric], commit: String?,
                    recordedAt: String) throws(HistoryError) -> Int {
        try connection.transaction { () throws(HistoryError) -> Int in
            try connection.execute("INSERT INTO reports (commit_sha, kind, recorded_at, json) VALUES (?, ?, ?, ?)",
                                   [commit.map { .text($0) } ?? .null, .text(kind), .text(recordedAt), .text(json)])
            let id = connection.lastInsertedRow
            for metric in metrics where metric.value.isFinite {
                try connection.execute("INSERT OR REPLACE INTO metrics (report_id, name, unit, value) VALUES (?, ?, ?, ?)",
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
        try connection.execute("SELECT DISTINCT name FROM metrics ORDER BY name").compactMap { $0.first?.text }
    }

    /// One metric's series: one point per commit (reports without a commit are points of
    /// their own), ordered by the commit's first report, the value the median of the commit's
    /// reports; the last `last` points when given. `nil` when the metric is unknown.
    public func series(_ metric: String, last: Int? = nil) throws(HistoryError) -> (unit: String, points: [HistoryPoint])? {
        let rows = try connection.execute("""
            SELECT r.id, r.commit_sha, r.recorded_at, m.value, m.unit FROM metrics m JOIN reports r ON r.id = m.report_id
            WHERE m.name = ? ORDER BY r.id
            """, [.text(metric)])
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
            return HistoryPoint(commit: group.commit, report: group.report, recordedAt: group.recordedAt, value: median,
                                reports: group.values.count)
        }
        if let last, points.count > last { points = Array(points.suffix(last)) }
        return (unit, points)
    }

    /// The history of `metrics` (every metric when empty) with the steps `detector` finds.
    public func report(metrics: [String], last: Int?, detector: StepDetector = StepDetector(),
                       database: String) throws(HistoryError) -> HistoryReport {
        let names = metrics.isEmpty ? try metricNames() : metrics
        var series: [HistorySeries] = []
        for name in names {
            guard let (unit, points) = try self.series(name, last: last) else { continue }
            series.append(HistorySeries(metric: name, unit: unit, points: points,
                                        noise: StepDetector.noise(points.map(\.value)),
                                        steps: detector.steps(of: points)))
        }
        return HistoryReport(database: database, reports: try reportCount(), series: series)
    }
}
