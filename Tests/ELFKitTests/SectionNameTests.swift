import Foundation
import PremainTestSupport
import Testing

@testable import ELFKit

/// Section names as the open reads them (`SectionNames`): the same `String`s as
/// `String(cString:)` gives, and `section(named:)` finding what a search by `==` finds.
@Suite struct SectionNameTests {
    @Test func namesAreTheStringsACStringGives() {
        let names: [[UInt8]] =
            SectionNames.commonNames.map { Array($0.utf8) } + [
                Array(".text.unlikely.premain".utf8), Array("\u{212A}".utf8), [0xff, 0x41], [], Array("é".utf8),
                Array(".data.rel.ro.local.a-name-longer-than-fifteen-bytes".utf8),
            ]
        func check(_ bytes: [UInt8], _ base: UnsafePointer<CChar>, _ readable: Int) {
            let (name, hash) = SectionNames.name(base, readable: readable, in: SectionNames.table)
            let expected = String(cString: base)
            #expect(Array(name.utf8) == Array(expected.utf8))
            if bytes.allSatisfy({ $0 < 0x80 }) {
                #expect(hash == SectionNames.hash(of: name))
                #expect(hash != SectionNames.nonASCII)
            } else {
                #expect(hash == SectionNames.nonASCII)
                #expect(SectionNames.hash(of: name) == nil)
            }
        }
        // Each name alone in its table (read byte by byte near its end), and followed by bytes
        // of the table (read a word at a time), at each alignment.
        for bytes in names {
            for (padding, readable) in [(0, 0), (0, bytes.count + 1), (3, bytes.count + 9), (5, bytes.count + 40)] {
                let table =
                    Array(repeating: CChar(65), count: padding) + bytes.map { CChar(bitPattern: $0) } + [0]
                    + Array(repeating: CChar(66), count: max(0, readable - bytes.count - 1))
                table.withUnsafeBufferPointer { buffer in
                    guard let start = buffer.baseAddress else { return }
                    check(bytes, start + padding, readable)
                }
            }
        }
    }

    @Test func sectionNamedFindsWhatASearchByEqualityFinds() throws {
        let samples = try ["odd/decoy-dynstr.so", "odd/no-sections.so", "odd/libodd.so", "swift-startup/swift-startup"]
            .map(Samples.path)
        for path in ["/usr/bin/ls", "/usr/lib/x86_64-linux-gnu/libm.so.6"] + samples {
            guard let file = try? ELFFile(path: path) else { continue }
            for name in file.sections.map(\.name) + ["", ".nothing", "K", ".debug_info", ".comment"] {
                #expect(file.section(named: name) == file.sections.first { $0.name == name })
            }
        }
    }

    /// A name that is not ASCII is compared as `String`s compare (canonical equivalence: the
    /// Kelvin sign is "K"), whatever its hash.
    @Test func namesThatAreNotASCIIAreComparedAsStrings() throws {
        let folder = try TemporaryFolders.make("section-names")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = folder + "/libm.so.6"
        try FileManager.default.copyItem(atPath: "/usr/lib/x86_64-linux-gnu/libm.so.6", toPath: library)
        try "x".write(toFile: folder + "/payload", atomically: true, encoding: .utf8)
        let added = try Shell.run(["objcopy", "--add-section", "\u{212A}=\(folder)/payload", library])
        try #require(added.status == 0)
        let file = try ELFFile(path: library)
        let kelvin = try #require(file.sections.first { $0.name.unicodeScalars.first == "\u{212A}" })
        #expect(file.section(named: "K") == kelvin)
        #expect(file.section(named: "\u{212A}") == kelvin)
    }
}
