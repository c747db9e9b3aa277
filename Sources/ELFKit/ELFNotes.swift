extension ELFFile {
    /// Reads `buildID`.
    func readBuildID() -> String? {
        var places: [(UInt64, UInt64)] = sections.filter { $0.type == .note }.map { ($0.offset, $0.size) }
        if places.isEmpty {
            places = segments.filter { $0.type == ELFSegment.note }.map { ($0.offset, $0.fileSize) }
        }
        for (offset, size) in places {
            guard let notes = bytes(offset: offset, size: size) else { continue }
            if let id = Self.gnuNote(type: 3, in: notes) {
                let digits = Array("0123456789abcdef".utf8)
                var text: [UInt8] = []
                text.reserveCapacity(id.count * 2)
                for byte in id {
                    text.append(digits[Int(byte >> 4)])
                    text.append(digits[Int(byte & 0xf)])
                }
                return String(decoding: text, as: UTF8.self)
            }
        }
        return nil
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
            if type == wanted, nameSize == 4, notes.cString(at: nameStart) == "GNU" {
                return (0..<Int(descSize)).compactMap { notes.u8(at: descStart + $0) }
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
