import Testing

@testable import PremainModel

/// Issue 33: nearest-rank percentiles, their order-statistic intervals on known data, the notes
/// of small samples, and the fixed bucket layout.
struct FieldStatisticsTests {
    @Test func nearestRankIsAMeasuredValue() {
        let values = (1...10).map(Double.init)
        #expect(QuantileInterval.nearestRank(values, 0.5) == 5)
        #expect(QuantileInterval.nearestRank(values, 0.9) == 9)
        #expect(QuantileInterval.nearestRank(values, 0.95) == 10)
        #expect(QuantileInterval.nearestRank([Double](), 0.5) == nil)
        #expect(QuantileInterval.rank(count: 40, 0.99) == 40)
        #expect(QuantileInterval.rank(count: 100, 0.99) == 99)
    }

    /// Known ranks: for n = 100 and the median, the exact binomial gives x(40)…x(61) (coverage
    /// 96.5 %); for n = 10, x(2)…x(9) (97.9 %), as tables of distribution-free intervals give.
    @Test func intervalRanksMatchTheBinomialTables() {
        let hundred = QuantileInterval.ranks(count: 100, quantile: 0.5)
        #expect(hundred.lower == 40 && hundred.upper == 61)
        let ten = QuantileInterval.ranks(count: 10, quantile: 0.5)
        #expect(ten.lower == 2 && ten.upper == 9)
        let five = QuantileInterval.ranks(count: 5, quantile: 0.5)
        #expect(five.lower == nil && five.upper == nil)
        // Normal approximation above 5,000: close to n·q ± 1.96·√(n·q·(1−q)).
        let large = QuantileInterval.ranks(count: 1_000_000, quantile: 0.9)
        #expect(large.lower.map { abs($0 - 899_412) <= 2 } == true)
        #expect(large.upper.map { abs($0 - 900_589) <= 2 } == true)
        #expect(QuantileInterval.smallestCount(quantile: 0.5) == 6)
        #expect(QuantileInterval.smallestCount(quantile: 0.99) == 368)
    }

    @Test func smallSamplesSaySoInTheirNotes() throws {
        let forty = try #require(FieldDistribution(nanoseconds: (1...40).map { Int64($0) * 1_000_000 }))
        #expect(forty.notes.contains("p99 of 40 launches is the maximum"))
        #expect(forty.notes.contains("no 95 % interval for p99 of 40 launches (needs 368)"))
        #expect(forty[.p99]?.valueMs == 40 && forty[.p99]?.highMs == nil)
        #expect(forty[.p50]?.valueMs == 20 && forty[.p50]?.lowMs == 14 && forty[.p50]?.highMs == 27)
        #expect(!forty.notes.contains { $0.hasPrefix("p50") || $0.contains("for p50") })
        #expect(forty.samples == 40 && forty.sumMs == 820)
        #expect(forty.buckets.map(\.count).reduce(0, +) == 40)
    }

    @Test func bucketsAreTenMicrosecondsTimesTwoToTheTenthPower() {
        #expect(FieldBuckets.count == 251)
        #expect(FieldBuckets.upperBoundSeconds(0) == 10e-6)
        #expect(abs(FieldBuckets.upperBoundSeconds(10) - 20e-6) < 1e-15)
        #expect(FieldBuckets.upperBoundSeconds(248) < 300 && FieldBuckets.upperBoundSeconds(249) >= 300)
        #expect(FieldBuckets.upperBoundSeconds(250) == .infinity)
        #expect(FieldBuckets.index(ofNanoseconds: 0) == 0)
        #expect(FieldBuckets.index(ofNanoseconds: 10_000) == 0)
        #expect(FieldBuckets.index(ofNanoseconds: 10_001) == 1)
        #expect(FieldBuckets.index(ofNanoseconds: 20_000) == 10)
        #expect(FieldBuckets.index(ofNanoseconds: 400_000_000_000) == 250)
        for value: Int64 in [12_345, 1_000_000, 27_000_000, 59_999_999_999] {
            let index = FieldBuckets.index(ofNanoseconds: value)
            #expect(Double(value) <= FieldBuckets.upperBoundNs(index))
            #expect(Double(value) > FieldBuckets.upperBoundNs(index - 1))
        }
    }
}
