import CDW
import PremainModel

/// What DWARF says about a C++ translation unit's initializer (`_GLOBAL__sub_I_…`): the
/// compile unit's source file, and the globals the initializer constructs.
extension DebugInfo {
    /// A compile unit's source file (`DW_AT_name`) and the folder it was compiled in
    /// (`DW_AT_comp_dir`), as the compiler recorded them.
    public struct CompileUnit: Equatable, Sendable {
        public var name: String
        public var directory: String?

        /// The source file as its authors know it: `name` relative to `directory`
        /// (`TranslationUnitName.relative`).
        public var relativeName: String { TranslationUnitName.relative(name, to: directory) }

        /// The source file's path on the machine that compiled it: `name` when absolute, else
        /// inside `directory`.
        public var path: String {
            guard !name.hasPrefix("/"), let directory else { return name }
            return directory + "/" + name
        }
    }

    /// One global (or one constructor call) an initializer runs.
    public struct Construction: Equatable, Sendable {
        /// The global's definition: the call site of its constructor.
        public var location: SourceLocation
        /// The constructor's (or called function's) linkage name, else its name; `nil` when
        /// DWARF names none.
        public var callee: String?
        /// `callee` as people read it: demangled, and a constructor DWARF names by its class
        /// alone (its symbols are C1 and C2) with "()": "StartupAliases()". `nil` without callee.
        public var constructor: String? {
            callee.map { Demangler.demangle($0) ?? ($0.hasPrefix("_Z") || $0.contains("(") ? $0 : $0 + "()") }
        }
        /// The name of the variable declared at `location`; `nil` when none is.
        public var variable: String?
        /// Its first instruction in the initializer: an inlined constructor's entry, else the
        /// lowest address of its code (the order the globals run in).
        public var address: UInt64
        /// For a constructor inlined into the initializer: where its global is built (see
        /// `setExits`), so it can be timed apart; `[]` when that is not known.
        public var exits: [UInt64] = []
        /// The first instruction of the registration of its destructor (`__cxa_atexit`), run
        /// once right after it is built: where the next global's code starts; `nil` when none
        /// is known (a trivially destructible global).
        public var registered: UInt64? = nil
    }

    /// The compile unit holding `address`, or `nil` when none does or it has no name.
    public func compileUnit(containing address: UInt64) -> CompileUnit? {
        var cu = Dwarf_Die()
        if dwarf_addrdie(dwarf, address, &cu) == nil, !findUnit(containing: address, into: &cu) { return nil }
        guard let name = Self.string(&cu, Self.attributeName) else { return nil }
        return CompileUnit(name: name, directory: Self.string(&cu, Self.attributeCompDir))
    }

    /// The globals the initializer function at `address` constructs, in the order it runs them:
    /// each constructor inlined into it (GCC's `__static_initialization_and_destruction_0` and
    /// Clang's `__cxx_global_var_init…` are looked through), each function it calls with a
    /// DWARF call site at a variable's line, and each line of its code where a variable is
    /// declared (builds without either, such as -O0). Calls of `atexit`/`__cxa_atexit` (destructor registration) are left
    /// out; calls at one line are one global. `[]` without DWARF for `address`.
    public func constructions(ofInitializerAt address: UInt64) -> [Construction] {
        var cu = Dwarf_Die()
        if dwarf_addrdie(dwarf, address, &cu) == nil, !findUnit(containing: address, into: &cu) { return [] }
        guard let subprograms = Self.initializerAndWrappers(in: &cu, at: address),
            var initializer = subprograms.functions.first
        else { return [] }
        var functions = subprograms.functions
        let wrappers = subprograms.wrappers

        let variables = variableDeclarations(in: &cu)
        // The unit's own file as its line table names it (file 0 in DWARF 5, else the unit's name).
        let unitFile = compileUnit(containing: address).map(\.path)
        var found: [Construction] = []
        // Return addresses of the calls registering a global's destructor, run right after it is built.
        var registrations: [UInt64] = []
        var pending: [(die: Dwarf_Die, depth: Int)] = []
        var followed: Set<String> = []
        func pushChildren(_ die: inout Dwarf_Die, depth: Int) {
            var first = Dwarf_Die()
            guard depth < Self.maxWalkDepth, dwarf_haschildren(&die) != 0, dwarf_child(&die, &first) == 0 else {
                return
            }
            var siblings: [Dwarf_Die] = [first]
            var next = first
            var sibling = Dwarf_Die()
            while siblings.count < 100_000, dwarf_siblingof(&next, &sibling) == 0 {
                siblings.append(sibling)
                next = sibling
            }
            pending += siblings.reversed().map { ($0, depth + 1) }
        }
        pushChildren(&initializer, depth: 0)
        while let next = pending.popLast() {
            var die = next.die
            switch dwarf_tag(&die) {
            case Self.tagInlinedSubroutine:
                let name = Self.functionName(&die)
                let site = callSite(&die, cu: &cu)
                if name.map(Self.isWrapper) ?? true || site == nil || site?.line == 0 {
                    pushChildren(&die, depth: next.depth)
                } else if let site, site.file == unitFile || variables[site] != nil {
                    let ranges = addressRanges(&die)
                    guard let lowest = ranges.map(\.0).min() else { continue }
                    var entry: Dwarf_Addr = 0
                    if dwarf_entrypc(&die, &entry) != 0 || !ranges.contains(where: { entry >= $0.0 && entry < $0.1 }) {
                        entry = lowest
                    }
                    found.append(
                        Construction(
                            location: site, callee: name, variable: nil, address: entry,
                            exits: Array(Set(ranges.map(\.1))).sorted()))
                }
            case Self.tagCallSite, Self.tagGNUCallSite:
                guard let returnAddress = returnAddress(&die) else { continue }
                // GCC's calls of __cxa_atexit name no callee: at this level (outside every
                // constructor) a call without one registers a destructor.
                guard let callee = calledFunction(&die) else {
                    registrations.append(returnAddress)
                    continue
                }
                if Self.destructorRegistration.contains(callee) {
                    registrations.append(returnAddress)
                    continue
                }
                if Self.isWrapper(callee) {
                    if followed.insert(callee).inserted, var body = wrappers[callee] {
                        pushChildren(&body, depth: next.depth)
                    }
                } else if returnAddress > 0,
                    let site = sourceLocation(of: returnAddress - 1), variables[site] != nil
                {
                    found.append(
                        Construction(location: site, callee: callee, variable: nil, address: returnAddress - 1))
                }
            case Self.tagLexicalBlock:
                pushChildren(&die, depth: next.depth)
            default:
                break
            }
        }
        // Globals whose code has no inlined call or call site of its own (Clang's inlined
        // `std::ios_base::Init` call, -O0 builds): the rows at a variable's line.
        found += lineRowConstructions(of: &functions, cu: &cu, variables: variables)

        var merged = Self.onePerLine(found, variables: variables)
        // A registration's call may be a tail call (`jmp __cxa_atexit`) whose return address is
        // never reached: the boundary is the first instruction of the row holding the call.
        let boundaries = registrations.map { returnAddress in
            returnAddress > 0 ? rowStart(containing: returnAddress - 1, in: &cu) ?? returnAddress : returnAddress
        }
        Self.setExits(&merged, registrations: boundaries)
        return merged
    }

    /// The unit's subprograms that matter to the initializer at `address`: that function first,
    /// then every wrapper (`__static_initialization_and_destruction_0`, `__cxx_global_var_init…`)
    /// with the wrappers by name; `nil` when no subprogram of the unit holds `address`.
    private static func initializerAndWrappers(in cu: inout Dwarf_Die, at address: UInt64)
        -> (functions: [Dwarf_Die], wrappers: [String: Dwarf_Die])?
    {
        var functions: [Dwarf_Die] = []
        var wrappers: [String: Dwarf_Die] = [:]
        var child = Dwarf_Die()
        guard dwarf_child(&cu, &child) == 0 else { return nil }
        var visited = 0
        while visited < 1_000_000 {
            visited += 1
            var low: Dwarf_Addr = 0
            if dwarf_tag(&child) == tagSubprogram, dwarf_lowpc(&child, &low) == 0 {
                if dwarf_haspc(&child, address) > 0 { functions.insert(child, at: 0) }
                if let name = functionName(&child), isWrapper(name) {
                    wrappers[name] = child
                    functions.append(child)
                }
            }
            var sibling = Dwarf_Die()
            guard dwarf_siblingof(&child, &sibling) == 0 else { break }
            child = sibling
        }
        guard var first = functions.first, dwarf_haspc(&first, address) > 0 else { return nil }
        return (functions, wrappers)
    }

    /// One global per source line, in the order the code runs: constructions found at one line
    /// (an inlined constructor and a call site, say) are one, named by the variable declared there.
    private static func onePerLine(_ found: [Construction], variables: [SourceLocation: String]) -> [Construction] {
        var byPlace: [SourceLocation: Int] = [:]
        var merged: [Construction] = []
        for construction in found.sorted(by: { $0.address < $1.address }) {
            if let index = byPlace[construction.location] {
                merged[index].callee = merged[index].callee ?? construction.callee
                if merged[index].exits.isEmpty { merged[index].exits = construction.exits }
                continue
            }
            var named = construction
            named.variable = variables[construction.location]
            byPlace[construction.location] = merged.count
            merged.append(named)
        }
        return merged
    }

    /// Where each inlined constructor's global is built: at the registration of its destructor
    /// (the first `__cxa_atexit` call after it and before the next global), or where the next
    /// global's code starts; an inlined constructor in one contiguous range also ends at that
    /// range's end. Optimized code scatters a constructor's ranges, so the end of one of several
    /// ranges is not where it is done: such a constructor without either boundary is not timed
    /// apart (`exits` `[]`).
    static func setExits(_ constructions: inout [Construction], registrations: [UInt64]) {
        for index in constructions.indices where !constructions[index].exits.isEmpty {
            let start = constructions[index].address
            let next = index + 1 < constructions.count ? constructions[index + 1].address : nil
            var exits: [UInt64] = []
            if let registered = registrations.filter({ $0 > start && $0 < next ?? UInt64.max }).min() {
                exits.append(registered)
                constructions[index].registered = registered
            }
            if let next { exits.append(next) }
            if exits.isEmpty, constructions[index].exits.count == 1 { exits = constructions[index].exits }
            constructions[index].exits = exits
        }
    }

    /// The address of the line-table row holding `address` (the highest row address at or below
    /// it) in the unit `cu`; `nil` when no row is.
    private func rowStart(containing address: UInt64, in cu: inout Dwarf_Die) -> UInt64? {
        var lines: OpaquePointer?
        var count = 0
        guard dwarf_getsrclines(&cu, &lines, &count) == 0, let lines else { return nil }
        var best: UInt64?
        for index in 0..<count {
            guard let row = dwarf_onesrcline(lines, index) else { continue }
            var rowAddress: Dwarf_Addr = 0
            guard dwarf_lineaddr(row, &rowAddress) == 0, rowAddress <= address, address - rowAddress < 4096 else {
                continue
            }
            if rowAddress > best ?? 0 { best = rowAddress }
        }
        return best
    }

    /// Each line of `functions`' code (the initializer and the wrappers it calls) where a
    /// variable of `variables` is declared, in address order.
    private func lineRowConstructions(
        of functions: inout [Dwarf_Die], cu: inout Dwarf_Die, variables: [SourceLocation: String]
    ) -> [Construction] {
        var ranges: [(UInt64, UInt64)] = []
        for index in functions.indices { ranges += addressRanges(&functions[index]) }
        var lines: OpaquePointer?
        var count = 0
        guard !ranges.isEmpty, dwarf_getsrclines(&cu, &lines, &count) == 0, let lines else { return [] }
        var found: [Construction] = []
        for index in 0..<count {
            guard let row = dwarf_onesrcline(lines, index) else { continue }
            var rowAddress: Dwarf_Addr = 0
            guard dwarf_lineaddr(row, &rowAddress) == 0,
                ranges.contains(where: { rowAddress >= $0.0 && rowAddress < $0.1 }),
                let written = Self.location(of: row)
            else { continue }
            let location = inUnit(written, cu: &cu)
            guard variables[location] != nil else { continue }
            found.append(Construction(location: location, callee: nil, variable: nil, address: rowAddress))
        }
        return found
    }

    /// The variables declared in the compile unit (at its top level and in namespaces) by
    /// their declaration's file and line, named with their named namespaces ("std::__ioinit").
    private func variableDeclarations(in cu: inout Dwarf_Die) -> [SourceLocation: String] {
        var found: [SourceLocation: String] = [:]
        var first = Dwarf_Die()
        guard dwarf_child(&cu, &first) == 0 else { return [:] }
        var pending: [(die: Dwarf_Die, scope: String, depth: Int)] = [(first, "", 1)]
        var visited = 0
        while let next = pending.popLast(), visited < 1_000_000 {
            visited += 1
            var die = next.die
            let tag = dwarf_tag(&die)
            if tag == Self.tagVariable, let name = Self.string(&die, Self.attributeName, integrate: true),
                let place = declaration(&die, cu: &cu)
            {
                let qualified = next.scope + name
                if (found[place]?.count ?? 0) < qualified.count { found[place] = qualified }
            }
            var sibling = Dwarf_Die()
            if dwarf_siblingof(&die, &sibling) == 0 { pending.append((sibling, next.scope, next.depth)) }
            var child = Dwarf_Die()
            if tag == Self.tagNamespace, next.depth < Self.maxWalkDepth, dwarf_haschildren(&die) != 0,
                dwarf_child(&die, &child) == 0
            {
                let scope = Self.string(&die, Self.attributeName).map { next.scope + $0 + "::" } ?? next.scope
                pending.append((child, scope, next.depth + 1))
            }
        }
        return found
    }

    /// Where `die` is declared (`DW_AT_decl_file`, `DW_AT_decl_line`, also through the DIE it
    /// specifies): read here rather than with `dwarf_decl_file`, which refuses DWARF 5's file 0
    /// (Clang's primary source file). `nil` without a line.
    private func declaration(_ die: inout Dwarf_Die, cu: inout Dwarf_Die) -> SourceLocation? {
        var attribute = Dwarf_Attribute()
        var fileIndex: Dwarf_Word = 0
        var lineNumber: Dwarf_Word = 0
        guard dwarf_attr_integrate(&die, Self.attributeDeclFile, &attribute) != nil,
            dwarf_formudata(&attribute, &fileIndex) == 0,
            dwarf_attr_integrate(&die, Self.attributeDeclLine, &attribute) != nil,
            dwarf_formudata(&attribute, &lineNumber) == 0, lineNumber > 0, lineNumber <= UInt64(Int32.max)
        else { return nil }
        var files: OpaquePointer?
        var count: Int = 0
        guard dwarf_getsrcfiles(&cu, &files, &count) == 0, let files, fileIndex < UInt64(count),
            let name = dwarf_filesrc(files, Int(fileIndex), nil, nil)
        else { return nil }
        return inUnit(SourceLocation(file: String(cString: name), line: Int(lineNumber)), cu: &cu)
    }

    /// The function a call site calls (`DW_AT_call_origin`, GNU's `DW_AT_abstract_origin`):
    /// its linkage name, else its name; `nil` for an indirect call.
    private func calledFunction(_ die: inout Dwarf_Die) -> String? {
        var attribute = Dwarf_Attribute()
        var callee = Dwarf_Die()
        for code in [Self.attributeCallOrigin, Self.attributeAbstractOrigin]
        where dwarf_attr(&die, code, &attribute) != nil {
            if dwarf_formref_die(&attribute, &callee) != nil { return Self.functionName(&callee) }
        }
        return nil
    }

    /// A call site's return address (`DW_AT_call_return_pc`, GNU's `DW_AT_low_pc`).
    private func returnAddress(_ die: inout Dwarf_Die) -> UInt64? {
        var attribute = Dwarf_Attribute()
        var address: Dwarf_Addr = 0
        for code in [Self.attributeCallReturnPC, Self.attributeLowPC] where dwarf_attr(&die, code, &attribute) != nil {
            if dwarf_formaddr(&attribute, &address) == 0 { return address }
        }
        return nil
    }

    /// Every `[start, end)` address range of `die`; `[]` when it has no code.
    func addressRanges(_ die: inout Dwarf_Die) -> [(UInt64, UInt64)] {
        var ranges: [(UInt64, UInt64)] = []
        var base: Dwarf_Addr = 0
        var start: Dwarf_Addr = 0
        var end: Dwarf_Addr = 0
        var offset = dwarf_ranges(&die, 0, &base, &start, &end)
        while offset > 0, ranges.count < 100_000 {
            if end > start { ranges.append((start, end)) }
            offset = dwarf_ranges(&die, offset, &base, &start, &end)
        }
        return ranges
    }

    /// A DIE's linkage name, else its name, following `DW_AT_abstract_origin` and
    /// `DW_AT_specification`.
    static func functionName(_ die: inout Dwarf_Die) -> String? {
        linkageName(&die) ?? string(&die, attributeName, integrate: true)
    }

    /// A string attribute of `die` (`integrate`: also from the DIEs it refers to).
    static func string(_ die: inout Dwarf_Die, _ code: UInt32, integrate: Bool = false) -> String? {
        var attribute = Dwarf_Attribute()
        let found =
            integrate ? dwarf_attr_integrate(&die, code, &attribute) : dwarf_attr(&die, code, &attribute)
        guard found != nil, let text = dwarf_formstring(&attribute) else { return nil }
        return String(cString: text)
    }

    /// The compilers' functions that hold a unit's constructors: looked through, never listed.
    static func isWrapper(_ name: String) -> Bool {
        name == "__static_initialization_and_destruction_0" || name.hasPrefix("__cxx_global_var_init")
            || name.hasPrefix("_GLOBAL__sub_I_")
    }

    /// Calls that register a global's destructor, not construct it.
    static let destructorRegistration: Set<String> = ["__cxa_atexit", "atexit", "__cxa_thread_atexit"]

    static let tagCallSite: Int32 = 0x48
    static let tagGNUCallSite: Int32 = 0x4109
    static let tagLexicalBlock: Int32 = 0x0b
    static let tagNamespace: Int32 = 0x39
    static let attributeName: UInt32 = 0x03
    static let attributeDeclFile: UInt32 = 0x3a
    static let attributeDeclLine: UInt32 = 0x3b
    static let attributeLowPC: UInt32 = 0x11
    static let attributeCompDir: UInt32 = 0x1b
    static let attributeAbstractOrigin: UInt32 = 0x31
    static let attributeCallReturnPC: UInt32 = 0x7d
    static let attributeCallOrigin: UInt32 = 0x7f
}
