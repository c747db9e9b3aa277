import ELFKit
import PremainAudit
import PremainModel

/// Reads objects and decides what to plant in each: every initializer entry, Swift lazy-global
/// initializers and default-argument generators (with their inlined copies from DWARF), the
/// functions named with `--function`, and the markers. Plans are cached per path, so the
/// objects of a multi-run trace are read once.
final class ProbePlanner {
    let functionQueries: [String]
    let untilSymbol: String?
    let debugLocator: DebugFileLocator
    /// Plan only the markers (main, writes, the loader hook, the `--until` function): no
    /// function is timed. `measure --until SYMBOL` stops there and nowhere else.
    let markersOnly: Bool
    private var plans: [String: ProbePlan] = [:]
    private var debugInfos: [String: DebugInfo?] = [:]

    static let writeFunctions: Set<String> = [
        "write", "__write", "__libc_write", "writev", "__writev", "__libc_writev", "__write_nocancel",
    ]

    init(functionQueries: [String], untilSymbol: String?, debugLocator: DebugFileLocator, markersOnly: Bool = false) {
        self.functionQueries = markersOnly ? [] : functionQueries
        self.untilSymbol = untilSymbol
        self.debugLocator = debugLocator
        self.markersOnly = markersOnly
    }

    /// The plan for the object at `path`, or `nil` when it is not a readable ELF file.
    func plan(for path: String, isMainExecutable: Bool) -> ProbePlan? {
        let key = "\(isMainExecutable ? "exe" : "lib"):\(path)"
        if let cached = plans[key] { return cached }
        guard let file = try? ELFFile(path: path) else { return nil }
        let plan = makePlan(file, isMainExecutable: isMainExecutable)
        plans[key] = plan
        return plan
    }

    /// DWARF for the object at `path` (its own or a separate debug file), cached; `file` is the
    /// object when the caller has it open already. `nil` when no file with DWARF is found.
    /// Where `probe` is in the sources: its own location (an inlined copy's call site); for a
    /// Swift lazy global the global's declaration (its initializer's first rows may be line 0
    /// or an inlined callee's in optimized builds); else the line table at its entry. `nil`
    /// without debug information.
    func sourceLocation(of probe: TraceProbe) -> SourceLocation? {
        if let source = probe.source { return source }
        let info = debugInfo(for: probe.object)
        if probe.kind == .swiftLazyGlobal,
            let declared = info?.declaration(ofGlobalInitializedBy: probe.symbol, at: probe.entry)
        {
            return declared
        }
        return info?.sourceLocation(of: probe.entry)
    }

    func debugInfo(for path: String, file: ELFFile? = nil) -> DebugInfo? {
        if let cached = debugInfos[path] { return cached }
        var info: DebugInfo?
        if let file = file ?? (try? ELFFile(path: path)), let debugPath = debugLocator.debugFile(for: file) {
            info = DebugInfo(path: debugPath)
        }
        debugInfos[path] = info
        return info
    }

    /// `true` when `name` (mangled) is what `query` asks for: the mangled name itself, the
    /// demangled name, or the demangled name without its parameter list.
    static func matches(_ query: String, mangled name: String, demangled: String?) -> Bool {
        if query == name { return true }
        guard let demangled else { return false }
        if query == demangled { return true }
        if let paren = demangled.firstIndex(of: "("), query == String(demangled[..<paren]) { return true }
        return false
    }

    private func makePlan(_ file: ELFFile, isMainExecutable: Bool) -> ProbePlan {
        let path = file.path
        var probes: [UInt64: TraceProbe] = [:]
        var markers: [TraceMarker: Set<UInt64>] = [:]
        var untimed: [UntimedFunction] = []
        var defaultArguments: [String: UInt64] = [:]
        // Globals of C++ units, timed inside their unit's initializer (the engine starts every
        // probe of an address, in plan order: the unit's first).
        var globals: [TraceProbe] = []

        // A stripped file: its separate debug file (build-id, debuglink) has the full symbol
        // table at the same link-time addresses.
        let debugFile: ELFFile? =
            file.staticSymbols == nil
            ? debugLocator.debugFile(for: file).flatMap { try? ELFFile(path: $0) } : nil

        // 1. Initializer entries.
        if !markersOnly { initializerProbes(file, debugFile: debugFile, into: &probes, globals: &globals) }

        // 2. Symbols: Swift suspects, --function, markers.
        var pendingQueries = Set(functionQueries)
        let needsDemangling = !functionQueries.isEmpty || untilSymbol != nil
        for table in [file.staticSymbols ?? debugFile?.staticSymbols, file.dynamicSymbols].compactMap({ $0 }) {
            table.forEach { symbol in
                guard symbol.isDefined, symbol.value != 0,
                    symbol.kind == .function || symbol.kind == .gnuIFunc,
                    let name = table.name(of: symbol), !name.isEmpty
                else { return true }
                let address = symbol.value
                if !markersOnly, let suspect = SwiftSuspects.kind(of: name) {
                    let kind: TracedFunctionKind = suspect == .lazyGlobal ? .swiftLazyGlobal : .swiftDefaultArgument
                    if kind == .swiftDefaultArgument { defaultArguments[name] = address }
                    if probes[address] == nil {
                        probes[address] = TraceProbe(
                            object: path, entry: address, symbol: name,
                            demangled: Demangler.demangle(name), kind: kind)
                    }
                }
                if needsDemangling {
                    let demangled = (name.hasPrefix("_Z") || Demangler.isSwift(name)) ? Demangler.demangle(name) : nil
                    for query in functionQueries where Self.matches(query, mangled: name, demangled: demangled) {
                        pendingQueries.remove(query)
                        if var existing = probes[address] {
                            existing.kind = existing.kind == .staticInitializer ? .named : existing.kind
                            probes[address] = existing
                        } else {
                            probes[address] = TraceProbe(
                                object: path, entry: address, symbol: name,
                                demangled: demangled, kind: .named,
                                isIFuncResolver: symbol.kind == .gnuIFunc)
                        }
                    }
                    if let untilSymbol, Self.matches(untilSymbol, mangled: name, demangled: demangled) {
                        markers[.until, default: []].insert(address)
                    }
                }
                if isMainExecutable, name == "main" { markers[.main, default: []].insert(address) }
                if name == "__libc_start_main" { markers[.libcStartMain, default: []].insert(address) }
                if Self.writeFunctions.contains(name) { markers[.write, default: []].insert(address) }
                if name == "_dl_debug_state" { markers[.loaderHook, default: []].insert(address) }
                return true
            }
        }

        if !markersOnly, file.staticSymbols == nil, debugFile?.staticSymbols == nil, isSwiftObject(file) {
            untimed.append(
                UntimedFunction(
                    object: path, symbol: "*", demangled: "every Swift lazy global and default argument",
                    kind: .swiftLazyGlobal,
                    reason:
                        "stripped, and no debug file was found by build-id or .gnu_debuglink (add --debug-dir): their symbols are local, so they cannot be found"
                ))
        }

        // 3. Inlined copies (DWARF) of default-argument generators and named functions.
        if !markersOnly, isSwiftObject(file) || !functionQueries.isEmpty {
            untimed += inlinedCopyProbes(file, defaultArguments: defaultArguments, into: &probes)
        }
        for query in pendingQueries.sorted() where isMainExecutable {
            untimed.append(
                UntimedFunction(
                    object: path, symbol: query, demangled: nil, kind: .named,
                    reason: "no function with this name in the executable (other objects are searched as they load)"))
        }

        let loads = file.segments.filter { $0.type == ELFSegment.load }
            .map { (virtualAddress: $0.virtualAddress, offset: $0.offset) }
        return ProbePlan(
            path: path, probes: probes.values.sorted { $0.entry < $1.entry } + globals,
            markers: markers.mapValues { $0.sorted() }, loadSegments: loads,
            untimed: untimed, isPositionIndependent: file.type == 3)
    }

    /// Step 1 of a plan: a probe on every initializer entry (a C++ unit's initializer with its
    /// globals' probes after it, in `globals`).
    private func initializerProbes(
        _ file: ELFFile, debugFile: ELFFile?, into probes: inout [UInt64: TraceProbe], globals: inout [TraceProbe]
    ) {
        let path = file.path
        let entries = file.initializerEntries
        let targets = Set(entries.compactMap(\.target))
        var names = file.symbolNames(at: targets)
        if let debugFile {
            names.merge(debugFile.symbolNames(at: targets.subtracting(names.keys))) { first, _ in first }
        }
        for entry in entries {
            guard let target = entry.target, target != 0, target != UInt64.max else { continue }
            var symbol = names[target] ?? entry.relocationSymbol
            if symbol == nil, entry.source == .dtInit, file.section(named: ".init")?.address == target {
                symbol = "_init"
            }
            let label = symbol ?? "\(entry.source.rawValue)[\(entry.index)]"
            guard probes[target] == nil else { continue }
            let kind = Self.initializerKind(symbol)
            if kind == .cxxTranslationUnitInitializer, let symbol {
                // The unit's probe, then its globals' (one may share its first instruction).
                let unit = translationUnitProbes(file, symbol: symbol, at: target)
                probes[target] = unit.first
                globals += unit.dropFirst()
            } else {
                probes[target] = TraceProbe(
                    object: path, entry: target, symbol: label, demangled: symbol.flatMap(Demangler.demangle),
                    kind: kind)
            }
        }
    }

    /// Step 3 of a plan: probes on the copies of default-argument generators and named
    /// functions that DWARF says were inlined into their callers; the functions whose copies
    /// cannot be found (no DWARF, or libdw unusable) come back untimed, with why.
    private func inlinedCopyProbes(
        _ file: ELFFile, defaultArguments: [String: UInt64], into probes: inout [UInt64: TraceProbe]
    ) -> [UntimedFunction] {
        let path = file.path
        var untimed: [UntimedFunction] = []
        let info = debugInfo(for: path, file: file)
        let copies =
            info?.inlinedCopies { name in
                SwiftSuspects.kind(of: name) == .defaultArgument || self.isQueried(name)
            } ?? []
        for copy in copies where probes[copy.entry] == nil {
            let isDefault = SwiftSuspects.kind(of: copy.symbol) == .defaultArgument
            probes[copy.entry] = TraceProbe(
                object: path, entry: copy.entry, symbol: copy.symbol, demangled: Demangler.demangle(copy.symbol),
                kind: isDefault ? .swiftDefaultArgument : .named, exits: copy.exits,
                inlinedInto: copy.caller.map { Demangler.demangle($0) ?? $0 }, source: copy.callSite)
        }
        if info == nil {
            // The file's DWARF may be there and unread: libdw is this machine's problem, not the file's.
            let reason =
                DebugInfo.libraryFailure != nil && debugLocator.debugFile(for: file) != nil
                ? "libdw.so.1 cannot be used (see the notes), so this object's DWARF was not read: copies inlined into callers cannot be found or timed; only calls to the out-of-line function are timed"
                : "no DWARF for this object: copies inlined into callers cannot be found or timed; only calls to the out-of-line function are timed"
            for (name, _) in defaultArguments.sorted(by: { $0.key < $1.key }) {
                untimed.append(
                    UntimedFunction(
                        object: path, symbol: name, demangled: Demangler.demangle(name),
                        kind: .swiftDefaultArgument, reason: reason))
            }
        }
        return untimed
    }

    /// The probe of a C++ translation unit's initializer `symbol` at `address`, named by its
    /// source file (`TranslationUnitName`; the DWARF compile unit's, else the symbol's) and
    /// placed at its first global's definition, then one probe per global it constructs that
    /// DWARF shows inlined into it (timed from its first instruction to the end of its code).
    private func translationUnitProbes(_ file: ELFFile, symbol: String, at address: UInt64) -> [TraceProbe] {
        let info = debugInfo(for: file.path, file: file)
        let unit = info?.compileUnit(containing: address)
        let name =
            TranslationUnitName.name(
                sourceFile: unit?.relativeName, keyedName: InitializerClassifier.translationUnit(of: symbol),
                demangle: Demangler.demangle) ?? symbol
        let constructions = info?.constructions(ofInitializerAt: address) ?? []
        let own = constructions.first { $0.location.file == unit?.path } ?? constructions.first
        var probes = [
            TraceProbe(
                object: file.path, entry: address, symbol: symbol, demangled: name,
                kind: .cxxTranslationUnitInitializer, source: own?.location)
        ]
        // Each global is timed from where the previous one was done (the registration of its
        // destructor), the first from the initializer's first instruction: addresses run once,
        // unlike the first address of optimized constructor code (often a loop's head).
        var start: UInt64? = address
        for construction in constructions {
            let entry = start ?? construction.address
            start = construction.registered
            // The symbol is what pairs it across builds: the variable, else its constructor.
            let constructor = construction.constructor
            guard !construction.exits.isEmpty, !construction.exits.contains(entry),
                let global = construction.variable ?? constructor
            else { continue }
            let readable = constructor.map { construction.variable != nil ? "\(global) (\($0))" : $0 } ?? global
            probes.append(
                TraceProbe(
                    object: file.path, entry: entry, symbol: global, demangled: readable,
                    kind: .cxxGlobal, exits: construction.exits, inlinedInto: name, source: construction.location))
        }
        return probes
    }

    /// `true` when the mangled `name` is what one of `functionQueries` asks for (`matches`),
    /// demangled names included: `--function` takes either form for inlined copies too.
    private func isQueried(_ name: String) -> Bool {
        guard !functionQueries.isEmpty else { return false }
        if functionQueries.contains(name) { return true }
        guard name.hasPrefix("_Z") || Demangler.isSwift(name), let demangled = Demangler.demangle(name) else {
            return false
        }
        return functionQueries.contains { Self.matches($0, mangled: name, demangled: demangled) }
    }

    private func isSwiftObject(_ file: ELFFile) -> Bool {
        file.sections.contains { $0.name.hasPrefix("swift5_") }
    }

    /// The kind of an initializer entry named `symbol`, with the audit's classification
    /// (`InitializerClassifier`): toolchain functions and unnamed entries are plain static
    /// initializers.
    static func initializerKind(_ symbol: String?) -> TracedFunctionKind {
        guard let symbol, !InitializerClassifier.toolchainNames.contains(symbol) else { return .staticInitializer }
        if InitializerClassifier.translationUnit(of: symbol) != nil || symbol.hasPrefix("_GLOBAL__I_") {
            return .cxxTranslationUnitInitializer
        }
        return .constructorFunction
    }
}

/// One function premain times in one object, at link-time addresses (the load bias is added
/// when the object is found in the process).
struct TraceProbe: Hashable, Sendable {
    /// Path of the object as the loader mapped it.
    var object: String
    /// Link-time address of the first instruction.
    var entry: UInt64
    /// The mangled symbol (or a description such as `DT_INIT_ARRAY[3]` for an unnamed entry).
    var symbol: String
    var demangled: String?
    var kind: TracedFunctionKind
    /// For a function inlined into a caller: link-time addresses where the inlined code ends
    /// (the end of each DWARF range). Empty for real functions, which are timed until they
    /// return to the address found on the stack at entry.
    var exits: [UInt64] = []
    /// For an inlined copy: the function it was inlined into, and the call site.
    var inlinedInto: String?
    var source: SourceLocation?
    /// The symbol is a GNU IFUNC: its address is the resolver's.
    var isIFuncResolver = false

    var isInlined: Bool { !exits.isEmpty }
}

/// A place in an object the tracer stops at for a reason other than timing a function.
enum TraceMarker: Hashable, Sendable {
    /// The program's `main`.
    case main
    /// `__libc_start_main`: its first argument is `main` (used when `main` has no symbol).
    case libcStartMain
    /// libc `write`/`writev`: a call with fd 1 or 2 is the first output.
    case write
    /// The loader's debugger hook (`_dl_debug_state`, where `r_debug.r_brk` points).
    case loaderHook
    /// The function named with `--until SYMBOL`.
    case until
}

/// What premain plants in one object: probes and markers at link-time addresses.
struct ProbePlan: Sendable {
    var path: String
    var probes: [TraceProbe]
    var markers: [TraceMarker: [UInt64]]
    /// Link-time `p_vaddr` and `p_offset` of each PT_LOAD, to find the load bias.
    var loadSegments: [(virtualAddress: UInt64, offset: UInt64)]
    /// Functions that exist in the object but cannot be timed, with the reason.
    var untimed: [UntimedFunction]
    /// ET_DYN objects are relocated by a bias; ET_EXEC ones are not.
    var isPositionIndependent: Bool
}
