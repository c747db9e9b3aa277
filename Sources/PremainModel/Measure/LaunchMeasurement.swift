/// One command measured: a series of counted runs (all warm or all cold), its statistics, the
/// uninstrumented series for the observer effect, and the conditions. Every time is in
/// milliseconds since process birth unless its name says it is a duration.
public struct LaunchMeasurement: Codable, Equatable, Sendable {
    /// Whether every counted run succeeded.
    public enum Status: String, Codable, Sendable {
        case ok
        /// At least one run exited non-zero, died by a signal, timed out, missed a library or
        /// could not exec. `failures` says which and how many.
        case failed
    }

    public var command: [String]
    /// Counted runs of the instrumented series.
    public var runs: Int
    public var warmup: Int
    public var cold: Bool
    public var conditions: LaunchConditions
    public var status: Status
    /// One line per distinct failure: "3 of 10 runs: killed by signal 11 (Segmentation fault)".
    public var failures: [String]
    /// Each counted run's outcome, in run order.
    public var outcomes: [LaunchOutcome]
    public var milestones: Milestones
    /// Not a milestone: the target's own CPU time (user + system, from wait4) per run.
    public var targetCPUTime: TimeSummary?
    /// Objects with loader events, in order of their initializers (then of mapping).
    public var objects: [ObjectMeasurement]
    public var loaderCounts: LoaderCountSummary?
    /// Why there are no loader phases (static or non-glibc binary, not ELF); `nil` when there are.
    public var loaderPhasesMissing: String?
    /// The same command without `LD_DEBUG`, interleaved with the instrumented runs.
    public var uninstrumented: UninstrumentedSeries?
    public var observerEffect: ObserverEffect?
    /// Cold series only: what stayed in the page cache after each eviction.
    public var coldResidency: [ResidencySummary]?
    public var warnings: [MeasurementWarning]
    /// Index (into the counted runs) of the run closest to the median exit, drawn as the
    /// waterfall; `nil` when no run has a loader timeline.
    public var medianRun: Int?
    /// That run's timeline, for the waterfall.
    public var medianRunTimeline: LoaderTimeline?
    /// Every counted instrumented run as launched (absolute birth time, every loader line's
    /// time), when asked for (`--raw`); `nil` otherwise.
    public var rawSamples: [LaunchSample]?

    public init(command: [String], runs: Int, warmup: Int, cold: Bool, conditions: LaunchConditions, status: Status, failures: [String], outcomes: [LaunchOutcome], milestones: Milestones, targetCPUTime: TimeSummary? = nil, objects: [ObjectMeasurement], loaderCounts: LoaderCountSummary? = nil, loaderPhasesMissing: String? = nil, uninstrumented: UninstrumentedSeries? = nil, observerEffect: ObserverEffect? = nil, coldResidency: [ResidencySummary]? = nil, warnings: [MeasurementWarning], medianRun: Int? = nil, medianRunTimeline: LoaderTimeline? = nil, rawSamples: [LaunchSample]? = nil) {
        self.command = command
        self.runs = runs
        self.warmup = warmup
        self.cold = cold
        self.conditions = conditions
        self.status = status
        self.failures = failures
        self.outcomes = outcomes
        self.milestones = milestones
        self.targetCPUTime = targetCPUTime
        self.objects = objects
        self.loaderCounts = loaderCounts
        self.loaderPhasesMissing = loaderPhasesMissing
        self.uninstrumented = uninstrumented
        self.observerEffect = observerEffect
        self.coldResidency = coldResidency
        self.warnings = warnings
        self.medianRun = medianRun
        self.medianRunTimeline = medianRunTimeline
        self.rawSamples = rawSamples
    }

    enum CodingKeys: String, CodingKey {
        case command, runs, warmup, cold, conditions, status, failures, outcomes, milestones, targetCPUTime, objects,
             loaderCounts, loaderPhasesMissing, uninstrumented, observerEffect, coldResidency, warnings, medianRun,
             medianRunTimeline, rawSamples
    }

    /// Reads a measurement as `premain measure` writes it. `command`, `runs`, `conditions`
    /// and `milestones` are required; a hand-written report may leave out the rest: no
    /// warm-up, warm, `ok`, and no failures, outcomes, objects or warnings.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(command: try container.decode([String].self, forKey: .command),
                  runs: try container.decode(Int.self, forKey: .runs),
                  warmup: try container.decodeIfPresent(Int.self, forKey: .warmup) ?? 0,
                  cold: try container.decodeIfPresent(Bool.self, forKey: .cold) ?? false,
                  conditions: try container.decode(LaunchConditions.self, forKey: .conditions),
                  status: try container.decodeIfPresent(Status.self, forKey: .status) ?? .ok,
                  failures: try container.decodeIfPresent([String].self, forKey: .failures) ?? [],
                  outcomes: try container.decodeIfPresent([LaunchOutcome].self, forKey: .outcomes) ?? [],
                  milestones: try container.decode(Milestones.self, forKey: .milestones),
                  targetCPUTime: try container.decodeIfPresent(TimeSummary.self, forKey: .targetCPUTime),
                  objects: try container.decodeIfPresent([ObjectMeasurement].self, forKey: .objects) ?? [],
                  loaderCounts: try container.decodeIfPresent(LoaderCountSummary.self, forKey: .loaderCounts),
                  loaderPhasesMissing: try container.decodeIfPresent(String.self, forKey: .loaderPhasesMissing),
                  uninstrumented: try container.decodeIfPresent(UninstrumentedSeries.self, forKey: .uninstrumented),
                  observerEffect: try container.decodeIfPresent(ObserverEffect.self, forKey: .observerEffect),
                  coldResidency: try container.decodeIfPresent([ResidencySummary].self, forKey: .coldResidency),
                  warnings: try container.decodeIfPresent([MeasurementWarning].self, forKey: .warnings) ?? [],
                  medianRun: try container.decodeIfPresent(Int.self, forKey: .medianRun),
                  medianRunTimeline: try container.decodeIfPresent(LoaderTimeline.self, forKey: .medianRunTimeline),
                  rawSamples: try container.decodeIfPresent([LaunchSample].self, forKey: .rawSamples))
    }
}
