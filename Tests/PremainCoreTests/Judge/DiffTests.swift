import PremainTestSupport
import XCTest

@testable import PremainJudge
@testable import PremainModel
@testable import PremainRender

/// `premain diff` on the sample pairs (samples/README.md §9): statically, with self-timed
/// launches (what the diff holds) and with recorded series (which way the verdict goes).
final class DiffTests: XCTestCase {
    func side(_ folder: String, runs: Int = 0) throws -> RuleInput {
        let path = try RuleSamples.path(folder)
        let loaded = RuleInputLoader().load([path])
        XCTAssertEqual(loaded.errors, [])
        var input = loaded.input
        if runs > 0 {
            let launches = try (0..<runs).map { _ in try SelfTimedRun.launch(path + "/app", costs: [:]) }
            input.launches = [SelfTimedRun.launchMeasurement(launches, program: path + "/app")]
            input.functions = SelfTimedRun.functions(launches, program: path + "/app")
        }
        return input
    }

    func testStaticDeltasNameEachChange() throws {
        let report = DiffBuilder().diff(
            base: try side("pairs/base"), head: try side("pairs/head"), baseLabel: "base", headLabel: "head")
        let app = try XCTUnwrap(report.objects.first { $0.name == "app" })
        XCTAssertEqual(app.status, .changed)
        XCTAssertEqual(app.neededAdded, ["libextra.so", "libm.so.6"])
        XCTAssertEqual(app.neededRemoved, [])
        let core = try XCTUnwrap(report.objects.first { $0.name == "libcore.so" })
        XCTAssertEqual(core.exports.base, 11)
        XCTAssertEqual(core.exports.head, 31)
        let extra = try XCTUnwrap(report.objects.first { $0.name == "libextra.so" })
        XCTAssertEqual(extra.status, .added)
        XCTAssertEqual(extra.initializersAdded, ["premain_extra_ctor"])
        XCTAssertEqual(report.measured, [])
        XCTAssertEqual(report.verdict.status, .pass)
    }

    func testIdenticalBuildsHaveNoStaticChange() throws {
        let report = DiffBuilder().diff(
            base: try side("pairs/aa-1"), head: try side("pairs/aa-2"), baseLabel: "a", headLabel: "b")
        XCTAssertEqual(report.objects.map(\.status), [.unchanged, .unchanged])
    }

    /// Both sides with `runs` launches each, interleaved (base, head, base, …) so that a busy
    /// moment of the shared machine hits both series alike.
    func interleaved(_ baseFolder: String, _ headFolder: String, runs: Int) throws -> (RuleInput, RuleInput) {
        var base = try side(baseFolder)
        var head = try side(headFolder)
        let basePath = try RuleSamples.path(baseFolder) + "/app"
        let headPath = try RuleSamples.path(headFolder) + "/app"
        var baseLaunches: [SelfTimedRun.Launch] = []
        var headLaunches: [SelfTimedRun.Launch] = []
        _ = try SelfTimedRun.launch(basePath, costs: [:])
        _ = try SelfTimedRun.launch(headPath, costs: [:])
        for _ in 0..<runs {
            baseLaunches.append(try SelfTimedRun.launch(basePath, costs: [:]))
            headLaunches.append(try SelfTimedRun.launch(headPath, costs: [:]))
        }
        base.launches = [SelfTimedRun.launchMeasurement(baseLaunches, program: basePath)]
        base.functions = SelfTimedRun.functions(baseLaunches, program: basePath)
        head.launches = [SelfTimedRun.launchMeasurement(headLaunches, program: headPath)]
        head.functions = SelfTimedRun.functions(headLaunches, program: headPath)
        return (base, head)
    }

    /// Real launches: what the diff is made of (milestones and functions on both sides, a
    /// verdict), not which way it goes; that depends on the machine (see the recorded tests).
    func testMeasuredDiffOfRealLaunchesNamesEachQuantity() throws {
        let (base, head) = try interleaved("pairs/base", "pairs/head", runs: 5)
        let report = DiffBuilder().diff(base: base, head: head, baseLabel: "base", headLabel: "head")
        XCTAssertTrue(VerdictStatus.written(by: .diff).contains(report.verdict.status), report.verdict.status.rawValue)
        let main = try XCTUnwrap(report.measured.first { $0.scope == .milestone && $0.subject == "main" })
        XCTAssertEqual(main.base?.samplesMs.count, 5)
        XCTAssertEqual(main.head?.samplesMs.count, 5)
        XCTAssertNotNil(main.result.deltaMs)
        XCTAssertNotNil(main.result.test, "5 runs a side are enough for the rank test")
        let core = try XCTUnwrap(report.measured.first { $0.scope == .function && $0.subject == "premain_core_ctor" })
        XCTAssertNotNil(core.base)
        XCTAssertNotNil(core.head)
        // Only head has the new constructor: added, whatever it took.
        let extra = try XCTUnwrap(report.measured.first { $0.scope == .function && $0.subject == "premain_extra_ctor" })
        XCTAssertEqual(extra.result.change, .added)
        XCTAssertNil(extra.base)
        XCTAssertEqual(extra.head?.samplesMs.count, 5)
        XCTAssertFalse(report.base.timeline.isEmpty)

        let (aa1, aa2) = try interleaved("pairs/aa-1", "pairs/aa-2", runs: 5)
        let aa = DiffBuilder().diff(base: aa1, head: aa2, baseLabel: "aa-1", headLabel: "aa-2")
        XCTAssertTrue(VerdictStatus.written(by: .diff).contains(aa.verdict.status), aa.verdict.status.rawValue)
        // Byte-identical builds: no new finding from the static rules. A measured rule may fire
        // on one side only when a real launch lands near its threshold.
        let measuredRules = Set(RuleEngine().catalog.rules.filter(\.description.measured).map(\.description.identifier))
        XCTAssertEqual(aa.findings.new.filter { !measuredRules.contains($0.rule) }, [], "byte-identical builds")
        XCTAssertTrue(aa.measured.contains { $0.scope == .milestone && $0.subject == "main" })
    }

    /// A side: the pair folder's binaries, audited, with recorded launches (20 runs each):
    /// main after `mainMs`, and the traced `functions` (object file name, symbol, ms).
    func recorded(
        _ folder: String, mainMs: Double, functions: [(object: String, symbol: String, ms: Double)],
        demangled: [String: String] = [:]
    ) throws -> RuleInput {
        var input = try side(folder)
        let measure = RecordedReports.measure(
            command: folder + "/app",
            milestones: [
                "main": RecordedReports.series(mainMs), "exit": RecordedReports.series(mainMs + 0.5),
            ])
        let trace = RecordedReports.trace(
            command: folder + "/app",
            functions: functions.map {
                RecordedReports.Function(
                    object: "/recorded/\(folder)/\($0.object)", symbol: $0.symbol, demangled: demangled[$0.symbol],
                    kind: $0.symbol.hasPrefix("$s") ? "swiftDefaultArgument" : "constructorFunction",
                    samplesMs: RecordedReports.series($0.ms))
            })
        input.launches = try RuleInputLoader.report(measure).launches
        input.functions = try RuleInputLoader.report(trace).functions
        return input
    }

    /// Recorded series: head's new 5 ms constructor moves main by 5 ms in every run, far
    /// beyond the minimum effect; the A/A pair's series are equal.
    /// The +155 % that cried wolf: identical builds whose separately measured series differ
    /// (the machine drifted between them). Nothing deterministic backs the change, so the
    /// verdict is "unconfirmed", which does not fail, and it says how to confirm.
    func testUnpairedWallTimeAloneIsUnconfirmed() throws {
        let core = (object: "libcore.so", symbol: "premain_core_ctor", ms: 2.0)
        var base = try recorded("pairs/aa-1", mainMs: 7.8, functions: [core])
        let head = try recorded("pairs/aa-2", mainMs: 19.9, functions: [core])
        base.launches[0].warnings = [
            MeasurementWarning(
                kind: .wideSpread, subject: "main", message: "MAD is 21 % of the median",
                advice: "the machine is noisy")
        ]
        let report = DiffBuilder().diff(base: base, head: head, baseLabel: "aa-1", headLabel: "aa-2")
        XCTAssertEqual(report.measured.first { $0.subject == "main" }?.result.change, .regression)
        XCTAssertEqual(report.verdict.status, .unconfirmed)
        XCTAssertTrue(report.verdict.reasons.first?.hasSuffix("in unpaired runs") == true, "\(report.verdict.reasons)")
        XCTAssertTrue(report.verdict.reasons.last?.contains("confirm with premain compare BASE HEAD") == true)
        XCTAssertEqual(report.warnings.map(\.kind), [.wideSpread, .unpaired])
        XCTAssertEqual(report.warnings.first?.message, "base: MAD is 21 % of the median")
        let markdown = DiffMarkdownRenderer.render(report)
        let lines = markdown.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[2], "⚠️ **Possible start-up regression, not confirmed**")
        XCTAssertTrue(
            lines.prefix(10).contains { $0.hasPrefix("> ⚠️ base\\: MAD is 21 % of the median") }, "\(lines.prefix(10))")
        XCTAssertTrue(DiffTextRenderer.render(report).contains("warnings:\n  ! base: MAD is 21 % of the median"))
    }

    func testRecordedRegressionIsFlaggedAndTheAAPairIsNot() throws {
        let core = (object: "libcore.so", symbol: "premain_core_ctor", ms: 2.0)
        let base = try recorded("pairs/base", mainMs: 4, functions: [core])
        let head = try recorded(
            "pairs/head", mainMs: 9, functions: [(object: "libextra.so", symbol: "premain_extra_ctor", ms: 5), core])
        let report = DiffBuilder().diff(base: base, head: head, baseLabel: "base", headLabel: "head")
        let main = try XCTUnwrap(report.measured.first { $0.scope == .milestone && $0.subject == "main" })
        XCTAssertEqual(main.result.change, .regression, "\(main)")
        XCTAssertEqual(try XCTUnwrap(main.result.deltaMs), 5, accuracy: 1e-9)
        XCTAssertEqual(report.verdict.status, .regression)
        XCTAssertTrue(
            report.verdict.reasons.first?.hasPrefix("time to main regressed by +5") == true, "\(report.verdict.reasons)"
        )
        let extra = try XCTUnwrap(report.measured.first { $0.scope == .function && $0.subject == "premain_extra_ctor" })
        XCTAssertEqual(extra.result.change, .added)
        XCTAssertEqual(try XCTUnwrap(extra.head?.medianMs), 5.02, accuracy: 1e-9)
        let unchanged = try XCTUnwrap(
            report.measured.first { $0.scope == .function && $0.subject == "premain_core_ctor" })
        XCTAssertEqual(unchanged.result.change, .noChange)
        XCTAssertTrue(
            report.findings.new.contains {
                $0.fingerprint == "heavy_static_initializer:libextra.so:premain_extra_ctor"
            },
            "\(report.findings.new.map(\.fingerprint))")

        let aa = DiffBuilder().diff(
            base: try recorded("pairs/aa-1", mainMs: 4, functions: [core]),
            head: try recorded("pairs/aa-2", mainMs: 4, functions: [core]), baseLabel: "aa-1", headLabel: "aa-2")
        XCTAssertEqual(aa.verdict.status, .pass, "\(aa.measured.map { ($0.subject, $0.result.change) })")
        XCTAssertTrue(aa.measured.allSatisfy { $0.result.change == .noChange }, "\(aa.measured.map(\.result.change))")
    }

    func testSlowerSwiftDefaultArgumentIsARegression() throws {
        let symbol = "$s12SwiftStartup13HomeViewModelC14summaryServiceAcA07SummaryG0C_tcfcfA_"
        let name = [
            symbol:
                "default argument 0 of SwiftStartup.HomeViewModel.init(summaryService: SwiftStartup.SummaryService) -> SwiftStartup.HomeViewModel"
        ]
        let base = try recorded(
            "pairs/swift-base", mainMs: 3, functions: [(object: "app", symbol: symbol, ms: 30)], demangled: name)
        let head = try recorded(
            "pairs/swift-head", mainMs: 3, functions: [(object: "app", symbol: symbol, ms: 60)], demangled: name)
        let report = DiffBuilder().diff(base: base, head: head, baseLabel: "swift-base", headLabel: "swift-head")
        let function = try XCTUnwrap(
            report.measured.first { $0.scope == .function && $0.subject.hasPrefix("default argument 0 of") })
        XCTAssertEqual(function.result.change, .regression)
        XCTAssertEqual(try XCTUnwrap(function.result.deltaMs), 30, accuracy: 1e-9)
        XCTAssertEqual(report.findings.new, [], "the finding was there before: same fingerprint")
        XCTAssertTrue(report.findings.unchanged.contains { $0.rule == "swift_default_argument_on_startup_path" })
        XCTAssertEqual(report.objects.filter { $0.status != .unchanged }.map(\.name), [], "only the cost changed")
    }

    func testFindingsMatchByFingerprintNotByFigureOrPath() {
        func finding(_ rule: String, _ object: String, _ symbol: String?, figure: Double, path: String) -> Finding {
            Finding(
                rule: rule, severity: .warning, subject: .init(object: object, path: path, symbol: symbol),
                figure: figure,
                threshold: 1, unit: "ms", message: "m \(figure)", advice: "a")
        }
        let base = [
            finding("heavy_static_initializer", "libinit.so", "ctor()", figure: 5, path: "/tmp/base/libinit.so"),
            finding("textrel", "libold.so", nil, figure: 0, path: "/tmp/base/libold.so"),
        ]
        let head = [
            finding("heavy_static_initializer", "libinit.so", "ctor()", figure: 9, path: "/tmp/head/libinit.so"),
            finding("many_static_initializers", "libnew.so", nil, figure: 4, path: "/tmp/head/libnew.so"),
        ]
        let delta = FindingsDelta(base: base, head: head)
        XCTAssertEqual(delta.new.map(\.fingerprint), ["many_static_initializers:libnew.so"])
        XCTAssertEqual(delta.fixed.map(\.fingerprint), ["textrel:libold.so"])
        XCTAssertEqual(delta.unchanged.map(\.fingerprint), ["heavy_static_initializer:libinit.so:ctor()"])
    }

    func testNewFindingAtFailOnFailsTheVerdict() throws {
        let base = try side("pairs/base")
        var head = base
        head.objects.append(try RuleSamples.input("rules/libtextrel.so").objects[0])
        let report = DiffBuilder(failOn: .error).diff(base: base, head: head, baseLabel: "b", headLabel: "h")
        XCTAssertEqual(report.verdict.status, .findings)
        XCTAssertEqual(report.findings.new.map(\.rule), ["textrel"])
        let lenient = DiffBuilder(failOn: .error).diff(base: head, head: head, baseLabel: "b", headLabel: "h")
        XCTAssertEqual(lenient.verdict.status, .pass, "an existing finding does not fail a pull request")
    }

    func testReportsRoundTripThroughJSONAndLoadAsASide() throws {
        let base = try side("pairs/base", runs: 3)
        let audit = AuditReport(binaries: base.objects, errors: [])
        let folder = TemporaryFolders.root + "/premain-diff-json-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try JSONRenderer.render(audit).write(toFile: folder + "/audit.json", atomically: true, encoding: .utf8)
        let launch = try XCTUnwrap(base.launches.first)
        try JSONRenderer.render(MeasureReport(measurements: [launch]))
            .write(toFile: folder + "/measure.json", atomically: true, encoding: .utf8)
        let trace = TraceReport(
            bias: TraceBias(pairMs: 0, costPerCallMs: nil, source: .given, calibrationCalls: 0),
            measurements: [
                TraceMeasurement(
                    command: launch.command, runs: launch.runs, warmup: 0, until: .exit, maxCalls: 1000,
                    conditions: launch.conditions, milestones: [:], outcomes: [], functions: base.functions,
                    untimed: [], notes: [])
            ])
        try JSONRenderer.render(trace).write(toFile: folder + "/trace.json", atomically: true, encoding: .utf8)
        let loaded = RuleInputLoader().load([folder])
        XCTAssertEqual(loaded.errors, [])
        XCTAssertEqual(loaded.input.objects, base.objects)
        XCTAssertEqual(loaded.input.launches, base.launches)
        XCTAssertEqual(loaded.input.functions, base.functions)

        let report = DiffBuilder().diff(base: loaded.input, head: loaded.input, baseLabel: "a", headLabel: "b")
        let decoded = try JSONRenderer.decode(DiffReport.self, from: try JSONRenderer.render(report))
        XCTAssertEqual(decoded, report)
    }
}
