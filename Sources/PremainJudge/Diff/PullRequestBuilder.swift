import PremainModel

/// Puts `premain pr`'s report together: the static diff of the two artifact folders, the
/// paired comparison (or why there is none), and one verdict over both. Pure: no files, no
/// launches.
public enum PullRequestBuilder {
    /// What became of the measured part.
    public enum Measured: Sendable, Equatable {
        /// `premain compare` ran (its runs may still have failed: `runs.stop == .failed`).
        case compared(CompareReport)
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
        budgets: PremainConfig.Budgets = .init()
    ) -> PullRequestReport {
        var diff = diff
        var measured = measured
        if case .compared(var report) = measured, let causes = report.causes {
            report.causes = causes.map { staticChange(of: $0, in: diff) }
            measured = .compared(report)
        }
        if case .compared(let report) = measured {
            let over = BudgetChecker.functionBudgets(
                BudgetChecker.tracedFunctions(of: report.causes ?? []), budgets,
                measuredBy: "traced head")
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
        switch measured {
        case .compared(let report):
            compare = report
            if report.runs.stop == .failed {
                // Nothing to compare once a build's program fails: say so, with the failures.
                let failures = report.base.failures.map { "base: " + $0 } + report.head.failures.map { "head: " + $0 }
                notMeasured = "a run failed" + (failures.isEmpty ? "" : " (" + failures.joined(separator: "; ") + ")")
            }
        case .notMeasured(let reason, _): notMeasured = reason
        }
        return PullRequestReport(
            verdict: verdict(diff: diff, measured: measured), command: command, compare: compare,
            notMeasured: notMeasured, diff: diff, skipped: skipped, commits: commits)
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
