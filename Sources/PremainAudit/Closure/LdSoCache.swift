import ELFKit
import LosslessText
import PremainModel
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `/etc/ld.so.cache` as glibc's `ld.so` reads it (`elf/dl-cache.c`, `sysdeps/generic/dl-cache.h`).
///
/// Three layouts are understood: the new format alone (`glibc-ld.so.cache1.1`, 48-byte header,
/// 24-byte entries with `osversion` and `hwcap`, string offsets from the start of the file,
/// optional extension directory with the `glibc-hwcaps` subdirectory names); the old
/// `ld.so-1.7.0` format (12-byte entries, strings after the entry array); and the old format
/// with the new one embedded after it (aligned to 8 bytes; string offsets from the start of
/// the new header). Every read is bounds-checked: a corrupt cache yields fewer entries or
/// `LdSoCache.Error`, never a trap.
public struct LdSoCache: Sendable {
    /// One library entry.
    public struct Entry: Sendable, Hashable, Codable {
        /// The name looked up: a SONAME such as `libc.so.6`.
        public var name: String
        /// The path the entry points at.
        public var path: String
        /// `FLAG_*` bits: the low byte is the type (3 = ELF libc6), the next byte the
        /// architecture (`0x03` = x86-64 64-bit, `0x0a` = AArch64, ...).
        public var flags: Int32
        /// Required OS version (new format only; 0 otherwise).
        public var osVersion: UInt32
        /// Legacy hwcap bits, or for a `glibc-hwcaps` entry the extension bit with the
        /// subdirectory index in the low 32 bits (new format only; 0 otherwise).
        public var hwcap: UInt64
        /// The `glibc-hwcaps` subdirectory (`x86-64-v3`) when the entry is one.
        public var hwcapSubdirectory: String?
    }

    public enum Format: String, Sendable, Codable {
        /// `glibc-ld.so.cache1.1` alone.
        case new
        /// `ld.so-1.7.0` alone.
        case old
        /// `ld.so-1.7.0` with the new format embedded.
        case compat
    }

    /// Why a cache cannot be used at all; `ld.so` then ignores the cache.
    public struct Error: Swift.Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public static let newMagic = Array("glibc-ld.so.cache1.1".utf8)
    public static let oldMagic = Array("ld.so-1.7.0".utf8)
    /// `DL_CACHE_HWCAP_EXTENSION`.
    public static let hwcapExtension: UInt64 = 1 << 62
    static let extensionMagic: UInt32 = 0xEAA4_2174  // (uint32_t) -358342284
    static let newHeaderSize = 48
    static let newEntrySize = 24
    static let oldHeaderSize = 16  // 11-byte magic, padded, then nlibs
    static let oldEntrySize = 12

    public let format: Format
    /// The `glibc-hwcaps` subdirectory names of the extension section, in file order.
    public let hwcapSubdirectories: [String]
    /// The glibc version that wrote the cache (extension tag 0), when present.
    public let generator: String?
    /// The cache's bytes, and each usable entry where its strings are in them: an audit looks
    /// up a few names, so no `String` is made for the thousand it does not (parsing every
    /// entry into strings was a third of the instructions of `premain audit /bin/true`).
    private let bytes: [UInt8]
    private let records: [Record]
    /// Names compared as bytes, as `search_cache`'s `_dl_cache_libcmp` does: the records of
    /// each name, in file order (`NameIndex`).
    private let byName: NameIndex

    /// One entry, its strings as offsets into `bytes` (each NUL-terminated there).
    private struct Record: Sendable {
        var flags: Int32
        var name: Int
        var nameLength: Int
        var path: Int
        var osVersion: UInt32
        var hwcap: UInt64
        /// Its index in `hwcapSubdirectories` for a `glibc-hwcaps` entry that names one.
        var subdirectory: Int?

        /// Its name's bytes (without the NUL) in the cache's bytes `raw`.
        func name(in raw: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: raw[name..<(name + nameLength)])
        }
    }

    /// Entries in file order (sorted by glibc's `_dl_cache_libcmp`, hwcap entries first).
    public var entries: [Entry] { records.indices.map(entry) }

    private func entry(_ index: Int) -> Entry {
        let record = records[index]
        return Entry(
            name: string(at: record.name), path: string(at: record.path), flags: record.flags,
            osVersion: record.osVersion, hwcap: record.hwcap,
            hwcapSubdirectory: record.subdirectory.map { hwcapSubdirectories[$0] })
    }

    private func string(at offset: Int) -> String {
        bytes.withUnsafeBytes { ByteReader($0, bigEndian: false).losslessString(at: offset) ?? "" }
    }

    /// Reads and parses the cache at `path`. Throws `LdSoCache.Error` when it is missing,
    /// unreadable or unusable.
    public init(path: String) throws(LdSoCache.Error) {
        let fd = LocalFiles.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Error(message: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard let info = LocalFiles.status(descriptor: fd), info.st_mode & S_IFMT == S_IFREG else {
            throw Error(message: "\(path) is not a regular file")
        }
        let size = Int(max(info.st_size, 0))
        guard size <= 256 << 20 else { throw Error(message: "\(path) is larger than 256 MiB") }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return pread(fd, base + done, size - done, off_t(done))
            }
            guard got > 0 else { break }
            done += got
        }
        guard done == size else { throw Error(message: "cannot read \(path)") }
        try self.init(bytes: bytes)
    }

    /// Parses cache bytes (for tests and for caches inside a sysroot).
    public init(bytes: [UInt8]) throws(LdSoCache.Error) {
        // The cache is written in the host's byte order; this reader handles little-endian
        // caches only (parseNew rejects others by their flags).
        let parsed = bytes.withUnsafeBytes { raw in
            Result { () throws(LdSoCache.Error) -> Parsed in try Self.parse(bytes, ByteReader(raw, bigEndian: false)) }
        }
        (format, records, hwcapSubdirectories, generator) = try parsed.get()
        self.bytes = bytes
        let records = records
        byName = bytes.withUnsafeBytes { raw in
            NameIndex(count: records.count) { records[$0].name(in: raw) }
        }
    }

    private typealias Parsed = (format: Format, records: [Record], subdirectories: [String], generator: String?)

    private static func parse(_ bytes: [UInt8], _ reader: ByteReader) throws(LdSoCache.Error) -> Parsed {
        if bytes.starts(with: Self.newMagic) {
            guard let parsed = Self.parseNew(reader, base: 0) else {
                throw Error(message: "corrupt glibc-ld.so.cache1.1 header")
            }
            return (.new, parsed.records, parsed.subdirectories, parsed.generator)
        } else if bytes.starts(with: Self.oldMagic) {
            guard let count = reader.u32(at: 12).map(Int.init) else {
                throw Error(message: "truncated ld.so-1.7.0 header")
            }
            let available = (bytes.count - Self.oldHeaderSize) / Self.oldEntrySize
            guard bytes.count > Self.oldHeaderSize, count <= available else {
                throw Error(message: "ld.so-1.7.0 entry count \(count) exceeds the file")
            }
            let tableEnd = Self.oldHeaderSize + count * Self.oldEntrySize
            let newBase = (tableEnd + 7) & ~7
            if newBase + Self.newHeaderSize <= bytes.count,
                Array(bytes[newBase..<(newBase + Self.newMagic.count)]) == Self.newMagic,
                let parsed = Self.parseNew(reader, base: newBase)
            {
                return (.compat, parsed.records, parsed.subdirectories, parsed.generator)
            } else {
                var list: [Record] = []
                for index in 0..<count {
                    let at = Self.oldHeaderSize + index * Self.oldEntrySize
                    guard let flags = reader.u32(at: at), let key = reader.u32(at: at + 4),
                        let value = reader.u32(at: at + 8),
                        let name = string(reader, tableEnd, Int(key)),
                        let path = string(reader, tableEnd, Int(value))
                    else { continue }
                    list.append(
                        Record(
                            flags: Int32(bitPattern: flags), name: name.offset, nameLength: name.length,
                            path: path.offset, osVersion: 0, hwcap: 0))
                }
                return (.old, list, [], nil)
            }
        } else {
            throw Error(message: "not an ld.so cache (unknown magic)")
        }
    }

    /// Where the NUL-terminated string at `base + offset` is, and its length without the NUL;
    /// `nil` when outside or unterminated.
    private static func string(_ reader: ByteReader, _ base: Int, _ offset: Int) -> (offset: Int, length: Int)? {
        let (start, overflow) = base.addingReportingOverflow(offset)
        guard !overflow, start >= 0, start < reader.count, let from = reader.bytes.baseAddress,
            let end = memchr(from + start, 0, reader.count - start)
        else { return nil }
        return (start, from.distance(to: UnsafeRawPointer(end)) - start)
    }

    /// `nil` when the header is unusable: wrong endianness flag, or more entries than fit.
    private static func parseNew(_ reader: ByteReader, base: Int)
        -> (records: [Record], subdirectories: [String], generator: String?)?
    {
        guard let count = reader.u32(at: base + 20).map(Int.init),
            let flagsByte = reader.u8(at: base + 28),
            let extensionOffset = reader.u32(at: base + 32).map(Int.init)
        else { return nil }
        let room = reader.count - base - newHeaderSize
        guard room >= 0, count <= room / newEntrySize else { return nil }
        // cache_file_new_matches_endian: 0 unknown, 2 little (this reader's byte order).
        guard flagsByte == 0 || flagsByte & 3 == 2 else { return nil }
        var subdirectories: [String] = []
        var generator: String?
        if base == 0, extensionOffset != 0, extensionOffset % 4 == 0,
            reader.u32(at: extensionOffset) == extensionMagic,
            let sections = reader.u32(at: extensionOffset + 4).map(Int.init),
            sections <= (reader.count - extensionOffset - 8) / 16
        {
            for section in 0..<sections {
                let at = extensionOffset + 8 + section * 16
                guard let tag = reader.u32(at: at), let offset = reader.u32(at: at + 8).map(Int.init),
                    let size = reader.u32(at: at + 12).map(Int.init),
                    offset <= reader.count, size <= reader.count - offset
                else { break }
                if tag == 0 {
                    generator = String(
                        decoding: UnsafeRawBufferPointer(rebasing: reader.bytes[offset..<(offset + size)]),
                        as: UTF8.self)
                } else if tag == 1, size > 0, size % 4 == 0, offset % 4 == 0 {
                    for item in 0..<(size / 4) {
                        let name = reader.u32(at: offset + item * 4).flatMap { reader.losslessString(at: Int($0)) }
                        subdirectories.append(name ?? "")
                    }
                }
            }
        }
        var list: [Record] = []
        list.reserveCapacity(count)
        for index in 0..<count {
            let at = base + newHeaderSize + index * newEntrySize
            guard let flags = reader.u32(at: at), let key = reader.u32(at: at + 4),
                let value = reader.u32(at: at + 8), let osVersion = reader.u32(at: at + 12),
                let hwcap = reader.u64(at: at + 16),
                let name = string(reader, base, Int(key)),
                let path = string(reader, base, Int(value))
            else { continue }
            var record = Record(
                flags: Int32(bitPattern: flags), name: name.offset, nameLength: name.length, path: path.offset,
                osVersion: osVersion, hwcap: hwcap)
            if isHwcapExtension(hwcap) {
                let slot = Int(hwcap & 0xffff_ffff)
                record.subdirectory = slot < subdirectories.count ? slot : nil
            }
            list.append(record)
        }
        return (list, subdirectories, generator)
    }

    /// `dl_cache_hwcap_extension`: only the extension bit set in the upper half, ignoring the
    /// ISA-level bits.
    static func isHwcapExtension(_ hwcap: UInt64) -> Bool {
        (hwcap >> 32) & ~UInt64(0x3ff) == hwcapExtension >> 32
    }

    /// Entries named `name`, in file order.
    public func entries(named name: String) -> [Entry] {
        indices(named: name).map(entry)
    }

    /// The records named `name` (compared by bytes), in file order.
    private func indices(named name: String) -> [Int] {
        let wanted = LosslessUTF8.bytes(name)
        return bytes.withUnsafeBytes { raw in
            wanted.withUnsafeBytes { wanted in
                byName.indices(of: wanted) { records[$0].name(in: raw) }
            }
        }
    }

    /// The path `ld.so` takes for `name`, like `search_cache`: entries whose flags pass
    /// `acceptsFlags`; a `glibc-hwcaps` entry wins by the priority of its subdirectory in
    /// `hwcapPriority` (earlier is better; absent means unusable); otherwise the first plain
    /// entry without legacy hwcap bits; the search ends at the first plain entry whose flags
    /// equal `defaultFlags`. `nil` when no entry fits.
    public func lookup(
        _ name: String, defaultFlags: Int32, acceptsFlags: (Int32) -> Bool,
        hwcapPriority: [String]
    ) -> String? {
        var best: Int?
        var bestPriority = Int.max
        for index in indices(named: name) where acceptsFlags(records[index].flags) {
            let entry = records[index]
            if Self.isHwcapExtension(entry.hwcap) {
                guard let subdirectory = entry.subdirectory,
                    let priority = hwcapPriority.firstIndex(of: hwcapSubdirectories[subdirectory])
                else { continue }
                if best == nil || priority < bestPriority {
                    best = index
                    bestPriority = priority
                }
                continue
            }
            if best != nil { break }
            // Legacy hwcap subdirectory entries (tls, platform bits): only TLS is always present.
            if entry.hwcap & ~(UInt64(1) << 63) != 0 { continue }
            best = index
            if entry.flags == defaultFlags { break }
        }
        return best.map { string(at: records[$0].path) }
    }
}

/// A hash index of byte strings that does not hold them: entry `i`'s bytes are read through a
/// closure when it is built and when a look-up meets it. Open addressing (linear probing)
/// over the distinct strings; the entries of one string are chained in order.
struct NameIndex: Sendable {
    /// Per slot: the first entry of the string hashed there, or -1.
    private var slots: [Int32]
    /// Per entry: the next entry with the same bytes, or -1.
    private var next: [Int32]

    init(count: Int, bytes: (Int) -> UnsafeRawBufferPointer) {
        var size = 16
        while size < count * 2 { size *= 2 }
        slots = [Int32](repeating: -1, count: size)
        next = [Int32](repeating: -1, count: count)
        // The last entry of each chain, by the chain's first entry (appends in order).
        var last = [Int32](repeating: -1, count: count)
        for index in 0..<count {
            let name = bytes(index)
            var slot = Self.hash(name) & (size - 1)
            while true {
                let first = Int(slots[slot])
                if first < 0 {
                    slots[slot] = Int32(index)
                    last[index] = Int32(index)
                    break
                }
                if Self.equal(bytes(first), name) {
                    next[Int(last[first])] = Int32(index)
                    last[first] = Int32(index)
                    break
                }
                slot = (slot + 1) & (size - 1)
            }
        }
    }

    /// The entries whose bytes are `name`, in order.
    func indices(of name: UnsafeRawBufferPointer, bytes: (Int) -> UnsafeRawBufferPointer) -> [Int] {
        var slot = Self.hash(name) & (slots.count - 1)
        while true {
            let first = Int(slots[slot])
            if first < 0 { return [] }
            if Self.equal(bytes(first), name) {
                var found: [Int] = []
                var index = first
                while index >= 0 {
                    found.append(index)
                    index = Int(next[index])
                }
                return found
            }
            slot = (slot + 1) & (slots.count - 1)
        }
    }

    /// FNV-1a: the names are short, and a look-up hashes one.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }

    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let left = a.baseAddress, let right = b.baseAddress else { return true }
        return memcmp(left, right, a.count) == 0
    }
}
