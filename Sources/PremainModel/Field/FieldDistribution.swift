/// The percentiles a field report gives, declared once: the raw value is the JSON key's stem
/// (`p90` → `p90Ms`, `p90LowMs`, `p90HighMs`) and the name in every renderer.
public enum FieldPercentile: String, CaseIterable, Codable, Sendable {
    case p50, p90, p95, p99

    /// 0.5, 0.9, 0.95, 0.99.
    public var quantile: Double {
        switch self {
        case .p50: return 0.5
        case .p90: return 0.9
        case .p95: return 0.95
        case .p99: return 0.99
        }
    }
}

/// One percentile of a sample: the nearest-rank value and its distribution-free 95 % interval.
public struct FieldQuantile: Equatable, Sendable {
    public var percentile: FieldPercentile
    /// The value of rank ⌈q·n⌉: a measured launch.
    public var valueMs: Double
    /// The interval's ends (order statistics); `nil` on a side where the sample is too small.
    public var lowMs: Double?
    public var highMs: Double?

    public init(percentile: FieldPercentile, valueMs: Double, lowMs: Double?, highMs: Double?) {
        self.percentile = percentile
        self.valueMs = valueMs
        self.lowMs = lowMs
        self.highMs = highMs
    }
}

/// The times of one quantity (time to main, loader start to main, a mark) over the launches of
/// one row: count, percentiles with intervals, extremes, sum, the histogram on `FieldBuckets`,
/// and notes where the sample is too small for a percentile or its interval. JSON keys name the
/// percentile and the unit: `samples`, `p50Ms`, `p50LowMs`, `p50HighMs`, … `sumMs`, `buckets`.
public struct FieldDistribution: Codable, Equatable, Sendable {
    public var samples: Int
    /// In `FieldPercentile` order.
    public var quantiles: [FieldQuantile]
    public var minMs: Double
    public var maxMs: Double
    public var sumMs: Double
    /// Non-empty buckets of `FieldBuckets`, by index.
    public var buckets: [FieldBucketCount]
    /// "p99 of 40 launches is the maximum", "no 95 % interval for p99 below 473 launches".
    public var notes: [String]

    public init(
        samples: Int, quantiles: [FieldQuantile], minMs: Double, maxMs: Double, sumMs: Double,
        buckets: [FieldBucketCount], notes: [String]
    ) {
        self.samples = samples
        self.quantiles = quantiles
        self.minMs = minMs
        self.maxMs = maxMs
        self.sumMs = sumMs
        self.buckets = buckets
        self.notes = notes
    }

    /// The percentile's value and interval; `nil` when the distribution has none (never for a
    /// built one).
    public subscript(_ percentile: FieldPercentile) -> FieldQuantile? {
        quantiles.first { $0.percentile == percentile }
    }

    /// The distribution of `nanoseconds` (any order); `nil` when empty. `unit` names the
    /// launches in notes ("launches").
    public init?(nanoseconds values: [Int64], level: Double = 0.95) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        self.init(sorted: sorted, level: level)
    }

    /// The same from values already sorted ascending; `nil` when empty.
    public init?(sorted: [Int64], level: Double = 0.95) {
        guard let first = sorted.first, let last = sorted.last else { return nil }
        let ms = { (value: Int64) in Double(value) / 1e6 }
        let count = sorted.count
        var quantiles: [FieldQuantile] = []
        var notes: [String] = []
        for percentile in FieldPercentile.allCases {
            let rank = QuantileInterval.rank(count: count, percentile.quantile)
            let (lower, upper) = QuantileInterval.ranks(count: count, quantile: percentile.quantile, level: level)
            quantiles.append(
                FieldQuantile(
                    percentile: percentile, valueMs: ms(sorted[rank - 1]), lowMs: lower.map { ms(sorted[$0 - 1]) },
                    highMs: upper.map { ms(sorted[$0 - 1]) }))
            let launches = count == 1 ? "1 launch" : "\(count) launches"
            if rank == count && count > 1 && percentile != .p50 {
                notes.append("\(percentile.rawValue) of \(launches) is the maximum")
            }
            if lower == nil || upper == nil {
                let needed = QuantileInterval.smallestCount(quantile: percentile.quantile, level: level)
                notes.append(
                    "no \(Int((level * 100).rounded())) % interval for \(percentile.rawValue) of \(launches) (needs \(needed))"
                )
            }
        }
        var counts = [Int](repeating: 0, count: FieldBuckets.count)
        var sum = 0.0
        for value in sorted {
            counts[FieldBuckets.index(ofNanoseconds: value)] += 1
            sum += Double(value)
        }
        self.init(
            samples: count, quantiles: quantiles, minMs: ms(first), maxMs: ms(last), sumMs: sum / 1e6,
            buckets: counts.indices.filter { counts[$0] > 0 }.map { FieldBucketCount(index: $0, count: counts[$0]) },
            notes: notes)
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        samples = try container.decode(Int.self, forKey: Key("samples"))
        minMs = try container.decode(Double.self, forKey: Key("minMs"))
        maxMs = try container.decode(Double.self, forKey: Key("maxMs"))
        sumMs = try container.decode(Double.self, forKey: Key("sumMs"))
        buckets = try container.decode([FieldBucketCount].self, forKey: Key("buckets"))
        notes = try container.decode([String].self, forKey: Key("notes"))
        quantiles = try FieldPercentile.allCases.map { percentile in
            let stem = percentile.rawValue
            return FieldQuantile(
                percentile: percentile, valueMs: try container.decode(Double.self, forKey: Key(stem + "Ms")),
                lowMs: try container.decodeIfPresent(Double.self, forKey: Key(stem + "LowMs")),
                highMs: try container.decodeIfPresent(Double.self, forKey: Key(stem + "HighMs")))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(samples, forKey: Key("samples"))
        try container.encode(minMs, forKey: Key("minMs"))
        try container.encode(maxMs, forKey: Key("maxMs"))
        try container.encode(sumMs, forKey: Key("sumMs"))
        try container.encode(buckets, forKey: Key("buckets"))
        try container.encode(notes, forKey: Key("notes"))
        for quantile in quantiles {
            let stem = quantile.percentile.rawValue
            try container.encode(quantile.valueMs, forKey: Key(stem + "Ms"))
            try container.encodeIfPresent(quantile.lowMs, forKey: Key(stem + "LowMs"))
            try container.encodeIfPresent(quantile.highMs, forKey: Key(stem + "HighMs"))
        }
    }
}
