import XCTest

@testable import PremainJudge
@testable import PremainModel

/// The JSON contract of `premain measure` and `premain trace` reports as rules and `diff`
/// read them: extra keys are ignored, trace milestones (taken under the tracer) are not
/// launches, and measure's objects keep where their initializers started.
final class ReportLoadingTests: XCTestCase {
    static let measure = """
        {"schemaVersion": 1, "tool": {"name": "premain", "version": "0.1.0"},
         "measurements": [{
           "command": ["./app", "--version"], "runs": 3, "warmup": 1, "cold": false, "status": "ok", "failures": [],
           "conditions": {"kernel": "6.1.0", "cpuModel": "Xeon", "onlineCPUs": 2, "glibcVersion": "2.36",
                          "pinning": {"target": 1, "measurer": 0}, "date": "2026-11-30T00:00:00Z"},
           "outcomes": [],
           "milestones": {
             "loaderStart": {"medianMs": 0.2, "p90Ms": 0.3, "minMs": 0.1, "maxMs": 0.3, "madMs": 0.05, "samplesMs": [0.2, 0.1, 0.3], "outliers": []},
             "loaderDone": {"medianMs": 1.0, "p90Ms": 1.1, "minMs": 0.9, "maxMs": 1.1, "madMs": 0.1, "samplesMs": [1.0, 0.9, 1.1], "outliers": []},
             "main": {"medianMs": 4.0, "p90Ms": 4.2, "minMs": 3.9, "maxMs": 4.2, "madMs": 0.1, "samplesMs": [4.0, 3.9, 4.2], "outliers": []},
             "exit": {"medianMs": 5.0, "p90Ms": 5.1, "minMs": 4.9, "maxMs": 5.1, "madMs": 0.1, "samplesMs": [5.0, 4.9, 5.1], "outliers": []}},
           "objects": [
             {"path": "/lib64/ld-linux-x86-64.so.2", "role": "loader"},
             {"path": "/build/lib/libcore.so", "role": "library",
              "initializersStart": {"medianMs": 1.5, "p90Ms": 1.5, "minMs": 1.5, "maxMs": 1.5, "madMs": 0, "samplesMs": [1.5, 1.5, 1.5], "outliers": []},
              "initializers": {"medianMs": 2.0, "p90Ms": 2.1, "minMs": 2.0, "maxMs": 2.1, "madMs": 0, "samplesMs": [2.0, 2.0, 2.1], "outliers": []}}],
           "warnings": []}]}
        """

    static let trace = """
        {"schemaVersion": 1, "bias": {"pairMs": 0.002, "source": "measured", "calibrationCalls": 1000},
         "measurements": [{
           "command": ["./app"], "runs": 5, "warmup": 1, "until": "exit", "maxCalls": 1000,
           "conditions": {"allowedCPUs": 2, "kernel": "6.1.0", "tracerPriorityRaised": false},
           "milestones": {"main": {"medianMs": 9.0, "p90Ms": 9.5, "minMs": 8.8, "maxMs": 9.6, "samplesMs": [9.0, 8.8, 9.6, 9.1, 9.5]}},
           "outcomes": [], "untimed": [], "notes": [],
           "functions": [
             {"object": "/build/lib/libcore.so", "symbol": "premain_core_ctor", "demangled": null, "kind": "constructorFunction",
              "calls": 1, "callsCapped": false, "unfinishedCalls": 0,
              "inclusive": {"medianMs": 2.01, "p90Ms": 2.02, "minMs": 2.0, "maxMs": 2.03, "samplesMs": [2.0, 2.01, 2.02, 2.03, 2.01]}},
             {"object": "/build/app", "symbol": "$s12SwiftStartup11homeCatalog_WZ", "demangled": "one-time initialization function for homeCatalog",
              "kind": "swiftLazyGlobal", "calls": 1, "callsCapped": false, "unfinishedCalls": 0,
              "inclusive": {"medianMs": 15.0, "p90Ms": 15.1, "minMs": 14.9, "maxMs": 15.2, "samplesMs": [15.0, 14.9, 15.2, 15.0, 15.1]}}]}]}
        """

    func testMeasureReport() throws {
        let input = try RuleInputLoader.report(Self.measure)
        XCTAssertEqual(input.objects, [])
        let launch = try XCTUnwrap(input.launches.first)
        XCTAssertEqual(launch.command, ["./app", "--version"])
        XCTAssertEqual(launch.runs, 3)
        XCTAssertEqual(launch.milestones[.main]?.samplesMs, [4.0, 3.9, 4.2])
        let conditions = DiffBuilder.conditionsText(launch.conditions)
        XCTAssertEqual(conditions["glibcVersion"], "2.36")
        XCTAssertEqual(conditions["pinning"], "pinned=false", "a pinning not in the report's shape reads as none")
        XCTAssertEqual(launch.objects.map(\.path), ["/lib64/ld-linux-x86-64.so.2", "/build/lib/libcore.so"])
        XCTAssertNil(launch.objects[0].initializers)
        XCTAssertEqual(launch.objects[1].initializersStart?.medianMs, 1.5)
        let timeline = DiffBuilder.timeline(launch.milestones, launch.objects)
        XCTAssertEqual(timeline.map(\.label), ["loader", "init libcore.so", "to exit"])
        XCTAssertEqual(timeline[0].endMs, 1.0)
        XCTAssertEqual(timeline[1].startMs, 1.5)
        XCTAssertEqual(timeline[1].endMs, 3.5)
    }

    func testTraceReportGivesFunctionsNotLaunches() throws {
        let input = try RuleInputLoader.report(Self.trace)
        XCTAssertEqual(input.launches, [], "milestones under the tracer are not launch times")
        XCTAssertEqual(input.functions.map(\.symbol), ["premain_core_ctor", "$s12SwiftStartup11homeCatalog_WZ"])
        XCTAssertEqual(input.functions[1].displayName, "one-time initialization function for homeCatalog")
        XCTAssertEqual(input.functions[0].calls, 1)
        let findings = RuleEngine().findings(input)
        XCTAssertEqual(
            Set(findings.map(\.fingerprint)),
            [
                "heavy_static_initializer:libcore.so:premain_core_ctor",
                "swift_lazy_global_on_startup_path:app:one-time initialization function for homeCatalog",
            ])
    }

    func testMeasureAndTraceTogetherDiffAgainstThemselves() throws {
        var input = try RuleInputLoader.report(Self.measure)
        input.merge(try RuleInputLoader.report(Self.trace))
        let report = DiffBuilder().diff(base: input, head: input, baseLabel: "a", headLabel: "b")
        XCTAssertEqual(
            report.measured.map(\.subject),
            [
                "loaderDone", "main", "exit", "libcore.so", "premain_core_ctor",
                "one-time initialization function for homeCatalog",
            ])
        XCTAssertTrue(
            report.measured.allSatisfy { $0.result.change == .noChange }, "\(report.measured.map(\.result.change))")
        XCTAssertEqual(report.verdict.status, .pass)
    }

    func testNotAReport() {
        XCTAssertThrowsError(try RuleInputLoader.report("[1, 2]"))
        XCTAssertThrowsError(try RuleInputLoader.report(#"{"schemaVersion": 1}"#)) { error in
            XCTAssertTrue("\(error)".contains("not a premain report"))
        }
    }
}
