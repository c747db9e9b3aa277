import Foundation

/// The live processes, read from /proc, for the tests that prove premain left nothing behind.
public enum ProcessScan {
    public struct Entry: Sendable {
        public var pid: pid_t
        public var parent: pid_t
        /// State letter of /proc/PID/stat; `Z` for a zombie.
        public var state: Character
        /// Target of /proc/PID/exe; "" when unreadable (zombies, other users).
        public var executable: String
        /// /proc/PID/cmdline with its NUL separators as spaces.
        public var commandLine: String
        /// TracerPid of /proc/PID/status: the process tracing it under ptrace; 0 when none.
        public var tracer: pid_t
    }

    /// Every process whose /proc entry could be read; `[]` when /proc cannot be listed.
    public static func all() -> [Entry] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // "pid (comm) S ppid ...": comm may hold spaces and parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, let state = fields[0].first, let parent = pid_t(fields[1]) else { return nil }
            let arguments = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") ?? Data()
            let status = (try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8)) ?? ""
            let tracer =
                status.split(separator: "\n").first { $0.hasPrefix("TracerPid:") }
                .flatMap { pid_t($0.dropFirst("TracerPid:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            return Entry(
                pid: pid, parent: parent, state: state,
                executable: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/exe")) ?? "",
                commandLine: String(decoding: arguments.map { $0 == 0 ? 32 : $0 }, as: UTF8.self),
                tracer: tracer)
        }
    }
}
