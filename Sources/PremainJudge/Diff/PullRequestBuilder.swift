import PremainModel

/// Puts `premain pr`'s report together: the static diff of the two artifact folders, the
/// paired comparison (or why there is none), and one verdict over both. Pure: no files, no
/// launches.
public enum PullRequestBuilder {
    /// What became of the measured part.
    public enum Measured: Sendable, Equatable {
        /// `premain compare` ran (its runs may still have failed: `runs.stop == .failed`).
        case compared(CompareReport)
        /// `premain compare` over premain.json's launches ran: one report per row (launch ×
        /// temperature), in declaration order.
        case matrix([CompareReport])
        /// Nothing was measured, and why.
        case notMeasured(String, NotMeasured)
    }

    /// Why nothing was measured.
    public enum NotMeasured: Sendable, Equatable {
        /// No `--run`: only the static facts were asked for.
        case noRun
        /// `--run` names no executable file in an artifact folder.
        case missingExecutable
        /// The launches could not be set up, or the build's program could not start.
        case launchFailed
    }

    /// `budgets`: premain.json's, whose function limits are judged on the functions the
    /// comparison's explanation traced in head (its causes).
    public static func report(
        diff: DiffReport, measured: Measured, command: [String]?,
        skipped: PullRequestReport.SkippedSides, commits: PullRequestReport.Commits? = nil,
        budgets: PremainConfig.Budgets = .init(), launches: [DeclaredLaunch] = []
    ) -> PullRequestReport {
        var diff = diff
        var measured = measured
        func placed(_ report: CompareReport) -> CompareReport {
            var report = report
            report.causes = report.causes.map { $0.map { staticChange(of: $0, in: diff) } }
            return report
        }
        switch measured {
        case .compared(let report): measured = .compared(placed(report))
        case .matrix(let rows): measured = .matrix(rows.map(placed))
        case .notMeasured: break
        }
        let explained: [CompareReport]
        switch measured {
        case .compared(let report): explained = [report]
        case .matrix(let rows): explained = rows
        case .notMeasured: explained = []
        }
        // Each row of the launch matrix against its own launch's budgets, on head's medians.
        var rowBudgets: [Finding] = []
        if case .matrix(let rows) = measured {
            for row in rows {
                guard let launch = launches.first(where: { $0.name == row.launch }) else { continue }
                rowBudgets += BudgetChecker.launchBudgets(
                    launch, row: row.rowLabel, medians: BudgetChecker.headMedians(row), runs: row.runs.perSide,
                    side: "head")
            }
        }
        if !explained.isEmpty {
            let over =
                BudgetChecker.functionBudgets(
                    BudgetChecker.tracedFunctions(of: explained.flatMap { $0.causes ?? [] }), budgets,
                    measuredBy: "traced head") + rowBudgets
            if !over.isEmpty {
                diff.findings.new += over
                diff.verdict.reasons += over.prefix(2).map(\.message)
                if diff.verdict.status == .pass || diff.verdict.status == .unconfirmed {
                    diff.verdict.status = .findings
                }
            }
        }
        var compare: CompareReport?
        var notMeasured: String?
        var launches: [CompareReport]?
        switch measured {
        case .compared(let report):
            compare = report
            notMeasured = failedRuns(report)
        case .matrix(let rows):
            launches = rows
            compare = leading(rows)
            if let failed = rows.first(where: { $0.runs.stop == .failed }), let reason = failedRuns(failed) {
                notMeasured = reason + " in launch '\(failed.rowLabel)'"
            }
        case .notMeasured(let reason, _): notMeasured = reason
        }
        var report = PullRequestReport(
            verdict: verdict(diff: diff, measured: measured), command: command, compare: compare,
            notMeasured: notMeasured, diff: diff, skipped: skipped, commits: commits)
        if let launches {
            report.launches = launches
            report.causes = launches.flatMap { $0.causes ?? [] }.sorted { abs($0.share) > abs($1.share) }
            if report.causes?.isEmpty == true { report.causes = nil }
        }
        return report
    }

    /// "a run failed (base: exited with status 3)" when `report`'s runs failed; else `nil`.
    /// Nothing is compared once a build's program fails: the failures are said.
    static func failedRuns(_ report: CompareReport) -> String? {
        guard report.runs.stop == .failed else { return nil }
        let failures = report.base.failures.map { "base: " + $0 } + report.head.failures.map { "head: " + $0 }
        return "a run failed" + (failures.isEmpty ? "" : " (" + failures.joined(separator: "; ") + ")")
    }

    /// The row a matrix's comment leads with: the worst outcome, and among rows alike the
    /// largest change of the quantity that decided; the first row when all are alike.
    public static func leading(_ rows: [CompareReport]) -> CompareReport? {
        let worst = rows.map(\.outcome).reduce(VerdictStatus.noChange) { $0.worse($1) }
        let candidates = rows.filter { $0.outcome == worst }
        return candidates.max { a, b in
            abs(a.decidingTime?.difference?.medianMs ?? 0) < abs(b.decidingTime?.difference?.medianMs ?? 0)
        } ?? rows.first
    }

    /// `cause` with the static change of its object from `diff`: a new or removed object's
    /// relocations and initializers, and who needs it; for a function, a new initializer or
    /// Swift suspect of that name. Unchanged when the diff has nothing about it.
    static func staticChange(of cause: StartupCause, in diff: DiffReport) -> StartupCause {
        var cause = cause
        let role = cause.object
        let object = diff.objects.first { delta in
            role == StartupCause.executableRole
                ? delta.kind == .executable || delta.kind == .pieExecutable
                : delta.name == role || ObjectName.fileName(delta.name) == role
        }
        guard let object else { return cause }
        var parts: [String] = []
        if let function = cause.function {
            if object.initializersAdded.contains(where: { $0 == function || $0 == cause.symbol }) {
                parts.append("a new initializer of \(object.name)")
            }
            if object.swiftSuspectsAdded.contains(function) {
                parts.append("a new Swift start-up suspect of \(object.name)")
            }
        } else if object.status == .added || object.status == .removed {
            let relocations = object.relocations.first { $0.name == "total" }
            let count = (object.status == .added ? relocations?.head : relocations?.base) ?? 0
            let initializers = (object.status == .added ? object.initializers.head : object.initializers.base) ?? 0
            let needed = diff.objects.filter {
                (object.status == .added ? $0.neededAdded : $0.neededRemoved).contains(object.name)
            }.map(\.name)
            var text = object.status == .added ? "new in head" : "gone from head"
            if !needed.isEmpty {
                text += ": \(object.status == .added ? "needed" : "was needed") by \(needed.joined(separator: ", "))"
            }
            // An object known only from closures (a system library) has no counts of its own here.
            if object.mappedBy == nil {
                text +=
                    "; \(count) relocation\(count == 1 ? "" : "s"), \(initializers) initializer\(initializers == 1 ? "" : "s")"
            }
            parts.append(text)
        }
        if !parts.isEmpty { cause.staticChange = parts.joined(separator: "; ") }
        return cause
    }

    /// The worst of: a failed run, a regression (measured by `compare`, or in the diff when
    /// its folders held measure reports), failing findings, an inconclusive comparison,
    /// nothing measured; else a pass. Reasons: the measured part's first, then the diff's.
    public static func verdict(diff: DiffReport, measured: Measured) -> PullRequestReport.Verdict {
        var reasons: [String] = []
        let measuredStatus: VerdictStatus
        switch measured {
        case .compared(let report):
            // A failed run is `runFailed`; the comparison's reasons name the failures.
            measuredStatus = passing(report.outcome)
            reasons += report.reasons
        case .matrix(let rows):
            // The worst row's; each row that did not stay the same says why, in its own words.
            measuredStatus = rows.map { passing($0.outcome) }.reduce(VerdictStatus.pass) { $0.worse($1) }
            let changed = rows.filter { $0.outcome != .noChange }
            for row in changed {
                reasons.append(
                    "launch \(row.rowLabel): \(row.outcome.title)" + (row.reasons.first.map { ": " + $0 } ?? ""))
            }
            let unchanged = rows.count - changed.count
            if unchanged > 0 {
                reasons.append("\(unchanged) of \(rows.count) launch rows unchanged")
            }
        case .notMeasured(let reason, let why):
            measuredStatus = why == .launchFailed ? .runFailed : .notMeasured
            reasons.append("not measured: " + reason)
        }
        // Unconfirmed regressions come only from measure reports in the folders; the paired
        // comparison is what decides.
        let staticStatus = passing(diff.verdict.status)
        reasons += diff.verdict.reasons
        return .init(status: measuredStatus.worse(staticStatus), reasons: reasons)
    }

    /// A verdict of compare or diff as a pull request says it: the same word, or `pass` for the
    /// verdicts that fail nothing (improvement, no change, unconfirmed).
    static func passing(_ status: VerdictStatus) -> VerdictStatus {
        status.exitCode == .success ? .pass : status
    }
}
