import Foundation
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import XCTest

/// `premain diff` on the sample pairs (samples/README.md, pairs) fed with real `premain
/// measure` and `premain trace` output: each side is a copy of the pair's folder holding
/// measure.json and trace.json beside the binaries.
///
/// Robust on a busy 2-core machine without weakening the verdicts: both sides are measured in
/// interleaved rounds (base, head, base, …) whose series are pooled, so a compiler that takes a
/// CPU for a while slows both alike; and the measured change of the C pair is made large
/// (head's new constructor 8 ms through PREMAIN_SAMPLE_COST_EXTRA_MS, the Swift pair's default
/// argument 30 → 60 ms) while the thresholds stay the defaults (α 0.01, 0.5 ms or 5 %).
final class RealPairDiffTests: XCTestCase {
    /// Measure rounds × runs per round, and trace rounds (one run each) per side.
    static let measureRounds = 3
    static let measureRunsPerRound = 5
    static let traceRounds = 5

    struct Sides {
        var base: String
        var head: String
    }

    /// Copies both pair folders into a temporary folder and writes their measure.json and
    /// trace.json, measured in interleaved rounds with `environment` (`NAME=value`) set.
    func measuredSides(_ baseName: String, _ headName: String, environment: [String]) throws -> Sides {
        let folder = NSTemporaryDirectory() + "premain-real-pairs-\(getpid())-\(baseName)-\(headName)"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let sides = Sides(base: folder + "/base", head: folder + "/head")
        try FileManager.default.copyItem(atPath: try CLI.sample("pairs/" + baseName), toPath: sides.base)
        try FileManager.default.copyItem(atPath: try CLI.sample("pairs/" + headName), toPath: sides.head)
        var measures: [String: [[String: Any]]] = [:]
        var traces: [String: [[String: Any]]] = [:]
        for _ in 0..<Self.measureRounds {
            for side in [sides.base, sides.head] {
                measures[side, default: []].append(try premainJSON(environment, [
                    "measure", "--runs", String(Self.measureRunsPerRound), "--warmup", "1", "--no-observer",
                    "--discard-output", "--format", "json", "--", side + "/app"]))
            }
        }
        for _ in 0..<Self.traceRounds {
            for side in [sides.base, sides.head] {
                traces[side, default: []].append(try premainJSON(environment, [
                    "trace", "--runs", "1", "--warmup", "1", "--format", "json", "--", side + "/app"]))
            }
        }
        for side in [sides.base, sides.head] {
            try write(ReportPooling.pool(try XCTUnwrap(measures[side]), arrays: ["objects": ["path"]]), to: side + "/measure.json")
            try write(ReportPooling.pool(try XCTUnwrap(traces[side]), arrays: ["functions": ["object", "symbol"]]), to: side + "/trace.json")
        }
        return sides
    }

    func premainJSON(_ environment: [String], _ arguments: [String]) throws -> [String: Any] {
        let result = try CLI.run(environment + [CLI.binary] + arguments, executable: "/usr/bin/env")
        XCTAssertEqual(result.status, 0, "premain \(arguments.joined(separator: " ")): \(result.stderr)")
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    func write(_ object: [String: Any], to path: String) throws {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
    }

    func diff(_ sides: Sides, _ format: String = "text") throws -> CLI.Result {
        try CLI.run(["diff", "--no-config", "--format", format, sides.base, sides.head])
    }

    func testConstructorLibraryPairNamesEachChangeAndFlagsTheMeasuredOne() throws {
        let sides = try measuredSides("base", "head", environment: ["PREMAIN_SAMPLE_COST_EXTRA_MS=8"])
        let text = try diff(sides)
        XCTAssertEqual(text.status, 2, "a measured regression exits 2\n" + text.stdout + text.stderr)
        for change in ["verdict: regression", "time to main regressed by +", "+ needs libextra.so", "+ needs libm.so.6",
                       "exports: 11 -> 31", "+ initializer premain_extra_ctor", "closure of app: 3 -> 5 objects",
                       "new warning: Static initializer premain_extra_ctor in libextra.so takes"] {
            XCTAssertTrue(text.stdout.contains(change), "missing '\(change)' in\n" + text.stdout)
        }
        let json = try diff(sides, "json")
        let report = try JSONDecoder().decode(DiffReport.self, from: Data(json.stdout.utf8))
        let main = try XCTUnwrap(report.measured.first { $0.scope == .milestone && $0.subject == "main" })
        XCTAssertEqual(main.result.change, .regression, "\(main)")
        XCTAssertTrue((6...16).contains(try XCTUnwrap(main.result.deltaMs)), "\(main)")
        XCTAssertEqual(main.base?.samplesMs.count, Self.measureRounds * Self.measureRunsPerRound)
        let traced = try XCTUnwrap(report.measured.first { $0.scope == .function && $0.subject == "premain_extra_ctor" })
        XCTAssertEqual(traced.result.change, .added)
        XCTAssertTrue((7.5...16).contains(try XCTUnwrap(traced.head?.medianMs)), "\(traced)")
        let markdown = try diff(sides, "markdown")
        XCTAssertTrue(markdown.stdout.hasPrefix("<!-- premain-report -->\n## premain: start-up report\n\n"), markdown.stdout)
        XCTAssertTrue(markdown.stdout.contains("```mermaid\ngantt"), markdown.stdout)
    }

    func testSlowerSwiftDefaultArgumentIsTheMeasuredRegression() throws {
        let sides = try measuredSides("swift-base", "swift-head", environment: [])
        let json = try diff(sides, "json")
        XCTAssertEqual(json.status, 2, json.stderr)
        let report = try JSONDecoder().decode(DiffReport.self, from: Data(json.stdout.utf8))
        let function = try XCTUnwrap(report.measured.first { $0.scope == .function && $0.subject.hasPrefix("default argument 0 of") })
        XCTAssertEqual(function.result.change, .regression, "\(function)")
        XCTAssertTrue((25...45).contains(try XCTUnwrap(function.result.deltaMs)), "\(function)")
        let firstOutput = try XCTUnwrap(report.measured.first { $0.scope == .milestone && $0.subject == "firstOutput" })
        XCTAssertEqual(firstOutput.result.change, .regression, "\(firstOutput)")
        XCTAssertEqual(report.objects.filter { $0.status != .unchanged }.map(\.name), [], "only the cost changed, not the binary's facts")
        XCTAssertTrue(report.findings.unchanged.contains { $0.rule == "swift_default_argument_on_startup_path" })
    }

    func testAAPairIsNoChange() throws {
        let sides = try measuredSides("aa-1", "aa-2", environment: [])
        let json = try diff(sides, "json")
        let report = try JSONDecoder().decode(DiffReport.self, from: Data(json.stdout.utf8))
        XCTAssertEqual(json.status, 0, "\(report.measured.map { ($0.subject, $0.result.change, $0.result.deltaMs ?? 0) })")
        XCTAssertEqual(report.verdict.status, .pass)
        XCTAssertFalse(report.measured.isEmpty)
        XCTAssertFalse(report.measured.contains { $0.result.change == .regression || $0.result.change == .improvement })
        XCTAssertEqual(report.objects.map(\.status), [.unchanged, .unchanged])
    }

    /// `RuleInput(measure:)` and `RuleInput(trace:)` take the in-memory reports and see what
    /// the JSON reader sees, so `check` and `diff` give one answer whichever way the data came.
    func testInMemoryReportsReadLikeTheirJSON() throws {
        let app = try CLI.sample("pairs/head/app")
        let measureText = try CLI.run(["measure", "--runs", "3", "--no-observer", "--discard-output", "--format", "json", "--", app])
        let traceText = try CLI.run(["trace", "--runs", "2", "--format", "json", "--", app])
        XCTAssertEqual(measureText.status, 0, measureText.stderr)
        XCTAssertEqual(traceText.status, 0, traceText.stderr)
        let measure = try JSONDecoder().decode(MeasureReport.self, from: Data(measureText.stdout.utf8))
        let trace = try JSONDecoder().decode(TraceReport.self, from: Data(traceText.stdout.utf8))
        let fromMemory = RuleInput(measure: measure).launches
        XCTAssertEqual(fromMemory, try RuleInputLoader.report(measureText.stdout).launches)
        XCTAssertEqual(fromMemory.first?.milestones.main?.samplesMs.count, 3)
        let functions = RuleInput(trace: trace).functions
        XCTAssertEqual(functions, try RuleInputLoader.report(traceText.stdout).functions)
        XCTAssertTrue(functions.contains { $0.symbol == "premain_extra_ctor" }, "\(functions.map(\.symbol))")
        var input = RuleInputLoader().load([app]).input
        input.merge(RuleInput(measure: measure))
        input.merge(RuleInput(trace: trace))
        let findings = RuleEngine(config: PremainConfig()).findings(input)
        XCTAssertTrue(findings.contains { $0.rule == "heavy_static_initializer" && $0.subject.symbol == "premain_core_ctor" },
                      "\(findings.map(\.fingerprint))")
    }
}

/// Pools the series of several reports of one command (rounds of `measure` or `trace`) into
/// one report: every `{medianMs, samplesMs, …}` summary gets all rounds' samples, in round
/// order, and its median, p90, min and max recomputed; array entries are matched by `arrays`'
/// key fields (`objects` by path, `functions` by object and symbol).
enum ReportPooling {
    static func pool(_ reports: [[String: Any]], arrays: [String: [String]]) -> [String: Any] {
        guard var first = reports.first else { return [:] }
        var measurements = (first["measurements"] as? [[String: Any]]) ?? []
        for index in measurements.indices {
            let others = reports.dropFirst().compactMap { ($0["measurements"] as? [[String: Any]])?[safe: index] }
            measurements[index] = merge(measurements[index], others, arrays: arrays)
            measurements[index]["runs"] = ([measurements[index]] + others).reduce(0) { $0 + (($1["runs"] as? Int) ?? 0) }
        }
        first["measurements"] = measurements
        return first
    }

    static func merge(_ value: [String: Any], _ others: [[String: Any]], arrays: [String: [String]]) -> [String: Any] {
        if let samples = value["samplesMs"] as? [Double] {
            let all = samples + others.flatMap { ($0["samplesMs"] as? [Double]) ?? [] }
            return summary(all)
        }
        var result = value
        for (key, item) in value {
            if let object = item as? [String: Any] {
                result[key] = merge(object, others.compactMap { $0[key] as? [String: Any] }, arrays: arrays)
            } else if let entries = item as? [[String: Any]], let keys = arrays[key] {
                func identity(_ entry: [String: Any]) -> String { keys.map { "\(entry[$0] ?? "")" }.joined(separator: "\u{1F}") }
                let pools = others.map { Dictionary(($0[key] as? [[String: Any]] ?? []).map { (identity($0), $0) },
                                                    uniquingKeysWith: { first, _ in first }) }
                result[key] = entries.map { entry in merge(entry, pools.compactMap { $0[identity(entry)] }, arrays: arrays) }
            }
        }
        return result
    }

    static func summary(_ samples: [Double]) -> [String: Any] {
        guard let timing = TimeSummary(samplesMs: samples) else { return ["medianMs": 0, "samplesMs": [Double]()] }
        return ["medianMs": timing.medianMs, "p90Ms": timing.p90Ms, "minMs": timing.minMs, "maxMs": timing.maxMs,
                "samplesMs": samples]
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
