import Foundation
import PremainAudit
import PremainModel
import PremainTestSupport
import Testing

@testable import PremainRender

/// `--format html`: every page stands alone (no reference outside the file) and escapes every
/// name that comes from a binary, a report or the command line. Reports built in code carry a
/// hostile object name (`ReportFixtures.hostileObject`).
struct HTMLReportTests {
    static func pages() throws -> [(String, String)] {
        let audit = BatchAudit(workers: 1).run([try Samples.path("cxx-static-init/cxx-static-init")])
        var hostileDiff = PullRequestTests.staticDiff(failing: true)
        hostileDiff.base.label = ReportFixtures.hostileObject
        hostileDiff.base.timeline = [.init(label: ReportFixtures.hostileObject, startMs: 1, endMs: 4)]
        hostileDiff.head.timeline = [.init(label: ReportFixtures.hostileObject, startMs: 1, endMs: 5)]
        let points = HistoryData.series(stepAt: 17).enumerated().map { index, value in
            HistoryPoint(
                commit: index == 17 ? ReportFixtures.hostileObject : HistoryData.commit(index + 1), report: index + 1,
                recordedAt: "t", value: value)
        }
        let history = HistoryReport(
            database: ReportFixtures.hostileObject, reports: 30,
            series: [
                HistorySeries(
                    metric: "main", unit: "ms", points: points, noise: 0.3, steps: StepDetector().steps(of: points))
            ])
        return [
            ("measure", HTMLReportRenderer.render(try ReportFixtures.measure())),
            ("trace", HTMLReportRenderer.render(ReportFixtures.trace())),
            ("compare", HTMLReportRenderer.render(try ReportFixtures.compare())),
            ("diff", HTMLReportRenderer.render(hostileDiff)),
            ("audit", HTMLReportRenderer.render(audit)),
            ("history", HTMLReportRenderer.render(history)),
        ]
    }

    @Test func everyPageStandsAloneAndEscapesNames() throws {
        for (view, page) in try Self.pages() {
            #expect(
                HTMLReferenceCheck.externalReferences(in: page).isEmpty,
                "\(view): \(HTMLReferenceCheck.externalReferences(in: page))")
            #expect(page.hasPrefix("<!DOCTYPE html>") && page.contains("<svg") || view == "audit", "\(view)")
            #expect(
                !page.contains("<script") && !page.contains("\u{1b}"), "\(view) lets markup or a control byte through")
            #expect(!page.contains("\"<") && !page.contains("ctor<&"), "\(view)")
            if view != "audit" {
                // The whole name, or its file name (after the last "/", which is inside "</script>").
                #expect(
                    page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&amp;\\x1b[31m.so")
                        || page.contains("script&gt;&amp;\\x1b[31m.so"),
                    "\(view) lost the hostile name")
            }
        }
    }

    @Test func viewsDrawWhatTheyPromise() throws {
        let pages = Dictionary(try Self.pages()) { first, _ in first }
        let measure = try #require(pages["measure"])
        #expect(
            measure.contains("Launch waterfall") && measure.contains("phases, one row per run")
                && measure.contains("libc.so.6"))
        #expect(measure.contains("main to first output") == false)  // phases are named as LaunchPhases names them
        let trace = try #require(pages["trace"])
        #expect(trace.contains("Flame chart of the start-up path") && trace.contains("Flame graph of the traced time"))
        #expect(trace.contains("thread 100") && trace.contains("thread 101") && trace.contains("/src/main.swift:79"))
        let compare = try #require(pages["compare"])
        #expect(compare.contains("class=\"verdict ") && compare.contains("Verdict: "))
        let verdictAt = try #require(compare.range(of: "Verdict: ")).lowerBound
        let chartAt = try #require(compare.range(of: "<svg")).lowerBound
        #expect(verdictAt < chartAt, "the verdict is on top")
        #expect(compare.contains("Launches of base and head"))
        let audit = try #require(pages["audit"])
        #expect(audit.contains("class=\"tree\"") && audit.contains("libstdc++.so.6") && audit.contains("relocations"))
        let history = try #require(pages["history"])
        #expect(history.contains("+2.") && history.contains("<polyline"))
    }

    @Test func flameGraphNestsCallsUnderTheirObjectAndCaller() {
        let report = ReportFixtures.trace()
        let measurement = report.measurements[0]
        let run = try! #require(measurement.timelines?.first)
        let root = FlameGraph.tree(run, measurement)
        #expect(root.order == ["main", ObjectName.fileName(ReportFixtures.hostileObject)])
        var chain: [String] = []
        var node: FlameGraph.Node? = root.children["main"]
        while let current = node {
            chain.append(current.name)
            node = current.order.first.flatMap { current.children[$0] }
        }
        #expect(
            chain == [
                "main", "_GLOBAL__sub_I_registry.cpp", "one-time initialization function for main.catalog",
                "default argument 0 of main.parse(mode:)",
            ])
        // Two calls of the default argument make one box with both calls' time. The times are
        // the recorded fixture's inclusive times (ReportFixtures.trace: 0.45 + 0.55 ms, and 4 + 2 ms
        // at the root), summed by the flame graph: arithmetic on recorded values, not a measured
        // duration.
        let lazy = root.children["main"]?.children["_GLOBAL__sub_I_registry.cpp"]?.children[
            "one-time initialization function for main.catalog"]
        #expect(abs((lazy?.children["default argument 0 of main.parse(mode:)"]?.ms ?? 0) - 1.0) < 1e-9)
        #expect(abs(root.ms - 6) < 1e-9)
    }

    @Test func referenceCheckFindsWhatWouldLeaveTheFile() {
        let bad = [
            "<img src=\"https://example.com/x.png\">", "<style>@import 'x.css';</style>",
            "<div style=\"background:url(x.png)\">",
            "<script>1</script>", "<link rel=stylesheet href=x.css>", "<a href=\"//cdn.example/x\">",
            "<image href=\"/etc/x.svg\"/>",
        ]
        for page in bad { #expect(!HTMLReferenceCheck.externalReferences(in: page).isEmpty, "\(page)") }
        let good =
            "<img src=\"data:image/png;base64,AAAA\"><a href=\"#top\">top</a><div style=\"background:url(data:image/png;base64,AA)\">"
        #expect(HTMLReferenceCheck.externalReferences(in: good).isEmpty)
    }
}

/// Issue 36, item 13: the waterfall's tooltips keep their line breaks (no literal `\x0a`), and
/// every object's initializer bar is the legend's orange, whatever the object; the charts of a
/// scripted measurement are held to a golden file.
struct LaunchWaterfallTests {
    @Test func tooltipsBreakLinesAndInitializersAreOrange() throws {
        let report = try ReportFixtures.measure()
        let page = HTMLReportRenderer.render(report)
        #expect(!page.contains("\\x0a"))
        #expect(page.contains("\ninitializers "))
        let svg = LaunchWaterfall.charts(try #require(report.measurements.first)).joined(separator: "\n")
        let bars = svg.split(separator: "<rect ").filter { $0.contains("<title>") && $0.contains("\ninitializers ") }
        #expect(!bars.isEmpty)
        for bar in bars { #expect(bar.contains("fill=\"\(ChartColors.initializers)\""), "\(bar)") }
        #expect(LaunchWaterfall.legend.contains("background:\(ChartColors.initializers)\"></i>initializers"))
        // A control character other than a line break is still shown escaped.
        #expect(HTMLEscape.tooltip("a\nb\u{1b}c<") == "a\nb\\x1bc&lt;")
        if let problem = try GoldenFiles.mismatch("waterfall.svg", svg + "\n") { Issue.record("\(problem)") }
    }
}
