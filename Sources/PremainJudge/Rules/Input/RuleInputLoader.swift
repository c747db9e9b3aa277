import PremainAudit
import PremainModel
import PremainSystem

/// Turns what the user names — an ELF file, a folder, or a JSON report written by
/// `premain audit`, `measure` or `trace` — into a `RuleInput`. Reads files; never prints.
public struct RuleInputLoader: Sendable {
    /// Resolves a program's dependency closure; `nil` when the closure is not computed.
    public typealias ClosureProvider = @Sendable (BinaryInventory) -> ClosureFacts?

    /// The closure as `ld.so` would load it on this machine (`ClosureResolver`, unused
    /// dependencies found, costs not computed). Each provider has one resolver for all the
    /// programs it is asked about, so ld.so.cache is read once and each library is opened
    /// once (its `ObjectStore`), not once per program.
    public static var resolvingClosures: ClosureProvider {
        let resolver = ClosureResolver(options: ClosureOptions(findUnused: true, computeCosts: false))
        return { binary in
            guard let closure = try? resolver.resolve(path: binary.path) else { return nil }
            return ClosureFacts(closure, program: ObjectName.of(binary))
        }
    }

    public var closureProvider: ClosureProvider?
    /// Where to find the glibc the programs will run against when no closure names one.
    public var systemLibcPaths: [String]

    public init(closureProvider: ClosureProvider? = nil,
                systemLibcPaths: [String] = ["/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6", "/usr/lib/libc.so.6"]) {
        self.closureProvider = closureProvider
        self.systemLibcPaths = systemLibcPaths
    }

    /// What was loaded, and the files that could not be.
    public struct Loaded: Sendable {
        public var input: RuleInput
        public var errors: [FileError]
    }

    /// Loads every path into one input. A folder contributes its ELF files (found
    /// recursively, others skipped) and its `*.json` reports.
    public func load(_ paths: [String]) -> Loaded {
        var loaded = Loaded(input: RuleInput(), errors: [])
        for path in paths {
            switch LocalFiles.kind(path) {
            case .missing:
                loaded.errors.append(FileError(path: path, reason: .missing, message: "no such file or folder"))
            case .folder:
                for file in LocalFiles.files(under: path) { loadFile(file, into: &loaded, quietly: true) }
            case .file, .other:
                loadFile(path, into: &loaded, quietly: false)
            }
        }
        if loaded.input.glibc == nil { loaded.input.glibc = glibc(for: loaded.input) }
        return loaded
    }

    func loadFile(_ path: String, into loaded: inout Loaded, quietly: Bool) {
        if path.hasSuffix(".json") || LocalFiles.startsLikeJSON(path) {
            guard let data = LocalFiles.read(path) else {
                loaded.errors.append(FileError(path: path, reason: .unreadable, message: "cannot read the file"))
                return
            }
            do {
                try loaded.input.merge(Self.report(String(decoding: data, as: UTF8.self)))
            } catch {
                if !quietly || path.hasSuffix(".json") {
                    loaded.errors.append(FileError(path: path, reason: .malformed, message: error.description))
                }
            }
            return
        }
        do {
            let binary = try InventoryBuilder.audit(path: path, options: InventoryOptions(symbolLists: true, demangle: true))
            loaded.input.objects.append(binary)
            if binary.header.kind != .relocatable, binary.header.interpreter != nil || binary.header.soname == nil,
               let closure = closureProvider?(binary) {
                loaded.input.closures.append(closure)
            }
        } catch {
            if !quietly { loaded.errors.append(FileError(path: path, reason: FileError.Reason(error.reason), message: error.message)) }
        }
    }

    /// A problem with a JSON report.
    public struct ReportError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads an audit, measure or trace report (or one holding several of these) into a
    /// `RuleInput`. Throws when the text is not JSON or holds none of them.
    public static func report(_ text: String) throws(ReportError) -> RuleInput {
        guard let document = JSONValue.parse(text), case .object = document else {
            throw ReportError(description: "not a JSON object")
        }
        var input = RuleInput()
        var recognized = false
        if case .array(let binaries)? = document["binaries"] {
            recognized = true
            for entry in binaries {
                guard let binary = entry.decoded(BinaryInventory.self) else {
                    throw ReportError(description: "binaries[] entry is not an audit inventory of this premain version")
                }
                input.objects.append(binary)
                if let closure = closureFacts(binary) { input.closures.append(closure) }
            }
        }
        if case .array(let measurements)? = document["measurements"] {
            recognized = true
            for measurement in measurements {
                // A trace entry has functions (and milestones taken under the tracer, slower
                // than real launches): only its functions count. A measure entry has none.
                if case .array(let functions)? = measurement["functions"] {
                    input.functions += functions.compactMap(FunctionTiming.init(json:))
                } else if let launch = LaunchFacts(measurement: measurement) {
                    input.launches.append(launch)
                }
            }
        }
        guard recognized else {
            throw ReportError(description: "not a premain report (expected 'binaries' from audit or 'measurements' from measure or trace)")
        }
        return input
    }

    /// The closure of an audited binary, with the unused `DT_NEEDED` entries the audit
    /// reported for the file itself; `nil` when the audit did not resolve one.
    static func closureFacts(_ binary: BinaryInventory) -> ClosureFacts? {
        guard let closure = binary.closure else { return nil }
        var facts = ClosureFacts(closure, program: ObjectName.of(binary))
        for name in binary.unusedNeeded ?? [] where !facts.unusedNeeded.contains(name) { facts.unusedNeeded.append(name) }
        return facts
    }

    /// The glibc of the closure's libc; else the newest `GLIBC_2.x` the objects require
    /// when that alone proves 2.36 or later; else this machine's libc (premain checks
    /// usually run where the program runs); `nil` when none is found.
    func glibc(for input: RuleInput) -> GlibcVersion? {
        for closure in input.closures {
            if let libc = closure.objects.first(where: { $0.soname == "libc.so.6" || ObjectName.fileName($0.path) == "libc.so.6" }),
               let version = GlibcVersion.definedBy(libcPath: libc.path) {
                return version
            }
        }
        let required = input.objects.compactMap { GlibcVersion.requiredBy(path: $0.path) }.max()
        if let required, required >= .relrSupport { return required }
        for path in systemLibcPaths {
            if let version = GlibcVersion.definedBy(libcPath: path) { return version }
        }
        return required
    }
}
