import Foundation
import PremainJudge
import PremainModel
import PremainRender
import PremainTestSupport
import Testing

/// The exports that continuous-benchmarking services read, on reports built in code: each is
/// checked against its format's published shape (Bencher Metric Format, github-action-benchmark's
/// customSmallerIsBetter, OpenMetrics text through the Prometheus client's strict OpenMetrics
/// parser, GitLab Code Quality), and names are stable (no folder in a benchmark's name).
@Suite struct BenchmarkExportTests {
    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    @Test func metricsOfMeasureAndCompareHaveStableNamesAndBounds() throws {
        let measure = BenchmarkMetrics.of(try ReportFixtures.measure())
        #expect(measure.map(\.benchmark).allSatisfy { $0 == "true --flag" })
        #expect(measure.map(\.measure).starts(with: ["loaderDone", "main", "firstOutput", "exit"]))
        for metric in measure where metric.unit == .milliseconds {
            let lower = try #require(metric.lower)
            let upper = try #require(metric.upper)
            #expect(lower <= metric.value && metric.value <= upper, "\(metric)")
        }
        let compare = BenchmarkMetrics.of(PullRequestTests.regression)
        #expect(Set(compare.map(\.benchmark)) == ["app --version"])
        let change = try #require(compare.first { $0.measure == "main.change" })
        #expect(change.value == 1.0 && change.lower == 0.95 && change.upper == 1.04)
        #expect(compare.contains { $0.measure == "count.symbolLookups" && $0.unit == .count && $0.value == 100 })
        #expect(
            BenchmarkMetrics.benchmarkName(["/tmp/premain-pr-x1/head/.build/release/app", "add", "1"]) == "app add 1")
        #expect(BenchmarkMetrics.of(PullRequestTests.report(.notMeasured("no --run given", .noRun))).isEmpty)
    }

    /// Issue 35: over the launch matrix each row is its own benchmark, named by its launch and
    /// temperature, in compare's and pr's exports alike.
    @Test func matrixRowsAreSeriesNamedByTheirLaunch() throws {
        var version = PullRequestTests.regression
        version.launch = "version"
        var cold = PullRequestTests.regression
        cold.launch = "format"
        cold.temperature = .cold
        let metrics = BenchmarkMetrics.of(CompareMatrixReport(launches: [version, cold]))
        #expect(Set(metrics.map(\.benchmark)) == ["version", "format (cold)"])
        #expect(metrics.count == 2 * BenchmarkMetrics.of(PullRequestTests.regression).count)
        var pr = PullRequestTests.report(.compared(version))
        pr.launches = [version, cold]
        #expect(BenchmarkMetrics.of(pr) == metrics)
    }

    /// `{"<benchmark>": {"<measure>": {"value": n, "lower_value": n, "upper_value": n}}}`.
    @Test func bmfHasBencherShape() throws {
        let metrics =
            BenchmarkMetrics.of(try ReportFixtures.measure()) + BenchmarkMetrics.of(PullRequestTests.regression)
        let text = try BenchmarkExportFormat.bmf.render(metrics)
        let document = try #require(try Self.json(text) as? [String: Any])
        #expect(Set(document.keys) == ["true --flag", "app --version"])
        var measures = 0
        for (_, benchmark) in document {
            let entries = try #require(benchmark as? [String: Any])
            for (name, entry) in entries {
                measures += 1
                #expect(
                    name.hasSuffix(" (ms)") || name.hasSuffix(" (count)") || name.hasSuffix(" (instructions)"),
                    "\(name)")
                let fields = try #require(entry as? [String: Any])
                #expect(Set(fields.keys).isSubset(of: ["value", "lower_value", "upper_value"]), "\(fields)")
                let value = try #require(fields["value"] as? Double)
                if let lower = fields["lower_value"] as? Double { #expect(lower <= value, "\(name)") }
                if let upper = fields["upper_value"] as? Double { #expect(value <= upper, "\(name)") }
            }
        }
        #expect(measures == metrics.count)
        #expect(try Self.json(try BenchmarkExportFormat.bmf.render([])) is [String: Any])
    }

    /// customSmallerIsBetter: `[{name, unit, value, range?, extra?}]`, nothing else.
    @Test func benchmarkActionHasCustomSmallerIsBetterShape() throws {
        let metrics = BenchmarkMetrics.of(PullRequestTests.regression)
        let entries = try #require(
            try Self.json(try BenchmarkExportFormat.benchmarkAction.render(metrics)) as? [[String: Any]])
        // The head − base changes are not benchmarks the action should compare by ratio.
        #expect(entries.count == metrics.filter { !$0.measure.hasSuffix(".change") }.count)
        #expect(metrics.contains { $0.measure.hasSuffix(".change") })
        #expect(!entries.contains { ($0["name"] as? String)?.hasSuffix(".change") == true })
        for entry in entries {
            #expect(Set(entry.keys).isSubset(of: ["name", "unit", "value", "range", "extra"]), "\(entry)")
            #expect(entry["name"] is String && entry["unit"] is String && entry["value"] is Double, "\(entry)")
            // The action shows `range` as written; its own tools write `±3.81%` or `± 0.5`.
            if let range = entry["range"] as? String {
                #expect(range.hasPrefix("± ") && Double(range.dropFirst(2)) != nil, "\(range)")
            } else {
                #expect(entry["range"] == nil)
            }
            if let extra = entry["extra"] { #expect(extra is String) }
        }
        #expect(entries.contains { $0["name"] as? String == "app --version: main" && $0["unit"] as? String == "ms" })
        #expect(Set(entries.compactMap { $0["name"] as? String }).count == entries.count)
        #expect((try Self.json(try BenchmarkExportFormat.benchmarkAction.render([])) as? [Any])?.isEmpty == true)
    }

    /// OpenMetrics text, parsed by the Prometheus client's OpenMetrics parser (Debian's
    /// python3-prometheus-client), which refuses anything the format does not allow.
    @Test func openMetricsParsesWithTheStrictParser() throws {
        var metrics =
            BenchmarkMetrics.of(try ReportFixtures.measure()) + BenchmarkMetrics.of(PullRequestTests.regression)
        metrics.append(
            BenchmarkMetric(
                benchmark: "odd \"name\" \\ with\nbreak", measure: "main", unit: .milliseconds,
                value: 1, lower: 0.5, upper: 2, note: "a note"))
        let text = try BenchmarkExportFormat.openMetrics.render(metrics)
        #expect(text.hasSuffix("# EOF\n"))
        #expect(text.contains("# TYPE premain_main_seconds gauge\n# UNIT premain_main_seconds seconds\n"))
        #expect(text.contains("premain_main_change_seconds{benchmark=\"app --version\",statistic=\"lower\"} 0.00095\n"))
        try OpenMetricsValidation.promtool(text)
        let folder = try TemporaryFolders.make("openmetrics")
        try text.write(toFile: folder + "/metrics.txt", atomically: true, encoding: .utf8)
        let script = """
            import sys
            try:
                from prometheus_client.openmetrics.parser import text_string_to_metric_families
            except ImportError:
                print("python3-prometheus-client is missing: run scripts/setup", file=sys.stderr); sys.exit(2)
            families = list(text_string_to_metric_families(open(sys.argv[1]).read()))
            print(len(families), sum(len(f.samples) for f in families))
            """
        let result = try Shell.run(["python3", "-c", script, folder + "/metrics.txt"])
        #expect(result.status == 0, "\(result.stderr)")
        let samples = metrics.reduce(0) { $0 + 1 + ($1.lower == nil ? 0 : 1) + ($1.upper == nil ? 0 : 1) }
        #expect(
            result.stdout.split(separator: " ").last.map { String($0.dropLast()) } == String(samples),
            "\(result.stdout)")
        #expect(try BenchmarkExportFormat.openMetrics.render([]) == "# EOF\n")
    }

    /// GitLab Code Quality: `[{description, check_name, fingerprint, severity, location: {path,
    /// lines: {begin}}}]`, relative paths, GitLab's severities, unique fingerprints.
    @Test func codeQualityHasGitLabShape() throws {
        let scope = RendererTests.scope
        for text in [
            try GitLabCodeQualityRenderer.render(RendererTests.checkReport(), scope: scope),
            try GitLabCodeQualityRenderer.render(RendererTests.diffReport(), scope: scope),
        ] {
            let issues = try #require(try Self.json(text) as? [[String: Any]])
            #expect(!issues.isEmpty)
            for issue in issues {
                #expect(issue["description"] is String && issue["check_name"] is String, "\(issue)")
                #expect(["info", "minor", "major", "critical", "blocker"].contains(issue["severity"] as? String ?? ""))
                let location = try #require(issue["location"] as? [String: Any])
                let path = try #require(location["path"] as? String)
                #expect(!path.hasPrefix("/") && !path.isEmpty, "\(path)")
                let begin = try #require((location["lines"] as? [String: Any])?["begin"] as? Int)
                #expect(begin >= 1)
            }
            let fingerprints = issues.compactMap { $0["fingerprint"] as? String }
            #expect(fingerprints.count == issues.count && Set(fingerprints).count == fingerprints.count)
        }
        let empty = try GitLabCodeQualityRenderer.render(
            CheckReport(inputs: [], findings: [], failOn: .error, errors: []), scope: scope)
        #expect((try Self.json(empty) as? [Any])?.isEmpty == true)
    }
}
