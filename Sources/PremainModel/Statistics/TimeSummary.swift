/// A time, in milliseconds, summarized over the runs of one series: the contract every
/// measured figure of `measure`, `trace` and `diff` shares.
///
/// `samplesMs` keeps every raw sample in run order; `outliers` are indices into it
/// (modified Z-score above 3.5, see `OutlierDetector`).
public struct TimeSummary: Codable, Equatable, Sendable {
    public var medianMs: Double
    public var p90Ms: Double
    public var minMs: Double
    public var maxMs: Double
    /// Median absolute deviation, unscaled.
    public var madMs: Double
    public var samplesMs: [Double]
    public var outliers: [Int]

    public init(
        medianMs: Double, p90Ms: Double, minMs: Double, maxMs: Double, madMs: Double,
        samplesMs: [Double], outliers: [Int]
    ) {
        self.medianMs = medianMs
        self.p90Ms = p90Ms
        self.minMs = minMs
        self.maxMs = maxMs
        self.madMs = madMs
        self.samplesMs = samplesMs
        self.outliers = outliers
    }

    /// All zero, no samples: the summary of a series in which nothing completed (a traced
    /// function entered in every run but never returning).
    public static let zero = TimeSummary(
        medianMs: 0, p90Ms: 0, minMs: 0, maxMs: 0, madMs: 0, samplesMs: [], outliers: [])

    /// Summarizes `samplesMs` (run order kept). Returns `nil` when there is no sample.
    public init?(samplesMs: [Double], detector: OutlierDetector = OutlierDetector()) {
        guard let median = SampleStatistics.median(samplesMs),
            let p90 = SampleStatistics.percentile(samplesMs, 0.9),
            let low = samplesMs.min(), let high = samplesMs.max(),
            let mad = SampleStatistics.medianAbsoluteDeviation(samplesMs)
        else { return nil }
        self.init(
            medianMs: median, p90Ms: p90, minMs: low, maxMs: high, madMs: mad,
            samplesMs: samplesMs, outliers: detector.outlierIndices(samplesMs))
    }

    enum CodingKeys: String, CodingKey {
        case medianMs, p90Ms, minMs, maxMs, madMs, samplesMs, outliers
    }

    /// Reads a summary as reports write it. Only `medianMs` is required: what is absent (a
    /// hand-written report, or `diff`'s JSON, which keeps no MAD or outliers) is computed from
    /// `samplesMs`, or is the median (MAD 0, no outliers) when there are no samples either.
    /// Every time is a duration (finite, from 0 to `ReportLimits.maxMilliseconds`: the one
    /// range check of every measured time premain reads, `CheckedDecoding`), and every outlier
    /// an index of `samplesMs`; else the decoding fails naming the key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let median = try container.decodeDuration(.medianMs)
        let samples = try container.decodeDurationList(.samplesMs) ?? []
        func value(_ key: CodingKeys, _ computed: @autoclosure () -> Double?) throws -> Double {
            try container.decodeDurationIfPresent(key) ?? computed() ?? (key == .madMs ? 0 : median)
        }
        let outliers = try container.decodeIfPresent([Int].self, forKey: .outliers)
        if let outliers, let wrong = outliers.first(where: { !samples.indices.contains($0) }) {
            throw DecodingError.dataCorruptedError(
                forKey: .outliers, in: container,
                debugDescription: "outlier index \(wrong) is not an index of samplesMs (\(samples.count) samples)")
        }
        self.init(
            medianMs: median, p90Ms: try value(.p90Ms, SampleStatistics.percentile(samples, 0.9)),
            minMs: try value(.minMs, samples.min()), maxMs: try value(.maxMs, samples.max()),
            madMs: try value(.madMs, SampleStatistics.medianAbsoluteDeviation(samples)), samplesMs: samples,
            outliers: outliers ?? OutlierDetector().outlierIndices(samples))
    }

    /// Spread relative to the median (MAD / median); 0 when the median is 0.
    public var relativeSpread: Double {
        medianMs > 0 ? madMs / medianMs : 0
    }
}
