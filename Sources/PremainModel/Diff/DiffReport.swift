/// The result of `premain diff BASE HEAD`: static deltas per object, measured deltas with
/// their tests, findings new and fixed, the start-up timeline of both sides, and the
/// verdict. Codable; JSON `schemaVersion` 1.
public struct DiffReport: Codable, Sendable, Equatable {
    public var schemaVersion: Int = 1
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
    public var settings: Settings

    public init(tool: ToolInfo = .current, verdict: Verdict, base: Side, head: Side, objects: [ObjectDelta],
                closures: [CountDelta], measured: [MeasuredDelta], findings: FindingsDelta, settings: Settings) {
        self.tool = tool
        self.verdict = verdict
        self.base = base
        self.head = head
        self.objects = objects
        self.closures = closures
        self.measured = measured
        self.findings = findings
        self.settings = settings
    }

    public struct Verdict: Codable, Sendable, Equatable {
        /// pass, findings (new findings at or above fail-on, or a budget exceeded) or regression.
        public var status: String
        /// The reasons, most important first; `[]` for a pass.
        public var reasons: [String]

        public init(status: String, reasons: [String]) {
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
        public var conditions: [String: String]
        /// Medians of the milestones and objects' initializers, for the timeline.
        public var timeline: [TimelineSpan]

        public init(label: String, objects: Int, runs: Int? = nil, cold: Bool? = nil, conditions: [String: String] = [:],
                    timeline: [TimelineSpan] = []) {
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

    public struct Settings: Codable, Sendable, Equatable {
        public var alpha: Double
        public var minEffectMs: Double
        public var minEffectPercent: Double
        public var failOn: Severity

        public init(alpha: Double, minEffectMs: Double, minEffectPercent: Double, failOn: Severity) {
            self.alpha = alpha
            self.minEffectMs = minEffectMs
            self.minEffectPercent = minEffectPercent
            self.failOn = failOn
        }
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
    public var name: String
    /// added, removed, changed or unchanged.
    public var status: String
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

    public init(name: String, status: String, neededAdded: [String] = [], neededRemoved: [String] = [],
                relocations: [CountDelta] = [], exports: CountDelta, imports: CountDelta, initializers: CountDelta,
                initializersAdded: [String] = [], initializersRemoved: [String] = [], swiftSuspectsAdded: [String] = [],
                swiftSuspectsRemoved: [String] = [], fileSize: CountDelta) {
        self.name = name
        self.status = status
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

        public init(change: Change, deltaMs: Double? = nil, percent: Double? = nil, minEffectMs: Double? = nil, test: MannWhitney? = nil, interval: BootstrapInterval? = nil) {
            self.change = change
            self.deltaMs = deltaMs
            self.percent = percent
            self.minEffectMs = minEffectMs
            self.test = test
            self.interval = interval
        }
    }

    /// milestone, object or function.
    public var scope: String
    /// The milestone name, the object's name, or the function's demangled name.
    public var subject: String
    /// For functions: the object's name.
    public var object: String?
    public var base: TimingSummary?
    public var head: TimingSummary?
    public var result: Result

    public init(scope: String, subject: String, object: String? = nil, base: TimingSummary?, head: TimingSummary?,
                result: Result) {
        self.scope = scope
        self.subject = subject
        self.object = object
        self.base = base
        self.head = head
        self.result = result
    }

    /// A milestone's name for people: "first output" for `firstOutput`, "loader done" for
    /// `loaderDone`; other names unchanged.
    public static func milestoneName(_ name: String) -> String {
        switch name {
        case "firstOutput": return "first output"
        case "loaderDone": return "loader done"
        case "loaderStart": return "loader start"
        case "programInitializers": return "program initializers"
        default: return name
        }
    }

    /// "time to main", "initializers of libfoo.so", or "ctor() in libfoo.so".
    public var displayName: String {
        switch scope {
        case "milestone": return "time to " + Self.milestoneName(subject)
        case "object": return "initializers of " + subject
        default: return "\(subject) in \(object ?? "?")"
        }
    }

    /// True for an object or function that took under 0.0005 ms on both sides (shown as
    /// 0.000 ms) and did not change: summaries leave it out, the JSON keeps it.
    public var isNegligible: Bool {
        scope != "milestone" && result.change != .regression && result.change != .improvement
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
        self.init(new: head.filter { !baseKeys.contains($0.fingerprint) },
                  fixed: base.filter { !headKeys.contains($0.fingerprint) },
                  unchanged: head.filter { baseKeys.contains($0.fingerprint) })
    }
}
