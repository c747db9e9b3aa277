#if canImport(Glibc)
    import Glibc
#endif

/// Distribution-free statistics of one sample of times: the nearest-rank percentile and its
/// confidence interval from order statistics. For a sample of `n`, the number of values below
/// the true quantile `q` is Binomial(n, q), so the interval [x₍ₗ₎, x₍ᵤ₎] covers the quantile
/// with probability P(l ≤ B < u), whatever the distribution: `l` is the largest rank with
/// P(B < l) ≤ 2.5 %, `u` the smallest with P(B ≥ u) ≤ 2.5 % (so at least 95 %). Exact binomial
/// tails up to n = 5,000; the normal approximation with a continuity correction above.
public enum QuantileInterval {
    /// The nearest-rank percentile: the value of rank ⌈q·n⌉ (1-based) of `sorted` (ascending):
    /// always a value that was measured. `nil` for an empty sample.
    public static func nearestRank<T>(_ sorted: [T], _ quantile: Double) -> T? {
        guard !sorted.isEmpty else { return nil }
        return sorted[rank(count: sorted.count, quantile) - 1]
    }

    /// ⌈q·n⌉ clamped to 1…n.
    public static func rank(count: Int, _ quantile: Double) -> Int {
        let exact = quantile * Double(count)
        var rank = Int(exact.rounded(.up))
        // 0.9 × 10 is 9.000000000000002 in binary floating point: the rank is 9.
        if Double(rank - 1) >= exact - 1e-9 * Double(count) { rank -= 1 }
        return min(max(rank, 1), count)
    }

    /// The 1-based ranks (lower, upper) of the interval at `level` for the `quantile` of `count`
    /// values; either is `nil` when `count` is too small for that side (the quantile may lie
    /// beyond the smallest or the largest value with more than (1 − level)/2 probability).
    public static func ranks(count: Int, quantile: Double, level: Double = 0.95) -> (lower: Int?, upper: Int?) {
        guard count > 0, quantile > 0, quantile < 1 else { return (nil, nil) }
        let tail = (1 - level) / 2
        if count > 5_000 {
            let mean = Double(count) * quantile
            let spread = (mean * (1 - quantile)).squareRoot()
            let z = normalQuantile(1 - tail)
            let lower = Int((mean - z * spread - 0.5).rounded(.down))
            let upper = Int((mean + z * spread + 0.5).rounded(.up)) + 1
            return (lower >= 1 ? lower : nil, upper <= count ? upper : nil)
        }
        // Lower: the largest l with P(B ≤ l − 1) ≤ tail.
        var lower: Int? = nil
        var cumulative = 0.0
        for k in 0..<count {
            cumulative += probability(k, count, quantile)
            if cumulative > tail { break }
            lower = k + 1
        }
        // Upper: the smallest u with P(B ≥ u) ≤ tail.
        var upper: Int? = nil
        var upperTail = 0.0
        for k in stride(from: count, through: 1, by: -1) {
            upperTail += probability(k, count, quantile)
            if upperTail > tail { break }
            upper = k
        }
        return (lower, upper)
    }

    /// The smallest sample with a two-sided interval at `level` for `quantile`: both ends
    /// exist from this count on (p50: 6, p90: 36, p95: 72, p99: 368 at 95 %).
    public static func smallestCount(quantile: Double, level: Double = 0.95) -> Int {
        var count = 1
        while count < 1_000_000 {
            let (lower, upper) = ranks(count: count, quantile: quantile, level: level)
            if lower != nil && upper != nil { return count }
            count += 1
        }
        return count
    }

    /// P(B = k) for B ~ Binomial(n, p), through log-gamma.
    static func probability(_ k: Int, _ n: Int, _ p: Double) -> Double {
        let logChoose = lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1))
        return exp(logChoose + Double(k) * log(p) + Double(n - k) * log1p(-p))
    }

    /// The standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9).
    static func normalQuantile(_ p: Double) -> Double {
        let a = [
            -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690, -30.66479806614716,
            2.506628277459239,
        ]
        let b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
        let c = [
            -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
            4.374664141464968, 2.938163982698783,
        ]
        let d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
        let low = 0.02425
        if p < low {
            let q = (-2 * log(p)).squareRoot()
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        if p > 1 - low { return -normalQuantile(1 - p) }
        let q = p - 0.5
        let r = q * q
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }
}
