import ELFKit
import Foundation
import PremainTestSupport
import Testing

/// `ELFFile.inflatingContents(of:)`: a compressed section inflated in part gives the same
/// bytes as libelf's whole decompression (`contents(of:)`), in both compression formats, and a
/// damaged stream stops at the damage.
struct ELFInflatingSectionTests {
    /// A gcc-built program with its DWARF compressed as SHF_COMPRESSED (`zlib`) and as GNU
    /// `.zdebug_*` sections (`zlib-gnu`).
    static let built: Result<(standard: String, gnu: String), SampleBuildError> = {
        guard let folder = try? TemporaryFolders.make("inflate") else {
            return .failure(SampleBuildError(message: "no temporary folder"))
        }
        let source = Repository.root + "/samples/c-hello/hello.c"
        let standard = folder + "/hello-zlib"
        let gnu = folder + "/hello-zlib-gnu"
        let steps = [
            ["gcc", "-g", "-O1", "-o", folder + "/hello", source],
            ["objcopy", "--compress-debug-sections=zlib", folder + "/hello", standard],
            ["objcopy", "--compress-debug-sections=zlib-gnu", folder + "/hello", gnu],
        ]
        for step in steps {
            guard let result = try? Shell.run(step), result.status == 0 else {
                return .failure(SampleBuildError(message: "\(step[0]) failed"))
            }
        }
        return .success((standard, gnu))
    }()

    /// Inflates `name` of `path` in steps of `stride` bytes, checking each prefix against
    /// libelf's whole decompression; returns the inflater.
    @discardableResult
    static func compare(_ path: String, _ names: [String], stride: Int) throws -> ELFInflatingSection {
        let file = try ELFFile(path: path)
        let section = try #require(file.sections.first { names.contains($0.name) })
        let inflating = try #require(file.inflatingContents(of: section))
        // libelf's decompression, of a second opening (the first keeps its section compressed).
        let other = try ELFFile(path: path)
        let whole = try #require(other.contents(of: section))
        #expect(inflating.reader.count == whole.count)
        var count = 1
        while true {
            #expect(inflating.inflate(upTo: count))
            #expect(inflating.available >= min(count, whole.count))
            guard count < whole.count else { break }
            count = min(count + stride, whole.count)
        }
        #expect(inflating.available == whole.count && inflating.failure == nil)
        #expect(inflating.reader.bytes.elementsEqual(whole.bytes))
        return inflating
    }

    @Test func standardAndGNUFormatsInflateAsLibelfDecompresses() throws {
        let built = try Self.built.get()
        try Self.compare(built.standard, [".debug_info"], stride: 7)
        try Self.compare(built.gnu, [".zdebug_info"], stride: 7)
        try Self.compare(built.gnu, [".zdebug_line"], stride: 1 << 20)
    }

    @Test func libcDebugLineInflatesOnlyAsFarAsAsked() throws {
        guard FileManager.default.fileExists(atPath: ELFSectionContentsTests.libcDebug) else { return }
        let file = try ELFFile(path: ELFSectionContentsTests.libcDebug)
        let section = try #require(file.section(named: ".debug_line"))
        let inflating = try #require(file.inflatingContents(of: section))
        #expect(inflating.inflate(upTo: 100))
        #expect(inflating.available < inflating.reader.count / 4)
        // A DWARF line program starts with its length, then version 5 here.
        #expect(inflating.reader.u16(at: 4) == 5)
        try Self.compare(ELFSectionContentsTests.libcDebug, [".debug_line"], stride: 300_000)
    }

    @Test func uncompressedSectionHasNoInflater() throws {
        let file = try ELFFile(path: "/bin/sh")
        let section = try #require(file.section(named: ".dynstr"))
        #expect(file.inflatingContents(of: section) == nil)
    }

    @Test func aDamagedStreamStopsAtTheDamage() throws {
        let path = try Self.built.get().standard
        let original = try ELFFile(path: path)
        let section = try #require(original.section(named: ".debug_info"))
        var bytes = try #require(FileManager.default.contents(atPath: path))
        // Damage the zlib stream after its 24-byte header and 2-byte zlib header.
        let start = Int(section.offset) + 26
        for index in start..<(start + 16) { bytes[index] ^= 0x5a }
        let file = try bytes.withUnsafeBytes { try ELFFile(memory: $0, path: "damaged") }
        let damaged = try #require(file.section(named: ".debug_info"))
        let inflating = try #require(file.inflatingContents(of: damaged))
        #expect(!inflating.inflate(upTo: inflating.reader.count))
        #expect(inflating.failure != nil)
        #expect(!inflating.inflate(upTo: inflating.reader.count))
    }
}
