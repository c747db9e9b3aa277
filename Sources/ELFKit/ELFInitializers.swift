import ELFValues

/// One static initializer the loader (or crt code, for `.ctors`) calls before `main`.
public struct ELFInitializerEntry: Sendable, Hashable {
    public var source: InitializerSource
    /// Position in its array (0 for `DT_INIT`).
    public var index: Int
    /// Address of the slot holding the pointer (the function itself for `DT_INIT`).
    public var slotAddress: UInt64
    /// The value stored in the file.
    public var storedValue: UInt64
    /// The link-time address of the function the entry calls, or `nil` when unresolved.
    public var target: UInt64?
    public var resolution: InitializerResolution
    /// For a symbolic relocation: the symbol it names.
    public var relocationSymbol: String?
}

extension ELFFile {
    /// Every `DT_PREINIT_ARRAY`, `DT_INIT`, `.ctors` and `DT_INIT_ARRAY` entry in the order
    /// they run. `[]` when the file has none.
    public var initializerEntries: [ELFInitializerEntry] {
        let (slots, notes) = initializerSlots
        diagnostics += notes
        let arrayRanges = slots.map { $0.2 }
        let relocated = type == 1 ? relocatableArrayTargets() : relocationsAt(Set(arrayRanges))
        var entries: [ELFInitializerEntry] = []
        entries.reserveCapacity(slots.count + 1)
        if let initAddress = dynamicValue(.initFunction) {
            entries.append(
                ELFInitializerEntry(
                    source: .dtInit, index: 0, slotAddress: initAddress,
                    storedValue: initAddress, target: initAddress, resolution: .stored))
        } else if type == 2 || type == 3, dynamicEntries.isEmpty, interpreter == nil,
            let initSection = section(named: ".init"),
            initSection.size > 0
        {
            // A static executable has no DT_INIT, but its C runtime calls `_init` (the .init
            // section) between the preinit and init arrays, as ld.so does for DT_INIT.
            entries.append(
                ELFInitializerEntry(
                    source: .dtInit, index: 0, slotAddress: initSection.address,
                    storedValue: initSection.address, target: initSection.address,
                    resolution: .stored))
        }
        for (source, index, slot, stored) in slots {
            var entry = ELFInitializerEntry(
                source: source, index: index, slotAddress: slot, storedValue: stored,
                target: stored == 0 ? nil : stored,
                resolution: stored == 0 ? .unresolved : .stored)
            if let (target, symbol) = relocated[slot] {
                if let target {
                    entry.target = target
                    entry.resolution = symbol == nil ? .relativeRelocation : .symbolRelocation
                }
                entry.relocationSymbol = symbol
            }
            entries.append(entry)
        }
        // Order of execution: preinit, DT_INIT, .ctors (run in reverse), init_array; each
        // source keeps the order it was read in, .ctors the reverse of its slots' order.
        var ordered: [ELFInitializerEntry] = []
        ordered.reserveCapacity(entries.count)
        for source in [InitializerSource.preinitArray, .dtInit, .ctors, .initArray] {
            let start = ordered.count
            // By index: only the entries taken are copied.
            for index in entries.indices where entries[index].source == source { ordered.append(entries[index]) }
            if source == .ctors { ordered[start...].sort { $0.index > $1.index } }
        }
        return ordered
    }

    /// Reads `initializerSlots`.
    func readInitializerSlots() -> (slots: [(InitializerSource, Int, UInt64, UInt64)], notes: [ELFFormatError]) {
        let mark = diagnostics.count
        var slots: [(InitializerSource, Int, UInt64, UInt64)] = []  // source, index, slot, stored
        for (source, addressTag, sizeTag) in [
            (InitializerSource.preinitArray, DynamicTag.preinitArray, DynamicTag.preinitArraySize),
            (.initArray, .initArray, .initArraySize),
        ] {
            slots += arraySlots(
                source: source, address: dynamicValue(addressTag), size: dynamicValue(sizeTag),
                fallbackType: source == .initArray ? .initArray : .preinitArray)
        }
        if let section = section(named: ".ctors"), let data = bytes(of: section) {
            let count = data.count / wordSize
            for index in 0..<count {
                guard let value = data.word(at: index * wordSize, is64: is64) else { break }
                let terminator: UInt64 = is64 ? UInt64.max : UInt64(UInt32.max)
                if value == terminator || (value == 0 && index == count - 1) { continue }
                slots.append((.ctors, index, section.address &+ UInt64(index * wordSize), value))
            }
        }
        let notes = Array(diagnostics[mark...])
        diagnostics.removeSubrange(mark...)
        return (slots, notes)
    }

    /// The lowest and highest initializer slot address; `nil` without slots or for a
    /// relocatable object (whose slots are section offsets).
    var initializerSlotRange: ClosedRange<UInt64>? {
        guard type != 1, let lowest = initializerSlots.slots.lazy.map(\.2).min(),
            let highest = initializerSlots.slots.lazy.map(\.2).max()
        else { return nil }
        return lowest...highest
    }

    /// `table.classCounts()`, for a table of this file; the table's entries at initializer
    /// slots are found right after, while its pages are at hand, and kept for
    /// `initializerEntries`, which then reads the table no more.
    public func relocationClassCounts(_ table: ELFRelocationTable) -> RelocationClassCounts {
        guard table.format != .relr, let range = initializerSlotRange else { return table.classCounts() }
        let (counts, entries) = table.classCounts(keepingOffsetsIn: range)
        initializerSlotEntries.append((table.offset, table.entryCount, entries))
        return counts
    }

    private func arraySlots(
        source: InitializerSource, address: UInt64?, size: UInt64?,
        fallbackType: SectionType
    ) -> [(InitializerSource, Int, UInt64, UInt64)] {
        var base = address
        var bytesCount = size
        var reader: ByteReader?
        if let address, let size, size > 0 {
            if size > fileSize {
                note("\(source.rawValue) size larger than the file", value: "\(size)")
                return []
            }
            if let offset = fileOffset(ofAddress: address) { reader = bytes(offset: offset, size: size) }
            if reader == nil { note("\(source.rawValue) outside the file", value: "0x\(String(address, radix: 16))") }
        } else if dynamicEntries.isEmpty, let section = sections.first(where: { $0.type == fallbackType }) {
            base = section.address
            bytesCount = section.size
            reader = bytes(of: section)
        }
        guard let reader, let base, bytesCount != nil else { return [] }
        return (0..<(reader.count / wordSize)).compactMap { index in
            reader.word(at: index * wordSize, is64: is64).map {
                (source, index, base &+ UInt64(index * wordSize), $0)
            }
        }
    }

    /// For a relocatable object (`ET_REL`): the `.init_array` slots (section offsets) and what
    /// the `SHT_RELA`/`SHT_REL` section applying to it (`sh_info`) puts there: the symbol's
    /// section offset plus the addend, named after the symbol, or for a section symbol after
    /// the function at that offset of that section (`_GLOBAL__sub_I_…`). `[:]` without one.
    private func relocatableArrayTargets() -> [UInt64: (UInt64?, String?)] {
        guard let array = sections.first(where: { $0.type == .initArray }) else { return [:] }
        let stored = bytes(of: array)
        var result: [UInt64: (UInt64?, String?)] = [:]
        for section in sections
        where (section.type == .rela || section.type == .rel) && Int(section.info) == array.index {
            let link = Int(section.link)
            guard link > 0, link < sections.count, let data = bytes(of: section) else { continue }
            let symbols = sections[link].type == .symtab ? staticSymbols : symbolTable(sections[link].type)
            guard let symbols else { continue }
            let table = ELFRelocationTable(
                name: section.name, format: section.type == .rela ? .rela : .rel,
                offset: section.offset, data: data, is64: is64, machine: machine)
            // Functions by (section, offset), built once when a relocation names a section symbol.
            var functions: [SectionOffset: String]?
            for index in 0..<table.entryCount {
                guard let relocation = table[index], let symbol = symbols[Int(relocation.symbolIndex)] else { continue }
                var addend = relocation.addend ?? 0
                if relocation.addend == nil, let word = stored?.word(at: Int(clamping: relocation.offset), is64: is64) {
                    addend = Int64(bitPattern: word)
                }
                let target = symbol.value &+ UInt64(bitPattern: addend)
                var name = symbols.name(of: symbol)
                if symbol.kind == .section {
                    if functions == nil { functions = Self.functionsBySectionOffset(symbols) }
                    name = functions?[SectionOffset(section: symbol.sectionIndex, offset: target)]
                }
                result[array.address &+ relocation.offset] = (target, name)
            }
        }
        return result
    }

    /// A place in a relocatable object: section index and offset in it.
    private struct SectionOffset: Hashable {
        var section: UInt16
        var offset: UInt64
    }

    /// The first named function at each (section, offset) of `symbols`.
    private static func functionsBySectionOffset(_ symbols: ELFSymbolTable) -> [SectionOffset: String] {
        var functions: [SectionOffset: String] = [:]
        symbols.forEach { symbol in
            let key = SectionOffset(section: symbol.sectionIndex, offset: symbol.value)
            if symbol.kind == .function, functions[key] == nil, let name = symbols.name(of: symbol), !name.isEmpty {
                functions[key] = name
            }
            return true
        }
        return functions
    }

    /// For each slot address in `slots`: the value its relocation writes (link-time address),
    /// and the symbol for a symbolic relocation. RELR needs no entry: the stored word is the
    /// target.
    private func relocationsAt(_ slots: Set<UInt64>) -> [UInt64: (UInt64?, String?)] {
        guard !slots.isEmpty else { return [:] }
        var result: [UInt64: (UInt64?, String?)] = [:]
        let symbols = dynamicSymbols
        guard let lowest = slots.min(), let highest = slots.max() else { return [:] }
        for table in dynamicRelocationTables where table.format != .relr {
            let found =
                initializerSlotEntries.first { $0.offset == table.offset && $0.count == table.entryCount }?.entries
                ?? table.entryIndices(withOffsetsIn: lowest...highest)
            for index in found {
                guard let relocation = table[index], slots.contains(relocation.offset) else { continue }
                switch machine.relocationClass(relocation.type, symbolIndex: relocation.symbolIndex) {
                case .relative, .irelative:
                    if let addend = relocation.addend {
                        result[relocation.offset] = (UInt64(bitPattern: addend), nil)
                    }
                case .symbolic, .plt:
                    guard let symbols, let symbol = symbols[Int(relocation.symbolIndex)] else { continue }
                    let name = symbols.name(of: symbol)
                    let target = symbol.isDefined ? symbol.value &+ UInt64(bitPattern: relocation.addend ?? 0) : nil
                    result[relocation.offset] = (target, name)
                default:
                    continue
                }
            }
        }
        return result
    }

    /// Names of the function symbols at `addresses`, from `.symtab` first, then `.dynsym`.
    /// Addresses with no symbol are absent from the result. On ARM the Thumb bit is ignored.
    public func symbolNames(at addresses: Set<UInt64>) -> [UInt64: String] {
        var remaining = addresses
        var found: [UInt64: String] = [:]
        let thumb = machine == .arm
        // Both tables are read (and what is wrong with them noted) whatever the addresses.
        let tables = (staticSymbols, dynamicSymbols)
        func scan(_ table: ELFSymbolTable?) {
            guard let table, !remaining.isEmpty else { return }
            // The name's bytes and its rank (lower wins); a `String` only for the winners.
            var candidates: [UInt64: (UnsafeRawBufferPointer, Int)] = [:]
            // A raw scan against the addresses first; only the hits are decoded.
            for index in table.definedIndices(withValuesIn: remaining, clearBit0: thumb) {
                guard let symbol = table[index] else { continue }
                let value = thumb ? symbol.value & ~1 : symbol.value
                let rank: Int
                switch symbol.kind {
                case .function, .gnuIFunc: rank = symbol.binding == .local ? 1 : 0
                case .some(.none): rank = 2
                default: continue
                }
                if let existing = candidates[value], existing.1 <= rank { continue }
                // Offset 0 names nothing ("").
                if symbol.nameOffset != 0, let name = table.nameBytes(of: symbol), name.count > 0 {
                    candidates[value] = (name, rank)
                }
            }
            for (address, candidate) in candidates {
                found[address] = String(decoding: candidate.0, as: UTF8.self)
                remaining.remove(address)
            }
        }
        scan(tables.0)
        scan(tables.1)
        return found
    }
}
