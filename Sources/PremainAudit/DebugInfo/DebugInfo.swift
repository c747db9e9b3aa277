import CDW
import CLazyLibraries
import ELFKit
import PremainModel
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// DWARF of one file, through libdw: source lines of addresses and the inlined copies of
/// functions. Addresses are link-time addresses of the object the DWARF describes.
public final class DebugInfo {
    /// One inlined copy of a function (`DW_TAG_inlined_subroutine`).
    public struct InlinedCopy: Equatable {
        /// The inlined function's linkage (mangled) name.
        public var symbol: String
        /// First instruction executed (`DW_AT_entry_pc`, else the lowest address).
        public var entry: UInt64
        /// End address of every range: where control leaves the inlined code.
        public var exits: [UInt64]
        /// Linkage name of the function it was inlined into, when known.
        public var caller: String?
        /// The call site.
        public var callSite: SourceLocation?
    }

    public let path: String
    /// The open file, or -1 for an image in memory.
    private let descriptor: Int32
    /// The image libelf reads for `init(memory:path:)`, else `nil`.
    private let memory: UnsafeMutableRawBufferPointer?
    /// The SIGBUS guard's slot for the file's mapping (`ELFMapping`), or -1.
    private let guardSlot: Int32
    private let elf: OpaquePointer
    let dwarf: OpaquePointer
    /// Per compile unit (by its DIE offset), the declared Swift entities: linkage name, place,
    /// and whether it is a variable; filled on the first look-up in that unit.
    private var declarations: [Dwarf_Off: [(name: String, location: SourceLocation, isVariable: Bool)]] = [:]

    /// Why libdw could not be loaded (dlopen's one-line message), or `nil` when it is loaded.
    /// libdw is loaded on the first call (`CLazyLibraries`); without it every `DebugInfo` is
    /// `nil` and reports carry no source lines.
    public static var libraryProblem: String? {
        premain_libdw_load().map { String(cString: $0) }
    }

    /// Why libdw could not be used, when a reader of this process asked for it (so source
    /// lines or inlined copies it would have given are missing); `nil` when it loaded or was
    /// never needed. Asks nothing of the loader.
    public static var libraryFailure: String? {
        premain_libdw_failure().map { String(cString: $0) }
    }

    /// The one warning of a process whose results lack what libdw would have given, or `nil`:
    /// "source lines (file:line) are unavailable: libdw.so.1 cannot be used (…)". The loss is
    /// this machine's, not the files': their DWARF is there.
    public static var unavailableWarning: String? {
        libraryFailure.map {
            "source lines (file:line) are unavailable: libdw.so.1 cannot be used (\($0)); the files' DWARF was not read. Install libdw1 (elfutils)"
        }
    }

    /// Opens `path`; returns `nil` when it cannot be opened, is not a regular file, or has no
    /// DWARF. The file is mapped under the SIGBUS guard (`ELFMapping`), so a file that shrinks
    /// meanwhile gives missing lines instead of a SIGBUS.
    public init?(path: String) {
        guard Self.libraryProblem == nil else { return nil }
        let fd = LocalFiles.openForReading(path, regularOnly: true)
        guard fd >= 0 else { return nil }
        guard let (elf, slot) = ELFMapping.begin(fd) else {
            close(fd)
            return nil
        }
        guard let handle = dwarf_begin_elf(elf, DWARF_C_READ, nil) else {
            ELFMapping.end(elf, guardSlot: slot)
            close(fd)
            return nil
        }
        self.path = path
        self.descriptor = fd
        self.memory = nil
        self.guardSlot = slot
        self.elf = elf
        self.dwarf = handle
    }

    /// Reads the DWARF of an ELF image held in memory (a copy of `bytes` is made), named
    /// `path`; `nil` when it is not ELF or has no DWARF. For fuzzing the DWARF readers without
    /// files.
    public init?(memory bytes: UnsafeRawBufferPointer, path: String) {
        guard !bytes.isEmpty, Self.libraryProblem == nil else { return nil }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        buffer.copyMemory(from: bytes)
        _ = elf_version(UInt32(EV_CURRENT))
        guard let base = buffer.baseAddress, let elf = elf_memory(base.assumingMemoryBound(to: CChar.self), bytes.count)
        else {
            buffer.deallocate()
            return nil
        }
        guard let handle = dwarf_begin_elf(elf, DWARF_C_READ, nil) else {
            elf_end(elf)
            buffer.deallocate()
            return nil
        }
        self.path = path
        self.descriptor = -1
        self.memory = buffer
        self.guardSlot = -1
        self.elf = elf
        self.dwarf = handle
    }

    deinit {
        dwarf_end(dwarf)
        ELFMapping.end(elf, guardSlot: guardSlot)
        if descriptor >= 0 { close(descriptor) }
        memory?.deallocate()
    }

    /// The line-table row for `address`, or `nil` when no compile unit covers it. A row with
    /// line 0 (compiler-generated code, such as a Swift global's one-time initializer) gives way
    /// to the next row of the function with a real line, within 256 bytes.
    public func sourceLocation(of address: UInt64) -> SourceLocation? {
        var cu = Dwarf_Die()
        if dwarf_addrdie(dwarf, address, &cu) == nil, !findUnit(containing: address, into: &cu) { return nil }
        guard let line = dwarf_getsrc_die(&cu, address) else { return nil }
        if let location = Self.location(of: line), location.line > 0 { return location }
        var lines: OpaquePointer?
        var count = 0
        guard dwarf_getsrclines(&cu, &lines, &count) == 0, let lines else { return Self.location(of: line) }
        var best: (UInt64, SourceLocation)?
        for index in 0..<count {
            guard let row = dwarf_onesrcline(lines, index) else { continue }
            var rowAddress: Dwarf_Addr = 0
            guard dwarf_lineaddr(row, &rowAddress) == 0, rowAddress >= address, rowAddress < address + 256,
                let location = Self.location(of: row), location.line > 0
            else { continue }
            if best == nil || rowAddress < best?.0 ?? 0 { best = (rowAddress, location) }
        }
        return best?.1 ?? Self.location(of: line)
    }

    /// `location` with a relative file name made a path inside the unit's `DW_AT_comp_dir`:
    /// libdw joins a file name to its line-table directory only, and GCC records the source's
    /// own directory relative to the compilation folder (`src` of `src/util.cc`), so the
    /// name alone would not say which checkout it is in. (`sourceLocation(of:)` keeps libdw's
    /// name: the audit's own line reader, `LineTable`, answers as libdw does.)
    func inUnit(_ location: SourceLocation, cu: inout Dwarf_Die) -> SourceLocation {
        guard !location.file.hasPrefix("/"), let directory = Self.string(&cu, Self.attributeCompDir),
            directory.hasPrefix("/")
        else { return location }
        return SourceLocation(file: directory + "/" + location.file, line: location.line)
    }

    /// Where a Swift global is declared, for its one-time initializer `onceSymbol`
    /// (`$s4Tool12keywordTable_WZ`) at `address`: in the compile unit holding `address`, the
    /// `DW_AT_decl_file` and `DW_AT_decl_line` of its `DW_TAG_variable` (linkage name the
    /// once-function's without `_WZ`, `$s4Tool12keywordTableSaySSGvp`), else of a subprogram
    /// of that variable (its addressor `…vau`, its initializer's closure `…vpfi…`): optimized
    /// builds keep no variable DIE, and the initializer's own rows have line 0. `nil` when
    /// neither is found.
    public func declaration(ofGlobalInitializedBy onceSymbol: String, at address: UInt64) -> SourceLocation? {
        guard onceSymbol.hasSuffix("_WZ") else { return nil }
        let prefix = String(onceSymbol.dropLast(3))
        var cu = Dwarf_Die()
        if dwarf_addrdie(dwarf, address, &cu) == nil, !findUnit(containing: address, into: &cu) { return nil }
        let unit = dwarf_dieoffset(&cu)
        if declarations[unit] == nil { declarations[unit] = swiftDeclarations(in: &cu) }
        let matching = (declarations[unit] ?? []).filter { $0.name.hasPrefix(prefix) && $0.name.count > prefix.count }
        return (matching.first { $0.isVariable } ?? matching.first)?.location
    }

    /// The Swift variables and subprograms of one compile unit with a declaration line, in
    /// DIE order; at most a million DIEs are visited.
    private func swiftDeclarations(in cu: inout Dwarf_Die) -> [(
        name: String, location: SourceLocation, isVariable: Bool
    )] {
        var found: [(name: String, location: SourceLocation, isVariable: Bool)] = []
        var first = Dwarf_Die()
        guard dwarf_child(&cu, &first) == 0 else { return [] }
        var pending: [(die: Dwarf_Die, depth: Int)] = [(first, 1)]
        var visited = 0
        while let next = pending.popLast(), visited < 1_000_000 {
            visited += 1
            var die = next.die
            let tag = dwarf_tag(&die)
            if tag == Self.tagVariable || tag == Self.tagSubprogram, let name = Self.linkageName(&die),
                name.hasPrefix("$s"),
                let file = dwarf_decl_file(&die)
            {
                var line: Int32 = 0
                if dwarf_decl_line(&die, &line) == 0, line > 0 {
                    found.append(
                        (name, SourceLocation(file: String(cString: file), line: Int(line)), tag == Self.tagVariable))
                }
            }
            var sibling = Dwarf_Die()
            if dwarf_siblingof(&die, &sibling) == 0 { pending.append((sibling, next.depth)) }
            var child = Dwarf_Die()
            if next.depth < Self.maxWalkDepth, dwarf_haschildren(&die) != 0, dwarf_child(&die, &child) == 0 {
                pending.append((child, next.depth + 1))
            }
        }
        return found
    }

    static let tagVariable: Int32 = 0x34

    static func location(of line: OpaquePointer) -> SourceLocation? {
        guard let file = dwarf_linesrc(line, nil, nil) else { return nil }
        var number: Int32 = 0
        guard dwarf_lineno(line, &number) == 0 else { return nil }
        return SourceLocation(file: String(cString: file), line: Int(number))
    }

    /// Finds the compile unit whose ranges hold `address` by walking every unit: for files
    /// without `.debug_aranges` (swiftc emits none), where `dwarf_addrdie` finds nothing.
    func findUnit(containing address: UInt64, into cu: inout Dwarf_Die) -> Bool {
        var offset: Dwarf_Off = 0
        var next: Dwarf_Off = 0
        var headerSize: Int = 0
        while dwarf_nextcu(dwarf, offset, &next, &headerSize, nil, nil, nil) == 0 {
            if dwarf_offdie(dwarf, offset + Dwarf_Off(headerSize), &cu) != nil, dwarf_haspc(&cu, address) > 0 {
                return true
            }
            offset = next
        }
        return false
    }

    /// Every inlined copy of a function whose linkage name satisfies `wanted`. `[]` when the
    /// DWARF has no inline information for them.
    public func inlinedCopies(where wanted: (String) -> Bool) -> [InlinedCopy] {
        var copies: [InlinedCopy] = []
        var offset: Dwarf_Off = 0
        var next: Dwarf_Off = 0
        var headerSize: Int = 0
        while dwarf_nextcu(dwarf, offset, &next, &headerSize, nil, nil, nil) == 0 {
            var cu = Dwarf_Die()
            if dwarf_offdie(dwarf, offset + Dwarf_Off(headerSize), &cu) != nil {
                var child = Dwarf_Die()
                if dwarf_child(&cu, &child) == 0 {
                    walk(child, cu: &cu, caller: nil, wanted: wanted, into: &copies)
                }
            }
            offset = next
        }
        return copies
    }

    static let tagSubprogram: Int32 = 0x2e
    static let tagInlinedSubroutine: Int32 = 0x1d
    static let attributeLinkageName: UInt32 = 0x6e
    static let attributeMIPSLinkageName: UInt32 = 0x2007
    static let attributeCallFile: UInt32 = 0x58
    static let attributeCallLine: UInt32 = 0x59

    /// Deepest DIE nesting walked (real DWARF nests a few dozen levels); below it DIEs are
    /// skipped, so a crafted `.debug_info` of 25,000 nested blocks costs at most
    /// `maxWalkDepth` sibling scans of it, not one per level.
    static let maxWalkDepth = 256

    /// Visits the DIEs from `first` and its siblings down, in pre-order, with an explicit stack
    /// (no recursion: the input decides the depth).
    private func walk(
        _ first: Dwarf_Die, cu: inout Dwarf_Die, caller: String?,
        wanted: (String) -> Bool, into copies: inout [InlinedCopy]
    ) {
        var pending: [(die: Dwarf_Die, caller: String?, depth: Int)] = [(first, caller, 1)]
        while let next = pending.popLast() {
            var die = next.die
            let tag = dwarf_tag(&die)
            var callerHere = next.caller
            if tag == Self.tagSubprogram, next.caller == nil {
                callerHere = Self.linkageName(&die)
            } else if tag == Self.tagInlinedSubroutine, let name = Self.linkageName(&die), wanted(name) {
                if let copy = inlinedCopy(&die, cu: &cu, symbol: name, caller: next.caller) { copies.append(copy) }
            }
            // The sibling waits below the children, so the children come first.
            var sibling = Dwarf_Die()
            if dwarf_siblingof(&die, &sibling) == 0 { pending.append((sibling, next.caller, next.depth)) }
            var child = Dwarf_Die()
            if next.depth < Self.maxWalkDepth, dwarf_haschildren(&die) != 0, dwarf_child(&die, &child) == 0 {
                pending.append((child, callerHere, next.depth + 1))
            }
        }
    }

    private func inlinedCopy(
        _ die: inout Dwarf_Die, cu: inout Dwarf_Die, symbol: String,
        caller: String?
    ) -> InlinedCopy? {
        var ranges: [(UInt64, UInt64)] = []
        var base: Dwarf_Addr = 0
        var start: Dwarf_Addr = 0
        var end: Dwarf_Addr = 0
        var offset = dwarf_ranges(&die, 0, &base, &start, &end)
        while offset > 0 {
            if end > start { ranges.append((start, end)) }
            offset = dwarf_ranges(&die, offset, &base, &start, &end)
        }
        guard let lowest = ranges.map(\.0).min() else { return nil }
        var entry: Dwarf_Addr = 0
        if dwarf_entrypc(&die, &entry) != 0 || !ranges.contains(where: { entry >= $0.0 && entry < $0.1 }) {
            entry = lowest
        }
        return InlinedCopy(
            symbol: symbol, entry: entry, exits: Array(Set(ranges.map(\.1))).sorted(),
            caller: caller, callSite: callSite(&die, cu: &cu))
    }

    /// An inlined subroutine's call site (`DW_AT_call_file`, `DW_AT_call_line`); `nil` when
    /// either is missing or the file index is not in the unit's file table.
    func callSite(_ die: inout Dwarf_Die, cu: inout Dwarf_Die) -> SourceLocation? {
        var attribute = Dwarf_Attribute()
        var fileIndex: Dwarf_Word = 0
        var lineNumber: Dwarf_Word = 0
        guard dwarf_attr(&die, Self.attributeCallFile, &attribute) != nil, dwarf_formudata(&attribute, &fileIndex) == 0,
            dwarf_attr(&die, Self.attributeCallLine, &attribute) != nil, dwarf_formudata(&attribute, &lineNumber) == 0
        else { return nil }
        var files: OpaquePointer?
        var count: Int = 0
        guard dwarf_getsrcfiles(&cu, &files, &count) == 0, let files, fileIndex < UInt64(count),
            lineNumber <= UInt64(Int32.max), let name = dwarf_filesrc(files, Int(fileIndex), nil, nil)
        else { return nil }
        return inUnit(SourceLocation(file: String(cString: name), line: Int(lineNumber)), cu: &cu)
    }

    static func linkageName(_ die: inout Dwarf_Die) -> String? {
        var attribute = Dwarf_Attribute()
        for code in [attributeLinkageName, attributeMIPSLinkageName] {
            if dwarf_attr_integrate(&die, code, &attribute) != nil, let text = dwarf_formstring(&attribute) {
                return String(cString: text)
            }
        }
        return nil
    }
}
