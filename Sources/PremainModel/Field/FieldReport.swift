/// The result of `premain field report`: launches recorded on real machines by the rtld-audit
/// recorder (docs/field-record.md), one row per executable × version (build ID) × scenario ×
/// temperature, each with its percentiles and their intervals, and the measurement contract
/// that says what those numbers are of. Codable; JSON `kind` `field`, `schemaVersion` 1.
public struct FieldReport: Codable, Equatable, Sendable, KindedReport {
    public static let kind = ReportKind.field
    public var schemaVersion: Int = 1
    public var kind = ReportKindField<FieldReport>()
    public var tool: ToolInfo
    /// Largest sample first.
    public var rows: [FieldRow]
    public var contract: FieldContract
    /// The histogram layout of every `buckets` (`FieldBuckets`), stated for readers of the JSON.
    public var bucketLayout: FieldBucketLayout

    public init(tool: ToolInfo = .current, rows: [FieldRow], contract: FieldContract) {
        self.tool = tool
        self.rows = rows
        self.contract = contract
        self.bucketLayout = FieldBucketLayout()
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion, kind, tool, rows, contract, bucketLayout
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try container.decode(Int.self, forKey: .schemaVersion)
        kind = try container.decode(ReportKindField<FieldReport>.self, forKey: .kind)
        tool = try container.decode(ToolInfo.self, forKey: .tool)
        rows = try container.decode([FieldRow].self, forKey: .rows)
        contract = try container.decode(FieldContract.self, forKey: .contract)
        bucketLayout = try container.decode(FieldBucketLayout.self, forKey: .bucketLayout)
    }
}

/// `FieldBuckets` as the JSON states it: bound(i) = firstBoundSeconds × 2^(i / perDoubling) for
/// i < finiteBuckets, then +Inf.
public struct FieldBucketLayout: Codable, Equatable, Sendable {
    public var firstBoundSeconds = FieldBuckets.firstBoundNs / 1e9
    public var perDoubling = FieldBuckets.perDoubling
    public var finiteBuckets = FieldBuckets.finiteCount

    public init() {}
}

/// Cold, warm or in between, from the launch's major faults and bytes read (`FieldThresholds`).
public enum FieldTemperature: String, Codable, Sendable, CaseIterable {
    case cold, mixed, warm
}

/// The thresholds of `FieldTemperature`, stated in every report: warm when the launch took no
/// major fault and read less than `warmBelowBytes` from storage; cold when it read at least
/// `coldFromBytes` or took at least `coldFromMajorFaults`; mixed otherwise. A record without
/// `rbytes` (no /proc/self/io) is judged by its faults alone.
public struct FieldThresholds: Codable, Equatable, Sendable {
    public var warmBelowBytes: Int = 64 << 10
    public var coldFromBytes: Int = 1 << 20
    public var coldFromMajorFaults: Int = 4

    public init() {}

    public func temperature(majorFaults: Int, readBytes: Int?) -> FieldTemperature {
        if majorFaults >= coldFromMajorFaults || (readBytes ?? 0) >= coldFromBytes { return .cold }
        if majorFaults == 0 && (readBytes ?? 0) < warmBelowBytes { return .warm }
        return .mixed
    }
}

/// One executable × version × scenario × temperature.
public struct FieldRow: Codable, Equatable, Sendable {
    /// The executable's path (`readlink(/proc/self/exe)`; bytes that are not UTF-8 kept losslessly).
    public var executable: String
    /// The executable's `NT_GNU_BUILD_ID` in hex; `nil` when it has none.
    public var buildId: String?
    /// The launch's scenario: its first argument for now; `nil` when launched without one.
    public var scenario: String?
    /// The launch premain.json declares for these launches (`FieldLaunchTags`): the name its
    /// rows have in `measure`, `compare` and `pr` over the launch matrix; `nil` when none matches
    /// or nothing is declared.
    public var launch: String? = nil
    public var temperature: FieldTemperature
    /// Launches in this row.
    public var samples: Int
    /// Launches of the row whose birth is the schedstat estimate (a lower bound), not exact.
    public var estimatedBirths: Int
    /// Birth (`t0`) to main; `nil` when no launch of the row had a birth time.
    public var timeToMain: FieldDistribution?
    /// Loader start (`la_version`) to main: always exact, every launch.
    public var loaderToMain: FieldDistribution
    /// Birth to each mark, by name.
    public var marks: [FieldMark]

    public init(
        executable: String, buildId: String?, scenario: String?, temperature: FieldTemperature, samples: Int,
        estimatedBirths: Int = 0, timeToMain: FieldDistribution?, loaderToMain: FieldDistribution, marks: [FieldMark]
    ) {
        self.executable = executable
        self.buildId = buildId
        self.scenario = scenario
        self.temperature = temperature
        self.samples = samples
        self.estimatedBirths = estimatedBirths
        self.timeToMain = timeToMain
        self.loaderToMain = loaderToMain
        self.marks = marks
    }
}

/// Birth to one named mark (`premain_mark("ready")`), over the launches of a row that have a
/// birth time and the mark.
public struct FieldMark: Codable, Equatable, Sendable {
    public var name: String
    /// Launches of the row (with a birth time) without this mark: exited or exec'd before it.
    public var missing: Int
    public var distribution: FieldDistribution

    public init(name: String, missing: Int, distribution: FieldDistribution) {
        self.name = name
        self.missing = missing
        self.distribution = distribution
    }
}
