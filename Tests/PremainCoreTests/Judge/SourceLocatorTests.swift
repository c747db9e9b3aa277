import Foundation
import PremainTestSupport
import XCTest

@testable import PremainAudit
@testable import PremainJudge
@testable import PremainModel

/// Where findings point in a checkout: the source root found from a folder, the build file and
/// its line naming a target, DWARF paths from this or another checkout; and the rules that
/// fill a finding's location from DWARF.
final class SourceLocatorTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = TemporaryFolders.root + "/premain-locator-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/repo/src/deep", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/repo/.git", withIntermediateDirectories: true)
        try "int a;\n".write(toFile: folder + "/repo/src/a.c", atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func write(_ text: String, _ name: String) throws {
        try text.write(toFile: folder + "/repo/" + name, atomically: true, encoding: .utf8)
    }

    func locator() -> SourceLocator {
        SourceLocator(
            scope: SourceScope(root: folder + "/repo", artifacts: [folder + "/out"], workingDirectory: folder))
    }

    func finding(
        _ rule: String, _ object: String, path: String?, symbol: String? = nil, location: SourceLocation? = nil
    ) -> Finding {
        Finding(
            rule: rule, severity: .warning, subject: .init(object: object, path: path, symbol: symbol), message: "m",
            advice: "a", location: location)
    }

    func testTheSourceRootIsTheNearestFolderWithGit() throws {
        XCTAssertEqual(SourceLocator.sourceRoot(from: folder + "/repo/src/deep"), folder + "/repo")
        XCTAssertEqual(SourceLocator.sourceRoot(from: folder + "/repo/src/deep/../"), folder + "/repo")
        // A worktree's .git is a file.
        try FileManager.default.createDirectory(atPath: folder + "/wt/sub", withIntermediateDirectories: true)
        try "gitdir: /elsewhere\n".write(toFile: folder + "/wt/.git", atomically: true, encoding: .utf8)
        XCTAssertEqual(SourceLocator.sourceRoot(from: folder + "/wt/sub"), folder + "/wt")
        // No checkout above: the folder itself.
        try FileManager.default.createDirectory(atPath: folder + "/plain/x", withIntermediateDirectories: true)
        let plain = SourceLocator.sourceRoot(from: folder + "/plain/x")
        XCTAssertTrue(plain == folder + "/plain/x" || !plain.hasPrefix(folder), plain)
    }

    func testTheBuildFileIsFoundInOrderAndNamesTargetsAndLibraries() throws {
        try write("app: main.o\n\tcc -o app main.o -lfoo\n", "Makefile")
        XCTAssertEqual(BuildFile.find(in: folder + "/repo")?.path, folder + "/repo/Makefile")
        try write(
            """
            # app and libfoo
            cmake_minimum_required(VERSION 3.20)
            project(demo C)
            add_library(foo SHARED foo.c)
            add_executable(app main.c)
            target_link_libraries(app foo m)

            """, "CMakeLists.txt")
        let cmake = try XCTUnwrap(BuildFile.find(in: folder + "/repo"))
        XCTAssertEqual(cmake.path, folder + "/repo/CMakeLists.txt", "CMakeLists.txt comes before Makefile")
        XCTAssertEqual(cmake.line(naming: BuildFile.targetNames(of: "libfoo.so.1")), 4)
        XCTAssertEqual(cmake.line(naming: BuildFile.targetNames(of: "app")), 5, "the comment on line 1 does not count")
        XCTAssertEqual(cmake.line(naming: BuildFile.targetNames(of: "libm.so.6")), 6)
        XCTAssertEqual(cmake.line(naming: BuildFile.targetNames(of: "libabsent.so")), 1)
        try write(
            """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(
                name: "demo-cli",
                products: [.library(name: "Engine", type: .dynamic, targets: ["Engine"])],
                targets: [.executableTarget(name: "demo-cli", dependencies: ["Engine"]), .target(name: "Engine")]
            )

            """, "Package.swift")
        let package = try XCTUnwrap(BuildFile.find(in: folder + "/repo"))
        XCTAssertEqual(package.path, folder + "/repo/Package.swift")
        XCTAssertEqual(package.line(naming: BuildFile.targetNames(of: "libEngine.so")), 5)
        XCTAssertEqual(
            package.line(naming: BuildFile.targetNames(of: "demo-cli")), 6,
            "the target, not the package of the same name")
        XCTAssertEqual(BuildFile.targetNames(of: "libfoo.so.1"), ["libfoo.so.1", "foo", "-lfoo", "libfoo"])
        XCTAssertEqual(BuildFile.targetNames(of: "libbar.a"), ["libbar.a", "bar", "-lbar", "libbar"])
        XCTAssertEqual(BuildFile.targetNames(of: "/x/app"), ["app"])
    }

    func testDWARFLinesInThisOrAnotherCheckoutAndTheBuildFileOtherwise() throws {
        try write("add_executable(app src/a.c)\nadd_library(mine SHARED m.c)\n", "CMakeLists.txt")
        let locator = locator()
        let root = folder + "/repo"
        let located = locator.locate([
            finding(
                "heavy_static_initializer", "app", path: folder + "/out/app", symbol: "f",
                location: SourceLocation(file: root + "/src/a.c", line: 3)),
            finding(
                "heavy_static_initializer", "app", path: folder + "/out/app", symbol: "g",
                location: SourceLocation(file: "/tmp/ci-worktree-1/src/a.c", line: 4)),
            finding(
                "heavy_static_initializer", "app", path: folder + "/out/app", symbol: "h",
                location: SourceLocation(file: "./src/a.c", line: 5)),
            finding(
                "iostream_static_initializer", "app", path: folder + "/out/app",
                location: SourceLocation(file: "/usr/include/c++/12/iostream", line: 74)),
            finding("textrel", "libmine.so", path: folder + "/out/libmine.so"),
            finding("unused_direct_dependency", "app", path: folder + "/out/app", symbol: "libmine.so"),
            finding("textrel", "libc.so.6", path: "/lib/x86_64-linux-gnu/libc.so.6"),
        ])
        XCTAssertEqual(
            located.map(\.location),
            [
                SourceLocation(file: root + "/src/a.c", line: 3),
                SourceLocation(file: root + "/src/a.c", line: 4),
                SourceLocation(file: root + "/src/a.c", line: 5),
                SourceLocation(file: root + "/CMakeLists.txt", line: 1),
                SourceLocation(file: root + "/CMakeLists.txt", line: 2),
                SourceLocation(file: root + "/CMakeLists.txt", line: 2),
                nil,
            ])
        XCTAssertEqual(
            located.map(\.fingerprint), located.map { Finding.fingerprint(rule: $0.rule, subject: $0.subject) })
    }

    func testWithoutABuildFileOnlyDWARFLinesInTheCheckoutAreSet() {
        let located = locator().locate([
            finding("textrel", "libmine.so", path: folder + "/out/libmine.so"),
            finding(
                "heavy_static_initializer", "app", path: folder + "/out/app",
                location: SourceLocation(file: "/elsewhere/gone.c", line: 2)),
        ])
        XCTAssertNil(located[0].location)
        XCTAssertEqual(located[1].location, SourceLocation(file: "/elsewhere/gone.c", line: 2), "left as DWARF says")
    }

    func testDependencyFindingsNameALibraryPathByItsFileName() {
        let closure = DependencyClosure(
            objects: [],
            missing: [
                MissingLibrary(
                    name: "/home/ci/build-7/lib/libgone.so", neededBy: "/home/ci/build-7/app", searched: [],
                    wrongClass: [])
            ])
        let program = ProgramClosure(name: "app", path: "/home/ci/build-7/app", closure: closure)
        let findings = MissingDependencyRule().check(
            RuleInput(closures: [program]), RuleConfig(MissingDependencyRule.description))
        XCTAssertEqual(findings.map(\.fingerprint), ["missing_dependency:app:libgone.so"])
        XCTAssertEqual(findings.first?.subject.path, "/home/ci/build-7/app")
        XCTAssertTrue(
            findings.first?.message.contains("/home/ci/build-7/lib/libgone.so") == true,
            "the message keeps the name as given")
    }

    func testInitializerFindingsCarryTheirDWARFLines() throws {
        let input = try RuleSamples.input("cxx-static-init/libinit.so")
        let entries = try XCTUnwrap(input.objects.first?.initializers.entries)
        for entry in entries where entry.toolchain { XCTAssertNil(entry.location, "\(entry.symbol ?? "?")") }
        let ctor = try XCTUnwrap(entries.first { $0.symbol == "premain_lib_ctor_c" }?.location)
        XCTAssertTrue(ctor.file.hasSuffix("/samples/cxx-static-init/ctor_c.c"), ctor.file)
        XCTAssertTrue((10...12).contains(ctor.line), "premain_lib_ctor_c is defined on line 10: \(ctor)")
        let many = ManyStaticInitializersRule().check(input, RuleConfig(ManyStaticInitializersRule.description))
        XCTAssertTrue(many.first?.location?.file.hasSuffix("/samples/cxx-static-init/registry.cpp") == true, "\(many)")
        let iostream = IostreamStaticInitializerRule().check(
            input, RuleConfig(IostreamStaticInitializerRule.description))
        XCTAssertTrue(
            iostream.first?.location?.file.hasSuffix("/samples/cxx-static-init/registry.cpp") == true, "\(iostream)")
        let plain = try RuleSamples.input("rules/libtextrel.so")
        XCTAssertNil(
            TextrelRule().check(plain, RuleConfig(TextrelRule.description)).first?.location,
            "a link-level finding has no line of its own")
    }
}
