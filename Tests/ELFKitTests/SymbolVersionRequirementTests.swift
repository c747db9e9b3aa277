import ELFKit
import PremainTestSupport
import XCTest

/// The verneed reader that `relative_relocations_without_relr` relies on to learn the glibc a
/// program was linked against.
final class SymbolVersionRequirementTests: XCTestCase {
    func testTheTestRunnerRequiresGlibcVersionsOfLibc() throws {
        let file = try ELFFile(path: "/proc/self/exe")
        let versions = try XCTUnwrap(file.symbolVersions)
        let libc = try XCTUnwrap(versions.required["libc.so.6"])
        XCTAssertTrue(libc.contains("GLIBC_2.2.5"), "\(libc)")
    }

    func testLibcDefinesItsOwnVersions() throws {
        let file = try ELFFile(path: "/lib/x86_64-linux-gnu/libc.so.6")
        let defined = try XCTUnwrap(file.symbolVersions).defined
        // The version the running glibc states, read at run time.
        let running = try XCTUnwrap(HostFacts.glibcVersion)
        XCTAssertTrue(defined.contains("GLIBC_" + running), "GLIBC_\(running) not in \(defined.suffix(5))")
        XCTAssertFalse(defined.contains("libc.so.6"), "the base entry names the file and is left out")
    }

    /// The one-symbol read the binder uses gives, for every `.dynsym` entry, the name the
    /// whole table gives: requirements (the test runner, libstdc++) and definitions (libc),
    /// hidden ones too.
    func testOneSymbolVersionNameEqualsTheWholeTable() throws {
        for path in ["/proc/self/exe", "/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libstdc++.so.6"] {
            let file = try ELFFile(path: path)
            let table = try XCTUnwrap(file.dynamicSymbols, path)
            let versions = try XCTUnwrap(ELFFile(path: path).symbolVersions, path)
            var named = 0
            for index in -1...table.count {
                XCTAssertEqual(file.symbolVersionName(index), versions[index]?.name, "\(path) #\(index)")
                if versions[index] != nil { named += 1 }
            }
            XCTAssertGreaterThan(named, 0, path)
        }
    }
}
