import CELF

extension ELFSection {
    /// `SHF_COMPRESSED`: the section's bytes are an `Elf*_Chdr` and a compressed stream.
    public static let flagCompressed: UInt64 = 0x800

    /// `true` for a section compressed in the GNU format (`.zdebug_*`: `ZLIB`, the size, zlib).
    public var isGNUCompressed: Bool { name.hasPrefix(".zdebug_") && flags & Self.flagCompressed == 0 }
}

extension ELFFile {
    /// The contents of `section` as its reader sees them: decompressed when the section is
    /// compressed (`SHF_COMPRESSED`, or a `.zdebug_*` section in the GNU format), else its file
    /// bytes (`bytes(of:)`). Only this section is decompressed, by libelf (`elf_compress`,
    /// `elf_compress_gnu`, through the handle `libelf()` makes on first use), which keeps the result while the `ELFFile` lives and refuses a
    /// stated size above 1032 times the compressed size (zlib's largest ratio).
    ///
    /// Returns `nil` for `SHT_NOBITS` and empty sections, and (with a diagnostic) for a section
    /// outside the file or one that does not decompress.
    ///
    /// Not thread-safe: it changes libelf's state of the section, as every read of an
    /// `ELFFile` is meant for one thread at a time.
    public func contents(of section: ELFSection) -> ByteReader? {
        let gnu = section.isGNUCompressed
        guard section.flags & ELFSection.flagCompressed != 0 || gnu else { return bytes(of: section) }
        guard bytes(of: section) != nil else { return nil }
        let label = section.name.isEmpty ? "#\(section.index)" : section.name
        guard let elf = libelf(), let scn = elf_getscn(elf, section.index) else {
            note("section \(label) unreadable: \(Self.libelfMessage())")
            return nil
        }
        // A second call finds the section decompressed already: libelf's header of it has lost
        // SHF_COMPRESSED, and GNU data has lost its "ZLIB" magic.
        var header = GElf_Shdr()
        guard gelf_getshdr(scn, &header) != nil else {
            note("section \(label) unreadable: \(Self.libelfMessage())")
            return nil
        }
        let decompressed: Bool
        if gnu {
            decompressed = elf_compress_gnu(scn, 0, 0) >= 0 || !Self.startsWithZLIB(elf_getdata(scn, nil))
        } else {
            decompressed = header.sh_flags & ELFSection.flagCompressed == 0 || elf_compress(scn, 0, 0) >= 0
        }
        guard decompressed else {
            note("section \(label) does not decompress: \(Self.libelfMessage())", offset: section.offset)
            return nil
        }
        guard let data = elf_getdata(scn, nil), let base = data.pointee.d_buf, data.pointee.d_size > 0 else {
            return nil
        }
        return ByteReader(UnsafeRawBufferPointer(start: base, count: data.pointee.d_size), bigEndian: isBigEndian)
    }

    private static func startsWithZLIB(_ data: UnsafeMutablePointer<Elf_Data>?) -> Bool {
        guard let data, let base = data.pointee.d_buf, data.pointee.d_size >= 4 else { return false }
        return Array(UnsafeRawBufferPointer(start: base, count: 4)) == Array("ZLIB".utf8)
    }
}
