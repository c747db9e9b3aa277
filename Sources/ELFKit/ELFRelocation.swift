import ELFValues
import Synchronization

/// One `REL` or `RELA` entry, decoded.
public struct ELFRelocation: Sendable, Hashable {
    /// `r_offset`: the address the loader writes.
    public var offset: UInt64
    /// The machine-specific relocation type number.
    public var type: UInt32
    /// Index into the table's symbol table; 0 for none.
    public var symbolIndex: UInt32
    /// `r_addend` for `RELA`; `nil` for `REL`, whose addend is stored at `offset`.
    public var addend: Int64?
}

/// A relocation table the loader applies: a `SHT_REL`, `SHT_RELA` or `SHT_RELR` section, or
/// the range a `DT_REL`/`DT_RELA`/`DT_JMPREL`/`DT_RELR` tag names when the file has no
/// section headers.
public struct ELFRelocationTable {
    /// Section name, or the dynamic tag's name for tables found through `.dynamic`.
    public let name: String
    public let format: ELFRelocationFormat
    /// File offset of the table.
    public let offset: UInt64
    let data: ByteReader
    let is64: Bool
    /// The machine, which decides how `r_info` is laid out (`RelocationInfoLayout`).
    public let machine: ELFMachine
    let layout: RelocationInfoLayout

    /// A table over `data`; `machine` only matters where `r_info` is not the generic
    /// `sym << 32 | type` (ELF64) or `sym << 8 | type` (ELF32): MIPS64 and SPARC V9.
    public init(
        name: String, format: ELFRelocationFormat, offset: UInt64, data: ByteReader, is64: Bool,
        machine: ELFMachine = ELFMachine(rawValue: 0)
    ) {
        self.name = name
        self.format = format
        self.offset = offset
        self.data = data
        self.is64 = is64
        self.machine = machine
        layout = RelocationInfoLayout(machine: machine, is64: is64, bigEndian: data.bigEndian)
    }

    var entrySize: Int {
        switch format {
        case .rel: is64 ? 16 : 8
        case .rela: is64 ? 24 : 12
        case .relr: is64 ? 8 : 4
        }
    }

    /// Raw entries: relocations for REL/RELA, words for RELR.
    public var entryCount: Int { data.count / entrySize }

    /// The REL/RELA entry at `index`, or `nil` outside the table or for RELR tables.
    public subscript(index: Int) -> ELFRelocation? {
        guard format != .relr, index >= 0, index < entryCount else { return nil }
        let base = index * entrySize
        if is64 {
            guard let offset = data.u64(at: base), let info = data.u64(at: base + 8) else { return nil }
            var addend: Int64?
            if format == .rela {
                guard let raw = data.u64(at: base + 16) else { return nil }
                addend = Int64(bitPattern: raw)
            }
            let (type, symbol) = layout.decode(info)
            return ELFRelocation(offset: offset, type: type, symbolIndex: symbol, addend: addend)
        }
        guard let offset = data.u32(at: base), let info = data.u32(at: base + 4) else { return nil }
        var addend: Int64?
        if format == .rela {
            guard let raw = data.u32(at: base + 8) else { return nil }
            addend = Int64(Int32(bitPattern: raw))
        }
        return ELFRelocation(
            offset: UInt64(offset), type: info & 0xff, symbolIndex: info >> 8,
            addend: addend)
    }

    /// Indices of the REL/RELA entries whose `r_offset` lies in `range`, in table order: a scan
    /// that reads one field per entry (a library's initializer slots among all its
    /// relocations). `[]` for RELR tables.
    public func entryIndices(withOffsetsIn range: ClosedRange<UInt64>) -> [Int] {
        var hits: [Int] = []
        guard format != .relr, let base = data.bytes.baseAddress else { return hits }
        let count = entryCount
        let stride = entrySize
        guard count > 0, count * stride <= data.count else { return hits }
        let swap = data.bigEndian
        let (lowest, highest) = (range.lowerBound, range.upperBound)
        let span = highest - lowest
        if is64, !swap {
            // The common case: one load, one subtraction and one comparison per entry.
            var at = base
            for index in 0..<count {
                if at.loadUnaligned(as: UInt64.self) &- lowest <= span { hits.append(index) }
                at += stride
            }
        } else if is64 {
            for index in 0..<count {
                var offset = (base + index * stride).loadUnaligned(as: UInt64.self)
                if swap { offset = offset.byteSwapped }
                if offset >= lowest && offset <= highest { hits.append(index) }
            }
        } else {
            for index in 0..<count {
                var offset = (base + index * stride).loadUnaligned(as: UInt32.self)
                if swap { offset = offset.byteSwapped }
                if UInt64(offset) >= lowest && UInt64(offset) <= highest { hits.append(index) }
            }
        }
        return hits
    }

    /// Calls `body(offset, type, symbolIndex, entryIndex)` for every REL/RELA entry, reading only
    /// `r_offset` and `r_info` straight from the mapped table (its bounds are checked once):
    /// the fast path for counting. Does nothing for RELR tables.
    public func forEachEntry(_ body: (UInt64, UInt32, UInt32, Int) -> Void) {
        guard format != .relr, let base = data.bytes.baseAddress else { return }
        let count = entryCount
        let stride = entrySize
        guard count > 0, count * stride <= data.count else { return }
        let swap = data.bigEndian
        if is64 {
            for index in 0..<count {
                let at = base + index * stride
                var offset = at.loadUnaligned(as: UInt64.self)
                var info = (at + 8).loadUnaligned(as: UInt64.self)
                if swap {
                    offset = offset.byteSwapped
                    info = info.byteSwapped
                }
                let (type, symbol) = layout.decode(info)
                body(offset, type, symbol, index)
            }
        } else {
            for index in 0..<count {
                let at = base + index * stride
                var offset = at.loadUnaligned(as: UInt32.self)
                var info = (at + 4).loadUnaligned(as: UInt32.self)
                if swap {
                    offset = offset.byteSwapped
                    info = info.byteSwapped
                }
                body(UInt64(offset), info & 0xff, info >> 8, index)
            }
        }
    }

    /// Calls `body` with every address a RELR table relocates, decoding the bitmap words.
    /// Does nothing for REL/RELA tables.
    public func forEachRelrAddress(_ body: (UInt64) -> Void) {
        guard format == .relr else { return }
        let word = UInt64(is64 ? 8 : 4)
        let bits = is64 ? 64 : 32
        var base: UInt64 = 0
        for index in 0..<entryCount {
            guard let entry = data.word(at: index * Int(word), is64: is64) else { return }
            if entry & 1 == 0 {
                body(entry)
                base = entry &+ word
            } else {
                var bitmap = entry >> 1
                var address = base
                while bitmap != 0 {
                    if bitmap & 1 != 0 { body(address) }
                    bitmap >>= 1
                    address &+= word
                }
                base &+= UInt64(bits - 1) &* word
            }
        }
    }

    /// `classCounts()`, and what `entryIndices(withOffsetsIn: range)` gives (`[]` when
    /// `range` is `nil`), read right after while the table's pages are at hand: two tight
    /// loops take fewer instructions than one that does both.
    public func classCounts(keepingOffsetsIn range: ClosedRange<UInt64>?) -> (
        counts: RelocationClassCounts, entries: [Int]
    ) {
        (classCounts(), range.map { entryIndices(withOffsetsIn: $0) } ?? [])
    }

    /// The entries by relocation class, all of them and those that name a symbol, in one pass
    /// over `r_info` (the fast path for counting). RELR addresses are not counted here
    /// (`relrAddressCount`).
    public func classCounts() -> RelocationClassCounts {
        var counts = RelocationClassCounts()
        guard format != .relr, let base = data.bytes.baseAddress else { return counts }
        let count = entryCount
        let stride = entrySize
        guard count > 0, count * stride <= data.count else { return counts }
        // Classes of the types below 256, with and without a symbol, looked up instead of
        // switched on per entry.
        let lookup = RelocationClassCounts.Lookup.of(machine)
        let swap = data.bigEndian
        if is64, !swap, layout == .generic {
            // The common case (x86-64, AArch64, RISC-V, ... little-endian): one load per entry
            // and two table look-ups, no per-entry test of the class, byte order or layout.
            counts.withBuffers { all, named in
                lookup.bare.withUnsafeBufferPointer { bareClasses in
                    lookup.named.withUnsafeBufferPointer { namedClasses in
                        guard let all = all.baseAddress, let named = named.baseAddress,
                            let bareClasses = bareClasses.baseAddress, let namedClasses = namedClasses.baseAddress
                        else { return }
                        var at = base + 8
                        let end = at + count * stride
                        // Entries come in runs of one `r_info` (every RELATIVE entry has the
                        // same): a run is counted by its length, classified once at its end.
                        var runInfo: UInt64 = 0
                        var runLength = 0
                        func flush() {
                            guard runLength > 0 else { return }
                            let type = UInt32(truncatingIfNeeded: runInfo)
                            let hasSymbol = runInfo >> 32 != 0
                            let ordinal =
                                type < 256
                                ? Int((hasSymbol ? namedClasses : bareClasses)[Int(type)])
                                : lookup.ordinal(type, named: hasSymbol)
                            all[ordinal] &+= runLength
                            if hasSymbol { named[ordinal] &+= runLength }
                        }
                        while at < end {
                            let info = at.loadUnaligned(as: UInt64.self)
                            at += stride
                            if info == runInfo {
                                runLength &+= 1
                                continue
                            }
                            flush()
                            runInfo = info
                            runLength = 1
                        }
                        flush()
                    }
                }
            }
            return counts
        }
        counts.withBuffers { all, named in
            for index in 0..<count {
                let at = base + index * stride + (is64 ? 8 : 4)
                let type: UInt32
                let symbol: UInt32
                if is64 {
                    var info = at.loadUnaligned(as: UInt64.self)
                    if swap { info = info.byteSwapped }
                    (type, symbol) = layout.decode(info)
                } else {
                    var info = at.loadUnaligned(as: UInt32.self)
                    if swap { info = info.byteSwapped }
                    (type, symbol) = (info & 0xff, info >> 8)
                }
                let ordinal = lookup.ordinal(type, named: symbol != 0)
                all[ordinal] += 1
                if symbol != 0 { named[ordinal] += 1 }
            }
        }
        return counts
    }

    /// Number of addresses a RELR table relocates (0 for REL/RELA).
    public var relrAddressCount: Int {
        guard format == .relr else { return 0 }
        var count = 0
        for index in 0..<entryCount {
            guard let entry = data.word(at: index * entrySize, is64: is64) else { break }
            count += entry & 1 == 0 ? 1 : (entry >> 1).nonzeroBitCount
        }
        return count
    }
}

extension ELFFile {
    /// Reads `dynamicRelocationTables`: the ranges the dynamic tags name, as the loader
    /// applies them (`loaderRelocationRanges`), named after the section that covers each
    /// exactly. The allocated `SHT_REL`/`SHT_RELA`/`SHT_RELR` sections are used when they
    /// cover the same bytes (their names and split are kept), and alone when the file has no
    /// such tags; when the two disagree, the tags win and a diagnostic says so.
    func readDynamicRelocationTables() -> [ELFRelocationTable] {
        let relocationSections = sections.filter { section in
            (section.type == .rel || section.type == .rela || section.type == .relr) && section.isAllocated
        }
        let ranges = loaderRelocationRanges()
        if !ranges.isEmpty {
            let fromSections = Self.merged(
                relocationSections.filter(\.hasFileBytes).map { (offset: $0.offset, size: $0.size) })
            if fromSections != Self.merged(ranges.map { (offset: $0.offset, size: $0.size) }) {
                if !relocationSections.isEmpty {
                    let tags = ranges.map { "\($0.tag) \($0.size) bytes" }.joined(separator: ", ")
                    note(
                        "relocation section headers disagree with the dynamic tags; the loader applies the tagged ranges",
                        value: tags)
                }
                return ranges.compactMap { range in
                    guard let data = bytes(offset: range.offset, size: range.size) else { return nil }
                    let name =
                        relocationSections.first { $0.offset == range.offset && $0.size == range.size }?.name
                        ?? range.tag.description
                    return ELFRelocationTable(
                        name: name, format: range.format, offset: range.offset, data: data,
                        is64: is64, machine: machine)
                }
            }
        }
        return relocationSections.compactMap { section -> ELFRelocationTable? in
            let format: ELFRelocationFormat
            switch section.type {
            case .rel: format = .rel
            case .rela: format = .rela
            default: format = .relr
            }
            guard let data = bytes(of: section) else { return nil }
            let table = ELFRelocationTable(
                name: section.name, format: format, offset: section.offset,
                data: data, is64: is64, machine: machine)
            if section.size % UInt64(table.entrySize) != 0 {
                note("\(section.name) size is not a multiple of its entry size", value: "\(section.size)")
            }
            return table
        }
    }
}

/// How an ELF64 `r_info` word splits into type and symbol index.
enum RelocationInfoLayout: Sendable {
    /// `ELF64_R_SYM(i) = i >> 32`, `ELF64_R_TYPE(i) = i & 0xffffffff`.
    case generic
    /// SPARC V9: `ELF64_R_TYPE_ID(i) = i & 0xff`; the bits above hold `R_SPARC_OLO10` data.
    case sparc64
    /// MIPS64 (`Elf64_Mips_Rel`): `r_sym` (4 bytes), `r_ssym`, `r_type3`, `r_type2`, `r_type`
    /// stored in that order in the file's byte order, so a little-endian load puts `r_type` in
    /// the top byte and a big-endian one in the bottom byte. The primary `r_type` is the type.
    case mips64Little
    case mips64Big

    init(machine: ELFMachine, is64: Bool, bigEndian: Bool) {
        guard is64 else {
            self = .generic
            return
        }
        switch machine {
        case .mips: self = bigEndian ? .mips64Big : .mips64Little
        case .sparcv9: self = .sparc64
        default: self = .generic
        }
    }

    /// Type and symbol index of an ELF64 `r_info` loaded in the file's byte order.
    @inline(__always)
    func decode(_ info: UInt64) -> (type: UInt32, symbol: UInt32) {
        switch self {
        case .generic: (UInt32(truncatingIfNeeded: info), UInt32(truncatingIfNeeded: info >> 32))
        case .sparc64: (UInt32(truncatingIfNeeded: info & 0xff), UInt32(truncatingIfNeeded: info >> 32))
        case .mips64Little: (UInt32(truncatingIfNeeded: info >> 56), UInt32(truncatingIfNeeded: info))
        case .mips64Big: (UInt32(truncatingIfNeeded: info & 0xff), UInt32(truncatingIfNeeded: info >> 32))
        }
    }
}

/// Relocation entries by class, all of them and those that name a symbol
/// (`ELFRelocationTable.classCounts`).
public struct RelocationClassCounts: Sendable, Equatable {
    private var all = [Int](repeating: 0, count: RelocationClass.allCases.count)
    private var named = [Int](repeating: 0, count: RelocationClass.allCases.count)

    public init() {}

    /// Entries of `relocationClass`.
    public subscript(_ relocationClass: RelocationClass) -> Int { all[Self.ordinal(relocationClass)] }

    /// Entries of `relocationClass` with a symbol index other than 0: a symbol look-up each.
    public func naming(_ relocationClass: RelocationClass) -> Int { named[Self.ordinal(relocationClass)] }

    /// Adds `other`'s counts.
    public mutating func add(_ other: RelocationClassCounts) {
        for index in all.indices {
            all[index] += other.all[index]
            named[index] += other.named[index]
        }
    }

    mutating func withBuffers(
        _ body: (inout UnsafeMutableBufferPointer<Int>, inout UnsafeMutableBufferPointer<Int>) -> Void
    ) {
        all.withUnsafeMutableBufferPointer { all in
            named.withUnsafeMutableBufferPointer { named in body(&all, &named) }
        }
    }

    static func ordinal(_ relocationClass: RelocationClass) -> Int {
        switch relocationClass {
        case .relative: 0
        case .plt: 1
        case .copy: 2
        case .irelative: 3
        case .tls: 4
        case .symbolic: 5
        case .none: 6
        }
    }

    /// The class ordinals of types 0...255 of one machine, with and without a symbol; types
    /// above go through `relocationClass(_:symbolIndex:)`.
    struct Lookup: Sendable {
        let machine: ELFMachine
        let bare: [UInt8]
        let named: [UInt8]

        /// The machines `relocationClass` knows; other machines get their tables built on the
        /// spot (every type but 0 is `symbolic` there).
        private static let knownMachines: Set<UInt16> = Set(
            [
                ELFMachine.x86_64, .i386, .aarch64, .arm, .riscv, .ppc, .ppc64, .s390, .mips, .sparc, .sparcv9,
                .sparc32plus, .loongarch,
            ].map(\.rawValue))

        /// The tables of the known machines met so far, each built when a file of that machine
        /// is first counted (building all thirteen up front cost every run 0.9 M instructions,
        /// for a table or two used).
        private static let known = Mutex<[UInt16: Lookup]>([:])

        static func of(_ machine: ELFMachine) -> Lookup {
            guard knownMachines.contains(machine.rawValue) else { return Lookup(machine) }
            if let table = known.withLock({ $0[machine.rawValue] }) { return table }
            let table = Lookup(machine)
            known.withLock { $0[machine.rawValue] = table }
            return table
        }

        init(_ machine: ELFMachine) {
            self.machine = machine
            bare = (0..<256).map {
                UInt8(RelocationClassCounts.ordinal(machine.relocationClass(UInt32($0), symbolIndex: 0)))
            }
            named = (0..<256).map {
                UInt8(RelocationClassCounts.ordinal(machine.relocationClass(UInt32($0), symbolIndex: 1)))
            }
        }

        @inline(__always)
        func ordinal(_ type: UInt32, named hasSymbol: Bool) -> Int {
            if type < 256 { return Int(hasSymbol ? named[Int(type)] : bare[Int(type)]) }
            return RelocationClassCounts.ordinal(machine.relocationClass(type, symbolIndex: hasSymbol ? 1 : 0))
        }
    }
}
