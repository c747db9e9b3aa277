import Foundation
import PremainRender
import PremainSystem
import PremainTestSupport
import Testing

/// The field exports read by the real programs that operators run: `promtool check metrics`
/// on the textfile, Debian's prometheus-node-exporter serving it and Prometheus scraping it,
/// with `histogram_quantile` asked through Prometheus' HTTP API; an OTLP/HTTP receiver that
/// decodes the POSTed JSON with opentelemetry-proto's own definitions (strict: an unknown field
/// is refused). Every server is started on 127.0.0.1 by the test and stopped on every path.
/// Nothing is timed: waits are polls with generous hang guards.
@Suite(
    .serialized,
    .enabled(
        if: ExportRealParts.missing == nil,
        "prometheus, prometheus-node-exporter (promtool) or PyPI opentelemetry-proto missing and not installable by scripts/setup"
    ))
struct FieldExportRealPartsTests {
    static let awkward = "/opt/we\"ird\\path\nnew line/app"

    /// Three series of one family (one with an executable name that needs every escape), the
    /// exclusions as gauges.
    static func export(_ samples: [Double]) -> FieldExport {
        func labels(_ exe: String, _ temperature: String) -> [ExportLabel] {
            [
                ExportLabel("executable", exe), ExportLabel("version", "ab12"), ExportLabel("scenario", "default"),
                ExportLabel("temperature", temperature),
            ]
        }
        return FieldExport(
            histograms: [
                FieldExportTests.histogram(samples, labels: labels("/usr/bin/tool", "cold")),
                FieldExportTests.histogram(samples.map { $0 / 4 }, labels: labels("/usr/bin/tool", "warm")),
                FieldExportTests.histogram([0.002, 0.003], labels: labels(awkward, "warm")),
            ],
            values: [
                ExportValue(
                    name: "premain_field_excluded_records", help: "Records the report left out, by reason",
                    labels: [ExportLabel("reason", "dropped")], value: 2)
            ])
    }

    @Test func prometheusScrapesTheTextfileThroughNodeExporterAndItsQuantileIsWithinTenPercent() throws {
        let folder = try TemporaryFolders.make("field-prometheus")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let samples = FieldExportTests.launches(1_000, seed: 7)
        let textfiles = folder + "/textfile"
        try FileManager.default.createDirectory(atPath: textfiles, withIntermediateDirectories: true)
        let text = NodeExporterTextfile.render(Self.export(samples))
        try text.write(toFile: textfiles + "/premain.prom", atomically: true, encoding: .utf8)

        let lint = try Shell.run(["bash", "-c", "promtool check metrics < \"$0\"", textfiles + "/premain.prom"])
        #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint.stdout)\(lint.stderr)")

        let servers = try LocalPrometheus(textfiles: textfiles, work: folder)
        defer { servers.stop() }

        // node_exporter read the file whole (it reports a file it could not parse as an error).
        let served = servers.served("premain_launch_to_main_seconds_count")
        try #require(served != nil, "node_exporter never served the textfile: \(servers.exporter.log)")
        #expect(
            served?.contains("node_textfile_scrape_error 0") == true,
            "\((served ?? "").split(separator: "\n").filter { $0.contains("textfile") })")

        let query =
            "histogram_quantile(0.9, premain_launch_to_main_seconds_bucket{executable=\"/usr/bin/tool\",temperature=\"cold\"})"
        let answer = servers.firstAnswer(query)
        try #require(!answer.isEmpty, "Prometheus never answered: \(servers.prometheus.log.suffix(2_000))")
        let estimate = try #require(LocalPrometheus.value(answer))
        let exact = FieldExportTests.exactQuantile(samples, 0.9)
        #expect(
            abs(estimate - exact) / exact < 0.10, "histogram_quantile \(estimate) s against the exact p90 \(exact) s")
        // Prometheus' answer is the estimate this layout promises, computed the same way here.
        let local = try #require(FieldExportTests.histogram(samples).prometheusQuantile(0.9))
        #expect(abs(estimate - local) <= 1e-9 * local, "\(estimate) against \(local)")

        // Every escaped label value came back as written; the counts and the gauge too.
        let counts = servers.query("premain_launch_to_main_seconds_count")
        let byExecutable = counts.compactMap { entry -> (String, String)? in
            guard let metric = entry["metric"] as? [String: String], let exe = metric["executable"],
                let temperature = metric["temperature"], let value = (entry["value"] as? [Any])?.last as? String
            else { return nil }
            return (exe + " " + temperature, value)
        }
        #expect(
            Dictionary(byExecutable, uniquingKeysWith: { a, _ in a })
                == ["/usr/bin/tool cold": "1000", "/usr/bin/tool warm": "1000", Self.awkward + " warm": "2"])
        let excluded = servers.query("premain_field_excluded_records")
        #expect((excluded.first?["value"] as? [Any])?.last as? String == "2")
    }

    @Test func anOTLPReceiverDecodesThePayloadWithTheReferenceDefinitions() throws {
        let folder = try TemporaryFolders.make("field-otlp")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let receiver = try OTLPReceiver(work: folder)
        defer { receiver.stop() }
        let url = receiver.url

        let samples = FieldExportTests.launches(300, seed: 9)
        let export = Self.export(samples)
        let json = try OTLPMetricsJSON.render(
            export, resource: OTLPResource(serviceName: nil, hostName: "9f2c00000000beef"), scopeVersion: "test",
            startUnixNano: 1_700_000_000_000_000_000, timeUnixNano: 1_700_000_060_000_000_000)
        let answer = try HTTPPost.send(Array(json.utf8), to: url, contentType: "application/json", timeoutSeconds: 60)
        #expect(answer.code == 200, "\(answer) \(receiver.service.log)")
        let points = try #require(receiver.firstPoints(), "\(receiver.service.log)")
        #expect(points.count == export.histograms.count)
        for (point, histogram) in zip(points, export.histograms) {
            #expect(point["name"] as? String == "premain.launch_to_main" && point["unit"] as? String == "s")
            #expect(point["temporality"] as? Int == 2)
            #expect((point["count"] as? NSNumber)?.uint64Value == histogram.count)
            #expect((point["bucketCounts"] as? [NSNumber])?.map(\.uint64Value) == histogram.bucketCounts)
            #expect((point["bounds"] as? [Double]) == histogram.upperBounds)
            #expect(abs((point["sum"] as? Double ?? -1) - histogram.sum) <= 1e-12 * histogram.sum)
            #expect((point["start"] as? NSNumber)?.uint64Value == 1_700_000_000_000_000_000)
            let resource = point["resource"] as? [String: String]
            let executable = histogram.labels.first { $0.key == "executable" }?.value
            #expect(resource?["process.executable.path"] == executable && resource?["host.name"] == "9f2c00000000beef")
            #expect(resource?["service.version"] == "ab12")
            let temperature = histogram.labels.first { $0.key == "temperature" }?.value
            #expect(
                (point["attributes"] as? [String: String]) == ["scenario": "default", "temperature": temperature ?? ""])
        }
        #expect((points.first?["resource"] as? [String: String])?["service.name"] == "tool")

        // The receiver is strict: a field the definitions do not have is refused, so the 200
        // above means every field premain sent is one of OTLP's.
        let unknown = json.replacingOccurrences(of: "\"aggregationTemporality\"", with: "\"aggregationTemporalty\"")
        let refused = try HTTPPost.send(
            Array(unknown.utf8), to: url, contentType: "application/json", timeoutSeconds: 60)
        #expect(refused.code == 400)
    }
}
