import PremainAudit
import PremainModel

/// Progress of a series, for a progress bar.
public struct MeasureProgress: Sendable {
    public var completedLaunches: Int
    public var totalLaunches: Int
    /// "warm-up", "run", "uninstrumented run".
    public var phase: String
}
