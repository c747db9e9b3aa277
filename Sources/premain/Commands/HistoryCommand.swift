import PremainHistory
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `premain history add|show`: reports across commits in a SQLite database, and the step
/// changes in each metric's series.
enum HistoryCommand: Command {
    static let defaultDatabase = ".premain/history.sqlite"

    static let spec = CommandSpec(
        name: "history",
        abstract: "Keep reports across commits in a SQLite database and find when a metric stepped up or down.",
        discussion: """
            'add' stores a premain report (JSON of audit, measure, trace, compare, diff, pr, check or field) \
            whole, with the metrics it gives: milestone medians (main, firstOutput, exit, \
            loaderDone, cpuTime; the head's for compare and pr), the loader's counts, trace's \
            milestones and slowest functions (trace.function.NAME), static counts (static.NAME, \
            audit.NAME), findings by severity and field percentiles (field.EXE.TEMPERATURE.main.p50, .p90). \(commit) names the commit it was recorded for \
            (default: $GITHUB_SHA, or a pr report's head; none otherwise). Several reports of one \
            commit make one point, their median.

            'show' prints each metric's series, one point per commit in the order added, and finds \
            step changes by binary segmentation on medians: a split is a step when the medians of \
            the two sides differ by at least 3 times the noise (estimated robustly from neighbouring \
            commits) and a Mann–Whitney test separates the sides at p < 0.001. The step names the \
            first commit after it. A creep of small regressions shows as steps where the level has \
            moved by more than the noise. Metrics that never vary (counts) step at every change.

            The database is in WAL mode with a 30 s busy timeout: two CI jobs may add at the same \
            time, also the first two. 'show' opens it read-only and writes nothing (no -wal or -shm \
            either), so it works on a file that may be read but not written; 'add' checks, \
            read-only, that an existing file is premain's before it writes. Exit status \(ExitCode.inputError) when the \
            report or the database cannot be read, or by 'add' written (a damaged or another \
            program's database is named, and left as it is); \(ExitCode.internalError) when another writer held it past \
            the busy timeout; \(ExitCode.environmentError) when libsqlite3.so.0 cannot be loaded or is not SQLite 3.
            """,
        forms: [
            CommandForm(action: addArgument, options: [commit], arguments: [report]),
            CommandForm(action: showArgument, options: [metric, last, format, OutputOptions.output]),
        ],
        options: [db])

    /// What `history` does: its first argument.
    enum Action: String, CaseIterable {
        case add, show
    }

    static let addArgument = ArgumentSpec(
        name: Action.add.rawValue, help: "Store this report (a premain JSON report; '-' reads it from stdin).")
    static let report = ArgumentSpec(name: "<report>", help: "A premain JSON report.", kind: .path(.file))
    static let showArgument = ArgumentSpec(name: Action.show.rawValue, help: "Print the series and their step changes.")

    enum Format: String, OptionChoice {
        case text, json, markdown, html
    }

    static let db = Option<String?>(
        "--db", value: "path", kind: .path(.file), help: "The database, created with its folder",
        defaultText: defaultDatabase)
    static let commit = Option<String?>(
        "--commit", value: "sha", help: "add: the commit the report is for", defaultText: "$GITHUB_SHA")
    static let metric = Option<[String]>.repeating(
        "--metric", value: "name", help: "show: only this metric (repeatable); with one, every point is listed")
    static let last = Option<Int?>(
        "--last", value: "n", help: "show: only the last n commits of each series", in: 2...1_000_000)
    static let format = OutputOptions.format(default: Format.text, help: "show: output format")

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        // The parser has chosen the form by its action word and checked its arguments.
        guard let action = arguments.action.flatMap(Action.init(rawValue:)) else {
            throw spec.missingAction
        }
        let database = arguments[db] ?? defaultDatabase
        guard !database.isEmpty else { throw UsageError(message: "\(db) takes a path, not ''") }
        switch action {
        case .add:
            return add(arguments.positionals[0], database: database, commit: arguments[commit])
        case .show:
            try OutputOptions.refuseConflicts(arguments, outputs: [OutputOptions.output], inputs: [database])
            return show(
                database: database, metrics: arguments[metric], last: arguments[last], format: arguments[format],
                output: arguments[OutputOptions.output])
        }
    }

    static func add(_ path: String, database: String, commit: String?) -> ExitCode {
        let shown = path == "-" ? "stdin" : TextSafety.display(path)
        let bytes =
            path == "-" ? LocalFiles.readStandardInput(limit: 256 << 20) : LocalFiles.read(path, limit: 256 << 20)
        guard let text = bytes.map({ String(decoding: $0, as: UTF8.self) }) else {
            Console.error("\(shown): cannot read the report")
            return .inputError
        }
        do {
            let read = try ReportMetrics.read(text)
            Console.makeParentFolders(of: database)
            let store = try HistoryStore(path: database)
            let sha = commit ?? PremainEnvironment.commit.value ?? read.commit
            let id = try store.add(
                json: text, kind: read.kind.rawValue, metrics: read.metrics,
                commit: sha.flatMap { $0.isEmpty ? nil : $0 }, recordedAt: MachineProbe.utcDate())
            Console.status(
                "history: added \(read.kind.rawValue) report \(id) with \(Plural.count(read.metrics.count, "metric"))\(sha.map { " for \(TextSafety.display($0))" } ?? "") to \(TextSafety.display(database))"
            )
            return .success
        } catch {
            Console.error(
                error.kind == .unreadableReport
                    ? "\(shown): \(error.description)" : TextSafety.display(error.description))
            return exitCode(error)
        }
    }

    /// 70 when SQLite failed or another writer held the database too long; 69 when libsqlite3
    /// cannot be used; 3 for what is wrong with a file (missing, not a file, not writable,
    /// damaged, another program's, newer).
    static func exitCode(_ error: HistoryError) -> ExitCode {
        switch error.kind {
        case .busy, .failed: return .internalError
        case .libraryUnavailable: return .environmentError
        case .missing, .cannotOpen, .damaged, .newerSchema, .unreadableReport: return .inputError
        }
    }

    static func show(database: String, metrics: [String], last: Int?, format: Format, output: String?) -> ExitCode {
        let report: HistoryReport
        do {
            report = try HistoryStore.reading(database) { store throws(HistoryError) in
                try store.report(metrics: metrics, last: last, database: database)
            }
        } catch {
            Console.error(
                error.kind == .missing
                    ? "\(TextSafety.display(database)): no history database; create one with 'premain history add REPORT.json \(db) \(TextSafety.display(database))'"
                    : TextSafety.display(error.description))
            return exitCode(error)
        }
        if let unknown = metrics.first(where: { name in !report.series.contains { $0.metric == name } }) {
            Console.error("\(TextSafety.display(database)): no metric '\(TextSafety.display(unknown))' recorded")
            return .inputError
        }
        let written = Console.emit(to: output) { () throws -> String in
            switch format {
            case .json: return try JSONRenderer.render(report)
            case .markdown: return HistoryMarkdownRenderer.render(report)
            case .html: return HTMLReportRenderer.render(report)
            case .text: return HistoryTextRenderer.render(report)
            }
        }
        return written ? .success : .internalError
    }
}
