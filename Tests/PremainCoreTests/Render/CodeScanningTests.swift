import Foundation
import PremainTestSupport
import XCTest

@testable import PremainJudge
@testable import PremainModel
@testable import PremainRender

/// SARIF for GitHub code scanning and `--format github` annotations, on hand-built findings:
/// where each finding is placed, which are left out, what the fingerprints hold, how values are
/// escaped. Every SARIF made here is checked against the OASIS schema.
final class CodeScanningTests: XCTestCase {
    /// Run from /src/app (the checkout); the artifacts were given as /tmp/artifacts and /usr/bin/ls.
    let scope = SourceScope(
        root: "/src/app", artifacts: ["/tmp/artifacts", "/usr/bin/ls"], workingDirectory: "/src/app")

    func finding(
        _ object: String, path: String?, symbol: String? = nil, location: SourceLocation? = nil,
        rule: String = "textrel", severity: Severity = .warning
    ) -> Finding {
        Finding(
            rule: rule, severity: severity, subject: .init(object: object, path: path, symbol: symbol),
            message: "\(object) is slow", advice: "Fix it", location: location)
    }

    func sarif(_ findings: [Finding]) throws -> String {
        let report = CheckReport(
            tool: ToolInfo(name: "premain", version: "0.1.0"), inputs: scope.artifacts, findings: findings,
            failOn: .error, errors: [])
        let text = try SARIFRenderer.render(report, catalog: RuleEngine().catalog, scope: scope)
        XCTAssertEqual(try SARIFValidation.schemaViolations(text), [])
        XCTAssertEqual(try SARIFValidation.absoluteURIs(text), [])
        return text
    }

    func testPlacesFindingsInTheCheckoutAndNeverWritesAnAbsolutePath() throws {
        let results = try SARIFValidation.results(
            try sarif([
                finding(
                    "libinit.so", path: "/tmp/artifacts/lib/libinit.so", symbol: "init()",
                    location: SourceLocation(file: "/src/app/Sources/Init/init.cpp", line: 42)),
                finding(
                    "libbuilt.so", path: "/tmp/artifacts/lib/libbuilt.so",
                    location: SourceLocation(file: "/src/app/Package.swift", line: 7)),
                // DWARF outside the checkout, binary in an artifact folder: the binary, relative to it.
                finding(
                    "liba.so", path: "/tmp/artifacts/lib/liba.so",
                    location: SourceLocation(file: "/home/ci/other/a.c", line: 3)),
                // A relative DWARF path the locator could not find: not trusted.
                finding("libr.so", path: "/tmp/artifacts/libr.so", location: SourceLocation(file: "src/r.c", line: 9)),
                finding("app", path: "/tmp/build-1234/out/app"),
                finding("tool", path: "build/tool"),
                finding("ls", path: "/usr/bin/ls"),
                finding("named only", path: nil),
            ]))
        XCTAssertEqual(
            results.map(\.uri),
            [
                "Sources/Init/init.cpp", "Package.swift", "lib/liba.so", "libr.so", "app",
                "build/tool", "ls", "named%20only",
            ])
        XCTAssertEqual(results.map(\.uriBaseId), ["SRCROOT", "SRCROOT", nil, nil, nil, "SRCROOT", nil, nil])
        XCTAssertEqual(results.map(\.startLine), [42, 7, nil, nil, nil, nil, nil, nil], "no line on a binary")
    }

    func testLeavesOutSystemAndToolchainLibraries() throws {
        let results = try SARIFValidation.results(
            try sarif([
                finding("libFoundation.so", path: "/opt/swift/usr/lib/swift/linux/libFoundation.so"),
                finding("libswiftCore.so", path: "/home/me/swift-6.1-RELEASE/usr/lib/swift/linux/libswiftCore.so"),
                finding("libc.so.6", path: "/lib/x86_64-linux-gnu/libc.so.6"),
                finding("libstdc++.so.6", path: "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"),
                finding("libmine.so", path: "/tmp/artifacts/lib/libmine.so"),
                finding("ls", path: "/usr/bin/ls"),
            ]))
        XCTAssertEqual(
            results.map(\.uri), ["lib/libmine.so", "ls"], "an artifact under a system folder is the project's")
    }

    func testFingerprintsAreRuleObjectNameAndSymbolWithoutFolders() throws {
        let one = finding(
            "app", path: "/tmp/copy-1/app", symbol: "f()", location: SourceLocation(file: "/src/app/a.c", line: 1))
        let two = finding(
            "app", path: "/tmp/copy-2/sub/app", symbol: "f()", location: SourceLocation(file: "/src/app/a.c", line: 9))
        var named = finding("/tmp/copy-3/app", path: nil, symbol: "f()")
        named.subject.object = "/tmp/copy-3/app"
        let fingerprints = try SARIFValidation.results(try sarif([one, two, named])).map(\.fingerprint)
        XCTAssertEqual(fingerprints, Array(repeating: "textrel:app:f()", count: 3))
    }

    func testDiffKeepsHeadsFindingsAndLeavesOutFixedOnes() throws {
        var report = RendererTests.diffReport()
        report.findings.unchanged.append(
            finding("libFoundation.so", path: "/opt/swift/usr/lib/swift/linux/libFoundation.so"))
        let text = try SARIFRenderer.render(report, catalog: RuleEngine().catalog, scope: RendererTests.scope)
        XCTAssertEqual(try SARIFValidation.schemaViolations(text), [])
        let results = try SARIFValidation.results(text)
        XCTAssertEqual(results.map(\.baselineState), ["new", "unchanged"])
        XCTAssertFalse(results.contains { $0.baselineState == "absent" })
        XCTAssertEqual(results.first?.startLine, 12)
    }

    func testGoldenFilesAreValidSARIF() throws {
        for name in ["check.sarif", "diff.sarif"] {
            let text = try String(contentsOfFile: Repository.root + "/Tests/Golden/" + name, encoding: .utf8)
            XCTAssertEqual(try SARIFValidation.schemaViolations(text), [], name)
            XCTAssertEqual(try SARIFValidation.absoluteURIs(text), [], name)
        }
    }

    func testTheValidatorRejectsWhatTheSchemaForbids() throws {
        let broken =
            #"{"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": [{"message": {}, "level": "fatal"}]}]}"#
        let problems = try SARIFValidation.schemaViolations(broken)
        XCTAssertTrue(
            problems.contains { $0.hasPrefix("runs/0/tool/driver: 'name' is a required property") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.hasPrefix("runs/0/results/0/level:") }, "\(problems)")
    }

    func testGitHubAnnotationsOneLinePerFindingWithFileLineAndTitle() {
        let findings = [
            finding(
                "libinit.so", path: "/tmp/artifacts/lib/libinit.so",
                location: SourceLocation(file: "/src/app/src/init.cpp", line: 42),
                rule: "heavy_static_initializer", severity: .error),
            finding("app", path: "/tmp/artifacts/app", rule: "copy_relocations", severity: .note),
            finding("libc.so.6", path: "/lib/x86_64-linux-gnu/libc.so.6"),
        ]
        let report = CheckReport(
            tool: ToolInfo(name: "premain", version: "0.1.0"), inputs: [], findings: findings, failOn: .error,
            errors: [])
        XCTAssertEqual(
            GitHubAnnotationRenderer.render(report, scope: scope),
            """
            ::error file=src/init.cpp,line=42,title=heavy_static_initializer::libinit.so is slow. Fix it
            ::notice title=copy_relocations::app is slow. Fix it

            """)
    }

    func testGitHubAnnotationsEscapeWhatWouldEndOrStartACommand() {
        let hostile = "a%b\r\nc,d:e::error::pwned"
        var bad = finding(hostile, path: nil, location: SourceLocation(file: "/src/app/dir,x/a:b%.c", line: 3))
        bad.message = hostile
        bad.advice = "x\ny"
        let line = GitHubAnnotationRenderer.line(bad, scope: scope)
        XCTAssertEqual(
            line, "::warning file=dir%2Cx/a%3Ab%25.c,line=3,title=textrel::a%25b%0D%0Ac,d:e::error::pwned. x%0Ay")
        XCTAssertFalse(line.contains("\n") || line.contains("\r"))
        XCTAssertEqual(GitHubAnnotationRenderer.escapeProperty("r:1,2%\n"), "r%3A1%2C2%25%0A")
        XCTAssertEqual(GitHubAnnotationRenderer.escapeData("r:1,2%\r"), "r:1,2%25%0D")
    }

    func testFindingJSONWithoutLocationStillDecodesAndNilIsLeftOut() throws {
        let old =
            #"{"rule": "textrel", "severity": "error", "subject": {"object": "liba.so"}, "message": "m", "advice": "a", "fingerprint": "textrel:liba.so"}"#
        let decoded = try JSONDecoder().decode(Finding.self, from: Data(old.utf8))
        XCTAssertNil(decoded.location)
        XCTAssertEqual(decoded.fingerprint, "textrel:liba.so")
        let encoded = String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self)
        XCTAssertFalse(encoded.contains("location"), encoded)
        var located = decoded
        located.location = SourceLocation(file: "/src/app/CMakeLists.txt", line: 4)
        let roundTrip = try JSONDecoder().decode(Finding.self, from: try JSONEncoder().encode(located))
        XCTAssertEqual(roundTrip.location, SourceLocation(file: "/src/app/CMakeLists.txt", line: 4))
    }
}
