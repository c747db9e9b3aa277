/// Order statistics over a sample of measurements (any unit). Pure functions, no state.
///
/// Every function returns `nil` for an empty sample and ignores no value: callers pass only
/// the samples of runs that reached the milestone.
public enum SampleStatistics {
    /// The middle value (mean of the two middle values for an even count). `nil` when empty.
    public static func median(_ samples: [Double]) -> Double? {
        percentile(samples, 0.5)
    }

    /// The `fraction` quantile (0...1) with linear interpolation between order statistics
    /// (Hyndman–Fan type 7, the default of R and NumPy). `nil` when empty.
    public static func percentile(_ samples: [Double], _ fraction: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let clamped = min(max(fraction, 0), 1)
        let position = clamped * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * weight
    }

    /// Median absolute deviation from the median, unscaled (no 1.4826 factor).
    /// `nil` when empty; `0` when more than half the samples are equal.
    public static func medianAbsoluteDeviation(_ samples: [Double]) -> Double? {
        guard let center = median(samples) else { return nil }
        return median(samples.map { abs($0 - center) })
    }

    /// Arithmetic mean. `nil` when empty.
    public static func mean(_ samples: [Double]) -> Double? {
        guard !samples.isEmpty else { return nil }
        return samples.reduce(0, +) / Double(samples.count)
    }
}
