/// The ELF header fields an open reads, as `gelf_getehdr` gives them (ELF32 fields widened).
struct ELFHeader {
    var type: UInt16
    var machine: UInt16
    var entry: UInt64
    var flags: UInt32
    /// `e_phoff`, `e_shoff`: where the program and section header tables start.
    var programHeaders: UInt64
    var sectionHeaders: UInt64
    var programHeaderSize: UInt16
    var programHeaderCount: UInt16
    var sectionHeaderSize: UInt16
    var sectionHeaderCount: UInt16
    var sectionNamesIndex: UInt16
}

/// A file's class and byte order as a type: the readers of plain headers are specialized for
/// each, so that reading a field tests neither.
protocol ELFLayout {
    static var is64: Bool { get }
    static var bigEndian: Bool { get }
}

enum LittleEndian64: ELFLayout {
    static var is64: Bool { true }
    static var bigEndian: Bool { false }
}

enum BigEndian64: ELFLayout {
    static var is64: Bool { true }
    static var bigEndian: Bool { true }
}

enum LittleEndian32: ELFLayout {
    static var is64: Bool { false }
    static var bigEndian: Bool { false }
}

enum BigEndian32: ELFLayout {
    static var is64: Bool { false }
    static var bigEndian: Bool { true }
}

/// Reads in `Layout`'s byte order at offsets from `base` that the caller has checked: the
/// tables of a file with plain headers lie inside it as a whole, so each field is not checked
/// again.
struct RawReader<Layout: ELFLayout> {
    let base: UnsafeRawPointer

    @inline(__always)
    func u16(_ offset: Int) -> UInt16 {
        let raw = base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
        return Layout.bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)
    }

    @inline(__always)
    func u32(_ offset: Int) -> UInt32 {
        let raw = base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return Layout.bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }

    @inline(__always)
    func u64(_ offset: Int) -> UInt64 {
        let raw = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        return Layout.bigEndian ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw)
    }

    /// A 32-bit field at `at64` in ELF64, `at32` in ELF32.
    @inline(__always)
    func u32(_ at64: Int, _ at32: Int) -> UInt32 { u32(Layout.is64 ? at64 : at32) }

    /// A word (address, offset, size) at `at64` in ELF64, `at32` in ELF32 (widened).
    @inline(__always)
    func word(_ at64: Int, _ at32: Int) -> UInt64 { Layout.is64 ? u64(at64) : UInt64(u32(at32)) }
}

extension ELFFile {
    /// `SHF_COMPRESSED` on a section header, as the open reads it (32 bits in either class).
    private static let compressedFlag: UInt64 = 0x800

    /// The ELF header of `image` (a whole file whose identification is checked) when its
    /// headers are plain: libelf reads them without a diagnostic or a special case, so reading
    /// them from the bytes gives what libelf gives. `nil` sends the file to libelf
    /// (`init(path:)`), whose reading of anything else (a truncated header or table, a wrong
    /// `e_phentsize` or `e_shentsize`, `PN_XNUM`, `SHN_XINDEX`, a count of 0 with an offset,
    /// `e_shstrndx` out of range, a compressed section-name table) stays as it was.
    ///
    /// Plain: the header lies inside the file and its `EI_VERSION` is 1; either no program headers and `e_phoff` 0 or
    /// inside the file, or 1 to 65534 of them of the class's size wholly inside the file
    /// (`e_phoff` not 0); either no section headers and `e_shoff` 0, or some of the class's size
    /// wholly inside the file (`e_shoff` not 0) with `e_shstrndx` naming one of them (or 0) and
    /// that one not `SHF_COMPRESSED`.
    static func plainHeader(_ image: UnsafeRawBufferPointer) -> ELFHeader? {
        // libelf takes a file whose EI_VERSION is not EV_CURRENT for no ELF (`ELF_K_NONE`).
        guard image.count >= 64 || (image.count >= 52 && image[4] == 1), image[6] == 1 else { return nil }
        switch (image[4] == 2, image[5] == 2) {
        case (true, false): return plainHeader(image, LittleEndian64.self)
        case (true, true): return plainHeader(image, BigEndian64.self)
        case (false, false): return plainHeader(image, LittleEndian32.self)
        case (false, true): return plainHeader(image, BigEndian32.self)
        }
    }

    private static func plainHeader<Layout: ELFLayout>(_ image: UnsafeRawBufferPointer, _: Layout.Type) -> ELFHeader? {
        guard let base = image.baseAddress else { return nil }
        let is64 = Layout.is64
        let reader = RawReader<Layout>(base: base)
        let header = ELFHeader(
            type: reader.u16(16), machine: reader.u16(18), entry: reader.word(24, 24), flags: reader.u32(48, 36),
            programHeaders: reader.word(32, 28), sectionHeaders: reader.word(40, 32),
            programHeaderSize: reader.u16(is64 ? 54 : 42), programHeaderCount: reader.u16(is64 ? 56 : 44),
            sectionHeaderSize: reader.u16(is64 ? 58 : 46), sectionHeaderCount: reader.u16(is64 ? 60 : 48),
            sectionNamesIndex: reader.u16(is64 ? 62 : 50))
        let size = UInt64(image.count)
        /// `true` when `count` entries of `entrySize` bytes at `offset` lie inside the file.
        func inside(_ offset: UInt64, _ count: UInt16, _ entrySize: UInt64) -> Bool {
            offset != 0 && offset <= size && size - offset >= UInt64(count) * entrySize
        }
        let programEntry: UInt64 = is64 ? 56 : 32
        if header.programHeaderCount == 0 {
            guard header.programHeaders < size else { return nil }
        } else {
            guard header.programHeaderCount != 0xffff, UInt64(header.programHeaderSize) == programEntry,
                inside(header.programHeaders, header.programHeaderCount, programEntry)
            else { return nil }
        }
        let sectionEntry: UInt64 = is64 ? 64 : 40
        if header.sectionHeaderCount == 0 {
            guard header.sectionHeaders == 0 else { return nil }
        } else {
            guard UInt64(header.sectionHeaderSize) == sectionEntry,
                inside(header.sectionHeaders, header.sectionHeaderCount, sectionEntry),
                header.sectionNamesIndex < header.sectionHeaderCount
            else { return nil }
            if header.sectionNamesIndex != 0 {
                let at = Int(header.sectionHeaders) + Int(header.sectionNamesIndex) * Int(sectionEntry)
                let flags = reader.word(at + 8, at + 8)
                guard flags & compressedFlag == 0 else { return nil }
            }
        }
        return header
    }
}
