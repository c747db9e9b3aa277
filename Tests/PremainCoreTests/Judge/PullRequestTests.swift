import Foundation
import PremainLaunch
import PremainTestSupport
import Testing

@testable import PremainJudge
@testable import PremainModel
@testable import PremainRender

/// `premain pr`'s verdict and comment on recorded data: comparisons built from scripted
/// launches (`CompareTests`), the static diff hand-built (`RendererTests`). Nothing is launched.
struct PullRequestTests {
    /// The C pair's static diff without measured quantities (as `pr` builds it): one new
    /// warning, nothing at error, so the static part passes.
    static func staticDiff(failing: Bool = false) -> DiffReport {
        var diff = RendererTests.diffReport()
        diff.measured = []
        diff.base.timeline = []
        diff.head.timeline = []
        if failing {
            diff.findings.new.append(
                RendererTests.finding("textrel", .error, "libcore.so", nil, "libcore.so has text relocations"))
        }
        diff.verdict = DiffBuilder().verdictFor(findings: diff.findings, measured: [], backing: [])
        return diff
    }

    /// A comparison as `premain compare` reports it, every figure given (so the comment does
    /// not change with compare's statistics): time to main and first output 1 ms slower,
    /// backed by CPU time, on a drifting machine.
    static func comparison(_ verdict: CompareVerdict, stop: CompareReport.Runs.Stop = .decided) -> CompareReport {
        func series(_ median: Double) -> TimeSummary {
            TimeSummary(samplesMs: (0..<24).map { median + Double($0 % 4) * 0.01 }) ?? .zero
        }
        func time(_ quantity: TimeComparison.Quantity, _ base: Double, _ change: Double, gated: Bool) -> TimeComparison
        {
            let interval = PairedInterval(
                estimate: change, low: change - 0.05, high: change + 0.04, level: 0.95, count: 24)
            let result: QuantityResult =
                verdict == .regression && change > 0.5 ? .regression : verdict == .inconclusive ? .undecided : .noChange
            return TimeComparison(
                quantity: quantity, gated: gated, base: series(base), head: series(base + change),
                difference: TimeDifference(interval), thresholdMs: 0.5, result: result)
        }
        let change = verdict == .regression ? 1.0 : 0.02
        let reasons: [String] =
            switch verdict {
            case .regression:
                [
                    "time to main +1.000 ms (+16.0 %), 95 % interval +0.950 ms … +1.040 ms, above the 0.500 ms threshold",
                    "backed by CPU time +0.990 ms",
                ]
            case .inconclusive: ["time to main undecided at the run limit (--max-runs)"]
            default: ["every gated interval lies inside its threshold"]
            }
        let lookups = CountSummary(samples: Array(repeating: 100, count: 24))
        return CompareReport(
            tool: ToolInfo(name: "premain", version: "0.1.0"), verdict: verdict, reasons: reasons,
            warnings: [
                MeasurementWarning(
                    kind: .drift, subject: "base", message: "the machine's speed drifted",
                    advice: "interleaved pairs cancel drift")
            ],
            base: .init(label: "base/app", path: "/base/app"), head: .init(label: "head/app", path: "/head/app"),
            arguments: ["--version"],
            runs: .init(perSide: 24, warmup: 1, blocks: Array(repeating: "ABBA", count: 12), seconds: 2.5, stop: stop),
            times: [
                time(.milestone(.main), 6.2, change, gated: true),
                time(.milestone(.firstOutput), 6.3, change, gated: true),
                time(.milestone(.loaderDone), 0.8, 0, gated: false), time(.cpuTime, 4.0, change, gated: false),
            ],
            counts: lookups.map {
                [
                    CountComparison(
                        quantity: .symbolLookups, base: $0, head: $0, difference: nil, threshold: 1, result: .noChange)
                ]
            } ?? [],
            settings: CompareSettings(), conditions: CompareTests.conditions)
    }

    static let regression = comparison(.regression)
    static let noChange = comparison(.noChange)
    static let inconclusive = comparison(.inconclusive, stop: .maxRuns)

    static func report(_ measured: PullRequestBuilder.Measured, failing: Bool = false) -> PullRequestReport {
        var report = PullRequestBuilder.report(
            diff: staticDiff(failing: failing), measured: measured, command: ["app", "--version"],
            skipped: .init(
                base: SkippedFiles(objects: 148, objectExtensions: [".o", ".pcm"], others: 5),
                head: SkippedFiles(objects: 150, objectExtensions: [".o", ".pcm"], others: 5)))
        report.tool = ToolInfo(name: "premain", version: "0.1.0")
        return report
    }

    @Test func verdictIsTheWorstOfMeasuredAndStatic() throws {
        func status(_ measured: PullRequestBuilder.Measured, failing: Bool = false) -> PullRequestReport.Verdict.Status
        {
            Self.report(measured, failing: failing).verdict.status
        }
        #expect(status(.compared(Self.regression)) == .regression)
        #expect(status(.compared(Self.regression), failing: true) == .regression)
        #expect(status(.compared(Self.noChange)) == .pass)
        #expect(status(.compared(Self.noChange), failing: true) == .findings)
        #expect(status(.compared(Self.inconclusive)) == .inconclusive)
        #expect(status(.compared(Self.inconclusive), failing: true) == .findings)
        #expect(status(.notMeasured("no --run given", .noRun)) == .notMeasured)
        #expect(status(.notMeasured("no --run given", .noRun), failing: true) == .findings)
        #expect(status(.notMeasured("app: no such executable file", .missingExecutable)) == .notMeasured)
        #expect(status(.notMeasured("cannot start app", .launchFailed)) == .runFailed)
        var failed = Self.inconclusive
        failed.runs.stop = .failed
        failed.head.failures = ["1 of 16 runs: exited with status 3"]
        #expect(status(.compared(failed)) == .runFailed)
        // A failed run is "not measured", with the failure; the comparison so far is kept, folded.
        let failedReport = Self.report(.compared(failed))
        #expect(failedReport.notMeasured == "a run failed (head: 1 of 16 runs: exited with status 3)")
        let failedComment = PullRequestMarkdownRenderer.render(failedReport)
        #expect(
            failedComment.contains(
                "## premain: ❌ a run failed\n\n❌ **Start-up of app \\-\\-version not measured**: a run failed \\(head\\: 1 of 16 runs\\: exited with status 3\\)."
            ),
            "\(failedComment.prefix(300))")
        #expect(failedComment.contains("<details><summary>The comparison until the run failed</summary>"))
        // Reasons: the measured part's first, then the failing findings.
        let both = Self.report(.notMeasured("no --run given", .noRun), failing: true)
        #expect(both.verdict.reasons == ["not measured: no --run given", "libcore.so has text relocations"])
        #expect(both.notMeasured == "no --run given" && both.compare == nil)
    }

    @Test func commentOfARegressionGolden() throws {
        let markdown = PullRequestMarkdownRenderer.render(Self.report(.compared(Self.regression)))
        #expect(try GoldenFiles.mismatch("pr.md", markdown) == nil)
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "<!-- premain -->")
        #expect(lines[1] == "## premain: ❌ start-up regressed")
        // The headline names the measured command, the runs and the verdict; warnings follow.
        #expect(
            lines[3]
                == "❌ **Start-up regressed** for app \\-\\-version: main \\+1.000 ms \\(\\+16.1 %\\) · 24 runs per side, paired and interleaved",
            "\(lines[3])")
        #expect(lines[7] == "> ⚠️ the machine's speed drifted — interleaved pairs cancel drift", "\(lines[7])")
        #expect(lines[3].contains("runs per side, paired and interleaved"))
        // Executables first, largest change first, then a total row; unchanged objects folded.
        let binaries = lines.prefix { $0 != "### Findings" }
        let rows = binaries.filter {
            $0.hasPrefix("| **app** |") || $0.hasPrefix("| libextra.so |") || $0.hasPrefix("| libcore.so |")
                || $0.hasPrefix("| libm.so.6 ") || $0.hasPrefix("| **total** ")
        }
        #expect(
            rows.map { $0.split(separator: "|")[0].trimmingCharacters(in: .whitespaces) }
                == [
                    "**app**", "libextra.so", "libcore.so", "libm.so.6 <sub>system, mapped by app</sub>",
                    "**total** (4 objects)",
                ])
        #expect(markdown.contains("<details><summary>1 unchanged object</summary>\n\nlibutil.so\n\n</details>"))
        #expect(markdown.contains("Left out (base / head): 148 / 150 relocatable objects (.o, .pcm;"))
        #expect(
            markdown.components(separatedBy: "<details").count == markdown.components(separatedBy: "</details>").count)
    }

    @Test func commentWithoutMeasurementSaysSoAndClaimsNothing() throws {
        let markdown = PullRequestMarkdownRenderer.render(Self.report(.notMeasured("no --run given", .noRun)))
        #expect(try GoldenFiles.mismatch("pr-not-measured.md", markdown) == nil)
        #expect(
            markdown.hasPrefix(
                "<!-- premain -->\n## premain: ⚠️ not measured\n\n⚠️ **Start-up of app \\-\\-version not measured**: no \\-\\-run given."
            ))
        // Nothing claims a start-up result ("✅ fixed" is a finding's).
        #expect(!markdown.contains("No start-up") && !markdown.contains("no start-up") && !markdown.contains("✅ **"))
        let failed = PullRequestMarkdownRenderer.render(Self.report(.notMeasured("cannot start app", .launchFailed)))
        #expect(
            failed.contains(
                "## premain: ❌ a run failed\n\n❌ **Start-up of app \\-\\-version not measured**: cannot start app."))
        let text = PullRequestTextRenderer.render(Self.report(.notMeasured("no --run given", .noRun)))
        #expect(text.hasPrefix("verdict: notMeasured\n  - not measured: no --run given\n"))
        #expect(text.contains("\nnot measured: no --run given\n"))
    }

    @Test func hostileNamesAreEscapedAndTheCommentStaysUnderTheLimit() throws {
        var report = Self.report(.compared(Self.inconclusive))
        report.command = ["@everyone <script>", "[x](http://evil.example)"]
        report.diff.objects += (0..<400).map { index in
            ObjectDelta(
                name: "lib\(index)@team <b>.so", status: .changed, kind: .sharedLibrary, place: .project,
                exports: CountDelta(name: "exports", base: index, head: index + 1),
                imports: CountDelta(name: "imports", base: 1, head: 1),
                initializers: CountDelta(name: "initializers", base: 0, head: 0),
                fileSize: CountDelta(name: "fileSize", base: 1000, head: 1000 + index))
        }
        let markdown = PullRequestMarkdownRenderer.render(report, top: 10, limit: 20_000)
        #expect(markdown.count <= 20_000)
        #expect(!markdown.contains("<b>") && !markdown.contains("@team") && !markdown.contains("<script>"))
        #expect(markdown.contains("| …and "))
        // Sorted by the size of the change: the largest of the 400 comes first among libraries.
        #expect(markdown.contains("| lib399@‍team &lt;b&gt;.so | changed |"))
    }

    @Test func jsonRoundTrips() throws {
        let report = Self.report(.compared(Self.regression))
        let text = try JSONRenderer.render(report)
        #expect(try JSONRenderer.decode(PullRequestReport.self, from: text) == report)
        #expect(text.contains("\"status\" : \"regression\""))
    }
}
