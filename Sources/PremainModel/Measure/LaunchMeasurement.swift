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

    /// The declared launch (premain.json's `launches`) this row of the matrix measures, at the
    /// temperature `cold` says; `nil` for the command line's unnamed launch.
    public var launch: String?
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
    /// Instructions of one run under callgrind, when asked for (`--instructions`); `nil`
    /// otherwise.
    public var instructions: InstructionCounts?
    /// Objects loaded after main (`dlopen`) by the first image; never part of the time before
    /// main. `nil` when none.
    public var loadedAfterMain: [LateObjectMeasurement]?
    /// Images the process exec'd into after the first, each over the runs that reached it;
    /// `nil` when it never exec'd.
    public var execImages: [ImageMeasurement]?
    /// Most child processes in one run that inherited LD_DEBUG (their lines are not in these
    /// figures); `nil` when none.
    public var childProcessesWithLoaderOutput: Int?
    /// Where the target's stdout went: "null device" (a private /dev/null whose first write is
    /// watched: output costs what /dev/null costs) or "pipe"; `nil` in older reports.
    public var outputCapture: String?
    /// Where the time goes: the launch split by phase and whose objects; `nil` without loader
    /// lines.
    public var breakdown: LaunchBreakdown?

    public init(
        command: [String], runs: Int, warmup: Int, cold: Bool, conditions: LaunchConditions, status: Status,
        failures: [String], outcomes: [LaunchOutcome], milestones: Milestones,
        targetCPUTime: TimeSummary? = nil, objects: [ObjectMeasurement],
        loaderCounts: LoaderCountSummary? = nil, loaderPhasesMissing: String? = nil,
        uninstrumented: UninstrumentedSeries? = nil, observerEffect: ObserverEffect? = nil,
        coldResidency: [ResidencySummary]? = nil, warnings: [MeasurementWarning], medianRun: Int? = nil,
        medianRunTimeline: LoaderTimeline? = nil, rawSamples: [LaunchSample]? = nil,
        instructions: InstructionCounts? = nil
    ) {
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
        self.instructions = instructions
    }

    enum CodingKeys: String, CodingKey {
        case launch, command, runs, warmup, cold, conditions, status, failures, outcomes, milestones, targetCPUTime,
            objects,
            loaderCounts, loaderPhasesMissing, uninstrumented, observerEffect, coldResidency, warnings, medianRun,
            medianRunTimeline, rawSamples, instructions, loadedAfterMain, execImages, childProcessesWithLoaderOutput,
            outputCapture, breakdown
    }

    /// Reads a measurement as `premain measure` writes it. `command`, `runs`, `conditions`
    /// and `milestones` are required; a hand-written report may leave out the rest: no
    /// warm-up, warm, `ok`, and no failures, outcomes, objects or warnings.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            command: try container.decode([String].self, forKey: .command),
            runs: try container.decodeChecked(.runs, in: 0...ReportLimits.maxRuns),
            warmup: try container.decodeCheckedIfPresent(.warmup, in: 0...ReportLimits.maxRuns) ?? 0,
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
            medianRun: try container.decodeCheckedIfPresent(.medianRun, in: 0...ReportLimits.maxRuns),
            medianRunTimeline: try container.decodeIfPresent(LoaderTimeline.self, forKey: .medianRunTimeline),
            rawSamples: try container.decodeIfPresent([LaunchSample].self, forKey: .rawSamples),
            instructions: try container.decodeIfPresent(InstructionCounts.self, forKey: .instructions))
        launch = try container.decodeIfPresent(String.self, forKey: .launch)
        loadedAfterMain = try container.decodeIfPresent([LateObjectMeasurement].self, forKey: .loadedAfterMain)
        execImages = try container.decodeIfPresent([ImageMeasurement].self, forKey: .execImages)
        childProcessesWithLoaderOutput = try container.decodeIfPresent(
            Int.self, forKey: .childProcessesWithLoaderOutput)
        outputCapture = try container.decodeIfPresent(String.self, forKey: .outputCapture)
        breakdown = try container.decodeIfPresent(LaunchBreakdown.self, forKey: .breakdown)
    }
}

/// An image the process exec'd into after the first (`sh -c 'exec prog'`, a driver that execs
/// its tool), over the runs that reached it. Times are milliseconds since process birth.
public struct ImageMeasurement: Codable, Equatable, Sendable {
    /// The program as its loader named it (the path or name it was exec'd as).
    public var program: String?
    /// Position in the chain: 2 for the first image exec'd after the one started.
    public var position: Int
    /// Counted runs that reached this image.
    public var runs: Int
    /// Its loader start, loader done, own initializers and main (first output and exit are the
    /// process's, on the measurement).
    public var milestones: Milestones
    public var objects: [ObjectMeasurement]
    public var loaderCounts: LoaderCountSummary?
    public var loadedAfterMain: [LateObjectMeasurement]?

    public init(
        program: String?, position: Int, runs: Int, milestones: Milestones, objects: [ObjectMeasurement],
        loaderCounts: LoaderCountSummary? = nil, loadedAfterMain: [LateObjectMeasurement]? = nil
    ) {
        self.program = program
        self.position = position
        self.runs = runs
        self.milestones = milestones
        self.objects = objects
        self.loaderCounts = loaderCounts
        self.loadedAfterMain = loadedAfterMain
    }
}

/// An object loaded after main (`dlopen`), over the runs that loaded it: when its load began,
/// how long mapping and relocation took, and its initializers from their `calling init` line
/// to the end of that object's initializers only (the next initializer of the same load, or
/// glibc's `opening file=` line once the load's initializers returned).
public struct LateObjectMeasurement: Codable, Equatable, Sendable {
    /// The `calling init` path, else the name the loader printed.
    public var path: String
    /// The object that called `dlopen`; `nil` for objects a load brought in as dependencies.
    public var requestedBy: String?
    /// Runs in which it was loaded after main.
    public var runs: Int
    /// When the load that brought it began (`dynamically loaded by`), since process birth.
    public var loadStart: TimeSummary
    /// For the object asked for: mapping and relocation of the whole load, from its start to
    /// its first initializer (or its end). `nil` for dependencies.
    public var load: TimeSummary?
    /// Its own initializers' duration; `nil` when it has none.
    public var initializers: TimeSummary?
    /// Runs that ended inside its initializers (a crash, a timeout, a stop).
    public var unfinished: Int

    public init(
        path: String, requestedBy: String?, runs: Int, loadStart: TimeSummary, load: TimeSummary?,
        initializers: TimeSummary?, unfinished: Int
    ) {
        self.path = path
        self.requestedBy = requestedBy
        self.runs = runs
        self.loadStart = loadStart
        self.load = load
        self.initializers = initializers
        self.unfinished = unfinished
    }
}

/// One object's loader events over the runs.
public struct ObjectMeasurement: Codable, Equatable, Sendable {
    public enum Role: String, Codable, Sendable {
        case loader, library, executable
    }

    public var path: String
    public var role: Role
    /// When its mapping was done; `nil` for the executable and the loader (mapped by the kernel).
    public var mapped: TimeSummary?
    /// When its initializers started; `nil` when it has none.
    public var initializersStart: TimeSummary?
    /// Duration of all its initializers together; `nil` when it has none.
    public var initializers: TimeSummary?
    /// Its loading: search, open and mapping, from its `file=` line to the end of its link map
    /// (`dynamic:`); `nil` for the executable and the loader (the kernel maps them).
    public var mapping: TimeSummary?
    /// Its relocation pass before main (`relocation processing:` to the next object's); `nil`
    /// when the loader printed none. Lazy PLT binding after main is not in it.
    public var relocation: TimeSummary?
    /// When its relocation pass began; `nil` without one.
    public var relocationStart: TimeSummary?
    /// True when its PLT is bound lazily (after main, on first call); `nil` when not known.
    public var lazyBinding: Bool?
    /// Whose object it is (see `ObjectGroup`).
    public var group: ObjectGroup?
    /// What the audit counts in it; `nil` when it could not be read.
    public var facts: ObjectStaticFacts?

    public init(
        path: String, role: Role, mapped: TimeSummary? = nil,
        initializersStart: TimeSummary? = nil, initializers: TimeSummary? = nil,
        mapping: TimeSummary? = nil, relocation: TimeSummary? = nil, lazyBinding: Bool? = nil,
        group: ObjectGroup? = nil, facts: ObjectStaticFacts? = nil
    ) {
        self.path = path
        self.role = role
        self.mapped = mapped
        self.initializersStart = initializersStart
        self.initializers = initializers
        self.mapping = mapping
        self.relocation = relocation
        self.lazyBinding = lazyBinding
        self.group = group
        self.facts = facts
    }

    /// Loading, relocation and initializers together (medians), in milliseconds.
    public var loaderCostMs: Double {
        (mapping?.medianMs ?? 0) + (relocation?.medianMs ?? 0) + (initializers?.medianMs ?? 0)
    }
}

/// Loader counts from `LD_DEBUG=statistics`. glibc's "number of relocations" counts symbol
/// look-ups (calls of `_dl_lookup_symbol_x`); "from cache" counts symbol relocations resolved
/// by the one-entry look-up cache instead. glibc's "cycles" are never read: they are TSC ticks,
/// stop before any initializer and are not wall-clock time.
public struct LoaderCounts: Codable, Equatable, Sendable {
    /// glibc's "number of relocations": symbol look-ups performed.
    public var symbolLookups: Int?
    /// glibc's "number of relocations from cache".
    public var relocationsFromCache: Int?
    /// glibc's "number of relative relocations" (not printed in the final block).
    public var relativeRelocations: Int?

    public init(
        symbolLookups: Int? = nil, relocationsFromCache: Int? = nil,
        relativeRelocations: Int? = nil
    ) {
        self.symbolLookups = symbolLookups
        self.relocationsFromCache = relocationsFromCache
        self.relativeRelocations = relativeRelocations
    }
}

/// `LD_DEBUG=statistics` counts: those of the median run, and every run's.
public struct LoaderCountSummary: Codable, Equatable, Sendable {
    /// Printed when relocation was done, before any initializer.
    public var startup: LoaderCounts?
    /// Printed at exit; includes lazy binding during main.
    public var final: LoaderCounts?
    public var startupPerRun: [LoaderCounts?]
    public var finalPerRun: [LoaderCounts?]

    public init(
        startup: LoaderCounts? = nil, final: LoaderCounts? = nil, startupPerRun: [LoaderCounts?],
        finalPerRun: [LoaderCounts?]
    ) {
        self.startup = startup
        self.final = final
        self.startupPerRun = startupPerRun
        self.finalPerRun = finalPerRun
    }
}

/// The uninstrumented series: what can be seen without `LD_DEBUG`.
public struct UninstrumentedSeries: Codable, Equatable, Sendable {
    public var runs: Int
    public var firstOutput: TimeSummary?
    public var exit: TimeSummary?
    /// The target's own CPU time (user + system) per run; `nil` when not measured.
    public var cpu: TimeSummary?
    public var outcomes: [LaunchOutcome]

    public init(
        runs: Int, firstOutput: TimeSummary? = nil, exit: TimeSummary? = nil, cpu: TimeSummary? = nil,
        outcomes: [LaunchOutcome]
    ) {
        self.runs = runs
        self.firstOutput = firstOutput
        self.exit = exit
        self.cpu = cpu
        self.outcomes = outcomes
    }
}

/// Instrumented median / uninstrumented median for the milestones both series see.
/// 1.03 means instrumentation added 3 %.
public struct ObserverEffect: Codable, Equatable, Sendable {
    public var firstOutputRatio: Double?
    public var exitRatio: Double?
    /// Ratio of the target's own CPU time (user + system), which other load disturbs less.
    public var cpuRatio: Double?

    public init(firstOutputRatio: Double? = nil, exitRatio: Double? = nil, cpuRatio: Double? = nil) {
        self.firstOutputRatio = firstOutputRatio
        self.exitRatio = exitRatio
        self.cpuRatio = cpuRatio
    }
}

/// Pages of one file still resident right after eviction, over the cold runs.
public struct ResidencySummary: Codable, Equatable, Sendable {
    public var path: String
    public var pages: Int
    /// Median over runs of resident pages after eviction.
    public var residentPagesMedian: Double
    public var residentPagesMax: Int
    /// Set when eviction or the check failed.
    public var error: String?

    public init(path: String, pages: Int, residentPagesMedian: Double, residentPagesMax: Int, error: String? = nil) {
        self.path = path
        self.pages = pages
        self.residentPagesMedian = residentPagesMedian
        self.residentPagesMax = residentPagesMax
        self.error = error
    }
}

/// The result of `premain measure`: one `LaunchMeasurement` per command. Codable; JSON
/// `schemaVersion` 1, read by `premain diff` and other tools.
/// With declared launches (premain.json's `launches`), one measurement per row of the matrix,
/// launch × temperature, each naming its `launch` and saying `cold`.
public struct MeasureReport: Codable, Equatable, Sendable, KindedReport {
    public static let kind = ReportKind.measure
    public var schemaVersion: Int
    public var kind = ReportKindField<MeasureReport>()
    public var measurements: [LaunchMeasurement]

    public init(measurements: [LaunchMeasurement]) {
        self.schemaVersion = 1
        self.measurements = measurements
    }

    /// True when the measurements are rows of the declared launch matrix.
    public var isMatrix: Bool { measurements.contains { $0.launch != nil } }
}

extension LaunchMeasurement {
    /// Its row's name: "version", "format (cold)"; "launch" for the command line's.
    public var rowLabel: String {
        LaunchRow.label(name: launch, temperature: LaunchTemperature(cold: cold))
    }
}
