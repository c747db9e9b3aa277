import Foundation
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import PremainTestSupport
import Testing

/// The ld.so.cache reader: on this machine's cache against `ldconfig -p`, and on caches made in
/// code (old, compat and hwcaps layouts, and corrupt bytes).
@Suite struct ClosureLdSoCacheTests {
    @Test func realCacheMatchesLdconfig() throws {
        let cache = try LdSoCache(path: "/etc/ld.so.cache")
        #expect(cache.format == .new)
        let listing = try Shell.run(["ldconfig", "-p"]).stdout
        var expected: [String] = []
        for line in listing.split(separator: "\n").dropFirst() {
            guard let arrow = line.range(of: " => ") else { continue }
            let name = line[..<arrow.lowerBound].trimmingCharacters(in: .whitespaces).split(separator: " ").first
            expected.append("\(name ?? "") \(line[arrow.upperBound...])")
        }
        #expect(cache.entries.map { "\($0.name) \($0.path)" } == expected)
        #expect(cache.entries.allSatisfy { $0.flags == 0x0303 })  // libc6, x86-64
        let platform = LoaderPlatform.forTarget(elfClass: .elf64, machine: .x86_64)
        #expect(
            cache.lookup(
                "libc.so.6", defaultFlags: platform.cacheFlags, acceptsFlags: platform.acceptsCacheFlags,
                hwcapPriority: platform.hwcapsPriority) == "/lib/x86_64-linux-gnu/libc.so.6")
        #expect(
            cache.lookup(
                "libpremain-none.so", defaultFlags: 0x0303, acceptsFlags: { _ in true },
                hwcapPriority: []) == nil)
        // An i386 loader accepts no x86-64 entry.
        let i386 = LoaderPlatform.forTarget(elfClass: .elf32, machine: .i386)
        #expect(
            cache.lookup(
                "libc.so.6", defaultFlags: i386.cacheFlags, acceptsFlags: i386.acceptsCacheFlags,
                hwcapPriority: []) == nil)
    }

    /// A new-format cache with a glibc-hwcaps extension: the best supported subdirectory wins,
    /// an unsupported one is ignored, and the plain entry is the fallback.
    @Test func hwcapsEntriesArePreferredByPriority() throws {
        var builder = CacheBuilder()
        let v3 = builder.string("x86-64-v3")
        let v4 = builder.string("x86-64-v4")
        builder.hwcaps = [v3, v4]
        let ext: UInt64 = 1 << 62
        builder.entries = [
            ("libz.so.1", "/usr/lib/glibc-hwcaps/x86-64-v3/libz.so.1", 0x0303, ext | 0),
            ("libz.so.1", "/usr/lib/glibc-hwcaps/x86-64-v4/libz.so.1", 0x0303, ext | 1),
            ("libz.so.1", "/usr/lib/libz.so.1", 0x0303, 0),
        ]
        let cache = try LdSoCache(bytes: builder.newFormat())
        #expect(cache.hwcapSubdirectories == ["x86-64-v3", "x86-64-v4"])
        #expect(cache.entries.map(\.hwcapSubdirectory) == ["x86-64-v3", "x86-64-v4", nil])
        let accept: (Int32) -> Bool = { $0 == 0x0303 }
        #expect(
            cache.lookup(
                "libz.so.1", defaultFlags: 0x0303, acceptsFlags: accept,
                hwcapPriority: ["x86-64-v4", "x86-64-v3", "x86-64-v2"]) == "/usr/lib/glibc-hwcaps/x86-64-v4/libz.so.1")
        #expect(
            cache.lookup(
                "libz.so.1", defaultFlags: 0x0303, acceptsFlags: accept,
                hwcapPriority: ["x86-64-v3", "x86-64-v2"]) == "/usr/lib/glibc-hwcaps/x86-64-v3/libz.so.1")
        #expect(
            cache.lookup(
                "libz.so.1", defaultFlags: 0x0303, acceptsFlags: accept,
                hwcapPriority: ["x86-64-v2"]) == "/usr/lib/libz.so.1")
    }

    @Test func oldAndCompatFormatsAreRead() throws {
        var builder = CacheBuilder()
        builder.entries = [
            ("libfoo.so.1", "/lib/libfoo.so.1", 3, 0), ("libbar.so.2", "/usr/lib/libbar.so.2", 0x0303, 0),
        ]
        let old = try LdSoCache(bytes: builder.oldFormat())
        #expect(old.format == .old)
        #expect(old.entries.map(\.path) == ["/lib/libfoo.so.1", "/usr/lib/libbar.so.2"])
        let compat = try LdSoCache(bytes: builder.compatFormat())
        #expect(compat.format == .compat)
        #expect(compat.entries.map(\.name) == ["libfoo.so.1", "libbar.so.2"])
        #expect(
            compat.lookup(
                "libbar.so.2", defaultFlags: 0x0303, acceptsFlags: { $0 == 0x0303 },
                hwcapPriority: []) == "/usr/lib/libbar.so.2")
    }

    @Test func corruptCachesAreRejectedOrTrimmedWithoutTrapping() throws {
        let real = try Array(Data(contentsOf: URL(fileURLWithPath: "/etc/ld.so.cache")))
        // Unusable headers are errors.
        #expect(throws: LdSoCache.Error.self) { try LdSoCache(bytes: []) }
        #expect(throws: LdSoCache.Error.self) { try LdSoCache(bytes: Array(real.prefix(30))) }
        #expect(throws: LdSoCache.Error.self) { try LdSoCache(bytes: Array("not a cache at all".utf8)) }
        var huge = real
        huge.replaceSubrange(20..<24, with: [0xff, 0xff, 0xff, 0x7f])  // nlibs
        #expect(throws: LdSoCache.Error.self) { try LdSoCache(bytes: huge) }
        var bigEndian = real
        bigEndian[28] = 3  // cache_file_new_flags_endian_big
        #expect(throws: LdSoCache.Error.self) { try LdSoCache(bytes: bigEndian) }
        // Truncated string table: entries whose strings are gone are dropped.
        let header = 48 + 24 * Int(UInt32(real[20]) | UInt32(real[21]) << 8 | UInt32(real[22]) << 16)
        let truncated = try LdSoCache(bytes: Array(real.prefix(header + 10)))
        #expect(truncated.entries.count < 10)
        // Random damage never traps.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var bytes = real
            for _ in 0..<16 {
                bytes[Int.random(in: 20..<bytes.count, using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            }
            if let cache = try? LdSoCache(bytes: bytes) {
                _ = cache.lookup(
                    "libc.so.6", defaultFlags: 0x0303, acceptsFlags: { _ in true }, hwcapPriority: ["x86-64-v3"])
            }
            let cut = Int.random(in: 0..<bytes.count, using: &generator)
            _ = try? LdSoCache(bytes: Array(bytes.prefix(cut)))
        }
    }
}

/// Writes ld.so.cache files in the three layouts of glibc's `sysdeps/generic/dl-cache.h`.
struct CacheBuilder {
    var entries: [(name: String, path: String, flags: Int32, hwcap: UInt64)] = []
    /// String-table offsets of the glibc-hwcaps subdirectory names.
    var hwcaps: [Int] = []
    private var extra: [UInt8] = []

    /// Interns a string; returns its offset in the string area (fixed up by the writers).
    mutating func string(_ text: String) -> Int {
        let offset = extra.count
        extra += Array(text.utf8) + [0]
        return offset
    }

    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func le64(_ value: UInt64) -> [UInt8] { le32(UInt32(truncatingIfNeeded: value)) + le32(UInt32(value >> 32)) }

    /// New format; string offsets count from `base` (0 alone, the new header's offset in compat).
    func newFormat(base: Int = 0) -> [UInt8] {
        let headerAndEntries = 48 + entries.count * 24
        var strings = extra
        var keys: [(UInt32, UInt32)] = []
        for entry in entries {
            let key = headerAndEntries + strings.count
            strings += Array(entry.name.utf8) + [0]
            let value = headerAndEntries + strings.count
            strings += Array(entry.path.utf8) + [0]
            keys.append((UInt32(key), UInt32(value)))
        }
        while (headerAndEntries + strings.count) % 4 != 0 { strings.append(0) }
        let hwcapsArray = headerAndEntries + strings.count
        var hwcapsBytes: [UInt8] = []
        for offset in hwcaps { hwcapsBytes += Self.le32(UInt32(base + headerAndEntries + offset)) }
        let extensionOffset = hwcaps.isEmpty ? 0 : hwcapsArray + hwcapsBytes.count
        var out = Array("glibc-ld.so.cache1.1".utf8)
        out += Self.le32(UInt32(entries.count)) + Self.le32(UInt32(strings.count))
        out += [2, 0, 0, 0] + Self.le32(UInt32(extensionOffset)) + [UInt8](repeating: 0, count: 12)
        for (entry, key) in zip(entries, keys) {
            out += Self.le32(UInt32(bitPattern: entry.flags)) + Self.le32(key.0) + Self.le32(key.1)
            out += Self.le32(0) + Self.le64(entry.hwcap)
        }
        out += strings + hwcapsBytes
        if !hwcaps.isEmpty {
            out += Self.le32(0xEAA4_2174) + Self.le32(1)
            out += Self.le32(1) + Self.le32(0) + Self.le32(UInt32(hwcapsArray)) + Self.le32(UInt32(hwcapsBytes.count))
        }
        return out
    }

    /// Old `ld.so-1.7.0` format: 12-byte entries, strings after them.
    func oldFormat() -> [UInt8] {
        var strings: [UInt8] = []
        var out = Array("ld.so-1.7.0".utf8) + [0] + Self.le32(UInt32(entries.count))
        for entry in entries {
            let key = strings.count
            strings += Array(entry.name.utf8) + [0]
            let value = strings.count
            strings += Array(entry.path.utf8) + [0]
            out += Self.le32(UInt32(bitPattern: entry.flags)) + Self.le32(UInt32(key)) + Self.le32(UInt32(value))
        }
        return out + strings
    }

    /// Old format whose string area starts with an 8-byte aligned new-format cache.
    func compatFormat() -> [UInt8] {
        var out = Array("ld.so-1.7.0".utf8) + [0] + Self.le32(UInt32(entries.count))
        out += [UInt8](repeating: 0, count: entries.count * 12)  // old entries unused by new readers
        while out.count % 8 != 0 { out.append(0) }
        return out + newFormat()
    }
}
