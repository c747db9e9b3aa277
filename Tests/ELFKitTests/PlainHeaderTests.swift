import Foundation
import PremainTestSupport
import Testing

@testable import ELFKit

/// The open reads plain headers from the mapped bytes and hands every other file to libelf
/// (`ELFFile.plainHeader`): both readings must give the same file, and a file that is not plain
/// must keep libelf's diagnostics.
@Suite struct PlainHeaderTests {
    /// What an open decides: header fields, tables, diagnostics, or the error.
    static func opened(_ bytes: [UInt8], throughLibelf: Bool) -> String {
        do {
            let file = try bytes.withUnsafeBytes {
                try ELFFile(memory: $0, path: "test.elf", throughLibelf: throughLibelf)
            }
            return description(file)
        } catch let error as ELFOpenError {
            return "error \(error.reason): \(error.message)"
        } catch {
            return "error \(error)"
        }
    }

    static func description(_ file: ELFFile) -> String {
        """
        \(file.elfClass) \(file.endianness) \(file.machine) \(file.type) \(file.entry) \(file.osABI) \(file.flags)
        \(file.segments)
        \(file.sections)
        \(file.diagnostics)
        \(file.interpreter ?? "-") \(file.dynamicEntries) \(file.neededLibraries)
        """
    }

    /// Expects both readings of `bytes` to agree; returns whether the headers are plain.
    @discardableResult
    static func expectSameReading(_ bytes: [UInt8], _ label: String) -> Bool {
        let direct = opened(bytes, throughLibelf: false)
        let libelf = opened(bytes, throughLibelf: true)
        #expect(direct == libelf, "\(label)")
        return bytes.withUnsafeBytes { ELFFile.plainHeader($0) != nil }
    }

    static let library: [UInt8] = {
        let path = (try? Samples.path("cxx-static-init/libinit.so")) ?? "/usr/lib/x86_64-linux-gnu/libz.so.1"
        return FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
    }()

    @Test func realFilesReadTheSameFromTheMappingAsThroughLibelf() throws {
        var plain = 0
        let folder = "/usr/lib/x86_64-linux-gnu"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted() ?? []
        let paths = ["/usr/bin/ls", "/opt/swift/usr/bin/swift-demangle"] + names.prefix(120).map { folder + "/" + $0 }
        for path in paths {
            guard let direct = try? ELFFile(path: path) else { continue }
            let libelf = try ELFFile(path: path, throughLibelf: true)
            #expect(Self.description(direct) == Self.description(libelf), "\(path)")
            #expect(direct.buildID == libelf.buildID, "\(path)")
            if ELFFile.plainHeader(direct.image) != nil { plain += 1 }
        }
        #expect(plain > 20)
    }

    @Test func soundLibraryIsPlain() {
        #expect(Self.library.count > 4096)
        #expect(Self.expectSameReading(Self.library, "original"))
    }

    /// Header fields set to values libelf reads specially: each such file goes to libelf.
    @Test func damagedHeaderFieldsKeepLibelfsReading() {
        let original = Self.library
        guard original.count > 64, original[4] == 2 else { return }
        let shoff = Int(Self.read(original, 40, 8))
        let shnum = Int(Self.read(original, 60, 2))
        let cases: [(String, [(Int, Int, UInt64)], Bool)] = [
            ("EI_VERSION 0", [(6, 1, 0)], false),
            ("e_phentsize", [(54, 2, 40)], false),
            ("e_shentsize", [(58, 2, 48)], false),
            ("e_shstrndx out of range", [(62, 2, UInt64(shnum + 3))], false),
            ("SHN_XINDEX, sh_link 0", [(62, 2, 0xffff)], false),
            ("SHN_XINDEX via section 0", [(62, 2, 0xffff), (shoff + 40, 4, UInt64(shnum - 1))], false),
            ("e_shnum 0 with e_shoff", [(60, 2, 0)], false),
            ("e_shnum in section 0", [(60, 2, 0), (shoff + 32, 8, UInt64(shnum))], false),
            ("PN_XNUM", [(56, 2, 0xffff)], false),
            ("e_phoff 0", [(32, 8, 0)], false),
            ("e_phoff past the end", [(32, 8, UInt64(original.count - 8))], false),
            ("e_shoff past the end", [(40, 8, UInt64(original.count))], false),
            ("e_shoff overflowing", [(40, 8, UInt64.max - 8)], false),
            ("no program headers, e_phoff past the end", [(56, 2, 0), (32, 8, UInt64(original.count + 1))], false),
            ("no program headers", [(56, 2, 0)], true),
            ("no sections", [(60, 2, 0), (40, 8, 0), (62, 2, 0)], true),
            ("no section names", [(62, 2, 0)], true),
        ]
        for (label, patches, plain) in cases {
            var bytes = original
            for (offset, width, value) in patches { Self.write(&bytes, offset, width, value) }
            #expect(Self.expectSameReading(bytes, label) == plain, "\(label)")
        }
    }

    /// A plain file whose section-name table is odd: names as `elf_strptr` gives them.
    @Test func oddSectionNameTablesReadAsLibelfReadsThem() {
        let original = Self.library
        guard original.count > 64, original[4] == 2 else { return }
        let shoff = Int(Self.read(original, 40, 8))
        let names = shoff + Int(Self.read(original, 62, 2)) * 64
        let namesOffset = Int(Self.read(original, names + 24, 8))
        let namesSize = Int(Self.read(original, names + 32, 8))
        let cases: [(String, [(Int, Int, UInt64)])] = [
            ("names not SHT_STRTAB", [(names + 4, 4, 1)]),
            ("names compressed", [(names + 8, 8, 0x800)]),
            ("names outside the file", [(names + 24, 8, UInt64(original.count))]),
            ("names overflowing", [(names + 32, 8, UInt64.max)]),
            ("names empty", [(names + 32, 8, 0)]),
            ("last name without NUL", [(namesOffset + namesSize - 1, 1, 0x41)]),
            ("no NUL at all", [(names + 32, 8, 3), (namesOffset, 3, 0x41_4141)]),
            ("name offset past the table", [(shoff + 64, 4, UInt64(namesSize + 5))]),
            ("name offset at the table's end", [(shoff + 64, 4, UInt64(namesSize))]),
            ("non-ASCII name", [(namesOffset + 1, 2, 0xa9c3)]),
        ]
        for (label, patches) in cases {
            var bytes = original
            for (offset, width, value) in patches { Self.write(&bytes, offset, width, value) }
            Self.expectSameReading(bytes, label)
        }
    }

    /// Hand-made ELF32 big-endian and little-endian files, and their truncations.
    @Test func handMadeThirtyTwoBitFilesReadTheSame() {
        for bigEndian in [false, true] {
            let bytes = Self.elf32(bigEndian: bigEndian)
            #expect(Self.expectSameReading(bytes, "elf32 big-endian \(bigEndian)"))
            let direct = Self.opened(bytes, throughLibelf: false)
            #expect(direct.contains("name: \".text\""))
            #expect(direct.contains("name: \".shstrtab\""))
            for length in stride(from: 16, to: bytes.count, by: 7) {
                Self.expectSameReading(Array(bytes[0..<length]), "elf32 big-endian \(bigEndian), \(length) bytes")
            }
        }
    }

    /// Random bytes changed in the headers and tables of a sound file (a fixed sequence): both
    /// readings agree.
    @Test func randomDamageReadsTheSame() {
        let original = Self.library
        guard original.count > 64, original[4] == 2 else { return }
        let shoff = Int(Self.read(original, 40, 8))
        let seed: UInt64 = 0x5eed_e1f0
        var state = seed
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        for _ in 0..<400 {
            var bytes = original
            for _ in 0..<(1 + next() % 4) {
                let region = next() % 3
                let offset =
                    region == 0
                    ? 16 + next() % 48 : region == 1 ? shoff + next() % max(1, original.count - shoff) : next() % 0x300
                if offset < bytes.count { bytes[offset] = UInt8(truncatingIfNeeded: next()) }
            }
            Self.expectSameReading(bytes, "random damage, seed \(seed)")
        }
    }

    // MARK: Bytes

    static func read(_ bytes: [UInt8], _ offset: Int, _ width: Int) -> UInt64 {
        (0..<width).reversed().reduce(0) { $0 << 8 | UInt64(bytes[offset + $1]) }
    }

    static func write(_ bytes: inout [UInt8], _ offset: Int, _ width: Int, _ value: UInt64) {
        for index in 0..<width where offset + index < bytes.count {
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt64(8 * index))
        }
    }

    /// An ELF32 file: header, two program headers (`PT_LOAD`, `PT_INTERP`), an interpreter,
    /// `.text`, `.shstrtab` and four section headers (null, `.text`, `.interp`, `.shstrtab`).
    static func elf32(bigEndian: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        func put(_ value: UInt64, _ width: Int) {
            for index in 0..<width {
                let shift = bigEndian ? 8 * (width - 1 - index) : 8 * index
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
        let interp = Array("/lib/ld.so\0".utf8)
        let names = Array("\0.text\0.interp\0.shstrtab\0".utf8)
        let phoff = 52
        let interpAt = phoff + 2 * 32
        let textAt = interpAt + interp.count
        let namesAt = textAt + 8
        let shoff = (namesAt + names.count + 3) & ~3
        bytes += [0x7f, 0x45, 0x4c, 0x46, 1, bigEndian ? 2 : 1, 1, 0] + [UInt8](repeating: 0, count: 8)
        put(2, 2)  // ET_EXEC
        put(bigEndian ? 8 : 3, 2)  // EM_MIPS, EM_386
        put(1, 4)
        put(0x1000, 4)  // e_entry
        put(UInt64(phoff), 4)
        put(UInt64(shoff), 4)
        put(0x5, 4)  // e_flags
        put(52, 2)
        put(32, 2)
        put(2, 2)
        put(40, 2)
        put(4, 2)
        put(3, 2)
        // PT_LOAD of the whole file, then PT_INTERP.
        for (type, offset, size, flags) in [(1, 0, shoff + 4 * 40, 5), (3, interpAt, interp.count, 4)] {
            put(UInt64(type), 4)
            put(UInt64(offset), 4)
            put(UInt64(0x1000 + offset), 4)
            put(UInt64(0x1000 + offset), 4)
            put(UInt64(size), 4)
            put(UInt64(size), 4)
            put(UInt64(flags), 4)
            put(4096, 4)
        }
        bytes += interp
        bytes += [0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xc3]
        bytes += names
        bytes += [UInt8](repeating: 0, count: shoff - bytes.count)
        let headers: [(name: Int, type: Int, flags: Int, offset: Int, size: Int)] = [
            (0, 0, 0, 0, 0), (1, 1, 6, textAt, 8), (7, 1, 2, interpAt, interp.count), (15, 3, 0, namesAt, names.count),
        ]
        for header in headers {
            put(UInt64(header.name), 4)
            put(UInt64(header.type), 4)
            put(UInt64(header.flags), 4)
            put(header.flags & 2 != 0 ? UInt64(0x1000 + header.offset) : 0, 4)
            put(UInt64(header.offset), 4)
            put(UInt64(header.size), 4)
            put(0, 4)
            put(0, 4)
            put(1, 4)
            put(0, 4)
        }
        return bytes
    }
}
