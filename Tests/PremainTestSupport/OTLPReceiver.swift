import Foundation

/// An OTLP/HTTP receiver in Python on 127.0.0.1 (a port the kernel picked) that decodes each
/// POSTed JSON body with opentelemetry-proto's own `ExportMetricsServiceRequest` (strict: a
/// field OTLP does not have is refused with 400) and logs one JSON line per request with every
/// histogram data point. Stopped by `stop()` (call it in a `defer`).
public final class OTLPReceiver: @unchecked Sendable {
    public let service: LocalService
    public let port: Int
    /// `http://127.0.0.1:PORT/v1/metrics`
    public var url: String { "http://127.0.0.1:\(port)/v1/metrics" }

    static let script = """
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

    /// Starts the receiver with its script and log in `work` and waits until it listens;
    /// throws when it does not (its log in the error).
    public init(work: String) throws {
        try Self.script.write(toFile: work + "/receiver.py", atomically: true, encoding: .utf8)
        let service = try LocalService(["python3", work + "/receiver.py"], logPath: work + "/receiver.log")
        var port: Int?
        _ = Poll.until(seconds: 120) {
            port = Self.lines(service.log).first?["port"] as? Int
            return port != nil
        }
        guard let port else {
            service.stop()
            throw ReceiverError(log: service.log)
        }
        self.service = service
        self.port = port
    }

    public struct ReceiverError: Error, CustomStringConvertible {
        public var log: String
        public var description: String { "the OTLP receiver did not start: \(log)" }
    }

    public func stop() { service.stop() }

    /// The log's JSON lines: `{"port"}`, then `{"points"}`, `{"error"}` or `{"refused"}` per request.
    public var lines: [[String: Any]] { Self.lines(service.log) }

    static func lines(_ log: String) -> [[String: Any]] {
        log.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The data points of the first request it decoded, once there is one; `nil` when none
    /// came within the hang guard.
    public func firstPoints() -> [[String: Any]]? {
        var points: [[String: Any]]?
        _ = Poll.until(seconds: 60) {
            points = lines.first { $0["points"] != nil }?["points"] as? [[String: Any]]
            return points != nil
        }
        return points
    }
}
