import Foundation
import PremainTestSupport
import Testing

@testable import PremainModel
@testable import PremainRender

/// What other programs parse out of premain's exports and comments: escapes decided per Unicode
/// scalar (a grapheme cluster can hide a quote, a pipe or a line break), one display rule for a
/// benchmark's name in every export, and OpenMetrics in the base units promtool asks for.
@Suite struct ExportEscapingTests {
    /// Each hides what a parser reads inside one grapheme cluster: `\r\n`, and a quote, a
    /// backslash, a pipe or a colon followed by U+0301 COMBINING ACUTE ACCENT.
    static let clusters = ["a\r\nb", "q\"\u{301}x", "b\\\u{301}x", "p|\u{301}x", "c:\u{301}x"]

    static func metric(_ benchmark: String) -> BenchmarkMetric {
        BenchmarkMetric(
            benchmark: benchmark, measure: "main", unit: .milliseconds, value: 1.5, lower: 1, upper: 2, note: "a note")
    }

    /// Issue 34, defect 14: OpenMetrics and Markdown escaped per Character, so `\r\n`, and `"`,
    /// `\` or `|` followed by a combining mark, went out raw: the Prometheus client and promtool
    /// refused the file, cmark-gfm split the table row. So did a GitHub annotation property's
    /// `:` (`String.replacing` matches characters). Every escaper now works per scalar.
    @Test func escapingWorksPerScalarNotPerGraphemeCluster() throws {
        // OpenMetrics: one sample per name and statistic, parsed, each label as given (controls shown as \xNN).
        let text = OpenMetricsExporter.render(Self.clusters.map(Self.metric))
        let samples = try OpenMetricsValidation.samples(text)
        #expect(samples.count == Self.clusters.count * 3, "\(text)")
        let labels = Set(samples.compactMap { $0.labels["benchmark"] })
        #expect(labels == Set(Self.clusters.map(TextSafety.display)), "\(labels)")
        #expect(labels.contains("a\\x0d\\x0ab") && labels.contains("q\"\u{301}x"), "\(labels)")
        try OpenMetricsValidation.promtool(text)

        // Markdown: a table row keeps its three cells, in text and in code spans.
        let cmark = "/usr/bin/cmark-gfm"
        try #require(FileManager.default.isExecutableFile(atPath: cmark), "cmark-gfm is missing: run scripts/setup")
        for cluster in Self.clusters {
            let table =
                "| a | b | c |\n| --- | --- | --- |\n| \(MarkdownEscape.text(cluster)) | `\(MarkdownEscape.code(cluster))` | end |\n"
            let file = TemporaryFolders.path("table") + ".md"
            try Data(table.utf8).write(to: URL(fileURLWithPath: file))
            defer { try? FileManager.default.removeItem(atPath: file) }
            let html = try Shell.run([cmark, "--extension", "table", file])
            #expect(html.status == 0, "\(html.stderr)")
            #expect(
                html.stdout.components(separatedBy: "<td").count - 1 == 3, "\(cluster.debugDescription): \(html.stdout)"
            )
            #expect(html.stdout.contains("<td>end</td>"), "\(cluster.debugDescription): \(html.stdout)")
            #expect(!MarkdownEscape.text(cluster).unicodeScalars.contains { $0 == "\r" || $0 == "\n" })
        }

        // GitHub workflow commands: a property's ':' and ',' are encoded also before a combining mark.
        #expect(GitHubAnnotationRenderer.escapeProperty("c:\u{301},\u{301}") == "c%3A\u{301}%2C\u{301}")
        #expect(GitHubAnnotationRenderer.escapeData("a\r\nb") == "a%0D%0Ab")
        // HTML: quotes and ampersands before a combining mark.
        #expect(HTMLEscape.text("q\"\u{301}&\u{301}") == "q&quot;\u{301}&amp;\u{301}")
    }

    /// Issue 34, defect 15: a byte of a program's name that is not UTF-8 was `\xff` in BMF and
    /// github-action-benchmark but premain's private-use scalar (F4 8F BF BF) in OpenMetrics: one
    /// benchmark under two names. Every export now shows names as `TextSafety.display` does.
    @Test func everyExportNamesOneBenchmarkAlike() throws {
        let program = LosslessUTF8.string([UInt8]("/tmp/premain-x/ap".utf8) + [0xFF] + [UInt8]("p\r".utf8))
        let name = BenchmarkMetrics.benchmarkName([program, "--flag"])
        #expect(name == "ap\\xffp\\x0d --flag")
        var report = try ReportFixtures.measure()
        report.measurements[0].command = [program, "--flag"]
        let metrics = BenchmarkMetrics.of(report)
        #expect(!metrics.isEmpty && metrics.allSatisfy { $0.benchmark == name })

        let bmf = try #require(
            try JSONSerialization.jsonObject(with: Data(try BenchmarkExportFormat.bmf.render(metrics).utf8))
                as? [String: Any])
        #expect(Set(bmf.keys) == [name], "\(bmf.keys)")
        let action = try #require(
            try JSONSerialization.jsonObject(with: Data(try BenchmarkExportFormat.benchmarkAction.render(metrics).utf8))
                as? [[String: Any]])
        let actionNames = Set(action.compactMap { ($0["name"] as? String)?.components(separatedBy: ": ").first })
        #expect(actionNames == [name], "\(actionNames)")
        let openMetrics = try BenchmarkExportFormat.openMetrics.render(metrics)
        #expect(!openMetrics.utf8.contains(0xF4), "the private-use scalar of a raw byte went out")
        let labels = Set(try OpenMetricsValidation.samples(openMetrics).compactMap { $0.labels["benchmark"] })
        #expect(labels == [name], "\(labels)")
    }

    /// Issue 34, defect 16: every OpenMetrics export failed `promtool check metrics` (exit 3):
    /// Prometheus wants base units, seconds, not milliseconds. Times are now `…_seconds` families
    /// with values in seconds; BMF and github-action-benchmark keep milliseconds.
    @Test func openMetricsTimesAreInSecondsAndPassPromtool() throws {
        let metrics =
            BenchmarkMetrics.of(try ReportFixtures.measure()) + BenchmarkMetrics.of(PullRequestTests.regression)
        let text = try BenchmarkExportFormat.openMetrics.render(metrics)
        try OpenMetricsValidation.promtool(text)
        #expect(!text.contains("milliseconds"), "\(text)")
        #expect(text.contains("# TYPE premain_main_seconds gauge\n# UNIT premain_main_seconds seconds\n"), "\(text)")
        let samples = try OpenMetricsValidation.samples(text)
        for metric in metrics where metric.unit == .milliseconds {
            let family = OpenMetricsExporter.familyName(metric)
            #expect(family.hasSuffix("_seconds"), "\(family)")
            let value = try #require(
                samples.first {
                    $0.family == family && $0.labels["benchmark"] == metric.benchmark
                        && $0.labels["statistic"] == "value"
                }, "\(family)")
            #expect(abs(value.value - metric.value / 1000) < 1e-9, "\(family): \(value.value) s for \(metric.value) ms")
        }
        #expect(
            text.contains("premain_main_change_seconds{benchmark=\"app --version\",statistic=\"lower\"} 0.00095\n"),
            "\(text)")
        // Plain decimals to the nanosecond, never an exponent.
        let values = OpenMetricsExporter.render([
            BenchmarkMetric(
                benchmark: "b", measure: "main", unit: .milliseconds, value: 21.5, lower: -0.0004, upper: 3000,
                note: "n")
        ])
        #expect(values.contains("statistic=\"value\"} 0.0215\n"), "\(values)")
        #expect(values.contains("statistic=\"lower\"} -0.0000004\n"), "\(values)")
        #expect(values.contains("statistic=\"upper\"} 3\n"), "\(values)")
        // The JSON exports keep milliseconds.
        let bmf = try BenchmarkExportFormat.bmf.render(metrics)
        #expect(bmf.contains("\"main.change (ms)\""), "\(bmf)")
    }
}
