import PremainHistory
import PremainModel
import PremainRender

/// `premain pr --history-db FILE`: the base branch's history of the gated metrics, for the
/// trend section of the comment. The history never fails a pull request: a missing database is
/// no trend, an unreadable one a note on stderr.
enum HistoryTrend {
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

    /// The history to show, or `nil` (no option, no database yet, or unreadable: said on stderr).
    static func load(_ arguments: ParsedArguments) -> HistoryReport? {
        guard let database = arguments[database] else { return nil }
        let last = arguments[last]
        let asked = arguments[metric]
        do {
            return try HistoryStore.reading(database) { store throws(HistoryError) -> HistoryReport? in
                let known = Set(try store.metricNames())
                let metrics = (asked.isEmpty ? defaultMetrics : asked).filter(known.contains)
                guard !metrics.isEmpty else { return nil }
                return try store.report(metrics: metrics, last: last, database: database)
            }
        } catch {
            Console.note(
                error.kind == .missing
                    ? "history: \(TextSafety.display(database)) does not exist yet; the comment has no trend"
                    : "history: \(TextSafety.display(error.description)); the comment has no trend")
            return nil
        }
    }
}
