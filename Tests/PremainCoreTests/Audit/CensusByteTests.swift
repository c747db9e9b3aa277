import ELFKit
import PremainModel
import PremainTestSupport
import Testing

@testable import PremainAudit

/// The byte tests the census makes before its `String` tests (issue 37) decide as those do.
@Suite struct CensusByteTests {
    @Test func hexIsStringRadix16() {
        for value: UInt64 in [0, 1, 9, 10, 15, 16, 0xff, 0x1139, 0x7fb4c0, 1 << 63, .max, 0x0123_4567_89ab_cdef] {
            #expect(hex(value) == "0x" + String(value, radix: 16))
        }
    }

    /// `hexValue` reads what `hex` writes, and anything else as the `radix: 16` parse does.
    @Test func hexValueIsTheRadix16Parse() {
        for value: UInt64 in [0, 1, 0xf, 0x10, 0x7fb4c0, .max] { #expect(hexValue(hex(value)) == value) }
        for text in [
            "0x", "0xg", "0x+ff", "0x-0", "0xFF", "0x00000000000000001", "0x10000000000000000", "ff", "0X1", "",
        ] {
            let expected = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : nil
            #expect(hexValue(text) == expected, "\(text)")
        }
    }

    /// The build ID (read by bytes from the GNU note) is the one readelf prints, on files of
    /// GNU ld and lld, with and without a `.symtab`.
    @Test func buildIDsAreThoseReadelfPrints() throws {
        let paths = [
            "/usr/bin/ls", "/lib/x86_64-linux-gnu/libc.so.6", "/opt/swift/usr/bin/swift-format",
            "/opt/swift/usr/lib/swift/linux/libswiftCore.so",
        ]
        for path in paths {
            let printed = try Shell.run(["readelf", "-n", path])
            let line = printed.stdout.split(separator: "\n").first { $0.contains("Build ID:") }
            let expected = line.flatMap { $0.split(separator: " ").last.map(String.init) }
            #expect(expected != nil, "\(path)")
            #expect(try ELFFile(path: path).buildID == expected, "\(path)")
        }
    }

    @Test func bytePrefixesAreTheBytesOfTheName() {
        #expect("_GLOBAL__sub_I_x".utf8HasPrefix("_GLOBAL__"))
        #expect("_GLOBAL__".utf8HasPrefix("_GLOBAL__"))
        #expect(!"_GLOBAL_".utf8HasPrefix("_GLOBAL__"))
        #expect(!"_global__x".utf8HasPrefix("_GLOBAL__"))
        #expect("".utf8HasPrefix(""))
        // Bytes, not Characters: a mark joining the prefix's last byte still matches.
        #expect("_Z\u{301}".utf8HasPrefix("_Z"))
        #expect(!"_Z\u{301}".hasPrefix("_Z"))
    }

    @Test func toolchainNamesAreThoseOfTheSet() {
        for name in InitializerClassifier.toolchainNames { #expect(InitializerClassifier.isToolchainName(name)) }
        for name in ["", "frame_dummyx", "frame_dumm", "_init\u{301}", "_GLOBAL__sub_I_main.cpp", "main"] {
            #expect(!InitializerClassifier.isToolchainName(name), "\(name)")
        }
    }

    @Test func swiftNamesAndMetadataSections() {
        for name in ["$s4main1xSivp", "$S4main", "_$s4main", "_$S4main", "$e4main", "_T0main"] {
            #expect(Demangler.isSwift(name), "\(name)")
        }
        for name in ["", "$", "_", "_Z3foov", "_T1main", "$x", "s4main", "$\u{301}s4main", "_$\u{301}s4main"] {
            #expect(!Demangler.isSwift(name), "\(name)")
        }
        for name in SwiftSuspects.metadataSectionNames { #expect(SwiftSuspects.isMetadataSection(name)) }
        for name in [".text", "swift5_entry", "swift5_", "swift5_typesx", "", "s"] {
            #expect(!SwiftSuspects.isMetadataSection(name), "\(name)")
        }
    }
}
