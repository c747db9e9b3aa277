/// The result of `premain trace`: Codable, the input of other tools (`--format json`).
public struct TraceReport: Codable, Equatable, Sendable, KindedReport {
    public static let kind = ReportKind.trace
    /// 1 for this layout.
    public var schemaVersion: Int
    public var kind = ReportKindField<TraceReport>()
    /// The tracer's fixed cost per breakpoint pair, subtracted from every timing.
    public var bias: TraceBias
    /// One per traced command.
    public var measurements: [TraceMeasurement]

    public init(schemaVersion: Int = 1, bias: TraceBias, measurements: [TraceMeasurement]) {
        self.schemaVersion = schemaVersion
        self.bias = bias
        self.measurements = measurements
    }
}

/// How much the tracer adds to a timed call, and where the figure comes from.
public struct TraceBias: Codable, Equatable, Sendable {
    /// Subtracted once per timed call and once per stop nested inside it (median round trip
    /// from resuming the target to waking at its next breakpoint, on an empty function).
    public var pairMs: Double
    /// Wall time the target loses per traced call (two stops with their handling); `nil` when
    /// the bias was given rather than measured.
    public var costPerCallMs: Double?
    /// Where `pairMs` comes from.
    public var source: Source
    /// Calls of the empty function the figure is the median of (0 when given).
    public var calibrationCalls: Int

    /// Where a bias comes from; encoded as its raw value.
    public enum Source: String, Codable, Sendable {
        /// Measured at start on an empty function traced the same way as real ones.
        case measured
        /// Given with `--bias-ms`.
        case given
    }

    public init(pairMs: Double, costPerCallMs: Double?, source: Source, calibrationCalls: Int) {
        self.pairMs = pairMs
        self.costPerCallMs = costPerCallMs
        self.source = source
        self.calibrationCalls = calibrationCalls
    }
}

/// Everything measured for one command over its runs.
public struct TraceMeasurement: Codable, Equatable, Sendable {
    /// argv as given.
    public var command: [String]
    /// Measured runs (warm-up runs excluded).
    public var runs: Int
    public var warmup: Int
    /// Where timing stopped: encoded as `main`, `first-output`, `exit` or the symbol.
    public var until: TraceWindowEnd
    public var maxCalls: Int
    /// Machine, pinning, binary and date, as `premain measure` records them; the tracer is the
    /// measurer (`pinning.measurerCPU`, `measurerScheduling`).
    public var conditions: LaunchConditions
    /// ms since process birth of each milestone reached: "main", "firstOutput", "exit", or the
    /// `--until` symbol; over the runs that reached it.
    public var milestones: [String: TimeSummary]
    /// How each measured run ended, in order; encoded as text ("reached main", "killed by
    /// signal 11", ...).
    public var outcomes: [TraceOutcome]
    /// The hot list, sorted by inclusive median, largest first.
    public var functions: [TracedFunction]
    /// Functions found but not timed, with the reason.
    public var untimed: [UntimedFunction]
    /// Things premain noticed: problems that did not stop a run, and advice.
    public var notes: [String]
    /// One line per distinct failed outcome: "5 of 5 runs: exited with status 127: the loader
    /// failed: …"; `nil` when every run succeeded.
    public var failures: [String]?
    /// Each counted run's calls with their start times (`--export-trace`, `--format html`);
    /// `nil` when not asked for.
    public var timelines: [TraceRunTimeline]? = nil

    public init(
        command: [String], runs: Int, warmup: Int, until: TraceWindowEnd, maxCalls: Int, conditions: LaunchConditions,
        milestones: [String: TimeSummary], outcomes: [TraceOutcome], functions: [TracedFunction],
        untimed: [UntimedFunction], notes: [String], timelines: [TraceRunTimeline]? = nil
    ) {
        self.timelines = timelines
        self.command = command
        self.runs = runs
        self.warmup = warmup
        self.until = until
        self.maxCalls = maxCalls
        self.conditions = conditions
        self.milestones = milestones
        self.outcomes = outcomes
        self.functions = functions
        self.untimed = untimed
        self.notes = notes
    }
}

/// One timed function.
public struct TracedFunction: Codable, Equatable, Sendable {
    /// Path of the object it is in.
    public var object: String
    /// The mangled symbol (for an unnamed initializer entry: "DT_INIT_ARRAY[i]").
    public var symbol: String
    /// The readable name; `nil` when the symbol is not mangled (C functions).
    public var demangled: String?
    public var kind: TracedFunctionKind
    /// Calls per run (the largest over the runs). When `callsCapped`, at least this many.
    public var calls: Int
    /// `--max-calls` was reached and the function was disarmed.
    public var callsCapped: Bool
    /// Inclusive time per run (all non-recursive calls of the run added up), bias removed.
    public var inclusive: TimeSummary
    /// Exclusive time per run: inclusive minus the traced functions called directly inside it.
    /// `nil` when no call completed.
    public var exclusive: TimeSummary?
    /// Where the function is (line table at its entry), or for an inlined copy the call site.
    public var source: SourceLocation?
    /// For an inlined copy: the function it was inlined into.
    public var inlinedInto: String?
    /// Calls entered but never seen returning (crash, exception, window end), over all runs.
    public var unfinishedCalls: Int
    /// Link-time address of its first instruction in `object` ("0x671260"): two functions of
    /// one object with the same name (two `_GLOBAL__sub_I_SimplifyCFG.cpp`) are two rows.
    public var address: String?
    /// True when the symbol is a GNU IFUNC: what was timed is its resolver, which the loader
    /// runs once to choose an implementation, not the implementation itself.
    public var ifuncResolver: Bool?
    /// The program image it ran in after the target exec'd (2 for the first exec'd image);
    /// `nil` for the image started.
    public var image: Int?

    public init(
        object: String, symbol: String, demangled: String?, kind: TracedFunctionKind, calls: Int,
        callsCapped: Bool, inclusive: TimeSummary, exclusive: TimeSummary? = nil, source: SourceLocation?,
        inlinedInto: String?, unfinishedCalls: Int
    ) {
        self.exclusive = exclusive
        self.object = object
        self.symbol = symbol
        self.demangled = demangled
        self.kind = kind
        self.calls = calls
        self.callsCapped = callsCapped
        self.inclusive = inclusive
        self.source = source
        self.inlinedInto = inlinedInto
        self.unfinishedCalls = unfinishedCalls
    }

    /// "12" or "≥ 100" when capped.
    public var callsText: String { callsCapped ? "≥ \(calls)" : "\(calls)" }
}

/// What a traced function is, as shown in the hot list.
public enum TracedFunctionKind: String, Codable, Sendable, CaseIterable {
    /// A static initializer entry without a better name (toolchain code such as `_init` or
    /// `frame_dummy`, or an unnamed entry in a stripped file).
    case staticInitializer
    /// A GCC/Clang `_GLOBAL__sub_I_<file>` function: every global constructor of one file.
    case cxxTranslationUnitInitializer
    /// One global a C++ translation unit's initializer constructs, its constructor inlined
    /// there: timed apart inside the unit's initializer, at the global's definition.
    case cxxGlobal
    /// A named function in an initializer array: `__attribute__((constructor))` and the like.
    case constructorFunction
    /// A Swift global's one-time initializer (`…WZ`), run on first use.
    case swiftLazyGlobal
    /// A Swift default-argument generator (`…fA_`, `…fA0_`), run at call sites.
    case swiftDefaultArgument
    /// A function asked for with `--function`.
    case named

    /// The words used in text output.
    public var title: String {
        switch self {
        case .staticInitializer: return "static initializer"
        case .cxxTranslationUnitInitializer: return "C++ translation-unit initializer"
        case .cxxGlobal: return "C++ global"
        case .constructorFunction: return "constructor function"
        case .swiftLazyGlobal: return "Swift lazy global"
        case .swiftDefaultArgument: return "Swift default argument"
        case .named: return "named"
        }
    }
}

/// A function premain looked for and could not time.
public struct UntimedFunction: Codable, Equatable, Sendable {
    /// Path of the object.
    public var object: String
    /// The mangled symbol, or "*" for every function of that kind in the object.
    public var symbol: String
    /// The readable name; `nil` when the symbol is not mangled.
    public var demangled: String?
    public var kind: TracedFunctionKind
    /// Why it could not be timed, in words a user can act on.
    public var reason: String

    public init(object: String, symbol: String, demangled: String?, kind: TracedFunctionKind, reason: String) {
        self.object = object
        self.symbol = symbol
        self.demangled = demangled
        self.kind = kind
        self.reason = reason
    }
}
