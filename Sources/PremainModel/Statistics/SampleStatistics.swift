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
        return percentile(sorted: samples.sorted(), fraction)
    }

    /// `percentile` of values already sorted ascending, without sorting again (the bootstrap
    /// in `diff` calls it thousands of times). `values` must not be empty.
    static func percentile(sorted values: [Double], _ fraction: Double) -> Double {
        let clamped = min(max(fraction, 0), 1)
        let position = clamped * Double(values.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, values.count - 1)
        let weight = position - Double(lower)
        return values[lower] + (values[upper] - values[lower]) * weight
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
