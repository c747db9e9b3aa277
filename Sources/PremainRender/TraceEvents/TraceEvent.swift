import FoundationEssentials

/// One event of the Chrome trace-event format (the JSON that ui.perfetto.dev, chrome://tracing
/// and speedscope open): a complete slice (`ph` "X"), an instant (`ph` "i") or a metadata
/// record naming a process or thread (`ph` "M"). Times are microseconds.
struct TraceEvent: Encodable, Equatable {
    /// An argument value shown in the viewer's details pane.
    enum Argument: Encodable, Equatable {
        case text(String)
        case number(Double)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .number(let number): try container.encode(number)
            }
        }
    }

    var name: String
    var cat: String?
    var ph: String
    var ts: Double
    var dur: Double?
    var pid: Int
    var tid: Int
    /// Scope of an instant: "t" thread, "p" process, "g" global.
    var s: String?
    var args: [String: Argument]?

    /// A slice from `startMs` lasting `durationMs` (never negative).
    static func slice(
        _ name: String, category: String, startMs: Double, durationMs: Double, pid: Int, tid: Int,
        args: [String: Argument]? = nil
    ) -> TraceEvent {
        TraceEvent(
            name: name, cat: category, ph: "X", ts: microseconds(startMs), dur: microseconds(max(0, durationMs)),
            pid: pid, tid: tid, s: nil, args: args)
    }

    /// A mark at `ms`, on a thread's track or (scope "p") across the process.
    static func instant(
        _ name: String, category: String, ms: Double, pid: Int, tid: Int, scope: String = "t",
        args: [String: Argument]? = nil
    ) -> TraceEvent {
        TraceEvent(
            name: name, cat: category, ph: "i", ts: microseconds(ms), dur: nil, pid: pid, tid: tid, s: scope,
            args: args)
    }

    /// `process_name`, `thread_name`, `process_sort_index` or `thread_sort_index`.
    static func metadata(_ name: String, pid: Int, tid: Int = 0, value: Argument) -> TraceEvent {
        let key = name.hasSuffix("sort_index") ? "sort_index" : "name"
        return TraceEvent(
            name: name, cat: nil, ph: "M", ts: 0, dur: nil, pid: pid, tid: tid, s: nil,
            args: [key: value])
    }

    /// Milliseconds to microseconds, rounded to the nanosecond.
    static func microseconds(_ ms: Double) -> Double {
        (ms * 1_000_000).rounded() / 1000
    }
}

/// The whole file: `{"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}`.
struct TraceEventDocument: Encodable {
    var traceEvents: [TraceEvent]
    var displayTimeUnit = "ms"
    /// Free-form facts about the recording (tool, command, verdict), shown by the viewers'
    /// metadata panes.
    var otherData: [String: String]

    /// Sorted keys, one event per line is not needed: viewers read any valid JSON.
    func rendered() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}
