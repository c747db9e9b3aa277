import Foundation
import PremainTestSupport
import Testing

/// Issue 33, end to end with real parts: launches of real programs recorded by the
/// libpremain-record.so that `swift build` made, `premain field export` of that spool, and the
/// programs operators run reading it: `promtool check metrics` on the textfile, Debian's
/// prometheus-node-exporter serving it to a Prometheus whose `histogram_quantile(0.9, …)` is
/// within 10 % of `premain field report`'s exact p90 for every row, and an OTLP/HTTP receiver
/// decoding the POST with opentelemetry-proto's definitions, its counts the report's. The
/// launch times are whatever this machine gives: the tests compare premain's figures with the
/// servers' reading of them, never with a clock.
@Suite(
    .serialized,
    .enabled(
        if: ExportRealParts.missing == nil,
        "prometheus, prometheus-node-exporter (promtool) or PyPI opentelemetry-proto missing and not installable by scripts/setup"
    ))
struct FieldExportCLITests {
    /// One row of `field report --format json`: its labels as the exports write them, the
    /// launches and the exact p90 of time to main.
    struct Row {
        var executable: String
        var version: String
        var scenario: String
        var temperature: String
        var samples: Int
        var p90Ms: Double

        var selector: String {
            [("executable", executable), ("version", version), ("scenario", scenario), ("temperature", temperature)]
                .map { "\($0.0)=\(LocalPrometheus.quoted($0.1))" }.joined(separator: ",")
        }
    }

    /// A spool of real launches under the recorder: /usr/bin/true, /usr/bin/ls and
    /// swift-demangle when the toolchain has it, 120 times each; and the report of it, read
    /// from `field report --format json` as it would be from a file.
    static func recordedSpool(_ name: String) throws -> (spool: String, rows: [Row]) {
        let spool = try TemporaryFolders.make(name)
        let demangle = HostFacts.program("swift-demangle").map { "\"\($0)\" --help >/dev/null; " } ?? ""
        let run = try RecorderTests.recorded(
            "for i in $(seq 120); do /usr/bin/true; /usr/bin/ls / >/dev/null; \(demangle)done", spool: spool)
        try #require(run.status == 0, "\(run.stderr)")
        let report = try CLI.run(["field", "report", spool, "--format", "json"])
        try #require(report.status == 0, "\(report.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
        let rows = (document["rows"] as? [[String: Any]] ?? []).compactMap { row -> Row? in
            guard let toMain = row["timeToMain"] as? [String: Any], let samples = toMain["samples"] as? Int,
                let p90 = toMain["p90Ms"] as? Double, let executable = row["executable"] as? String,
                let temperature = row["temperature"] as? String
            else { return nil }
            return Row(
                executable: executable, version: row["buildId"] as? String ?? "",
                scenario: row["scenario"] as? String ?? "", temperature: temperature, samples: samples, p90Ms: p90)
        }
        // seq's own launch, then 120 of each program (a program can split over temperatures).
        let trueLaunches = rows.filter { $0.executable == "/usr/bin/true" }.map(\.samples).reduce(0, +)
        try #require(trueLaunches == 120, "\(rows)")
        return (spool, rows)
    }

    @Test func prometheusReadsTheExportOfRealLaunchesWithinTenPercentOfTheReportsP90() throws {
        let (spool, rows) = try Self.recordedSpool("field-export-prometheus")
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let work = try TemporaryFolders.make("field-export-prometheus-work")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let textfiles = work + "/textfile"
        try FileManager.default.createDirectory(atPath: textfiles, withIntermediateDirectories: true)
        let textfile = textfiles + "/premain.prom"
        let export = try CLI.run(["field", "export", spool, "--textfile", textfile])
        try #require(export.status == 0 && export.stderr.isEmpty, "\(export.stderr)")
        let lint = try Shell.run(["bash", "-c", "promtool check metrics < \"$0\"", textfile])
        #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint.stdout)\(lint.stderr)")

        let servers = try LocalPrometheus(textfiles: textfiles, work: work)
        defer { servers.stop() }
        let served = try #require(
            servers.served("premain_launch_to_main_seconds_count"), "node_exporter: \(servers.exporter.log)")
        #expect(served.contains("node_textfile_scrape_error 0"))
        try #require(
            !servers.firstAnswer("premain_launch_to_main_seconds_count").isEmpty,
            "Prometheus never scraped: \(servers.prometheus.log.suffix(2_000))")
        for row in rows {
            let count = LocalPrometheus.value(servers.query("premain_launch_to_main_seconds_count{\(row.selector)}"))
            #expect(count == Double(row.samples), "\(row)")
            let answer = servers.query(
                "histogram_quantile(0.9, premain_launch_to_main_seconds_bucket{\(row.selector)})")
            let estimate = try #require(LocalPrometheus.value(answer), "\(row): \(answer)")
            let exact = row.p90Ms / 1000
            #expect(
                abs(estimate - exact) / exact < 0.10,
                "\(row.executable) \(row.scenario) \(row.temperature): histogram_quantile \(estimate * 1000) ms, field report's p90 \(row.p90Ms) ms"
            )
        }
    }

    @Test func anOTLPReceiverDecodesTheExportOfRealLaunchesWithTheReportsCounts() throws {
        let (spool, rows) = try Self.recordedSpool("field-export-otlp")
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let work = try TemporaryFolders.make("field-export-otlp-work")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let receiver = try OTLPReceiver(work: work)
        defer { receiver.stop() }
        let export = try CLI.run(["field", "export", spool, "--otlp", receiver.url, "--host-name", "field-host-33"])
        #expect(export.status == 0 && export.stderr.isEmpty, "\(export.stderr) \(receiver.service.log)")
        let points = try #require(receiver.firstPoints(), "\(receiver.service.log)")
        let toMain = points.filter { $0["name"] as? String == "premain.launch_to_main" }
        #expect(toMain.count == rows.count)
        for row in rows {
            let point = toMain.first { point in
                let resource = point["resource"] as? [String: String] ?? [:]
                let attributes = point["attributes"] as? [String: String] ?? [:]
                return resource["process.executable.path"] == row.executable
                    && resource["service.version"] == row.version && attributes["scenario"] == row.scenario
                    && attributes["temperature"] == row.temperature
            }
            let found = try #require(point, "no data point for \(row)")
            #expect((found["count"] as? NSNumber)?.intValue == row.samples, "\(row)")
            let buckets = (found["bucketCounts"] as? [NSNumber])?.map(\.intValue) ?? []
            #expect(
                buckets.reduce(0, +) == row.samples
                    && buckets.count == (found["bounds"] as? [Any])?.count.advanced(by: 1))
            #expect((found["resource"] as? [String: String])?["host.name"] == "field-host-33")
            #expect(found["unit"] as? String == "s" && found["temporality"] as? Int == 2)
        }
    }
}
