/// The result of `premain pr`: the paired launch comparison of one program of two builds
/// (`CompareReport`), or why there is none, beside the static diff and the findings of the
/// two builds' artifact folders (`DiffReport`), and one verdict over both. Codable; JSON
/// `schemaVersion` 1.
public struct PullRequestReport: Codable, Sendable, Equatable, KindedReport {
    public static let kind = ReportKind.pr
    public var schemaVersion: Int = 1
    public var kind = ReportKindField<PullRequestReport>()
    public var tool: ToolInfo
    public var verdict: Verdict
    /// The program launched (`--run`, relative to each artifact folder) and its arguments;
    /// `nil` without `--run`.
    public var command: [String]?
    /// The paired comparison; `nil` when it did not start (kept, with `notMeasured`, when a run
    /// failed during it).
    public var compare: CompareReport?
    /// Why nothing was measured ("no --run given", "math: no such executable file in
    /// head/.build/release", a launch that could not be set up, "a run failed (head: …)");
    /// `nil` when `compare` decided or ran out of budget.
    public var notMeasured: String?
    /// Static deltas, closures and findings of the two artifact folders (no measured part).
    public var diff: DiffReport
    /// What each side's folder held that was left out.
    public var skipped: SkippedSides
    /// The commits built with `--commits`, as full SHAs; `nil` for `--base`/`--head` folders.
    public var commits: Commits?
    /// What made start-up change, largest share first (the comparison's `causes`; over the
    /// launch matrix, every row's); `nil` when nothing was explained.
    public var causes: [StartupCause]?
    /// The paired comparison of each row of premain.json's launch matrix (launch ×
    /// temperature), in declaration order, when pr compared the matrix; `compare` is then the
    /// row the comment leads with (the worst). `nil` for one command (`--run`).
    public var launches: [CompareReport]?

    public init(
        tool: ToolInfo = .current, verdict: Verdict, command: [String]?, compare: CompareReport?,
        notMeasured: String?, diff: DiffReport, skipped: SkippedSides, commits: Commits? = nil
    ) {
        self.tool = tool
        self.verdict = verdict
        self.command = command
        self.compare = compare
        self.notMeasured = notMeasured
        self.diff = diff
        self.skipped = skipped
        self.commits = commits
        self.causes = compare?.causes
    }

    /// One verdict over the measured and the static part, with its reasons.
    public struct Verdict: Codable, Sendable, Equatable {
        /// `runFailed`, `regression`, `findings`, `inconclusive`, `notMeasured` or `pass`
        /// (`VerdictStatus.written(by: .pr)`); `premain pr` exits with its `exitCode` (3 when
        /// `--run` names no executable).
        public typealias Status = VerdictStatus

        public var status: Status
        /// The reasons, most important first: the comparison's, then the failing findings'.
        public var reasons: [String]

        public init(status: Status, reasons: [String]) {
            self.status = status
            self.reasons = reasons
        }
    }

    /// What each side's folder held that was left out.
    public struct SkippedSides: Codable, Sendable, Equatable {
        public var base: SkippedFiles
        public var head: SkippedFiles

        public init(base: SkippedFiles = .init(), head: SkippedFiles = .init()) {
            self.base = base
            self.head = head
        }
    }

    /// The two commits of `--commits`.
    public struct Commits: Codable, Sendable, Equatable {
        public var base: String
        public var head: String

        public init(base: String, head: String) {
            self.base = base
            self.head = head
        }
    }
}
