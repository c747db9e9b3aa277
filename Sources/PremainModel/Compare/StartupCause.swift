/// One thing that moved between two builds and explains part of a start-up change: a function
/// (an initializer, a Swift lazy global or default argument), or an object (its initializers,
/// its mapping when it is new or gone). Paired across the builds by identity, never by path:
/// the object's role (`<executable>`, or a library's file name) plus the function's symbol.
public struct StartupCause: Codable, Equatable, Sendable {
    /// What kind of thing moved.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// A Swift global's one-time initializer (`…WZ`), run on first use.
        case swiftLazyGlobal
        /// A Swift default-argument generator (`…fA_`), run at every call site.
        case swiftDefaultArgument
        /// A C++ translation unit's global constructors (`_GLOBAL__sub_I_<file>`).
        case cxxTranslationUnitInitializer
        /// One global of a C++ translation unit, its constructor inlined in the unit's initializer.
        case cxxGlobal
        /// A function in an initializer array (`__attribute__((constructor))`).
        case constructorFunction
        /// Another static initializer entry (toolchain code, an unnamed entry).
        case staticInitializer
        /// A function asked for by name.
        case namedFunction
        /// All initializers of one object, as the loader's lines time them.
        case objectInitializers
        /// The loader's mapping of one object (only for an object one build lacks).
        case objectMapping

        /// The words used in reports: "lazy global", "C++ constructors", …
        public var title: String {
            switch self {
            case .swiftLazyGlobal: return "lazy global"
            case .swiftDefaultArgument: return "default argument"
            case .cxxTranslationUnitInitializer: return "C++ global constructors"
            case .cxxGlobal: return "C++ global"
            case .constructorFunction: return "constructor"
            case .staticInitializer: return "static initializer"
            case .namedFunction: return "function"
            case .objectInitializers: return "initializers"
            case .objectMapping: return "loading"
            }
        }

        /// Each traced function's kind and the cause kind it becomes, written once: both
        /// conversions read it.
        static let traced: [(traced: TracedFunctionKind, cause: Kind)] = [
            (.swiftLazyGlobal, .swiftLazyGlobal), (.swiftDefaultArgument, .swiftDefaultArgument),
            (.cxxTranslationUnitInitializer, .cxxTranslationUnitInitializer), (.cxxGlobal, .cxxGlobal),
            (.constructorFunction, .constructorFunction),
            (.staticInitializer, .staticInitializer), (.named, .namedFunction),
        ]

        /// The kind of a traced function.
        public init(_ kind: TracedFunctionKind) {
            self = Self.traced.first { $0.traced == kind }?.cause ?? .namedFunction
        }

        /// True for code the loader runs before `main` (static initializers, objects).
        public var runsBeforeMain: Bool {
            switch self {
            case .swiftLazyGlobal, .swiftDefaultArgument, .namedFunction: return false
            default: return true
            }
        }
    }

    /// How the thing differs between the builds.
    public enum Change: String, Codable, Sendable {
        /// Only head has it.
        case new
        /// Only base has it.
        case removed
        /// Both have it; head takes longer.
        case grown
        /// Both have it; head takes less.
        case shrunk
    }

    /// Where the figures come from.
    public enum Evidence: String, Codable, Sendable {
        /// `premain trace`'s breakpoints, both builds traced alternately.
        case traced
        /// The loader's own lines (`LD_DEBUG`) of the compared launches.
        case loader
    }

    public var kind: Kind
    public var change: Change
    /// The object's role: `<executable>` for the program launched, else the library's file name.
    public var object: String
    /// The object's path in head (base when only base has it).
    public var objectPath: String?

    /// The object as people read it: the program's file name for `<executable>` (from
    /// `objectPath`), else `object`. What reports, findings and their fingerprints name.
    public var objectName: String {
        guard object == Self.executableRole, let path = objectPath else { return object }
        let name = ObjectName.fileName(path)
        return name.isEmpty ? object : name
    }
    /// The name people read (`Tool.keywordTable`, "`registry` of ruleCount(registry:)"); `nil`
    /// for an object-level cause.
    public var function: String?
    /// The whole symbol as the binary has it (mangled); `nil` for an object-level cause.
    public var symbol: String?
    /// For an inlined copy: the function it was inlined into.
    public var inlinedInto: String?
    /// Where it is in the sources (DWARF line at its entry); `nil` when unknown.
    public var source: SourceLocation?
    /// Median per run in each build; `nil` where the build lacks it.
    public var base: TimeSummary?
    public var head: TimeSummary?
    /// The paired difference head − base (one pair per base and head run side by side).
    public var difference: TimeDifference
    /// `difference.medianMs` over the change it explains (0.96 for 96 %).
    public var share: Double
    public var evidence: Evidence
    /// Exact instructions head − base under callgrind, when `--instructions` counted the same
    /// function; `nil` otherwise.
    public var instructionChange: Int64?
    /// The static change that goes with it, from `pr`'s diff of the two builds ("new in head:
    /// needed by app; 12 relocations, 1 initializer"); `nil` when there is none or no diff.
    public var staticChange: String?

    public init(
        kind: Kind, change: Change, object: String, objectPath: String? = nil, function: String? = nil,
        symbol: String? = nil, inlinedInto: String? = nil, source: SourceLocation? = nil, base: TimeSummary?,
        head: TimeSummary?, difference: TimeDifference, share: Double, evidence: Evidence,
        instructionChange: Int64? = nil
    ) {
        self.kind = kind
        self.change = change
        self.object = object
        self.objectPath = objectPath
        self.function = function
        self.symbol = symbol
        self.inlinedInto = inlinedInto
        self.source = source
        self.base = base
        self.head = head
        self.difference = difference
        self.share = share
        self.evidence = evidence
        self.instructionChange = instructionChange
    }

    /// The object role of the program launched.
    public static let executableRole = "<executable>"

    /// The role of `object` in a launch of `executable`: `executableRole` for the program (by
    /// path, or by file name: a symlinked build folder maps it under its real path), else the
    /// object's file name. How causes and instruction deltas pair objects across two builds.
    public static func role(of object: String, executable: String) -> String {
        object == executable || ObjectName.fileName(object) == ObjectName.fileName(executable)
            ? executableRole : ObjectName.fileName(object)
    }

    /// "`Tool.keywordTable`" for a function, the object's name otherwise.
    public var title: String { function ?? object }

    /// "new lazy global", "grown C++ global constructors", "initializers", "new object's loading".
    public var description: String {
        switch (kind, change) {
        case (.objectInitializers, .new): return "new object's initializers"
        case (.objectInitializers, .removed): return "removed object's initializers"
        case (.objectMapping, .new): return "new object's loading"
        case (.objectMapping, .removed): return "removed object's loading"
        case (.objectInitializers, _): return "initializers"
        default: return "\(change.rawValue) \(kind.title)"
        }
    }
}

extension TracedFunctionKind {
    /// The traced kind of a function cause; `nil` for an object-level cause.
    public init?(_ kind: StartupCause.Kind) {
        guard let traced = StartupCause.Kind.traced.first(where: { $0.cause == kind })?.traced else { return nil }
        self = traced
    }
}

/// How much of a start-up change the causes explain, and how they were found.
public struct StartupExplanation: Codable, Equatable, Sendable {
    /// The quantity whose change is explained: the one that decided the verdict.
    public var quantity: TimeComparison.Quantity
    /// Its paired difference head − base, ms.
    public var changeMs: Double
    /// The sum of the causes' differences (each counted once; a traced initializer stands for
    /// its object's initializer time), ms.
    public var explainedMs: Double
    /// Runs of each build traced for per-function times (0 when none were traced).
    public var tracedRunsPerSide: Int
    /// Wall time spent tracing, seconds.
    public var tracedSeconds: Double
    /// What limits the explanation, one sentence each ("not traced: …"); `[]` when nothing.
    public var notes: [String]

    public init(
        quantity: TimeComparison.Quantity, changeMs: Double, explainedMs: Double, tracedRunsPerSide: Int,
        tracedSeconds: Double, notes: [String]
    ) {
        self.quantity = quantity
        self.changeMs = changeMs
        self.explainedMs = explainedMs
        self.tracedRunsPerSide = tracedRunsPerSide
        self.tracedSeconds = tracedSeconds
        self.notes = notes
    }

    /// `explainedMs / changeMs`, 0 when nothing changed.
    public var explainedShare: Double { changeMs == 0 ? 0 : explainedMs / changeMs }

    /// What is left unexplained (never spread over the causes), ms.
    public var unexplainedMs: Double { changeMs - explainedMs }
}
