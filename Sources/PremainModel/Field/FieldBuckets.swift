#if canImport(Glibc)
    import Glibc
#endif

/// The one histogram layout of field reports, fixed so that histograms of different reports,
/// hosts and versions add up bucket by bucket, and so that a Prometheus or OTLP export is these
/// counts as they are: bucket `i` (0 ≤ i < `finiteCount`) holds the values `v` with
/// `bound(i − 1) < v ≤ bound(i)`, where `bound(i) = 10 µs × 2^(i/10)` (bucket 0 everything up to
/// 10 µs); the last bucket (`index == finiteCount`) holds the values above the last bound
/// (+Inf). Each bucket is 7.2 % wider than the one before it, so a quantile read from the
/// buckets is within 3.6 % of the exact one at the bucket's geometric middle. The last finite
/// bound is 10 µs × 2^24.9 ≈ 312.5 s.
public enum FieldBuckets {
    /// Bounds in one doubling: 10.
    public static let perDoubling = 10
    /// The first upper bound, in nanoseconds: 10 µs.
    public static let firstBoundNs = 10_000.0
    /// Finite upper bounds: 250 (i = 0 … 249, the last ≈ 312.5 s, the first at or above 300 s).
    public static let finiteCount = 250
    /// Every bucket, +Inf included: 251.
    public static let count = finiteCount + 1

    /// The upper bounds in nanoseconds, `finiteCount` of them, ascending.
    public static let boundsNs: [Double] = (0..<finiteCount).map { upperBoundNs($0) }

    /// The upper bounds in seconds (Prometheus' `le`, OTLP's `explicitBounds`), ascending.
    public static let boundsSeconds: [Double] = boundsNs.map { $0 / 1e9 }

    /// `10 µs × 2^(index/10)` in nanoseconds, rounded down to a whole nanosecond (records hold
    /// whole nanoseconds, so no value falls between the exact bound and this one: every bucket
    /// holds what it held, and an export's `le` is a whole number of nanoseconds);
    /// `.infinity` for `finiteCount` and above.
    public static func upperBoundNs(_ index: Int) -> Double {
        index >= finiteCount
            ? .infinity : (firstBoundNs * pow(2, Double(index) / Double(perDoubling))).rounded(.down)
    }

    /// The upper bound in seconds (Prometheus' `le`, OTLP's `explicit_bounds`); `.infinity` for
    /// the last bucket.
    public static func upperBoundSeconds(_ index: Int) -> Double { upperBoundNs(index) / 1e9 }

    /// The bucket that holds `nanoseconds`: the first whose upper bound is at or above it
    /// (0 for values up to 10 µs, negative ones included; `finiteCount` above the last bound).
    public static func index(ofNanoseconds nanoseconds: Int64) -> Int {
        let value = Double(nanoseconds)
        guard value > firstBoundNs else { return 0 }
        var low = 0
        var high = finiteCount  // boundsNs[high] would be +Inf
        while low < high {
            let middle = (low + high) / 2
            if boundsNs[middle] >= value { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// The number of values in one bucket of `FieldBuckets` (only buckets that hold any are written).
public struct FieldBucketCount: Codable, Equatable, Sendable {
    /// The bucket's index in `FieldBuckets`: its upper bound is `FieldBuckets.upperBoundSeconds(index)`.
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }
}
