#if canImport(Glibc)
    import Glibc
#endif

/// The Mann–Whitney U test (Wilcoxon rank-sum) for two independent samples: do the values of
/// one tend to be larger than the other's? Makes no assumption of normality, which launch
/// times (skewed, with outliers) do not meet.
///
/// The p-value is exact (the permutation distribution of U, by dynamic programming) when
/// there are no ties and both samples have at most `exactLimit` values; otherwise it uses the
/// normal approximation with tie correction and continuity correction.
public struct MannWhitney: Sendable, Equatable, Codable {
    /// U of the first sample: pairs (x, y) with x > y, ties counting one half.
    public var u: Double
    /// Two-sided p-value.
    public var pValue: Double
    /// "exact" or "normal".
    public var method: String

    public static let exactLimit = 50

    /// Tests `x` against `y`; `nil` when either sample is empty.
    public static func test(_ x: [Double], _ y: [Double]) -> MannWhitney? {
        let n1 = x.count
        let n2 = y.count
        guard n1 > 0, n2 > 0 else { return nil }
        let ranked = ranks(x + y)
        let rankSum = ranked.ranks.prefix(n1).reduce(0, +)
        let u1 = rankSum - Double(n1 * (n1 + 1)) / 2
        if ranked.tieGroups.isEmpty, n1 <= exactLimit, n2 <= exactLimit {
            return MannWhitney(u: u1, pValue: exactPValue(u: u1, n1, n2), method: "exact")
        }
        let n = Double(n1 + n2)
        let mean = Double(n1 * n2) / 2
        let tieTerm = ranked.tieGroups.reduce(0.0) { $0 + Double($1 * $1 * $1 - $1) }
        let variance = Double(n1 * n2) / 12 * ((n + 1) - tieTerm / (n * (n - 1)))
        guard variance > 0 else { return MannWhitney(u: u1, pValue: 1, method: "normal") }
        let z = max(0, abs(u1 - mean) - 0.5) / variance.squareRoot()
        return MannWhitney(u: u1, pValue: min(1, erfc(z / 2.0.squareRoot())), method: "normal")
    }

    /// Average ranks (1-based) of `values` in input order, and the size of every group of
    /// tied values (groups of one left out).
    static func ranks(_ values: [Double]) -> (ranks: [Double], tieGroups: [Int]) {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var ties: [Int] = []
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count, values[order[end + 1]] == values[order[start]] { end += 1 }
            let average = Double(start + end + 2) / 2
            for position in start...end { ranks[order[position]] = average }
            if end > start { ties.append(end - start + 1) }
            start = end + 1
        }
        return (ranks, ties)
    }

    /// Two-sided exact p-value: twice the smaller tail of U's permutation distribution.
    static func exactPValue(u: Double, _ n1: Int, _ n2: Int) -> Double {
        let distribution = exactDistribution(n1, n2)
        let total = distribution.reduce(0, +)
        let observed = Int(u.rounded())
        var lower = 0.0
        var upper = 0.0
        for (value, count) in distribution.enumerated() {
            if value <= observed { lower += count }
            if value >= observed { upper += count }
        }
        return min(1, 2 * min(lower, upper) / total)
    }

    /// Counts of arrangements with U = 0 … n1·n2 (frequencies, as Doubles to avoid overflow):
    /// f(i, j) = f(i−1, j) shifted by j + f(i, j−1).
    static func exactDistribution(_ n1: Int, _ n2: Int) -> [Double] {
        let maxU = n1 * n2
        // table[j] holds the distribution for (i, j) as i grows.
        var table = [[Double]](repeating: [], count: n2 + 1)
        for j in 0...n2 {
            var row = [Double](repeating: 0, count: maxU + 1)
            row[0] = 1
            table[j] = row
        }
        if n1 == 0 { return table[n2] }
        for _ in 1...n1 {
            var next = [[Double]](repeating: [], count: n2 + 1)
            var first = [Double](repeating: 0, count: maxU + 1)
            first[0] = 1  // (i, 0): only U = 0
            next[0] = first
            if n2 > 0 {
                for j in 1...n2 {
                    var row = next[j - 1]  // last element from y: U unchanged
                    let previous = table[j]  // last element from x: it beats all j of y
                    for value in 0...(maxU - j) where previous[value] != 0 { row[value + j] += previous[value] }
                    next[j] = row
                }
            }
            table = next
        }
        return table[n2]
    }

    public init(u: Double, pValue: Double, method: String) {
        self.u = u
        self.pValue = pValue
        self.method = method
    }
}
