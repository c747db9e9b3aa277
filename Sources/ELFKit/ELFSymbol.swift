#if canImport(Glibc)
    import Glibc
#endif

/// One symbol table entry, decoded. The name is resolved through its `ELFSymbolTable`.
public struct ELFSymbol: Sendable, Hashable {
    public var index: Int
    public var nameOffset: UInt32
    public var value: UInt64
    public var size: UInt64
    public var info: UInt8
    public var other: UInt8
    public var sectionIndex: UInt16

    public enum Binding: UInt8, Sendable { case local = 0, global = 1, weak = 2, gnuUnique = 10 }
    public enum Kind: UInt8, Sendable {
        case none = 0, object = 1, function = 2, section = 3, file = 4, common = 5, tls = 6
        case gnuIFunc = 10
    }

    /// `STB_*`; `nil` for values this reader does not name.
    public var binding: Binding? { Binding(rawValue: info >> 4) }
    /// `STT_*`; `nil` for values this reader does not name.
    public var kind: Kind? { Kind(rawValue: info & 0xf) }
    /// `STV_*`: 0 default, 1 internal, 2 hidden, 3 protected.
    public var visibility: UInt8 { other & 0x3 }
    /// Defined here: `st_shndx` is not `SHN_UNDEF`.
    public var isDefined: Bool { sectionIndex != 0 }
}

/// A `SHT_SYMTAB` or `SHT_DYNSYM` section with its string table.
public struct ELFSymbolTable {
    public let section: ELFSection
    let entries: ByteReader
    let strings: ByteReader?
    let is64: Bool
    /// Number of entries, including the null entry at index 0.
    public let count: Int

    var entrySize: Int { is64 ? 24 : 16 }

    /// The entry at `index`, or `nil` when it is outside the table.
    public subscript(index: Int) -> ELFSymbol? {
        guard index >= 0, index < count else { return nil }
        let base = index * entrySize
        // Fast path: one bounds check for the whole entry, then unaligned loads.
        if let start = entries.bytes.baseAddress, base + entrySize <= entries.count {
            let at = start + base
            let swap = entries.bigEndian
            func fix<T: FixedWidthInteger>(_ value: T) -> T { swap ? value.byteSwapped : value }
            if is64 {
                return ELFSymbol(
                    index: index, nameOffset: fix(at.loadUnaligned(as: UInt32.self)),
                    value: fix((at + 8).loadUnaligned(as: UInt64.self)),
                    size: fix((at + 16).loadUnaligned(as: UInt64.self)),
                    info: at.load(fromByteOffset: 4, as: UInt8.self),
                    other: at.load(fromByteOffset: 5, as: UInt8.self),
                    sectionIndex: fix((at + 6).loadUnaligned(as: UInt16.self)))
            }
            return ELFSymbol(
                index: index, nameOffset: fix(at.loadUnaligned(as: UInt32.self)),
                value: UInt64(fix((at + 4).loadUnaligned(as: UInt32.self))),
                size: UInt64(fix((at + 8).loadUnaligned(as: UInt32.self))),
                info: at.load(fromByteOffset: 12, as: UInt8.self),
                other: at.load(fromByteOffset: 13, as: UInt8.self),
                sectionIndex: fix((at + 14).loadUnaligned(as: UInt16.self)))
        }
        if is64 {
            guard let name = entries.u32(at: base), let info = entries.u8(at: base + 4),
                let other = entries.u8(at: base + 5), let shndx = entries.u16(at: base + 6),
                let value = entries.u64(at: base + 8), let size = entries.u64(at: base + 16)
            else { return nil }
            return ELFSymbol(
                index: index, nameOffset: name, value: value, size: size, info: info,
                other: other, sectionIndex: shndx)
        }
        guard let name = entries.u32(at: base), let value = entries.u32(at: base + 4),
            let size = entries.u32(at: base + 8), let info = entries.u8(at: base + 12),
            let other = entries.u8(at: base + 13), let shndx = entries.u16(at: base + 14)
        else { return nil }
        return ELFSymbol(
            index: index, nameOffset: name, value: UInt64(value), size: UInt64(size),
            info: info, other: other, sectionIndex: shndx)
    }

    /// The symbol's name, `""` for offset 0, or `nil` when the offset is outside the string
    /// table or the string is not terminated inside it.
    public func name(of symbol: ELFSymbol) -> String? {
        if symbol.nameOffset == 0 { return "" }
        return strings?.cString(at: Int(symbol.nameOffset))
    }

    /// The symbol's name as bytes without the NUL, or `nil` as for `name(of:)`. Valid while
    /// the `ELFFile` lives; lets scans test prefixes without building strings.
    public func nameBytes(of symbol: ELFSymbol) -> UnsafeRawBufferPointer? {
        nameBytes(atOffset: symbol.nameOffset)
    }

    /// `nameBytes(of: self[index])`, reading only the entry's `st_name`: for scans that test
    /// the names of many hits before decoding the few they keep. `nil` when the entry (as
    /// `self[index]` reads it) or its name is not there.
    public func nameBytes(ofEntry index: Int) -> UnsafeRawBufferPointer? {
        guard index >= 0, index < count, let start = entries.bytes.baseAddress else { return nil }
        let base = index * entrySize
        guard base + (is64 ? 24 : 16) <= entries.count else { return nil }
        var offset = (start + base).loadUnaligned(as: UInt32.self)
        if entries.bigEndian { offset = offset.byteSwapped }
        return nameBytes(atOffset: offset)
    }

    /// Byte `index` of the symbol's name, or `nil` outside the string table. Lets a scan reject
    /// names by their first bytes without finding where they end.
    public func nameByte(of symbol: ELFSymbol, at index: Int) -> UInt8? {
        strings?.u8(at: Int(symbol.nameOffset) + index)
    }

    /// Indices of the defined entries (`st_shndx` not `SHN_UNDEF`) whose `st_value` (with bit 0
    /// cleared when `clearBit0`, ARM's Thumb bit) is one of `values` (sorted ascending): a scan
    /// that reads two fields per entry, tests the range first and then looks the value up in an
    /// `AddressSet`, and decodes nothing. `[]` for an empty table or no values.
    public func definedIndices(withValuesIn values: [UInt64], clearBit0: Bool = false) -> [Int] {
        guard let lowest = values.first, let highest = values.last else { return [] }
        return definedIndices(withValuesIn: values, lowest: lowest, highest: highest, clearBit0: clearBit0)
    }

    /// `definedIndices(withValuesIn: values.sorted(), clearBit0:)`, without sorting them.
    public func definedIndices(withValuesIn values: Set<UInt64>, clearBit0: Bool = false) -> [Int] {
        guard let lowest = values.min(), let highest = values.max() else { return [] }
        return definedIndices(withValuesIn: values, lowest: lowest, highest: highest, clearBit0: clearBit0)
    }

    private func definedIndices<Values: Collection<UInt64>>(
        withValuesIn values: Values, lowest: UInt64, highest: UInt64, clearBit0: Bool
    ) -> [Int] {
        var hits: [Int] = []
        guard let base = entries.bytes.baseAddress, count * entrySize <= entries.count, count > 1 else { return hits }
        let swap = entries.bigEndian
        let mask: UInt64 = clearBit0 ? ~1 : ~0
        let span = highest &- lowest
        let wanted = AddressSet(values)
        if is64, !swap {
            // The common case (64-bit little-endian): one load and one subtraction per entry for
            // the range, then one bit of the set's filter for nearly every value in it;
            // `st_shndx` (an undefined entry's value is 0, nearly always out of range) and the
            // set's slots only for the few that pass.
            wanted.withFilter { words, shift in
                var at = base + 24
                let end = base + count * 24
                while at < end {
                    let value = (at + 8).loadUnaligned(as: UInt64.self) & mask
                    if value &- lowest <= span {
                        let hash = value &* AddressSet.multiplier
                        if words[Int(truncatingIfNeeded: hash &>> shift)] & (1 &<< ((hash &>> 50) & 63)) != 0,
                            (at + 6).loadUnaligned(as: UInt16.self) != 0, wanted.contains(value)
                        {
                            hits.append(base.distance(to: at) / 24)
                        }
                    }
                    at += 24
                }
            }
            return hits
        }
        let (valueAt, shndxAt) = is64 ? (8, 6) : (4, 14)
        for index in 1..<count {
            let at = base + index * entrySize
            var shndx = (at + shndxAt).loadUnaligned(as: UInt16.self)
            if swap { shndx = shndx.byteSwapped }
            guard shndx != 0 else { continue }
            var value: UInt64
            if is64 {
                value = (at + valueAt).loadUnaligned(as: UInt64.self)
                if swap { value = value.byteSwapped }
            } else {
                var word = (at + valueAt).loadUnaligned(as: UInt32.self)
                if swap { word = word.byteSwapped }
                value = UInt64(word)
            }
            value &= mask
            guard value &- lowest <= span, wanted.contains(value) else { continue }
            hits.append(index)
        }
        return hits
    }

    /// Indices of the undefined entries (`st_shndx` `SHN_UNDEF`, index 0 left out) that bind
    /// GLOBAL or WEAK: a program's imports, in a raw scan that decodes nothing else.
    public func undefinedGlobalIndices() -> [Int] {
        var hits: [Int] = []
        forEachUndefinedGlobal { index in
            hits.append(index)
            return true
        }
        return hits
    }

    /// Calls `body` with each index `undefinedGlobalIndices()` lists, in order, until `body`
    /// returns `false`: a binder that is done after a few imports scans no further.
    public func forEachUndefinedGlobal(_ body: (Int) -> Bool) {
        guard let base = entries.bytes.baseAddress, entrySize > 0 else { return }
        let swap = entries.bigEndian
        let (infoAt, shndxAt) = is64 ? (4, 6) : (12, 14)
        // Entries past the end of the bytes are not there (as `forEach` stops at them).
        let usable = min(count, entries.count / entrySize)
        if !swap, usable > 1 {
            // Little-endian: `st_info`, `st_other` and `st_shndx` in one load.
            var at = base + entrySize + infoAt
            for index in 1..<usable {
                let fields = at.loadUnaligned(as: UInt32.self)
                at += entrySize
                let binding = (fields >> 4) & 0xf
                if fields >> 16 == 0, binding == 1 || binding == 2, !body(index) { return }
            }
            return
        }
        for index in 1..<max(usable, 1) {
            let at = base + index * entrySize
            var shndx = (at + shndxAt).loadUnaligned(as: UInt16.self)
            if swap { shndx = shndx.byteSwapped }
            let binding = at.load(fromByteOffset: infoAt, as: UInt8.self) >> 4
            if shndx == 0, binding == 1 || binding == 2, !body(index) { return }
        }
    }

    /// How many entries (index 0 left out) are imported and how many exported, by `st_type`
    /// (indices 0...15): imported is undefined (`SHN_UNDEF`); exported is defined, GLOBAL, WEAK
    /// or GNU_UNIQUE, of default or protected visibility, and neither SECTION nor FILE. A raw
    /// scan of three fields per entry that decodes nothing else.
    public func importExportCounts() -> (imported: [Int], exported: [Int]) {
        var imported = [Int](repeating: 0, count: 16)
        var exported = [Int](repeating: 0, count: 16)
        guard let base = entries.bytes.baseAddress, entrySize > 0 else { return (imported, exported) }
        let swap = entries.bigEndian
        let (infoAt, otherAt, shndxAt) = is64 ? (4, 5, 6) : (12, 13, 14)
        let usable = min(count, entries.count / entrySize)
        if !swap, usable > 1 {
            // Little-endian: the three fields in one load, counted into buffers without checks.
            imported.withUnsafeMutableBufferPointer { imported in
                exported.withUnsafeMutableBufferPointer { exported in
                    var at = base + entrySize + infoAt
                    for _ in 1..<usable {
                        let fields = at.loadUnaligned(as: UInt32.self)  // st_info, st_other, st_shndx
                        at += entrySize
                        let kind = Int(fields & 0xf)
                        if fields >> 16 == 0 {
                            imported[kind] &+= 1
                            continue
                        }
                        let binding = (fields >> 4) & 0xf
                        let visibility = (fields >> 8) & 0x3
                        guard binding == 1 || binding == 2 || binding == 10, visibility == 0 || visibility == 3,
                            kind != 3, kind != 4
                        else { continue }
                        exported[kind] &+= 1
                    }
                }
            }
            return (imported, exported)
        }
        for index in 1..<max(usable, 1) {
            let at = base + index * entrySize
            var shndx = (at + shndxAt).loadUnaligned(as: UInt16.self)
            if swap { shndx = shndx.byteSwapped }
            let info = at.load(fromByteOffset: infoAt, as: UInt8.self)
            let kind = Int(info & 0xf)
            if shndx == 0 {
                imported[kind] += 1
                continue
            }
            let binding = info >> 4
            let visibility = at.load(fromByteOffset: otherAt, as: UInt8.self) & 0x3
            guard binding == 1 || binding == 2 || binding == 10, visibility == 0 || visibility == 3,
                kind != 3, kind != 4
            else { continue }
            exported[kind] += 1
        }
        return (imported, exported)
    }

    /// A set of addresses for a scan of a whole symbol table: open addressing with a
    /// multiplicative hash, a few instructions per miss where a binary search over hundreds of
    /// initializer addresses took a dozen unpredictable branches.
    struct AddressSet {
        static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        private var slots: [UInt64]
        private let shift: UInt64
        /// `UInt64.max` marks an empty slot; it is kept apart in case it is wanted itself.
        private let hasMax: Bool

        /// 64 bits per value (2 to 256 words, a power of two), one set for each value: the
        /// word by the top bits of its hash (`filterShift`), the bit by bits 50...55. Rejects
        /// nearly every address with one load, before the slots are probed.
        private var filter: [UInt64]
        private let filterShift: UInt64

        init<Values: Collection<UInt64>>(_ values: Values) {
            var bits: UInt64 = 4
            while (1 << bits) < values.count * 2 { bits += 1 }
            slots = [UInt64](repeating: .max, count: 1 << bits)
            shift = 64 - bits
            hasMax = values.contains(.max)
            var filterBits: UInt64 = 1
            while filterBits < 8, (1 << filterBits) < values.count { filterBits += 1 }
            filter = [UInt64](repeating: 0, count: 1 << filterBits)
            filterShift = 64 - filterBits
            let last = slots.count - 1
            for value in values {
                let hash = value &* Self.multiplier
                filter[Int(truncatingIfNeeded: hash >> filterShift)] |= 1 << ((hash >> 50) & 63)
                guard value != .max else { continue }
                var slot = Int(truncatingIfNeeded: hash >> shift)
                while slots[slot] != .max && slots[slot] != value { slot = (slot + 1) & last }
                slots[slot] = value
            }
        }

        /// Calls `body` with the filter's words and the shift that picks a hash's word, for
        /// scans that test the filter inline.
        @inline(__always)
        func withFilter(_ body: (UnsafeBufferPointer<UInt64>, UInt64) -> Void) {
            filter.withUnsafeBufferPointer { body($0, filterShift) }
        }

        @inline(__always)
        func contains(_ value: UInt64) -> Bool {
            let hash = value &* Self.multiplier
            let word = filter.withUnsafeBufferPointer { $0[Int(truncatingIfNeeded: hash >> filterShift)] }
            guard word & (1 << ((hash >> 50) & 63)) != 0 else { return false }
            if value == .max { return hasMax }
            let last = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash >> shift)
            while true {
                let stored = slots[slot]
                if stored == value { return true }
                if stored == .max { return false }
                slot = (slot + 1) & last
            }
        }
    }

    /// Indices of the defined functions (`STT_FUNC`) whose names start with one of `prefixes`:
    /// a scan that reads `st_info`, `st_shndx` and the first bytes of each name, without
    /// building strings. `[]` without a string table. `within`: only these indices (all when
    /// `nil`).
    public func definedFunctionIndices(namePrefixes prefixes: [[UInt8]], within range: Range<Int>? = nil) -> [Int] {
        var hits: [Int] = []
        guard let base = entries.bytes.baseAddress, count * entrySize <= entries.count,
            let strings, let names = strings.bytes.baseAddress
        else { return hits }
        let swap = entries.bigEndian
        let (infoAt, shndxAt) = is64 ? (4, 6) : (12, 14)
        let stringCount = strings.count
        // The first two bytes that can start a match: nearly every name is rejected by one
        // table look-up (C++ names all start "_Z"); the rest are compared with memcmp against
        // the prefixes laid end to end.
        // Indexed by the first byte plus 256 times the second: the two bytes as one
        // little-endian load.
        var first = [Bool](repeating: false, count: 65536)
        for prefix in prefixes {
            guard let byte = prefix.first else { continue }
            if prefix.count == 1 {
                for second in 0..<256 { first[Int(byte) | second << 8] = true }
            } else {
                first[Int(byte) | Int(prefix[1]) << 8] = true
            }
        }
        let flat = prefixes.flatMap { $0 }
        let lengths = prefixes.map(\.count)
        flat.withUnsafeBytes { flatBytes in
            first.withUnsafeBufferPointer { first in
                guard let prefixBase = flatBytes.baseAddress, let first = first.baseAddress else { return }
                let all = 1..<max(count, 1)
                let scanned = range?.clamped(to: all) ?? all
                func matches(_ start: Int) -> Bool {
                    var position = 0
                    for length in lengths {
                        if start + length <= stringCount, memcmp(names + start, prefixBase + position, length) == 0 {
                            return true
                        }
                        position += length
                    }
                    return false
                }
                if is64, !swap, stringCount > 1 {
                    // The common case (64-bit little-endian): `st_info` first, then the name's
                    // first two bytes in one load; names starting at the last byte go the
                    // general way.
                    // The name's first bytes before the entry's fields: nearly every name is
                    // rejected there, so `st_info`, `st_other` and `st_shndx` (in one load) are
                    // read for the few that pass.
                    var at = base + scanned.lowerBound * 24
                    let end = base + scanned.upperBound * 24
                    while at < end {
                        defer { at += 24 }
                        let start = Int(at.loadUnaligned(as: UInt32.self))
                        let pair: Int
                        if start + 1 < stringCount {
                            pair = Int(UInt16(littleEndian: (names + start).loadUnaligned(as: UInt16.self)))
                        } else if start < stringCount {
                            pair = Int(names.load(fromByteOffset: start, as: UInt8.self))
                        } else {
                            continue
                        }
                        guard first[pair] else { continue }
                        let fields = (at + 4).loadUnaligned(as: UInt32.self)
                        if fields & 0xf == UInt32(ELFSymbol.Kind.function.rawValue), fields >> 16 != 0, matches(start) {
                            hits.append(base.distance(to: at) / 24)
                        }
                    }
                    return
                }
                for index in scanned {
                    let at = base + index * entrySize
                    guard at.load(fromByteOffset: infoAt, as: UInt8.self) & 0xf == ELFSymbol.Kind.function.rawValue
                    else { continue }
                    var shndx = (at + shndxAt).loadUnaligned(as: UInt16.self)
                    var offset = at.loadUnaligned(as: UInt32.self)
                    if swap {
                        shndx = shndx.byteSwapped
                        offset = offset.byteSwapped
                    }
                    let start = Int(offset)
                    guard shndx != 0, start < stringCount else { continue }
                    let second =
                        start + 1 < stringCount ? Int(names.load(fromByteOffset: start + 1, as: UInt8.self)) : 0
                    guard first[Int(names.load(fromByteOffset: start, as: UInt8.self)) | second << 8] else { continue }
                    if matches(start) { hits.append(index) }
                }
            }
        }
        return hits
    }

    /// `st_name` and whether the entry is defined, for name look-ups that need no more.
    @inline(__always)
    func nameOffsetIfDefined(_ index: Int) -> UInt32? {
        guard index > 0, index < count, let base = entries.bytes.baseAddress,
            (index + 1) * entrySize <= entries.count
        else { return nil }
        let at = base + index * entrySize
        var shndx = (at + (is64 ? 6 : 14)).loadUnaligned(as: UInt16.self)
        var offset = at.loadUnaligned(as: UInt32.self)
        if entries.bigEndian {
            shndx = shndx.byteSwapped
            offset = offset.byteSwapped
        }
        return shndx == 0 ? nil : offset
    }

    /// The name at string-table offset `offset` as bytes without the NUL, or `nil` outside the
    /// table or unterminated.
    func nameBytes(atOffset offset: UInt32) -> UnsafeRawBufferPointer? {
        guard let strings, let base = strings.bytes.baseAddress else { return nil }
        let start = Int(offset)
        guard start < strings.count, let end = memchr(base + start, 0, strings.count - start) else { return nil }
        return UnsafeRawBufferPointer(start: base + start, count: base.distance(to: UnsafeRawPointer(end)) - start)
    }

    /// Calls `body` for every entry in order, stopping early when it returns `false`.
    public func forEach(_ body: (ELFSymbol) -> Bool) {
        for index in 0..<count {
            guard let symbol = self[index], body(symbol) else { return }
        }
    }
}

extension ELFFile {
    /// The first table of `type` (`.symtab` or `.dynsym`), or `nil` when the file has none or
    /// it is broken (then with a diagnostic). The dynamic symbols are read as the loader reads
    /// them: where `DT_SYMTAB` points (the `.dynsym` section header only when it agrees, else
    /// the length comes from the hash table) with names from `DT_STRTAB`.
    public func symbolTable(_ type: SectionType) -> ELFSymbolTable? {
        let tagged = type == .dynsym ? dynamicValue(.symtab) : nil
        guard let section = sections.first(where: { $0.type == type }), tagged == nil || section.address == tagged
        else {
            return tagged == nil ? nil : taggedSymbolTable()
        }
        let entrySize = is64 ? 24 : 16
        guard let entries = bytes(of: section) else { return nil }
        if section.size % UInt64(entrySize) != 0 {
            note("\(section.name) size is not a multiple of the symbol size", value: "\(section.size)")
        }
        var strings: ByteReader?
        let link = Int(section.link)
        if type == .dynsym, let dynamicStrings {
            strings = dynamicStrings
        } else if link > 0, link < sections.count {
            strings = bytes(of: sections[link])
        }
        if strings == nil { note("\(section.name) has no usable string table", value: "sh_link \(link)") }
        return ELFSymbolTable(
            section: section, entries: entries, strings: strings, is64: is64,
            count: entries.count / entrySize)
    }
}
