#if canImport(Glibc)
    import Glibc
#endif

/// One section header, decoded.
public struct ELFSection: Sendable, Hashable {
    public var index: Int
    public var name: String
    public var type: SectionType
    public var flags: UInt64
    public var address: UInt64
    public var offset: UInt64
    public var size: UInt64
    public var link: UInt32
    public var info: UInt32
    public var entrySize: UInt64

    public static let flagWrite: UInt64 = 0x1
    public static let flagAlloc: UInt64 = 0x2
    public static let flagExec: UInt64 = 0x4
    /// `SHF_TLS`: a thread-local section (its bytes are a template, not mapped data).
    public static let flagTLS: UInt64 = 0x400

    public var isAllocated: Bool { flags & Self.flagAlloc != 0 }
    /// `true` when the section occupies bytes in the file (not `SHT_NOBITS`, not empty).
    public var hasFileBytes: Bool { type != .nobits && type != .null && size > 0 }
}

/// One program header, decoded.
public struct ELFSegment: Sendable, Hashable {
    public var type: UInt32
    public var flags: UInt32
    public var offset: UInt64
    public var virtualAddress: UInt64
    public var fileSize: UInt64
    public var memorySize: UInt64

    public static let load: UInt32 = 1
    public static let dynamic: UInt32 = 2
    public static let interp: UInt32 = 3
    public static let note: UInt32 = 4
    public static let tls: UInt32 = 7
    public static let gnuRelro: UInt32 = 0x6474_e552

    public static let flagExecute: UInt32 = 1
    public static let flagWrite: UInt32 = 2
    public static let flagRead: UInt32 = 4

    /// The file offset that holds virtual address `address`, when this segment maps it from
    /// the file.
    public func fileOffset(of address: UInt64) -> UInt64? {
        guard address >= virtualAddress else { return nil }
        let delta = address - virtualAddress
        guard delta < fileSize else { return nil }
        let (sum, overflow) = offset.addingReportingOverflow(delta)
        return overflow ? nil : sum
    }
}

/// Section names as the open reads them: a 32-bit hash of each name's bytes (kept beside the
/// section headers, so `section(named:)` compares a hash per section instead of a `String`),
/// and the names nearly every file has made once (so opening a file builds a `String` only for
/// its unusual names). The hash takes the bytes eight at a time (little-endian words, the last
/// one padded with zeros), so a name costs a few instructions a word.
enum SectionNames {
    /// The hash of a name that is not ASCII: `String`'s `==` is canonical equivalence (the
    /// Kelvin sign equals "K"), so such a name is compared whatever the hash of the query.
    static let nonASCII: UInt32 = 0

    private static let seed: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    @inline(__always)
    private static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = (hash ^ word) &* 0x0000_0100_0000_01b3
        return mixed ^ (mixed >> 29)
    }

    @inline(__always)
    private static func finish(_ hash: UInt64, count: Int) -> UInt32 {
        var mixed = (hash ^ UInt64(truncatingIfNeeded: count)) &* 0xd6e8_feb8_6659_fd93
        mixed ^= mixed >> 32
        let value = UInt32(truncatingIfNeeded: mixed)
        return value == nonASCII ? 1 : value
    }

    /// The hash of `""`.
    static var emptyHash: UInt32 { finish(seed, count: 0) }

    /// The hash of `count` bytes at `bytes`, never `nonASCII`; `nil` when a byte is not ASCII.
    static func hash(_ bytes: UnsafeRawPointer, count: Int) -> UInt32? {
        var hash = seed
        var ascii: UInt64 = 0
        var offset = 0
        while count - offset >= 8 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            ascii |= word
            hash = mix(hash, word)
            offset += 8
        }
        if offset < count {
            var word: UInt64 = 0
            for index in offset..<count {
                word |= UInt64(bytes.load(fromByteOffset: index, as: UInt8.self)) << UInt64(8 * (index - offset))
            }
            ascii |= word
            hash = mix(hash, word)
        }
        return ascii & highBits == 0 ? finish(hash, count: count) : nil
    }

    /// The hash of `name`'s bytes, or `nil` when it is not ASCII (or has no contiguous UTF-8).
    static func hash(of name: String) -> UInt32? {
        name.utf8.withContiguousStorageIfAvailable { buffer -> UInt32? in
            guard let base = buffer.baseAddress else { return emptyHash }
            return hash(base, count: buffer.count)
        } ?? nil
    }

    /// The name at `cName` (NUL-terminated, as `elf_strptr` gives it) and its hash
    /// (`nonASCII` for a name that is not ASCII), the `String` taken from `table` when it is
    /// a common name. `readable` bytes from `cName` on may be read whatever they hold (the rest
    /// of its string table): there the name is read a word at a time, beyond byte by byte.
    static func name(_ cName: UnsafePointer<CChar>, readable: Int, in table: Table) -> (name: String, hash: UInt32) {
        let bytes = UnsafeRawPointer(cName)
        var hash = seed
        var ascii: UInt64 = 0
        var count = 0
        // Whole words while eight bytes can be read: the first zero byte ends the name.
        while readable - count >= 8 {
            var word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: count, as: UInt64.self))
            let zeros = (word &- 0x0101_0101_0101_0101) & ~word & highBits
            if zeros == 0 {
                ascii |= word
                hash = mix(hash, word)
                count += 8
                continue
            }
            let length = zeros.trailingZeroBitCount >> 3
            if length > 0 {
                word &= ~0 >> UInt64(64 - 8 * length)
                ascii |= word
                hash = mix(hash, word)
                count += length
            }
            return made(cName, count: count, hash: hash, ascii: ascii, table: table)
        }
        // Byte by byte near the end of the table (or when its end is not known).
        var word: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = bytes.load(fromByteOffset: count, as: UInt8.self)
            if byte == 0 { break }
            word |= UInt64(byte) << shift
            count += 1
            shift += 8
            if shift == 64 {
                ascii |= word
                hash = mix(hash, word)
                word = 0
                shift = 0
            }
        }
        if shift > 0 {
            ascii |= word
            hash = mix(hash, word)
        }
        return made(cName, count: count, hash: hash, ascii: ascii, table: table)
    }

    @inline(__always)
    private static func made(
        _ cName: UnsafePointer<CChar>, count: Int, hash: UInt64, ascii: UInt64, table: Table
    ) -> (name: String, hash: UInt32) {
        guard ascii & highBits == 0 else { return (String(cString: cName), nonASCII) }
        let hash = finish(hash, count: count)
        let bytes = UnsafeRawPointer(cName).assumingMemoryBound(to: UInt8.self)
        if let known = table.name(hash: hash, bytes, count: count) { return (known, hash) }
        return (String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self), hash)
    }

    /// The names nearly every linked file has, and the ones premain looks up.
    static let commonNames: [String] = [
        "", ".text", ".data", ".bss", ".rodata", ".shstrtab", ".symtab", ".strtab", ".eh_frame", ".eh_frame_hdr",
        ".note.GNU-stack", ".note.gnu.build-id", ".note.ABI-tag", ".note.gnu.property", ".note.gnu.gold-version",
        ".interp", ".init", ".fini", ".init_array", ".fini_array", ".ctors", ".dtors", ".plt", ".plt.got",
        ".plt.sec", ".got", ".got.plt", ".gnu.hash", ".hash", ".dynsym", ".dynstr", ".dynamic", ".gnu.version",
        ".gnu.version_r", ".gnu.version_d", ".rela.dyn", ".rela.plt", ".rel.dyn", ".rel.plt", ".relr.dyn",
        ".data.rel.ro", ".data.rel.ro.local", ".data.rel.local", ".gnu_debuglink", ".gnu_debugaltlink",
        ".gnu_debugdata", ".comment", ".tbss", ".tdata", ".tm_clone_table", ".gcc_except_table",
        ".rodata.str1.1", ".rodata.str1.8", ".rodata.cst4", ".rodata.cst8", ".rodata.cst16", ".rodata.cst2",
        ".rodata.cst32", ".text.unlikely", ".text.hot", ".text.startup", ".lbss", ".ldata", ".lrodata",
        ".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str", ".debug_aranges",
        ".debug_ranges", ".debug_rnglists", ".debug_loc", ".debug_loclists", ".debug_frame", ".debug_str_offsets",
        ".debug_addr", ".debug_names", ".debug_macro", ".zdebug_info", ".zdebug_line", ".zdebug_str",
        ".zdebug_abbrev", ".swift1_autolink_entries", ".note.swift", ".stapsdt.base", ".note.stapsdt",
        ".note.package", ".gnu.warning", ".gnu.attributes", ".ARM.attributes", ".group", ".rela.text",
        ".rela.eh_frame", ".rela.data", ".rela.rodata", ".rela.init_array", ".rela.fini_array",
        ".rela.data.rel.ro", ".rela.data.rel.ro.local", ".rela.data.rel.local", "swift5_protocols",
        "swift5_protocol_conformances", "swift5_type_metadata", "swift5_types", "swift5_typeref", "swift5_reflstr",
        "swift5_fieldmd", "swift5_assocty", "swift5_builtin", "swift5_capture", "swift5_mpenum", "swift5_replace",
        "swift5_replac2", "swift5_accessible_functions", "swift5_runtime_attributes", "swift5_tests",
        "swift5_entry",
    ]

    /// `commonNames` in an open-addressing table of their hashes (fetch it once per file: a
    /// global costs a `swift_once` check at each use).
    static let table = Table(commonNames)

    /// Hashes, lengths and bytes in storage of their own that lives as long as the process, so
    /// that a lookup neither retains nor checks bounds.
    final class Table: @unchecked Sendable {
        private static let slotCount = 512
        /// Per slot, the index of a name, or -1.
        private let slots: UnsafeMutablePointer<Int16>
        private let hashes: UnsafeMutablePointer<UInt32>
        /// Where each name's bytes start in `bytes`; one more entry for the end of the last.
        private let starts: UnsafeMutablePointer<Int>
        private let bytes: UnsafeMutablePointer<UInt8>
        private let names: [String]

        init(_ names: [String]) {
            self.names = names
            let utf8 = names.map { Array($0.utf8) }
            slots = .allocate(capacity: Self.slotCount)
            slots.initialize(repeating: -1, count: Self.slotCount)
            hashes = .allocate(capacity: names.count)
            starts = .allocate(capacity: names.count + 1)
            bytes = .allocate(capacity: max(1, utf8.reduce(0) { $0 + $1.count }))
            var end = 0
            for (index, name) in utf8.enumerated() {
                let hash =
                    name.withUnsafeBytes { buffer in
                        buffer.baseAddress.flatMap { SectionNames.hash($0, count: buffer.count) }
                    } ?? SectionNames.emptyHash
                hashes[index] = hash
                starts[index] = end
                for byte in name {
                    bytes[end] = byte
                    end += 1
                }
                var slot = Int(hash) & (Self.slotCount - 1)
                while slots[slot] >= 0 { slot = (slot + 1) & (Self.slotCount - 1) }
                slots[slot] = Int16(index)
            }
            starts[names.count] = end
        }

        deinit {
            slots.deallocate()
            hashes.deallocate()
            starts.deallocate()
            bytes.deallocate()
        }

        /// The common name of `count` bytes at `text` with hash `hash`, or `nil`.
        @inline(__always)
        func name(hash: UInt32, _ text: UnsafePointer<UInt8>, count: Int) -> String? {
            var slot = Int(hash) & (Self.slotCount - 1)
            while true {
                let entry = Int(slots[slot])
                guard entry >= 0 else { return nil }
                if hashes[entry] == hash, starts[entry + 1] - starts[entry] == count,
                    memcmp(bytes + starts[entry], text, count) == 0
                {
                    return names[entry]
                }
                slot = (slot + 1) & (Self.slotCount - 1)
            }
        }
    }
}
