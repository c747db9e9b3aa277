import Foundation

/// Debian's prometheus-node-exporter, with only its textfile collector, serving the `*.prom`
/// files of one folder, and a Prometheus that scrapes it every second; both on 127.0.0.1 on
/// ports the kernel picked, started by the test and stopped by `stop()` (call it in a `defer`;
/// the parent-death signal stops them should the test process die first).
public final class LocalPrometheus: @unchecked Sendable {
    public let exporter: LocalService
    public let prometheus: LocalService
    public let exporterPort: UInt16
    public let prometheusPort: UInt16

    /// Starts both: node_exporter over `textfiles`, Prometheus' configuration, data and logs in
    /// `work`. Throws when either cannot start (the other is stopped).
    public init(textfiles: String, work: String) throws {
        exporterPort = try LocalService.freePort()
        exporter = try LocalService(
            [
                "prometheus-node-exporter", "--collector.disable-defaults", "--collector.textfile",
                "--collector.textfile.directory=" + textfiles, "--web.listen-address=127.0.0.1:\(exporterPort)",
            ], logPath: work + "/node-exporter.log")
        do {
            prometheusPort = try LocalService.freePort()
            try """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: premain-field
                static_configs:
                  - targets: ['127.0.0.1:\(exporterPort)']
            """.write(toFile: work + "/prometheus.yml", atomically: true, encoding: .utf8)
            prometheus = try LocalService(
                [
                    "prometheus", "--config.file=" + work + "/prometheus.yml", "--storage.tsdb.path=" + work + "/data",
                    "--web.listen-address=127.0.0.1:\(prometheusPort)",
                ], logPath: work + "/prometheus.log")
        } catch {
            exporter.stop()
            throw error
        }
    }

    public func stop() {
        prometheus.stop()
        exporter.stop()
    }

    /// What node_exporter serves once it serves `metric` (it read the textfile), or `nil` when
    /// it never did within the hang guard.
    public func served(_ metric: String) -> String? {
        var served = ""
        let found = Poll.until(seconds: 120) {
            served = LocalService.get("http://127.0.0.1:\(exporterPort)/metrics") ?? ""
            return served.contains(metric)
        }
        return found ? served : nil
    }

    /// The result vector of `promql` once it is not empty (Prometheus has scraped), or `[]`
    /// when it stayed empty within the hang guard.
    public func firstAnswer(_ promql: String) -> [[String: Any]] {
        var answer: [[String: Any]] = []
        _ = Poll.until(seconds: 180) {
            answer = query(promql)
            return !answer.isEmpty
        }
        return answer
    }

    /// The result vector of an instant query, `[]` before the first scrape or on any error.
    public func query(_ promql: String) -> [[String: Any]] {
        var components = URLComponents(string: "http://127.0.0.1:\(prometheusPort)/api/v1/query")
        components?.queryItems = [URLQueryItem(name: "query", value: promql)]
        // URLComponents leaves "+" alone, which a query string reads as a space.
        let url = (components?.string ?? "").replacingOccurrences(of: "+", with: "%2B")
        guard let body = LocalService.get(url),
            let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            json["status"] as? String == "success", let data = json["data"] as? [String: Any]
        else { return [] }
        return data["result"] as? [[String: Any]] ?? []
    }

    /// The one value of an instant query's result, as a number; `nil` when there is none.
    public static func value(_ result: [[String: Any]]) -> Double? {
        ((result.first?["value"] as? [Any])?.last as? String).flatMap(Double.init)
    }

    /// A PromQL label matcher for `value`: `"…"` with `\`, `"` and line feed escaped.
    public static func quoted(_ value: String) -> String {
        var out = "\""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out + "\""
    }
}

/// What the tests of the field exports with real parts need: promtool, prometheus and
/// prometheus-node-exporter (Debian), python3 with PyPI's opentelemetry-proto. scripts/setup
/// installs them; it runs once here when one is missing.
public enum ExportRealParts {
    /// `nil` when every part is there, else what is missing (printed once, for the skip).
    public static let missing: String? = {
        let missing = LocalService.require(
            programs: ["promtool", "prometheus", "prometheus-node-exporter", "python3"],
            pythonModules: ["opentelemetry.proto.collector.metrics.v1.metrics_service_pb2"])
        if let missing { print("field export tests with real parts skipped: \(missing)") }
        return missing
    }()

}
