/// The unit of a paired difference: how its figures are named in JSON (`medianMs` for
/// milliseconds, `median` for counts).
public protocol DifferenceUnit: Sendable {
    /// Appended to `median`, `low` and `high`: "Ms", or "" for a count.
    static var keySuffix: String { get }
}

/// Milliseconds: `medianMs`, `lowMs`, `highMs`.
public enum MillisecondsUnit: DifferenceUnit {
    public static let keySuffix = "Ms"
}

/// A count: `median`, `low`, `high`.
public enum CountUnit: DifferenceUnit {
    public static let keySuffix = ""
}

/// The paired difference head − base of a quantity measured in `Unit`: the Hodges–Lehmann
/// estimate of the differences of adjacent launches and its signed-rank interval
/// (`PairedInterval`), one type for times and counts. JSON: `{median<Unit>, low<Unit>,
/// high<Unit>, level, pairs}`.
public struct PairedDifference<Unit: DifferenceUnit>: Codable, Equatable, Sendable {
    /// The estimate of the shift.
    public var median: Double
    public var low: Double
    public var high: Double
    /// Confidence level of `low … high`.
    public var level: Double
    /// Pairs of launches (one of each build, side by side) it was computed from.
    public var pairs: Int

    public init(_ interval: PairedInterval) {
        median = interval.estimate
        low = interval.low
        high = interval.high
        level = interval.level
        pairs = interval.count
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }

        static var median: Key { Key("median" + Unit.keySuffix) }
        static var low: Key { Key("low" + Unit.keySuffix) }
        static var high: Key { Key("high" + Unit.keySuffix) }
        static var level: Key { Key("level") }
        static var pairs: Key { Key("pairs") }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        median = try container.decode(Double.self, forKey: .median)
        low = try container.decode(Double.self, forKey: .low)
        high = try container.decode(Double.self, forKey: .high)
        level = try container.decode(Double.self, forKey: .level)
        pairs = try container.decode(Int.self, forKey: .pairs)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(median, forKey: .median)
        try container.encode(low, forKey: .low)
        try container.encode(high, forKey: .high)
        try container.encode(level, forKey: .level)
        try container.encode(pairs, forKey: .pairs)
    }
}

/// The paired difference of a time, in ms.
public typealias TimeDifference = PairedDifference<MillisecondsUnit>

/// The paired difference of a count.
public typealias CountDifference = PairedDifference<CountUnit>

extension PairedDifference where Unit == MillisecondsUnit {
    /// `median`, under its JSON name.
    public var medianMs: Double { median }
    /// `low`, under its JSON name.
    public var lowMs: Double { low }
    /// `high`, under its JSON name.
    public var highMs: Double { high }
}
