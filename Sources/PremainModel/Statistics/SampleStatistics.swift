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

/// Flags outliers with the modified Z-score of Iglewicz and Hoaglin:
/// `M = 0.6745 × (x − median) / MAD`, an outlier when `|M| > threshold` (3.5 by default).
///
/// When the MAD is 0 (more than half the samples equal) the mean absolute deviation is used
/// instead, `M = (x − median) / (1.253314 × meanAD)`, as IBM SPSS and hyperfine's authors
/// suggest; when that is 0 too, every sample equals the median and nothing is an outlier.
public struct OutlierDetector: Sendable {
    /// Scores above this (in absolute value) are outliers.
    public var threshold: Double

    public init(threshold: Double = 3.5) {
        self.threshold = threshold
    }

    /// The modified Z-score of every sample, in sample order. `[]` for an empty sample.
    public func scores(_ samples: [Double]) -> [Double] {
        guard let center = SampleStatistics.median(samples),
            let mad = SampleStatistics.medianAbsoluteDeviation(samples)
        else { return [] }
        if mad > 0 {
            return samples.map { 0.6745 * ($0 - center) / mad }
        }
        let meanAD = SampleStatistics.mean(samples.map { abs($0 - center) }) ?? 0
        guard meanAD > 0 else { return samples.map { _ in 0 } }
        return samples.map { ($0 - center) / (1.253314 * meanAD) }
    }

    /// Indices (into `samples`) of the outliers, ascending. `[]` when there are none.
    public func outlierIndices(_ samples: [Double]) -> [Int] {
        scores(samples).enumerated().filter { abs($0.element) > threshold }.map(\.offset)
    }
}
