/// One `.dynamic` entry.
public struct ELFDynamicEntry: Sendable, Hashable {
    public var tag: DynamicTag
    public var value: UInt64
}

extension ELFFile {
    /// Reads the dynamic entries and locates the dynamic string table. Called once at open.
    func readDynamic() {
        var reader: ByteReader?
        var sectionLink: Int?
        if let segment = segments.first(where: { $0.type == ELFSegment.dynamic }), segment.fileSize > 0 {
            reader = bytes(offset: segment.offset, size: segment.fileSize)
            if reader == nil { note("PT_DYNAMIC outside the file", offset: segment.offset) }
            sectionLink = sections.first { $0.type == .dynamic && $0.offset == segment.offset }
                .map { Int($0.link) }
        }
        if reader == nil, let section = sections.first(where: { $0.type == .dynamic }) {
            reader = bytes(of: section)
            sectionLink = Int(section.link)
        }
        guard let reader else { return }
        let entrySize = is64 ? 16 : 8
        var entries: [ELFDynamicEntry] = []
        entries.reserveCapacity(reader.count / entrySize)
        var offset = 0
        while offset + entrySize <= reader.count {
            let tag: Int64
            let value: UInt64
            if is64 {
                guard let t = reader.u64(at: offset), let v = reader.u64(at: offset + 8) else { break }
                tag = Int64(bitPattern: t)
                value = v
            } else {
                guard let t = reader.u32(at: offset), let v = reader.u32(at: offset + 4) else { break }
                tag = Int64(Int32(bitPattern: t))
                value = UInt64(v)
            }
            if tag == 0 { break }
            entries.append(ELFDynamicEntry(tag: DynamicTag(rawValue: tag), value: value))
            offset += entrySize
        }
        dynamicEntries = entries
        dynamicStrings = locateDynamicStrings(sectionLink: sectionLink)
    }

    private func locateDynamicStrings(sectionLink: Int?) -> ByteReader? {
        let address = dynamicValue(.strtab)
        let size = dynamicValue(.strSize)
        if let address, let size, size > 0, let offset = fileOffset(ofAddress: address) {
            if let reader = bytes(offset: offset, size: size) { return reader }
            note("DT_STRTAB outside the file", offset: offset, value: "size \(size)")
        }
        if let sectionLink, sectionLink > 0, sectionLink < sections.count {
            return bytes(of: sections[sectionLink])
        }
        if address != nil { note("DT_STRTAB does not map to the file") }
        return nil
    }

    /// The value of the first entry with `tag`, or `nil` when there is none.
    public func dynamicValue(_ tag: DynamicTag) -> UInt64? {
        dynamicEntries.first { $0.tag == tag }?.value
    }

    /// The string at `offset` in the dynamic string table, or `nil` when it is outside it; its
    /// bytes kept as they are (`LosslessUTF8`): ld.so compares and opens these names as bytes.
    public func dynamicString(at offset: UInt64) -> String? {
        guard let strings = dynamicStrings, let index = Int(exactly: offset) else { return nil }
        return strings.losslessString(at: index)
    }

    func dynamicStrings(_ tag: DynamicTag) -> [String] {
        dynamicEntries.filter { $0.tag == tag }.compactMap { entry in
            let text = dynamicString(at: entry.value)
            if text == nil { note("\(tag) string offset outside DT_STRTAB", value: "\(entry.value)") }
            return text
        }
    }

    /// `DT_SONAME`, or `nil`.
    public var soname: String? { dynamicStrings(.soname).first }

    /// `DT_RPATH` split at colons; `[]` when absent.
    public var rpath: [String] { dynamicStrings(.rpath).flatMap(Self.splitSearchPath) }

    /// `DT_RUNPATH` split at colons; `[]` when absent.
    public var runpath: [String] { dynamicStrings(.runpath).flatMap(Self.splitSearchPath) }

    /// `true` when the file has a `DT_RUNPATH` entry (which disables its `DT_RPATH`).
    public var hasRunpath: Bool { dynamicEntries.contains { $0.tag == .runpath } }

    static func splitSearchPath(_ text: String) -> [String] {
        text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    }

    /// `DT_FLAGS`, or 0.
    public var dynamicFlags: UInt64 { dynamicValue(.flags) ?? 0 }
    /// `DT_FLAGS_1`, or 0.
    public var dynamicFlags1: UInt64 { dynamicValue(.flags1) ?? 0 }

    /// Immediate binding: `DT_BIND_NOW`, `DF_BIND_NOW` or `DF_1_NOW`.
    public var bindNow: Bool {
        dynamicValue(.bindNow) != nil || dynamicFlags & 0x8 != 0 || dynamicFlags1 & 0x1 != 0
    }

    /// Relocations against read-only text: `DT_TEXTREL` or `DF_TEXTREL`.
    public var textRel: Bool { dynamicValue(.textRel) != nil || dynamicFlags & 0x4 != 0 }

    /// `DF_1_NODEFLIB`: the loader must not search the default directories for this object's
    /// dependencies.
    public var noDefaultLib: Bool { dynamicFlags1 & 0x800 != 0 }

    public var hasGNUHash: Bool { dynamicValue(.gnuHash) != nil }
    public var hasSysVHash: Bool { dynamicValue(.hash) != nil }
    /// `DT_VERSYM`, `DT_VERNEED` or `DT_VERDEF` present.
    public var hasSymbolVersioning: Bool {
        dynamicValue(.versym) != nil || dynamicValue(.verneed) != nil || dynamicValue(.verdef) != nil
    }
}
