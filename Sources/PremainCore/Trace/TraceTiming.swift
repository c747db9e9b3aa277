/// A time in ms summarized over runs, with the JSON keys of Measure's `TimeSummary`
/// (`medianMs`, `p90Ms`, `minMs`, `maxMs`, `samplesMs`). Kept thin on purpose: to be replaced
/// by `TimeSummary` once Measure is on main.
public struct TraceTiming: Codable, Equatable, Sendable {
    public var medianMs: Double
    public var p90Ms: Double
    public var minMs: Double
    public var maxMs: Double
    /// Every sample in run order.
    public var samplesMs: [Double]

    /// All zero and no samples: the timing of a function that never completed a call.
    public static let zero = TraceTiming(medianMs: 0, p90Ms: 0, minMs: 0, maxMs: 0, samplesMs: [])

    public init(medianMs: Double, p90Ms: Double, minMs: Double, maxMs: Double, samplesMs: [Double]) {
        self.medianMs = medianMs
        self.p90Ms = p90Ms
        self.minMs = minMs
        self.maxMs = maxMs
        self.samplesMs = samplesMs
    }

    /// Summarizes `samplesMs`; `nil` when empty. Quantiles interpolate linearly (type 7).
    public init?(samplesMs: [Double]) {
        guard let low = samplesMs.min(), let high = samplesMs.max() else { return nil }
        let sorted = samplesMs.sorted()
        func quantile(_ fraction: Double) -> Double {
            let position = fraction * Double(sorted.count - 1)
            let lower = Int(position.rounded(.down))
            let upper = min(lower + 1, sorted.count - 1)
            return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
        }
        medianMs = quantile(0.5)
        p90Ms = quantile(0.9)
        minMs = low
        maxMs = high
        self.samplesMs = samplesMs
    }
}
