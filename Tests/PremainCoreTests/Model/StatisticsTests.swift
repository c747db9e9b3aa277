import XCTest

@testable import PremainJudge
@testable import PremainModel

final class StatisticsTests: XCTestCase {
    func testExactMannWhitneyMatchesTheTable() throws {
        // n1 = n2 = 3, complete separation: P(U = 0) = 1 / C(6, 3) = 1/20, two-sided 0.1.
        let separated = try XCTUnwrap(MannWhitney.test([1, 2, 3], [4, 5, 6]))
        XCTAssertEqual(separated.method, "exact")
        XCTAssertEqual(separated.u, 0)
        XCTAssertEqual(separated.pValue, 0.1, accuracy: 1e-12)
        // n1 = n2 = 5, U = 4: scipy 1.17 mannwhitneyu(method="exact") gives p = 0.09523809523809523.
        let close = try XCTUnwrap(MannWhitney.test([1, 2, 3, 6, 7], [4, 5, 8, 9, 10]))
        XCTAssertEqual(close.u, 4)
        XCTAssertEqual(close.pValue, 2 * 12.0 / 252, accuracy: 1e-12)  // P(U ≤ 4) = 12/252
        XCTAssertEqual(MannWhitney.exactDistribution(5, 5).reduce(0, +), 252)
    }

    func testNormalApproximationWithTies() throws {
        let x: [Double] = [1, 2, 2, 3, 3, 3, 4, 4, 5, 5]
        let y: [Double] = [3, 4, 4, 5, 5, 5, 6, 6, 7, 7]
        let result = try XCTUnwrap(MannWhitney.test(x, y))
        XCTAssertEqual(result.method, "normal")
        // scipy 1.17 stats.mannwhitneyu(x, y, method="asymptotic") → U = 14.5, p = 0.007154053613678814
        XCTAssertEqual(result.u, 14.5)
        XCTAssertEqual(result.pValue, 0.007154053613678814, accuracy: 1e-12)
        XCTAssertEqual(MannWhitney.test([2, 2, 2], [2, 2, 2])?.pValue, 1)
    }

    func testBootstrapIsSeededAndCoversTheShift() throws {
        let base = (0..<20).map { 10 + Double($0 % 5) * 0.1 }
        let head = base.map { $0 + 1 }
        let first = try XCTUnwrap(
            BootstrapInterval.differenceOfMedians(base: base, head: head, level: 0.99, resamples: 2000, seed: 7))
        let second = try XCTUnwrap(
            BootstrapInterval.differenceOfMedians(base: base, head: head, level: 0.99, resamples: 2000, seed: 7))
        XCTAssertEqual(first, second)
        XCTAssertLessThanOrEqual(first.lowMs, 1)
        XCTAssertGreaterThanOrEqual(first.highMs, 1)
        XCTAssertGreaterThan(first.lowMs, 0)
    }

    /// Launch-like noise: a normal core (Box–Muller) with occasional slow outliers.
    static func series(_ count: Int, median: Double, spread: Double, using generator: inout SeededGenerator) -> [Double]
    {
        (0..<count).map { _ in
            let u1 = max(Double.random(in: 0..<1, using: &generator), 1e-12)
            let u2 = Double.random(in: 0..<1, using: &generator)
            let normal = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
            let outlier =
                Double.random(in: 0..<1, using: &generator) < 0.05 ? Double.random(in: 1...4, using: &generator) : 0
            return median + spread * normal + outlier
        }
    }

    /// How many of `trials` pairs of 20-run series (base median 8 ms, head `headMedian`, both
    /// with launch-like noise from a generator seeded with `seed`) the detector calls `change`.
    func count(_ change: MeasuredDelta.Change, headMedian: Double, trials: Int, seed: UInt64) -> Int {
        var generator = SeededGenerator(seed: seed)
        var settings = DiffSettings()
        settings.bootstrapResamples = 300
        let detector = ChangeDetector(settings: settings)
        return (0..<trials).filter { trial in
            let base = Self.series(20, median: 8, spread: 0.4, using: &generator)
            let head = Self.series(20, median: headMedian, spread: 0.4, using: &generator)
            return detector.compare(
                base: TimeSummary(samplesMs: base)!, head: TimeSummary(samplesMs: head)!,
                seedSalt: UInt64(trial)
            ).change == change
        }.count
    }

    func testSameDistributionIsNoChangeInAtLeast95PercentOfTrials() {
        let quiet = count(.noChange, headMedian: 8, trials: 400, seed: 42)
        XCTAssertGreaterThanOrEqual(Double(quiet) / 400, 0.95, "\(quiet) of 400")
    }

    func testOneMillisecondShiftIsCaughtAt20RunsPerSide() {
        let caught = count(.regression, headMedian: 9, trials: 200, seed: 4242)
        XCTAssertGreaterThanOrEqual(Double(caught) / 200, 0.95, "\(caught) of 200")
    }

    func testSmallSignificantChangeBelowMinimumEffectIsNoChange() {
        let base = (0..<30).map { 100 + Double($0 % 3) * 0.01 }
        let head = base.map { $0 + 0.3 }  // significant, but 0.3 ms < max(0.5 ms, 5 %)
        let result = ChangeDetector().compare(base: TimeSummary(samplesMs: base), head: TimeSummary(samplesMs: head))
        XCTAssertLessThan(result.test?.pValue ?? 1, 0.01)
        XCTAssertEqual(result.change, .noChange)
    }
}
