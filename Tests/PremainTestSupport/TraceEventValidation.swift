import Foundation

/// Checks a file against the documented fields of the Chrome trace-event format ("Trace Event
/// Format", the JSON Object Format that ui.perfetto.dev, chrome://tracing and speedscope read):
/// `traceEvents` an array of objects, each with `name`, `ph`, `pid`, `tid`; `ts` a number of
/// microseconds for every non-metadata event; `dur` ≥ 0 on complete events (`X`); instant
/// events (`i`) with scope `s` of `g`, `p` or `t`; `args` an object; metadata events (`M`)
/// `process_name`/`thread_name` with `args.name`, `*_sort_index` with `args.sort_index`.
/// Beyond the format, premain's own promise: every track used is named, and the complete
/// events of one track nest (a viewer draws them as a flame chart, not as overlapping bars).
public enum TraceEventValidation {
    /// The events, decoded, once the document passes; throws a description of every problem.
    public static func validate(_ text: String) throws -> [[String: Any]] {
        guard let document = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let events = document["traceEvents"] as? [[String: Any]]
        else {
            throw Problems(list: ["not a JSON object with a traceEvents array of objects"])
        }
        var problems: [String] = []
        if let unit = document["displayTimeUnit"], !["ms", "ns"].contains(unit as? String ?? "") {
            problems.append("displayTimeUnit \(unit) is neither ms nor ns")
        }
        var namedProcesses = Set<Int>()
        var namedThreads = Set<[Int]>()
        var used = Set<[Int]>()
        var slices: [[Int]: [(ts: Double, end: Double, name: String)]] = [:]
        for (index, event) in events.enumerated() {
            let label = "event \(index) (\(event["name"] ?? "?"))"
            guard let phase = event["ph"] as? String, ["X", "i", "I", "M", "B", "E", "C"].contains(phase) else {
                problems.append("\(label): ph \(event["ph"] ?? "missing") is not a known phase")
                continue
            }
            guard event["name"] is String else {
                problems.append("\(label): no name string")
                continue
            }
            guard let pid = integer(event["pid"]), let tid = integer(event["tid"]) else {
                problems.append("\(label): pid and tid must be integers")
                continue
            }
            if let args = event["args"], !(args is [String: Any]) { problems.append("\(label): args is not an object") }
            if phase == "M" {
                let args = event["args"] as? [String: Any] ?? [:]
                switch event["name"] as? String {
                case "process_name":
                    if args["name"] is String {
                        namedProcesses.insert(pid)
                    } else {
                        problems.append("\(label): no args.name")
                    }
                case "thread_name":
                    if args["name"] is String {
                        namedThreads.insert([pid, tid])
                    } else {
                        problems.append("\(label): no args.name")
                    }
                case "process_sort_index", "thread_sort_index":
                    if integer(args["sort_index"]) == nil { problems.append("\(label): no integer args.sort_index") }
                default:
                    problems.append("\(label): unknown metadata event")
                }
                continue
            }
            guard let ts = number(event["ts"]), ts >= 0 else {
                problems.append("\(label): ts must be a number of microseconds ≥ 0")
                continue
            }
            used.insert([pid, tid])
            switch phase {
            case "X":
                guard let duration = number(event["dur"]), duration >= 0 else {
                    problems.append("\(label): a complete event needs dur ≥ 0")
                    continue
                }
                slices[[pid, tid], default: []].append((ts, ts + duration, event["name"] as? String ?? ""))
            case "i", "I":
                if let scope = event["s"], !["g", "p", "t"].contains(scope as? String ?? "") {
                    problems.append("\(label): instant scope \(scope) is not g, p or t")
                }
            default:
                break
            }
        }
        for track in used where !namedProcesses.contains(track[0]) {
            problems.append("process \(track[0]) has no process_name")
        }
        for track in slices.keys where !namedThreads.contains(track) {
            problems.append("thread \(track[1]) of process \(track[0]) has no thread_name")
        }
        for (track, list) in slices {
            var open: [(ts: Double, end: Double, name: String)] = []
            for slice in list.sorted(by: { ($0.ts, -$0.end) < ($1.ts, -$1.end) }) {
                while let top = open.last, top.end <= slice.ts + 0.0005 { open.removeLast() }
                if let top = open.last, slice.end > top.end + 0.0005 {
                    problems.append("track \(track): \(slice.name) overlaps \(top.name) without nesting")
                }
                open.append(slice)
            }
        }
        guard problems.isEmpty else { throw Problems(list: problems) }
        return events
    }

    public struct Problems: Error, CustomStringConvertible {
        public var list: [String]
        public var description: String { list.prefix(20).joined(separator: "\n") }
    }

    static func integer(_ value: Any?) -> Int? {
        guard let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        return double == double.rounded() ? Int(double) : nil
    }

    static func number(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber else { return nil }
        return number.doubleValue.isFinite ? number.doubleValue : nil
    }
}
