/// The result of `premain field compare`: two versions' field percentiles of time to main, row
/// by row (executable × scenario × temperature), each difference with an interval, and one
/// verdict in compare's words. JSON `kind` `field-compare`, `schemaVersion` 1.
///
/// The interval of a difference comes from the order-statistic intervals each side stored: new
/// [low, high] minus old [low, high] gives [newLow − oldHigh, newHigh − oldLow], which covers the
/// true difference whenever both 95 % intervals cover their percentile: at least 90.25 % for
/// independent samples, distribution-free, and without the raw launches. A side without an end
/// (too few launches) leaves the difference without an interval: inconclusive when gated.
public struct FieldCompareReport: Codable, Equatable, Sendable, KindedReport {
    public static let kind = ReportKind.fieldCompare
    public var schemaVersion: Int = 1
    public var kind = ReportKindField<FieldCompareReport>()
    public var tool: ToolInfo
    /// The worst gated row's: regression, inconclusive, improvement or no change.
    public var verdict: VerdictStatus
    /// Why, most important first.
    public var reasons: [String]
    public var old: Side
    public var new: Side
    public var rows: [FieldRowComparison]
    /// Rows of one side without a match on the other: "only in old: /usr/bin/tool (warm)".
    public var unmatched: [String]
    public var settings: FieldCompareSettings

    public init(
        tool: ToolInfo = .current, verdict: VerdictStatus, reasons: [String], old: Side, new: Side,
        rows: [FieldRowComparison], unmatched: [String], settings: FieldCompareSettings
    ) {
        self.tool = tool
        self.verdict = verdict
        self.reasons = reasons
        self.old = old
        self.new = new
        self.rows = rows
        self.unmatched = unmatched
        self.settings = settings
    }

    /// One side: where it was read from and the version chosen, if one was.
    public struct Side: Codable, Equatable, Sendable {
        public var source: String
        /// The build ID chosen with --old-version/--new-version; `nil` when the side had one per row.
        public var version: String?

        public init(source: String, version: String?) {
            self.source = source
            self.version = version
        }
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion, kind, tool, verdict, reasons, old, new, rows, unmatched, settings
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try container.decode(Int.self, forKey: .schemaVersion)
        kind = try container.decode(ReportKindField<FieldCompareReport>.self, forKey: .kind)
        tool = try container.decode(ToolInfo.self, forKey: .tool)
        verdict = try container.decode(VerdictStatus.self, forKey: .verdict)
        reasons = try container.decode([String].self, forKey: .reasons)
        old = try container.decode(Side.self, forKey: .old)
        new = try container.decode(Side.self, forKey: .new)
        rows = try container.decode([FieldRowComparison].self, forKey: .rows)
        unmatched = try container.decode([String].self, forKey: .unmatched)
        settings = try container.decode(FieldCompareSettings.self, forKey: .settings)
    }
}

/// The thresholds and the gated percentiles of a field comparison.
public struct FieldCompareSettings: Codable, Equatable, Sendable {
    /// A change is within noise when inside ±max(thresholdMs, thresholdPercent % of old).
    public var thresholdMs: Double
    public var thresholdPercent: Double
    /// The percentiles that decide the verdict (the others are shown).
    public var gated: [FieldPercentile]

    public init(thresholdMs: Double, thresholdPercent: Double, gated: [FieldPercentile]) {
        self.thresholdMs = thresholdMs
        self.thresholdPercent = thresholdPercent
        self.gated = gated
    }

    /// max(thresholdMs, thresholdPercent % of `oldMs`).
    public func threshold(oldMs: Double) -> Double {
        max(thresholdMs, oldMs * thresholdPercent / 100)
    }
}

/// One executable × scenario × temperature in both versions.
public struct FieldRowComparison: Codable, Equatable, Sendable {
    public var executable: String
    public var scenario: String?
    public var temperature: FieldTemperature
    public var oldVersion: String?
    public var newVersion: String?
    public var oldSamples: Int
    public var newSamples: Int
    public var verdict: VerdictStatus
    /// Time to main, in `FieldPercentile` order.
    public var percentiles: [FieldPercentileDifference]

    public init(
        executable: String, scenario: String?, temperature: FieldTemperature, oldVersion: String?,
        newVersion: String?, oldSamples: Int, newSamples: Int, verdict: VerdictStatus,
        percentiles: [FieldPercentileDifference]
    ) {
        self.executable = executable
        self.scenario = scenario
        self.temperature = temperature
        self.oldVersion = oldVersion
        self.newVersion = newVersion
        self.oldSamples = oldSamples
        self.newSamples = newSamples
        self.verdict = verdict
        self.percentiles = percentiles
    }
}

/// One percentile of time to main in both versions and the difference new − old.
public struct FieldPercentileDifference: Codable, Equatable, Sendable {
    public var percentile: FieldPercentile
    public var oldMs: Double
    public var newMs: Double
    public var differenceMs: Double
    /// [newLow − oldHigh, newHigh − oldLow]; `nil` when either side lacks an end.
    public var lowMs: Double?
    public var highMs: Double?
    /// The threshold this percentile was judged by, in ms.
    public var thresholdMs: Double
    public var verdict: VerdictStatus
    public var gated: Bool

    public init(
        percentile: FieldPercentile, oldMs: Double, newMs: Double, differenceMs: Double, lowMs: Double?,
        highMs: Double?, thresholdMs: Double, verdict: VerdictStatus, gated: Bool
    ) {
        self.percentile = percentile
        self.oldMs = oldMs
        self.newMs = newMs
        self.differenceMs = differenceMs
        self.lowMs = lowMs
        self.highMs = highMs
        self.thresholdMs = thresholdMs
        self.verdict = verdict
        self.gated = gated
    }
}
