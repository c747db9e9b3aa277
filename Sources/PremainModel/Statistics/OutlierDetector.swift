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
              let mad = SampleStatistics.medianAbsoluteDeviation(samples) else { return [] }
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
