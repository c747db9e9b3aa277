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
        var defined: [String] = []
        var requirements: [(library: String, version: String)] = []
        forEachVersionEntry(broken: { message, offset in note(message, offset: offset) }) { entry in
            guard let versionName = entry.strings?.cString(at: entry.name) else { return }
            let library = entry.library.flatMap { entry.strings?.losslessString(at: $0) }  // a DT_NEEDED name
            let key = Int(entry.index & 0x7fff)
            // One slot at a time (indices come nearly in order): no array made per version.
            while key >= byIndex.count { byIndex.append(nil) }
            byIndex[key] = ELFSymbolVersion(name: versionName, library: library, hidden: false)
            if entry.isDefinition {
                if entry.flags & 0x1 == 0 { defined.append(versionName) }  // VER_FLG_BASE names the file
            } else if let library {
                requirements.append((library, versionName))
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

    /// The name of the version `.dynsym` entry `symbolIndex` is bound to or defines: the name
    /// of `symbolVersions?[symbolIndex]`, found by reading that one `SHT_GNU_versym` word and
    /// the verneed and verdef entries of its index, without building the whole table (a binder
    /// asks this of a few imports of each program). `nil` when `symbolVersions` has none.
    public func symbolVersionName(_ symbolIndex: Int) -> String? {
        guard let versymSection = sections.first(where: { $0.type == .gnuVersym }),
            let versym = bytes(of: versymSection)
        else { return nil }
        guard symbolIndex >= 0, symbolIndex < versym.count / 2, let word = versym.u16(at: symbolIndex * 2) else {
            return nil
        }
        let key = word & 0x7fff
        guard key > 1 else { return nil }
        var name: String?
        var sound = true
        // The table keeps the last entry of an index (verneed first, then verdef).
        forEachVersionEntry(broken: { _, _ in sound = false }) { entry in
            if entry.index & 0x7fff == key, let found = entry.strings?.cString(at: entry.name) { name = found }
        }
        // A broken table: the whole table read as before, with its diagnostics.
        return sound ? name : symbolVersions?[symbolIndex]?.name
    }

    /// One `SHT_GNU_verneed` auxiliary entry or `SHT_GNU_verdef` entry: its version index, the
    /// offsets of its name (and, for verneed, of its library) in `strings`.
    struct VersionEntry {
        var index: UInt16
        var name: Int
        var library: Int?
        var flags: UInt16
        var isDefinition: Bool
        var strings: ByteReader?
    }

    /// Calls `body` with each verneed auxiliary entry, then each verdef entry, in file order;
    /// a broken entry ends its section's walk after `broken` hears of it.
    func forEachVersionEntry(broken: (String, UInt64) -> Void, _ body: (VersionEntry) -> Void) {
        if let section = sections.first(where: { $0.type == .gnuVerneed }), let data = bytes(of: section) {
            let strings = stringTable(linkedFrom: section)
            var offset = 0
            var remaining = min(Int(section.info == 0 ? 4096 : section.info), data.count / 16)
            while remaining > 0 {
                remaining -= 1
                guard let count = data.u16(at: offset + 2), let file = data.u32(at: offset + 4),
                    let aux = data.u32(at: offset + 8), let next = data.u32(at: offset + 12)
                else {
                    broken("broken SHT_GNU_verneed entry", section.offset + UInt64(offset))
                    break
                }
                var auxOffset = offset + Int(aux)
                for _ in 0..<min(Int(count), data.count / 16) {
                    guard let other = data.u16(at: auxOffset + 6), let name = data.u32(at: auxOffset + 8),
                        let auxNext = data.u32(at: auxOffset + 12)
                    else {
                        broken("broken SHT_GNU_verneed auxiliary entry", section.offset + UInt64(auxOffset))
                        break
                    }
                    body(
                        VersionEntry(
                            index: other, name: Int(name), library: Int(file), flags: 0, isDefinition: false,
                            strings: strings))
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
                    broken("broken SHT_GNU_verdef entry", section.offset + UInt64(offset))
                    break
                }
                body(
                    VersionEntry(
                        index: index, name: Int(name), library: nil, flags: flags, isDefinition: true,
                        strings: strings))
                if next == 0 { break }
                offset += Int(next)
            }
        }
    }

    func stringTable(linkedFrom section: ELFSection) -> ByteReader? {
        let link = Int(section.link)
        // The loader reads version names from DT_STRTAB, whatever sh_link says.
        guard link > 0, link < sections.count else { return dynamicStrings }
        return dynamicStrings ?? bytes(of: sections[link])
    }
}
