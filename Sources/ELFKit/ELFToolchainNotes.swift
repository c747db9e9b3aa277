extension ELFFile {
    /// `NT_GNU_GOLD_VERSION`: gold writes its version ("gold 1.16") into a note.
    static let noteGoldVersion: UInt32 = 4

    /// The strings of `.comment` in order (each compiler and some linkers leave one: "GCC: (…)
    /// 12.2.0", "Linker: LLD 21.0.0", "mold 2.4.0 (…)"); `[]` when the file has no `.comment`
    /// (Debian's packages strip it). At most 64 strings of at most 512 bytes are kept.
    public var commentStrings: [String] {
        guard let section = section(named: ".comment") else { return [] }
        return nulSeparatedStrings(section, limit: 64)
    }

    /// gold's version from its `NT_GNU_GOLD_VERSION` note ("gold 1.16"), or `nil` when no note
    /// section has one (files not linked by gold).
    public var goldVersion: String? {
        for section in sections where section.type == .note {
            guard let notes = bytes(of: section),
                let text = Self.gnuNote(type: Self.noteGoldVersion, in: notes)
            else { continue }
            let printable = text.prefix { $0 != 0 }.prefix(64)
            return String(decoding: printable, as: UTF8.self)
        }
        return nil
    }

    /// The libraries a Swift object asks its linker for (`.swift1_autolink_entries`: NUL-separated
    /// flags such as "-lswiftCore"), or `[]`. Relocatable objects carry it; linked files
    /// usually no longer do.
    public var swiftAutolinkEntries: [String] {
        guard let section = section(named: ".swift1_autolink_entries") else { return [] }
        return nulSeparatedStrings(section, limit: 256)
    }

    /// The non-empty NUL-terminated strings of `section`, at most `limit` of them, each cut
    /// at 512 bytes.
    func nulSeparatedStrings(_ section: ELFSection, limit: Int) -> [String] {
        guard let data = bytes(of: section) else { return [] }
        var strings: [String] = []
        var start = 0
        var index = 0
        while index <= data.count, strings.count < limit {
            let byte = index < data.count ? data.u8(at: index) : 0
            if byte == 0 {
                if index > start, let base = data.bytes.baseAddress {
                    let length = min(index - start, 512)
                    strings.append(
                        String(
                            decoding: UnsafeRawBufferPointer(start: base + start, count: length),
                            as: UTF8.self))
                }
                start = index + 1
            }
            index += 1
        }
        return strings
    }
}
