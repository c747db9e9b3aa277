import Glibc
import PremainAudit
import PremainModel

/// A scan of /proc/PID/stat: which processes exist in a process group. Used to prove that a
/// launch left nothing behind.
public enum ProcessTable {
    /// One process of the scan.
    public struct Member: Equatable, Sendable {
        public var pid: pid_t
        /// State `Z`: dead, waiting to be reaped.
        public var zombie: Bool
    }

    /// Every process whose process group is `pgid`, zombies included. `[]` when none or when
    /// /proc cannot be read.
    public static func members(ofGroup pgid: pid_t) -> [Member] {
        guard let dir = opendir("/proc") else { return [] }
        defer { closedir(dir) }
        var found: [Member] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = pid_t(name), let stat = readStat(pid) else { continue }
            if stat.pgrp == pgid { found.append(Member(pid: pid, zombie: stat.state == "Z")) }
        }
        return found
    }

    /// State letter and process group from /proc/PID/stat; `nil` when the process is gone.
    static func readStat(_ pid: pid_t) -> (state: Character, pgrp: pid_t)? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        // "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses; split after the last ')'.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count >= 3, let state = fields[0].first, let pgrp = pid_t(fields[2]) else { return nil }
        return (state, pgrp)
    }
}
