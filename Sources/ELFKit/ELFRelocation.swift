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
    public enum Format: String, Sendable { case rel, rela, relr }

    /// Section name, or the dynamic tag's name for tables found through `.dynamic`.
    public let name: String
    public let format: Format
    /// File offset of the table.
    public let offset: UInt64
    let data: ByteReader
    let is64: Bool

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
            return ELFRelocation(offset: offset, type: UInt32(truncatingIfNeeded: info),
                                 symbolIndex: UInt32(truncatingIfNeeded: info >> 32), addend: addend)
        }
        guard let offset = data.u32(at: base), let info = data.u32(at: base + 4) else { return nil }
        var addend: Int64?
        if format == .rela {
            guard let raw = data.u32(at: base + 8) else { return nil }
            addend = Int64(Int32(bitPattern: raw))
        }
        return ELFRelocation(offset: UInt64(offset), type: info & 0xff, symbolIndex: info >> 8,
                             addend: addend)
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
                body(offset, UInt32(truncatingIfNeeded: info), UInt32(truncatingIfNeeded: info >> 32), index)
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
    /// Reads `dynamicRelocationTables`.
    func readDynamicRelocationTables() -> [ELFRelocationTable] {
        if !sections.isEmpty {
            return sections.compactMap { section -> ELFRelocationTable? in
                let format: ELFRelocationTable.Format
                switch section.type {
                case .rel: format = .rel
                case .rela: format = .rela
                case .relr: format = .relr
                default: return nil
                }
                guard section.isAllocated, let data = bytes(of: section) else { return nil }
                let table = ELFRelocationTable(name: section.name, format: format, offset: section.offset,
                                               data: data, is64: is64)
                if section.size % UInt64(table.entrySize) != 0 {
                    note("\(section.name) size is not a multiple of its entry size", value: "\(section.size)")
                }
                return table
            }
        }
        var tables: [ELFRelocationTable] = []
        let pltFormat: ELFRelocationTable.Format = dynamicValue(.pltRel) == 7 ? .rela : .rel
        let ranges: [(DynamicTag, DynamicTag, ELFRelocationTable.Format)] = [
            (.rela, .relaSize, .rela), (.rel, .relSize, .rel), (.relr, .relrSize, .relr),
            (.jmpRel, .pltRelSize, pltFormat),
        ]
        for (addressTag, sizeTag, format) in ranges {
            guard let address = dynamicValue(addressTag), let size = dynamicValue(sizeTag), size > 0 else { continue }
            guard let offset = fileOffset(ofAddress: address), let data = bytes(offset: offset, size: size) else {
                note("\(addressTag) range outside the file", value: "0x\(String(address, radix: 16))")
                continue
            }
            tables.append(ELFRelocationTable(name: addressTag.description, format: format, offset: offset,
                                             data: data, is64: is64))
        }
        return tables
    }
}
