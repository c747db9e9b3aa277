import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import Testing

/// Statistics on data whose answers are known by hand.
struct MeasureStatisticsTests {
    @Test func medianOfOddAndEvenCounts() {
        #expect(SampleStatistics.median([5, 1, 3]) == 3)
        #expect(SampleStatistics.median([4, 1, 3, 2]) == 2.5)
        #expect(SampleStatistics.median([]) == nil)
        #expect(SampleStatistics.median([7]) == 7)
    }

    @Test func percentileInterpolatesLinearly() {
        // NumPy: np.percentile([1..10], 90) == 9.1
        let values = (1...10).map(Double.init)
        #expect(abs((SampleStatistics.percentile(values, 0.9) ?? 0) - 9.1) < 1e-12)
        #expect(SampleStatistics.percentile(values, 0) == 1)
        #expect(SampleStatistics.percentile(values, 1) == 10)
        #expect(SampleStatistics.percentile([], 0.5) == nil)
    }

    @Test func madIsTheMedianOfAbsoluteDeviations() {
        // median 3; deviations 2,1,0,1,97 → sorted 0,1,1,2,97 → 1
        #expect(SampleStatistics.medianAbsoluteDeviation([1, 2, 3, 4, 100]) == 1)
        #expect(SampleStatistics.medianAbsoluteDeviation([2, 2, 2, 9]) == 0)
    }

    @Test func modifiedZFlagsOnlyTheFarValue() {
        let detector = OutlierDetector()
        // median 10, MAD 1: 0.6745 × 20 / 1 = 13.49 for 30; 0.6745 × 1 for 9 and 11.
        let samples: [Double] = [9, 10, 11, 10, 30, 10, 9, 11]
        #expect(detector.outlierIndices(samples) == [4])
        let scores = detector.scores(samples)
        #expect(abs(scores[4] - 0.6745 * 20) < 1e-9)
    }

    @Test func modifiedZFallsBackToMeanDeviationWhenMADIsZero() {
        // median 5, MAD 0; mean AD = 10/5 = 2 → Z(15) = 10 / (1.253314 × 2) = 3.99 > 3.5
        let samples: [Double] = [5, 5, 5, 5, 15]
        #expect(OutlierDetector().outlierIndices(samples) == [4])
        #expect(OutlierDetector().outlierIndices([4, 4, 4]) == [])
    }

    @Test func timeSummaryKeepsRawSamplesInRunOrder() throws {
        let summary = try #require(TimeSummary(samplesMs: [3, 1, 2, 50, 2]))
        #expect(summary.samplesMs == [3, 1, 2, 50, 2])
        #expect(summary.medianMs == 2)
        #expect(summary.minMs == 1 && summary.maxMs == 50)
        #expect(summary.madMs == 1)
        #expect(abs(summary.p90Ms - 31.2) < 1e-9)  // 3 + 0.6 × (50 − 3)... sorted [1,2,2,3,50]: pos 3.6 → 3 + 0.6 × 47
        #expect(summary.outliers == [3])
        #expect(TimeSummary(samplesMs: []) == nil)
    }

    @Test func slowFirstRunDrawsWarmupAdvice() throws {
        let summary = try #require(TimeSummary(samplesMs: [20, 10, 10.1, 9.9, 10, 10.2, 9.8]))
        let warnings = WarningAdvisor().warnings(for: summary, subject: "exit")
        #expect(warnings.map(\.kind) == [.firstRunSlower])
        #expect(warnings[0].advice.contains("--warmup"))
        #expect(warnings[0].message == "the first run took 20.000 ms against a median of 10.000 ms")
    }

    @Test func wideSpreadAndOutliersDrawAdvice() throws {
        let noisy = try #require(TimeSummary(samplesMs: [10, 14, 8, 12, 6, 15, 9]))
        #expect(WarningAdvisor().warnings(for: noisy, subject: "main").map(\.kind) == [.wideSpread])
        let spike = try #require(TimeSummary(samplesMs: [10, 10.1, 9.9, 10, 25, 10.2, 9.8]))
        let kinds = WarningAdvisor().warnings(for: spike, subject: "main").map(\.kind)
        #expect(kinds == [.outliers])
        let steady = try #require(TimeSummary(samplesMs: [10, 10.1, 9.9, 10, 10.05, 10.2, 9.8]))
        #expect(WarningAdvisor().warnings(for: steady, subject: "main").isEmpty)
        #expect(WarningAdvisor().runCountWarning(runs: 3)?.kind == .fewRuns)
        #expect(WarningAdvisor().runCountWarning(runs: 10) == nil)
    }

    @Test func millisecondsFormat() {
        #expect(Milliseconds.text(0.05) == "0.050 ms")
        #expect(Milliseconds.number(12.3456) == "12.346")
        #expect(Milliseconds.number(-0.0004) == "0.000")
        #expect(Milliseconds.number(2.5, decimals: 0) == "3")
    }
}
