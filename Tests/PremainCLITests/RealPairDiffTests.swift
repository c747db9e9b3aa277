import Foundation
import PremainJudge
import PremainModel
import PremainTestSupport
import XCTest

/// `premain diff` on the sample pairs (samples/README.md, pairs): each side is a copy of the
/// pair's folder holding measure.json and trace.json beside the binaries. With real `premain
/// measure` and `premain trace` output the tests check what the diff is made of and that its
/// exit status goes with its verdict; which way the verdict goes depends on the machine, so
/// that is checked on recorded reports (built in code), where it is decided in advance.
final class RealPairDiffTests: XCTestCase {
    struct Sides {
        var base: String
        var head: String
    }

    /// Copies both pair folders into a fresh temporary folder, removed after the test.
    func copiedSides(_ baseName: String, _ headName: String) throws -> Sides {
        let folder = TemporaryFolders.root + "/premain-real-pairs-\(getpid())-\(baseName)-\(headName)"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let sides = Sides(base: folder + "/base", head: folder + "/head")
        try FileManager.default.copyItem(atPath: try Samples.path("pairs/" + baseName), toPath: sides.base)
        try FileManager.default.copyItem(atPath: try Samples.path("pairs/" + headName), toPath: sides.head)
        return sides
    }

    /// Both sides with the measure.json (`runs` runs) and trace.json (`traceRuns` runs) of real
    /// launches with `environment` set.
    func measuredSides(
        _ baseName: String, _ headName: String, runs: Int = 3, traceRuns: Int = 2,
        environment: [String: String] = [:]
    ) throws -> Sides {
        let sides = try copiedSides(baseName, headName)
        for side in [sides.base, sides.head] {
            for arguments in [
                ["measure", "--runs", String(runs), "--no-observer", "--discard-output"],
                ["trace", "--runs", String(traceRuns)],
            ] {
                let result = try CLI.run(
                    arguments + [
                        "--warmup", "1", "--format", "json", "--output",
                        side + "/\(arguments[0]).json", "--", side + "/app",
                    ],
                    environment: environment)
                XCTAssertEqual(result.status, 0, "premain \(arguments[0]) \(side)/app: \(result.stderr)")
            }
        }
        return sides
    }

    /// Both sides with recorded reports: main after `mainMs` (20 runs) and the functions
    /// (object file name, symbol, ms) traced, on each side.
    func recordedSides(
        _ baseName: String, _ headName: String,
        base: (mainMs: Double, functions: [(object: String, symbol: String, ms: Double)]),
        head: (mainMs: Double, functions: [(object: String, symbol: String, ms: Double)])
    ) throws -> Sides {
        let sides = try copiedSides(baseName, headName)
        for (side, recorded) in [(sides.base, base), (sides.head, head)] {
            try RecordedReports.measure(
                command: side + "/app",
                milestones: [
                    "main": RecordedReports.series(recorded.mainMs),
                    "exit": RecordedReports.series(recorded.mainMs + 0.5),
                ]
            ).write(toFile: side + "/measure.json", atomically: true, encoding: .utf8)
            try RecordedReports.trace(
                command: side + "/app",
                functions: recorded.functions.map {
                    RecordedReports.Function(
                        object: side + "/lib/" + $0.object, symbol: $0.symbol, kind: "constructorFunction",
                        samplesMs: RecordedReports.series($0.ms))
                }
            ).write(toFile: side + "/trace.json", atomically: true, encoding: .utf8)
        }
        return sides
    }

    func diff(_ sides: Sides, _ format: String = "text") throws -> CLI.Result {
        try CLI.run(["diff", "--no-config", "--format", format, sides.base, sides.head])
    }

    /// The JSON diff of `sides`, checked for what every diff of two measured sides holds: a
    /// verdict premain knows, the exit status of that verdict, main and exit measured on both
    /// sides with a difference.
    func measuredDiff(_ sides: Sides, runs: Int, file: StaticString = #filePath, line: UInt = #line) throws
        -> DiffReport
    {
        let json = try diff(sides, "json")
        let report = try JSONDecoder().decode(DiffReport.self, from: Data(json.stdout.utf8))
        XCTAssertTrue(
            VerdictStatus.written(by: .diff).contains(report.verdict.status), report.verdict.status.rawValue,
            file: file, line: line)
        XCTAssertTrue(
            report.verdict.status.exitCode(failOn: .error).rawValue == json.status,
            "exit \(json.status) for verdict \(report.verdict.status)", file: file, line: line)
        for milestone in ["main", "exit"] {
            let delta = try XCTUnwrap(
                report.measured.first { $0.scope == .milestone && $0.subject == milestone }, milestone,
                file: file, line: line)
            XCTAssertEqual(delta.base?.samplesMs.count, runs, "\(delta)", file: file, line: line)
            XCTAssertEqual(delta.head?.samplesMs.count, runs, "\(delta)", file: file, line: line)
            XCTAssertNotNil(delta.result.deltaMs, "\(delta)", file: file, line: line)
        }
        return report
    }

    func testConstructorLibraryPairOnRealLaunchesNamesEachChange() throws {
        let sides = try measuredSides("base", "head")
        let report = try measuredDiff(sides, runs: 3)
        let traced = try XCTUnwrap(
            report.measured.first { $0.scope == .function && $0.subject == "premain_extra_ctor" })
        XCTAssertEqual(traced.result.change, .added, "only head has it")
        XCTAssertEqual(traced.head?.samplesMs.count, 2)
        let text = try diff(sides)
        XCTAssertTrue(report.verdict.status.exitCode(failOn: .error).rawValue == text.status, text.stdout + text.stderr)
        XCTAssertTrue(text.stdout.contains("verdict: \(report.verdict.status)"), text.stdout)
        for change in [
            "+ needs libextra.so", "+ needs libm.so.6", "exports: 11 -> 31", "+ initializer premain_extra_ctor",
            "closure of app: 3 -> 5 objects",
        ] {
            XCTAssertTrue(text.stdout.contains(change), "missing '\(change)' in\n" + text.stdout)
        }
        let markdown = try diff(sides, "markdown")
        XCTAssertTrue(
            markdown.stdout.hasPrefix("<!-- premain-report -->\n## premain: start-up report\n\n"), markdown.stdout)
        XCTAssertTrue(markdown.stdout.contains("```mermaid\ngantt"), markdown.stdout)
    }

    func testSwiftAndAAPairsOnRealLaunchesGiveACompleteDiff() throws {
        let swift = try measuredDiff(try measuredSides("swift-base", "swift-head"), runs: 3)
        let function = try XCTUnwrap(
            swift.measured.first { $0.scope == .function && $0.subject.hasPrefix("default argument 0 of") })
        XCTAssertEqual(function.base?.samplesMs.count, 2)
        XCTAssertEqual(function.head?.samplesMs.count, 2)
        XCTAssertEqual(
            swift.objects.filter { $0.status != .unchanged }.map(\.name), [],
            "only the cost changed, not the binary's facts")
        let aa = try measuredDiff(try measuredSides("aa-1", "aa-2"), runs: 3)
        XCTAssertEqual(aa.objects.map(\.status), [.unchanged, .unchanged])
        // No new finding from the static rules; a measured rule may fire on one side only when a
        // real launch lands near its threshold.
        let measuredRules = Set(RuleEngine().catalog.rules.filter(\.description.measured).map(\.description.identifier))
        XCTAssertEqual(aa.findings.new.filter { !measuredRules.contains($0.rule) }, [])
    }

    /// Recorded: head's new constructor takes 8 ms and main comes 8 ms later in every run.
    func testRecordedRegressionExitsTwoAndNamesTheCause() throws {
        let core = (object: "libcore.so", symbol: "premain_core_ctor", ms: 2.0)
        let sides = try recordedSides(
            "base", "head", base: (mainMs: 4, functions: [core]),
            head: (mainMs: 12, functions: [(object: "libextra.so", symbol: "premain_extra_ctor", ms: 8), core]))
        let text = try diff(sides)
        XCTAssertEqual(text.status, 2, "a measured regression exits 2\n" + text.stdout + text.stderr)
        for line in [
            "verdict: regression", "time to main regressed by +8", "+ needs libextra.so",
            "new warning: Static initializer premain_extra_ctor in libextra.so takes",
        ] {
            XCTAssertTrue(text.stdout.contains(line), "missing '\(line)' in\n" + text.stdout)
        }
        let report = try measuredDiff(sides, runs: 20)
        let main = try XCTUnwrap(report.measured.first { $0.scope == .milestone && $0.subject == "main" })
        XCTAssertEqual(main.result.change, .regression, "\(main)")
        XCTAssertEqual(try XCTUnwrap(main.result.deltaMs), 8, accuracy: 1e-9)
    }

    func testRecordedAAPairIsNoChange() throws {
        let core = (object: "libcore.so", symbol: "premain_core_ctor", ms: 2.0)
        let sides = try recordedSides(
            "aa-1", "aa-2", base: (mainMs: 4, functions: [core]), head: (mainMs: 4, functions: [core]))
        let report = try measuredDiff(sides, runs: 20)
        XCTAssertEqual(report.verdict.status, .pass)
        XCTAssertEqual(try diff(sides).status, 0)
        XCTAssertTrue(
            report.measured.allSatisfy { $0.result.change == .noChange }, "\(report.measured.map(\.result.change))")
        XCTAssertEqual(report.objects.map(\.status), [.unchanged, .unchanged])
    }

    /// `RuleInput(measure:)` and `RuleInput(trace:)` take the in-memory reports and see what
    /// the JSON reader sees, so `check` and `diff` give one answer whichever way the data came.
    func testInMemoryReportsReadLikeTheirJSON() throws {
        let app = try Samples.path("pairs/head/app")
        let measureText = try CLI.run([
            "measure", "--runs", "3", "--no-observer", "--discard-output", "--format", "json", "--", app,
        ])
        let traceText = try CLI.run(["trace", "--runs", "2", "--format", "json", "--", app])
        XCTAssertEqual(measureText.status, 0, measureText.stderr)
        XCTAssertEqual(traceText.status, 0, traceText.stderr)
        let measure = try JSONDecoder().decode(MeasureReport.self, from: Data(measureText.stdout.utf8))
        let trace = try JSONDecoder().decode(TraceReport.self, from: Data(traceText.stdout.utf8))
        let fromMemory = RuleInput(measure: measure).launches
        XCTAssertEqual(fromMemory, try RuleInputLoader.report(measureText.stdout).launches)
        XCTAssertEqual(fromMemory.first?.milestones[.main]?.samplesMs.count, 3)
        let functions = RuleInput(trace: trace).functions
        XCTAssertEqual(functions, try RuleInputLoader.report(traceText.stdout).functions)
        XCTAssertTrue(functions.contains { $0.symbol == "premain_extra_ctor" }, "\(functions.map(\.symbol))")
        let audited = RuleInputLoader().load([app]).input
        var inMemory = audited
        inMemory.merge(RuleInput(measure: measure))
        inMemory.merge(RuleInput(trace: trace))
        var fromJSON = audited
        fromJSON.merge(try RuleInputLoader.report(measureText.stdout))
        fromJSON.merge(try RuleInputLoader.report(traceText.stdout))
        let engine = RuleEngine(config: PremainConfig())
        XCTAssertEqual(engine.findings(inMemory), engine.findings(fromJSON))
    }
}
