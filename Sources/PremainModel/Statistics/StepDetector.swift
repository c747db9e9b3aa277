/// Finds lasting level shifts (step changes) in a series of per-commit values by binary
/// segmentation on medians: in each segment the split with the least absolute deviation of each
/// side from its own median (an L1 cost) is kept when the sides' medians differ by at least
/// `minimumShiftNoise` times the series' noise and a Mann–Whitney test separates them at
/// `alpha`; then each side is searched again.
///
/// The noise is estimated robustly from neighbouring differences (1.4826 × their median
/// absolute deviation / √2): a step moves one difference only, so it does not inflate the
/// estimate as a standard deviation over the whole series would. A creep of small regressions
/// shows as one or more steps where the level has moved by more than the noise.
public struct StepDetector: Sendable {
    /// Fewest points on each side of a step (the test needs a few to say anything).
    public var minimumSegment: Int
    /// Significance of the Mann–Whitney test of the two sides.
    public var alpha: Double
    /// A step must move the median by at least this many noise units.
    public var minimumShiftNoise: Double

    public init(minimumSegment: Int = 4, alpha: Double = 0.001, minimumShiftNoise: Double = 3) {
        self.minimumSegment = max(1, minimumSegment)
        self.alpha = alpha
        self.minimumShiftNoise = minimumShiftNoise
    }

    /// The robust noise of `values` (see the type's comment); 0 with fewer than 3 values or
    /// when neighbouring values never differ by more than their typical difference.
    public static func noise(_ values: [Double]) -> Double {
        guard values.count >= 3 else { return 0 }
        let differences = zip(values.dropFirst(), values).map { $0 - $1 }
        return 1.4826 * (SampleStatistics.medianAbsoluteDeviation(differences) ?? 0) / 2.0.squareRoot()
    }

    /// Indices of the first value after each step, ascending. A series whose neighbouring
    /// values never vary (a count) has no noise: then every change of level is a step, with
    /// one point on each side enough.
    public func steps(_ values: [Double]) -> [(index: Int, pValue: Double)] {
        let sigma = Self.noise(values)
        var found: [(index: Int, pValue: Double)] = []
        split(values, 0, values.count, sigma: sigma, into: &found)
        return found.sorted { $0.index < $1.index }
    }

    /// The series' steps as model values, with each side's median taken between neighbouring
    /// steps.
    public func steps(of points: [HistoryPoint]) -> [StepChange] {
        let values = points.map(\.value)
        let found = steps(values)
        let bounds = [0] + found.map(\.index) + [values.count]
        return found.enumerated().map { position, step in
            let before = Array(values[bounds[position]..<step.index])
            let after = Array(values[step.index..<bounds[position + 2]])
            return StepChange(
                index: step.index, commit: points[step.index].commit, report: points[step.index].report,
                before: SampleStatistics.median(before) ?? 0, after: SampleStatistics.median(after) ?? 0,
                pValue: step.pValue)
        }
    }

    private func split(
        _ values: [Double], _ low: Int, _ high: Int, sigma: Double,
        into found: inout [(index: Int, pValue: Double)]
    ) {
        let minimum = sigma > 0 ? minimumSegment : 1
        guard high - low >= 2 * minimum else { return }
        // Where: the split with the least absolute deviation of each side from its own median
        // (an L1 cost: the magnitude counts, one outlier does not pull the split).
        var best: (index: Int, cost: Double)?
        for index in (low + minimum)...(high - minimum) {
            let cost = Self.absoluteDeviation(values[low..<index]) + Self.absoluteDeviation(values[index..<high])
            if cost < (best?.cost ?? .infinity) { best = (index, cost) }
        }
        guard let best else { return }
        let left = Array(values[low..<best.index])
        let right = Array(values[best.index..<high])
        let shift = abs((SampleStatistics.median(right) ?? 0) - (SampleStatistics.median(left) ?? 0))
        let pValue: Double
        if sigma > 0 {
            guard shift >= minimumShiftNoise * sigma,
                let test = MannWhitney.test(left, right), test.pValue < alpha
            else { return }
            pValue = test.pValue
        } else {
            // No noise: a change of level is a step when both sides hold still around it.
            guard shift > 0 else { return }
            pValue = 0
        }
        found.append((best.index, pValue))
        split(values, low, best.index, sigma: sigma, into: &found)
        split(values, best.index, high, sigma: sigma, into: &found)
    }

    /// The sum of absolute deviations of `values` from their median.
    static func absoluteDeviation(_ values: ArraySlice<Double>) -> Double {
        guard let median = SampleStatistics.median(Array(values)) else { return 0 }
        return values.reduce(0) { $0 + abs($1 - median) }
    }
}
