/// The result of `premain check`: findings of the rules and budgets over the given binaries
/// and reports. Codable; JSON `schemaVersion` 1.
public struct CheckReport: Codable, Sendable, Equatable {
    public var schemaVersion: Int = 1
    public var tool: ToolInfo
    /// What was checked, as given on the command line.
    public var inputs: [String]
    /// Most severe first.
    public var findings: [Finding]
    /// The severity at or above which findings fail the check.
    public var failOn: Severity
    /// Files that could not be read.
    public var errors: [FileError]

    public init(tool: ToolInfo = .current, inputs: [String], findings: [Finding], failOn: Severity, errors: [FileError]) {
        self.tool = tool
        self.inputs = inputs
        self.findings = findings
        self.failOn = failOn
        self.errors = errors
    }

    /// Findings at or above `failOn`.
    public var failing: [Finding] { findings.filter { $0.severity >= failOn } }
}
