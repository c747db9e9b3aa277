import LosslessText

#if canImport(Glibc)
    import Glibc
#endif

/// One label of an exported series: `executable="/usr/bin/tool"`. Labels keep the order they
/// are given in, so a series is written the same way on every export.
public struct ExportLabel: Equatable, Hashable, Sendable {
    /// `[a-zA-Z_][a-zA-Z0-9_]*`, as Prometheus and OpenTelemetry attribute keys allow.
    public var key: String
    /// Any text; each format escapes what it must.
    public var value: String

    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }

    /// `value` as valid UTF-8 for a format that needs it: each byte that is not UTF-8 (a
    /// `LosslessUTF8` raw byte of a file name) as the four characters `\xNN`, the rest as is.
    public static func text(_ value: String) -> String {
        guard LosslessUTF8.containsRawBytes(value) else { return value }
        var out = ""
        for scalar in value.unicodeScalars {
            if let byte = LosslessUTF8.rawByte(scalar) {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "\\x" + (hex.count < 2 ? "0" : "") + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// A histogram of durations as the exports write it: fixed bucket upper bounds in seconds, a
/// count per bucket, the sum and the count. One value is one series (one executable, version,
/// scenario and temperature); series of one metric share `name`, `help` and `upperBounds`.
public struct ExportHistogram: Equatable, Sendable {
    /// The Prometheus family name, base unit in the name: `premain_launch_to_main_seconds`.
    public var name: String
    /// One line saying what is counted.
    public var help: String
    /// The series' labels, in order (never `le`: the textfile adds it).
    public var labels: [ExportLabel]
    /// Finite upper bounds in seconds, ascending; an implicit `+Inf` bucket follows the last.
    public var upperBounds: [Double]
    /// Samples per bucket (not cumulative): `upperBounds.count + 1` entries, the last one for
    /// samples above the last bound. A sample equal to a bound counts in that bound's bucket
    /// (Prometheus' `le`, OpenTelemetry's `(previous, bound]`).
    public var bucketCounts: [UInt64]
    /// The sum of the samples, in seconds.
    public var sum: Double

    /// A histogram of the given counts; `bucketCounts` must have `upperBounds.count + 1` entries.
    public init(
        name: String, help: String, labels: [ExportLabel], upperBounds: [Double], bucketCounts: [UInt64], sum: Double
    ) {
        self.name = name
        self.help = help
        self.labels = labels
        self.upperBounds = upperBounds
        self.bucketCounts = bucketCounts
        self.sum = sum
    }

    /// The number of samples: the sum of the bucket counts.
    public var count: UInt64 { bucketCounts.reduce(0, &+) }

    /// Samples at or below each bound, then the count (the `+Inf` bucket): what Prometheus'
    /// `_bucket` series hold.
    public var cumulativeCounts: [UInt64] {
        var total: UInt64 = 0
        return bucketCounts.map { count in
            total &+= count
            return total
        }
    }

    /// Prometheus' `histogram_quantile(q, …)` of this histogram: the bucket where the rank
    /// `q × count` falls, interpolated linearly inside it (from 0 for the first bucket); the
    /// last finite bound when the rank falls in `+Inf`. `nil` when there are no samples. The
    /// same estimate a Prometheus server returns, for checking that a layout is fine enough.
    public func prometheusQuantile(_ q: Double) -> Double? {
        let cumulative = cumulativeCounts
        guard let total = cumulative.last, total > 0, (0...1).contains(q) else { return nil }
        let rank = q * Double(total)
        let index = cumulative.firstIndex { Double($0) >= rank } ?? upperBounds.count
        if index == upperBounds.count { return upperBounds.last }
        let lower = index == 0 ? 0 : upperBounds[index - 1]
        let below = index == 0 ? 0 : Double(cumulative[index - 1])
        let inBucket = Double(cumulative[index]) - below
        guard inBucket > 0 else { return upperBounds[index] }
        return lower + (upperBounds[index] - lower) * (rank - below) / inBucket
    }
}

/// One number that is not a histogram: how many records were excluded, and why.
public struct ExportValue: Equatable, Sendable {
    /// `gauge`: the number as of this report (a report is a window, so its counts are gauges).
    public enum Kind: String, Sendable { case gauge, counter }

    /// The family name: `premain_field_excluded_records`.
    public var name: String
    public var help: String
    public var kind: Kind
    public var labels: [ExportLabel]
    public var value: Double

    public init(name: String, help: String, kind: Kind = .gauge, labels: [ExportLabel], value: Double) {
        self.name = name
        self.help = help
        self.kind = kind
        self.labels = labels
        self.value = value
    }
}

/// What one field export writes: the histograms and the other numbers, in order.
public struct FieldExport: Equatable, Sendable {
    public var histograms: [ExportHistogram]
    public var values: [ExportValue]

    public init(histograms: [ExportHistogram], values: [ExportValue] = []) {
        self.histograms = histograms
        self.values = values
    }
}
