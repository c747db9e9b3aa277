import PremainAudit
import PremainModel

/// Everything rules look at for one program (or one folder of objects): the static audits,
/// the closures when resolved, and launch and per-function timings when measured.
///
/// Made of the reports' own model values, whether they were computed from ELF files or decoded
/// from JSON reports (`RuleInputLoader`), so a rule never knows where its data came from.
public struct RuleInput: Sendable, Equatable {
    /// Audited objects: programs and the libraries premain could read. `[]` when only
    /// measurements were given.
    public var objects: [BinaryInventory]
    /// One closure per program whose closure was resolved.
    public var closures: [ProgramClosure]
    /// The glibc the programs run against (from the closure's libc or the `GLIBC_2.x`
    /// versions they require); `nil` when unknown.
    public var glibc: GlibcVersion?
    /// One entry per command measured by `premain measure`.
    public var launches: [LaunchMeasurement]
    /// Functions timed by `premain trace`.
    public var functions: [TracedFunction]

    public init(
        objects: [BinaryInventory] = [], closures: [ProgramClosure] = [], glibc: GlibcVersion? = nil,
        launches: [LaunchMeasurement] = [], functions: [TracedFunction] = []
    ) {
        self.objects = objects
        self.closures = closures
        self.glibc = glibc
        self.launches = launches
        self.functions = functions
    }

    /// The audited objects of a `premain audit` report, with the closures the audit resolved.
    public init(audit report: AuditReport) {
        self.init(objects: report.binaries, closures: report.binaries.compactMap(ProgramClosure.init(audited:)))
    }

    /// The launches of a `premain measure` report.
    public init(measure report: MeasureReport) {
        self.init(launches: report.measurements)
    }

    /// The timed functions of a `premain trace` report. Its milestones, taken under the tracer
    /// and slower than real launches, are not launches. Returns an empty input when no
    /// function was timed.
    public init(trace report: TraceReport) {
        self.init(functions: report.measurements.flatMap(\.functions))
    }

    /// What an input holds, for telling two inputs that cannot be compared.
    public enum ContentKind: String, Sendable {
        case audit = "audited objects", measure = "measured launches", trace = "traced functions"
    }

    /// The kinds of facts present; empty for an empty input.
    public var contentKinds: Set<ContentKind> {
        var kinds: Set<ContentKind> = []
        if !objects.isEmpty { kinds.insert(.audit) }
        if !launches.isEmpty { kinds.insert(.measure) }
        if !functions.isEmpty { kinds.insert(.trace) }
        return kinds
    }

    /// Adds another input's facts (for several files given at once).
    public mutating func merge(_ other: RuleInput) {
        objects += other.objects
        closures += other.closures
        launches += other.launches
        functions += other.functions
        if let version = other.glibc { glibc = max(glibc ?? version, version) }
    }

    /// Drops the launches that are of no audited file, so that a measure report of another
    /// program (or another build of this one) prices no finding through the "only launch"
    /// fallback (issue 34, defect 9). A launch is of an audited file when their GNU build-ids
    /// are equal, or, when the launch has none, when their file names are (the executable's,
    /// else the command's). Keeps every launch
    /// when nothing was audited (a check of reports alone). Returns one note per launch dropped.
    public mutating func dropForeignLaunches() -> [String] {
        guard !objects.isEmpty else { return [] }
        var notes: [String] = []
        launches = launches.filter { launch in
            let conditions = launch.conditions
            let matched =
                if let id = conditions.buildID {
                    objects.contains { $0.header.buildID == id }
                } else {
                    // Without a build-id (reports of older premains, recorded ones): the file
                    // name of the executable, else of the command.
                    objects.contains { object in
                        [conditions.binaryPath, launch.command.first ?? ""].contains {
                            !$0.isEmpty && FindingPricer.key($0) == FindingPricer.key(object.path)
                        }
                    }
                }
            if !matched {
                let id = conditions.buildID.map { "build-id \($0)" } ?? "no build-id"
                let name = conditions.binaryPath.isEmpty ? (launch.command.first ?? "?") : conditions.binaryPath
                notes.append(
                    "the measurements of \(name) (\(id)) were ignored: no audited file is that build, so they price no finding"
                )
            }
            return matched
        }
        return notes
    }

    /// The subject of a finding about an audited object.
    static func subject(_ binary: BinaryInventory, symbol: String? = nil) -> Finding.Subject {
        Finding.Subject(object: ObjectName.of(binary), path: binary.path, symbol: symbol)
    }

    /// The subject of a finding about an object known by path only.
    static func subject(path: String, symbol: String? = nil) -> Finding.Subject {
        Finding.Subject(object: ObjectName.fileName(path), path: path, symbol: symbol)
    }

    /// The subject of a finding about a program's closure: the program, and the library
    /// named in it (a `DT_NEEDED` name given as a path is named by its file name, so that the
    /// finding's fingerprint holds no folder of the build machine).
    static func subject(_ program: ProgramClosure, library: String? = nil) -> Finding.Subject {
        Finding.Subject(object: program.name, path: program.path, symbol: library.map(ObjectName.fileName))
    }

    /// The audited object at `path`, else the one with the same name; `nil` when none was audited.
    func object(at path: String) -> BinaryInventory? {
        let name = ObjectName.fileName(path)
        return objects.first { $0.path == path }
            ?? objects.first { ObjectName.of($0) == name || ObjectName.fileName($0.path) == name }
    }
}

extension Sequence where Element == InitializerInfo {
    /// The first DWARF line among these entries; `nil` when none has one.
    var firstLocation: SourceLocation? { lazy.compactMap(\.location).first }
}

/// One program's dependency closure as rules see it: the program's name beside the closure
/// the resolver (or an audit report) gave.
public struct ProgramClosure: Sendable, Equatable {
    /// The program's soname or file name.
    public var name: String
    /// The path the program was read from; `nil` when unknown.
    public var path: String?
    public var closure: DependencyClosure
    /// The linker and languages of the program; `nil` when unknown (older reports).
    public var toolchain: BuildToolchain?

    public init(name: String, path: String? = nil, closure: DependencyClosure, toolchain: BuildToolchain? = nil) {
        self.name = name
        self.path = path
        self.closure = closure
        self.toolchain = toolchain
    }

    /// The closure an audit resolved for `binary`; `nil` when it resolved none.
    public init?(audited binary: BinaryInventory) {
        guard let closure = binary.closure else { return nil }
        self.init(name: ObjectName.of(binary), path: binary.path, closure: closure, toolchain: binary.toolchain)
    }

    /// The chain of needing objects from the program to `object`, program first; just the
    /// program and the object when a link is unknown.
    public func chain(to object: ClosureObject) -> [String] {
        var chain = [ObjectName.of(object)]
        var current = object
        var seen: Set<String> = [object.path]
        while let parent = closure.objects.first(where: {
            $0.path == current.neededBy || ObjectName.of($0) == current.neededBy
        }),
            !seen.contains(parent.path)
        {
            seen.insert(parent.path)
            chain.insert(ObjectName.of(parent), at: 0)
            current = parent
        }
        chain.insert(name, at: 0)
        return chain
    }
}

extension RuleInput {
    /// A C++ translation unit's name as a finding's subject: its file name ("util.cc" for
    /// "src/util.cc"), so the fingerprint holds no path and survives moving the build folder.
    static func unitSubject(_ name: String) -> String {
        guard TranslationUnitName.isFileName(name) || name.contains("/") else { return name }
        let file = ObjectName.fileName(name)
        return file.isEmpty ? name : file
    }
}

extension TracedFunction {
    /// The name shown to people: demangled when known.
    var displayName: String { demangled ?? symbol }

    /// The name in a finding's subject: `displayName`, a translation unit's by its file name
    /// (`RuleInput.unitSubject`), a global's with its unit's.
    var subjectName: String {
        switch kind {
        case .cxxTranslationUnitInitializer: return RuleInput.unitSubject(displayName)
        case .cxxGlobal: return displayName + " of " + RuleInput.unitSubject(inlinedInto ?? "?")
        default: return displayName
        }
    }

    /// Its DWARF line; `nil` when trace found none or only line 0.
    var location: SourceLocation? { source.flatMap { $0.line > 0 ? $0 : nil } }
}
