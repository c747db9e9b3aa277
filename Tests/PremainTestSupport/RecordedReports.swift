import Foundation

/// `premain measure` and `premain trace` reports (JSON, schemaVersion 1) written from given
/// series instead of real launches, so that what a test derives from them (a diff verdict, a
/// finding, an exit code) does not depend on how busy the machine is.
public enum RecordedReports {
    /// One traced function and its per-run inclusive times.
    public struct Function: Sendable {
        public var object: String
        public var symbol: String
        public var demangled: String?
        public var kind: String
        public var samplesMs: [Double]
        /// The DWARF line trace would have found, as `file:line` parts.
        public var source: (file: String, line: Int)?

        public init(
            object: String, symbol: String, demangled: String? = nil, kind: String, samplesMs: [Double],
            source: (file: String, line: Int)? = nil
        ) {
            self.object = object
            self.symbol = symbol
            self.demangled = demangled
            self.kind = kind
            self.samplesMs = samplesMs
            self.source = source
        }
    }

    /// `count` runs around `medianMs`, the same for every call: offsets 0, 0.01, …, 0.04 ms
    /// repeated, the launch-like spread of a quiet machine without its outliers.
    public static func series(_ medianMs: Double, count: Int = 20) -> [Double] {
        (0..<count).map { medianMs + Double($0 % 5) * 0.01 }
    }

    /// A measure report of `command` with the given milestones (`main`, `exit`, …) and objects'
    /// initializer times, each a series in ms.
    public static func measure(
        command: String, milestones: [String: [Double]],
        objects: [(path: String, initializersMs: [Double])] = []
    ) -> String {
        let runs = milestones.values.map(\.count).max() ?? 0
        return json([
            "schemaVersion": 1,
            "measurements": [
                [
                    "command": [command], "runs": runs, "cold": false, "conditions": ["recorded": "in code"],
                    "milestones": milestones.mapValues(summary),
                    "objects": objects.map {
                        ["path": $0.path, "initializers": summary($0.initializersMs)] as [String: Any]
                    },
                ] as [String: Any]
            ],
        ])
    }

    /// A trace report of `command` with the given functions.
    public static func trace(command: String, functions: [Function]) -> String {
        json([
            "schemaVersion": 1,
            "bias": ["pairMs": 0.01, "source": "given", "calibrationCalls": 0] as [String: Any],
            "measurements": [
                [
                    "command": [command], "runs": functions.map(\.samplesMs.count).max() ?? 0, "warmup": 0,
                    "until": "exit", "maxCalls": 1000, "conditions": ["recorded": "in code"],
                    "milestones": [String: Any](),
                    "outcomes": [String](), "untimed": [Any](), "notes": [String](),
                    "functions": functions.map { function in
                        var entry: [String: Any] = [
                            "object": function.object, "symbol": function.symbol, "kind": function.kind,
                            "calls": 1, "callsCapped": false, "unfinishedCalls": 0,
                            "inclusive": summary(function.samplesMs),
                        ]
                        if let demangled = function.demangled { entry["demangled"] = demangled }
                        if let source = function.source {
                            entry["source"] = ["file": source.file, "line": source.line] as [String: Any]
                        }
                        return entry
                    },
                ] as [String: Any]
            ],
        ])
    }

    /// `{medianMs, p90Ms, minMs, maxMs, samplesMs}` of a series (nearest-rank p90).
    static func summary(_ samples: [Double]) -> [String: Any] {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return ["medianMs": 0, "samplesMs": [Double]()] }
        let middle = sorted.count / 2
        let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        let p90 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.9).rounded(.up)) - 1)]
        return [
            "medianMs": median, "p90Ms": p90, "minMs": sorted[0], "maxMs": sorted[sorted.count - 1],
            "samplesMs": samples,
        ]
    }

    static func json(_ object: [String: Any]) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
