/// What `compare`, `diff` and `pr` concluded, in one vocabulary: a word means the same in every
/// report that uses it, and each report uses the words that apply to it (`written(by:)`). Worst
/// first; each status knows its exit code.
public enum VerdictStatus: String, Codable, Sendable, CaseIterable {
    /// A run of either build failed (pr; compare says so with `runs.stop` `failed`).
    case runFailed
    /// A measured quantity regressed and something deterministic backs it: compare's interval
    /// wholly above +threshold with another signal (or exact instruction counts past theirs),
    /// diff's regression with a loader count, CPU time or a new dependency, initializer or
    /// Swift suspect in head.
    case regression
    /// New findings at or above fail-on, or a budget exceeded in head (diff, pr).
    case findings
    /// The run budget ran out first, a run failed, or a wall-time change has no backing
    /// (compare, pr).
    case inconclusive
    /// Nothing was measured: no `--run`, or the executable is missing or cannot start (pr).
    case notMeasured
    /// A measured quantity regressed in two separately measured series, but nothing
    /// deterministic backs it: drift of the machine cannot be told from a change; `premain
    /// compare` can (diff). Not a failure.
    case unconfirmed
    /// The mirror image of a regression: wholly below −threshold, backed (compare).
    case improvement
    /// Every gated interval lies wholly inside ±threshold (compare).
    case noChange
    /// Nothing failed: measured without regression, and no failing findings (diff, pr).
    case pass

    /// The exit code of a report with this verdict.
    public var exitCode: ExitCode {
        switch self {
        case .runFailed: return .targetFailed
        case .regression: return .regression
        case .findings: return .findings
        case .inconclusive, .notMeasured: return .inconclusive
        case .unconfirmed, .improvement, .noChange, .pass: return .success
        }
    }

    /// `exitCode`, but success for findings when findings do not fail (`--fail-on never`:
    /// `failOn` is `nil`).
    public func exitCode(failOn: Severity?) -> ExitCode {
        self == .findings && failOn == nil ? .success : exitCode
    }

    /// The verdict for people: "regression", "no change", "not measured", "run failed".
    public var title: String {
        switch self {
        case .runFailed: return "run failed"
        case .notMeasured: return "not measured"
        case .noChange: return "no change"
        case .regression, .findings, .inconclusive, .unconfirmed, .improvement, .pass: return rawValue
        }
    }

    /// The worse of two verdicts (the earlier in `allCases`).
    public func worse(_ other: VerdictStatus) -> VerdictStatus {
        let order = Self.allCases
        return (order.firstIndex(of: other) ?? 0) < (order.firstIndex(of: self) ?? 0) ? other : self
    }

    /// The statuses a report of `kind` writes (its schema's `enum`), worst first; `[]` for a
    /// kind without a verdict.
    public static func written(by kind: ReportKind) -> [VerdictStatus] {
        switch kind {
        case .compare, .fieldCompare: return [.regression, .inconclusive, .improvement, .noChange]
        case .compareMatrix: return [.runFailed, .regression, .inconclusive, .improvement, .noChange]
        case .diff: return [.regression, .findings, .unconfirmed, .pass]
        case .pr: return [.runFailed, .regression, .findings, .inconclusive, .notMeasured, .pass]
        case .audit, .measure, .trace, .check, .history, .field, .loaderCostModel: return []
        }
    }
}
