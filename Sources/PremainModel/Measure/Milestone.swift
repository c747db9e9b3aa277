/// A milestone of a launch. Its raw value is its one name: the key under `milestones` in
/// measure reports, the quantity `compare` and `diff` name, and the history's metric.
public enum Milestone: String, CaseIterable, Codable, CodingKey, Sendable {
    /// The loader's first line.
    case loaderStart
    /// Mapping and relocation done: the first initializer is about to run.
    case loaderDone
    /// The executable's own initializers start (`initialize program`).
    case programInitializers
    /// `transferring control`: main is called.
    case main
    /// First byte on stdout or stderr.
    case firstOutput
    /// A line of output matched `--ready`, or the `--until` function was first called.
    case ready
    /// The process ended.
    case exit

    /// The milestones `compare` and `diff` compare, and the history keeps, in table order.
    public static let compared: [Milestone] = [.loaderDone, .main, .firstOutput, .exit]

    /// The name for people: "first output" for `firstOutput`, "loader done" for `loaderDone`.
    public var title: String {
        switch self {
        case .loaderStart: return "loader start"
        case .loaderDone: return "loader done"
        case .programInitializers: return "program initializers"
        case .main: return "main"
        case .firstOutput: return "first output"
        case .ready: return "ready"
        case .exit: return "exit"
        }
    }
}

/// The milestones of a launch, each summarized over the runs that reached it, written in JSON
/// under their `Milestone` names; a milestone no run reached is left out.
public struct Milestones: Codable, Equatable, Sendable {
    private var summaries: [Milestone: TimeSummary]

    /// `summaries` without its `nil` values.
    public init(_ summaries: [Milestone: TimeSummary?] = [:]) {
        self.summaries = summaries.compactMapValues { $0 }
    }

    /// The summary of `milestone`; `nil` when no run reached it.
    public subscript(_ milestone: Milestone) -> TimeSummary? {
        get { summaries[milestone] }
        set { summaries[milestone] = newValue }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Milestone.self)
        summaries = [:]
        for milestone in Milestone.allCases {
            summaries[milestone] = try container.decodeIfPresent(TimeSummary.self, forKey: milestone)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Milestone.self)
        for milestone in Milestone.allCases {
            try container.encodeIfPresent(summaries[milestone], forKey: milestone)
        }
    }
}

/// A time `compare` compares, the history keeps and the exports name: a milestone, or the
/// target's own CPU time. Its raw value (the milestone's, or `cpuTime`) is its name everywhere.
public enum TimeQuantity: Hashable, Sendable, CaseIterable, RawRepresentable, Codable {
    case milestone(Milestone)
    /// The target's user + system CPU time (wait4), not a milestone.
    case cpuTime

    /// The compared milestones, then CPU time.
    public static let allCases: [TimeQuantity] = Milestone.compared.map(TimeQuantity.milestone) + [.cpuTime]

    /// The times a verdict rests on when both builds reach them (`exit` when neither is there),
    /// and the history's trend by default.
    public static let gated: [TimeQuantity] = [.milestone(.main), .milestone(.firstOutput)]

    /// `nil` for a name that is not one of `allCases`.
    public init?(rawValue: String) {
        guard let quantity = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = quantity
    }

    public var rawValue: String {
        switch self {
        case .milestone(let milestone): return milestone.rawValue
        case .cpuTime: return "cpuTime"
        }
    }

    /// The milestone a trace of this quantity runs to (`loaderDone` and `main`: main).
    public var traceWindow: TraceWindowEnd {
        switch self {
        case .milestone(.loaderStart), .milestone(.loaderDone), .milestone(.programInitializers), .milestone(.main):
            return .main
        case .milestone(.firstOutput), .milestone(.ready): return .firstOutput
        case .milestone(.exit), .cpuTime: return .exit
        }
    }

    /// "main", "first output": the quantity's name without "time to".
    public var shortTitle: String {
        switch self {
        case .milestone(let milestone): return milestone.title
        case .cpuTime: return "CPU time"
        }
    }

    /// "time to main", "CPU time".
    public var title: String {
        switch self {
        case .milestone(let milestone): return "time to " + milestone.title
        case .cpuTime: return "CPU time"
        }
    }

    /// The history's metric of this time, its median in ms: the raw value.
    public var metricName: String { rawValue }
}

/// A count `compare` compares, `measure` reads from the loader, the history keeps and the
/// exports name. Its raw value is its name in compare reports; `metricName` in the history.
public enum CountQuantity: String, Codable, Sendable, CaseIterable {
    /// glibc's "number of relocations" at start-up: symbol look-ups.
    case symbolLookups
    /// glibc's "number of relocations from cache" at start-up (measure only).
    case relocationsFromCache
    /// glibc's "number of relative relocations".
    case relativeRelocations
    /// Objects the loader mapped.
    case loadedObjects
    case minorFaults, majorFaults, voluntarySwitches, involuntarySwitches

    /// The counts `compare` compares, in table order.
    public static let compared: [CountQuantity] = [
        .symbolLookups, .relativeRelocations, .loadedObjects, .minorFaults,
        .majorFaults, .voluntarySwitches, .involuntarySwitches,
    ]

    /// The counts of `LD_DEBUG=statistics` (`LoaderCounts`), as `measure` reports them.
    public static let loader: [CountQuantity] = [.symbolLookups, .relocationsFromCache, .relativeRelocations]

    public var title: String {
        switch self {
        case .symbolLookups: return "loader symbol look-ups"
        case .relocationsFromCache: return "relocations from cache"
        case .relativeRelocations: return "relative relocations"
        case .loadedObjects: return "objects loaded"
        case .minorFaults: return "minor page faults"
        case .majorFaults: return "major page faults"
        case .voluntarySwitches: return "voluntary context switches"
        case .involuntarySwitches: return "involuntary context switches"
        }
    }

    /// Counts that only the program decides; the switches depend on other load.
    public var isEvidence: Bool { self != .involuntarySwitches }

    /// The history's metric of this count, whichever report gave it: `count.symbolLookups`.
    public var metricName: String { "count." + rawValue }
}

extension LoaderCounts {
    /// The count of `quantity`; `nil` when the loader did not print it, or for a count that is
    /// not the loader's.
    public subscript(_ quantity: CountQuantity) -> Int? {
        switch quantity {
        case .symbolLookups: return symbolLookups
        case .relocationsFromCache: return relocationsFromCache
        case .relativeRelocations: return relativeRelocations
        case .loadedObjects, .minorFaults, .majorFaults, .voluntarySwitches, .involuntarySwitches: return nil
        }
    }
}

extension LaunchMeasurement {
    /// The summary of `quantity`: a milestone's, or the target's CPU time; `nil` when no run
    /// reached it or it was not measured.
    public subscript(_ quantity: TimeQuantity) -> TimeSummary? {
        switch quantity {
        case .milestone(let milestone): return milestones[milestone]
        case .cpuTime: return targetCPUTime
        }
    }
}
