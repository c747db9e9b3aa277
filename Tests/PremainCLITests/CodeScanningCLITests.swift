import Foundation
import PremainModel
import PremainTestSupport
import XCTest

/// `premain check` and `diff` with `--format sarif` and `--format github` on the samples, as
/// GitHub code scanning reads them: valid against the OASIS schema, no absolute URI, a start
/// line on (nearly) every result, and fingerprints that do not depend on where the binaries are.
final class CodeScanningCLITests: XCTestCase {
    /// Valid SARIF without absolute URIs; its results.
    func validResults(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [SARIFValidation
        .Result]
    {
        XCTAssertEqual(try SARIFValidation.schemaViolations(text), [], file: file, line: line)
        XCTAssertEqual(try SARIFValidation.absoluteURIs(text), [], file: file, line: line)
        return try SARIFValidation.results(text)
    }

    func expectLines(
        _ results: [SARIFValidation.Result], _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let withLine = results.filter { $0.startLine != nil }.count
        XCTAssertFalse(results.isEmpty, what, file: file, line: line)
        XCTAssertGreaterThanOrEqual(
            Double(withLine), 0.9 * Double(results.count),
            "\(what): \(withLine) of \(results.count) results have region.startLine", file: file, line: line)
    }

    func testCheckOfEverySampleIsCodeScanningSARIF() throws {
        let result = try CLI.run([
            "check", "--no-config", "--fail-on", "never", "--format", "sarif", "--source-root", Repository.root,
            try Samples.directory.get(),
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let results = try validResults(result.stdout)
        expectLines(results, "check of the samples")
        XCTAssertTrue(results.allSatisfy { $0.uriBaseId == "SRCROOT" }, "\(results)")
        // Initializers point at their DWARF lines in samples/, link-level findings at Package.swift.
        // samples/odd's copies of libodd.so are made to lack sections and DWARF: their
        // initializers have no line to point at.
        let initializers = results.filter {
            ($0.ruleId == "many_static_initializers" || $0.ruleId == "iostream_static_initializer")
                && $0.fingerprint?.hasSuffix(":libodd.so") == false
        }
        XCTAssertFalse(initializers.isEmpty)
        for finding in initializers {
            XCTAssertEqual(finding.uri, "samples/cxx-static-init/registry.cpp", "\(finding)")
            XCTAssertGreaterThan(finding.startLine ?? 0, 0)
        }
        let textrel = try XCTUnwrap(results.first { $0.ruleId == "textrel" })
        XCTAssertEqual(textrel.uri, "Package.swift")
        XCTAssertEqual(textrel.startLine, 1, "Package.swift does not name libtextrel.so")
        XCTAssertTrue(
            results.allSatisfy { $0.fingerprint?.contains("/") == false }, "\(results.compactMap(\.fingerprint))")
    }

    /// base: libinit.so and librelr-packed.so; head: the same libinit.so, librelr-plain.so,
    /// libtextrel.so, and a trace of libinit.so made in another checkout (a CI worktree).
    func testDiffOfSamplesIsCodeScanningSARIF() throws {
        let folder = TemporaryFolders.root + "/premain-sarif-diff-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (side, files) in [
            ("base", ["cxx-static-init/libinit.so", "relr/librelr-packed.so"]),
            ("head", ["cxx-static-init/libinit.so", "relr/librelr-plain.so", "rules/libtextrel.so"]),
        ] {
            try FileManager.default.createDirectory(atPath: folder + "/" + side, withIntermediateDirectories: true)
            for file in files {
                try FileManager.default.copyItem(
                    atPath: try Samples.path(file), toPath: folder + "/" + side + "/" + ObjectName.fileName(file))
            }
        }
        let trace = RecordedReports.trace(
            command: "/ci/worktree/out/app",
            functions: [
                .init(
                    object: "/ci/worktree/out/libinit.so", symbol: "_GLOBAL__sub_I_registry.cpp",
                    kind: "cxxTranslationUnitInitializer",
                    samplesMs: RecordedReports.series(20),
                    source: ("/ci/worktree/samples/cxx-static-init/registry.cpp", 25))
            ])
        try trace.write(toFile: folder + "/head/trace.json", atomically: true, encoding: .utf8)
        let result = try CLI.run([
            "diff", "--no-config", "--fail-on", "never", "--format", "sarif", "--source-root", Repository.root,
            folder + "/base", folder + "/head",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let results = try validResults(result.stdout)
        expectLines(results, "diff of the samples")
        XCTAssertEqual(
            Set(results.map(\.baselineState)), ["new", "unchanged"], "fixed findings are left out: \(results)")
        XCTAssertEqual(
            Set(results.filter { $0.baselineState == "new" }.map(\.ruleId)),
            ["relative_relocations_without_relr", "textrel", "heavy_static_initializer"])
        let heavy = try XCTUnwrap(results.first { $0.ruleId == "heavy_static_initializer" })
        XCTAssertEqual(
            heavy.uri, "samples/cxx-static-init/registry.cpp", "the worktree's path, moved into this checkout")
        XCTAssertEqual(heavy.startLine, 25)
        XCTAssertEqual(heavy.fingerprint, "heavy_static_initializer:libinit.so:_GLOBAL__sub_I_registry.cpp")
        let github = try CLI.run([
            "diff", "--no-config", "--fail-on", "never", "--format", "github", "--source-root", Repository.root,
            folder + "/base", folder + "/head",
        ])
        XCTAssertEqual(github.stdout.split(separator: "\n").count, results.count, github.stdout)
        XCTAssertTrue(
            github.stdout.contains(
                "::warning file=samples/cxx-static-init/registry.cpp,line=25,title=heavy_static_initializer::"),
            github.stdout)
    }

    func testFingerprintsAndPlacesAreTheSameForTwoCopiesOfTheBinaries() throws {
        let folder = TemporaryFolders.root + "/premain-sarif-copies-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var logs: [[SARIFValidation.Result]] = []
        for copy in ["one", "two/nested"] {
            let target = folder + "/" + copy
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            for sample in ["cxx-static-init", "rules", "relr", "closure"] {
                let copied = try Shell.run(["cp", "-a", try Samples.path(sample), target + "/"])
                XCTAssertEqual(copied.status, 0, copied.stderr)
            }
            let result = try CLI.run([
                "check", "--no-config", "--fail-on", "never", "--format", "sarif", "--source-root", Repository.root,
                target,
            ])
            XCTAssertEqual(result.status, 0, result.stderr)
            logs.append(try validResults(result.stdout).sorted { ($0.fingerprint ?? "") < ($1.fingerprint ?? "") })
        }
        XCTAssertGreaterThan(logs[0].count, 5)
        XCTAssertEqual(logs[0].map(\.fingerprint), logs[1].map(\.fingerprint))
        XCTAssertEqual(logs[0].map(\.uri), logs[1].map(\.uri))
        XCTAssertEqual(logs[0].map(\.startLine), logs[1].map(\.startLine))
    }

    func testGitHubAnnotationsAndSourceRootErrors() throws {
        let libinit = try Samples.path("cxx-static-init/libinit.so")
        let result = try CLI.run([
            "check", "--no-config", "--format", "github", "--source-root", Repository.root, libinit,
            try Samples.path("rules/libtextrel.so"),
        ])
        XCTAssertEqual(result.status, 1, "textrel is an error")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, result.stdout)
        XCTAssertTrue(
            lines.contains {
                $0.hasPrefix("::error file=Package.swift,line=1,title=textrel::libtextrel.so has text relocations")
            }, result.stdout)
        XCTAssertTrue(
            lines.contains {
                $0.hasPrefix("::warning file=samples/cxx-static-init/registry.cpp,line=")
                    && $0.contains(",title=many_static_initializers::")
            },
            result.stdout)
        XCTAssertTrue(
            lines.contains {
                $0.hasPrefix("::notice file=samples/cxx-static-init/registry.cpp,line=")
                    && $0.contains(",title=iostream_static_initializer::")
            },
            result.stdout)
        let usage = try CLI.run(["check", "--source-root", "/nonexistent/root", libinit])
        XCTAssertEqual(usage.status, 64)
        XCTAssertTrue(
            usage.stderr.hasPrefix("Error: --source-root '/nonexistent/root' is not a folder\nUsage: premain check"),
            usage.stderr)
    }
}
