/// Range checks for numbers read from reports, so that a crafted or corrupt report is a
/// one-line decoding error ("measurements[0].runs: expected a whole number from 0 to 1000000,
/// found -5") instead of a trap or a NaN deep in a renderer.
public enum ReportLimits {
    /// Largest magnitude of a time in milliseconds: about 11.6 days.
    public static let maxMilliseconds = 1e9
    /// Most runs, samples or entries of one series.
    public static let maxRuns = 1_000_000

    /// A number as an error message shows it: whole numbers without ".0" (`1000000000`).
    static func text(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}

extension KeyedDecodingContainer {
    /// A whole number in `range`; throws `DecodingError.dataCorrupted` naming the key otherwise.
    public func decodeChecked(_ key: Key, in range: ClosedRange<Int>) throws -> Int {
        let value = try decode(Int.self, forKey: key)
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription:
                    "expected a whole number from \(range.lowerBound) to \(range.upperBound), found \(value)")
        }
        return value
    }

    /// `decodeChecked(_:in:)` for an optional key; `nil` when absent.
    public func decodeCheckedIfPresent(_ key: Key, in range: ClosedRange<Int>) throws -> Int? {
        try contains(key) && !decodeNil(forKey: key) ? decodeChecked(key, in: range) : nil
    }

    /// A finite time of at most `ReportLimits.maxMilliseconds` in magnitude.
    public func decodeMilliseconds(_ key: Key) throws -> Double {
        try checkedMilliseconds(decode(Double.self, forKey: key), key)
    }

    /// `decodeMilliseconds(_:)` for an optional key; `nil` when absent.
    public func decodeMillisecondsIfPresent(_ key: Key) throws -> Double? {
        try decodeIfPresent(Double.self, forKey: key).map { try checkedMilliseconds($0, key) }
    }

    /// A list of times, each checked as `decodeMilliseconds(_:)`, at most `ReportLimits.maxRuns`.
    public func decodeMillisecondsList(_ key: Key) throws -> [Double]? {
        guard let values = try decodeIfPresent([Double].self, forKey: key) else { return nil }
        guard values.count <= ReportLimits.maxRuns else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "more than \(ReportLimits.maxRuns) values")
        }
        for value in values { _ = try checkedMilliseconds(value, key) }
        return values
    }

    /// A number in `range` (finite); throws `DecodingError.dataCorrupted` naming the key otherwise.
    public func decodeChecked(_ key: Key, in range: ClosedRange<Double>) throws -> Double {
        let value = try decode(Double.self, forKey: key)
        guard value.isFinite, range.contains(value) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription:
                    "expected a number from \(ReportLimits.text(range.lowerBound)) to \(ReportLimits.text(range.upperBound)), found \(ReportLimits.text(value))"
            )
        }
        return value
    }

    /// `decodeChecked(_:in:)` (a number) for an optional key; `nil` when absent.
    public func decodeCheckedIfPresent(_ key: Key, in range: ClosedRange<Double>) throws -> Double? {
        try contains(key) && !decodeNil(forKey: key) ? decodeChecked(key, in: range) as Double : nil
    }

    /// A duration: a finite time from 0 to `ReportLimits.maxMilliseconds` (what a measured
    /// time can be; a negative one would price a finding at "-4.90 ms").
    public func decodeDuration(_ key: Key) throws -> Double {
        try checkedDuration(decode(Double.self, forKey: key), key)
    }

    /// `decodeDuration(_:)` for an optional key; `nil` when absent.
    public func decodeDurationIfPresent(_ key: Key) throws -> Double? {
        try decodeIfPresent(Double.self, forKey: key).map { try checkedDuration($0, key) }
    }

    /// A list of durations, each checked as `decodeDuration(_:)`, at most `ReportLimits.maxRuns`.
    public func decodeDurationList(_ key: Key) throws -> [Double]? {
        guard let values = try decodeIfPresent([Double].self, forKey: key) else { return nil }
        guard values.count <= ReportLimits.maxRuns else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "more than \(ReportLimits.maxRuns) values")
        }
        for value in values { _ = try checkedDuration(value, key) }
        return values
    }

    private func checkedDuration(_ value: Double, _ key: Key) throws -> Double {
        guard value.isFinite, value >= 0, value <= ReportLimits.maxMilliseconds else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "expected milliseconds from 0 to 1e9, found \(ReportLimits.text(value))")
        }
        return value
    }

    private func checkedMilliseconds(_ value: Double, _ key: Key) throws -> Double {
        guard value.isFinite, abs(value) <= ReportLimits.maxMilliseconds else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "expected milliseconds from -1e9 to 1e9, found \(value)")
        }
        return value
    }
}
