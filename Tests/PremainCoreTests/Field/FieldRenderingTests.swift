import PremainTestSupport
import Testing

@testable import PremainField
@testable import PremainModel
@testable import PremainRender

/// Issue 33: the field renderers on a hand-built report (two temperatures of one version, a
/// small row whose p99 is its maximum, a mark), golden files in Tests/Golden, and compare's
/// verdicts on built reports.
struct FieldRenderingTests {
    /// Times in ms, spread evenly: `count` values from `from` in steps of `step`.
    static func times(_ count: Int, from: Double, step: Double) -> [Int64] {
        (0..<count).map { Int64(((from + Double($0) * step) * 1e6).rounded()) }
    }

    static func row(
        temperature: FieldTemperature, count: Int, from: Double, buildId: String = "3f9a1c0d2b7e4a5f",
        marks: Bool = false, step: Double = 0.01, estimated: Int = 0
    ) -> FieldRow {
        let toMain = FieldDistribution(nanoseconds: times(count, from: from, step: step))
        let loader = FieldDistribution(nanoseconds: times(count, from: from / 2, step: 0.005))
        let ready = marks ? FieldDistribution(nanoseconds: times(count - 3, from: from + 40, step: 0.05)) : nil
        return FieldRow(
            executable: "/usr/bin/tool", buildId: buildId, scenario: "serve", temperature: temperature, samples: count,
            estimatedBirths: estimated,
            timeToMain: toMain, loaderToMain: loader ?? FieldDistribution(nanoseconds: [1])!,
            marks: ready.map { [FieldMark(name: "ready", missing: 3, distribution: $0)] } ?? [])
    }

    static var report: FieldReport {
        let contract = FieldContract(
            population: FieldPopulation(
                launches: 1_093, hosts: 4, users: 2, boots: 6, oldestFileWrite: "2026-12-01T08:00:00Z",
                newestFileWrite: "2026-12-05T02:00:00Z"),
            clockSources: [
                FieldClockCount(source: .env, count: 1_000), FieldClockCount(source: .schedstat, count: 40),
                FieldClockCount(source: .none, count: 3),
            ],
            exclusions: FieldExclusion.allCases.enumerated().map { FieldExclusionCount($1, $0) }
                + [.withoutMark("ready", 3)],
            thresholds: FieldThresholds(), sources: ["/var/tmp/premain-field"])
        return FieldReport(
            tool: ToolInfo(name: "premain", version: "0.0.0-golden"),
            rows: [
                row(temperature: .warm, count: 1_000, from: 2.0, marks: true),
                row(temperature: .cold, count: 40, from: 25.0, estimated: 5),
            ], contract: contract)
    }

    @Test func textMarkdownAndHTMLMatchTheirGoldenFiles() throws {
        let report = Self.report
        let text = FieldTextRenderer.render(report)
        #expect(try GoldenFiles.mismatch("field.txt", text) == nil)
        #expect(try GoldenFiles.mismatch("field.md", FieldMarkdownRenderer.render(report)) == nil)
        let html = FieldHTMLRenderer.render(report)
        #expect(try GoldenFiles.mismatch("field.html", html) == nil)
        // The answer leads: the rows' p50 and p90 come before the contract.
        let answer = try #require(text.range(of: "p90 to main"))
        let contract = try #require(text.range(of: "Measurement contract"))
        #expect(answer.lowerBound < contract.lowerBound)
        #expect(text.contains("p99 of 40 launches is the maximum"))
        // Cold and warm are drawn apart: one panel each.
        #expect(html.contains("cold: 40 launches") && html.contains("warm: 1000 launches"))
    }

    static func comparison(oldFrom: Double, newFrom: Double, count: Int = 1_000, percent: Double = 5) throws
        -> FieldCompareReport
    {
        let old = FieldReport(
            rows: [row(temperature: .warm, count: count, from: oldFrom, buildId: "old1", step: 0.001)],
            contract: report.contract)
        let new = FieldReport(
            rows: [row(temperature: .warm, count: count, from: newFrom, buildId: "new2", step: 0.001)],
            contract: report.contract)
        return try FieldComparison.compare(
            old: old, new: new, oldSource: "old.json", newSource: "new.json", oldVersion: nil, newVersion: nil,
            settings: FieldCompareSettings(thresholdMs: 0.5, thresholdPercent: percent, gated: [.p50, .p90]),
            tool: ToolInfo(name: "premain", version: "0.0.0-golden"))
    }

    @Test func compareVerdictsFollowTheIntervalsAndTheThreshold() throws {
        #expect(try Self.comparison(oldFrom: 2.0, newFrom: 4.0).verdict == .regression)
        #expect(try Self.comparison(oldFrom: 4.0, newFrom: 2.0).verdict == .improvement)
        #expect(try Self.comparison(oldFrom: 2.0, newFrom: 2.02).verdict == .noChange)
        // A change whose interval straddles the threshold (+0.5 ms, [+0.437, +0.563]): undecided.
        #expect(try Self.comparison(oldFrom: 2.0, newFrom: 2.5, percent: 0).verdict == .inconclusive)
        // Too few launches for an interval of p90: inconclusive whatever the difference.
        #expect(try Self.comparison(oldFrom: 2.0, newFrom: 2.01, count: 20).verdict == .inconclusive)
        let regression = try Self.comparison(oldFrom: 2.0, newFrom: 4.0)
        let p50 = try #require(regression.rows.first?.percentiles.first)
        #expect(p50.percentile == .p50 && abs(p50.differenceMs - 2.0) < 1e-9)
        #expect(p50.lowMs.map { $0 > 1.5 } == true && p50.highMs.map { $0 < 2.5 } == true)
        #expect(regression.rows.first?.percentiles.filter(\.gated).map(\.percentile) == [.p50, .p90])
        #expect(try GoldenFiles.mismatch("field-compare.txt", FieldCompareTextRenderer.render(regression)) == nil)
        #expect(try GoldenFiles.mismatch("field-compare.md", FieldCompareMarkdownRenderer.render(regression)) == nil)
        #expect(try ReportSchemas.violations(JSONRenderer.render(regression), schema: "field-compare") == [])
    }

    @Test func twoVersionsOnOneSideMustBeChosen() throws {
        let both = FieldReport(
            rows: [
                Self.row(temperature: .warm, count: 100, from: 2, buildId: "aa"),
                Self.row(temperature: .warm, count: 100, from: 3, buildId: "bb"),
            ], contract: Self.report.contract)
        let settings = FieldCompareSettings(thresholdMs: 0.5, thresholdPercent: 5, gated: [.p50, .p90])
        #expect(throws: FieldComparison.Problem.self) {
            try FieldComparison.compare(
                old: both, new: both, oldSource: "a", newSource: "a", oldVersion: nil, newVersion: nil,
                settings: settings)
        }
        let chosen = try FieldComparison.compare(
            old: both, new: both, oldSource: "a", newSource: "a", oldVersion: "aa", newVersion: "bb", settings: settings
        )
        #expect(chosen.verdict == .regression)
    }
}
