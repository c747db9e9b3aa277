/// `premain compare` over the launch matrix (premain.json `launches`): one `CompareReport` per
/// row, launch × temperature, each naming its `launch` and `temperature`; the rows' blocks were
/// interleaved with one another. Codable; JSON `schemaVersion` 1.
public struct CompareMatrixReport: Codable, Equatable, Sendable, KindedReport {
    public static let kind = ReportKind.compareMatrix
    public var schemaVersion: Int = 1
    public var kind = ReportKindField<CompareMatrixReport>()
    public var tool: ToolInfo
    /// The worst row's outcome (`CompareReport.outcome`: a failed run counts as `runFailed`).
    public var verdict: VerdictStatus
    /// The rows in declaration order.
    public var launches: [CompareReport]

    public init(tool: ToolInfo = .current, launches: [CompareReport]) {
        self.tool = tool
        self.launches = launches
        verdict = launches.map(\.outcome).reduce(VerdictStatus.noChange) { $0.worse($1) }
    }

    /// The exit code: the worst row's.
    public var exitCode: ExitCode { verdict.exitCode }
}

extension CompareReport {
    /// Its row's name: "version", "format (cold)"; "launch" for the command line's.
    public var rowLabel: String {
        LaunchRow.label(name: launch, temperature: temperature ?? .warm)
    }
}
