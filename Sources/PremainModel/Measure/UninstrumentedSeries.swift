/// The uninstrumented series: what can be seen without `LD_DEBUG`.
public struct UninstrumentedSeries: Codable, Equatable, Sendable {
    public var runs: Int
    public var firstOutput: TimeSummary?
    public var exit: TimeSummary?
    /// The target's own CPU time (user + system) per run; `nil` when not measured.
    public var cpu: TimeSummary?
    public var outcomes: [LaunchOutcome]

    public init(runs: Int, firstOutput: TimeSummary? = nil, exit: TimeSummary? = nil, cpu: TimeSummary? = nil, outcomes: [LaunchOutcome]) {
        self.runs = runs
        self.firstOutput = firstOutput
        self.exit = exit
        self.cpu = cpu
        self.outcomes = outcomes
    }
}
