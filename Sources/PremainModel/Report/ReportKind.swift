/// Which premain report a JSON document is. Every report says it: `"kind": "measure"` beside
/// its `schemaVersion` (`ReportKindField`). Reports written before premain wrote `kind` are
/// told by their top-level keys, by one rule (`guess`); `ReportHeader` reads either.
public enum ReportKind: String, Codable, Sendable, CaseIterable {
    case audit, measure, trace, compare, diff, check, pr, history
    /// `premain compare` over the launch matrix: one compare report per row.
    case compareMatrix = "compare-matrix"
    /// `premain field report`: launches recorded in the field, percentiles per version.
    case field
    /// `premain field compare`: two versions' field percentiles and their differences.
    case fieldCompare = "field-compare"
    /// `premain calibrate`'s model of the loader's costs (it has always written its `kind`).
    case loaderCostModel = "loader-cost-model"

    /// "an audit", "a measure", "a loader-cost-model": the kind with its article, for messages.
    public var article: String {
        (self == .audit ? "an " : "a ") + rawValue
    }

    /// The `schemaVersion`s this premain reads for reports of this kind: 1, and 2 for audits
    /// (closure objects in an `objects` table).
    public var readableVersions: ClosedRange<Int> {
        self == .audit ? AuditReport.readableSchemaVersions : 1...1
    }

    /// "1", or "1 or 2".
    public var readableVersionsText: String {
        readableVersions.count == 1
            ? "\(readableVersions.lowerBound)"
            : "\(readableVersions.lowerBound) or \(readableVersions.upperBound)"
    }

    /// The kind of a report written before `kind`, told by its top-level `keys` (and, for
    /// measure and trace, whether an entry of `measurements` has `functions`); `nil` when the
    /// keys are no premain report's.
    public static func guess(keys: Set<String>, tracedMeasurements: Bool) -> ReportKind? {
        if keys.contains("diff") && keys.contains("skipped") { return .pr }
        if keys.contains("closures") && keys.contains("measured") { return .diff }
        if keys.contains("times") && keys.contains("verdict") { return .compare }
        if keys.contains("measurements") { return keys.contains("bias") || tracedMeasurements ? .trace : .measure }
        if keys.contains("binaries") { return .audit }
        if keys.contains("findings") && keys.contains("inputs") { return .check }
        if keys.contains("series") && keys.contains("database") { return .history }
        return nil
    }
}

/// A report type and the kind it writes.
public protocol KindedReport {
    static var kind: ReportKind { get }
}

/// The `kind` field of a report of type `Report`, always `Report.kind`: written on encoding;
/// on decoding read when present (a report written before premain wrote it has none) and
/// refused when it names another kind.
public struct ReportKindField<Report: KindedReport>: Codable, Equatable, Sendable {
    public init() {}

    public var value: ReportKind { Report.kind }

    public init(from decoder: any Decoder) throws {
        let found = try decoder.singleValueContainer().decode(String.self)
        guard found == Report.kind.rawValue else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "\(found) is not \(Report.kind.article) report"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Report.kind)
    }
}

extension KeyedDecodingContainer {
    /// A report's `kind`, its own when absent (reports written before premain wrote it).
    public func decode<Report>(_ type: ReportKindField<Report>.Type, forKey key: Key) throws -> ReportKindField<Report>
    {
        try decodeIfPresent(type, forKey: key) ?? ReportKindField()
    }
}

/// What a JSON document says of itself: its kind (its `kind`, else `ReportKind.guess` from its
/// keys) and its `schemaVersion`. Decoding throws only for a document that is not a JSON object.
public struct ReportHeader: Decodable, Sendable {
    /// `nil` when the document is no premain report, or names a kind this premain does not know.
    public var kind: ReportKind?
    /// The `kind` the document names, as written; `nil` in reports written before `kind`.
    public var declaredKind: String?
    public var schemaVersion: Int?

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// One `measurements[]` entry: traced when it has `functions`.
    struct Entry: Decodable {
        var traced: Bool

        init(from decoder: any Decoder) throws {
            traced = (try? decoder.container(keyedBy: Key.self))?.contains(Key("functions")) ?? false
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        schemaVersion = try? container.decodeIfPresent(Int.self, forKey: Key("schemaVersion"))
        if container.contains(Key("kind")) {
            declaredKind = (try? container.decode(String.self, forKey: Key("kind"))) ?? ""
            kind = declaredKind.flatMap(ReportKind.init(rawValue:))
            return
        }
        let keys = Set(container.allKeys.map(\.stringValue))
        let entries =
            keys.contains("measurements")
            ? (try? container.decode([Entry].self, forKey: Key("measurements"))) ?? [] : []
        kind = ReportKind.guess(keys: keys, tracedMeasurements: entries.contains(where: \.traced))
    }
}
