/// The uninstrumented series: what can be seen without `LD_DEBUG`.
public struct UninstrumentedSeries: Codable, Equatable, Sendable {
    public var runs: Int
    public var firstOutput: TimeSummary?
    public var exit: TimeSummary?
    /// The target's own CPU time (user + system) per run; `nil` when not measured.
    public var cpu: TimeSummary?
    public var outcomes: [LaunchOutcome]
}
