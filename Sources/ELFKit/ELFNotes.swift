extension ELFFile {
    /// Reads `buildID`.
    func readBuildID() -> String? {
        // The note sections in order, else the note segments; the first build-ID note wins.
        // By index, without copying the headers (each section's name retained and released).
        let sections = self.sections
        var hasNoteSection = false
        for index in sections.indices where sections[index].type == .note {
            hasNoteSection = true
            if let id = buildID(offset: sections[index].offset, size: sections[index].size) { return id }
        }
        guard !hasNoteSection else { return nil }
        for segment in segments where segment.type == ELFSegment.note {
            if let id = buildID(offset: segment.offset, size: segment.fileSize) { return id }
        }
        return nil
    }

    /// The build ID in the notes at `offset` as lowercase hex, or `nil` when they hold none.
    private func buildID(offset: UInt64, size: UInt64) -> String? {
        guard let notes = bytes(offset: offset, size: size), let id = Self.gnuNote(type: 3, in: notes) else {
            return nil
        }
        return String(unsafeUninitializedCapacity: id.count * 2) { text in
            var at = 0
            for byte in id {
                let high = byte >> 4
                let low = byte & 0xf
                text[at] = high < 10 ? UInt8(ascii: "0") + high : UInt8(ascii: "a") - 10 + high
                text[at + 1] = low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") - 10 + low
                at += 2
            }
            return at
        }
    }

    /// Finds the descriptor of the first GNU note of `type` in a note area.
    static func gnuNote(type wanted: UInt32, in notes: ByteReader) -> [UInt8]? {
        var offset = 0
        while offset + 12 <= notes.count {
            guard let nameSize = notes.u32(at: offset), let descSize = notes.u32(at: offset + 4),
                let type = notes.u32(at: offset + 8)
            else { return nil }
            let nameStart = offset + 12
            let descStart = nameStart + (Int(nameSize) + 3) & ~3
            let next = descStart + (Int(descSize) + 3) & ~3
            guard nameSize < 1 << 20, descSize < 1 << 20, descStart + Int(descSize) <= notes.count else { return nil }
            // The name "GNU" and its NUL, byte by byte (no `String` made per note); the
            // descriptor is inside the notes (checked above), copied in one go.
            if type == wanted, nameSize == 4, notes.u8(at: nameStart) == UInt8(ascii: "G"),
                notes.u8(at: nameStart + 1) == UInt8(ascii: "N"), notes.u8(at: nameStart + 2) == UInt8(ascii: "U"),
                notes.u8(at: nameStart + 3) == 0
            {
                return Array(UnsafeRawBufferPointer(rebasing: notes.bytes[descStart..<descStart + Int(descSize)]))
            }
            guard next > offset else { return nil }
            offset = next
        }
        return nil
    }

    /// `.gnu_debuglink`: the separate debug file's name and CRC-32, or `nil`.
    public var debugLink: (name: String, crc: UInt32)? {
        guard let section = section(named: ".gnu_debuglink"), let data = bytes(of: section),
            let name = data.cString(at: 0)
        else { return nil }
        let crcOffset = (name.utf8.count + 1 + 3) & ~3
        return (name, data.u32(at: crcOffset) ?? 0)
    }
}
