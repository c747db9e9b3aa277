/// The version a dynamic symbol is bound to or defines.
public struct ELFSymbolVersion: Sendable, Hashable {
    /// Version name, e.g. "GLIBC_2.34".
    public var name: String
    /// For a required version (`SHT_GNU_verneed`): the library expected to define it.
    public var library: String?
    /// `true` for a hidden (non-default) definition, `foo@VER` rather than `foo@@VER`.
    public var hidden: Bool
}

/// Version information for `.dynsym`: `SHT_GNU_versym` resolved through verneed and verdef.
public struct ELFSymbolVersions: Sendable {
    /// The `SHT_GNU_versym` words, indexed like `.dynsym` (bit 15: hidden).
    let raw: [UInt16]
    /// The versions that verneed and verdef name, indexed by version index (`vna_other`,
    /// `vd_ndx`, at most 0x7fff): an array, as look-ups happen once per import in binding.
    let byIndex: [ELFSymbolVersion?]
    /// Versions this object defines (`SHT_GNU_verdef`), excluding the file's own base entry.
    public var defined: [String]
    /// The versions `SHT_GNU_verneed` requires, in its order, with the library of each.
    let requirements: [(library: String, version: String)]

    /// Libraries named by `SHT_GNU_verneed`, with the versions required of each (made on
    /// request: symbol binding never asks).
    public var required: [String: [String]] {
        var byLibrary: [String: [String]] = [:]
        for requirement in requirements { byLibrary[requirement.library, default: []].append(requirement.version) }
        return byLibrary
    }

    /// Indexed like `.dynsym`; `nil` for local/global (index 0 or 1) or unknown entries.
    public var versions: [ELFSymbolVersion?] { raw.indices.map { self[$0] } }

    /// The version of `.dynsym` entry `symbolIndex`; `nil` for local/global (index 0 or 1),
    /// unknown entries and indices outside the table.
    public subscript(symbolIndex: Int) -> ELFSymbolVersion? {
        guard symbolIndex >= 0 && symbolIndex < raw.count else { return nil }
        let word = raw[symbolIndex]
        let key = Int(word & 0x7fff)
        guard key > 1, key < byIndex.count, var version = byIndex[key] else { return nil }
        version.hidden = word & 0x8000 != 0
        return version
    }

    /// `true` when `symbolIndex` has a version entry of its own (index above 1 that verneed or
    /// verdef names): what `self[symbolIndex] != nil` says, without building the value.
    public func hasVersion(_ symbolIndex: Int) -> Bool {
        guard symbolIndex >= 0 && symbolIndex < raw.count else { return false }
        let key = Int(raw[symbolIndex] & 0x7fff)
        return key > 1 && key < byIndex.count && byIndex[key] != nil
    }
}

extension ELFFile {
    /// Reads `symbolVersions`.
    func readSymbolVersions() -> ELFSymbolVersions? {
        guard let versymSection = sections.first(where: { $0.type == .gnuVersym }),
            let versym = bytes(of: versymSection)
        else { return nil }
        var byIndex: [ELFSymbolVersion?] = []
        byIndex.reserveCapacity(16)
        func record(_ version: ELFSymbolVersion, at index: UInt16) {
            let key = Int(index & 0x7fff)
            // One slot at a time (indices come nearly in order): no array made per version.
            while key >= byIndex.count { byIndex.append(nil) }
            byIndex[key] = version
        }
        var defined: [String] = []
        var requirements: [(library: String, version: String)] = []
        if let section = sections.first(where: { $0.type == .gnuVerneed }), let data = bytes(of: section) {
            let strings = stringTable(linkedFrom: section)
            var offset = 0
            var remaining = min(Int(section.info == 0 ? 4096 : section.info), data.count / 16)
            while remaining > 0 {
                remaining -= 1
                guard let count = data.u16(at: offset + 2), let file = data.u32(at: offset + 4),
                    let aux = data.u32(at: offset + 8), let next = data.u32(at: offset + 12)
                else {
                    note("broken SHT_GNU_verneed entry", offset: section.offset + UInt64(offset))
                    break
                }
                let library = strings?.losslessString(at: Int(file))  // a DT_NEEDED name
                var auxOffset = offset + Int(aux)
                for _ in 0..<min(Int(count), data.count / 16) {
                    guard let other = data.u16(at: auxOffset + 6), let name = data.u32(at: auxOffset + 8),
                        let auxNext = data.u32(at: auxOffset + 12)
                    else {
                        note("broken SHT_GNU_verneed auxiliary entry", offset: section.offset + UInt64(auxOffset))
                        break
                    }
                    if let versionName = strings?.cString(at: Int(name)) {
                        record(ELFSymbolVersion(name: versionName, library: library, hidden: false), at: other)
                        if let library { requirements.append((library, versionName)) }
                    }
                    if auxNext == 0 { break }
                    auxOffset += Int(auxNext)
                }
                if next == 0 { break }
                offset += Int(next)
            }
        }
        if let section = sections.first(where: { $0.type == .gnuVerdef }), let data = bytes(of: section) {
            let strings = stringTable(linkedFrom: section)
            var offset = 0
            var remaining = min(Int(section.info == 0 ? 4096 : section.info), data.count / 20)
            while remaining > 0 {
                remaining -= 1
                guard let flags = data.u16(at: offset + 2), let index = data.u16(at: offset + 4),
                    let aux = data.u32(at: offset + 12), let next = data.u32(at: offset + 16),
                    let name = data.u32(at: offset + Int(aux))
                else {
                    note("broken SHT_GNU_verdef entry", offset: section.offset + UInt64(offset))
                    break
                }
                if let versionName = strings?.cString(at: Int(name)) {
                    record(ELFSymbolVersion(name: versionName, library: nil, hidden: false), at: index)
                    if flags & 0x1 == 0 { defined.append(versionName) }  // VER_FLG_BASE names the file
                }
                if next == 0 { break }
                offset += Int(next)
            }
        }
        let count = versym.count / 2
        // One copy of the words, then the byte order fixed in place.
        let raw = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0, let source = versym.bytes.baseAddress {
                UnsafeMutableRawBufferPointer(buffer).copyMemory(
                    from: UnsafeRawBufferPointer(start: source, count: count * 2))
                let bigEndian = versym.bigEndian
                for index in 0..<count {
                    buffer[index] = bigEndian ? UInt16(bigEndian: buffer[index]) : UInt16(littleEndian: buffer[index])
                }
            }
            initialized = count
        }
        return ELFSymbolVersions(raw: raw, byIndex: byIndex, defined: defined, requirements: requirements)
    }

    func stringTable(linkedFrom section: ELFSection) -> ByteReader? {
        let link = Int(section.link)
        // The loader reads version names from DT_STRTAB, whatever sh_link says.
        guard link > 0, link < sections.count else { return dynamicStrings }
        return dynamicStrings ?? bytes(of: sections[link])
    }
}
