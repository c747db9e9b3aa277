import ELFKit
import Foundation
import Testing

/// `ELFFile.contents(of:)`: a compressed section decompressed alone, an uncompressed one as its
/// file bytes, a broken stream refused with a diagnostic.
struct ELFSectionContentsTests {
    /// libc's separate debug file on Debian 12: its `.debug_*` sections are `SHF_COMPRESSED`.
    static let libcDebug = "/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug"

    /// `ch_size` of a compressed section: its size once decompressed (Elf64_Chdr, little-endian).
    static func statedSize(_ file: ELFFile, _ section: ELFSection) -> UInt64? {
        file.bytes(of: section)?.u64(at: 8)
    }

    @Test func decompressesOneSectionTwiceTheSame() throws {
        guard FileManager.default.fileExists(atPath: Self.libcDebug) else { return }
        let file = try ELFFile(path: Self.libcDebug)
        let section = try #require(file.section(named: ".debug_line"))
        #expect(section.flags & ELFSection.flagCompressed != 0)
        let contents = try #require(file.contents(of: section))
        #expect(UInt64(contents.count) == Self.statedSize(file, section))
        // A DWARF line program starts with its length, then version 5 here.
        #expect(contents.u16(at: 4) == 5)
        let again = try #require(file.contents(of: section))
        #expect(again.count == contents.count && again.bytes.baseAddress == contents.bytes.baseAddress)
        #expect(file.diagnostics.isEmpty)
    }

    @Test func uncompressedSectionsAreTheirFileBytes() throws {
        let file = try ELFFile(path: "/bin/sh")
        let section = try #require(file.section(named: ".dynstr"))
        let contents = try #require(file.contents(of: section))
        #expect(Array(contents.bytes) == Array(try #require(file.bytes(of: section)).bytes))
    }

    @Test func aBrokenStreamIsADiagnostic() throws {
        guard FileManager.default.fileExists(atPath: Self.libcDebug) else { return }
        let original = try ELFFile(path: Self.libcDebug)
        let section = try #require(original.section(named: ".debug_line"))
        var bytes = try #require(FileManager.default.contents(atPath: Self.libcDebug))
        // Damage the zlib stream after its 24-byte header.
        let start = Int(section.offset) + 24
        for index in start..<(start + 64) { bytes[index] ^= 0x5a }
        let file = try bytes.withUnsafeBytes { try ELFFile(memory: $0, path: "damaged.debug") }
        #expect(file.contents(of: try #require(file.section(named: ".debug_line"))) == nil)
        #expect(file.diagnostics.contains { $0.description.contains("does not decompress") })
    }
}
