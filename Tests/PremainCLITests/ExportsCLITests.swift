import Foundation
import PremainTestSupport
import Testing

/// The exports of real runs: one `compare` writes Bencher Metric Format, github-action-benchmark
/// JSON and OpenMetrics at once, each in its format's shape; `check` and `pr` write GitLab Code
/// Quality. Which verdict the comparison gets depends on the machine, so none is asserted.
@Suite(.serialized) struct ExportsCLITests {
    static func premain(_ arguments: [String]) throws -> CLI.Result {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary), "build premain first: swift build")
        return try CLI.run(arguments)
    }

    static func json(_ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func oneCompareWritesEveryExportInItsShape() throws {
        let folder = try TemporaryFolders.make("exports")
        let base = try Samples.path("pairs/work-base/app")
        let head = try Samples.path("pairs/work-head/app")
        let result = try Self.premain([
            "compare", "--no-config", "--min-runs", "8", "--max-runs", "8", "--no-explain",
            "--export-bmf", folder + "/bmf.json", "--export-benchmark-action", folder + "/action.json",
            "--export-openmetrics", folder + "/metrics.txt", base, head,
        ])
        #expect([0, 2, 5].contains(result.status), "\(result.stderr)")
        let bmf = try #require(try Self.json(folder + "/bmf.json") as? [String: [String: [String: Double]]])
        let app = try #require(bmf["app"], "\(bmf.keys)")
        for measure in ["main (ms)", "firstOutput (ms)", "main.change (ms)", "count.symbolLookups (count)"] {
            let entry = try #require(app[measure], "\(app.keys.sorted())")
            let value = try #require(entry["value"])
            #expect(try #require(entry["lower_value"]) <= value && value <= (try #require(entry["upper_value"])))
        }
        let action = try #require(try Self.json(folder + "/action.json") as? [[String: Any]])
        #expect(
            action.allSatisfy {
                Set($0.keys).isSubset(of: ["name", "unit", "value", "range", "extra"]) && $0["value"] is Double
            })
        #expect(action.contains { $0["name"] as? String == "app: main" })
        let metrics = try String(contentsOfFile: folder + "/metrics.txt", encoding: .utf8)
        #expect(metrics.hasSuffix("# EOF\n"))
        let parsed = try Shell.run([
            "python3", "-c",
            """
            import sys
            from prometheus_client.openmetrics.parser import text_string_to_metric_families
            print(sorted(f.name for f in text_string_to_metric_families(open(sys.argv[1]).read())))
            """, folder + "/metrics.txt",
        ])
        #expect(parsed.status == 0, "\(parsed.stderr)")
        #expect(
            parsed.stdout.contains("'premain_main_seconds'") && parsed.stdout.contains("'premain_main_change_seconds'"),
            "\(parsed.stdout)")
        try OpenMetricsValidation.promtool(metrics)
    }

    @Test func checkAndPrWriteGitLabCodeQuality() throws {
        let folder = try TemporaryFolders.make("codequality")
        let check = try Self.premain([
            "check", "--no-config", "--format", "gitlab-codequality", try Samples.path("cxx-static-init/libinit.so"),
        ])
        #expect(check.status == 0, "\(check.stderr)")
        let issues = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [[String: Any]])
        #expect(issues.contains { $0["check_name"] as? String == "many_static_initializers" }, "\(check.stdout)")
        for issue in issues {
            #expect(["info", "minor", "major", "critical", "blocker"].contains(issue["severity"] as? String ?? ""))
            let location = try #require(issue["location"] as? [String: Any])
            #expect((location["path"] as? String).map { !$0.hasPrefix("/") } == true)
            #expect(((location["lines"] as? [String: Any])?["begin"] as? Int ?? 0) >= 1)
        }
        let base = (try Samples.path("pairs/base/app") as NSString).deletingLastPathComponent
        let head = (try Samples.path("pairs/head/app") as NSString).deletingLastPathComponent
        let pr = try Self.premain([
            "pr", "--no-config", "--base", base, "--head", head, "--codequality", folder + "/cq.json",
            "--export-bmf", folder + "/bmf.json",
        ])
        #expect(pr.status == 5, "\(pr.stderr)")  // not measured
        #expect(try Self.json(folder + "/cq.json") is [Any])
        // Nothing measured, nothing to track.
        #expect((try Self.json(folder + "/bmf.json") as? [String: Any])?.isEmpty == true)
    }
}
