#if canImport(Glibc)
    import Glibc
#endif

/// The distribution-free confidence interval of a paired difference: the Hodges–Lehmann
/// estimate (median of the Walsh averages) and the interval that inverts the Wilcoxon
/// signed-rank test (Walsh averages between two order statistics). Only assumes the
/// differences are independent and symmetric about the true shift, which is what interleaved,
/// balanced blocks give even when the machine's speed drifts.
public struct PairedInterval: Codable, Equatable, Sendable {
    /// The Hodges–Lehmann estimate of the shift.
    public var estimate: Double
    public var low: Double
    public var high: Double
    /// The confidence level asked for, e.g. 0.95. The exact coverage is at least this.
    public var level: Double
    /// How many differences it was computed from.
    public var count: Int

    public init(estimate: Double, low: Double, high: Double, level: Double, count: Int) {
        self.estimate = estimate
        self.low = low
        self.high = high
        self.level = level
        self.count = count
    }

    /// The interval of `differences` at `level` (0.5 ... 0.9999). `nil` when there are too
    /// few differences for any interval at that level (2^−n > (1 − level) / 2, e.g. fewer
    /// than 6 at 0.95) or a difference is not finite.
    public static func of(_ differences: [Double], level: Double) -> PairedInterval? {
        let n = differences.count
        guard n >= 1, differences.allSatisfy(\.isFinite), level > 0, level < 1 else { return nil }
        let walsh = walshAverages(differences)
        let excluded = SignedRankDistribution.excludedPerSide(n: n, tail: (1 - level) / 2)
        guard excluded >= 1 else { return nil }
        let estimate = SampleStatistics.percentile(sorted: walsh, 0.5)
        return PairedInterval(
            estimate: estimate, low: walsh[excluded - 1], high: walsh[walsh.count - excluded],
            level: level, count: n)
    }

    /// Every (dᵢ + dⱼ) / 2 with i ≤ j, sorted ascending.
    static func walshAverages(_ values: [Double]) -> [Double] {
        var averages: [Double] = []
        averages.reserveCapacity(values.count * (values.count + 1) / 2)
        for i in values.indices {
            for j in i..<values.count { averages.append((values[i] + values[j]) / 2) }
        }
        return averages.sorted()
    }
}

/// The null distribution of the Wilcoxon signed-rank statistic T⁺ (sum of the ranks of the
/// positive differences among n without ties): exact up to `exactLimit`, normal beyond.
enum SignedRankDistribution {
    static let exactLimit = 80

    /// The largest k such that P(T⁺ ≤ k − 1) ≤ `tail`: the number of Walsh averages left out
    /// on each side of the interval. 0 when even k = 1 is too wide a tail.
    static func excludedPerSide(n: Int, tail: Double) -> Int {
        let total = n * (n + 1) / 2
        if n <= exactLimit {
            let counts = nullCounts(n: n)
            let all = pow2(n)
            var cumulative = 0.0
            var k = 0
            // P(T⁺ ≤ k) for k = 0, 1, …; stop before it passes the tail.
            while k <= total {
                cumulative += counts[k] / all
                if cumulative > tail { break }
                k += 1
            }
            return k
        }
        let mean = Double(total) / 2
        let sd = (Double(n) * Double(n + 1) * Double(2 * n + 1) / 24).squareRoot()
        let z = NormalQuantile.of(1 - tail)
        return max(0, Int((mean - z * sd + 0.5).rounded(.down)))
    }

    /// How many of the 2ⁿ sign patterns give each T⁺ = 0 … n(n+1)/2.
    static func nullCounts(n: Int) -> [Double] {
        let total = n * (n + 1) / 2
        var counts = [Double](repeating: 0, count: total + 1)
        counts[0] = 1
        var reach = 0
        for rank in stride(from: 1, through: n, by: 1) {
            reach += rank
            for t in stride(from: reach, through: rank, by: -1) { counts[t] += counts[t - rank] }
        }
        return counts
    }

    static func pow2(_ n: Int) -> Double {
        var value = 1.0
        for _ in 0..<n { value *= 2 }
        return value
    }
}

/// The inverse of the standard normal distribution function (Acklam's rational
/// approximation, relative error below 1.2e−9), for the large-sample signed-rank interval.
enum NormalQuantile {
    static func of(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "a probability strictly between 0 and 1")
        let a = [
            -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
            1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00,
        ]
        let b = [
            -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
            6.680131188771972e+01, -1.328068155288572e+01,
        ]
        let c = [
            -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
            -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00,
        ]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let lowTail = 0.02425
        if p < lowTail {
            let q = (-2 * log(p)).squareRoot()
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        if p > 1 - lowTail { return -of(1 - p) }
        let q = p - 0.5
        let r = q * q
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }
}
