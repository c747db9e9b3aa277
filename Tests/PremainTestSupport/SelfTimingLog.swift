import Foundation

/// The log the self-timed samples write (samples/README.md, "Self-timing protocol"): one line
/// `<id> <start_ns> <end_ns> <duration_ms>` per initializer, and `main <ns> <ns> 0.000` first
/// thing in main, all on CLOCK_MONOTONIC.
public enum SelfTimingLog {
    public struct Line: Sendable, Equatable {
        public var id: String
        public var startNs: UInt64
        public var endNs: UInt64
        /// end − start in ms.
        public var durationMs: Double { Double(endNs &- startNs) / 1e6 }
    }

    /// The lines of the log at `path`, in order; `[]` when there is no log (a sample without
    /// self-timing, or a run killed before its first line). Malformed lines are left out.
    public static func lines(_ path: String) -> [Line] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, let start = UInt64(fields[1]), let end = UInt64(fields[2]) else { return nil }
            return Line(id: String(fields[0]), startNs: start, endNs: end)
        }
    }

    /// id → durations in ms, in log order; `[:]` without a log.
    public static func durations(_ path: String) -> [String: [Double]] {
        var result: [String: [Double]] = [:]
        for line in lines(path) { result[line.id, default: []].append(line.durationMs) }
        return result
    }

    /// A fresh log path in the temporary folder (not created).
    public static func temporaryPath(_ label: String) -> String {
        TemporaryFolders.root + "/premain-\(label)-\(getpid())-\(UUID().uuidString).log"
    }

    /// CLOCK_MONOTONIC now, in ns: the samples' clock.
    public static func nowNs() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
