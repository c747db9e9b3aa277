/// One timed quantity over a series of runs, as measure and trace reports write it:
/// `{medianMs, p90Ms, minMs, maxMs, samplesMs}`. `samplesMs` holds every run's value (the
/// input of the Mann–Whitney test in `premain diff`); `[]` when a report left it out.
public struct TimingSummary: Codable, Sendable, Equatable {
    public var medianMs: Double
    public var p90Ms: Double?
    public var minMs: Double?
    public var maxMs: Double?
    public var samplesMs: [Double]

    public init(medianMs: Double, p90Ms: Double? = nil, minMs: Double? = nil, maxMs: Double? = nil,
                samplesMs: [Double] = []) {
        self.medianMs = medianMs
        self.p90Ms = p90Ms
        self.minMs = minMs
        self.maxMs = maxMs
        self.samplesMs = samplesMs
    }

    /// The summary of `samples` (median and p90 interpolated like NumPy's default). `nil`
    /// for an empty sample.
    public init?(samples: [Double]) {
        guard let median = SampleStatistics.median(samples) else { return nil }
        self.init(medianMs: median, p90Ms: SampleStatistics.percentile(samples, 0.9), minMs: samples.min(), maxMs: samples.max(),
                  samplesMs: samples)
    }

    enum CodingKeys: String, CodingKey { case medianMs, p90Ms, minMs, maxMs, samplesMs }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        medianMs = try container.decode(Double.self, forKey: .medianMs)
        p90Ms = try container.decodeIfPresent(Double.self, forKey: .p90Ms)
        minMs = try container.decodeIfPresent(Double.self, forKey: .minMs)
        maxMs = try container.decodeIfPresent(Double.self, forKey: .maxMs)
        samplesMs = try container.decodeIfPresent([Double].self, forKey: .samplesMs) ?? []
    }
}
