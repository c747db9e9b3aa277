import Foundation

/// Checks OpenMetrics text as its consumers read it: the Prometheus client's strict OpenMetrics
/// parser (Debian's python3-prometheus-client) and `promtool check metrics` (Debian's
/// prometheus), which also lints names and units (base units: seconds). Both come with
/// scripts/setup; a missing one fails the test that asks, naming what to install.
public enum OpenMetricsValidation {
    /// Every sample as `family`, `labels` and `value`, as the Prometheus client parses the text;
    /// throws the parser's complaint.
    public static func samples(_ text: String) throws -> [(family: String, labels: [String: String], value: Double)] {
        let file = try write(text)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let script = """
            import json, sys
            try:
                from prometheus_client.openmetrics.parser import text_string_to_metric_families
            except ImportError:
                print("python3-prometheus-client is missing: run scripts/setup", file=sys.stderr); sys.exit(2)
            text = open(sys.argv[1], encoding="utf-8").read()
            print(json.dumps([[f.name, s.labels, s.value] for f in text_string_to_metric_families(text) for s in f.samples]))
            """
        let result = try Shell.run(["python3", "-c", script, file])
        guard result.status == 0,
            let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[Any]]
        else { throw Problem(tool: "prometheus_client", output: result.stderr) }
        return rows.compactMap { row in
            guard row.count == 3, let family = row[0] as? String, let labels = row[1] as? [String: String],
                let value = row[2] as? Double
            else { return nil }
            return (family, labels, value)
        }
    }

    /// `promtool check metrics` on `text`: returns when it passes (exit 0, no lint problem),
    /// throws what it printed otherwise, or that promtool is not installed.
    public static func promtool(_ text: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") else {
            throw Problem(tool: "promtool", output: "not installed: run scripts/setup (Debian's prometheus)")
        }
        let file = try write(text)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try Shell.run(["sh", "-c", "exec promtool check metrics < \"$1\"", "sh", file])
        guard result.status == 0 else { throw Problem(tool: "promtool", output: result.stdout + result.stderr) }
    }

    /// What a consumer said about the text.
    public struct Problem: Error, CustomStringConvertible {
        public var tool: String
        public var output: String
        public var description: String { "\(tool): \(output)" }
    }

    private static func write(_ text: String) throws -> String {
        let file = TemporaryFolders.path("metrics") + ".txt"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }
}
