/// Turns summarized times into `MeasurementWarning`s with actionable advice.
public struct WarningAdvisor: Sendable {
    /// MAD / median above this is a wide spread (default 10 %).
    public var wideSpreadRatio: Double
    /// Fewer runs than this draw a `fewRuns` warning.
    public var minimumRuns: Int

    /// An outlier or a slow first run must differ from the median by at least this fraction
    /// (default 10 %) to be worth a warning: the modified Z-score alone flags 1 % differences
    /// when the spread is tiny.
    public var materialRatio: Double

    public init(wideSpreadRatio: Double = 0.10, minimumRuns: Int = 5, materialRatio: Double = 0.10) {
        self.wideSpreadRatio = wideSpreadRatio
        self.minimumRuns = minimumRuns
        self.materialRatio = materialRatio
    }

    /// Warnings about one summarized time named `subject` (a milestone or an object path).
    /// Returns `[]` when the series looks sound.
    public func warnings(for summary: TimeSummary, subject: String) -> [MeasurementWarning] {
        var found: [MeasurementWarning] = []
        let samples = summary.samplesMs
        func material(_ index: Int) -> Bool {
            abs(samples[index] - summary.medianMs) >= materialRatio * summary.medianMs
        }
        if samples.count >= 3, summary.outliers.contains(0), let first = samples.first,
           first > summary.medianMs, first == summary.maxMs, material(0) {
            found.append(MeasurementWarning(
                kind: .firstRunSlower, subject: subject,
                message: "the first run took \(Self.ms(first)) against a median of \(Self.ms(summary.medianMs))",
                advice: "caches were probably still cold; raise --warmup"))
        }
        if summary.relativeSpread > wideSpreadRatio {
            let percent = Int((summary.relativeSpread * 100).rounded())
            found.append(MeasurementWarning(
                kind: .wideSpread, subject: subject,
                message: "MAD is \(percent) % of the median (\(Self.ms(summary.madMs)) of \(Self.ms(summary.medianMs)))",
                advice: "the machine is noisy; close other work, use more --runs, and compare medians only"))
        }
        let otherOutliers = summary.outliers.filter { $0 != 0 || !found.contains { $0.kind == .firstRunSlower } }
        if samples.count >= minimumRuns, otherOutliers.contains(where: material) {
            let runs = otherOutliers.map { String($0 + 1) }.joined(separator: ", ")
            found.append(MeasurementWarning(
                kind: .outliers, subject: subject,
                message: "\(otherOutliers.count) of \(samples.count) runs are outliers (run \(runs))",
                advice: "look for interference from other processes; the median is robust to them, the maximum is not"))
        }
        return found
    }

    /// A `fewRuns` warning when `runs` is below `minimumRuns`, else `nil`.
    public func runCountWarning(runs: Int) -> MeasurementWarning? {
        guard runs < minimumRuns else { return nil }
        return MeasurementWarning(
            kind: .fewRuns, subject: "series",
            message: "only \(runs) counted run\(runs == 1 ? "" : "s")",
            advice: "use --runs \(max(minimumRuns, 10)) or more for a meaningful median and p90")
    }

    static func ms(_ value: Double) -> String {
        Milliseconds.text(value)
    }
}
