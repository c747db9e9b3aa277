/// Whose object it is, for "where the time goes": the program's own, a language runtime's,
/// or the system's.
public enum ObjectGroup: String, Codable, CaseIterable, Sendable {
    /// The executable and the libraries it brings that are not the system's or a runtime's.
    case program
    /// A language runtime or toolchain library: Swift's runtime, Foundation and Dispatch, the
    /// C++ standard library and its unwinder.
    case runtime
    /// Everything else in a system folder: glibc, the loader, libz, libssl…
    case system

    /// "the program's own", "language runtimes", "system libraries".
    public var title: String {
        switch self {
        case .program: return "the program's own"
        case .runtime: return "runtimes and toolchain"
        case .system: return "system libraries"
        }
    }

    /// The group of the object at `path` (as the loader printed it). The executable is always
    /// the program's; an object is a runtime's by its file name (or a Swift toolchain's
    /// `lib/swift/` folder), else the system's when under a system folder, else the program's.
    public static func of(path: String, role: ObjectMeasurement.Role) -> ObjectGroup {
        switch role {
        case .executable: return .program
        case .loader: return .system
        case .library: break
        }
        let file = ObjectName.fileName(path)
        if isRuntime(fileName: file) || path.contains("/lib/swift/") { return .runtime }
        let normalized = SourceScope.normalize(path, in: "/")
        if SourceScope.systemDirectories.contains(where: { normalized.hasPrefix($0 + "/") }) { return .system }
        return .program
    }

    /// File names of language runtimes' libraries (prefixes before `.so`).
    static let runtimeStems = [
        "libswift", "libFoundation", "lib_FoundationICU", "libdispatch", "libBlocksRuntime", "libstdc++",
        "libc++", "libc++abi", "libgcc_s", "libunwind", "libgfortran", "libgo", "libphobos", "libgdruntime",
    ]

    static func isRuntime(fileName: String) -> Bool {
        guard let stem = fileName.split(separator: ".", maxSplits: 1).first.map(String.init) else { return false }
        return runtimeStems.contains {
            stem == $0 || (($0 == "libswift" || $0 == "libFoundation") && stem.hasPrefix($0))
        }
    }
}

/// What the audit knows of one measured object, beside its measured times: the loader's work
/// it implies.
public struct ObjectStaticFacts: Codable, Equatable, Sendable {
    /// Relocations by class (RELR addresses counted as relative).
    public var relative: Int
    public var symbolic: Int
    public var plt: Int
    /// Every other relocation (copy, IRELATIVE, TLS).
    public var other: Int
    /// Symbols it imports: what the loader looks up (once each, or per relocation).
    public var importedSymbols: Int
    /// `DF_BIND_NOW`/`-z now`: its PLT is bound in its relocation pass, not on first call.
    public var bindNow: Bool
    public var fileSize: UInt64

    public init(
        relative: Int, symbolic: Int, plt: Int, other: Int, importedSymbols: Int, bindNow: Bool,
        fileSize: UInt64
    ) {
        self.relative = relative
        self.symbolic = symbolic
        self.plt = plt
        self.other = other
        self.importedSymbols = importedSymbols
        self.bindNow = bindNow
        self.fileSize = fileSize
    }

    /// The counts of an audited object: RELR addresses as relative, copy, IRELATIVE and TLS
    /// relocations as `other`.
    public init(census: RelocationCensus, bindNow: Bool, importedSymbols: Int, fileSize: UInt64) {
        self.init(
            relative: census.relative + census.relrAddresses, symbolic: census.symbolic, plt: census.plt,
            other: census.copy + census.irelative + census.tls, importedSymbols: importedSymbols, bindNow: bindNow,
            fileSize: fileSize)
    }

    /// Every relocation.
    public var relocations: Int { relative + symbolic + plt + other }
}

/// Where a launch's time goes, by phase and by whose objects: each row's per-run sum summarized
/// over the runs, and its share of the launch (the row's median over the launch's median).
public struct LaunchBreakdown: Codable, Equatable, Sendable {
    public enum Phase: String, Codable, CaseIterable, Sendable {
        /// Process birth to the loader's first line: the kernel's exec and the loader relocating
        /// itself.
        case exec
        /// The loader searching, opening and mapping objects, and relocating them.
        case loading
        /// The rest of the loader phase: the gaps between objects' loading lines, version
        /// checks, TLS set-up, the statistics block.
        case loaderOther
        /// Objects' static initializers.
        case initializers
        /// main to the launch's end (first output, or ready).
        case program

        public var title: String {
            switch self {
            case .exec: return "exec → loader start"
            case .loading: return "loading + relocation"
            case .loaderOther: return "loader's own work"
            case .initializers: return "initializers"
            case .program: return "main →"
            }
        }
    }

    public struct Row: Codable, Equatable, Sendable {
        public var phase: Phase
        /// Whose objects; `nil` for rows that are no object's.
        public var group: ObjectGroup?
        /// Objects in the row (loading and initializer rows).
        public var objects: Int?
        /// Their relocations, from the audit; `nil` when not audited.
        public var relocations: Int?
        /// Loading rows: the search, open and mapping part and the relocation part.
        public var mapping: TimeSummary?
        public var relocation: TimeSummary?
        public var time: TimeSummary
        /// `time.medianMs / launch.medianMs`.
        public var share: Double

        public init(
            phase: Phase, group: ObjectGroup? = nil, objects: Int? = nil, relocations: Int? = nil,
            mapping: TimeSummary? = nil, relocation: TimeSummary? = nil, time: TimeSummary, share: Double
        ) {
            self.phase = phase
            self.group = group
            self.objects = objects
            self.relocations = relocations
            self.mapping = mapping
            self.relocation = relocation
            self.time = time
            self.share = share
        }
    }

    /// The milestone the launch is counted to: `ready` when asked for, else `firstOutput`,
    /// else `exit`.
    public var end: Milestone
    /// Process birth to `end`.
    public var launch: TimeSummary
    public var rows: [Row]
    /// The loader phase (loader start → loader done), which the loading and loader's-own rows
    /// split, and how much of it the per-object loading and relocation account for (median of
    /// each run's sum over the phase).
    public var loaderPhase: TimeSummary?
    public var loaderAccountedShare: Double?
    /// How many loader lines shared a stamp with the line before (read in one go), of all: a
    /// per-object time shorter than one read's wait shows as 0.
    public var sameStampLines: Int
    public var loaderLines: Int

    public init(
        end: Milestone, launch: TimeSummary, rows: [Row], loaderPhase: TimeSummary?,
        loaderAccountedShare: Double?, sameStampLines: Int, loaderLines: Int
    ) {
        self.end = end
        self.launch = launch
        self.rows = rows
        self.loaderPhase = loaderPhase
        self.loaderAccountedShare = loaderAccountedShare
        self.sameStampLines = sameStampLines
        self.loaderLines = loaderLines
    }
}
