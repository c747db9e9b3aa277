/// Instrumented median / uninstrumented median for the milestones both series see.
/// 1.03 means instrumentation added 3 %.
public struct ObserverEffect: Codable, Equatable, Sendable {
    public var firstOutputRatio: Double?
    public var exitRatio: Double?
    /// Ratio of the target's own CPU time (user + system), which other load disturbs less.
    public var cpuRatio: Double?

    public init(firstOutputRatio: Double? = nil, exitRatio: Double? = nil, cpuRatio: Double? = nil) {
        self.firstOutputRatio = firstOutputRatio
        self.exitRatio = exitRatio
        self.cpuRatio = cpuRatio
    }
}
