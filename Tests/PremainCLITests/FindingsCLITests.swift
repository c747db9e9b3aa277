import Foundation
import PremainTestSupport
import XCTest

/// `premain rules`, `check` and `diff` as a user runs them: output, formats, exit codes.
final class FindingsCLITests: XCTestCase {
    func testRulesListsEveryRuleWithDefaults() throws {
        let result = try CLI.run(["rules", "--no-config"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stdout.contains("heavy_static_initializer (warning, measured)  objectThresholdMs=5 thresholdMs=1"),
            result.stdout)
        XCTAssertTrue(result.stdout.contains("textrel (error)"))
        XCTAssertTrue(result.stdout.contains("budget_time_to_main"))
        let json = try CLI.run(["rules", "--format", "json", "--no-config"])
        XCTAssertEqual(json.status, 0)
        XCTAssertTrue(json.stdout.contains("\"identifier\" : \"deep_dependency_chain\""))
        let help = try CLI.run(["help", "diff"])
        XCTAssertEqual(help.stdout, try CLI.run(["diff", "--help"]).stdout)
        XCTAssertTrue(help.stdout.hasPrefix("OVERVIEW: Compare the start-up of two builds"))
    }

    func testCheckExitCodesFollowFailOn() throws {
        let libinit = try Samples.path("cxx-static-init/libinit.so")
        let warning = try CLI.run(["check", "--no-config", libinit])
        XCTAssertEqual(warning.status, 0, "warnings pass at the default --fail-on error: \(warning.stdout)")
        XCTAssertTrue(warning.stdout.contains("warning: [many_static_initializers] libinit.so"))
        XCTAssertEqual(try CLI.run(["check", "--no-config", "--fail-on", "warning", libinit]).status, 1)
        XCTAssertEqual(
            try CLI.run(["check", "--no-config", "--fail-on", "note", try Samples.path("c-hello/c-hello")]).status, 0)
        XCTAssertEqual(try CLI.run(["check", "--no-config", try Samples.path("rules/libtextrel.so")]).status, 1)
        XCTAssertEqual(
            try CLI.run(["check", "--no-config", "--fail-on", "never", try Samples.path("rules/libtextrel.so")]).status,
            0)
        let missing = try CLI.run(["check", "--no-config", "/nonexistent/file"])
        XCTAssertEqual(missing.status, 3)
        XCTAssertEqual(missing.stderr, "Error: /nonexistent/file: no such file or folder\n")
        let usage = try CLI.run(["check", "--fail-on", "fatal", libinit])
        XCTAssertEqual(usage.status, 64)
        XCTAssertTrue(
            usage.stderr.hasPrefix(
                "Error: --fail-on must be one of note, warning, error, never, not 'fatal'\nUsage: premain check"))
    }

    func testBrokenConfigIsAUsageErrorNamingTheKey() throws {
        let folder = TemporaryFolders.root + "/premain-config-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{"budgets": {"maxClosureObject": 3}}"#.write(
            toFile: folder + "/premain.json", atomically: true, encoding: .utf8)
        let result = try CLI.run(["check", try Samples.path("c-hello/c-hello")], in: folder)
        XCTAssertEqual(result.status, 64)
        XCTAssertTrue(
            result.stderr.contains("budgets.maxClosureObject: unknown key; expected one of maxInitializersPerObject"),
            result.stderr)
        try #"{"budgets": {"maxInitializersPerObject": 0}}"#.write(
            toFile: folder + "/premain.json", atomically: true, encoding: .utf8)
        let budget = try CLI.run(
            ["check", "--format", "json", try Samples.path("cxx-static-init/libinit.so")], in: folder)
        XCTAssertEqual(budget.status, 1, "the nearest premain.json applies: \(budget.stdout)")
        XCTAssertTrue(budget.stdout.contains("\"rule\" : \"budget_initializers_per_object\""))
    }

    func testCheckWritesSARIF() throws {
        let result = try CLI.run([
            "check", "--no-config", "--format", "sarif", try Samples.path("relr/librelr-plain.so"),
        ])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stdout.contains("\"version\" : \"2.1.0\""))
        XCTAssertTrue(result.stdout.contains("\"ruleId\" : \"relative_relocations_without_relr\""))
        XCTAssertEqual(try SARIFValidation.schemaViolations(result.stdout), [])
        XCTAssertEqual(try SARIFValidation.absoluteURIs(result.stdout), [])
    }

    func testDiffOfSamplePairs() throws {
        let base = try Samples.path("pairs/base")
        let head = try Samples.path("pairs/head")
        let text = try CLI.run(["diff", "--no-config", base, head])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("+ needs libextra.so"), text.stdout)
        XCTAssertTrue(text.stdout.contains("exports: 11 -> 31"))
        XCTAssertTrue(text.stdout.contains("+ initializer premain_extra_ctor"))
        let markdown = try CLI.run(["diff", "--no-config", "--format", "markdown", base, head])
        XCTAssertTrue(
            markdown.stdout.hasPrefix("<!-- premain-report -->\n## premain: start-up report\n\n✅"), markdown.stdout)
        let usage = try CLI.run(["diff", base])
        XCTAssertEqual(usage.status, 64)
        XCTAssertTrue(usage.stderr.hasPrefix("Error: missing expected argument '<head>'"))
        XCTAssertEqual(try CLI.run(["diff", base, "/nonexistent"]).status, 3)
    }

    func testDiffOfMeasureReportsExitsTwoOnRegression() throws {
        let folder = TemporaryFolders.root + "/premain-diff-cli-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        /// Time to main moved by `shift`, CPU time by `cpuShift`.
        func report(_ shift: Double, cpuShift: Double = 0) -> String {
            func series(_ offset: Double) -> String {
                let samples = (0..<20).map { String(offset + Double($0 % 5) * 0.05) }.joined(separator: ", ")
                return "{\"medianMs\": \(offset + 0.1), \"samplesMs\": [\(samples)]}"
            }
            return """
                {"schemaVersion": 1, "measurements": [{"command": ["./app"], "runs": 20, "cold": false,
                  "conditions": {"machine": "test"},
                  "milestones": {"main": \(series(5 + shift))}, "targetCPUTime": \(series(4 + cpuShift)),
                  "objects": []}]}
                """
        }
        try report(0).write(toFile: folder + "/base.json", atomically: true, encoding: .utf8)
        try report(2, cpuShift: 2).write(toFile: folder + "/head.json", atomically: true, encoding: .utf8)
        try report(2).write(toFile: folder + "/drifted.json", atomically: true, encoding: .utf8)
        try report(0).write(toFile: folder + "/same.json", atomically: true, encoding: .utf8)
        let regressed = try CLI.run(["diff", "--no-config", folder + "/base.json", folder + "/head.json"])
        XCTAssertEqual(regressed.status, 2, regressed.stdout + regressed.stderr)
        XCTAssertTrue(regressed.stdout.contains("verdict: regression"))
        XCTAssertTrue(regressed.stdout.contains("backed by CPU time +2.000 ms"), regressed.stdout)
        // The same wall-time change with CPU time unchanged: drift cannot be ruled out.
        let drifted = try CLI.run(["diff", "--no-config", folder + "/base.json", folder + "/drifted.json"])
        XCTAssertEqual(drifted.status, 0, drifted.stdout + drifted.stderr)
        XCTAssertTrue(drifted.stdout.hasPrefix("verdict: unconfirmed\n"), drifted.stdout)
        let same = try CLI.run(["diff", "--no-config", folder + "/base.json", folder + "/same.json"])
        XCTAssertEqual(same.status, 0)
        let lenient = try CLI.run([
            "diff", "--no-config", "--min-effect-ms", "3", folder + "/base.json", folder + "/head.json",
        ])
        XCTAssertEqual(lenient.status, 0, "a 2 ms change is below a 3 ms minimum effect")
        try "{\"nothing\": 1}".write(toFile: folder + "/bad.json", atomically: true, encoding: .utf8)
        let bad = try CLI.run(["diff", "--no-config", folder + "/base.json", folder + "/bad.json"])
        XCTAssertEqual(bad.status, 3)
        XCTAssertTrue(bad.stderr.contains("not a premain report"), bad.stderr)
    }
}
