import ELFValues

/// The result of `premain diff BASE HEAD`: static deltas per object, measured deltas with
/// their tests, findings new and fixed, the start-up timeline of both sides, and the
/// verdict. Codable; JSON `schemaVersion` 1.
public struct DiffReport: Codable, Sendable, Equatable, KindedReport {
    public static let kind = ReportKind.diff
    public var schemaVersion: Int = 1
    public var kind = ReportKindField<DiffReport>()
    public var tool: ToolInfo
    public var verdict: Verdict
    public var base: Side
    public var head: Side
    /// One entry per object present on either side, by name; unchanged objects included.
    public var objects: [ObjectDelta]
    /// Closure size per program present on either side.
    public var closures: [CountDelta]
    /// Milestones, then objects' initializers, then functions.
    public var measured: [MeasuredDelta]
    public var findings: FindingsDelta
    /// Every warning of either side's measurement ("base: …", "head: …") and, when both sides
    /// were measured, that unpaired runs cannot tell drift from change.
    public var warnings: [MeasurementWarning] = []
    public var settings: DiffSettings

    public init(
        tool: ToolInfo = .current, verdict: Verdict, base: Side, head: Side, objects: [ObjectDelta],
        closures: [CountDelta], measured: [MeasuredDelta], findings: FindingsDelta,
        warnings: [MeasurementWarning] = [], settings: DiffSettings
    ) {
        self.tool = tool
        self.verdict = verdict
        self.base = base
        self.head = head
        self.objects = objects
        self.closures = closures
        self.measured = measured
        self.findings = findings
        self.warnings = warnings
        self.settings = settings
    }

    public struct Verdict: Codable, Sendable, Equatable {
        /// `pass`, `findings`, `regression` or `unconfirmed` (`VerdictStatus.written(by: .diff)`).
        public typealias Status = VerdictStatus

        public var status: Status
        /// The reasons, most important first; `[]` for a pass.
        public var reasons: [String]

        public init(status: Status, reasons: [String]) {
            self.status = status
            self.reasons = reasons
        }
    }

    /// What one side was made of.
    public struct Side: Codable, Sendable, Equatable {
        /// The path given on the command line.
        public var label: String
        public var objects: Int
        /// Runs of the first measured command; `nil` when not measured.
        public var runs: Int?
        public var cold: Bool?
        /// The first measured command's conditions, each field as one line of text
        /// (`"pinning": "measurerCPU=0 pinned=true targetCPU=1"`); `[:]` when not measured.
        public var conditions: [String: String]
        /// Medians of the milestones and objects' initializers, for the timeline.
        public var timeline: [TimelineSpan]

        public init(
            label: String, objects: Int, runs: Int? = nil, cold: Bool? = nil, conditions: [String: String] = [:],
            timeline: [TimelineSpan] = []
        ) {
            self.label = label
            self.objects = objects
            self.runs = runs
            self.cold = cold
            self.conditions = conditions
            self.timeline = timeline
        }
    }

    /// One bar of the start-up timeline, from exec, in ms (medians).
    public struct TimelineSpan: Codable, Sendable, Equatable {
        public var label: String
        public var startMs: Double
        public var endMs: Double

        public init(label: String, startMs: Double, endMs: Double) {
            self.label = label
            self.startMs = startMs
            self.endMs = endMs
        }
    }
}

/// When `diff` calls a measured change a regression and which findings fail it: premain.json's
/// `diff` section (with `--alpha`, `--min-effect-ms`, `--min-effect-percent` and `--fail-on`
/// applied), and the settings a `DiffReport` was made with.
public struct DiffSettings: Codable, Sendable, Equatable {
    /// Significance level of the Mann–Whitney U test.
    public var alpha: Double
    /// A change must exceed this many ms …
    public var minEffectMs: Double
    /// … or this percentage of the base median, whichever is larger.
    public var minEffectPercent: Double
    /// New findings at or above this severity fail the verdict.
    public var failOn: Severity
    /// Bootstrap resamples for the confidence interval of the difference of medians.
    public var bootstrapResamples: Int = 2000
    /// Seed of the bootstrap's random numbers, so a diff is reproducible.
    public var seed: UInt64 = 0x5EED

    /// `bootstrapResamples` and `seed` are not written to a report; read back they are the
    /// defaults.
    enum CodingKeys: String, CodingKey {
        case alpha, minEffectMs, minEffectPercent, failOn
    }

    public init(
        alpha: Double = 0.01, minEffectMs: Double = 0.5, minEffectPercent: Double = 5, failOn: Severity = .error,
        bootstrapResamples: Int = 2000, seed: UInt64 = 0x5EED
    ) {
        self.alpha = alpha
        self.minEffectMs = minEffectMs
        self.minEffectPercent = minEffectPercent
        self.failOn = failOn
        self.bootstrapResamples = bootstrapResamples
        self.seed = seed
    }
}

/// A count on both sides; `nil` where a side does not have the item.
public struct CountDelta: Codable, Sendable, Equatable {
    public var name: String
    public var base: Int?
    public var head: Int?

    public init(name: String, base: Int?, head: Int?) {
        self.name = name
        self.base = base
        self.head = head
    }

    /// head − base, counting a missing side as 0.
    public var delta: Int { (head ?? 0) - (base ?? 0) }
}

/// What changed in one object between the builds, without running it.
public struct ObjectDelta: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        /// Only the head has it.
        case added
        /// Only the base has it.
        case removed
        case changed
        case unchanged
    }

    /// Where an object comes from, for ordering: the build's own files first.
    public enum Place: String, Codable, Sendable {
        /// One of the files given (the artifacts).
        case project
        /// Outside the artifacts and outside the system library directories: a compiler's
        /// runtime (`/opt/swift/usr/lib/swift/linux`) or another prefix.
        case toolchain
        /// Under the system library directories (`/lib`, `/usr/lib`, …).
        case system
    }

    public var name: String
    public var status: Status
    /// The object's kind (executable first in summaries); `nil` when not audited (a library
    /// known only from a closure) or read from an older report.
    public var kind: ELFObjectKind?
    /// `nil` in reports written before premain told places apart (read as `project`).
    public var place: Place?
    /// For a library known only from closures: the programs whose closure maps it.
    public var mappedBy: [String]?
    public var neededAdded: [String]
    public var neededRemoved: [String]
    /// `relative`, `symbolic`, `plt`, `copy`, `irelative`, `tls`, `total`, `relr`.
    public var relocations: [CountDelta]
    public var exports: CountDelta
    public var imports: CountDelta
    /// Own static initializers (toolchain entries left out).
    public var initializers: CountDelta
    public var initializersAdded: [String]
    public var initializersRemoved: [String]
    public var swiftSuspectsAdded: [String]
    public var swiftSuspectsRemoved: [String]
    public var fileSize: CountDelta

    public init(
        name: String, status: Status, kind: ELFObjectKind? = nil, place: Place? = nil, mappedBy: [String]? = nil,
        neededAdded: [String] = [], neededRemoved: [String] = [],
        relocations: [CountDelta] = [], exports: CountDelta, imports: CountDelta, initializers: CountDelta,
        initializersAdded: [String] = [], initializersRemoved: [String] = [], swiftSuspectsAdded: [String] = [],
        swiftSuspectsRemoved: [String] = [], fileSize: CountDelta
    ) {
        self.name = name
        self.status = status
        self.kind = kind
        self.place = place
        self.mappedBy = mappedBy
        self.neededAdded = neededAdded
        self.neededRemoved = neededRemoved
        self.relocations = relocations
        self.exports = exports
        self.imports = imports
        self.initializers = initializers
        self.initializersAdded = initializersAdded
        self.initializersRemoved = initializersRemoved
        self.swiftSuspectsAdded = swiftSuspectsAdded
        self.swiftSuspectsRemoved = swiftSuspectsRemoved
        self.fileSize = fileSize
    }
}

/// One measured quantity on both sides and the test between them.
public struct MeasuredDelta: Codable, Sendable, Equatable {
    /// What happened to one quantity.
    public enum Change: String, Codable, Sendable {
        case regression
        case improvement
        case noChange
        /// Only the head has it.
        case added
        /// Only the base has it.
        case removed
        /// A side has no per-run samples, so no test is possible; medians are still shown.
        case untested
    }

    public struct Result: Sendable, Equatable, Codable {
        public var change: Change
        /// median(head) − median(base); `nil` when a side is missing.
        public var deltaMs: Double?
        /// `deltaMs` relative to the base median, in percent; `nil` when the base median is 0.
        public var percent: Double?
        /// The smallest change that counts, in ms.
        public var minEffectMs: Double?
        public var test: MannWhitney?
        public var interval: BootstrapInterval?

        public init(
            change: Change, deltaMs: Double? = nil, percent: Double? = nil, minEffectMs: Double? = nil,
            test: MannWhitney? = nil, interval: BootstrapInterval? = nil
        ) {
            self.change = change
            self.deltaMs = deltaMs
            self.percent = percent
            self.minEffectMs = minEffectMs
            self.test = test
            self.interval = interval
        }
    }

    /// What kind of quantity it is.
    public enum Scope: String, Codable, Sendable {
        /// Time from process birth to a milestone (`Milestones`).
        case milestone
        /// An object's initializers, all together.
        case object
        /// A function timed by `premain trace` (inclusive time).
        case function
    }

    public var scope: Scope
    /// The milestone name, the object's name, or the function's demangled name.
    public var subject: String
    /// For functions: the object's name.
    public var object: String?
    /// `nil` when a side does not have the quantity.
    public var base: TimeSummary?
    public var head: TimeSummary?
    public var result: Result

    public init(
        scope: Scope, subject: String, object: String? = nil, base: TimeSummary?, head: TimeSummary?,
        result: Result
    ) {
        self.scope = scope
        self.subject = subject
        self.object = object
        self.base = base
        self.head = head
        self.result = result
    }

    enum CodingKeys: String, CodingKey {
        case scope, subject, object, base, head, result
    }

    /// Writes `base` and `head` as `{medianMs, p90Ms, minMs, maxMs, samplesMs}`: the diff's JSON
    /// keeps no MAD or outliers (read back, `TimeSummary` computes them from `samplesMs`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scope, forKey: .scope)
        try container.encode(subject, forKey: .subject)
        try container.encodeIfPresent(object, forKey: .object)
        for (key, summary) in [(CodingKeys.base, base), (.head, head)] {
            guard let summary else { continue }
            var series = container.nestedContainer(keyedBy: TimeSummary.CodingKeys.self, forKey: key)
            try series.encode(summary.medianMs, forKey: .medianMs)
            try series.encode(summary.p90Ms, forKey: .p90Ms)
            try series.encode(summary.minMs, forKey: .minMs)
            try series.encode(summary.maxMs, forKey: .maxMs)
            try series.encode(summary.samplesMs, forKey: .samplesMs)
        }
        try container.encode(result, forKey: .result)
    }

    /// A milestone's name for people (`Milestone.title`); a name premain does not know (a
    /// trace's `--until` symbol) unchanged.
    public static func milestoneName(_ name: String) -> String {
        Milestone(rawValue: name)?.title ?? name
    }

    /// "time to main", "initializers of libfoo.so", or "ctor() in libfoo.so".
    public var displayName: String {
        switch scope {
        case .milestone: return "time to " + Self.milestoneName(subject)
        case .object: return "initializers of " + subject
        case .function: return "\(subject) in \(object ?? "?")"
        }
    }

    /// True for an object or function that took under 0.0005 ms on both sides (shown as
    /// 0.000 ms) and did not change: summaries leave it out, the JSON keeps it.
    public var isNegligible: Bool {
        scope != .milestone && result.change != .regression && result.change != .improvement
            && max(base?.medianMs ?? 0, head?.medianMs ?? 0) < 0.0005
    }
}

/// Findings by fingerprint: only in head (new), only in base (fixed), in both.
public struct FindingsDelta: Codable, Sendable, Equatable {
    public var new: [Finding]
    public var fixed: [Finding]
    public var unchanged: [Finding]

    public init(new: [Finding], fixed: [Finding], unchanged: [Finding]) {
        self.new = new
        self.fixed = fixed
        self.unchanged = unchanged
    }

    /// Compares two lists by fingerprint; each result list keeps the input order.
    public init(base: [Finding], head: [Finding]) {
        let baseKeys = Set(base.map(\.fingerprint))
        let headKeys = Set(head.map(\.fingerprint))
        self.init(
            new: head.filter { !baseKeys.contains($0.fingerprint) },
            fixed: base.filter { !headKeys.contains($0.fingerprint) },
            unchanged: head.filter { baseKeys.contains($0.fingerprint) })
    }
}
