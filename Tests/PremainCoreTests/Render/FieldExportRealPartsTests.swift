import Foundation
import PremainRender
import PremainSystem
import PremainTestSupport
import Testing

/// What the real-parts tests need, installed by scripts/setup (run once here when missing).
enum FieldExportRealParts {
    static let missing: String? = {
        let missing = LocalService.require(
            programs: ["promtool", "prometheus", "prometheus-node-exporter", "python3"],
            pythonModules: ["opentelemetry.proto.collector.metrics.v1.metrics_service_pb2"])
        if let missing { print("FieldExportRealPartsTests skipped: \(missing)") }
        return missing
    }()

}

/// The field exports read by the real programs that operators run: `promtool check metrics`
/// on the textfile, Debian's prometheus-node-exporter serving it and Prometheus scraping it,
/// with `histogram_quantile` asked through Prometheus' HTTP API; an OTLP/HTTP receiver that
/// decodes the POSTed JSON with opentelemetry-proto's own definitions (strict: an unknown field
/// is refused). Every server is started on 127.0.0.1 by the test and stopped on every path.
/// Nothing is timed: waits are polls with generous hang guards.
@Suite(
    .serialized,
    .enabled(
        if: FieldExportRealParts.missing == nil,
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

        let exporterPort = try LocalService.freePort()
        let exporter = try LocalService(
            [
                "prometheus-node-exporter", "--collector.disable-defaults", "--collector.textfile",
                "--collector.textfile.directory=" + textfiles, "--web.listen-address=127.0.0.1:\(exporterPort)",
            ], logPath: folder + "/node-exporter.log")
        defer { exporter.stop() }
        let prometheusPort = try LocalService.freePort()
        try """
        global:
          scrape_interval: 1s
          evaluation_interval: 1s
        scrape_configs:
          - job_name: premain-field
            static_configs:
              - targets: ['127.0.0.1:\(exporterPort)']
        """.write(toFile: folder + "/prometheus.yml", atomically: true, encoding: .utf8)
        let prometheus = try LocalService(
            [
                "prometheus", "--config.file=" + folder + "/prometheus.yml", "--storage.tsdb.path=" + folder + "/data",
                "--web.listen-address=127.0.0.1:\(prometheusPort)",
            ], logPath: folder + "/prometheus.log")
        defer { prometheus.stop() }

        // node_exporter read the file whole (it reports a file it could not parse as an error).
        var served = ""
        #expect(
            Poll.until(seconds: 120) {
                served = LocalService.get("http://127.0.0.1:\(exporterPort)/metrics") ?? ""
                return served.contains("premain_launch_to_main_seconds_count")
            }, "node_exporter never served the textfile: \(exporter.log)")
        #expect(
            served.contains("node_textfile_scrape_error 0"),
            "\(served.split(separator: "\n").filter { $0.contains("textfile") })")

        let query =
            "histogram_quantile(0.9, premain_launch_to_main_seconds_bucket{executable=\"/usr/bin/tool\",temperature=\"cold\"})"
        var answer: [[String: Any]] = []
        let scraped = Poll.until(seconds: 180) {
            answer = Self.query(prometheusPort, query)
            return !answer.isEmpty
        }
        try #require(scraped, "Prometheus never answered: \(prometheus.log.suffix(2_000))")
        let value = try #require((answer[0]["value"] as? [Any])?.last as? String).flatMap(Double.init)
        let estimate = try #require(value)
        let exact = FieldExportTests.exactQuantile(samples, 0.9)
        #expect(
            abs(estimate - exact) / exact < 0.10, "histogram_quantile \(estimate) s against the exact p90 \(exact) s")
        // Prometheus' answer is the estimate this layout promises, computed the same way here.
        let local = try #require(FieldExportTests.histogram(samples).prometheusQuantile(0.9))
        #expect(abs(estimate - local) <= 1e-9 * local, "\(estimate) against \(local)")

        // Every escaped label value came back as written; the counts and the gauge too.
        let counts = Self.query(prometheusPort, "premain_launch_to_main_seconds_count")
        let byExecutable = counts.compactMap { entry -> (String, String)? in
            guard let metric = entry["metric"] as? [String: String], let exe = metric["executable"],
                let temperature = metric["temperature"], let value = (entry["value"] as? [Any])?.last as? String
            else { return nil }
            return (exe + " " + temperature, value)
        }
        #expect(
            Dictionary(byExecutable, uniquingKeysWith: { a, _ in a })
                == ["/usr/bin/tool cold": "1000", "/usr/bin/tool warm": "1000", Self.awkward + " warm": "2"])
        let excluded = Self.query(prometheusPort, "premain_field_excluded_records")
        #expect((excluded.first?["value"] as? [Any])?.last as? String == "2")
    }

    /// The result vector of an instant query, `[]` before the first scrape or on any error.
    static func query(_ port: UInt16, _ promql: String) -> [[String: Any]] {
        var components = URLComponents(string: "http://127.0.0.1:\(port)/api/v1/query")
        components?.queryItems = [URLQueryItem(name: "query", value: promql)]
        // URLComponents leaves "+" alone, which a query string reads as a space.
        let url = (components?.string ?? "").replacingOccurrences(of: "+", with: "%2B")
        guard let body = LocalService.get(url),
            let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            json["status"] as? String == "success", let data = json["data"] as? [String: Any]
        else { return [] }
        return data["result"] as? [[String: Any]] ?? []
    }

    static let receiver = """
        import json, sys
        from http.server import BaseHTTPRequestHandler, HTTPServer
        from google.protobuf import json_format
        from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

        class Receiver(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path != "/v1/metrics" or self.headers.get("Content-Type") != "application/json":
                    print(json.dumps({"refused": self.path}), flush=True)
                    self.send_response(404)
                    self.end_headers()
                    return
                try:
                    request = json_format.Parse(body, ExportMetricsServiceRequest())  # unknown fields fail
                except json_format.ParseError as error:
                    print(json.dumps({"error": str(error)}), flush=True)
                    self.send_response(400)
                    self.end_headers()
                    return
                points = []
                for rm in request.resource_metrics:
                    resource = {a.key: a.value.string_value for a in rm.resource.attributes}
                    for sm in rm.scope_metrics:
                        for m in sm.metrics:
                            for p in m.histogram.data_points:
                                points.append({"resource": resource, "name": m.name, "unit": m.unit,
                                    "temporality": m.histogram.aggregation_temporality,
                                    "attributes": {a.key: a.value.string_value for a in p.attributes},
                                    "count": p.count, "sum": p.sum, "bucketCounts": list(p.bucket_counts),
                                    "bounds": list(p.explicit_bounds), "start": p.start_time_unix_nano,
                                    "time": p.time_unix_nano})
                print(json.dumps({"points": points}), flush=True)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *arguments):
                pass

        server = HTTPServer(("127.0.0.1", 0), Receiver)
        print(json.dumps({"port": server.server_port}), flush=True)
        server.serve_forever()
        """

    @Test func anOTLPReceiverDecodesThePayloadWithTheReferenceDefinitions() throws {
        let folder = try TemporaryFolders.make("field-otlp")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.receiver.write(toFile: folder + "/receiver.py", atomically: true, encoding: .utf8)
        let receiver = try LocalService(["python3", folder + "/receiver.py"], logPath: folder + "/receiver.log")
        defer { receiver.stop() }
        func lines() -> [[String: Any]] {
            receiver.log.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        try #require(Poll.until(seconds: 120) { lines().first?["port"] is Int }, "receiver: \(receiver.log)")
        let port = try #require(lines().first?["port"] as? Int)
        let url = "http://127.0.0.1:\(port)/v1/metrics"

        let samples = FieldExportTests.launches(300, seed: 9)
        let export = Self.export(samples)
        let json = try OTLPMetricsJSON.render(
            export, resource: OTLPResource(serviceName: nil, hostName: "9f2c00000000beef"), scopeVersion: "test",
            startUnixNano: 1_700_000_000_000_000_000, timeUnixNano: 1_700_000_060_000_000_000)
        let answer = try HTTPPost.send(Array(json.utf8), to: url, contentType: "application/json", timeoutSeconds: 60)
        #expect(answer.code == 200, "\(answer) \(receiver.log)")
        try #require(Poll.until(seconds: 60) { lines().contains { $0["points"] != nil } }, "\(receiver.log)")
        let points = try #require(lines().first { $0["points"] != nil }?["points"] as? [[String: Any]])
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
