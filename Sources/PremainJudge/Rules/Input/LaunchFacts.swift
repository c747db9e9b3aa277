import PremainAudit
import PremainModel

/// What `premain measure` found for one command, read from its JSON report
/// (`measurements[]`): the fields rules and `diff` use.
public struct LaunchFacts: Codable, Sendable, Equatable {
    /// The command, one line (`measurements[].command`, joined when it is an array).
    public var command: String
    public var runs: Int
    public var cold: Bool
    /// The measurement conditions flattened to `key: value` text (machine, CPU, pinning, ...).
    public var conditions: [String: String]
    /// `loaderDone`, `main`, `firstOutput` and `exit` (and whatever else the report has) as
    /// measured from process birth; a milestone never reached is absent.
    public var milestones: [String: TimingSummary]
    /// Time in each object's initializers, in load order.
    public var objects: [ObjectTiming]

    public struct ObjectTiming: Codable, Sendable, Equatable {
        public var path: String
        /// `nil` when the object's initializers were not timed.
        public var initializers: TimingSummary?
        /// Median time from process birth at which its initializers started; `nil` when
        /// unknown.
        public var initializersStartMs: Double?

        public init(path: String, initializers: TimingSummary?, initializersStartMs: Double? = nil) {
            self.path = path
            self.initializers = initializers
            self.initializersStartMs = initializersStartMs
        }
    }

    /// The milestone names in timeline order.
    public static let milestoneOrder = ["loaderDone", "main", "firstOutput", "exit"]

    public init(command: String, runs: Int, cold: Bool = false, conditions: [String: String] = [:],
                milestones: [String: TimingSummary], objects: [ObjectTiming] = []) {
        self.command = command
        self.runs = runs
        self.cold = cold
        self.conditions = conditions
        self.milestones = milestones
        self.objects = objects
    }

    /// Reads one `measurements[]` entry of a measure report; `nil` when it has no milestones.
    public init?(measurement value: JSONValue) {
        guard case .object(let milestonesJSON)? = value["milestones"] else { return nil }
        var milestones: [String: TimingSummary] = [:]
        for (name, summary) in milestonesJSON {
            if let timing = summary.decoded(TimingSummary.self) { milestones[name] = timing }
        }
        var objects: [ObjectTiming] = []
        if case .array(let entries)? = value["objects"] {
            for entry in entries {
                guard case .string(let path)? = entry["path"] else { continue }
                var start: Double?
                if case .number(let median)? = entry["initializersStart"]?["medianMs"] { start = median }
                objects.append(ObjectTiming(path: path, initializers: entry["initializers"]?.decoded(TimingSummary.self),
                                            initializersStartMs: start))
            }
        }
        var conditions: [String: String] = [:]
        if case .object(let values)? = value["conditions"] {
            for (key, item) in values { conditions[key] = item.displayText }
        }
        var runs = 0
        if case .number(let count)? = value["runs"] { runs = Int(count) }
        var cold = false
        if case .bool(let flag)? = value["cold"] { cold = flag }
        self.init(command: value["command"]?.displayText ?? "", runs: runs, cold: cold, conditions: conditions,
                  milestones: milestones, objects: objects)
    }
}
