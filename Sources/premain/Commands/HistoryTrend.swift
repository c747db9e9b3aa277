import PremainHistory
import PremainModel
import PremainRender

/// `premain pr --history-db FILE`: the base branch's history of the gated metrics, for the
/// trend section of the comment. The history never fails a pull request: a missing database is
/// no trend; an unreadable one, or a libsqlite3 that cannot be used, a note on stderr and in the
/// comment.
enum HistoryTrend {
    /// The trend, or why the comment has none.
    struct Loaded {
        var report: HistoryReport?
        /// Why an asked-for trend is left out (the database or SQLite could not be read), for
        /// the comment; `nil` when there is a trend or nothing to say (no option, no database yet).
        var unavailable: String?
    }

    static let database = Option<String?>(
        "--history-db", value: "path", kind: .path(.file),
        help: "Add the trend of the base branch from this history database (premain history) to the comment")
    static let metric = Option<[String]>.repeating(
        "--history-metric", value: "name", help: "Metrics of the trend; repeatable",
        defaultText: defaultMetrics.joined(separator: " and "))
    static let last = Option<Int>(
        "--history-last", value: "n", help: "Commits in the trend", default: 30, in: 2...100_000)

    static let options: [any DeclaredOption] = [database, metric, last]

    /// The metrics of the trend when `--history-metric` is not given: the gated times.
    static let defaultMetrics = TimeQuantity.gated.map(\.metricName)

    /// The history to show, or none (no option, no database yet, or unreadable: said on stderr
    /// and, but for a database not there yet, in `unavailable`).
    static func load(_ arguments: ParsedArguments) -> Loaded {
        guard let database = arguments[database] else { return Loaded() }
        let last = arguments[last]
        let asked = arguments[metric]
        do {
            return Loaded(
                report: try HistoryStore.reading(database) { store throws(HistoryError) -> HistoryReport? in
                    let known = Set(try store.metricNames())
                    let metrics = (asked.isEmpty ? defaultMetrics : asked).filter(known.contains)
                    guard !metrics.isEmpty else { return nil }
                    return try store.report(metrics: metrics, last: last, database: database)
                })
        } catch {
            guard error.kind != .missing else {
                Console.note("history: \(TextSafety.display(database)) does not exist yet; the comment has no trend")
                return Loaded()
            }
            Console.note("history: \(TextSafety.display(error.description)); the comment has no trend")
            return Loaded(unavailable: error.description)
        }
    }
}
