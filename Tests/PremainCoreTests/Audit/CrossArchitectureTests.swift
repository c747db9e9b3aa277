import Foundation
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import PremainTestSupport
import Testing

/// ELF32 and ELF64, both byte orders, seven machines: files linked by real cross binutils
/// (samples/cross-arch) must agree with readelf on every contract key.
@Suite struct CrossArchitectureTests {
    static let expectedTriples = [
        "aarch64-linux-gnu", "arm-linux-gnueabihf", "i686-linux-gnu", "powerpc-linux-gnu",
        "powerpc64-linux-gnu", "riscv64-linux-gnu", "s390x-linux-gnu",
    ]

    static func builtFiles() throws -> [String] {
        let root = try Samples.path("cross-arch")
        var files: [String] = []
        for triple in expectedTriples {
            for name in ["libdep.so", "libcross.so", "libcross-relr.so", "app"] {
                let path = "\(root)/\(triple)/\(name)"
                if FileManager.default.fileExists(atPath: path) { files.append(path) }
            }
        }
        return files
    }

    @Test func everyTripleWasBuilt() throws {
        let listed = try String(contentsOfFile: try Samples.path("cross-arch/TRIPLES"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(listed == Self.expectedTriples, "install the binutils-<triple> packages (scripts/setup)")
        #expect(try Self.builtFiles().count >= 21)
    }

    @Test func contractAgreesWithReadelfOnEveryArchitecture() throws {
        let check = ReadelfCrossCheckTests()
        for path in try Self.builtFiles() {
            try check.expectAgreement(path)
        }
    }

    @Test func classesByteOrdersAndInitializersAreRead() throws {
        let root = try Samples.path("cross-arch")
        let expectations: [(String, String, String)] = [
            ("s390x-linux-gnu", "ELF64", "big"), ("powerpc-linux-gnu", "ELF32", "big"),
            ("powerpc64-linux-gnu", "ELF64", "big"), ("arm-linux-gnueabihf", "ELF32", "little"),
            ("i686-linux-gnu", "ELF32", "little"), ("aarch64-linux-gnu", "ELF64", "little"),
            ("riscv64-linux-gnu", "ELF64", "little"),
        ]
        for (triple, elfClass, endianness) in expectations {
            let library = try InventoryBuilder.audit(path: "\(root)/\(triple)/libcross.so")
            #expect(library.header.elfClass.rawValue == elfClass, "\(triple)")
            #expect(library.header.endianness.rawValue == endianness, "\(triple)")
            #expect(library.header.soname == "libcross.so")
            #expect(library.needed == ["libdep.so"])
            #expect(library.initializers.entries.map(\.symbol) == ["ctor_one", "ctor_two"], "\(triple)")
            // Three local pointers in table; the exported constructors and imports are symbolic.
            #expect(library.relocations.relative == 3, "\(triple): \(library.relocations)")
            #expect(library.relocations.symbolic >= 4, "\(triple): \(library.relocations)")
            let app = try InventoryBuilder.audit(path: "\(root)/\(triple)/app")
            #expect(app.header.kind == .executable, "\(triple)")
            #expect(app.header.interpreter == "/lib/ld.so.1")
            #expect(app.initializers.entries.map(\.symbol) == ["app_ctor"], "\(triple)")
        }
    }
}
