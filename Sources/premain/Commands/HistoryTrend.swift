import PremainHistory
import PremainModel
import PremainRender

/// `premain pr --history-db FILE`: the base branch's history of the gated metrics, for the
/// trend section of the comment. The history never fails a pull request: a missing database is
/// no trend, an unreadable one a note on stderr.
enum HistoryTrend {
    static let options: [OptionSpec] = [
        OptionSpec(names: ["--history-db"], valueName: "path",
                   help: "Add the trend of the base branch from this history database (premain history) to the comment."),
        OptionSpec(names: ["--history-metric"], valueName: "name",
                   help: "Metrics of the trend (repeatable; default main and firstOutput).", repeatable: true),
        OptionSpec(names: ["--history-last"], valueName: "n", help: "Commits in the trend (default 30)."),
    ]

    /// The history to show, or `nil` (no option, no database yet, or unreadable: said on stderr).
    static func load(_ arguments: ParsedArguments) throws(UsageError) -> HistoryReport? {
        guard let database = arguments.value("--history-db") else { return nil }
        let last = try arguments.integer("--history-last", default: 30, in: 2...100_000)
        let asked = arguments.all("--history-metric")
        do {
            return try HistoryStore.reading(database) { store throws(HistoryError) -> HistoryReport? in
                let known = Set(try store.metricNames())
                let metrics = (asked.isEmpty ? ["main", "firstOutput"] : asked).filter(known.contains)
                guard !metrics.isEmpty else { return nil }
                return try store.report(metrics: metrics, last: last, database: database)
            }
        } catch {
            Console.note(error.kind == .missing
                ? "history: \(TextSafety.display(database)) does not exist yet; the comment has no trend"
                : "history: \(TextSafety.display(error.description)); the comment has no trend")
            return nil
        }
    }
}
